package web

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/ranking"
)

// liveCrawl is a crawl section with a host named by an XSS payload.
func liveCrawl(now time.Time) *Crawl {
	return &Crawl{
		Hosts: []CrawlHost{
			{Host: xss + ".intra:8080", Fetched: 40, Errors: 2, Queued: 120, NextVisit: now.Add(-time.Second)},
			{Host: "wiki.intra", Fetched: 300, Errors: 0, Queued: 3, NextVisit: now.Add(90 * time.Second)},
			{Host: "", Fetched: 12}, // file URLs
		},
		MoreHosts: 7,
		Requests:  1234, Budget: 2000, Skipped: 880,
		Families: map[string]string{"wiki.intra/*.php?action=*&title=*": "stopped", xss + "/*": "demoted"},
		Failures: map[string]int64{"refused": 2, "http_4xx": 5, "dns": 0},
		History: []CrawlSample{
			{At: now.Add(-20 * time.Second), Fetched: 0, Queued: 1},
			{At: now.Add(-10 * time.Second), Fetched: 200, Errors: 1, Queued: 150},
			{At: now, Fetched: 352, Errors: 7, Queued: 123},
		},
	}
}

// TestStatusShowsCrawl: the status page shows the host table (rows
// escaped, the hosts beyond counted), failed fetches by class and the
// crawl chart; /api/stats has the same; without a crawl the section is
// not shown.
func TestStatusShowsCrawl(t *testing.T) {
	now := time.Now()
	crawl := liveCrawl(now)
	ts := testServer(t, Options{GroupsHeader: "X-Groups", TrustedProxies: loopback, AdminGroups: []string{"admin"},
		Status: func() Status { return Status{Documents: 352, Crawl: crawl} }})
	code, body := get(t, ts.URL+"/status", "X-Groups", "admin")
	if code != 200 {
		t.Fatalf("/status: %d", code)
	}
	if strings.Contains(body, "<script>") {
		t.Errorf("/status holds the payload unescaped")
	}
	if !strings.Contains(body, `<td id="requests">1234 of 2000</td>`) || !strings.Contains(body, `<td id="crawl-skipped">880</td>`) ||
		!strings.Contains(body, `<td class="name">wiki.intra/*.php?action=*&amp;title=*</td><td class="state">stopped</td>`) {
		t.Errorf("/status lacks the requests against the budget, the URLs skipped or the families learnt:\n%s", body)
	}
	rows := regexp.MustCompile(`(?s)<tr class="host"><td class="name">(.*?)</td><td class="fetched">(\d+)</td><td class="errors">(\d+)</td><td class="queued">(\d+)</td><td class="next">(.*?)</td></tr>`).FindAllStringSubmatch(body, -1)
	want := [][]string{
		{"&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;.intra:8080", "40", "2", "120", "now"},
		{"wiki.intra", "300", "0", "3", "in 1m30s"},
		{"(files)", "12", "0", "0", "—"},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d host rows, want %d:\n%s", len(rows), len(want), body)
	}
	for i, w := range want {
		got := rows[i][1:]
		got[4], _, _ = strings.Cut(got[4], " (") // "in 1m30s (2026-…)"
		if regexp.MustCompile(`^in 1m(30|2\d)s$`).MatchString(got[4]) {
			got[4] = "in 1m30s" // rendered up to seconds after now, on a busy machine
		}
		if strings.Join(got, "|") != strings.Join(w, "|") {
			t.Errorf("row %d: %q, want %q", i, got, w)
		}
	}
	for _, want := range []string{`id="more-hosts">and 7 more hosts<`, `refused <span class="n">2</span>`, `http_4xx <span class="n">5</span>`,
		`id="crawl-chart"`, "pages fetched: 352 (at most 352)", "failed fetches: 7 (at most 7)", "URLs queued: 123 (at most 150)", "over the last 20s"} {
		if !strings.Contains(body, want) {
			t.Errorf("/status lacks %q", want)
		}
	}
	lines := regexp.MustCompile(`<polyline id="(chart-\w+)"[^>]* points="([^"]*)"`).FindAllStringSubmatch(body, -1)
	if len(lines) != 3 {
		t.Fatalf("%d chart lines, want 3", len(lines))
	}
	for _, l := range lines {
		if n := len(strings.Fields(l[2])); n != len(crawl.History) {
			t.Errorf("%s has %d points, want one per sample (%d)", l[1], n, len(crawl.History))
		}
	}

	_, js := get(t, ts.URL+"/api/stats", "X-Groups", "admin")
	var st Status
	if err := json.Unmarshal([]byte(js), &st); err != nil {
		t.Fatal(err)
	}
	if st.Crawl == nil || len(st.Crawl.Hosts) != 3 || st.Crawl.Hosts[0].Host != crawl.Hosts[0].Host || st.Crawl.MoreHosts != 7 ||
		len(st.Crawl.History) != 3 || st.Crawl.Failures["http_4xx"] != 5 || !st.Crawl.Hosts[1].NextVisit.Equal(crawl.Hosts[1].NextVisit) {
		t.Errorf("/api/stats crawl = %+v", st.Crawl)
	}
	if strings.Contains(js, "<script>") {
		t.Error("/api/stats holds the payload unescaped")
	}

	ts = testServer(t, Options{GroupsHeader: "X-Groups", TrustedProxies: loopback, AdminGroups: []string{"admin"}})
	if _, body := get(t, ts.URL+"/status", "X-Groups", "admin"); strings.Contains(body, `id="hosts"`) || strings.Contains(body, `id="crawl-chart"`) {
		t.Error("the status page shows a crawl section with no crawl")
	}
	if _, js := get(t, ts.URL+"/api/stats", "X-Groups", "admin"); strings.Contains(js, `"crawl"`) {
		t.Errorf("/api/stats has a crawl with no crawl: %s", js)
	}
}

// TestTimeline: each series spans the chart's width, its largest value
// at the top of its panel and zero at the bottom.
func TestTimeline(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	for _, tc := range []struct {
		name    string
		samples []CrawlSample
		points  []string // of the fetched series
		span    string
	}{
		{"none", nil, nil, ""},
		{"one", []CrawlSample{{At: t0, Fetched: 5}}, []string{"10.0,16.0"}, "0s"},
		{"rising", []CrawlSample{{At: t0}, {At: t0.Add(10 * time.Second), Fetched: 50}, {At: t0.Add(40 * time.Second), Fetched: 100}},
			[]string{"10.0,60.0", "110.0,38.0", "410.0,16.0"}, "40s"},
		{"all zero", []CrawlSample{{At: t0}, {At: t0.Add(time.Minute)}}, []string{"10.0,60.0", "410.0,60.0"}, "1m0s"},
		{"short", []CrawlSample{{At: t0, Fetched: 2}, {At: t0.Add(1250 * time.Millisecond), Fetched: 4}}, []string{"10.0,38.0", "410.0,16.0"}, "1.3s"},
	} {
		ch := timeline(tc.samples)
		if tc.samples == nil {
			if len(ch.Series) != 0 {
				t.Errorf("%s: %d series", tc.name, len(ch.Series))
			}
			continue
		}
		if len(ch.Series) != 3 || ch.Height != 3*chartPanel || ch.Span != tc.span {
			t.Errorf("%s: %d series, height %d, span %q", tc.name, len(ch.Series), ch.Height, ch.Span)
			continue
		}
		if got := strings.Fields(ch.Series[0].Points); strings.Join(got, " ") != strings.Join(tc.points, " ") {
			t.Errorf("%s: fetched points %q, want %q", tc.name, got, tc.points)
		}
		for i, s := range ch.Series {
			if s.Top != i*chartPanel {
				t.Errorf("%s: series %s at %d", tc.name, s.ID, s.Top)
			}
		}
	}
}

func TestVisit(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	for _, tc := range []struct {
		at   time.Time
		want string
	}{
		{time.Time{}, "—"},
		{now, "now"},
		{now.Add(-time.Hour), "now"},
		{now.Add(100 * time.Millisecond), "in 1s ("},
		{now.Add(2*time.Minute + 400*time.Millisecond), "in 2m0s ("},
	} {
		if got := visit(tc.at, now); !strings.HasPrefix(got, tc.want) {
			t.Errorf("visit(%v) = %q, want %q…", tc.at, got, tc.want)
		}
	}
}

// TestMetricsOption: Options.Metrics are served on /metrics; one that
// clashes with the Server's own is an error of New.
func TestMetricsOption(t *testing.T) {
	extra := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "doppel_crawl_test_gauge", Help: "A test."}, func() float64 { return 42 })
	ts := testServer(t, Options{GroupsHeader: "X-Groups", TrustedProxies: loopback, AdminGroups: []string{"admin"}, Metrics: []prometheus.Collector{extra}})
	if _, body := get(t, ts.URL+"/metrics", "X-Groups", "admin"); !strings.Contains(body, "doppel_crawl_test_gauge 42") {
		t.Errorf("/metrics lacks the extra collector's gauge")
	}
	clash := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "doppel_clusters", Help: "Again."}, func() float64 { return 1 })
	bi, err := bleve.NewMemOnly(indexer.Mapping())
	if err != nil {
		t.Fatal(err)
	}
	ix, err := indexer.Wrap(bi, indexer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(ranking.New(ix, ranking.Options{}), Options{Metrics: []prometheus.Collector{clash}}); err == nil {
		t.Error("New accepted a collector clashing with doppel_clusters")
	}
}
