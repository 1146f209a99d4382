package crawler

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// countingTransport counts the requests it carries, per path, and the
// header it adds on the way (a proxy's or an SSO gateway's).
type countingTransport struct {
	mu   sync.Mutex
	hits map[string]int
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.hits[r.URL.Path]++
	c.mu.Unlock()
	r = r.Clone(r.Context())
	r.Header.Set("X-Through", "injected")
	return http.DefaultTransport.RoundTrip(r)
}

// TestInjectedClient: every request of a crawl — robots.txt, the
// sitemap, pages — goes through Options.Client's Transport, and the
// client is not saved in crawl.json.
func TestInjectedClient(t *testing.T) {
	var mu sync.Mutex
	without := 0 // requests that did not come through the transport
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Through") != "injected" {
			mu.Lock()
			without++
			mu.Unlock()
		}
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprintf(w, "User-agent: *\nAllow: /\nSitemap: http://%s/sitemap.xml\n", r.Host)
		case "/sitemap.xml":
			fmt.Fprintf(w, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://%s/listed</loc></url></urlset>`, r.Host)
		default:
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, `<html><head><title>%s</title></head><body><main><p>The page at %s, with words of its own about %s.</p><a href="/b">b</a></main></body></html>`,
				r.URL.Path, r.URL.Path, strings.Repeat(r.URL.Path, 3))
		}
	}))
	tr := &countingTransport{hits: map[string]int{}}
	dir := t.TempDir()
	opts := testOptions(s.URL + "/")
	opts.Client = &http.Client{Transport: tr}
	c := crawl(t, dir, opts)
	for _, p := range []string{"/robots.txt", "/sitemap.xml", "/", "/b", "/listed"} {
		if tr.hits[p] == 0 {
			t.Errorf("%s was not requested through the injected client (transport saw %v)", p, tr.hits)
		}
	}
	if without != 0 {
		t.Errorf("%d requests reached the site without the injected transport", without)
	}
	if st := c.Stats(); st.Fetched != 3 {
		t.Errorf("fetched %d pages, want 3 (/, /b, /listed)", st.Fetched)
	}
	saved, err := os.ReadFile(filepath.Join(dir, optionsFile))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.ToLower(string(saved)), "client") {
		t.Errorf("crawl.json mentions the client:\n%s", saved)
	}
}
