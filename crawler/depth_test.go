package crawler

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler/pages"
)

// depthSite is a site whose pages are fetched out of breadth-first order:
// the crawl fetches the links of unique pages before those of
// near-duplicates, so /x is first found 4 links from the seed, through
// the unique pages /u1 and /u2 and the copy /u3, and queued behind /p; /p
// (the copy /dup's link) then shows a path of 3 links to /x, unless
// short is false. /p answers slowly, so that /x is queued before /p's
// links are read. /y is /x's only link.
func depthSite(short bool) http.Handler {
	var words []string
	for i := range 300 {
		words = append(words, fmt.Sprintf("word%d", i*7919%1000))
	}
	text := strings.Join(words, " ")
	links := map[string][]string{
		"/": {"/dup", "/u1"}, "/dup": {"/p"}, "/u1": {"/u2"}, "/u2": {"/u3"}, "/u3": {"/x"}, "/x": {"/y"}, "/y": nil, "/p": nil,
	}
	if short {
		links["/p"] = []string{"/x"}
	}
	copies := map[string]bool{"/": true, "/dup": true, "/u3": true} // the seed's text
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		out, ok := links[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if r.URL.Path == "/p" {
			time.Sleep(300 * time.Millisecond)
		}
		body := "Page " + r.URL.Path + " says " + strings.Repeat(strings.TrimPrefix(r.URL.Path, "/")+" ", 40)
		if copies[r.URL.Path] {
			body = text
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<html><head><title>%s</title></head><body><p>%s</p>", r.URL.Path, body)
		for _, l := range out {
			fmt.Fprintf(w, `<a href="%s">next</a> `, l)
		}
		fmt.Fprint(w, "</body></html>")
	})
}

// TestDepthShortestPath: a URL queued by a long path and reached by a
// shorter one before it is fetched takes the shorter path's depth, so
// the pages MaxDepth allows do not depend on the order pages were
// fetched in.
func TestDepthShortestPath(t *testing.T) {
	tests := []struct {
		name     string
		short    bool // /p links to /x: /x is 3 links from the seed, else 4
		maxDepth int
		want     []string // the pages fetched
	}{
		{"shorter path found later", true, 4, []string{"/", "/dup", "/p", "/u1", "/u2", "/u3", "/x", "/y"}},
		{"shorter path, /x at the edge", true, 3, []string{"/", "/dup", "/p", "/u1", "/u2", "/u3", "/x"}},
		{"long path only, /x at the edge", false, 4, []string{"/", "/dup", "/p", "/u1", "/u2", "/u3", "/x"}},
		{"long path only, /x beyond", false, 3, []string{"/", "/dup", "/p", "/u1", "/u2", "/u3"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSite(t, depthSite(tc.short))
			opts := testOptions(s.URL + "/")
			opts.Delay, opts.Parallelism, opts.MaxDepth = -1, 1, tc.maxDepth
			c := crawl(t, t.TempDir(), opts)
			var fetched []string
			for u, r := range records(t, c) {
				if r.Status == pages.Fetched {
					fetched = append(fetched, strings.TrimPrefix(u, s.URL))
				}
			}
			slices.Sort(fetched)
			if !slices.Equal(fetched, tc.want) {
				t.Errorf("fetched %v, want %v", fetched, tc.want)
			}
		})
	}
}
