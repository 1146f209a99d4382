package clean

import (
	"fmt"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/internal/testrig/golden"
)

// TestGolden parses each testdata/golden/*.txt — an HTML page, a line
// "----", then what the cleaner makes of it — and compares (package
// golden; -update rewrites the files).
func TestGolden(t *testing.T) {
	golden.Run(t, "testdata/golden/*.txt", func(t *testing.T, in string) string {
		p, err := Parse(strings.NewReader(in), testBase, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return render(p)
	})
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
