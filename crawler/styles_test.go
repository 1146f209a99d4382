package crawler

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
)

// TestPrintStylesheet: what a site's stylesheet hides in print is not a
// page's text (neither indexed nor compared); the stylesheet is fetched
// once for all the pages that link it, and one of another host never.
func TestPrintStylesheet(t *testing.T) {
	const pages = 3
	s := newSite(t, styledSite(pages, 1))
	c := crawl(t, t.TempDir(), testOptions(s.URL+"/"))
	if got := searchURLs(t, c, bleve.NewMatchQuery("module")); len(got) < pages {
		t.Fatalf("%d pages found by their text, want at least %d: %v", len(got), pages, got)
	}
	if got := searchURLs(t, c, bleve.NewMatchQuery("zanzibarversion")); len(got) != 0 {
		t.Errorf("the text hidden in print found on %v", got)
	}
	if _, n := s.hitsWhere(func(p string) bool { return p == "/style0.css" }); n != 1 {
		t.Errorf("/style0.css requested %d times, want 1", n)
	}
}

// TestStylesheetsInBudget: a stylesheet request is a request of the page
// budget: with MaxPages n, the server answers at most n requests for
// pages and stylesheets together, however many stylesheets the pages
// link (robots.txt, the sitemap and the missing-page probe aside, as
// for pages).
func TestStylesheetsInBudget(t *testing.T) {
	for _, budget := range []int{1, 2, 5, 9} {
		s := newSite(t, styledSite(20, 6))
		opts := testOptions(s.URL + "/")
		opts.MaxPages = budget
		c := crawl(t, t.TempDir(), opts)
		_, sheets := s.hitsWhere(func(p string) bool { return strings.HasSuffix(p, ".css") })
		_, all := s.hitsWhere(func(p string) bool {
			return strings.HasSuffix(p, ".css") || strings.HasPrefix(p, "/p") || p == "/"
		})
		if all > budget {
			t.Errorf("budget %d: %d requests (%d of them stylesheets)", budget, all, sheets)
		}
		if st := c.Stats(); st.Requests != int64(all) {
			t.Errorf("budget %d: the crawl counts %d requests, the server answered %d", budget, st.Requests, all)
		}
		if budget >= 5 && sheets == 0 {
			t.Errorf("budget %d: no stylesheet requested", budget)
		}
	}
}

// styledSite serves pages /p0.html … that link each other and sheets
// stylesheets of their host (/style0.css …; the first hides the
// api_metadata block in print) and one of another host.
func styledSite(pages, sheets int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/style") {
			w.Header().Set("Content-Type", "text/css")
			fmt.Fprint(w, "body { margin: 0 }\n@media print { .api_metadata, #toc { display: none } }")
			return
		}
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		var n int
		if _, err := fmt.Sscanf(r.URL.Path, "/p%d.html", &n); err != nil && r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		var b strings.Builder
		fmt.Fprintf(&b, `<html><head><title>Module %d</title>`, n)
		for i := range sheets {
			fmt.Fprintf(&b, `<link rel="stylesheet" href="/style%d.css">`, i)
		}
		fmt.Fprint(&b, `<link rel="stylesheet" href="http://203.0.113.9/other.css"></head><body><main>`)
		fmt.Fprintf(&b, `<h1>Module %d</h1><div class="api_metadata">Zanzibarversion %d</div>`, n, n)
		fmt.Fprintf(&b, "<p>%s</p>", strings.Repeat(fmt.Sprintf("Module %d does its own work with care, step %d. ", n, n*17), 15))
		for i := range pages {
			fmt.Fprintf(&b, `<a href="/p%d.html">module %d</a> `, i, i)
		}
		fmt.Fprint(&b, "</main></body></html>")
		fmt.Fprint(w, b.String())
	})
}

// TestNoStylesheetOfNofollowPage: a page that says nofollow (a wiki's
// edit and history views do) gets none of its links requested, its
// stylesheets included; the same page without the tag does.
func TestNoStylesheetOfNofollowPage(t *testing.T) {
	for _, tc := range []struct {
		meta   string
		sheets int
	}{{`<meta name="robots" content="noindex,nofollow">`, 0}, {`<meta name="robots" content="index,nofollow">`, 0}, {"", 1}} {
		s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/":
				w.Header().Set("Content-Type", "text/html")
				fmt.Fprint(w, `<html><head><title>Main Page</title></head><body><main><p>Welcome to the wiki of the team.</p>`+
					`<a href="/edit">edit</a></main></body></html>`)
			case "/edit":
				w.Header().Set("Content-Type", "text/html")
				fmt.Fprintf(w, `<html><head><title>Edit Main Page</title>%s<link rel="stylesheet" href="/load.css"></head>`+
					`<body><main><p>The edit form of the main page of the wiki, with its text area.</p></main></body></html>`, tc.meta)
			case "/load.css":
				w.Header().Set("Content-Type", "text/css")
				fmt.Fprint(w, "@media print { .noprint { display: none } }")
			default:
				http.NotFound(w, r)
			}
		}))
		crawl(t, t.TempDir(), testOptions(s.URL+"/"))
		if _, n := s.hitsWhere(func(p string) bool { return p == "/load.css" }); n != tc.sheets {
			t.Errorf("%q: the stylesheet requested %d times, want %d", tc.meta, n, tc.sheets)
		}
	}
}

// TestStylesheetsWhateverComesFirst: a page's text does not depend on
// how many stylesheets the pages before it linked. Ten pages link twelve
// sheets each of their own section (as each book of Rust's documentation
// does), ten others one sheet that hides their version line in print (as
// rustdoc's); whichever section the root lists first, the version lines
// are not indexed. With a bound of 8 sheets a host, the section that came
// first took them all.
func TestStylesheetsWhateverComesFirst(t *testing.T) {
	for _, first := range []string{"book", "api"} {
		s := newSite(t, twoSectionSite(first))
		opts := testOptions(s.URL + "/")
		opts.Parallelism = 1
		c := crawl(t, t.TempDir(), opts)
		if got := searchURLs(t, c, bleve.NewMatchQuery("chapter")); len(got) != 10 {
			t.Fatalf("%s first: %d book pages found, want 10: %v", first, len(got), got)
		}
		if got := searchURLs(t, c, bleve.NewMatchQuery("zanzibarversion")); len(got) != 0 {
			t.Errorf("%s first: the version line hidden in print found on %d pages: %v", first, len(got), got)
		}
		if _, n := s.hitsWhere(func(p string) bool { return p == "/api.css" }); n != 1 {
			t.Errorf("%s first: /api.css requested %d times, want 1", first, n)
		}
	}
}

// twoSectionSite serves a root listing the section named first before
// the other: /book/N.html (N < 10) link sheets /book/N/s0.css …
// /book/N/s11.css that hide nothing; /api/N.html link /api.css, which
// hides their version line (.out-of-band) in print.
func twoSectionSite(first string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int
		var b strings.Builder
		switch {
		case strings.HasSuffix(r.URL.Path, ".css"):
			w.Header().Set("Content-Type", "text/css")
			fmt.Fprint(w, "body { margin: 0 }\n@media print { .out-of-band { display: none } }")
			return
		case r.URL.Path == "/":
			fmt.Fprint(&b, "<html><head><title>Docs</title></head><body><main><p>The documentation of the project.</p>")
			for _, sec := range map[bool][]string{true: {"book", "api"}, false: {"api", "book"}}[first == "book"] {
				for i := range 10 {
					fmt.Fprintf(&b, `<a href="/%s/%d.html">%s %d</a> `, sec, i, sec, i)
				}
			}
		case fmtScan(r.URL.Path, "/book/%d.html", &n):
			fmt.Fprintf(&b, "<html><head><title>Chapter %d</title>", n)
			for i := range 12 {
				fmt.Fprintf(&b, `<link rel="stylesheet" href="/book/%d/s%d.css">`, n, i)
			}
			fmt.Fprintf(&b, "</head><body><main><h1>Chapter %d</h1><p>%s</p>", n,
				strings.Repeat(fmt.Sprintf("Chapter %d tells its own story, part %d. ", n, n*31), 15))
		case fmtScan(r.URL.Path, "/api/%d.html", &n):
			fmt.Fprintf(&b, `<html><head><title>Function %d</title><link rel="stylesheet" href="/api.css"></head><body><main>`, n)
			fmt.Fprintf(&b, `<h1>Function %d</h1><span class="out-of-band">Zanzibarversion 1.%d.0 · source</span>`, n, n)
			fmt.Fprintf(&b, "<p>%s</p>", strings.Repeat(fmt.Sprintf("Function %d computes its own result, case %d. ", n, n*37), 15))
		default:
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(&b, "</main></body></html>")
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, b.String())
	})
}

// fmtScan reports whether s reads as format with one number, into n.
func fmtScan(s, format string, n *int) bool {
	_, err := fmt.Sscanf(s, format, n)
	return err == nil
}
