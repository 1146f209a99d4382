// Package testcorpus finds the shared evaluation corpus for tests and
// benchmarks. The corpus is never copied into the repository: it is read
// from shared/corpus beside the repository root (or from $DOPPEL_CORPUS),
// and tests that need it are skipped with a message when it is absent.
package testcorpus

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/doppel-search/doppel/internal/jsonl"
)

// Dir returns the corpus directory, or "" if it cannot be found.
func Dir() string {
	if d := os.Getenv("DOPPEL_CORPUS"); d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		candidate := filepath.Join(dir, "shared", "corpus")
		if _, err := os.Stat(filepath.Join(candidate, "README.md")); err == nil {
			return candidate
		}
		if filepath.Dir(dir) == dir {
			return ""
		}
	}
}

// Path returns the path of the corpus file name, skipping tb if the corpus
// is absent.
func Path(tb testing.TB, name string) string {
	tb.Helper()
	dir := Dir()
	if dir == "" {
		tb.Skipf("shared corpus not found (looked for shared/corpus above %s; set DOPPEL_CORPUS): skipping", mustWd())
	}
	p := filepath.Join(dir, name)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("corpus file %s not available: %v: skipping", p, err)
	}
	return p
}

// Docs reads up to limit records (all if limit <= 0) of the corpus file
// name, skipping tb if it is absent.
func Docs(tb testing.TB, name string, limit int) []jsonl.Record {
	tb.Helper()
	f, err := os.Open(Path(tb, name))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	r, err := jsonl.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	var out []jsonl.Record
	for limit <= 0 || len(out) < limit {
		rec, err := r.Next()
		if err != nil {
			break
		}
		out = append(out, rec)
	}
	if len(out) == 0 {
		tb.Fatalf("corpus file %s: no documents", name)
	}
	return out
}

func mustWd() string {
	wd, _ := os.Getwd()
	return wd
}

// Texts returns the texts of up to limit records (all if limit <= 0) of the
// corpus file name, skipping tb if it is absent.
func Texts(tb testing.TB, name string, limit int) []string {
	tb.Helper()
	recs := Docs(tb, name, limit)
	texts := make([]string, len(recs))
	for i, r := range recs {
		texts[i] = r.Text
	}
	return texts
}
