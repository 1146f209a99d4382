package crawlmetrics

import (
	"bufio"
	"io"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/doppel-search/doppel/crawler"
	"github.com/doppel-search/doppel/crawler/polite"
)

type fake struct {
	st crawler.Stats
	h  crawler.Health
}

func (f fake) Stats() crawler.Stats   { return f.st }
func (f fake) Health() crawler.Health { return f.h }

// scrape serves c on a registry of its own and returns the samples of
// /metrics by series ("name{labels}") and the HELP and TYPE lines by name.
func scrape(t *testing.T, c prometheus.Collector) (samples map[string]float64, types map[string]string) {
	t.Helper()
	reg := prometheus.NewPedanticRegistry() // checks Describe against Collect
	if err := reg.Register(c); err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("/metrics: %d %s", rec.Code, rec.Body)
	}
	return parse(t, rec.Body)
}

func parse(t *testing.T, r io.Reader) (map[string]float64, map[string]string) {
	t.Helper()
	samples, types := map[string]float64{}, map[string]string{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if f := strings.Fields(line); len(f) >= 4 && f[0] == "#" && f[1] == "TYPE" {
			types[f[2]] = f[3]
			continue
		}
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("sample %q: %v", line, err)
		}
		samples[line[:i]] = v
	}
	return samples, types
}

func TestCollector(t *testing.T) {
	failures := map[string]int64{}
	for _, class := range crawler.FailureClasses() {
		failures[class] = 0
	}
	failures[crawler.ClassRefused], failures[crawler.ClassHTTP5xx] = 3, 7
	src := fake{
		st: crawler.Stats{Requests: 133, Fetched: 120, Unique: 100, Duplicates: 20, Skipped: 9, Errors: 4, Queued: 55, Scheduled: 118,
			Revisits: 30, NotModified: 11, Unchanged: 5, Trivial: 6, Changed: 7, Gone: 1, Retries: 8},
		h: crawler.Health{Failures: failures, Bytes: 1 << 20, Pacing: polite.Stats{Waits: 42, Waited: 2500 * time.Millisecond}},
	}
	samples, types := scrape(t, New(src))
	for _, tc := range []struct {
		series string
		typ    string
		want   float64
	}{
		{`doppel_crawl_urls{outcome="fetched"}`, "gauge", 120},
		{`doppel_crawl_urls{outcome="skipped"}`, "gauge", 9},
		{`doppel_crawl_urls{outcome="failed"}`, "gauge", 4},
		{`doppel_crawl_requests`, "gauge", 133},
		{`doppel_crawl_near_duplicates`, "gauge", 20},
		{`doppel_crawl_queue_depth`, "gauge", 55},
		{`doppel_crawl_revisits_scheduled`, "gauge", 118},
		{`doppel_crawl_revisits_total`, "counter", 30},
		{`doppel_crawl_not_modified_total`, "counter", 11},
		{`doppel_crawl_revisit_content_total{change="unchanged"}`, "counter", 5},
		{`doppel_crawl_revisit_content_total{change="trivial"}`, "counter", 6},
		{`doppel_crawl_revisit_content_total{change="changed"}`, "counter", 7},
		{`doppel_crawl_gone_total`, "counter", 1},
		{`doppel_crawl_retries_total`, "counter", 8},
		{`doppel_crawl_fetch_errors_total{class="refused"}`, "counter", 3},
		{`doppel_crawl_fetch_errors_total{class="http_5xx"}`, "counter", 7},
		{`doppel_crawl_fetch_errors_total{class="dns"}`, "counter", 0},
		{`doppel_crawl_downloaded_bytes_total`, "counter", 1 << 20},
		{`doppel_crawl_pacing_waits_total`, "counter", 42},
		{`doppel_crawl_pacing_wait_seconds_total`, "counter", 2.5},
	} {
		got, ok := samples[tc.series]
		if !ok || got != tc.want {
			t.Errorf("%s = %v (present: %v), want %v", tc.series, got, ok, tc.want)
		}
		name, _, _ := strings.Cut(tc.series, "{")
		if types[name] != tc.typ {
			t.Errorf("%s is a %q, want %s", name, types[name], tc.typ)
		}
	}
	// Bounded labels: one series per class, none per host.
	n := 0
	for s := range samples {
		if strings.HasPrefix(s, "doppel_crawl_fetch_errors_total{") {
			n++
		}
	}
	if n != len(crawler.FailureClasses()) {
		t.Errorf("%d series of doppel_crawl_fetch_errors_total, want one per class (%d)", n, len(crawler.FailureClasses()))
	}
	if len(samples) != 17+len(crawler.FailureClasses()) {
		t.Errorf("%d series in all, want %d: %v", len(samples), 17+len(crawler.FailureClasses()), samples)
	}
}
