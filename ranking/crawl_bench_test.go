package ranking

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler"
)

// BenchmarkCrawlQueries times what /api/search does for a pasted title —
// a collapsed page of 10 with facets, and the spelling suggestion when
// fewer than a page of results come back — over a crawl's data directory
// (DOPPEL_CRAWL, opened read-only as doppel serve opens it) for 300
// titles of its site (DOPPEL_SITE: the kit's site.jsonl; titles no other
// page has, drawn with seed 1), as the kit's search-check asks them of
// the server. Skipped without both. Reported: p50 and p99 per query (a
// query is one search and, if asked, one suggestion), as a guest, and
// the CPU time of the process per query (GC included), which a loaded
// machine changes less; searches stopped at Options.Timeout count at
// the time they took (timeouts).
//
//	DOPPEL_CRAWL=/tmp/crawl-copy DOPPEL_SITE=/tmp/tuning/site.jsonl \
//	  go test ./ranking -run XXX -bench CrawlQueries -benchtime 600x
func BenchmarkCrawlQueries(b *testing.B) {
	dir, site := os.Getenv("DOPPEL_CRAWL"), os.Getenv("DOPPEL_SITE")
	if dir == "" || site == "" {
		b.Skip("DOPPEL_CRAWL (a crawl's data directory) and DOPPEL_SITE (its site.jsonl) are not both set")
	}
	titles := siteTitles(b, site, 300, 1)
	v, err := crawler.OpenView(dir)
	if err != nil {
		b.Skip(err)
	}
	defer v.Close()
	s := New(v.Store(), Options{})
	ctx := context.Background()
	timeouts := 0
	query := func(q string) {
		res, err := s.Search(ctx, Request{Query: q, Size: 10, Facets: true})
		if err == nil && res.Total < res.Size {
			_, err = s.Suggest(ctx, q, nil)
		}
		switch {
		case errors.Is(err, ErrTimeout):
			timeouts++ // a loaded machine: counted at the time it took
		case err != nil:
			b.Fatal(err)
		}
	}
	for _, q := range titles[:20] { // warm the index's caches, as a server's first queries do
		query(q)
	}
	var lat []time.Duration
	i := 0
	cpu0 := cpuTime()
	for b.Loop() {
		start := time.Now()
		query(titles[i%len(titles)])
		lat = append(lat, time.Since(start))
		i++
	}
	cpu := cpuTime() - cpu0
	slices.Sort(lat)
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(len(lat)), "cpu_ms/query")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50_ms")
	b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Microseconds())/1000, "p99_ms")
	b.ReportMetric(float64(timeouts), "timeouts")
}

// cpuTime returns the CPU time the process has used (user and system):
// on a machine others share, it says what a query costs where its
// elapsed time says how long it waited too.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// siteTitles returns n titles of the site.jsonl at path that no other of
// its pages has, in an order drawn with seed; it skips b when the file
// cannot be read.
func siteTitles(b *testing.B, path string, n int, seed uint64) []string {
	f, err := os.Open(path)
	if err != nil {
		b.Skip(err)
	}
	defer f.Close()
	count := map[string]int{}
	var titles []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var d struct{ Title string }
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			b.Fatal(err)
		}
		if d.Title != "" {
			if count[d.Title] == 0 {
				titles = append(titles, d.Title)
			}
			count[d.Title]++
		}
	}
	if err := sc.Err(); err != nil {
		b.Fatal(err)
	}
	titles = slices.DeleteFunc(titles, func(t string) bool { return count[t] > 1 })
	rand.New(rand.NewPCG(seed, seed)).Shuffle(len(titles), func(i, j int) { titles[i], titles[j] = titles[j], titles[i] })
	if len(titles) == 0 {
		b.Skip(path + " holds no title")
	}
	return titles[:min(n, len(titles))]
}
