package sharedcrawl_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler"
	"github.com/doppel-search/doppel/crawler/sharedcrawl"
	"github.com/doppel-search/doppel/internal/testrig/redistest"
	"github.com/redis/go-redis/v9"
)

// site is a small intranet with what a crawl records: distinct pages in
// a tree, a printer-friendly copy of every third one, links refused by
// robots.txt and pages that answer 404.
func site(pages int, latency time.Duration) http.Handler {
	words := strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango")
	text := func(i int) string {
		var b strings.Builder
		for j := range 60 {
			b.WriteString(words[(i*7+j*j+j*i)%len(words)])
			fmt.Fprintf(&b, "%d ", (i*31+j)%97)
		}
		return b.String()
	}
	write := func(w http.ResponseWriter, title, banner, body string, links ...string) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><head><title>%s</title></head><body><main><h1>%s</h1>%s<p>%s</p>", title, title, banner, body)
		for _, l := range links {
			fmt.Fprintf(w, `<a href="%s">%s</a> `, l, l)
		}
		fmt.Fprint(w, "</main></body></html>")
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(latency)
		var i int
		switch {
		case r.URL.Path == "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
		case strings.HasPrefix(r.URL.Path, "/print/p"):
			fmt.Sscanf(r.URL.Path, "/print/p%d", &i)
			write(w, fmt.Sprintf("Page %d", i), "<p>Printed from the intranet</p>", text(i))
		case strings.HasPrefix(r.URL.Path, "/p"):
			if _, err := fmt.Sscanf(r.URL.Path, "/p%d", &i); err != nil || i >= pages {
				http.NotFound(w, r)
				return
			}
			var links []string
			for _, j := range []int{2*i + 1, 2*i + 2} {
				if j < pages {
					links = append(links, fmt.Sprintf("/p%d", j))
				}
			}
			if i%3 == 0 {
				links = append(links, fmt.Sprintf("/print/p%d", i))
			}
			if i%5 == 0 {
				links = append(links, fmt.Sprintf("/private/p%d", i), fmt.Sprintf("/p%d", pages+i))
			}
			write(w, fmt.Sprintf("Page %d", i), "", text(i), links...)
		default:
			http.NotFound(w, r)
		}
	})
}

// An outcome is what a crawl ends with, comparable between crawls:
// each URL's status and reason, each fetched page's cluster (as its
// members, sorted) and master, and whether the index holds it.
type outcome struct {
	status  map[string]string
	members map[string]string // URL → its cluster's members, joined
	master  map[string]string
	indexed map[string]bool
	fetched int
}

func read(t *testing.T, v *crawler.View) outcome {
	t.Helper()
	o := outcome{status: map[string]string{}, members: map[string]string{}, master: map[string]string{}, indexed: map[string]bool{}}
	clusters := map[string][]string{}
	err := v.Entries(func(e crawler.Entry) error {
		o.status[e.URL] = e.Status + " " + e.Reason
		if e.Status == "fetched" {
			o.fetched++
			clusters[e.Cluster] = append(clusters[e.Cluster], e.URL)
			o.master[e.URL] = e.Master
			o.indexed[e.URL] = e.Indexed
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, ms := range clusters {
		slices.Sort(ms)
		for _, u := range ms {
			o.members[u] = strings.Join(ms, " ")
		}
	}
	return o
}

func options(seed string) crawler.Options {
	return crawler.Options{Seeds: []string{seed}, Delay: time.Millisecond, Parallelism: 2, NoSync: true,
		RetryBackoff: 5 * time.Millisecond, MaxRetries: 1}
}

// compare reports every difference between a shared crawl's outcome and
// one machine's.
func compare(t *testing.T, got, want outcome) {
	t.Helper()
	if got.fetched != want.fetched {
		t.Errorf("%d pages fetched, one machine %d", got.fetched, want.fetched)
	}
	for _, m := range []struct {
		name      string
		got, want map[string]string
	}{{"status", got.status, want.status}, {"cluster", got.members, want.members}, {"master", got.master, want.master}} {
		for _, u := range slices.Sorted(maps.Keys(m.want)) {
			if m.got[u] != m.want[u] {
				t.Errorf("%s of %s: %q, one machine %q", m.name, u, m.got[u], m.want[u])
			}
		}
		for u := range m.got {
			if _, ok := m.want[u]; !ok {
				t.Errorf("%s of %s: %q, one machine has none", m.name, u, m.got[u])
			}
		}
	}
	if !maps.Equal(got.indexed, want.indexed) {
		t.Errorf("indexed: %v, one machine %v", got.indexed, want.indexed)
	}
}

// oneMachine crawls the site on one machine.
func oneMachine(t *testing.T, url string) outcome {
	t.Helper()
	c, err := crawler.Open(t.TempDir(), options(url))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.Run(ctx); err != nil {
		t.Fatal(err)
	}
	return read(t, c.View())
}

// TestWorkers: two workers crawl the site through a Redis Cluster while a
// follower keeps the records and the index; the follower's crawl is the
// one-machine crawl's: every URL's status and reason, the clusters, the
// masters and what the index holds.
func TestWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Redis Cluster")
	}
	s := httptest.NewServer(site(60, 5*time.Millisecond))
	defer s.Close()
	want := oneMachine(t, s.URL+"/p0")
	if want.fetched < 60 {
		t.Fatalf("one machine fetched %d pages", want.fetched)
	}

	rc := redistest.Start(t, 3, 0)
	rdb := rc.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	var workers []*crawler.Crawler
	for w := range 2 {
		sc, err := sharedcrawl.Open(ctx, rdb, sharedcrawl.Options{Name: "t1", Worker: fmt.Sprint("w", w), Lease: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer sc.Close()
		c, err := crawler.Open(t.TempDir(), sc.Options(options(s.URL+"/p0")))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		workers = append(workers, c)
		wg.Go(func() {
			if err := c.Run(ctx); err != nil {
				t.Error(err)
			}
		})
		if w == 0 {
			time.Sleep(200 * time.Millisecond) // links queued: a worker facing an empty frontier ends
		}
	}
	got := follow(t, ctx, rdb, "t1", s.URL+"/p0", wg.Wait)
	compare(t, got, want)
	for w, c := range workers {
		if c.Stats().Fetched == 0 {
			t.Errorf("worker %d fetched nothing", w)
		}
	}
}

// follow runs a follower of the crawl name until the workers are done
// (wait returns) and it has applied every settled number, and returns
// its outcome.
func follow(t *testing.T, ctx context.Context, rdb redis.UniversalClient, name, seed string, wait func()) outcome {
	t.Helper()
	sc, err := sharedcrawl.OpenFollower(ctx, rdb, sharedcrawl.Options{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	f, err := crawler.OpenFollower(t.TempDir(), sc.FollowerOptions(options(seed)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- f.Follow(fctx, sc.Reader(f.Position()), sc.Log.Trim) }()
	wait()
	settled, err := sc.Settled(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for f.Stats().Position < settled && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	if err := <-done; err != context.Canceled {
		t.Fatalf("Follow: %v", err)
	}
	if f.Position() != settled {
		t.Errorf("position %d after Follow, want %d", f.Position(), settled)
	}
	t.Logf("follower: %+v", f.Stats())
	return read(t, f.View())
}

// The child worker of TestKilled, a process of its own: it crawls the
// site named in its environment as one worker of the crawl.
const (
	envAddrs = "DOPPEL_SHAREDCRAWL_ADDRS"
	envSeed  = "DOPPEL_SHAREDCRAWL_SEED"
	envDir   = "DOPPEL_SHAREDCRAWL_DIR"
)

// workerOptions are the shared options of TestKilled's workers.
func workerOptions(name string) sharedcrawl.Options {
	return sharedcrawl.Options{Name: name, Lease: 2 * time.Second, Replicas: 1}
}

func TestKilledWorkerProcess(t *testing.T) {
	addrs := os.Getenv(envAddrs)
	if addrs == "" {
		t.Skip("the child of TestKilled")
	}
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: strings.Split(addrs, ","), ClusterSlots: nil})
	ctx := context.Background()
	opts := workerOptions("killed")
	opts.Worker = "child"
	sc, err := sharedcrawl.Open(ctx, rdb, opts)
	if err != nil {
		t.Fatal(err)
	}
	c, err := crawler.Open(os.Getenv(envDir), sc.Options(options(os.Getenv(envSeed))))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Run(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestKilled: on 3 masters with a replica each, a worker (a process of its
// own) is killed mid-crawl, then a master; the other worker and the
// follower go on, and the follower's crawl is the one-machine crawl's,
// nothing lost or doubled: every URL's status and reason, the clusters,
// the masters and what the index holds.
func TestKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Redis Cluster and a child process")
	}
	const n = 150
	hits := map[string]int{}
	var mu sync.Mutex
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Path]++
		mu.Unlock()
		site(n, 20*time.Millisecond).ServeHTTP(w, r)
	}))
	defer s.Close()
	want := oneMachine(t, s.URL+"/p0")
	mu.Lock()
	clear(hits)
	mu.Unlock()

	rc := redistest.Start(t, 3, 1)
	rdb := rc.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	child := exec.Command(os.Args[0], "-test.run=^TestKilledWorkerProcess$")
	child.Env = append(os.Environ(), envAddrs+"="+strings.Join(rc.Addrs(), ","), envSeed+"="+s.URL+"/p0", envDir+"="+t.TempDir())
	child.Stdout, child.Stderr = os.Stdout, os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { child.Wait(); close(exited) }()
	defer func() { child.Process.Kill(); <-exited }()

	opts := workerOptions("killed")
	opts.Worker = "parent"
	sc, err := sharedcrawl.Open(ctx, rdb, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	// The child first: the parent starts once it has queued links.
	for fetched(&mu, hits) < 5 && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	if ctx.Err() != nil {
		t.Fatalf("the child worker fetched %d pages before the test's deadline", fetched(&mu, hits))
	}
	c, err := crawler.Open(t.TempDir(), sc.Options(options(s.URL+"/p0")))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := c.Run(ctx); err != nil {
			t.Error(err)
		}
	})
	got := follow(t, ctx, rdb, "killed", s.URL+"/p0", func() {
		for fetched(&mu, hits) < n/3 && ctx.Err() == nil {
			time.Sleep(10 * time.Millisecond)
		}
		child.Process.Kill()
		<-exited
		t.Logf("worker killed after %d pages", fetched(&mu, hits))
		for fetched(&mu, hits) < 2*n/3 && ctx.Err() == nil {
			time.Sleep(10 * time.Millisecond)
		}
		rc.KillMaster(rc.Masters()[0])
		t.Logf("master killed after %d pages", fetched(&mu, hits))
		wg.Wait()
	})
	compare(t, got, want)
	if c.Stats().Fetched == 0 {
		t.Error("the parent fetched nothing")
	}
}

// fetched returns the pages of the site requested so far.
func fetched(mu *sync.Mutex, hits map[string]int) int {
	mu.Lock()
	defer mu.Unlock()
	k := 0
	for p := range hits {
		if strings.HasPrefix(p, "/p") {
			k++
		}
	}
	return k
}

// TestRestartedWorker: a worker stopped mid-crawl and opened again on its
// directory goes on with the crawl (its records replayed without the
// detector, whose state is on the cluster), and the follower's crawl is
// still the one-machine crawl's.
func TestRestartedWorker(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Redis Cluster")
	}
	s := httptest.NewServer(site(60, 10*time.Millisecond))
	defer s.Close()
	want := oneMachine(t, s.URL+"/p0")
	rc := redistest.Start(t, 3, 0)
	rdb := rc.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	run := func(stopAfter int64) int64 {
		sc, err := sharedcrawl.Open(ctx, rdb, sharedcrawl.Options{Name: "restart", Worker: "w", Lease: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer sc.Close()
		c, err := crawler.Open(dir, sc.Options(options(s.URL+"/p0")))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		rctx, stop := context.WithCancel(ctx)
		defer stop()
		if stopAfter > 0 {
			go func() {
				for c.Stats().Fetched < stopAfter && rctx.Err() == nil {
					time.Sleep(5 * time.Millisecond)
				}
				stop()
			}()
		}
		if err := c.Run(rctx); err != nil && (stopAfter == 0 || !errors.Is(err, context.Canceled)) {
			t.Fatal(err)
		}
		return c.Stats().Fetched
	}
	got := follow(t, ctx, rdb, "restart", s.URL+"/p0", func() {
		first := run(20)
		if first >= int64(want.fetched) {
			t.Fatalf("the first run fetched %d pages: not stopped mid-crawl", first)
		}
		if all := run(0); all != int64(want.fetched) {
			t.Errorf("the worker's records count %d pages after its restart, want %d", all, want.fetched)
		}
	})
	compare(t, got, want)
}

// TestRevisits: on a shared crawl the follower schedules every page's
// revisit in the workers' frontier; two workers kept watching fetch them
// (conditionally, with the copy's validators, whichever worker fetched
// the page first) and hand what they found to the follower, which keeps
// an unchanged page, takes a changed one's new version into its records
// and index, and takes a page gone out of the index.
func TestRevisits(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Redis Cluster")
	}
	var (
		mu      sync.Mutex
		changed bool
		ifNone  = map[string]int{} // conditional requests by path
	)
	base := site(20, 2*time.Millisecond)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		ch := changed
		if r.Header.Get("If-None-Match") != "" {
			ifNone[r.URL.Path]++
		}
		mu.Unlock()
		switch {
		case ch && r.URL.Path == "/p5":
			http.NotFound(w, r)
			return
		case ch && r.URL.Path == "/p3":
			fmt.Fprint(w, "<html><head><title>Page 3</title></head><body><main><h1>Page 3</h1><p>Rewritten: the zeppelin timetable for the autumn, with every stop and the quarterly maintenance windows listed in full.</p></main></body></html>")
			return
		}
		w.Header().Set("ETag", `"`+r.URL.Path+`"`)
		if r.Header.Get("If-None-Match") == `"`+r.URL.Path+`"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		base.ServeHTTP(w, r)
	}))
	defer s.Close()
	opts := options(s.URL + "/p0")
	opts.Revisit = crawler.RevisitOptions{MinInterval: 300 * time.Millisecond, MaxInterval: 600 * time.Millisecond,
		Prior: 400 * time.Millisecond, CopyFactor: 1, Sitemaps: -1}
	opts.RefreshInterval = 200 * time.Millisecond // the follower schedules at each flush
	rc := redistest.Start(t, 3, 0)
	rdb := rc.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute) // generous: a busy machine (the deadlines below end the test)
	defer cancel()
	wctx, stopWorkers := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for w := range 2 {
		sc, err := sharedcrawl.Open(ctx, rdb, sharedcrawl.Options{Name: "revisits", Worker: fmt.Sprint("w", w), Lease: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer sc.Close()
		c, err := crawler.Open(t.TempDir(), sc.Options(opts))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		wg.Go(func() {
			if err := c.Watch(wctx); err != nil && !errors.Is(err, context.Canceled) {
				t.Error(err)
			}
		})
	}
	fsc, err := sharedcrawl.OpenFollower(ctx, rdb, sharedcrawl.Options{Name: "revisits"})
	if err != nil {
		t.Fatal(err)
	}
	f, err := crawler.OpenFollower(t.TempDir(), fsc.FollowerOptions(opts))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fctx, stopFollowing := context.WithCancel(ctx)
	followed := make(chan error, 1)
	go func() { followed <- f.Follow(fctx, fsc.Reader(f.Position()), fsc.Log.Trim) }()

	status := func(u string) (e crawler.Entry) {
		f.View().Entries(func(x crawler.Entry) error {
			if x.URL == u {
				e = x
			}
			return nil
		})
		return e
	}
	// The crawl, then the site changes, then the revisits see it.
	for deadline := time.Now().Add(time.Minute); f.Stats().Pages < 27; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the follower has %d pages", f.Stats().Pages)
		}
	}
	mu.Lock()
	changed = true
	mu.Unlock()
	p3, p5 := s.URL+"/p3", s.URL+"/p5"
	text := func(u string) string { t, _ := f.View().Text(u); return t }
	// Three minutes: under the whole test suite beside other work (load 45)
	// one run saw the gone page within a minute but not yet the changed one.
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if status(p5).Status == "gone" && strings.Contains(text(p3), "zeppelin") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the change: %s %+v, %s text %q", p5, status(p5), p3, text(p3))
		}
	}
	stopWorkers()
	wg.Wait()
	stopFollowing()
	<-followed
	if e := status(p3); e.Status != "fetched" || !e.Indexed {
		t.Errorf("%s after its change: %+v, want fetched and indexed", p3, e)
	}
	if e := status(p5); e.Indexed {
		t.Errorf("%s gone but still indexed: %+v", p5, e)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(ifNone) == 0 {
		t.Error("no revisit was a conditional request")
	}
}
