package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/doppel-search/doppel/indexer"
)

// loadQueries are realistic queries from the demo intranet's vocabulary,
// in the query string syntax users type: words, phrases, fields,
// exclusions and prefixes.
var loadQueries = []string{
	"vpn", "printer", "cafeteria", "maintenance window", "service desk", `"service desk"`, "annual leave",
	"parental leave", "meeting rooms", "laptop", "badge", "password", "expenses", "salary", "fire alarm",
	"title:vpn", "leave -parental", "print*", "personal data", "working from home",
}

const (
	loadClients    = 8
	defaultSeconds = 3
)

// loadDuration is how long each phase of TestLoad runs: $DOPPEL_LOAD_SECONDS,
// default 3 s.
func loadDuration(t *testing.T) time.Duration {
	s := os.Getenv("DOPPEL_LOAD_SECONDS")
	if s == "" {
		return defaultSeconds * time.Second
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil || n <= 0 {
		t.Fatalf("DOPPEL_LOAD_SECONDS=%q: want a positive number of seconds", s)
	}
	return time.Duration(n * float64(time.Second))
}

// plainSearch is the baseline: a plain bleve search of the same query on the
// same index — query string, Searchable, 10 hits, the stored fields url,
// title and cluster, body highlighting, JSON-encoded. No collapsing, no
// access filter, no member lists.
func plainSearch(ix *indexer.Index) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q, err := bleve.NewQueryStringQuery(r.URL.Query().Get("q")).Parse()
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		req := bleve.NewSearchRequestOptions(ix.Searchable(q), 10, 0, false)
		req.Fields = []string{indexer.FieldURL, indexer.FieldTitle, indexer.FieldCluster}
		req.Highlight = bleve.NewHighlight()
		req.Highlight.AddField(indexer.FieldBody)
		res, err := ix.Search(r.Context(), req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		type jsonHit struct {
			ID      string  `json:"id"`
			URL     string  `json:"url"`
			Title   string  `json:"title"`
			Cluster string  `json:"cluster"`
			Score   float64 `json:"score"`
			Snippet string  `json:"snippet"`
		}
		hits := make([]jsonHit, 0, len(res.Hits))
		for _, h := range res.Hits {
			u, _ := h.Fields[indexer.FieldURL].(string)
			title, _ := h.Fields[indexer.FieldTitle].(string)
			c, _ := h.Fields[indexer.FieldCluster].(string)
			hits = append(hits, jsonHit{ID: h.ID, URL: u, Title: title, Cluster: c, Score: h.Score,
				Snippet: strings.Join(h.Fragments[indexer.FieldBody], " … ")})
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		json.NewEncoder(w).Encode(map[string]any{"total": res.Total, "hits": hits})
	})
}

// loadStats is what one phase measured.
type loadStats struct {
	name      string
	queries   int             // completed with status 200
	errors    int             // transport errors and other statuses
	firstErrs []string        // the first few errors
	elapsed   time.Duration   // wall time of the phase
	latencies []time.Duration // of the completed queries, sorted
}

func (s *loadStats) qps() float64 { return float64(s.queries) / s.elapsed.Seconds() }

// pct returns the p-th percentile latency (nearest rank).
func (s *loadStats) pct(p float64) time.Duration {
	if len(s.latencies) == 0 {
		return 0
	}
	i := int(float64(len(s.latencies))*p/100+0.999999) - 1
	return s.latencies[max(0, min(i, len(s.latencies)-1))]
}

// load runs loadClients clients against base+path+"?q=…" for d, each cycling
// through loadQueries from its own offset, over a keep-alive connection
// from an address of its own (127.0.0.10, .11, …: people, whom the
// server's per-client limit counts apart).
func load(t *testing.T, name, base, path string, d time.Duration) *loadStats {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var (
		mu  sync.Mutex
		all = &loadStats{name: name}
		wg  sync.WaitGroup
	)
	start := time.Now()
	for c := range loadClients {
		wg.Go(func() {
			client := clientFrom(fmt.Sprintf("127.0.0.%d", 10+c), 1, 30*time.Second)
			defer client.CloseIdleConnections()
			var lat []time.Duration
			var errs []string
			for i := c; ctx.Err() == nil; i++ {
				u := base + path + "?q=" + url.QueryEscape(loadQueries[i%len(loadQueries)])
				t0 := time.Now()
				resp, err := client.Get(u)
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if err == nil && resp.StatusCode != http.StatusOK {
						err = fmt.Errorf("status %s", resp.Status)
					}
				}
				if err != nil {
					errs = append(errs, fmt.Sprintf("%s: %v", u, err))
					continue
				}
				lat = append(lat, time.Since(t0))
			}
			mu.Lock()
			all.latencies = append(all.latencies, lat...)
			all.queries += len(lat)
			all.errors += len(errs)
			all.firstErrs = append(all.firstErrs, errs[:min(len(errs), 3)]...)
			mu.Unlock()
		})
	}
	wg.Wait()
	all.elapsed = time.Since(start)
	slices.Sort(all.latencies)
	return all
}

// TestLoad loads the collapsed search API and a plain bleve search over the
// same index, one after the other, and logs throughput and latency. It
// asserts only that nothing failed: timings depend on the machine.
func TestLoad(t *testing.T) {
	f := demo(t)
	plain := httptest.NewServer(plainSearch(f.crawler.Index()))
	defer plain.Close()
	d := loadDuration(t)

	// Every query works on both before the clock starts (and warms caches).
	for _, q := range loadQueries {
		for _, u := range []string{f.search.URL + "/api/search", plain.URL + "/search"} {
			resp, err := http.Get(u + "?q=" + url.QueryEscape(q))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("%s?q=%s: %s: %s", u, q, resp.Status, body)
			}
		}
	}

	collapsed := load(t, "collapsed /api/search", f.search.URL, "/api/search", d)
	plainS := load(t, "plain bleve", plain.URL, "/search", d)

	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "\tqueries\terrors\tqueries/s\tp50\tp99\tmax\t\n")
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond)) }
	for _, s := range []*loadStats{collapsed, plainS} {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f\t%s\t%s\t%s\t\n", s.name, s.queries, s.errors, s.qps(),
			ms(s.pct(50)), ms(s.pct(99)), ms(s.pct(100)))
	}
	tw.Flush()
	ratio := func(a, b time.Duration) string {
		if b == 0 {
			return "n/a"
		}
		return fmt.Sprintf("%.2f", float64(a)/float64(b))
	}
	t.Logf("load: %d clients, %v per phase, %d queries cycled\n%sp99 collapsed/plain = %s, p50 collapsed/plain = %s, queries/s plain/collapsed = %.2f",
		loadClients, d, len(loadQueries), b.String(), ratio(collapsed.pct(99), plainS.pct(99)),
		ratio(collapsed.pct(50), plainS.pct(50)), plainS.qps()/max(collapsed.qps(), 1e-9))

	for _, s := range []*loadStats{collapsed, plainS} {
		if s.errors > 0 {
			t.Errorf("%s: %d errors, first: %s", s.name, s.errors, strings.Join(s.firstErrs, "; "))
		}
		if s.queries == 0 {
			t.Errorf("%s: no query completed in %v", s.name, d)
		}
	}
}
