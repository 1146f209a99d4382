package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"testing"
)

// TestDedupSetsDir: wherever --sets-dir keeps the verification sets (the
// default, all in memory, a folder) the clusters are the same and
// nothing is left in the folder; a folder that does not exist is a clear
// error.
func TestDedupSetsDir(t *testing.T) {
	var lines []string
	for i := range 40 {
		text := fmt.Sprintf("%s number %d of the series", manual, i/2) // pairs of copies
		lines = append(lines, fmt.Sprintf(`{"id":"d%d","text":%q}`, i, text))
	}
	in := writeFile(t, "docs.jsonl", strings.Join(lines, "\n"))
	setsDir := t.TempDir()
	var want string
	for _, flags := range [][]string{nil, {"--sets-dir", "mem"}, {"--sets-dir", setsDir}} {
		out := filepath.Join(t.TempDir(), "c.jsonl")
		code, _, stderr := doppel(t, append([]string{"dedup", "--in", in, "--out", out, "--quiet"}, flags...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", flags, code, stderr)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if want == "" {
			want = string(data)
		} else if string(data) != want {
			t.Errorf("%v: clusters differ from the default's", flags)
		}
		if !strings.Contains(stderr, "40 documents, 20 clusters") {
			t.Errorf("%v: summary %q, want 40 documents in 20 clusters", flags, stderr)
		}
	}
	if left, _ := os.ReadDir(setsDir); len(left) != 0 {
		t.Errorf("--sets-dir left %d files", len(left))
	}
	code, _, stderr := doppel(t, "dedup", "--in", in, "--out", filepath.Join(t.TempDir(), "c.jsonl"), "--sets-dir", filepath.Join(setsDir, "missing"))
	if code == 0 || !strings.Contains(stderr, "missing") {
		t.Errorf("a missing --sets-dir: exit %d, %q", code, stderr)
	}
}

// TestDedupGCTarget: as the live heap grows, gcTarget sets the
// collector's target to dedupGCPercent at least and, with limit, the soft
// memory limit dedupGCSlack above the target (not below the live heap,
// not unbounded); without limit it leaves the memory limit alone.
func TestDedupGCTarget(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	keep := make([][]byte, 64)
	for i := range keep {
		keep[i] = make([]byte, 1<<20) // 64 MiB live
	}
	liveHeap := func() uint64 {
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	for _, limit := range []bool{false, true} {
		debug.SetMemoryLimit(math.MaxInt64)
		runtime.GC()
		live := liveHeap()
		g := &gcTarget{limit: limit}
		for range 4096 {
			g.tick()
		}
		if g.percent < dedupGCPercent || g.percent > 100 {
			t.Errorf("limit %v: percent %d, want %d to 100", limit, g.percent, dedupGCPercent)
		}
		got := debug.SetMemoryLimit(-1)
		switch {
		case !limit && got != math.MaxInt64:
			t.Errorf("without limit: memory limit set to %d", got)
		case limit && (got < int64(live)+dedupGCSlack || got > int64(live)*3+dedupGCSlack):
			t.Errorf("memory limit %d MiB for a live heap of %d MiB (percent %d)", got>>20, live>>20, g.percent)
		}
	}
	runtime.KeepAlive(keep)
}
