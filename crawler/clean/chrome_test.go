package clean

import (
	"os"
	"slices"
	"testing"
)

// TestPageChrome: a page's blocks outside its main content are its
// chrome, in order; the main content's blocks are not among them, and a
// page whose main content is its whole body has none.
func TestPageChrome(t *testing.T) {
	p := parseFile(t, "testdata/chrome/page.html")
	want := []string{
		"Documentation »", "Build your first project »",
		"Site navigation", "Getting started", "Installing", "First steps", "More customization", "Quick search",
		"© Copyright 2007-2023, the developers. Created using the generator 5.3.0.",
	}
	if !slices.Equal(p.Chrome, want) {
		t.Errorf("chrome:\n got %q\nwant %q", p.Chrome, want)
	}
	if len(p.Blocks) != 4 || p.Blocks[0] != "Getting started" {
		t.Errorf("main blocks %q, want the four of the main element", p.Blocks)
	}
	bare := parse(t, "<html><body><p>One paragraph of text that is the whole body of the page, so it is its main content.</p></body></html>")
	if bare.Chrome != nil {
		t.Errorf("a page that is all main content has chrome %q", bare.Chrome)
	}
}

// TestChromeStrip: a document of the page's host loses the runs of
// chrome blocks at its beginning and end and those of MinRun blocks or
// more, and keeps a heading the sidebar names, shorter runs inside its
// text, a document that is all chrome, and every block of another host's
// document.
func TestChromeStrip(t *testing.T) {
	page := parseFile(t, "testdata/chrome/page.html")
	var c Chrome
	c.Observe("docs", page.Chrome)
	c.ObservePrintHidden("docs", []string{"Added in: v0.9.3"})
	text1 := "Getting started with the tool means setting up a project directory."
	text2 := "Install the tool with the package manager of your system."
	footer := "© Copyright 2007-2024, the developers. Created using the generator 5.3.1."
	for _, tc := range []struct {
		name      string
		host      string
		doc, want []string
	}{
		{"whole page file", "docs",
			[]string{"Documentation »", "Build your first project »", "Getting started", text1, "Installing", text2, "Site navigation", "Getting started", "Installing", "First steps", "More customization", "Quick search", footer},
			[]string{text1, "Installing", text2}},
		{"bullets of a PDF's sidebar", "docs",
			[]string{text1, text2, "Site navigation", "• Getting started", "• Installing", "• First steps"},
			[]string{text1, text2}},
		{"a book's contents, numbered", "docs",
			[]string{"1. Getting started", "1.1. Installing", "2) First steps", text1, text2},
			[]string{text1, text2}},
		{"a run of MinRun inside", "docs",
			[]string{text1, "Installing", "First steps", "More customization", text2},
			[]string{text1, text2}},
		{"a shorter run inside stays", "docs",
			[]string{text1, "Installing", "First steps", text2},
			[]string{text1, "Installing", "First steps", text2}},
		{"a block hidden in print, anywhere, digits aside", "docs",
			[]string{text1, "Added in: v0.7.1", text2, "Added in: v0.9.3"},
			[]string{text1, text2}},
		{"hidden in print inside a shorter run", "docs",
			[]string{text1, "Installing", "Added in: v1.2.3", "First steps", text2},
			[]string{text1, "Installing", "First steps", text2}},
		{"all chrome stays", "docs",
			[]string{"Installing", "First steps"},
			[]string{"Installing", "First steps"}},
		{"another host", "other",
			[]string{"Documentation »", text1, footer, "Added in: v0.9.3"},
			[]string{"Documentation »", text1, footer, "Added in: v0.9.3"}},
		{"nil Chrome", "docs",
			[]string{"Documentation »", text1},
			[]string{"Documentation »", text1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cc := &c
			if tc.name == "nil Chrome" {
				cc = nil
			}
			if got := cc.Strip(tc.host, tc.doc); !slices.Equal(got, tc.want) {
				t.Errorf("Strip:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func parseFile(t *testing.T, name string) *Page {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return parse(t, string(b))
}

// TestChromeRuns: a document that holds its host's chrome with other line
// breaks — a PDF that joins javadoc's footer to the paragraph before it —
// loses the run of chrome words, wherever it stands and across blocks,
// and keeps its own words in those blocks; a run shorter than
// MinRunWords (a sentence a sidebar repeats), a document all of whose
// words are chrome, and another host's document keep their words.
func TestChromeRuns(t *testing.T) {
	var c Chrome
	c.Observe("docs", []string{
		"Report a bug or suggest an enhancement",
		"For further API reference and developer documentation see the Java SE Documentation, which contains more detailed, developer-targeted descriptions with conceptual overviews.",
		"Copyright © 1993, 2021, Oracle and/or its affiliates, 500 Oracle Parkway, Redwood Shores, CA 94065 USA. All rights reserved.",
		"Returns a string of the joined values, as the joiner was told to build it.",
	})
	own := "The joiner builds a sequence of characters separated by a delimiter."
	own2 := "Each value is added in the order given, and an empty joiner gives its empty value."
	for _, tc := range []struct {
		name      string
		host      string
		doc, want []string
	}{
		{"the footer joined to the last paragraph", "docs",
			[]string{own, own2 + " Report a bug or suggest an enhancement For further API reference and developer",
				"documentation see the Java SE Documentation, which contains more detailed, developer-targeted descriptions with conceptual overviews. Copyright © 1993, 2022, Oracle and/or its affiliates, 500 Oracle Parkway, Redwood Shores, CA 94065 USA. All rights reserved."},
			[]string{own, own2}},
		{"the footer inside the text", "docs",
			[]string{own, "Report a bug or suggest an enhancement For further API reference and developer documentation see the Java SE Documentation, which contains more detailed, developer-targeted descriptions with conceptual overviews.", own2},
			[]string{own, own2}},
		{"a short run stays", "docs",
			[]string{own, "It returns a string of the joined values, as the joiner was told to build it, and nothing else.", own2},
			[]string{own, "It returns a string of the joined values, as the joiner was told to build it, and nothing else.", own2}},
		{"all chrome stays", "docs",
			[]string{"Report a bug or suggest an enhancement For further API reference and developer documentation see the Java SE Documentation, which contains more detailed, developer-targeted descriptions."},
			[]string{"Report a bug or suggest an enhancement For further API reference and developer documentation see the Java SE Documentation, which contains more detailed, developer-targeted descriptions."}},
		{"another host", "other",
			[]string{own, "Report a bug or suggest an enhancement For further API reference and developer documentation see the Java SE Documentation, which contains more detailed, developer-targeted descriptions with conceptual overviews."},
			[]string{own, "Report a bug or suggest an enhancement For further API reference and developer documentation see the Java SE Documentation, which contains more detailed, developer-targeted descriptions with conceptual overviews."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := c.Strip(tc.host, tc.doc); !slices.Equal(got, tc.want) {
				t.Errorf("Strip:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}
