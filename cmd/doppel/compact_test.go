package main

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/doppel-search/doppel/indexer"
)

// indexState opens the index of the crawl in dir read-only and returns
// its segments and what a few searches answer (hits in order, scores).
func indexState(t *testing.T, dir string) (indexer.SegmentStats, string) {
	t.Helper()
	x, err := indexer.Open(filepath.Join(dir, "index"), indexer.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	st, err := x.Segments()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, q := range []string{"holiday calendar", "vpn", "printer toner", "expense report"} {
		req := bleve.NewSearchRequestOptions(x.Searchable(indexer.TextQuery(q)), 20, 0, false)
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
	return st, b.String()
}

// TestCompactCommand: a crawl --once with --compact=false leaves the
// index in the segments its flushes made (unless scorch's own merger
// merged them all); doppel compact merges them into one without deleted
// records, with the same answers, and says so
// on stdout (and progress on stderr); again, it has nothing to do, and
// a crawl --once leaves its segments, its summary saying how many. Bad
// command lines are usage errors, a directory without a crawl an error.
func TestCompactCommand(t *testing.T) {
	site := demoServer(t)
	dir := filepath.Join(t.TempDir(), "data")
	cfg := writeFile(t, "c.json", `{"seeds": ["`+site+`/"], "delay": "1ms", "refresh_interval": "10ms"}`)
	code, stdout, stderr := doppel(t, "crawl", "--once", "--config", cfg, "--data", dir, "--compact=false")
	if code != 0 || strings.Contains(stdout, "compacted:") {
		t.Fatalf("crawl --compact=false: exit %d\n%s\n%s", code, stdout, stderr)
	}
	before, want := indexState(t, dir)
	if before.Segments < 2 && before.Deleted == 0 {
		// Scorch's own merger merged every segment during the crawl
		// (seen once in CI on a loaded machine): compact must then say
		// it has nothing to merge, and change nothing.
		t.Logf("the crawl left %+v: compact has nothing to merge", before)
	}
	saved := progressInterval
	progressInterval = time.Millisecond
	code, stdout, stderr = doppel(t, "compact", "--data", dir)
	progressInterval = saved
	// Scorch's own merger may have merged some segments when compact
	// opened the index, before Compact looked.
	line := regexp.MustCompile(`(?m)^compacted: +(\d+ segments \(\d+ deleted records\) into 1 in [0-9.]+ s, \d+ MB → \d+ MB|nothing to merge \(1 segment, no deleted record\))$`)
	if code != 0 || !line.MatchString(stdout) {
		t.Errorf("doppel compact: exit %d\n%s\n%s", code, stdout, stderr)
	}
	after, got := indexState(t, dir)
	if after.Segments != 1 || after.Deleted != 0 || after.Records != before.Records || got != want {
		t.Errorf("compacted: %+v (before %+v)\n%s\nwant\n%s", after, before, got, want)
	}
	if code, stdout, _ := doppel(t, "compact", "--data", dir); code != 0 || !strings.Contains(stdout, "compacted:         nothing to merge (1 segment, no deleted record)") {
		t.Errorf("doppel compact again: exit %d\n%s", code, stdout)
	}
	// A pass leaves its segments and says how many there are.
	code, stdout, stderr = doppel(t, "crawl", "--once", "--data", dir)
	segs := regexp.MustCompile(`(?m)^index segments: +(\d+)(, no deleted record| \(\d+ deleted records, \d+ MB\): doppel compact --data .+ merges them)$`).FindStringSubmatch(stdout)
	if code != 0 || segs == nil || strings.Contains(stdout, "compacted:") {
		t.Fatalf("crawl --once: exit %d, no line of its segments or a compaction\n%s\n%s", code, stdout, stderr)
	}
	if st, _ := indexState(t, dir); strconv.Itoa(st.Segments) != segs[1] {
		t.Errorf("crawl --once said %q; the index has %+v", segs[0], st)
	}
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"compact"}, 2, "--data is required"},
		{[]string{"compact", "--data", dir, "extra"}, 2, "unexpected arguments"},
		{[]string{"compact", "--data", t.TempDir()}, 1, "is not a crawl's data directory"},
	} {
		if code, _, stderr := doppel(t, tc.args...); code != tc.code || !strings.Contains(stderr, tc.msg) {
			t.Errorf("doppel %v: exit %d, %q; want %d and %q", tc.args, code, stderr, tc.code, tc.msg)
		}
	}
}

// TestCompactionLine: the summary's line says what was merged, that
// nothing needed it, or why nothing was.
func TestCompactionLine(t *testing.T) {
	two := indexer.SegmentStats{Segments: 9, Records: 100, Deleted: 12, Bytes: 300 << 20}
	one := indexer.SegmentStats{Segments: 1, Records: 88, Bytes: 280 << 20}
	for _, tc := range []struct {
		c    indexer.Compaction
		err  error
		want string
	}{
		{indexer.Compaction{Before: two, After: one, Elapsed: 1500 * time.Millisecond}, nil, "9 segments (12 deleted records) into 1 in 1.5 s, 300 MB → 280 MB"},
		{indexer.Compaction{Before: one, After: one}, nil, "nothing to merge (1 segment, no deleted record)"},
		{indexer.Compaction{Before: two, After: two}, context.Canceled, "interrupted: the index is as the crawl left it (doppel compact --data DIR merges it later)"},
		{indexer.Compaction{Before: two, After: two}, indexer.ErrNoSpace, "not done: " + indexer.ErrNoSpace.Error()},
	} {
		if got := compactionLine(tc.c, tc.err); got != "compacted:         "+tc.want {
			t.Errorf("compactionLine(%+v, %v) = %q, want %q", tc.c, tc.err, got, tc.want)
		}
	}
}

// TestCompactWhenIdle: a kept crawl compacts its index once it is idle
// (nothing fetched, in flight or queued since the last look), logging
// it, and goes on.
func TestCompactWhenIdle(t *testing.T) {
	savedCheck, savedGap, savedSegments := idleCheck, idleGap, idleSegments
	idleCheck, idleGap, idleSegments = 20*time.Millisecond, 0, 2
	defer func() { idleCheck, idleGap, idleSegments = savedCheck, savedGap, savedSegments }()
	site := demoServer(t)
	dir := filepath.Join(t.TempDir(), "data")
	cfg := writeFile(t, "c.json", `{"seeds": ["`+site+`/"], "delay": "1ms", "refresh_interval": "10ms",
		"revisit": {"min_interval": "1h", "max_interval": "2h", "prior": "1h", "sitemaps": "-1s"}}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"crawl", "--config", cfg, "--data", dir}, &stdout, &stderr) }()
	compacted := regexp.MustCompile(`msg=compact segments_before=\d+ deleted_before=\d+ segments=1 `)
	for deadline := time.Now().Add(60 * time.Second); !compacted.MatchString(stderr.String()); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no compaction logged within 60 s:\n%s", stderr.String())
		}
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("crawl stopped with exit %d: %s", code, stderr.String())
	}
	if st, _ := indexState(t, dir); st.Segments > 2 {
		t.Errorf("after an idle compaction the index has %+v", st)
	}
}
