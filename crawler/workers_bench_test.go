package crawler

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler/frontier/redisfrontier"
	"github.com/doppel-search/doppel/internal/redistest"
)

// latencySite serves hosts h0.test … h(N-1).test (all on one loopback
// server, reached through a dialer that maps every host to it), each
// answering every request after a fixed latency: a root page linking to
// the host's other pages, and the rest. It logs the time of each page
// request by host.
type latencySite struct {
	latency time.Duration
	perHost int
	mu      sync.Mutex
	log     map[string][]time.Time // host → page request times
}

func (s *latencySite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	time.Sleep(s.latency)
	host := strings.Split(r.Host, ":")[0]
	switch {
	case r.URL.Path == "/robots.txt", r.URL.Path == "/sitemap.xml", strings.HasPrefix(r.URL.Path, "/doppel-probe-"):
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	s.log[host] = append(s.log[host], time.Now())
	s.mu.Unlock()
	var i int
	fmt.Sscanf(r.URL.Path, "/p%d", &i)
	var links []string
	if r.URL.Path == "/" {
		for j := 1; j < s.perHost; j++ {
			links = append(links, fmt.Sprintf("/p%d", j))
		}
	}
	writePage(w, fmt.Sprintf("%s page %d %s", host, i, strings.Repeat(host+" ", i%4+1)), links...)
}

// BenchmarkWorkers crawls a latency-bound site — DOPPEL_WORKERS_HOSTS
// hosts (default 1,000) of 3 pages, each response 50 ms late, on
// loopback — with 1, 2 and 4 workers (crawlers in this process sharing
// a frontier on a Redis Cluster of three masters), each with
// parallelism 2, so that one worker is bound by latency, not CPU. It
// reports pages/s and the speed-up over one worker, and fails if a host
// got two page requests closer than its delay (100 ms), whoever sent
// them, as the server logged them.
func BenchmarkWorkers(b *testing.B) {
	hosts := 1000
	if v, err := strconv.Atoi(os.Getenv("DOPPEL_WORKERS_HOSTS")); err == nil && v > 0 {
		hosts = v
	}
	const (
		perHost = 3
		latency = 50 * time.Millisecond
		delay   = 100 * time.Millisecond
	)
	rc := redistest.Start(b, 3, 0)
	rdb := rc.Client()
	var one float64
	for _, n := range []int{1, 2, 4} {
		b.Run(fmt.Sprint("workers=", n), func(b *testing.B) {
			var pagesPerS float64
			for run := 0; b.Loop(); run++ {
				site := &latencySite{latency: latency, perHost: perHost, log: map[string][]time.Time{}}
				srv := newSite(b, site)
				addr := srv.Listener.Addr().String()
				_, port, _ := net.SplitHostPort(addr)
				dial := (&net.Dialer{}).DialContext
				client := &http.Client{Transport: &http.Transport{
					DialContext:         func(ctx context.Context, network, _ string) (net.Conn, error) { return dial(ctx, network, addr) },
					MaxIdleConnsPerHost: 4,
				}}
				var seeds []string
				for h := range hosts {
					seeds = append(seeds, fmt.Sprintf("http://h%d.test:%s/", h, port))
				}
				prefix := fmt.Sprintf("bench%d-%d-%d", n, run, time.Now().UnixNano())
				var workers []*Crawler
				for w := range n {
					q, err := redisfrontier.New(rdb, redisfrontier.Options{Prefix: prefix, Holder: fmt.Sprint("w", w), Delay: delay})
					if err != nil {
						b.Fatal(err)
					}
					c, err := Open(b.TempDir(), Options{Seeds: seeds, Parallelism: 2, HostParallelism: 1, Delay: delay,
						NoSync: true, MaxPages: 10 * hosts * perHost, Client: client, Frontier: q})
					if err != nil {
						b.Fatal(err)
					}
					workers = append(workers, c)
				}
				start := time.Now()
				var wg sync.WaitGroup
				for _, c := range workers {
					wg.Go(func() {
						if err := c.Run(context.Background()); err != nil {
							b.Error(err)
						}
					})
				}
				wg.Wait()
				elapsed := time.Since(start)
				fetched := int64(0)
				for _, c := range workers {
					fetched += c.Stats().Fetched
					c.Close()
				}
				if fetched != int64(hosts*perHost) {
					b.Fatalf("%d workers fetched %d pages, want %d", n, fetched, hosts*perHost)
				}
				site.mu.Lock()
				for h, times := range site.log {
					slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
					for i := 1; i < len(times); i++ {
						if gap := times[i].Sub(times[i-1]); gap < delay-10*time.Millisecond {
							b.Errorf("%s: two page requests %v apart, its delay is %v", h, gap, delay)
						}
					}
				}
				site.mu.Unlock()
				pagesPerS = float64(fetched) / elapsed.Seconds()
			}
			b.ReportMetric(pagesPerS, "pages/s")
			if n == 1 {
				one = pagesPerS
			} else if one > 0 {
				b.ReportMetric(pagesPerS/one, "x-one-worker")
			}
		})
	}
}
