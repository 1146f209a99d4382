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
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/style.css":
			w.Header().Set("Content-Type", "text/css")
			fmt.Fprint(w, "body { margin: 0 }\n@media print { .api_metadata, #toc { display: none } }")
			return
		case "/robots.txt":
			http.NotFound(w, r)
			return
		}
		var n int
		if _, err := fmt.Sscanf(r.URL.Path, "/p%d.html", &n); err != nil && r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		var b strings.Builder
		fmt.Fprintf(&b, `<html><head><title>Module %d</title><link rel="stylesheet" href="/style.css">`, n)
		fmt.Fprint(&b, `<link rel="stylesheet" href="http://203.0.113.9/other.css"></head><body><main>`)
		fmt.Fprintf(&b, `<h1>Module %d</h1><div class="api_metadata">Zanzibarversion %d</div>`, n, n)
		fmt.Fprintf(&b, "<p>%s</p>", strings.Repeat(fmt.Sprintf("Module %d does its own work with care, step %d. ", n, n*17), 15))
		for i := range pages {
			fmt.Fprintf(&b, `<a href="/p%d.html">module %d</a> `, i, i)
		}
		fmt.Fprint(&b, "</main></body></html>")
		fmt.Fprint(w, b.String())
	}))
	c := crawl(t, t.TempDir(), testOptions(s.URL+"/"))
	if got := searchURLs(t, c, bleve.NewMatchQuery("module")); len(got) < pages {
		t.Fatalf("%d pages found by their text, want at least %d: %v", len(got), pages, got)
	}
	if got := searchURLs(t, c, bleve.NewMatchQuery("zanzibarversion")); len(got) != 0 {
		t.Errorf("the text hidden in print found on %v", got)
	}
	if _, n := s.hitsWhere(func(p string) bool { return p == "/style.css" }); n != 1 {
		t.Errorf("/style.css requested %d times, want 1", n)
	}
}
