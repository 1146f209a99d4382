package main

import (
	"fmt"
	"os"
	"path/filepath"
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
