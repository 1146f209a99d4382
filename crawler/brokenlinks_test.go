package crawler

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/crawler/pages"
)

// TestBrokenLinksKeepRealPages: a real page is never counted as a trap
// because its siblings' links are broken. Each of a book's chapters
// links to 60 chapters the site does not hold (as the Rust book's pages
// on the fourth held-out site link to the whole book): the family
// /book/*.html yields mostly 404s, is demoted, and every real chapter is
// still fetched and kept.
func TestBrokenLinksKeepRealPages(t *testing.T) {
	const real = 6
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int
		if _, err := fmt.Sscanf(r.URL.Path, "/book/ch%d.html", &n); err != nil && r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		if n >= real {
			http.NotFound(w, r)
			return
		}
		var b strings.Builder
		fmt.Fprintf(&b, "<html><head><title>Chapter %d</title></head><body><nav>", n)
		for i := range 60 {
			fmt.Fprintf(&b, `<a href="/book/ch%d.html">Chapter %d</a> `, (i*7+n)%60+real, i)
		}
		if n+1 < real {
			fmt.Fprintf(&b, `<a href="/book/ch%d.html">next</a>`, n+1)
		}
		fmt.Fprintf(&b, "</nav><main><h1>Chapter %d</h1><p>%s</p></main></body></html>", n,
			strings.Repeat(fmt.Sprintf("Chapter %d of the book tells its own story, word %d. ", n, n*13), 20))
		fmt.Fprint(w, b.String())
	}))
	opts := testOptions(s.URL + "/")
	opts.Parallelism = 1
	c := crawl(t, t.TempDir(), opts)
	recs := records(t, c)
	for i := 1; i < real; i++ { // the seed is chapter 0
		u := fmt.Sprintf("%s/book/ch%d.html", s.URL, i)
		if r, ok := recs[u]; !ok || r.Status != pages.Fetched {
			t.Errorf("%s: %+v (recorded %v), want fetched", u, r.Reason, ok)
		}
	}
	if _, n := s.hitsWhere(func(p string) bool { return strings.HasPrefix(p, "/book/") }); n < 20+real {
		t.Errorf("%d requests of /book/: the test did not make the family yield mostly nothing", n)
	}
}
