package indexer

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
)

// fragmented fills a new index in dir with n documents of 80 words,
// flushed every 50 (a segment each, as a crawl's flushes make), every
// tenth of them added again (its old version deleted in its segment),
// and closes it.
func fragmented(t *testing.T, dir string, n int) {
	t.Helper()
	x, err := Open(dir, Options{NoAutoFlush: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r := rand.New(rand.NewPCG(7, 35))
	add := func(i int) {
		words := make([]string, 80)
		for j := range words {
			words[j] = fmt.Sprintf("w%d", r.IntN(5000))
		}
		d := mkDoc(fmt.Sprintf("d%05d", i), strings.Join(words, " "))
		d.Groups = nil
		if i%3 == 0 {
			d.Groups = []string{"staff"}
		}
		if err := x.Add(ctx, d, Placement{ID: d.ID, Cluster: d.ID, Master: d.ID}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		add(i)
		if i%50 == 49 {
			if err := x.Flush(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := 0; i < n; i += 10 {
		add(i)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
}

// answers returns what a few searches of x answer: each query's hits in
// order, with their scores.
func answers(t *testing.T, x *Index) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{"w17 w4000", "w123", "w42 w43 w44 w45", "title d00042"} {
		req := bleve.NewSearchRequestOptions(x.Searchable(TextQuery(q)), 20, 0, false)
		req.SortBy([]string{"-_score", "_id"})
		res, err := x.Search(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s: %d\n", q, res.Total)
		for _, h := range res.Hits {
			fmt.Fprintf(&b, "  %s %.9f\n", h.ID, h.Score)
		}
	}
	n, err := x.Indexed()
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "indexed %d\n", n)
	return b.String()
}

// zapFiles returns how many segment files the index in dir holds.
func zapFiles(t *testing.T, dir string) int {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "store", "*.zap"))
	if err != nil {
		t.Fatal(err)
	}
	return len(files)
}

// settledZapFiles returns the number of segment files in the index in
// dir once scorch has removed what no snapshot refers to. Its persister
// removes such files in the background, between persists, so a Close
// may come before it has: the index is opened again (writable) until the
// count is 1 or a minute has passed.
func settledZapFiles(t *testing.T, dir string) int {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		n := zapFiles(t, dir)
		if n == 1 || time.Now().After(deadline) {
			return n
		}
		x, err := Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond)
		if err := x.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// readAnswers opens dir read-only and returns answers and its segments.
func readAnswers(t *testing.T, dir string) (string, SegmentStats) {
	t.Helper()
	x, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	c, _ := compactableOf(x.idx)
	st, _, err := segmentStats(c)
	if err != nil {
		t.Fatal(err)
	}
	return answers(t, x), st
}

// TestCompact: a compaction leaves one segment and no deleted record,
// answers every search as before (hits, order and scores), survives a
// reopen, and reports what it did; a second one has nothing to do. An
// index opened read-only or in memory is refused, and a compaction
// cancelled before it starts leaves the index as it was.
func TestCompact(t *testing.T) {
	// Scorch merges in the background while the index is written, and
	// on a busy machine its merges may happen to leave no deleted record
	// behind: the index is written again, three times at most.
	var (
		dir, want string
		before    SegmentStats
	)
	for try := 1; ; try++ {
		dir = t.TempDir()
		fragmented(t, dir, 300)
		want, before = readAnswers(t, dir)
		if before.Segments >= 2 && before.Deleted > 0 {
			break
		}
		if try == 3 {
			t.Fatalf("the index to compact has %d segments, %d deleted records: nothing to test", before.Segments, before.Deleted)
		}
	}

	ro, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ro.Compact(context.Background(), CompactOptions{}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("read-only Compact: %v, want ErrReadOnly", err)
	}
	ro.Close()

	x, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := x.Compact(cancelled, CompactOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Compact: %v, want context.Canceled", err)
	}
	if got := answers(t, x); got != want {
		t.Errorf("after a cancelled compaction:\n%s\nwant\n%s", got, want)
	}
	c, err := x.Compact(context.Background(), CompactOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Before.Segments != before.Segments || c.Before.Deleted != before.Deleted || c.After.Segments != 1 || c.After.Deleted != 0 ||
		c.After.Records != before.Records || c.Elapsed <= 0 {
		t.Errorf("Compact = %+v; before it the index had %+v", c, before)
	}
	if got := answers(t, x); got != want {
		t.Errorf("after compaction:\n%s\nwant\n%s", got, want)
	}
	again, err := x.Compact(context.Background(), CompactOptions{})
	if err != nil || again.Before != c.After || again.After != c.After {
		t.Errorf("second Compact = %+v, %v; want nothing done from %+v", again, err, c.After)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	got, after := readAnswers(t, dir)
	if n := settledZapFiles(t, dir); got != want || after.Segments != 1 || after.Deleted != 0 || n != 1 {
		t.Errorf("reopened: %+v, %d segment files\n%s\nwant one segment and\n%s", after, n, got, want)
	}

	mem := memIndex(t, Mapping(), Options{})
	if _, err := mem.Compact(context.Background(), CompactOptions{}); !errors.Is(err, ErrNotCompactable) {
		t.Errorf("in-memory Compact: %v, want ErrNotCompactable", err)
	}
}

// The points at which compactChild kills itself: while the merged
// segment is being written (its file partial), and once it is written,
// before it replaces the old segments in the index's root.
const (
	killWriting   = "writing"
	killIntroduce = "introducing"
)

// compactChild runs in a child process: it compacts the index in dir and
// kills itself (SIGKILL) at the point named, as a crash or kill -9
// would. It exits 3 if the compaction ended before that point.
func compactChild(dir, point string) {
	kill := func() { _ = syscall.Kill(os.Getpid(), syscall.SIGKILL); select {} }
	cfg := map[string]any{}
	if point == killIntroduce {
		name := "doppel-compact-kill"
		scorch.RegistryEventCallbacks[name] = func(e scorch.Event) bool {
			if e.Kind == scorch.EventKindMergeTaskIntroductionStart {
				kill()
			}
			return true
		}
		cfg["eventCallbackName"] = name
	}
	bi, err := bleve.OpenUsing(dir, cfg)
	if err != nil {
		os.Exit(2)
	}
	x, err := Wrap(bi, Options{})
	if err != nil {
		os.Exit(2)
	}
	opts := CompactOptions{ProgressEvery: time.Millisecond}
	if point == killWriting {
		opts.Progress = func(p CompactProgress) {
			if p.Written > 0 {
				kill()
			}
		}
	}
	if _, err := x.Compact(context.Background(), opts); err != nil {
		os.Exit(2)
	}
	os.Exit(3)
}

// TestCompactKilled kills a compaction (SIGKILL, in a child process)
// while it writes the merged segment and just before the merged segment
// replaces the old ones: each time the index opens with the answers it
// had, and a compaction afterwards completes with the same answers.
func TestCompactKilled(t *testing.T) {
	if dir := os.Getenv("INDEXER_COMPACT_DIR"); dir != "" {
		compactChild(dir, os.Getenv("INDEXER_COMPACT_KILL"))
	}
	src := t.TempDir()
	fragmented(t, src, 300)
	want, before := readAnswers(t, src)
	for _, point := range []string{killWriting, killIntroduce} {
		t.Run(point, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "index")
			if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestCompactKilled$")
			cmd.Env = append(os.Environ(), "INDEXER_COMPACT_DIR="+dir, "INDEXER_COMPACT_KILL="+point)
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("child: %v, want it killed while compacting", err)
			}
			got, st := readAnswers(t, dir)
			if got != want || st != before {
				t.Errorf("after the kill: %+v\n%s\nwant %+v\n%s", st, got, before, want)
			}
			x, err := Open(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			c, err := x.Compact(context.Background(), CompactOptions{})
			if err != nil || c.After.Segments != 1 {
				t.Errorf("Compact after the kill = %+v, %v", c, err)
			}
			if got := answers(t, x); got != want {
				t.Errorf("compacted after the kill:\n%s\nwant\n%s", got, want)
			}
			if err := x.Close(); err != nil {
				t.Fatal(err)
			}
			if n := settledZapFiles(t, dir); n != 1 {
				t.Errorf("%d segment files after the compaction, want 1: a killed merge's file left behind", n)
			}
		})
	}
}

// TestCompactPlanned: a planned compaction (a crawl's end) merges what
// scorch's planner picks, in one round: fewer segments, the same live
// records and the same answers.
func TestCompactPlanned(t *testing.T) {
	dir := t.TempDir()
	fragmented(t, dir, 300)
	want, before := readAnswers(t, dir)
	if before.Segments < 2 {
		t.Skipf("the index to compact has %d segment: nothing to test", before.Segments)
	}
	x, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	c, err := x.Compact(context.Background(), CompactOptions{Planned: true})
	if err != nil {
		t.Fatal(err)
	}
	if c.After.Segments >= c.Before.Segments || c.After.Records != before.Records {
		t.Errorf("planned Compact = %+v; before it the index had %+v", c, before)
	}
	if got := answers(t, x); got != want {
		t.Errorf("after a planned compaction:\n%s\nwant\n%s", got, want)
	}
}
