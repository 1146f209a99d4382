package clean

import (
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestPrintHidden: the selectors a stylesheet hides in print, from the
// golden excerpts of Node.js's and Sphinx's stylesheets and from rules
// that must not count (another medium, a rule that shows, a negated
// query).
func TestPrintHidden(t *testing.T) {
	golden := func(name string) string {
		b, err := os.ReadFile("testdata/print/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	tests := []struct {
		name      string
		sheet     string
		printOnly bool
		want      []string
	}{
		{"Node.js", golden("style.css"), false, []string{"#column2.interior", ".api_metadata,#toc,.srclink,#gtoc,.mark", ".js-flavor-selector"}},
		{"Sphinx", golden("sphinx-basic.css"), false, []string{"div.sphinxsidebar,div.related,div.footer,#top-link"}},
		{"screen only", "@media screen { .a { display: none } } .b { display: none }", false, nil},
		{"a sheet for print", ".a { display: none } .b { color: red }", true, []string{".a"}},
		{"not print", "@media not print { .a { display: none } }", false, nil},
		{"a list naming print", "@media screen, print { .a { visibility: hidden } }", false, []string{".a"}},
		{"nested", "@media print { @supports (display: grid) { .a { display: NONE !important } } }", false, []string{".a"}},
		{"shown in print", "@media print { .a { display: block } .b { visibility: visible } }", false, nil},
		{"after a fault", "@media print { .a { display: none } } .b { display: none", false, []string{".a"}},
		{"empty", "", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PrintHidden([]byte(tt.sheet), tt.printOnly); !slices.Equal(got, tt.want) {
				t.Errorf("PrintHidden = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestPrintRulesLeaveFurnitureOut: a Node.js page (golden
// testdata/print/node.html) keeps its version notes and history tables
// in the main content when its stylesheet is not read, and leaves them
// out when it is, with the inline print rule's edit link; the stylesheet
// of another host is never asked for; a print sheet that hides most of
// the content is not followed.
func TestPrintRulesLeaveFurnitureOut(t *testing.T) {
	page, err := os.ReadFile("testdata/print/node.html")
	if err != nil {
		t.Fatal(err)
	}
	sheet, err := os.ReadFile("testdata/print/style.css")
	if err != nil {
		t.Fatal(err)
	}
	base, _ := url.Parse("http://docs.example/api/path.html")
	furniture := []string{"Added in: v0.9.3", "History", "Passing a non-string", "Edit on GitHub"}
	content := []string{"provides utilities", "returns the last portion", "platform-specific path delimiter"}
	tests := []struct {
		name  string
		sheet []byte
		// kept: the version notes in the text; editLink: the edit
		// link, which the page's inline rule hides
		kept, editLink bool
	}{
		{"stylesheet not read", nil, true, false},
		{"Node.js's print rules", sheet, false, false},
		{"a print sheet hiding the content", []byte("@media print { #apicontent p { display: none } }"), true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked []string
			styles := func(u *url.URL) []byte {
				asked = append(asked, u.String())
				return tt.sheet
			}
			p, err := Parse(strings.NewReader(string(page)), base, Options{Styles: styles})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(asked, []string{"http://docs.example/api/assets/style.css"}) {
				t.Errorf("stylesheets asked for: %q", asked)
			}
			for _, s := range content {
				if !strings.Contains(p.Text, s) {
					t.Errorf("content %q missing from %q", s, p.Text)
				}
			}
			if hidden := strings.Join(p.PrintHidden, "\n"); strings.Contains(hidden, "Added in: v0.9.3") == tt.kept {
				t.Errorf("PrintHidden = %q: the version notes in it %v, want %v", p.PrintHidden, !tt.kept, !tt.kept)
			}
			for i, s := range furniture {
				want := tt.kept
				if i == len(furniture)-1 {
					want = tt.editLink
				}
				if strings.Contains(p.Text, s) != want {
					t.Errorf("%q in the text: %v, want %v (text %q)", s, !want, want, p.Text)
				}
			}
		})
	}
}

// TestPrintRulesCache: the cache of print rules answers what PrintHidden
// does for each sheet and flag, whether the sheet was read before, was
// another sheet in the same buffer, or the cache was emptied when full.
func TestPrintRulesCache(t *testing.T) {
	sheets := []string{
		"@media print { .toc, nav { display: none } } .x { color: red }",
		".y { display: none } @media screen { .z { display: none } }",
		"@media print { .api-stability { visibility: hidden } }",
	}
	buf := make([]byte, 0, 256)
	for round := range 3 {
		for _, sheet := range sheets {
			for _, printOnly := range []bool{false, true} {
				buf = append(buf[:0], sheet...) // the same buffer for every sheet
				want := PrintHidden([]byte(sheet), printOnly)
				if got := printRules.hidden(buf, printOnly); !slices.Equal(got, want) {
					t.Errorf("round %d, %q, printOnly %v: %q, want %q", round, sheet, printOnly, got, want)
				}
			}
		}
		if round == 1 {
			for i := range maxSheetRules { // fills the cache: it is emptied
				printRules.hidden([]byte(strings.Repeat(" ", i+1)+sheets[0]), false)
			}
		}
	}
	if got := printRules.hidden([]byte(sheets[0]), false); !slices.Equal(got, []string{".toc,nav"}) {
		t.Errorf("got %q, want [.toc,nav]", got)
	}
}

// TestNoStylesForRobots: the stylesheets of a page that says noindex or
// nofollow, in its markup or in an X-Robots-Tag header, are not asked
// for (a crawl requests nothing such a page links); its inline print
// rules still count. A header for another crawler by name changes
// nothing.
func TestNoStylesForRobots(t *testing.T) {
	base, _ := url.Parse("http://docs.example/a.html")
	page := func(meta string) string {
		return `<html><head><title>T</title>` + meta + `<link rel=stylesheet href="/s.css">` +
			`<style>@media print { .edit { display: none } }</style></head>` +
			`<body><main><p>The text of the page.</p><p class=edit>Edit this page</p></main></body></html>`
	}
	for _, tc := range []struct {
		name, meta string
		robots     []string
		asked      bool
	}{
		{"plain", "", nil, true},
		{"meta nofollow", `<meta name=robots content="index, nofollow">`, nil, false},
		{"meta noindex", `<meta name=robots content="noindex">`, nil, false},
		{"header nofollow", "", []string{"nofollow"}, false},
		{"header for another crawler", "", []string{"otherbot: nofollow"}, true},
	} {
		var asked int
		p, err := Parse(strings.NewReader(page(tc.meta)), base, Options{Robots: tc.robots, Styles: func(*url.URL) []byte {
			asked++
			return nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		if (asked > 0) != tc.asked || strings.Contains(p.Text, "Edit this page") {
			t.Errorf("%s: the stylesheet asked for %d times (want %v); text %q", tc.name, asked, tc.asked, p.Text)
		}
	}
}

func TestRobotsHeader(t *testing.T) {
	for _, tc := range []struct {
		values            []string
		noIndex, noFollow bool
	}{
		{nil, false, false},
		{[]string{"noindex"}, true, false},
		{[]string{"NoFollow"}, false, true},
		{[]string{"none"}, true, true},
		{[]string{"noindex, nofollow"}, true, true},
		{[]string{"all"}, false, false},
		{[]string{"googlebot: noindex"}, false, false},
		{[]string{"googlebot: noindex", "nofollow"}, false, true},
		{[]string{"unavailable_after: 2026-01-01, noindex"}, true, false},
		{[]string{"max-snippet: 20"}, false, false},
	} {
		ni, nf := RobotsHeader(tc.values)
		if ni != tc.noIndex || nf != tc.noFollow {
			t.Errorf("RobotsHeader(%q) = %v, %v; want %v, %v", tc.values, ni, nf, tc.noIndex, tc.noFollow)
		}
	}
}
