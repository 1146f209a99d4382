package crawler

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler/frontier/redisfrontier"
	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/internal/testrig/redistest"
)

// TestWorkersShareRedisFrontier: two crawlers, each with a directory of
// its own, crawl one site through one frontier on a Redis Cluster: every
// page is fetched once, by one of them, and the site's Crawl-delay holds
// across both (the pace each learns from robots.txt goes to the shared
// frontier).
func TestWorkersShareRedisFrontier(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Redis Cluster")
	}
	const delay = 60 * time.Millisecond
	const n = 30
	var (
		mu    sync.Mutex
		times []time.Time
		hits  = map[string]int{}
	)
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/robots.txt":
			fmt.Fprintf(w, "User-agent: *\nCrawl-delay: %.2f\n", delay.Seconds())
			return
		case strings.HasPrefix(r.URL.Path, "/doppel-probe-") || r.URL.Path == "/sitemap.xml":
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		times = append(times, time.Now())
		hits[r.URL.Path]++
		mu.Unlock()
		var i int
		fmt.Sscanf(r.URL.Path, "/p%d", &i)
		writePage(w, fmt.Sprintf("page number %d of the shared crawl, %s", i, strings.Repeat(fmt.Sprint(" word", i), i%5+1)), treeLinks(i, n)...)
	}))
	rc := redistest.Start(t, 3, 0)
	rdb := rc.Client()
	var wg sync.WaitGroup
	workers := make([]*Crawler, 2)
	for w := range workers {
		q, err := redisfrontier.New(rdb, redisfrontier.Options{Prefix: "workers", Holder: fmt.Sprint("worker", w), Lease: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		opts := testOptions(s.URL + "/p0")
		opts.Frontier = q
		// Each waits for the other's URLs to be marked done, which must
		// not wait for the committer's tick.
		opts.RefreshInterval = time.Hour
		c, err := Open(t.TempDir(), opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		workers[w] = c
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// The second starts once the first has queued links: a worker that
	// finds the frontier empty, with nothing in flight of its own, ends.
	for w, c := range workers {
		wg.Go(func() {
			if err := c.Run(ctx); err != nil {
				t.Error(err)
			}
		})
		if w == 0 {
			time.Sleep(3 * delay)
		}
	}
	wg.Wait()
	fetched := map[string]int{}
	for _, c := range workers {
		for u, r := range records(t, c) {
			if r.Status == pages.Fetched {
				fetched[u]++
			}
		}
	}
	if len(fetched) != n {
		t.Errorf("%d pages fetched by the two workers, want %d", len(fetched), n)
	}
	for u, k := range fetched {
		if k != 1 {
			t.Errorf("%s recorded by %d workers", u, k)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for p, k := range hits {
		if k != 1 {
			t.Errorf("%s requested %d times", p, k)
		}
	}
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	for i := 1; i < len(times); i++ {
		if gap := times[i].Sub(times[i-1]); gap < delay-15*time.Millisecond {
			t.Errorf("request %d came %v after the one before, under Crawl-delay %v", i, gap, delay)
		}
	}
	st := [2]Stats{workers[0].Stats(), workers[1].Stats()}
	if st[0].Fetched == 0 || st[1].Fetched == 0 {
		t.Errorf("fetched %d and %d: both workers should have fetched", st[0].Fetched, st[1].Fetched)
	}
}

// TestRunEndsWhenDone: a crawl on the embedded frontier ends once its
// pages are committed, without waiting for the committer's next tick to
// mark the last of them done.
func TestRunEndsWhenDone(t *testing.T) {
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		writePage(w, "the only page of this site, about nothing much")
	}))
	opts := testOptions(s.URL + "/")
	opts.RefreshInterval = time.Hour
	c, err := Open(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Run(ctx); err != nil {
		t.Fatalf("Run: %v (it should end when its one page is committed)", err)
	}
}

// TestWorkersPoliteAtTheServer: two workers crawl one host through a
// shared frontier, starting together from four seeds on it, and its
// robots.txt answers slowly (longer than the delay). As the server sees
// them, no two requests to the host — pages, robots.txt, the soft-404
// probe, the sitemap — come closer than the delay, whoever sends them
// (each goes the delay after the one before was answered);
// robots.txt, the probe and the sitemap are asked for once among the
// workers, every page once, the page robots.txt disallows never, and the
// page only the sitemap lists is fetched.
func TestWorkersPoliteAtTheServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Redis Cluster")
	}
	const (
		delay = 80 * time.Millisecond
		n     = 16
	)
	var (
		mu       sync.Mutex
		arrivals []time.Time
		hits     = map[string]int{}
	)
	var s *site
	s = newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		arrivals = append(arrivals, time.Now())
		key := r.URL.Path
		if strings.HasPrefix(key, "/doppel-probe-") {
			key = "probe"
		}
		hits[key]++
		mu.Unlock()
		switch {
		case r.URL.Path == "/robots.txt":
			time.Sleep(2 * delay)
			fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
			return
		case r.URL.Path == "/sitemap.xml":
			fmt.Fprintf(w, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>%s/hidden</loc></url></urlset>`, s.URL)
			return
		case key == "probe":
			http.NotFound(w, r)
			return
		}
		var i int
		fmt.Sscanf(r.URL.Path, "/p%d", &i)
		links := append([]string{"/private/secret"}, treeLinks(i, n)...)
		writePage(w, fmt.Sprintf("page number %d of the polite crawl, %s", i, strings.Repeat(fmt.Sprint(" word", i), i%5+1)), links...)
	}))
	rc := redistest.Start(t, 3, 0)
	rdb := rc.Client()
	workers := make([]*Crawler, 2)
	for w := range workers {
		q, err := redisfrontier.New(rdb, redisfrontier.Options{Prefix: "atserver", Holder: fmt.Sprint("worker", w), Delay: delay})
		if err != nil {
			t.Fatal(err)
		}
		opts := testOptions(s.URL + "/p0")
		opts.Seeds = append(opts.Seeds, s.URL+"/p1", s.URL+"/p2", s.URL+"/p3")
		opts.Delay, opts.HostParallelism, opts.Frontier = delay, 1, q
		c, err := Open(t.TempDir(), opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		workers[w] = c
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	for _, c := range workers {
		wg.Go(func() {
			if err := c.Run(ctx); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	for _, p := range []string{"/robots.txt", "probe", "/sitemap.xml", "/hidden"} {
		if hits[p] != 1 {
			t.Errorf("%s asked for %d times, want once", p, hits[p])
		}
	}
	for i := range n {
		if p := fmt.Sprintf("/p%d", i); hits[p] != 1 {
			t.Errorf("%s asked for %d times, want once", p, hits[p])
		}
	}
	if hits["/private/secret"] != 0 {
		t.Error("the page robots.txt disallows was fetched")
	}
	slices.SortFunc(arrivals, func(a, b time.Time) int { return a.Compare(b) })
	for i := 1; i < len(arrivals); i++ {
		if gap := arrivals[i].Sub(arrivals[i-1]); gap < delay {
			t.Errorf("request %d came %v after the one before, under a delay of %v", i, gap, delay)
		}
	}
}

// treeLinks returns the links of page /p<i> of a site of n pages in a
// binary tree: /p<2i+1> and /p<2i+2>, those below n.
func treeLinks(i, n int) []string {
	var links []string
	for _, j := range []int{2*i + 1, 2*i + 2} {
		if j < n {
			links = append(links, fmt.Sprintf("/p%d", j))
		}
	}
	return links
}
