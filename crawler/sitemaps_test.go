package crawler

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler/pages"
)

// TestSitemaps: the sitemaps robots.txt names (an index, and the sitemap
// it names) make the crawl find a page no page links to; later, a
// sitemap lastmod newer than the copy makes the page fetched again at
// once, long before its schedule would; and a page taken off the sitemap
// is fetched again at once, which finds it deleted.
func TestSitemaps(t *testing.T) {
	var mu sync.Mutex
	hidden := "The archive of board minutes is kept here, one document for each meeting since the company was founded."
	lastmod := time.Now().Add(-24 * time.Hour)
	listed := true
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		base := "http://" + r.Host
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprintf(w, "User-agent: *\nAllow: /\nSitemap: %s/maps/index.xml\n", base)
		case "/maps/index.xml":
			fmt.Fprintf(w, `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>%s/maps/pages.xml</loc></sitemap></sitemapindex>`, base)
		case "/maps/pages.xml":
			if !listed {
				fmt.Fprintf(w, `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>%s/</loc></url></urlset>`, base)
				return
			}
			fmt.Fprintf(w, `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>%s/</loc></url><url><loc>%s/archive</loc><lastmod>%s</lastmod></url></urlset>`,
				base, base, lastmod.UTC().Format(time.RFC3339))
		case "/":
			writePage(w, "home")
		case "/archive":
			if !listed {
				http.Error(w, "gone", http.StatusGone)
				return
			}
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "<html><head><title>Archive</title></head><body><main><p>%s</p></main></body></html>", hidden)
		default:
			http.NotFound(w, r)
		}
	}))
	opts := recrawlOptions(s.URL + "/")
	opts.Revisit.MinInterval, opts.Revisit.MaxInterval, opts.Revisit.Prior = time.Hour, 2*time.Hour, time.Hour
	opts.Revisit.Sitemaps = 100 * time.Millisecond
	c := crawl(t, t.TempDir(), opts)
	if r := records(t, c)[s.URL+"/archive"]; r.Status != pages.Fetched {
		t.Fatalf("the page only the sitemap names was not crawled: %+v", r)
	}
	if got := hits(t, c, "minutes"); len(got) != 1 {
		t.Fatalf("the archive is not searchable: %v", got)
	}

	mu.Lock()
	hidden = "The archive moved to the records office; ask the librarian for access to documents older than ten years."
	lastmod = time.Now().Add(time.Second)
	mu.Unlock()
	watchUntil(t, c, func() bool { return c.Stats().Changed >= 1 })
	if st := c.Stats(); st.SitemapHints < 1 {
		t.Errorf("stats %+v: want a sitemap hint", st)
	}
	if got := hits(t, c, "librarian"); len(got) != 1 {
		t.Errorf("the archive's new text finds %v", got)
	}

	mu.Lock()
	listed = false
	mu.Unlock()
	watchUntil(t, c, func() bool { return c.Stats().Gone >= 1 })
	if got := hits(t, c, "librarian"); len(got) != 0 {
		t.Errorf("the deleted archive is still found: %v", got)
	}
}

// TestSitemapChangeFreq: a sitemap's changefreq goes into the schedule
// state of its page at its fetch (a weak prior on its rate, see
// schedule.Prior); a page without one keeps none.
func TestSitemapChangeFreq(t *testing.T) {
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		base := "http://" + r.Host
		switch r.URL.Path {
		case "/sitemap.xml":
			fmt.Fprintf(w, `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`+
				`<url><loc>%[1]s/</loc></url>`+
				`<url><loc>%[1]s/news</loc><changefreq>hourly</changefreq></url>`+
				`<url><loc>%[1]s/about</loc><changefreq>yearly</changefreq></url></urlset>`, base)
		case "/":
			writePage(w, "home")
		case "/news":
			writePage(w, "news")
		case "/about":
			writePage(w, "about")
		default:
			http.NotFound(w, r)
		}
	}))
	opts := recrawlOptions(s.URL + "/")
	opts.Revisit.Sitemaps = time.Hour
	c := crawl(t, t.TempDir(), opts)
	recs := records(t, c)
	for path, want := range map[string]time.Duration{"/": 0, "/news": time.Hour, "/about": 365 * 24 * time.Hour} {
		r := recs[s.URL+path]
		if r.Status != pages.Fetched {
			t.Errorf("%s not fetched: %+v", path, r)
			continue
		}
		if got := r.Schedule.ChangeFreq; got != want {
			t.Errorf("%s: schedule's changefreq %v, want %v", path, got, want)
		}
	}
}
