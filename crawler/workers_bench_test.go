package crawler

import (
	"context"
	"encoding/json"
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
	"github.com/doppel-search/doppel/crawler/pagelog"
	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/dedup/signatures/redissig"
	"github.com/doppel-search/doppel/internal/testrig/redistest"
	"github.com/redis/go-redis/v9"
)

// latencySite serves hosts h0.test … h(N-1).test (all on one loopback
// server, reached through a dialer that maps every host to it), each
// answering every request after a fixed latency: a root page linking to
// the host's other pages, the rest, and 404 for robots.txt, the sitemap
// and the soft-404 probe. It logs when each request arrived, by host and
// path.
type latencySite struct {
	latency time.Duration
	perHost int
	mu      sync.Mutex
	log     map[string][]arrival   // host → its requests
	sent    map[string][]time.Time // host → when its requests left the workers (sends)
}

// sends is the workers' innermost transport: it notes when each request
// leaves, by host, and sends it with base.
type sends struct {
	site *latencySite
	base http.RoundTripper
}

func (s sends) RoundTrip(r *http.Request) (*http.Response, error) {
	host := strings.Split(r.URL.Host, ":")[0]
	s.site.mu.Lock()
	s.site.sent[host] = append(s.site.sent[host], time.Now())
	s.site.mu.Unlock()
	return s.base.RoundTrip(r)
}

// An arrival is one request as the server saw it come in.
type arrival struct {
	at   time.Time
	path string
}

func (s *latencySite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	at := time.Now()
	host := strings.Split(r.Host, ":")[0]
	s.mu.Lock()
	s.log[host] = append(s.log[host], arrival{at, r.URL.Path})
	s.mu.Unlock()
	time.Sleep(s.latency)
	switch {
	case r.URL.Path == "/robots.txt", r.URL.Path == "/sitemap.xml", strings.HasPrefix(r.URL.Path, "/doppel-probe-"):
		http.NotFound(w, r)
		return
	}
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

// check returns the least time between two requests to one host as the
// workers sent them and the requests made to a host beyond its pages
// (robots.txt, probe, sitemap), per host; it fails b if a page was asked
// for twice or not at all.
func (s *latencySite) check(b *testing.B, hosts int) (minGap time.Duration, extra float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	minGap = time.Hour
	pages, others := 0, 0
	for _, at := range s.sent {
		slices.SortFunc(at, func(a, b time.Time) int { return a.Compare(b) })
		for i := 1; i < len(at); i++ {
			minGap = min(minGap, at[i].Sub(at[i-1]))
		}
	}
	for h, log := range s.log {
		seen := map[string]bool{}
		for _, a := range log {
			switch {
			case a.path == "/" || strings.HasPrefix(a.path, "/p"):
				if seen[a.path] {
					b.Errorf("%s%s asked for twice", h, a.path)
				}
				seen[a.path] = true
				pages++
			default:
				others++
			}
		}
	}
	if pages != hosts*s.perHost {
		b.Errorf("%d pages asked for, want %d", pages, hosts*s.perHost)
	}
	return minGap, float64(others) / float64(hosts)
}

// benchShare returns a worker's shared detector and page log of the crawl
// under prefix, with the detector's signatures and the log.
func benchShare(rdb redis.UniversalClient, prefix string) (Share, *redissig.Signatures, *pagelog.Log, error) {
	ctx := context.Background()
	dopts := dedup.Web()
	cfg := dopts.SharedConfig()
	sig, err := redissig.Open(ctx, rdb, cfg.Limits, redissig.Options{Prefix: prefix + ":sig", HammingK: cfg.HammingK})
	if err != nil {
		return nil, nil, nil, err
	}
	det, err := dedup.NewShared(nil, dopts, sig)
	if err != nil {
		return nil, nil, nil, err
	}
	plog, err := pagelog.Open(ctx, rdb, pagelog.Options{Prefix: prefix})
	if err != nil {
		return nil, nil, nil, err
	}
	return benchWorker{det, plog}, sig, plog, nil
}

// benchWorker hands a worker's commits on to the page log in JSON, as
// sharedcrawl's Worker does (which this package's tests cannot import).
type benchWorker struct {
	det *dedup.Detector
	log *pagelog.Log
}

func (w benchWorker) Detector() *dedup.Detector { return w.det }

func (w benchWorker) AtTurn(n uint32, rec pages.Record) error {
	return w.log.Append(context.Background(), n, mustJSON(Handed{Page: &rec}))
}

func (w benchWorker) HandOn(ctx context.Context, h Handed) error {
	return w.det.Aside(func(n uint32) error { return w.log.AppendNote(ctx, n, mustJSON(h)) })
}

// BenchmarkWorkers crawls a latency-bound site — DOPPEL_WORKERS_HOSTS
// hosts (default 1,000) of DOPPEL_WORKERS_PAGES pages (default 3), each
// response 50 ms late, on loopback — with 1, 2 and 4 workers (crawlers
// in this process, each with a directory of its own, sharing a frontier,
// the near-duplicate detector and the page log on a Redis Cluster of
// three masters, while a Follower records and indexes the crawl from the
// log), each with parallelism 2, so that
// one worker is bound by latency, not CPU. It reports pages/s, the
// speed-up over one worker, the least time between two requests to one
// host as the workers sent them (min-gap-ms: pages, robots.txt,
// probes and sitemaps alike) and the requests a host got beyond its pages
// (extra/host: robots.txt, the soft-404 probe and the sitemap, once
// among the workers), and how long after the workers ended the follower
// had applied every page (follower-lag-s). Each request to a host goes when none is in flight
// and the delay (100 ms) after the one before was sent, so the least gap
// is about the delay (the latency, 50 ms, is shorter); the server sees a
// request later by however long the machine took to schedule its
// handler. It fails if a page was fetched
// twice or not at all, if the follower did not record every page, or if
// two requests to a host came closer than its
// delay.
//
//	go test ./crawler -run XXX -bench Workers -benchtime 1x -timeout 0
func BenchmarkWorkers(b *testing.B) {
	hosts, perHost := envInt("DOPPEL_WORKERS_HOSTS", 1000), envInt("DOPPEL_WORKERS_PAGES", 3)
	const (
		latency = 50 * time.Millisecond
		delay   = 100 * time.Millisecond
	)
	rc := redistest.Start(b, 3, 0)
	rdb := rc.Client()
	var one float64
	for _, n := range []int{1, 2, 4} {
		b.Run(fmt.Sprint("workers=", n), func(b *testing.B) {
			var pagesPerS, gap, extra, lag float64
			for run := 0; b.Loop(); run++ {
				site := &latencySite{latency: latency, perHost: perHost, log: map[string][]arrival{}, sent: map[string][]time.Time{}}
				srv := newSite(b, site)
				addr := srv.Listener.Addr().String()
				_, port, _ := net.SplitHostPort(addr)
				dial := (&net.Dialer{}).DialContext
				client := &http.Client{Transport: sends{site, &http.Transport{
					DialContext:         func(ctx context.Context, network, _ string) (net.Conn, error) { return dial(ctx, network, addr) },
					MaxIdleConnsPerHost: 4,
				}}}
				var seeds []string
				for h := range hosts {
					seeds = append(seeds, fmt.Sprintf("http://h%d.test:%s/", h, port))
				}
				prefix := fmt.Sprintf("bench%d-%d-%d", n, run, time.Now().UnixNano())
				var workers []*Crawler
				var sig *redissig.Signatures
				var plog *pagelog.Log
				for w := range n {
					q, err := redisfrontier.New(rdb, redisfrontier.Options{Prefix: prefix, Holder: fmt.Sprint("w", w), Delay: delay})
					if err != nil {
						b.Fatal(err)
					}
					var share Share
					if share, sig, plog, err = benchShare(rdb, prefix); err != nil {
						b.Fatal(err)
					}
					c, err := Open(b.TempDir(), Options{Seeds: seeds, Parallelism: 2, HostParallelism: 1, Delay: delay,
						NoSync: true, MaxPages: 10 * hosts * perHost, Client: client, Frontier: q, Share: share})
					if err != nil {
						b.Fatal(err)
					}
					workers = append(workers, c)
				}
				f, err := OpenFollower(b.TempDir(), Options{Seeds: seeds, NoSync: true})
				if err != nil {
					b.Fatal(err)
				}
				fctx, stopFollowing := context.WithCancel(context.Background())
				followed := make(chan error, 1)
				go func() {
					followed <- f.Follow(fctx, logEntries{plog.Reader(pagelog.FatesOf(sig), 0, pagelog.ReaderOptions{})}, plog.Trim)
				}()
				start := time.Now()
				var wg sync.WaitGroup
				took := make([]time.Duration, n)
				for w, c := range workers {
					wg.Go(func() {
						if err := c.Run(context.Background()); err != nil {
							b.Error(err)
						}
						took[w] = time.Since(start)
					})
				}
				wg.Wait()
				elapsed := time.Since(start)
				turn, _, _, err := sig.Outcomes(context.Background(), 0, 1)
				if err != nil {
					b.Fatal(err)
				}
				for f.Stats().Position < turn {
					time.Sleep(time.Millisecond)
				}
				behind := time.Since(start) - elapsed
				stopFollowing()
				<-followed
				fetched := int64(0)
				for w, c := range workers {
					st := c.Stats()
					b.Logf("worker %d: %d pages in %v", w, st.Fetched, took[w].Round(time.Millisecond))
					fetched += st.Fetched
					c.Close()
				}
				if fetched != int64(hosts*perHost) || f.Stats().Pages != fetched {
					b.Errorf("%d workers fetched %d pages and the follower recorded %d, want %d", n, fetched, f.Stats().Pages, hosts*perHost)
				}
				f.Close()
				lag = behind.Seconds()
				minGap, ex := site.check(b, hosts)
				if minGap < delay {
					b.Errorf("two requests to one host %v apart, its delay is %v", minGap, delay)
				}
				pagesPerS, gap, extra = float64(fetched)/elapsed.Seconds(), float64(minGap)/float64(time.Millisecond), ex
			}
			b.ReportMetric(pagesPerS, "pages/s")
			b.ReportMetric(gap, "min-gap-ms")
			b.ReportMetric(extra, "extra/host")
			b.ReportMetric(lag, "follower-lag-s")
			if n == 1 {
				one = pagesPerS
			} else if one > 0 {
				b.ReportMetric(pagesPerS/one, "x-one-worker")
			}
		})
	}
}

// envInt returns the environment variable name as a positive number, or
// def.
func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// logEntries are a page log reader's entries as a Follower reads them
// (sharedcrawl.Entries, which this package's tests cannot import).
type logEntries struct{ r *pagelog.Reader }

func (es logEntries) Next(ctx context.Context) (LogEntry, error) {
	e, err := es.r.Next(ctx)
	if err != nil {
		return LogEntry{}, err
	}
	le := LogEntry{N: e.N, Cluster: e.Cluster, Note: e.Note}
	return le, json.Unmarshal(e.Payload, &le.Handed)
}

func (es logEntries) Position() uint32 { return es.r.Position() }
