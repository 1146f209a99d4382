package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/doppel-search/doppel/crawler"
	"github.com/doppel-search/doppel/internal/ticker"
)

// errInterrupted reports a crawl stopped by SIGINT/SIGTERM; it exits with
// status 130 and can be resumed.
var errInterrupted = errors.New("interrupted; run the same command again to resume")

// errBudget reports a one-pass crawl (--once) that stopped at its page
// budget with URLs still queued: its summary's last line says so, and
// it exits with status 3.
var errBudget = errors.New("stopped at the page budget")

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

// printCrawlConfig is doppel crawl --print-config: it prints the options
// the crawl would run with — the defaults, overridden by the config file,
// overridden by the flags — as a configuration file on stdout, which
// --config reads back to the same options. A seed's password is shown
// redacted; the credentials of --netrc, --login and the environment are
// not options of the file and never printed.
func printCrawlConfig(fs *flag.FlagSet, f *crawlFlags, stdout, stderr io.Writer) error {
	opts, err := f.options(fs)
	if err != nil {
		return err
	}
	if err := checkCrawlCounts(fs, stderr); err != nil {
		return err
	}
	if len(opts.Seeds) == 0 {
		fmt.Fprintf(stderr, "doppel %s: no seeds: without them, the crawl saved in --data resumes with the options in its crawl.json\n", fs.Name())
	}
	return writeConfig(stdout, opts)
}

// writeConfig writes opts to w as --print-config shows them (configToPrint).
func writeConfig(w io.Writer, opts crawler.Options) error {
	data, err := json.MarshalIndent(configToPrint(opts), "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

// configToPrint returns opts with their defaults set and the password of
// every seed URL redacted (user:xxxxx@host).
func configToPrint(opts crawler.Options) crawler.Options {
	opts.Seeds = slices.Clone(opts.Seeds)
	for i, s := range opts.Seeds {
		if u, err := url.Parse(s); err == nil && u.User != nil {
			opts.Seeds[i] = u.Redacted()
		}
	}
	return *opts.EnsureDefaults()
}

// runCrawl crawls into a data directory, or resumes the crawl saved there.
func runCrawl(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	fs, f := newCrawlFlags(stderr)
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if f.printConfig {
		return printCrawlConfig(fs, f, stdout, stderr)
	}
	if f.data == "" {
		fmt.Fprintln(stderr, "doppel crawl: --data is required")
		usageHint(fs, stderr)
		return errUsage
	}
	opts, err := f.options(fs)
	if err != nil {
		return err
	}
	if err := checkServeFlags(fs, f.serveAddr, stderr); err != nil {
		return err
	}
	if err := checkCrawlCounts(fs, stderr); err != nil {
		return err
	}
	if len(opts.Seeds) == 0 {
		if err := checkResumeFlags(fs, f.data, stderr); err != nil {
			return err
		}
	}
	id, err := f.identity()
	if err != nil {
		return err
	}
	if err := errors.Join(checkOutputs(f.inputs(), f.profiles.outputs()), checkOutside(f.data, f.profiles.outputs())); err != nil {
		fmt.Fprintln(stderr, "doppel crawl:", err)
		return errUsage
	}
	defer f.gc.apply()()
	stopProfiles, err := f.profiles.start(stdout)
	if err != nil {
		return err
	}
	defer func() {
		if perr := stopProfiles(); perr != nil {
			err = errors.Join(err, perr)
		}
	}()
	c, err := crawler.Open(f.data, opts)
	if err != nil {
		return err
	}
	defer c.Close()
	if o := c.Opened(); o.Pages > 0 {
		how := "no snapshot of the detector: every page replayed"
		if o.FromSnapshot {
			how = fmt.Sprintf("detector read from its snapshot, %d pages replayed", o.Replayed)
		}
		fmt.Fprintf(stdout, "resumed:           %d pages in %.1f s (%s)\n", o.Pages, o.Duration.Seconds(), how)
	}
	if f.serveAddr == "" {
		return crawlAndReport(ctx, c, f.data, !f.once, f.compact, stdout, stderr)
	}
	return crawlAndServe(ctx, c, f, id, stdout, stderr)
}

// crawlAndServe runs the crawl as crawlAndReport does while serving
// search on f.serveAddr: the index being built, from this process. After
// a crawl with --once it goes on serving until ctx is done.
func crawlAndServe(ctx context.Context, c *crawler.Crawler, f *crawlFlags, id identity, stdout, stderr io.Writer) error {
	srv, err := listen(c.View(), c.Store(), c, nil, f.serveAddr, id, stdout, stderr)
	if err != nil {
		return err
	}
	serveCtx, stopServing := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.serve(serveCtx) }()
	err = crawlAndReport(ctx, c, f.data, !f.once, f.compact, stdout, stderr)
	budget := errors.Is(err, errBudget) // still served: the exit status says it at the end
	if err != nil && !budget || !f.once {
		stopServing()
		return errors.Join(err, <-served)
	}
	fmt.Fprintln(stdout, "The crawl is done; still serving its index. Ctrl-C stops.")
	compacted := func() {}
	if f.compact {
		compacted = compactWhileServing(serveCtx, c, stdout, stderr)
	}
	select {
	case <-ctx.Done():
		stopServing()
		err = <-served
	case err = <-served:
		stopServing()
	}
	compacted()
	if err == nil && budget {
		return errBudget
	}
	return err
}

// runFlags returns the flags of `doppel run`, for its -h: the crawl's
// but --serve and --once, and --addr.
func runFlags(stderr io.Writer) *flag.FlagSet {
	crawl, _ := newCrawlFlags(stderr)
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.String("addr", "", "`address` to serve search on, e.g. 127.0.0.1:8080 (required)")
	crawl.VisitAll(func(f *flag.Flag) {
		if f.Name != "serve" && f.Name != "once" {
			fs.Var(f.Value, f.Name, f.Usage)
		}
	})
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: doppel run --data DIR --addr ADDR [--seed URL…] [crawl flags]\n\n"+
			"Crawls (or goes on with the crawl in DIR), keeps the index fresh and serves search on ADDR\n"+
			"until Ctrl-C: `doppel crawl --serve ADDR`.\n\nFlags:")
		fs.PrintDefaults()
	}
	return fs
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
			return parseFlags(runFlags(stderr), []string{"-h"}, stderr)
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
// With compact, a kept crawl merges the index's segments when it is
// idle; a pass (--once) leaves them, its summary saying how many there
// are (merged by doppel compact, or by crawlAndServe while it serves).
func crawlAndReport(ctx context.Context, c *crawler.Crawler, dir string, keep, compact bool, stdout, stderr io.Writer) error {
	start := time.Now()
	stop := reportProgress(c, stderr, isTerminal(stderr), start)
	var err error
	if keep {
		stopIdle := func() {}
		if compact {
			stopIdle = compactWhenIdle(ctx, c, stderr)
		}
		err = c.Watch(ctx)
		stopIdle()
	} else {
		err = c.Run(ctx)
	}
	stop()
	elapsed := time.Since(start)
	sum, serr := c.View().Summary()
	segments := ""
	if !keep {
		segments = segmentsLine(c, dir)
	}
	printSummary(stdout, c, dir, segments, elapsed, sum, serr)
	switch {
	case keep && ctx.Err() != nil:
		return nil
	case ctx.Err() != nil:
		return errInterrupted
	case err == nil && !keep && c.Stats().BudgetSpent(c.Options().MaxPages):
		return errBudget
	}
	return crawler.Damage(dir, err) // a damaged record met on the way: one line and what to do
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
	first := c.Stats().Fetched
	drawn := 0 // length of the line on the terminal
	stopTicking := ticker.Every(interval, func() {
		st := c.Stats()
		rate := float64(st.Fetched-first) / time.Since(start).Seconds()
		if terminal {
			line := fmt.Sprintf("requests %d  fetched %d  queued %d  unique %d  near-duplicates %d  skipped %d  errors %d  %.1f pages/s",
				st.Requests, st.Fetched, st.Queued, st.Unique, st.Duplicates, st.Skipped, st.Errors, rate)
			if st.Revisits > 0 {
				line += fmt.Sprintf("  revisits %d (304 %d, changed %d, gone %d)", st.Revisits, st.NotModified, st.Changed+st.Trivial, st.Gone)
			}
			// Blank out what is left of a longer previous line.
			fmt.Fprintf(w, "\r%s%s", line, strings.Repeat(" ", max(0, drawn-len(line))))
			drawn = len(line)
			return
		}
		logger.Info("crawl", "requests", st.Requests, "fetched", st.Fetched, "queued", st.Queued, "unique", st.Unique,
			"near_duplicates", st.Duplicates, "skipped", st.Skipped, "errors", st.Errors, "pages_per_s", fmt.Sprintf("%.1f", rate),
			"revisits", st.Revisits, "not_modified", st.NotModified, "unchanged", st.Unchanged, "trivial", st.Trivial,
			"changed", st.Changed, "gone", st.Gone, "retries", st.Retries, "scheduled", st.Scheduled,
			"pace_idle_s", fmt.Sprintf("%.1f", c.Health().Pacing.Idle.Seconds()))
	})
	return func() {
		stopTicking()
		if drawn > 0 {
			fmt.Fprintln(w)
		}
	}
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

// printSummary prints the crawl's counters and its index's summary
// (sum, or err if it could not be read), with the line of its index's
// segments (segments; none if empty).
func printSummary(w io.Writer, c *crawler.Crawler, dir, segments string, elapsed time.Duration, sum crawler.Summary, err error) {
	st := c.Stats()
	if err != nil {
		fmt.Fprintf(w, "summary: %v\n", err)
	}
	fmt.Fprintf(w, "requests:          %d of --max-pages %d (pages kept, skipped and failed; robots.txt and sitemaps aside)\n", st.Requests, c.Options().MaxPages)
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
	if fams := c.Health().Families; len(fams) > 0 {
		stopped := 0
		for _, s := range fams {
			if s == "stopped" {
				stopped++
			}
		}
		fmt.Fprintf(w, "URL families:      %d whose requests yielded nothing (%d stopped, %d demoted; see the status page)\n", len(fams), stopped, len(fams)-stopped)
	}
	if segments != "" {
		fmt.Fprintln(w, segments)
	}
	fmt.Fprintf(w, "elapsed:           %s\n", elapsed.Round(time.Millisecond))
	fmt.Fprintf(w, "data directory:    %s\n", dir)
	if st.BudgetSpent(c.Options().MaxPages) { // the last line
		fmt.Fprintf(w, "stopped:           at the page budget, %d requests (--max-pages), with %d URLs still queued: raise it to go on\n", c.Options().MaxPages, st.Queued)
	}
}
