package clean

import (
	"slices"
	"testing"
)

// TestNavBlocks: a paragraph of navigation links (rel next, prev, up,
// contents, index) with their labels leaves the main content, as
// Texinfo writes one above every section of a one-page manual; its links
// are still outlinks. Pagination without rel, a paragraph with one
// navigation link among its text, or one with a link of another kind
// stays.
func TestNavBlocks(t *testing.T) {
	for _, c := range []struct {
		name, body string
		want       []string
	}{{
		name: "texinfo header",
		body: `<div class="header"><p>Next: <a href="Imports.html" rel="next">Imports</a>, Previous: <a href="#Top" rel="prev">R Data</a>, Up: <a href="#Top" rel="up">R Data</a> &nbsp; [<a href="#SEC_Contents" rel="contents">Contents</a>][<a href="#Index" rel="index">Index</a>]</p></div><h3>1.1 Imports</h3><p>The easiest form of data to import into R is a simple text file.</p>`,
		want: []string{"1.1 Imports", "The easiest form of data to import into R is a simple text file."},
	}, {
		name: "pagination without rel stays",
		body: `<p>Results of the survey.</p><p><a href="?p=1">1</a> <a href="?p=2">2</a> <a href="?p=2" rel="next">Next</a></p>`,
		want: []string{"Results of the survey.", "1 2 Next"},
	}, {
		name: "one navigation link in a sentence stays",
		body: `<p>Read the <a href="b.html" rel="next">next chapter</a> and <a href="c.html" rel="prev">the one before</a> when you have understood how the import of data works.</p>`,
		want: []string{"Read the next chapter and the one before when you have understood how the import of data works."},
	}, {
		name: "a link of another kind stays",
		body: `<p><a href="b.html" rel="next">Next</a> <a href="x.html">Download</a> <a href="a.html" rel="prev">Prev</a></p><p>Body text of the page.</p>`,
		want: []string{"Next Download Prev", "Body text of the page."},
	}} {
		t.Run(c.name, func(t *testing.T) {
			p := parse(t, "<html><body>"+c.body+"</body></html>")
			if !slices.Equal(p.Blocks, c.want) {
				t.Errorf("blocks %q, want %q", p.Blocks, c.want)
			}
			if len(p.Links) == 0 {
				t.Error("no outlinks")
			}
		})
	}
}
