package main

import (
	"context"
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

// loadConfig reads a configuration file (crawler.ParseConfig).
func loadConfig(path string) (crawler.Options, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return crawler.Options{}, err
	}
	opts, err := crawler.ParseConfig(data)
	if err != nil {
		return crawler.Options{}, fmt.Errorf("config %s: %w", path, err)
	}
	return opts, nil
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
	language := fs.String("language", "", "language whose pages are preferred as masters of their clusters (e.g. en; default: the seed page's)")
	similarity := fs.String("similarity", "", "what makes pages copies: resemblance (default; the same text up to small edits) or cosine (the same words: for spam-like edits, joins API pages that share their vocabulary)")
	serveAddr := fs.String("serve", "", "also serve the search UI and API on this `address` while crawling")
	once := fs.Bool("once", false, "one pass: crawl what is new and what is due, then stop (default: keep the crawl fresh until stopped)")
	identity := identityFlags(fs)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: doppel crawl --seed URL [--seed URL…] --data DIR [flags]\n"+
			"       doppel crawl --data DIR [--max-pages N] [--once]   (go on with the saved options)\n\n"+
			"Crawls the seeds' hosts, deduplicates and indexes into DIR, then keeps the index fresh: each\n"+
			"page is fetched again when its schedule says it is due (conditional GET; changes re-indexed,\n"+
			"deleted pages removed) and the sitemaps are read again, until Ctrl-C (SIGINT) or SIGTERM, which\n"+
			"stop resumably (exit status 0). With --once it stops when nothing is left to fetch now: exit\n"+
			"status 0 done, 130 interrupted (run the same command again to resume). Progress on stderr, a\n"+
			"summary on stdout. Giving the seeds again on a DIR with a crawl goes on with the new options.\n"+
			"Exit status 1: error, 2: usage.\n\nFlags:\n")
		fs.PrintDefaults()
		fmt.Fprintf(stderr, "\nThe configuration file (--config) is JSON: crawler.Options in snake_case, durations as Go\n"+
			"duration strings, every field optional (absent: the default; \"delay\": \"0s\": none),\n"+
			"unknown fields are errors; crawl.json in the data directory has the same format. Complete example:\n%s\n", crawler.ExampleConfig)
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
		case "language":
			opts.Language = *language
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
			case "data", "max-pages", "serve", "once", "groups-header", "trusted-proxies", "demo-users", "admin-groups", "admin-addr":
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
		return crawlAndReport(ctx, c, *data, !*once, stdout, stderr)
	}
	// Search while crawling: the index being built, from this process.
	srv, err := listen(c.View(), *serveAddr, id, stdout, stderr)
	if err != nil {
		return err
	}
	serveCtx, stopServing := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.serve(serveCtx) }()
	if err := crawlAndReport(ctx, c, *data, !*once, stdout, stderr); err != nil || !*once {
		stopServing()
		return errors.Join(err, <-served)
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

// runRun is `doppel run`: crawl, keep fresh and serve from one process —
// `doppel crawl --serve ADDR` under the name an intranet search service
// is started with.
func runRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var translated []string
	addr := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case !strings.HasPrefix(a, "-"):
		case name == "addr" && hasValue:
			a, addr = "--serve="+value, true
		case name == "addr" && i+1 < len(args):
			translated = append(translated, "--serve")
			a, addr = args[i+1], true
			i++
		case name == "serve" || name == "once":
			fmt.Fprintf(stderr, "doppel run: --%s is not a run flag (run always serves, and keeps the crawl fresh)\n", name)
			return errUsage
		case name == "h" || name == "help":
			fmt.Fprintln(stderr, "usage: doppel run --data DIR --addr ADDR [--seed URL…] [crawl flags]\n\n"+
				"Crawls (or goes on with the crawl in DIR), keeps the index fresh and serves search on ADDR\n"+
				"until Ctrl-C: `doppel crawl --serve ADDR`. The crawl flags are those of `doppel crawl -h`.")
			return errUsage
		}
		translated = append(translated, a)
	}
	if !addr {
		fmt.Fprintln(stderr, "doppel run: --addr is required (the address to serve search on, e.g. 127.0.0.1:8080)")
		return errUsage
	}
	return runCrawl(ctx, translated, stdout, stderr)
}

// crawlAndReport runs the crawl — one pass, or kept fresh until ctx is
// done (keep) — with progress on stderr, and prints the summary on
// stdout. Stopping a kept crawl is its normal end, not an interruption.
func crawlAndReport(ctx context.Context, c *crawler.Crawler, dir string, keep bool, stdout, stderr io.Writer) error {
	start := time.Now()
	stop := reportProgress(c, stderr, isTerminal(stderr), start)
	var err error
	if keep {
		err = c.Watch(ctx)
	} else {
		err = c.Run(ctx)
	}
	stop()
	printSummary(stdout, c, dir, time.Since(start))
	switch {
	case keep && ctx.Err() != nil:
		return nil
	case ctx.Err() != nil:
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
				if st.Revisits > 0 {
					line += fmt.Sprintf("  revisits %d (304 %d, changed %d, gone %d)", st.Revisits, st.NotModified, st.Changed+st.Trivial, st.Gone)
				}
				// Blank out what is left of a longer previous line.
				fmt.Fprintf(w, "\r%s%s", line, strings.Repeat(" ", max(0, drawn-len(line))))
				drawn = len(line)
				continue
			}
			logger.Info("crawl", "fetched", st.Fetched, "queued", st.Queued, "unique", st.Unique,
				"near_duplicates", st.Duplicates, "skipped", st.Skipped, "errors", st.Errors, "pages_per_s", fmt.Sprintf("%.1f", rate),
				"revisits", st.Revisits, "not_modified", st.NotModified, "unchanged", st.Unchanged, "trivial", st.Trivial,
				"changed", st.Changed, "gone", st.Gone, "retries", st.Retries, "scheduled", st.Scheduled)
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
	fmt.Fprintf(w, "revisits:          %d (304 not modified %d, unchanged %d, trivial change %d, changed %d, gone %d)\n",
		st.Revisits, st.NotModified, st.Unchanged, st.Trivial, st.Changed, st.Gone)
	fmt.Fprintf(w, "retries:           %d\n", st.Retries)
	fmt.Fprintf(w, "checked at once:   %d (sitemap %d, left a listing %d)\n", st.SitemapHints+st.LinksLeft, st.SitemapHints, st.LinksLeft)
	next := "none"
	if at, ok := c.NextRevisit(); ok {
		next = at.Local().Format(time.DateTime)
	}
	fmt.Fprintf(w, "scheduled:         %d revisits, next %s\n", st.Scheduled, next)
	fmt.Fprintf(w, "clusters:          %d\n", sum.Clusters)
	fmt.Fprintf(w, "searchable:        %d documents (policy %s)\n", sum.Searchable, c.Options().Policy)
	fmt.Fprintf(w, "elapsed:           %s\n", elapsed.Round(time.Millisecond))
	fmt.Fprintf(w, "data directory:    %s\n", dir)
}
