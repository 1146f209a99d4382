package crawler

import (
	"context"
	"errors"
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

// TestWorkerFindingTheWorkDone: a worker that joins a shared frontier
// after another fetched every page fetches nothing and ends without an
// error (before, it ended with ErrNothingFetched, which failed
// TestWorkersSpacedFromTheSend whenever one worker took all its pages);
// a worker alone on a shared frontier whose one seed is missing still
// fails (ErrNoSeed); a worker whose page budget is spent ends, pages
// pending.
func TestWorkerFindingTheWorkDone(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Redis Cluster")
	}
	const n = 6
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/p") {
			http.NotFound(w, r)
			return
		}
		var i int
		fmt.Sscanf(r.URL.Path, "/p%d", &i)
		writePage(w, fmt.Sprintf("page number %d of the finished crawl, %s", i, strings.Repeat(fmt.Sprint(" word", i), i%5+1)), treeLinks(i, n)...)
	}))
	rdb := redistest.Start(t, 3, 0).Client()
	run := func(prefix, holder string, maxPages int, seeds ...string) (*Crawler, error) {
		q, err := redisfrontier.New(rdb, redisfrontier.Options{Prefix: prefix, Holder: holder})
		if err != nil {
			t.Fatal(err)
		}
		opts := testOptions(seeds[0])
		opts.Seeds, opts.Frontier = seeds, q
		if maxPages > 0 {
			opts.MaxPages = maxPages
		}
		c, err := Open(t.TempDir(), opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		return c, c.Run(ctx)
	}
	first, err := run("done", "first", 0, s.URL+"/p0")
	if err != nil {
		t.Fatalf("the first worker: %v", err)
	}
	if got := first.Stats().Fetched; got != n {
		t.Fatalf("the first worker fetched %d pages, want %d", got, n)
	}
	late, err := run("done", "late", 0, s.URL+"/p0")
	if err != nil {
		t.Errorf("the late worker, with every page done: %v, want no error", err)
	}
	if got := late.Stats().Fetched; got != 0 {
		t.Errorf("the late worker fetched %d pages, want none", got)
	}
	_, err = run("empty", "alone", 0, s.URL+"/gone")
	if !errors.Is(err, ErrNoSeed) {
		t.Errorf("a worker alone whose one seed is missing (404): %v, want ErrNoSeed", err)
	}
	small, err := run("budget", "small", 2, s.URL+"/p0")
	if err != nil {
		t.Errorf("a worker whose page budget is spent, pages pending: %v, want no error", err)
	}
	if got := small.Stats().Fetched; got != 2 {
		t.Errorf("a worker with a budget of 2 pages fetched %d", got)
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
// robots.txt answers slowly (longer than the delay). No two requests to
// the host — pages, robots.txt, the soft-404 probe, the sitemap — are
// sent closer than the delay, whoever sends them (each goes once the one
// before was answered and the delay after it was sent), measured where
// they leave the workers, as TestCrawlDelay measures one machine's: a
// server's clock sees them later by however long the machine took to
// schedule its handler. The server counts them: robots.txt, the probe
// and the sitemap are asked for once among the workers, every page once,
// the page robots.txt disallows never, and the page only the sitemap
// lists is fetched.
func TestWorkersPoliteAtTheServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Redis Cluster")
	}
	const (
		delay = 80 * time.Millisecond
		n     = 16
	)
	var (
		mu   sync.Mutex
		hits = map[string]int{}
	)
	var s *site
	s = newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
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
	sent := crawlTwoWorkers(t, delay, s.URL+"/p0", s.URL+"/p1", s.URL+"/p2", s.URL+"/p3")
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
	sends := sent.times()
	if len(sends) < n+4 {
		t.Errorf("%d requests sent, want at least %d", len(sends), n+4)
	}
	for i := 1; i < len(sends); i++ {
		if gap := sends[i].at.Sub(sends[i-1].at); gap < delay {
			t.Errorf("request %d (%s) sent %v after the one before, under a delay of %v", i, sends[i].path, gap, delay)
		}
	}
}

// crawlTwoWorkers crawls from seeds with two workers on one shared
// frontier (a Redis Cluster of three masters) whose hosts have the delay
// given, one request at a time a host, and returns every request they
// sent, noted where it left a worker.
func crawlTwoWorkers(t *testing.T, delay time.Duration, seeds ...string) *allSends {
	t.Helper()
	rdb := redistest.Start(t, 3, 0).Client()
	sent := &allSends{base: http.DefaultTransport}
	workers := make([]*Crawler, 2)
	for w := range workers {
		q, err := redisfrontier.New(rdb, redisfrontier.Options{Prefix: t.Name(), Holder: fmt.Sprint("worker", w), Delay: delay})
		if err != nil {
			t.Fatal(err)
		}
		opts := testOptions(seeds[0])
		opts.Seeds = seeds
		opts.Delay, opts.HostParallelism, opts.Frontier = delay, 1, q
		opts.Client = &http.Client{Transport: sent}
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
	return sent
}

// allSends is a RoundTripper that notes when each request leaves a
// worker (the innermost transport, under the shared frontier's gate and
// the worker's pacer), and its path.
type allSends struct {
	base http.RoundTripper
	mu   sync.Mutex
	at   []sentRequest
}

type sentRequest struct {
	at   time.Time
	path string
}

func (s *allSends) RoundTrip(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	s.at = append(s.at, sentRequest{time.Now(), r.URL.Path})
	s.mu.Unlock()
	return s.base.RoundTrip(r)
}

// times returns the requests sent, in time order.
func (s *allSends) times() []sentRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Clone(s.at)
	slices.SortFunc(out, func(a, b sentRequest) int { return a.at.Compare(b.at) })
	return out
}

// TestWorkersSpacedFromTheSend: on a shared frontier the host's delay
// runs from when a request was sent, as one machine's pacer runs it, not
// from its answer: with pages that take two thirds of the delay to
// answer, two workers send most requests less than the delay plus that
// time after the one before (every one of them, were the delay counted
// from the answer: 4.26–4.37 requests/s instead of one machine's ~4.8 at
// 5 asked on the freshness bench), and none closer than the delay.
func TestWorkersSpacedFromTheSend(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Redis Cluster")
	}
	const (
		delay   = 300 * time.Millisecond
		latency = 200 * time.Millisecond
		n       = 8
	)
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/p") {
			http.NotFound(w, r) // robots.txt, the probe, the sitemap: at once
			return
		}
		time.Sleep(latency)
		var i int
		fmt.Sscanf(r.URL.Path, "/p%d", &i)
		writePage(w, fmt.Sprintf("page number %d of the slow site, %s", i, strings.Repeat(fmt.Sprint(" word", i), i%5+1)), treeLinks(i, n)...)
	}))
	sent := crawlTwoWorkers(t, delay, s.URL+"/p0")
	var pages []time.Time
	sends := sent.times()
	for i, r := range sends {
		if i > 0 {
			if gap := r.at.Sub(sends[i-1].at); gap < delay {
				t.Errorf("request %d (%s) sent %v after the one before, under a delay of %v", i, r.path, gap, delay)
			}
		}
		if strings.HasPrefix(r.path, "/p") {
			pages = append(pages, r.at)
		}
	}
	if len(pages) != n {
		t.Fatalf("%d page requests sent, want %d", len(pages), n)
	}
	soon := 0 // a page request sent before the one before was answered and its delay passed
	for i := 1; i < len(pages); i++ {
		if pages[i].Sub(pages[i-1]) < delay+latency {
			soon++
		}
	}
	if soon < (n-1)/2 {
		t.Errorf("%d of %d page requests were sent within the delay and the answer's %v after the one before, want at least half: the delay runs from the answer", soon, n-1, latency)
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
