package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/doppel-search/doppel/crawler"
	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/indexer/shard"
	"github.com/doppel-search/doppel/internal/ticker"
)

// A compacter is a crawl's index that merges its segments:
// *indexer.Index and *shard.Index.
type compacter interface {
	Compact(ctx context.Context, opts indexer.CompactOptions) (indexer.Compaction, error)
}

// runCompact is `doppel compact --data DIR`: the index of a crawl that
// is not running merged into one segment (a `crawl --once` leaves its
// index's segments as its flushes and scorch's merger left them).
func runCompact(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("compact", flag.ContinueOnError)
	data := fs.String("data", "", "the crawl's data `directory` (required)")
	timeout := fs.Duration("timeout", 0, "stop merging after this `duration`, leaving the index as it was (0: no limit)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: doppel compact --data DIR [--timeout D]\n\n"+
			"Merges the segments of the search index of the crawl in DIR into one and drops their deleted\n"+
			"records, so that searches read one posting list a term instead of one a segment. crawl --once leaves\n"+
			"them (its summary says how many), crawl --once --serve merges what scorch judges worth merging while\n"+
			"it serves. The crawl must not be running, nor doppel serve on DIR. Progress on stderr, what was done\n"+
			"on stdout. Ctrl-C, --timeout, a crash or kill -9 leave the index as it was; the merge needs free disk\n"+
			"space for one more copy of the index.\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if *data == "" {
		fmt.Fprintln(stderr, "doppel compact: --data is required")
		usageHint(fs, stderr)
		return errUsage
	}
	ix, err := openCrawlIndex(*data)
	if err != nil {
		return err
	}
	if *timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *timeout)
		defer cancel()
	}
	c, err := compactWithProgress(ctx, ix, false, stderr)
	err = errors.Join(err, ix.Close())
	fmt.Fprintln(stdout, compactionLine(c, err))
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return errInterrupted
	}
	return err
}

// A crawlIndex is a crawl's index opened for compaction.
type crawlIndex interface {
	compacter
	Close() error
}

// openCrawlIndex opens the search index of the crawl in dir for
// writing, under the crawl's saved options (its policy, which a sharded
// index records), without opening the rest of the crawl.
func openCrawlIndex(dir string) (crawlIndex, error) {
	opts, err := loadConfig(filepath.Join(dir, "crawl.json"))
	if err != nil {
		return nil, fmt.Errorf("%s is not a crawl's data directory: %w", dir, err)
	}
	path := filepath.Join(dir, "index")
	iopts := indexer.Options{Policy: opts.Policy, NoAutoFlush: true}
	var ix crawlIndex
	switch {
	case shard.IsSharded(path):
		ix, err = shard.Open(path, 0, iopts)
	case fileExists(filepath.Join(path, "index_meta.json")):
		ix, err = indexer.Open(path, iopts)
	default:
		return nil, fmt.Errorf("%s holds no search index (%s)", dir, path)
	}
	if err != nil && strings.Contains(err.Error(), "timeout") {
		return nil, fmt.Errorf("%w (is a crawl or doppel serve using %s?)", err, dir)
	}
	return ix, err
}

// fileExists reports whether path names an existing file.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// compactWithProgress compacts ix (merging what scorch's planner
// judges worth it if planned, else every segment), with progress on
// stderr: a line redrawn in place on a terminal, a log line every
// progressInterval otherwise.
func compactWithProgress(ctx context.Context, ix compacter, planned bool, stderr io.Writer) (indexer.Compaction, error) {
	terminal := isTerminal(stderr)
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	opts := indexer.CompactOptions{ProgressEvery: progressInterval, Planned: planned}
	drawn := false
	opts.Progress = func(p indexer.CompactProgress) {
		if terminal {
			fmt.Fprintf(stderr, "\rcompacting the index: %d segments, %d of %d MB written, %.0f s  ", p.Segments, p.Written>>20, p.Total>>20, p.Elapsed.Seconds())
			drawn = true
			return
		}
		logger.Info("compact", "segments", p.Segments, "written_mb", p.Written>>20, "total_mb", p.Total>>20,
			"elapsed_s", fmt.Sprintf("%.1f", p.Elapsed.Seconds()))
	}
	if terminal {
		opts.ProgressEvery = redrawInterval
	}
	c, err := ix.Compact(ctx, opts)
	if drawn {
		fmt.Fprintln(stderr)
	}
	return c, err
}

// compactionLine is the summary's line for a compaction.
func compactionLine(c indexer.Compaction, err error) string {
	const label = "compacted:         "
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return label + "interrupted: the index is as the crawl left it (doppel compact --data DIR merges it later)"
	case err != nil:
		return label + "not done: " + err.Error()
	case c.Before == c.After:
		return fmt.Sprintf("%snothing to merge (%d segment, no deleted record)", label, c.After.Segments)
	}
	return fmt.Sprintf("%s%d segments (%d deleted records) into %d in %.1f s, %d MB → %d MB", label,
		c.Before.Segments, c.Before.Deleted, c.After.Segments, c.Elapsed.Seconds(), c.Before.Bytes>>20, c.After.Bytes>>20)
}

// segmentsLine is the summary's line of a pass's index (dir the crawl's
// data directory): its segments and deleted records, and the command
// that merges them when there is something to merge; "" for an index
// that does not tell them (not a scorch index on disk).
func segmentsLine(c *crawler.Crawler, dir string) string {
	ix, ok := c.Store().(segmented)
	if !ok {
		return ""
	}
	st, err := ix.Segments()
	switch {
	case err != nil:
		return ""
	case st.Segments <= 1 && st.Deleted == 0:
		return fmt.Sprintf("index segments:    %d, no deleted record", st.Segments)
	}
	return fmt.Sprintf("index segments:    %d (%d deleted records, %d MB): doppel compact --data %s merges them", st.Segments, st.Deleted, st.Bytes>>20, dir)
}

// compactWhileServing merges, in a goroutine of its own, what scorch's
// planner judges worth merging in the index of a pass that has ended
// and is being served (searches go on meanwhile, on the old segments
// until the merged one replaces them), printing the compaction's line
// on stdout; the returned function stops it (ctx done too, leaving the
// index as it was) and waits for it.
func compactWhileServing(ctx context.Context, c *crawler.Crawler, stdout, stderr io.Writer) (stop func()) {
	ix, ok := c.Store().(compacter)
	if !ok {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		res, err := compactWithProgress(ctx, ix, true, stderr)
		if !errors.Is(err, indexer.ErrNotCompactable) {
			fmt.Fprintln(stdout, compactionLine(res, err))
		}
	}()
	return func() { cancel(); <-done }
}

// idleCheck is how often a kept crawl is looked at for idleness; it is
// idle when it made no request since the last look, has none in flight
// and nothing queued (revisits not due yet). idleGap is the least time
// between two compactions of a kept crawl, and idleSegments the segments
// that make its index worth compacting. (Tests lower them.)
var (
	idleCheck    = time.Minute
	idleGap      = time.Hour
	idleSegments = 5
)

// A segmented index tells its segments and compacts them.
type segmented interface {
	compacter
	Segments() (indexer.SegmentStats, error)
}

// worthCompacting reports whether an idle crawl's index should be
// merged: idleSegments segments or more (each term of a search reads a
// posting list a segment), or a tenth of its records deleted (skipped
// by every search).
func worthCompacting(st indexer.SegmentStats) bool {
	return st.Segments >= idleSegments || st.Deleted > 0 && st.Deleted*10 >= st.Records
}

// compactWhenIdle compacts the index of a kept crawl when the crawl is
// idle and the index worth compacting (at most once every idleGap),
// logging on stderr, until the returned function is called (which stops
// a compaction in progress, leaving the index as it was).
func compactWhenIdle(ctx context.Context, c *crawler.Crawler, stderr io.Writer) (stop func()) {
	ix, ok := c.Store().(segmented)
	if !ok {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	last, lastCompaction := c.Stats().Requests, time.Time{}
	stopTicking := ticker.Every(idleCheck, func() {
		st := c.Stats()
		idle := st.Requests == last && st.InFlight == 0 && st.Queued == 0
		last = st.Requests
		if !idle || time.Since(lastCompaction) < idleGap {
			return
		}
		if seg, err := ix.Segments(); err != nil || !worthCompacting(seg) {
			return
		}
		lastCompaction = time.Now()
		res, err := ix.Compact(ctx, indexer.CompactOptions{})
		if err != nil {
			logger.Info("compact", "error", err)
			return
		}
		logger.Info("compact", "segments_before", res.Before.Segments, "deleted_before", res.Before.Deleted,
			"segments", res.After.Segments, "elapsed_s", fmt.Sprintf("%.1f", res.Elapsed.Seconds()))
	})
	return func() { cancel(); stopTicking() }
}
