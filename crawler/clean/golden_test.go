package clean

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the expected output of the golden tests in testdata/golden")

// TestGolden parses each testdata/golden/*.txt — an HTML page, a line
// "----", then what the cleaner makes of it — and compares. With -update
// the files are rewritten with what the cleaner gives now (read the diff
// before committing it).
func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			in, want, ok := strings.Cut(string(data), "\n----\n")
			if !ok {
				t.Fatalf("%s: no ---- line between input and output", f)
			}
			p, err := Parse(strings.NewReader(in), testBase, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := render(p)
			if *update {
				if err := os.WriteFile(f, []byte(in+"\n----\n"+got), 0o644); err != nil {
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

// render writes what the cleaner read of a page, one field a line.
func render(p *Page) string {
	var b strings.Builder
	fmt.Fprintf(&b, "title: %s\n", p.Title)
	fmt.Fprintf(&b, "language: %s\n", p.Language)
	fmt.Fprintf(&b, "hreflang: %s\n", p.Hreflang)
	fmt.Fprintf(&b, "description: %s\n", p.Description)
	fmt.Fprintf(&b, "canonical: %s\n", p.Canonical)
	fmt.Fprintf(&b, "noindex: %v nofollow: %v\n", p.NoIndex, p.NoFollow)
	for _, h := range p.Headings {
		fmt.Fprintf(&b, "heading: %s\n", h)
	}
	for _, bl := range p.Blocks {
		fmt.Fprintf(&b, "block: %s\n", bl)
	}
	for _, l := range p.Links {
		fmt.Fprintf(&b, "link: %s %q main=%v nofollow=%v\n", l.URL, l.Text, l.Main, l.NoFollow)
	}
	fmt.Fprintf(&b, "tagged: %s\n", strings.ReplaceAll(p.Tagged, "\n", " | "))
	return b.String()
}
