// Package golden runs data-driven tests over files in testdata: each file
// holds an input, a line "----", and the output expected of it (the last
// such line separates them, so an input may hold "----" lines of its
// own). Run with -update to rewrite the outputs with what the code gives
// now, then read the diff before committing it.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Update is the -update flag: rewrite the expected outputs.
var Update = flag.Bool("update", false, "rewrite the expected outputs of the golden tests in testdata")

const sep = "\n----\n"

// Run calls fn with the input of every file matching pattern (such as
// "testdata/golden/*.txt"), in a subtest named after the file, and
// compares what it returns with the file's expected output — or, with
// -update, writes it there. It fails when no file matches.
func Run(t *testing.T, pattern string, fn func(t *testing.T, input string) string) {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("golden: no files match %s: %v", pattern, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			i := strings.LastIndex(string(data), sep)
			if i < 0 {
				t.Fatalf("%s: no ---- line before the expected output", f)
			}
			in, want := string(data[:i]), string(data[i+len(sep):])
			got := fn(t, in)
			if *Update {
				if err := os.WriteFile(f, []byte(in+sep+got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != want {
				t.Errorf("%s: got\n%s\nwant\n%s", f, got, want)
			}
		})
	}
}
