package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/doppel-search/doppel/crawler"
	"github.com/doppel-search/doppel/crawler/traps"
	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/indexer"
)

// errInterrupted reports a crawl stopped by SIGINT/SIGTERM; it exits with
// status 130 and can be resumed.
var errInterrupted = errors.New("interrupted; run the same command again to resume")

// progressInterval is how often progress is logged when stderr is not a
// terminal, and redrawInterval how often the progress line is redrawn when
// it is (tests shorten them).
var (
	progressInterval = 5 * time.Second
	redrawInterval   = 500 * time.Millisecond
)

// exampleConfig is a complete crawl configuration file: the fields of
// crawler.Options in snake_case, durations as Go duration strings. Every
// field is optional except seeds (which --seed may give instead); an absent
// or zero field takes the default documented on crawler.Options, except
// "delay": "0s", which means no delay (as --delay 0 does).
const exampleConfig = `{
  "seeds": ["https://intranet.example/"],
  "allowed_hosts": ["intranet.example", "wiki.intranet.example"],
  "allowed_prefixes": [],
  "max_depth": 10,
  "max_pages": 1000,
  "ignore_robots": false,
  "delay": "100ms",
  "parallelism": 2,
  "timeout": "10s",
  "refresh_interval": "10s",
  "max_body_bytes": 5242880,
  "user_agent": "DoppelBot/1.0",
  "max_redirects": 5,
  "traps": {"max_per_template": 0, "max_duplicates_per_template": 20,
            "max_segments": 12, "max_repeats": 3, "max_url_length": 1024},
  "drop_params": ["utm_*", "sessionid", "jsessionid", "phpsessid", "sid", "gclid", "fbclid"],
  "policy": "skip",
  "similarity": "resemblance",
  "groups": [{"prefix": "https://intranet.example/hr/", "groups": ["hr"]}],
  "no_dedup": false
}`

// crawlConfig is the configuration file's format: crawler.Options in
// snake_case, with durations as strings (parsed by loadConfig, which names
// the field in its errors).
type crawlConfig struct {
	Seeds           []string            `json:"seeds"`
	AllowedHosts    []string            `json:"allowed_hosts"`
	AllowedPrefixes []string            `json:"allowed_prefixes"`
	MaxDepth        int                 `json:"max_depth"`
	MaxPages        int                 `json:"max_pages"`
	IgnoreRobots    bool                `json:"ignore_robots"`
	Delay           string              `json:"delay"`
	Parallelism     int                 `json:"parallelism"`
	Timeout         string              `json:"timeout"`
	RefreshInterval string              `json:"refresh_interval"`
	MaxBodyBytes    int                 `json:"max_body_bytes"`
	UserAgent       string              `json:"user_agent"`
	MaxRedirects    int                 `json:"max_redirects"`
	Traps           trapsConfig         `json:"traps"`
	DropParams      []string            `json:"drop_params"`
	Policy          indexer.Policy      `json:"policy"`
	Similarity      dedup.Similarity    `json:"similarity"`
	Groups          []crawler.GroupRule `json:"groups"`
	NoDedup         bool                `json:"no_dedup"`
}

type trapsConfig struct {
	MaxPerTemplate           int `json:"max_per_template"`
	MaxDuplicatesPerTemplate int `json:"max_duplicates_per_template"`
	MaxSegments              int `json:"max_segments"`
	MaxRepeats               int `json:"max_repeats"`
	MaxURLLength             int `json:"max_url_length"`
}

// loadConfig reads a configuration file. Unknown fields are errors, so a
// typo does not silently fall back to a default; so is anything after the
// object.
func loadConfig(path string) (crawler.Options, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return crawler.Options{}, err
	}
	fail := func(err error) (crawler.Options, error) {
		return crawler.Options{}, fmt.Errorf("config %s: %w", path, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c crawlConfig
	if err := dec.Decode(&c); err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case errors.Is(err, io.EOF):
			return fail(errors.New("empty file"))
		case errors.As(err, &te) && te.Field != "":
			want := te.Type.String()
			switch te.Field {
			case "delay", "timeout", "refresh_interval":
				want = `a Go duration string such as "250ms"`
			case "policy":
				want = `"skip", "hidden" or "all"`
			case "similarity":
				want = `"resemblance" or "cosine"`
			}
			return fail(fmt.Errorf("%s must be %s, not a %s", te.Field, want, te.Value))
		}
		return fail(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fail(errors.New("unexpected data after the JSON object"))
	}
	parse := func(field, s string) (time.Duration, error) {
		if s == "" {
			return 0, nil
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, fmt.Errorf("%s: %q is not a Go duration such as \"250ms\"", field, s)
		}
		return d, nil
	}
	delay, err := parse("delay", c.Delay)
	if err != nil {
		return fail(err)
	}
	if delay == 0 && c.Delay != "" {
		delay = -1 // "delay": "0s" means none, as --delay 0 does
	}
	timeout, err := parse("timeout", c.Timeout)
	if err != nil {
		return fail(err)
	}
	refresh, err := parse("refresh_interval", c.RefreshInterval)
	if err != nil {
		return fail(err)
	}
	return crawler.Options{
		Seeds: c.Seeds, AllowedHosts: c.AllowedHosts, AllowedPrefixes: c.AllowedPrefixes,
		MaxDepth: c.MaxDepth, MaxPages: c.MaxPages, IgnoreRobots: c.IgnoreRobots,
		Delay: delay, Parallelism: c.Parallelism, Timeout: timeout, RefreshInterval: refresh,
		MaxBodyBytes: c.MaxBodyBytes, UserAgent: c.UserAgent, MaxRedirects: c.MaxRedirects,
		Traps: traps.Options{MaxPerTemplate: c.Traps.MaxPerTemplate, MaxDuplicatesPerTemplate: c.Traps.MaxDuplicatesPerTemplate,
			MaxSegments: c.Traps.MaxSegments, MaxRepeats: c.Traps.MaxRepeats, MaxURLLength: c.Traps.MaxURLLength},
		DropParams: c.DropParams, Policy: c.Policy, Similarity: c.Similarity, Groups: c.Groups, NoDedup: c.NoDedup,
	}, nil
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// runCrawl crawls into a data directory, or resumes the crawl saved there.
func runCrawl(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("crawl", flag.ContinueOnError)
	var seeds stringList
	fs.Var(&seeds, "seed", "start `URL` (repeatable); without it, the crawl saved in --data resumes")
	data := fs.String("data", "", "data `directory` for the frontier, page records and index (required)")
	config := fs.String("config", "", "JSON configuration `file` (flags override it)")
	maxPages := fs.Int("max-pages", 0, "pages to fetch in all, across restarts (default 1000)")
	policy := fs.String("policy", "", "near-duplicates: skip (default), hidden or all")
	delay := fs.Duration("delay", 0, "pause between requests (default 100ms; 0: none)")
	parallelism := fs.Int("parallelism", 0, "requests in flight (default 2)")
	maxDepth := fs.Int("max-depth", 0, "links followed from a seed (default 10)")
	ignoreRobots := fs.Bool("ignore-robots", false, "do not honour robots.txt")
	userAgent := fs.String("user-agent", "", "User-Agent header (default DoppelBot/1.0)")
	similarity := fs.String("similarity", "", "what makes pages copies: resemblance (default; the same text up to small edits) or cosine (the same words: for spam-like edits, joins API pages that share their vocabulary)")
	serveAddr := fs.String("serve", "", "also serve the search UI and API on this `address` while crawling, and after it until Ctrl-C")
	identity := identityFlags(fs)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: doppel crawl --seed URL [--seed URL…] --data DIR [flags]\n"+
			"       doppel crawl --data DIR [--max-pages N]   (resume with the saved options)\n\n"+
			"Crawls the seeds' hosts, deduplicates and indexes into DIR, with progress on stderr and a\n"+
			"summary on stdout. Giving the seeds again on a DIR with a crawl goes on with the new options.\n"+
			"Ctrl-C (SIGINT) or SIGTERM stops resumably. Exit status: 0 done (frontier empty or budget\n"+
			"spent), 1 error, 2 usage, 130 interrupted (run the same command again to resume).\n\nFlags:\n")
		fs.PrintDefaults()
		fmt.Fprintf(stderr, "\nThe configuration file (--config) is JSON: crawler.Options in snake_case, durations as Go\n"+
			"duration strings, every field optional (absent: the default; \"delay\": \"0s\": none),\n"+
			"unknown fields are errors. Complete example:\n%s\n", exampleConfig)
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if *data == "" {
		fmt.Fprintln(stderr, "doppel crawl: --data is required")
		fs.Usage()
		return errUsage
	}
	var opts crawler.Options
	if *config != "" {
		var err error
		if opts, err = loadConfig(*config); err != nil {
			return err
		}
	}
	var flagErr error
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "seed":
			opts.Seeds = seeds
		case "max-pages":
			opts.MaxPages = *maxPages
		case "policy":
			p, err := indexer.ParsePolicy(*policy)
			flagErr = errors.Join(flagErr, err)
			opts.Policy = p
		case "delay":
			opts.Delay = *delay
			if opts.Delay == 0 {
				opts.Delay = -1 // --delay 0 means none
			}
		case "parallelism":
			opts.Parallelism = *parallelism
		case "max-depth":
			opts.MaxDepth = *maxDepth
		case "ignore-robots":
			opts.IgnoreRobots = *ignoreRobots
		case "user-agent":
			opts.UserAgent = *userAgent
		case "similarity":
			sim, err := dedup.ParseSimilarity(*similarity)
			flagErr = errors.Join(flagErr, err)
			opts.Similarity = sim
		}
	})
	if flagErr != nil {
		return flagErr
	}
	var bad []string
	fs.Visit(func(f *flag.Flag) {
		if g, ok := f.Value.(flag.Getter); ok {
			if n, ok := g.Get().(int); ok && n < 1 { // every int flag is a count
				bad = append(bad, "--"+f.Name)
			}
		}
	})
	if len(bad) > 0 {
		fmt.Fprintf(stderr, "doppel crawl: %s must be at least 1\n", strings.Join(bad, ", "))
		return errUsage
	}
	if len(opts.Seeds) == 0 {
		// Resuming: Open uses the saved options and only MaxPages from
		// opts. Refuse anything else rather than silently ignore it.
		var ignored []string
		fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "data", "max-pages", "serve", "groups-header", "trusted-proxies", "demo-users", "admin-groups", "admin-addr":
			default:
				ignored = append(ignored, "--"+f.Name)
			}
		})
		if len(ignored) > 0 {
			fmt.Fprintf(stderr, "doppel crawl: without --seed (on the command line or in the config file), crawl resumes the crawl\n"+
				"saved in %s with its saved options, which only --max-pages may change: %s would be ignored.\n"+
				"Give the seeds to start a crawl, or to go on with the crawl in %s with new options.\n",
				*data, strings.Join(ignored, ", "), *data)
			return errUsage
		}
	}
	id, err := identity()
	if err != nil {
		return err
	}
	c, err := crawler.Open(*data, opts)
	if err != nil {
		return err
	}
	defer c.Close()
	if *serveAddr == "" {
		return crawlAndReport(ctx, c, *data, stdout, stderr)
	}
	// Search while crawling: the index being built, from this process.
	srv, err := listen(c.View(), *serveAddr, id, stdout, stderr)
	if err != nil {
		return err
	}
	serveCtx, stopServing := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.serve(serveCtx) }()
	if err := crawlAndReport(ctx, c, *data, stdout, stderr); err != nil {
		stopServing()
		<-served
		return err
	}
	fmt.Fprintln(stdout, "The crawl is done; still serving its index. Ctrl-C stops.")
	select {
	case <-ctx.Done():
	case err := <-served:
		stopServing()
		return err
	}
	stopServing()
	return <-served
}

// crawlAndReport runs the crawl with progress on stderr and prints the
// summary on stdout.
func crawlAndReport(ctx context.Context, c *crawler.Crawler, dir string, stdout, stderr io.Writer) error {
	start := time.Now()
	stop := reportProgress(c, stderr, isTerminal(stderr), start)
	err := c.Run(ctx)
	stop()
	printSummary(stdout, c, dir, time.Since(start))
	if ctx.Err() != nil {
		return errInterrupted
	}
	return err
}

// reportProgress reports the crawl's counters until the returned function
// is called: a line redrawn in place on a terminal, periodic log lines
// otherwise.
func reportProgress(c *crawler.Crawler, w io.Writer, terminal bool, start time.Time) (stop func()) {
	interval := progressInterval
	if terminal {
		interval = redrawInterval
	}
	logger := slog.New(slog.NewTextHandler(w, nil))
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(interval)
		defer tick.Stop()
		first := c.Stats().Fetched
		drawn := 0 // length of the line on the terminal
		for {
			select {
			case <-done:
				if drawn > 0 {
					fmt.Fprintln(w)
				}
				return
			case <-tick.C:
			}
			st := c.Stats()
			rate := float64(st.Fetched-first) / time.Since(start).Seconds()
			if terminal {
				line := fmt.Sprintf("fetched %d  queued %d  unique %d  near-duplicates %d  skipped %d  errors %d  %.1f pages/s",
					st.Fetched, st.Queued, st.Unique, st.Duplicates, st.Skipped, st.Errors, rate)
				// Blank out what is left of a longer previous line.
				fmt.Fprintf(w, "\r%s%s", line, strings.Repeat(" ", max(0, drawn-len(line))))
				drawn = len(line)
				continue
			}
			logger.Info("crawl", "fetched", st.Fetched, "queued", st.Queued, "unique", st.Unique,
				"near_duplicates", st.Duplicates, "skipped", st.Skipped, "errors", st.Errors, "pages_per_s", fmt.Sprintf("%.1f", rate))
		}
	})
	return func() { close(done); wg.Wait() }
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

func printSummary(w io.Writer, c *crawler.Crawler, dir string, elapsed time.Duration) {
	st := c.Stats()
	sum, err := c.View().Summary()
	if err != nil {
		fmt.Fprintf(w, "summary: %v\n", err)
	}
	fmt.Fprintf(w, "pages fetched:     %d\n", st.Fetched)
	fmt.Fprintf(w, "  unique:          %d\n", st.Unique)
	fmt.Fprintf(w, "  near-duplicates: %d\n", st.Duplicates)
	fmt.Fprintf(w, "skipped:           %d\n", st.Skipped)
	fmt.Fprintf(w, "errors:            %d\n", st.Errors)
	fmt.Fprintf(w, "queued:            %d\n", st.Queued)
	fmt.Fprintf(w, "clusters:          %d\n", sum.Clusters)
	fmt.Fprintf(w, "searchable:        %d documents (policy %s)\n", sum.Searchable, c.Options().Policy)
	fmt.Fprintf(w, "elapsed:           %s\n", elapsed.Round(time.Millisecond))
	fmt.Fprintf(w, "data directory:    %s\n", dir)
}
