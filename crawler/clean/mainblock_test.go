package clean

import (
	"slices"
	"strings"
	"testing"
)

// TestTitleBlock: the main content narrows to the block the page's title
// heading sits in when that block holds its text (Node.js's module list
// and table of contents beside the text go to Chrome), and stays whole
// for a listing whose words are links and for a heading in a small
// header block.
func TestTitleBlock(t *testing.T) {
	for _, tc := range []struct {
		file        string
		first, last string   // the first and last main block
		absent      []string // text in no main block
		chrome      []string // blocks of Page.Chrome among others
	}{
		{"node.html", "Path#", "Provides the platform-specific path delimiter: a semicolon for Windows and a colon for POSIX. See the separator too.",
			[]string{"About this documentation", "Crypto", "Table of contents", "path.delimiter Path"},
			[]string{"About this documentation", "Crypto", "Table of contents"}},
		{"listing.html", "Index of /files", "department-handbook.pdf", nil, nil},
		{"header.html", "Release notes", "Upgrading from the previous release needs no manual step: the old configuration is read and converted.", nil, nil},
	} {
		t.Run(tc.file, func(t *testing.T) {
			p := parseFile(t, "testdata/mainblock/"+tc.file)
			if len(p.Blocks) == 0 || p.Blocks[0] != tc.first || p.Blocks[len(p.Blocks)-1] != tc.last {
				t.Fatalf("main blocks %q: want %q first, %q last", p.Blocks, tc.first, tc.last)
			}
			for _, a := range tc.absent {
				if strings.Contains(p.Text, a) {
					t.Errorf("main text holds %q:\n%s", a, p.Text)
				}
			}
			for _, c := range tc.chrome {
				if !slices.Contains(p.Chrome, c) {
					t.Errorf("chrome %q lacks %q", p.Chrome, c)
				}
			}
		})
	}
}

// TestProseAside: an aside of running prose inside the main content is
// content; one of links, one too short and a hidden one are not; the
// page's nav and footer, dropped from the content, are its chrome.
func TestProseAside(t *testing.T) {
	p := parseFile(t, "testdata/mainblock/aside.html")
	for _, tc := range []struct {
		text string
		in   bool
	}{
		{"reStructuredText directives", true},
		{"toctree is a reStructuredText directive, a very versatile piece of markup. Directives can have arguments, options and content.", true},
		{"The root document serves as a welcome page and contains the root of the table of contents tree.", true},
		{"Previous: Installing Sphinx and its extensions Next: Defining document structure", false},
		{"A footnote the page hides from every reader, though it is long enough.", false},
		{"[1] Short.", false},
	} {
		if got := slices.Contains(p.Blocks, tc.text); got != tc.in {
			t.Errorf("block %q in the main content: %v, want %v (blocks %q)", tc.text, got, tc.in, p.Blocks)
		}
	}
	want := []string{"Contents", "Getting Started", "Installing", "© Copyright 2007-2024, the Sphinx developers."}
	if !slices.Equal(p.Chrome, want) {
		t.Errorf("chrome %q, want %q", p.Chrome, want)
	}
}

// TestLayoutMenu: a menu cell of links beside the cell of the page's
// text in a layout table (libxslt's pages) is left out of the main
// content and read as chrome; a table of data whose rows each hold a
// link and its description, and an index of links in two columns, stay
// content.
func TestLayoutMenu(t *testing.T) {
	p := parseFile(t, "testdata/mainblock/layout.html")
	for _, m := range []string{"Main Menu", "Reporting bugs and getting help", "Library internals"} {
		if strings.Contains(p.Text, m) {
			t.Errorf("main text holds the menu's %q:\n%s", m, p.Text)
		}
		if !slices.Contains(p.Chrome, m) {
			t.Errorf("chrome %q lacks the menu's %q", p.Chrome, m)
		}
	}
	for _, b := range []string{"The transformation library", "FAQ", "Troubles compiling programs using the library", "Daniel"} {
		if !slices.Contains(p.Blocks, b) {
			t.Errorf("main blocks %q lack %q", p.Blocks, b)
		}
	}
	d := parseFile(t, "testdata/mainblock/datatable.html")
	for _, b := range []string{"Reporting bugs and getting help", "What the faq page explains, in a sentence of plain words for the reader.", "entry Library internals", "other Home"} {
		if !slices.Contains(d.Blocks, b) {
			t.Errorf("data table: main blocks %q lack %q", d.Blocks, b)
		}
	}
	if len(d.Chrome) != 0 {
		t.Errorf("data table: chrome %q, want none", d.Chrome)
	}
}
