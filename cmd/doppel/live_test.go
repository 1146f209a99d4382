package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler"
	"github.com/doppel-search/doppel/web"
)

// servedBytes is a site of three pages, a missing one and a failing one,
// which counts the body bytes it sends the crawler's page fetches.
type servedBytes struct {
	mu sync.Mutex
	n  int64
}

func (s *servedBytes) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	if p == "/robots.txt" || p == "/sitemap.xml" || strings.HasPrefix(p, "/doppel-probe-") { // not the pages' client
		http.NotFound(w, r)
		return
	}
	var body string
	code := http.StatusOK
	switch p {
	case "/":
		body = `<html><head><title>Harbour office</title></head><body><main><p>Moorings, tides and the harbour master's notices.</p>
<a href="/tides">Tides</a> <a href="/fees">Fees</a> <a href="/missing">Old notices</a> <a href="/flaky">Berths</a></main></body></html>`
	case "/tides":
		body = `<html><head><title>Tides</title></head><body><main><p>High water at the harbour mouth is at noon on spring tides.</p></main></body></html>`
	case "/fees":
		body = `<html><head><title>Fees</title></head><body><main><p>Mooring fees are paid at the office by the slipway each month.</p></main></body></html>`
	case "/flaky":
		code, body = http.StatusServiceUnavailable, "busy\n"
	default:
		code, body = http.StatusNotFound, "not found\n"
	}
	w.Header().Set("Content-Type", "text/html")
	w.WriteHeader(code)
	n, _ := io.WriteString(w, body)
	s.mu.Lock()
	s.n += int64(n)
	s.mu.Unlock()
}

func (s *servedBytes) bytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

// metricsOf reads /metrics into samples by series ("name{labels}").
func metricsOf(t *testing.T, u string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("%s: %d", u, resp.StatusCode)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}

func getBody(t *testing.T, u string) string {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("%s: %d %s", u, resp.StatusCode, b)
	}
	return string(b)
}

// adminAddr waits for the administrators' address in the output.
func adminAddr(t *testing.T, stdout, stderr *syncBuffer) string {
	t.Helper()
	re := regexp.MustCompile(`Status for administrators: (http://[0-9.:]+/)status`)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if m := re.FindStringSubmatch(stdout.String()); m != nil {
			return m[1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no admin address: %s %s", stdout.String(), stderr.String())
		}
	}
}

// TestCrawlServeShowsCrawlHealth: doppel crawl --serve exposes the crawl's
// counters on /metrics, with the values of the crawl of a loopback site
// (URLs by outcome as the summary counts them, failed fetches by class,
// retries, bytes as served), and its hosts and course on the status page
// and /api/stats; doppel serve over the finished crawl shows neither.
func TestCrawlServeShowsCrawlHealth(t *testing.T) {
	site := &servedBytes{}
	ts := httptest.NewServer(site)
	defer ts.Close()
	host := strings.TrimPrefix(ts.URL, "http://")
	dir := t.TempDir()
	cfg := writeFile(t, "c.json", `{"seeds": ["`+ts.URL+`/"], "delay": "0s", "parallelism": 1, "max_retries": 1, "retry_backoff": "10ms"}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"crawl", "--once", "--data", dir, "--config", cfg, "--serve", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0"}, &stdout, &stderr)
	}()
	admin := adminAddr(t, &stdout, &stderr)
	for deadline := time.Now().Add(time.Minute); !strings.Contains(stdout.String(), "still serving"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the crawl did not finish: %s", stderr.String())
		}
	}
	summary := stdout.String()

	m := metricsOf(t, admin+"metrics")
	for _, tc := range []struct {
		series string
		want   float64
	}{
		{`doppel_crawl_urls{outcome="fetched"}`, float64(summaryValue(t, summary, "pages fetched"))},
		{`doppel_crawl_requests`, float64(summaryValue(t, summary, "requests"))},
		{`doppel_crawl_urls{outcome="skipped"}`, float64(summaryValue(t, summary, "skipped"))},
		{`doppel_crawl_urls{outcome="failed"}`, float64(summaryValue(t, summary, "errors"))},
		{`doppel_crawl_queue_depth`, float64(summaryValue(t, summary, "queued"))},
		{`doppel_crawl_retries_total`, float64(summaryValue(t, summary, "retries"))},
		{`doppel_crawl_urls{outcome="fetched"}`, 3},
		{`doppel_crawl_urls{outcome="failed"}`, 2},
		{`doppel_crawl_fetch_errors_total{class="http_4xx"}`, 1}, // /missing
		{`doppel_crawl_fetch_errors_total{class="http_5xx"}`, 2}, // /flaky, and its one retry
		{`doppel_crawl_fetch_errors_total{class="refused"}`, 0},
		{`doppel_crawl_retries_total`, 1},
		{`doppel_crawl_revisits_total`, 0},
		{`doppel_crawl_downloaded_bytes_total`, float64(site.bytes())},
	} {
		if got, ok := m[tc.series]; !ok || got != tc.want {
			t.Errorf("%s = %v (present: %v), want %v", tc.series, got, ok, tc.want)
		}
	}
	if _, ok := m["doppel_crawl_pacing_waits_total"]; !ok {
		t.Error("/metrics lacks doppel_crawl_pacing_waits_total")
	}

	page := getBody(t, admin+"status")
	if want := fmt.Sprintf(`<td id="requests">%d of %d</td>`, summaryValue(t, summary, "requests"), crawler.DefaultMaxPages); !strings.Contains(page, want) {
		t.Errorf("the status page lacks %s", want)
	}
	row := regexp.MustCompile(`<tr class="host"><td class="name">` + regexp.QuoteMeta(host) + `</td><td class="fetched">(\d+)</td><td class="errors">(\d+)</td><td class="queued">(\d+)</td>`).FindStringSubmatch(page)
	if row == nil || row[1] != "3" || row[2] != "3" || row[3] != "0" {
		t.Errorf("status page host row %q, want %s with 3 pages, 3 failed fetches, 0 queued", row, host)
	}
	if !strings.Contains(page, `id="crawl-chart"`) {
		t.Error("the status page has no crawl chart")
	}
	var st web.Status
	if err := json.Unmarshal([]byte(getBody(t, admin+"api/stats")), &st); err != nil {
		t.Fatal(err)
	}
	if st.Crawl == nil || len(st.Crawl.Hosts) != 1 || st.Crawl.Hosts[0].Host != host || st.Crawl.Hosts[0].Fetched != 3 ||
		len(st.Crawl.History) < 2 || st.Crawl.History[len(st.Crawl.History)-1].Fetched != 3 || st.Crawl.Failures["http_5xx"] != 2 {
		t.Errorf("/api/stats crawl = %+v", st.Crawl)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}

	// doppel serve over the finished crawl: no live section, no crawl metrics.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	var sout, serr syncBuffer
	go func() {
		done <- run(ctx, []string{"serve", "--data", dir, "--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0"}, &sout, &serr)
	}()
	admin = adminAddr(t, &sout, &serr)
	if page := getBody(t, admin+"status"); strings.Contains(page, `id="hosts"`) || !strings.Contains(page, `id="documents">3<`) {
		t.Errorf("doppel serve's status page shows a live crawl section, or not the crawl's 3 pages")
	}
	for series := range metricsOf(t, admin+"metrics") {
		if strings.HasPrefix(series, "doppel_crawl_") {
			t.Errorf("doppel serve's /metrics has %s", series)
			break
		}
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("serve exit %d: %s", code, serr.String())
	}
}

// TestCrawlServeAtBudget: a one-pass crawl that stops at its page budget
// while serving says so on its summary's last line, goes on serving, and
// exits 3 when stopped.
func TestCrawlServeAtBudget(t *testing.T) {
	site := demoServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"crawl", "--once", "--seed", site + "/", "--data", t.TempDir(), "--delay", "0", "--max-pages", "3",
			"--serve", "127.0.0.1:0"}, &stdout, &stderr)
	}()
	for deadline := time.Now().Add(time.Minute); !strings.Contains(stdout.String(), "still serving"); time.Sleep(10 * time.Millisecond) {
		select {
		case code := <-done:
			t.Fatalf("exited %d before serving on: %s", code, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the crawl did not finish: %s", stderr.String())
		}
	}
	summary, _, _ := strings.Cut(stdout.String(), "The crawl is done")
	lines := strings.Split(strings.TrimSpace(summary), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "stopped:           at the page budget, 3 requests") {
		t.Errorf("the summary's last line: %q", last)
	}
	cancel()
	if code := <-done; code != 3 {
		t.Errorf("exit %d after Ctrl-C, want 3 (stopped at the page budget): %s", code, stderr.String())
	}
}
