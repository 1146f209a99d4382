package crawler

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"
)

// feedSite serves a home page that links an RSS feed in its head, pages
// whose text the test changes, and the feed, whose items the test sets.
type feedSite struct {
	mu    sync.Mutex
	pages map[string]string    // path → text
	items map[string]time.Time // path → the item's pubDate
	log   map[string]int       // path → requests
}

func (f *feedSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log[r.URL.Path]++
	switch r.URL.Path {
	case "/feed.xml":
		w.Header().Set("Content-Type", "application/rss+xml")
		fmt.Fprint(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>News</title>`)
		for p, at := range f.items {
			fmt.Fprintf(w, "<item><title>%s</title><link>%s</link><pubDate>%s</pubDate></item>", p, p, at.UTC().Format(time.RFC1123Z))
		}
		fmt.Fprint(w, "</channel></rss>")
		return
	case "/":
		fmt.Fprint(w, `<html><head><title>Home</title><link rel="alternate" type="application/rss+xml" href="/feed.xml"></head>`+
			`<body><main><p>Welcome to the intranet news.</p><a href="/a">a</a> <a href="/b">b</a></main></body></html>`)
		return
	}
	text, ok := f.pages[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	fmt.Fprintf(w, "<html><head><title>%s</title></head><body><main><p>%s</p></main></body></html>", r.URL.Path, text)
}

func (f *feedSite) requests(path string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.log[path]
}

// TestFeeds: the RSS feed a page links is read with the sitemaps; an item
// dated after the crawl's copy makes its page fetched again at once
// (though its schedule would wait an hour), an item for a page not yet
// known queues it, and a page that left the feed is not fetched again
// (a feed lists recent items only).
func TestFeeds(t *testing.T) {
	site := &feedSite{pages: map[string]string{"/a": payroll, "/b": canteen, "/c": visitors},
		items: map[string]time.Time{"/b": time.Now().Add(-time.Hour)}, log: map[string]int{}}
	s := newSite(t, site)
	for p, at := range site.items {
		delete(site.items, p)
		site.items[s.URL+p] = at
	}
	opts := testOptions(s.URL + "/")
	opts.RefreshInterval = 50 * time.Millisecond
	opts.Revisit = RevisitOptions{MinInterval: time.Hour, MaxInterval: 2 * time.Hour, Sitemaps: 300 * time.Millisecond}
	c, err := Open(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- c.Watch(ctx) }()
	defer func() {
		cancel()
		if err := <-errc; err != nil && err != context.Canceled {
			t.Error(err)
		}
	}()
	waitFor := func(what string, done func() bool) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); !done(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within 20 s (stats %+v)", what, c.Stats())
			}
		}
	}
	waitFor("the first crawl and a reading of the feed", func() bool {
		return c.Stats().Scheduled >= 3 && site.requests("/feed.xml") >= 1
	})
	time.Sleep(1100 * time.Millisecond) // the feed's dates are to the second: one after the first copy
	site.mu.Lock()
	site.pages["/a"] = "Salaries are now paid on the last working day of the month."
	site.items = map[string]time.Time{s.URL + "/a": time.Now(), s.URL + "/c": time.Now()}
	site.mu.Unlock()
	waitFor("the feed's pages fetched", func() bool { return site.requests("/a") >= 2 && site.requests("/c") >= 1 })
	if c.Stats().SitemapHints == 0 {
		t.Error("no hint counted")
	}
	feedReads := site.requests("/feed.xml")
	waitFor("two more readings of the feed", func() bool { return site.requests("/feed.xml") >= feedReads+2 })
	if n := site.requests("/b"); n != 1 {
		t.Errorf("/b, which left the feed, was requested %d times; want once", n)
	}
	if n := site.requests("/a"); n != 2 {
		t.Errorf("/a was requested %d times; want twice (its item's date is not newer than the second copy)", n)
	}
}
