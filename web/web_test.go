package web

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"

	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/ranking"
	"github.com/doppel-search/doppel/web/limiter"
)

const xss = `<script>alert("x")</script>`

// testServer indexes a small intranet: a public manual page with a
// printer copy and an HR-only mirror, an HR-only page, and a page whose
// title, URL and body carry an XSS payload.
func testServer(t *testing.T, opts Options) *httptest.Server {
	t.Helper()
	_, ts := testIntranet(t, opts)
	return ts
}

// testIntranet is testServer with its Server.
func testIntranet(t *testing.T, opts Options) (*Server, *httptest.Server) {
	t.Helper()
	texts := map[string]string{}
	opts.Text = func(id string) (string, bool) { s, ok := texts[id]; return s, ok }
	bi, err := bleve.NewMemOnly(indexer.Mapping())
	if err != nil {
		t.Fatal(err)
	}
	ix, err := indexer.Wrap(bi, indexer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	add := func(id, title, body string, groups []string, clusterID, master string) {
		t.Helper()
		d := indexer.Doc{ID: id, URL: id, Host: "intra", Title: title, Body: body, Groups: groups,
			LastModified: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}
		texts[id] = body
		if err := ix.Add(ctx, d, indexer.Placement{ID: id, Cluster: clusterID, Master: master, Duplicate: id != master}); err != nil {
			t.Fatal(err)
		}
	}
	vpn := "Install the VPN client from the software portal and sign in with your network account."
	add("http://intra/manual/vpn", "Connecting to the VPN", vpn, nil, "c1", "http://intra/manual/vpn")
	add("http://intra/print/manual/vpn", "Connecting to the VPN (print)", vpn+" Printed copy.", nil, "c1", "http://intra/manual/vpn")
	add("http://intra/hr/vpn", "VPN for HR", vpn+" HR staff only.", []string{"hr"}, "c1", "http://intra/manual/vpn")
	add("http://intra/hr/salaries", "Salary bands", "Salary bands for every grade and the VPN budget.", []string{"hr"}, "c2", "http://intra/hr/salaries")
	add("http://intra/x?a="+url.QueryEscape(xss), "Title "+xss, "Body about the VPN "+xss, nil, "c3", "http://intra/x?a="+url.QueryEscape(xss))
	for i := range 12 {
		id := "http://intra/news/" + string(rune('a'+i))
		add(id, "News "+string(rune('a'+i)), "Canteen news item number "+string(rune('a'+i))+" about lunch.", nil, "n"+string(rune('a'+i)), id)
	}
	return startServer(t, ix, opts)
}

// startServer flushes ix and serves it with opts on a test server,
// closed when the test ends.
func startServer(t testing.TB, ix *indexer.Index, opts Options) (*Server, *httptest.Server) {
	t.Helper()
	if err := ix.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	srv, err := New(ranking.New(ix, ranking.Options{}), opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() {
		ts.Close()
		ix.Close()
	})
	return srv, ts
}

func get(t *testing.T, u string, header ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

type apiResult struct {
	Total  int    `json:"total"`
	More   bool   `json:"more"`
	Cursor string `json:"cursor"`
	Hits   []struct {
		URL     string  `json:"url"`
		Title   string  `json:"title"`
		Snippet string  `json:"snippet"`
		Score   float64 `json:"score"`
		Cluster string  `json:"cluster"`
		Similar int     `json:"similar"`
	} `json:"hits"`
}

func apiSearch(t *testing.T, base, q string, header ...string) apiResult {
	t.Helper()
	code, body := get(t, base+"/api/search?q="+url.QueryEscape(q), header...)
	if code != 200 {
		t.Fatalf("api/search %q: %d %s", q, code, body)
	}
	var r apiResult
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestAPISearchCollapsesAndFiltersByGroups(t *testing.T) {
	ts := testServer(t, Options{GroupsHeader: "X-Doppel-Groups", TrustedProxies: loopback})
	for _, tc := range []struct {
		groups     string
		total      int
		vpnSimilar int
		seesSalary bool
	}{
		{"", 2, 1, false},  // the manual (with its print copy) and the XSS page
		{"hr", 3, 2, true}, // plus salaries; the HR mirror counts as similar
		{"it, hr", 3, 2, true},
	} {
		r := apiSearch(t, ts.URL, "vpn", "X-Doppel-Groups", tc.groups)
		if r.Total != tc.total || len(r.Hits) != tc.total {
			t.Errorf("groups %q: total %d, %d hits; want %d", tc.groups, r.Total, len(r.Hits), tc.total)
		}
		clusters := map[string]bool{}
		salary := false
		for _, h := range r.Hits {
			if clusters[h.Cluster] {
				t.Errorf("groups %q: cluster %s twice", tc.groups, h.Cluster)
			}
			clusters[h.Cluster] = true
			if h.Cluster == "c1" && h.Similar != tc.vpnSimilar {
				t.Errorf("groups %q: VPN cluster similar %d, want %d", tc.groups, h.Similar, tc.vpnSimilar)
			}
			if strings.Contains(h.URL, "salaries") {
				salary = true
			}
		}
		if salary != tc.seesSalary {
			t.Errorf("groups %q: sees the HR page = %v", tc.groups, salary)
		}
	}
	// The cluster and document APIs hide HR documents from others.
	if code, body := get(t, ts.URL+"/api/cluster/c2"); code != 404 {
		t.Errorf("api/cluster of an HR-only cluster for anonymous: %d %s", code, body)
	}
	if code, body := get(t, ts.URL+"/api/doc/"+url.PathEscape("http://intra/hr/salaries")); code != 404 || strings.Contains(body, "Salary") {
		t.Errorf("api/doc of an HR page for anonymous: %d %s", code, body)
	}
	if code, body := get(t, ts.URL+"/api/doc/"+url.PathEscape("http://intra/hr/salaries"), "X-Doppel-Groups", "hr"); code != 200 || !strings.Contains(body, "Salary bands") {
		t.Errorf("api/doc of an HR page for HR: %d %s", code, body)
	}
	code, body := get(t, ts.URL+"/api/cluster/c1")
	if code != 200 || strings.Contains(body, "/hr/") || !strings.Contains(body, "/print/manual/vpn") {
		t.Errorf("api/cluster c1 for anonymous: %d %s", code, body)
	}
}

func TestPagingIsStable(t *testing.T) {
	ts := testServer(t, Options{})
	seen := map[string]bool{}
	for page := 1; page <= 3; page++ {
		code, body := get(t, ts.URL+"/api/search?q=canteen&size=5&page="+string(rune('0'+page)))
		if code != 200 {
			t.Fatal(body)
		}
		var r apiResult
		json.Unmarshal([]byte(body), &r)
		if r.Total != 12 {
			t.Errorf("total %d, want 12", r.Total)
		}
		for _, h := range r.Hits {
			if seen[h.Cluster] {
				t.Errorf("page %d repeats cluster %s", page, h.Cluster)
			}
			seen[h.Cluster] = true
		}
	}
	if len(seen) != 12 {
		t.Errorf("3 pages of 5 held %d clusters, want all 12", len(seen))
	}
	// By cursor: the same clusters, a next page while there is one.
	after, walked := "", 0
	for page := 1; ; page++ {
		code, body := get(t, ts.URL+"/api/search?q=canteen&size=5&after="+url.QueryEscape(after))
		if after == "" {
			code, body = get(t, ts.URL+"/api/search?q=canteen&size=5")
		}
		var r apiResult
		if err := json.Unmarshal([]byte(body), &r); code != 200 || err != nil {
			t.Fatalf("page %d after %q: %d %s", page, after, code, body)
		}
		for _, h := range r.Hits {
			if !seen[h.Cluster] {
				t.Errorf("by cursor, page %d: cluster %s not among the pages by number", page, h.Cluster)
			}
			walked++
		}
		if r.More != (page < 3) || r.More != (r.Cursor != "") {
			t.Fatalf("page %d: more %v, cursor %q", page, r.More, r.Cursor)
		}
		if !r.More {
			break
		}
		after = r.Cursor
	}
	if walked != 12 {
		t.Errorf("by cursor: %d hits, want 12", walked)
	}
}

func TestBadInput(t *testing.T) {
	ts := testServer(t, Options{})
	for _, tc := range []struct {
		path string
		code int
		msg  string
	}{
		{"/api/search?syntax=bleve&q=" + url.QueryEscape("title:"), 400, "invalid query"},
		{"/api/search?syntax=bleve&q=" + url.QueryEscape(`"unterminated`), 400, "invalid query: parse error: unterminated quote"},
		{"/api/search?syntax=bleve&q=" + url.QueryEscape("std::env::Args"), 400, "invalid query: syntax error"},
		{"/api/search?syntax=bleve&q=" + strings.Repeat("a", 600), 400, "query too long"},
		{"/api/search?syntax=lucene&q=vpn", 400, `syntax must be plain or bleve, not \"lucene\"`},
		{"/api/search?q=vpn&page=0", 400, "page must be a positive number"},
		{"/api/search?q=vpn&after=nonsense", 400, "invalid cursor"},
		{"/api/search?q=vpn&size=1000", 400, "size must be at most 100"},
		{"/api/search?q=vpn&since=yesterday", 400, "since must be a date"},
		{"/api/cluster/c1?sort=random", 400, "unknown order"},
		{"/api/cluster/nope", 404, "Not found"},
		{"/?syntax=bleve&q=" + url.QueryEscape("title:"), 400, "invalid query"},
	} {
		code, body := get(t, ts.URL+tc.path)
		if code != tc.code || !strings.Contains(body, tc.msg) {
			t.Errorf("%s: %d %q; want %d and %q", tc.path, code, body, tc.code, tc.msg)
		}
	}
}

// awkward are queries people type or paste that are not bleve query
// string syntax.
var awkward = []string{
	"std::env::Args", "PostgreSQL: Documentation: 15", `"unterminated`, "(a OR", "+", "-", "title:",
	"a:b:c", "[x]", "{}", "^", "~2", "*", `\`,
	"PostgreSQL: Documentation: 15: CREATE TABLE", "Connecting to the VPN (print)", "http://intra/manual/vpn",
	"git-help(1)", "C++ / C#", "a AND OR NOT b", "NOT", "title:title:vpn", "url:", "host:", "site:",
	"-vpn", "--vpn", "+-vpn", `"" "`, `vpn"`, `"vpn`, "body:/re[/", "vpn^2 vpn~ vpn*", `title:"unterminated`,
	"<script>alert(1)</script>", "\x00", "\xff\xfe vpn", "💥 vpn", "the of and", "   ", "\t\n",
	strings.Repeat("vpn ", 200), strings.Repeat("x", 600), strings.Repeat("é", 300),
}

// TestAwkwardQueries: every awkward query gets a result page, from the
// API as JSON and as HTML, with the query kept in the search box.
func TestAwkwardQueries(t *testing.T) {
	ts := testServer(t, Options{})
	for _, q := range awkward {
		code, body := get(t, ts.URL+"/api/search?q="+url.QueryEscape(q))
		var r apiResult
		if err := json.Unmarshal([]byte(body), &r); code != 200 || err != nil {
			t.Errorf("api/search %q: %d %v %.200s", q, code, err, body)
		}
		code, body = get(t, ts.URL+"/?q="+url.QueryEscape(q))
		if code != 200 || !strings.Contains(body, `id="total"`) {
			t.Errorf("search page %q: %d %.200s", q, code, body)
		}
		// (html/template writes NUL as U+FFFD.)
		if box := searchBox(body); utf8.ValidString(q) && box != strings.ReplaceAll(q, "\x00", "\uFFFD") {
			t.Errorf("search page %q has %q in the search box", q, box)
		}
	}
	// A pasted title finds its page first; a long query is cut, and says
	// so.
	if r := apiSearch(t, ts.URL, "Connecting to the VPN (print)"); len(r.Hits) == 0 || r.Hits[0].Title != "Connecting to the VPN (print)" && r.Hits[0].Similar == 0 {
		t.Errorf("pasted title: %+v", r.Hits)
	}
	if _, body := get(t, ts.URL+"/api/search?q="+url.QueryEscape(strings.Repeat("vpn ", 200))); !strings.Contains(body, `"truncated":true`) {
		t.Errorf("long query: not marked truncated: %.300s", body)
	}
	if _, body := get(t, ts.URL+"/?q="+url.QueryEscape(strings.Repeat("vpn ", 200))); !strings.Contains(body, `id="truncated"`) {
		t.Error("long query: the page does not say it was cut")
	}
}

// searchBox returns the value of the search box on an HTML page.
func searchBox(page string) string {
	_, v, _ := strings.Cut(page, `<input id="q" name="q" value="`)
	v, _, _ = strings.Cut(v, `"`)
	return html.UnescapeString(v)
}

// TestSyntaxParameter: syntax=bleve reads bleve's query string syntax, and
// the search page keeps the mode.
// TestMembersAndOmitted: members=N brings up to N members with each hit
// (as Elasticsearch's inner_hits); filter=0 lists the omitted
// near-duplicates after their cluster's hit; unknown or bad parameters
// are refused with 400 naming the known ones.
func TestMembersAndOmitted(t *testing.T) {
	ts := testServer(t, Options{})
	var res struct {
		Total int
		Hits  []struct {
			ID, Cluster string
			MasterID    string `json:"master_id"`
			Similar     int
			Omitted     bool
			Members     []struct{ ID, URL, Title string }
		}
	}
	_, body := get(t, ts.URL+"/api/search?q=vpn&members=2")
	if err := json.Unmarshal([]byte(body), &res); err != nil {
		t.Fatal(err)
	}
	inline := 0
	for _, h := range res.Hits {
		if len(h.Members) != min(2, h.Similar) {
			t.Errorf("%s: %d members inline of %d similar, want min(2, similar)", h.ID, len(h.Members), h.Similar)
		}
		inline += len(h.Members)
	}
	if inline == 0 {
		t.Error("no members inline for vpn")
	}
	collapsed := res
	_, body = get(t, ts.URL+"/api/search?q=vpn&filter=0&size=100")
	res.Hits = nil
	if err := json.Unmarshal([]byte(body), &res); err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, h := range collapsed.Hits {
		want += 1 + h.Similar
	}
	omitted := 0
	for _, h := range res.Hits {
		if h.Omitted {
			omitted++
		}
	}
	if len(res.Hits) != want || omitted == 0 {
		t.Errorf("filter=0: %d results (%d omitted), want every visible member: %d", len(res.Hits), omitted, want)
	}
	_, page := get(t, ts.URL+"/?q=vpn")
	if !strings.Contains(page, `Repeat the search with the omitted results included`) || !strings.Contains(page, `filter=0`) {
		t.Error("the result page does not offer the omitted results")
	}
	_, page = get(t, ts.URL+"/?q=vpn&filter=0&size=100")
	if n := strings.Count(page, `class="hit omitted"`); n != omitted || !strings.Contains(page, "Show one result per page") {
		t.Errorf("filter=0 page: %d omitted entries, want %d, and a way back", n, omitted)
	}
	// sort=date (its order: ranking's TestByDate) is offered, and kept.
	if code, _ := get(t, ts.URL+"/api/search?q=news&sort=date"); code != 200 {
		t.Errorf("sort=date: %d", code)
	}
	if _, page := get(t, ts.URL+"/?q=news&sort=date"); !strings.Contains(page, `id="sort-relevance"`) {
		t.Error("the page sorted by date has no way back to relevance")
	}
	for _, bad := range []string{"hots=x", "members=21", "members=x", "filter=2", "sort=size"} {
		code, body := get(t, ts.URL+"/api/search?q=vpn&"+bad)
		if code != http.StatusBadRequest || (bad == "hots=x" && !strings.Contains(body, `unknown parameter \"hots\" (known: q, syntax, host`)) {
			t.Errorf("%s: %d %s", bad, code, body)
		}
	}
}

func TestSyntaxParameter(t *testing.T) {
	ts := testServer(t, Options{})
	for _, tc := range []struct {
		q, syntax string
		total     int
	}{
		{"title:vpn OR title:news", "bleve", 13}, // the VPN manual (with its copy), 12 news
		{"title:vpn OR title:news", "", 0},       // field clauses are required; "or" is a stop word
		{"title:news -title:b", "bleve", 11},
		{"title:news -title:b", "plain", 11},
		{"canteen lunch", "plain", 12},
		{"canteen vpn", "plain", 14}, // no page has both words: pages with either
	} {
		code, body := get(t, ts.URL+"/api/search?q="+url.QueryEscape(tc.q)+"&syntax="+tc.syntax)
		var r apiResult
		if err := json.Unmarshal([]byte(body), &r); code != 200 || err != nil || r.Total != tc.total {
			t.Errorf("%q syntax=%q: %d, total %d, want %d (%.200s)", tc.q, tc.syntax, code, r.Total, tc.total, body)
		}
	}
	_, body := get(t, ts.URL+"/?syntax=bleve&q="+url.QueryEscape("vpn OR canteen"))
	if !strings.Contains(body, `value="bleve" checked`) || !strings.Contains(body, `value="vpn OR canteen"`) {
		t.Error("the search page does not keep the bleve mode and the query")
	}
	if _, body := get(t, ts.URL+"/?q=vpn"); strings.Contains(body, `value="bleve" checked`) {
		t.Error("the search page checks the bleve mode by default")
	}
	if _, body := get(t, ts.URL+"/?syntax=bleve&size=5&q=canteen"); !strings.Contains(body, "syntax=bleve") {
		t.Error("paging links lose the syntax")
	}
}

func TestEverythingIsEscaped(t *testing.T) {
	ts := testServer(t, Options{DemoUsers: []DemoUser{{Name: "guest"}, {Name: xss, Groups: []string{"hr"}}}})
	pages := []string{
		"/?q=" + url.QueryEscape("vpn "+xss),
		"/?q=vpn",
		"/?q=" + url.QueryEscape(xss),
		"/?q=vpn&user=" + url.QueryEscape(xss),
		"/cluster/c3?q=" + url.QueryEscape(xss),
		"/diff/" + url.PathEscape("http://intra/x?a="+url.QueryEscape(xss)) + "?cluster=c3",
		"/api/search?q=vpn",
		"/status",
	}
	for _, p := range pages {
		_, body := get(t, ts.URL+p)
		if strings.Contains(body, "<script>") {
			t.Errorf("%s: unescaped payload in %s", p, body)
		}
	}
	_, body := get(t, ts.URL+"/?q=vpn")
	if !strings.Contains(body, "&lt;script&gt;") {
		t.Error("the payload does not appear escaped on the result page: was the page rendered?")
	}
}

func TestSearchPageAndWhatDiffers(t *testing.T) {
	ts := testServer(t, Options{DemoUsers: []DemoUser{{Name: "guest"}, {Name: "alice", Groups: []string{"hr"}}}})
	_, body := get(t, ts.URL+"/?q=vpn")
	for _, want := range []string{`id="results"`, "Connecting to the VPN", "1 similar page", "<mark>VPN</mark>", `class="diff"`} {
		if !strings.Contains(body, want) {
			t.Errorf("search page lacks %q", want)
		}
	}
	if strings.Contains(body, "Salary") {
		t.Error("guest sees the HR page")
	}
	_, body = get(t, ts.URL+"/?q=vpn&user=alice")
	if !strings.Contains(body, "Salary bands") || !strings.Contains(body, "2 similar pages") {
		t.Error("alice (hr) does not see the HR page and the HR mirror")
	}
	_, body = get(t, ts.URL+"/diff/"+url.PathEscape("http://intra/print/manual/vpn")+"?cluster=c1")
	if !strings.Contains(body, "<ins>copy.</ins>") && !strings.Contains(body, "<ins>Printed copy.</ins>") {
		t.Errorf("what-differs page does not mark the added words:\n%s", body)
	}
	code, _ := get(t, ts.URL+"/diff/"+url.PathEscape("http://intra/hr/vpn")+"?cluster=c1")
	if code != 404 {
		t.Errorf("guest can diff an HR page: %d", code)
	}
}

func TestHealthAndMetrics(t *testing.T) {
	ts := testServer(t, Options{GroupsHeader: "X-Groups", TrustedProxies: loopback, AdminGroups: []string{"admin"}})
	if code, body := get(t, ts.URL+"/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("healthz: %d %q", code, body)
	}
	apiSearch(t, ts.URL, "vpn")
	_, body := get(t, ts.URL+"/metrics", "X-Groups", "admin")
	for _, want := range []string{`doppel_queries_total{endpoint="api",outcome="ok"} 1`, "doppel_query_duration_seconds_bucket", "doppel_index_documents"} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

func TestStatusIsForAdmins(t *testing.T) {
	ts := testServer(t, Options{GroupsHeader: "X-Groups", TrustedProxies: loopback, AdminGroups: []string{"admin"}})
	for _, tc := range []struct {
		groups string
		code   int
	}{{"", 403}, {"hr", 403}, {"hr,admin", 200}} {
		for _, p := range []string{"/status", "/api/stats", "/metrics"} {
			code, body := get(t, ts.URL+p, "X-Groups", tc.groups)
			if code != tc.code {
				t.Errorf("%s for groups %q: %d, want %d", p, tc.groups, code, tc.code)
			}
			if code == 403 && strings.Contains(body, "searchable") && p == "/api/stats" {
				t.Errorf("%s leaks numbers to %q: %s", p, tc.groups, body)
			}
		}
	}
}

// TestBusyTimeoutAndMetrics: a client over its share gets 429, a full
// server 503, both with Retry-After and at once; the client's next
// request over its share 429 after limiter.Options.Tarpit; a request past
// the deadline 503; /metrics counts them.
func TestBusyTimeoutAndMetrics(t *testing.T) {
	block := make(chan struct{})
	srv, ts := floodServer(t, 1, Options{Timeout: 600 * time.Millisecond, GroupsHeader: "X-Groups", TrustedProxies: loopback, AdminGroups: []string{"admin"},
		Limits: limiter.Options{MaxConcurrent: 2, PerClient: 1, MaxWait: 50 * time.Millisecond, Tarpit: 100 * time.Millisecond}})
	text := srv.opts.Text
	srv.opts.Text = func(id string) (string, bool) { <-block; return text(id) }
	diff := ts.URL + "/diff/" + url.PathEscape("http://intra/long-copy") + "?cluster=long"
	type answer struct {
		code  int
		retry string
		body  string
	}
	ask := func(u, client string) answer {
		resp, err := http.DefaultClient.Do(newReq(t, u, "X-Forwarded-For", client))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return answer{resp.StatusCode, resp.Header.Get("Retry-After"), string(body)}
	}
	held := make(chan answer, 2)
	go func() { held <- ask(diff, "192.0.2.1") }() // holds a slot until the deadline
	go func() { held <- ask(diff, "192.0.2.2") }()
	for srv.Stats().Limiter.Running < 2 {
		time.Sleep(time.Millisecond)
	}
	// At once: the refusal is not held (read in the counter, not in a
	// time, which a busy machine stretches).
	if a := ask(ts.URL+"/api/search?q=canteen", "192.0.2.1"); a.code != 429 || a.retry == "" || srv.Stats().Limiter.Held != 0 {
		t.Errorf("second request of a client: %d, Retry-After %q, %d refusals held; want one not held", a.code, a.retry, srv.Stats().Limiter.Held)
	}
	start := time.Now()
	if a := ask(ts.URL+"/api/search?q=canteen", "192.0.2.1"); a.code != 429 || a.retry == "" || time.Since(start) < 100*time.Millisecond {
		t.Errorf("third request of a client, refused before: %d, Retry-After %q, after %v (want after the tarpit, 100ms)", a.code, a.retry, time.Since(start))
	}
	if a := ask(ts.URL+"/?q=canteen", "192.0.2.3"); a.code != 503 || a.retry == "" || !strings.Contains(a.body, "busy") {
		t.Errorf("a third client with both slots taken: %d, Retry-After %q", a.code, a.retry)
	}
	for range 2 {
		if a := <-held; a.code != 503 || a.retry == "" || !strings.Contains(a.body, "took too long") {
			t.Errorf("a diff past the deadline: %d %q %.300s", a.code, a.retry, a.body)
		}
	}
	close(block)
	if a := ask(diff, "192.0.2.1"); a.code != 200 {
		t.Errorf("after: %d", a.code)
	}
	get(t, ts.URL+"/api/search?syntax=bleve&q=*o*")
	_, body := get(t, ts.URL+"/metrics", "X-Groups", "admin")
	for _, want := range []string{"doppel_rejected_client_total 2", "doppel_rejected_held_total 1", "doppel_greedy_clients 1", "doppel_rejected_busy_total 1", "doppel_timeouts_total 2",
		"doppel_rejected_too_broad_total 1", `doppel_queries_total{endpoint="api",outcome="too_broad"} 1`, "doppel_diffs_computed_total 1"} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

// TestMemberStandsForItsCluster: a word only the print copy holds makes
// it the hit; the master is listed as such, its "what differs" comparing
// the copy shown with it.
func TestMemberStandsForItsCluster(t *testing.T) {
	ts := testServer(t, Options{})
	_, body := get(t, ts.URL+"/?q=printed")
	first := strings.Index(body, `class="title"`)
	if first < 0 || !strings.Contains(body[first:first+200], "http://intra/print/manual/vpn") {
		t.Fatalf("the print copy is not the hit for a word of its own:\n%s", body)
	}
	want := `<span class="meta">master</span> <a class="diff" href="/diff/` + url.PathEscape("http://intra/print/manual/vpn") + `?cluster=c1&amp;q=printed">`
	if !strings.Contains(body, want) {
		t.Fatalf("the master's row lacks %s:\n%s", want, body)
	}
	_, diff := get(t, ts.URL+"/diff/"+url.PathEscape("http://intra/print/manual/vpn")+"?cluster=c1")
	if !strings.Contains(diff, "<ins>Printed copy.</ins>") {
		t.Fatalf("what differs does not show the copy's own words:\n%s", diff)
	}
}

// TestOpenSearchAndBackLinks: /opensearch.xml describes the search with
// templates on the server's host, every page links to it, and the
// what-differs page links back to the results and the cluster.
func TestOpenSearchAndBackLinks(t *testing.T) {
	ts := testServer(t, Options{})
	code, body := get(t, ts.URL+"/opensearch.xml")
	var d struct {
		ShortName string `xml:"ShortName"`
		URLs      []struct {
			Type     string `xml:"type,attr"`
			Template string `xml:"template,attr"`
		} `xml:"Url"`
	}
	if err := xml.Unmarshal([]byte(body), &d); code != 200 || err != nil || len(d.URLs) != 2 ||
		d.URLs[0].Template != ts.URL+"/?q={searchTerms}" || d.URLs[1].Type != "application/json" {
		t.Errorf("opensearch.xml: %d %v %+v\n%s", code, err, d, body)
	}
	_, page := get(t, ts.URL+"/?q=vpn")
	if !strings.Contains(page, `<link rel="search" type="application/opensearchdescription+xml" title="Doppel" href="/opensearch.xml">`) {
		t.Error("the search page does not link the OpenSearch description")
	}
	m := regexp.MustCompile(`href="(/diff/[^"]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no what-differs link on the vpn results")
	}
	_, diff := get(t, ts.URL+html.UnescapeString(m[1]))
	if !strings.Contains(diff, `id="results" href="/?q=vpn"`) || !strings.Contains(diff, `id="cluster" href="/cluster/`) {
		t.Errorf("the what-differs page does not link back to the results and the cluster:\n%.600s", diff)
	}
}

// TestFacets: each value of /api/search's facets counts the collapsed
// results filtering by it gives each user, each of that value, and the
// values cover every result; the result page
// offers them as links and shows the filters in force as chips that a
// new query keeps.
func TestFacets(t *testing.T) {
	ts := testServer(t, Options{GroupsHeader: "X-Doppel-Groups", TrustedProxies: loopback})
	type result struct {
		Total  int
		Hits   []struct{ URL, Host string }
		Facets map[string][]struct {
			Value string
			Count int
		}
	}
	for _, groups := range []string{"", "hr", "hr,it,finance"} {
		for _, q := range []string{"", "news", "vpn"} {
			var res result
			_, body := get(t, ts.URL+"/api/search?size=100&q="+url.QueryEscape(q), "X-Doppel-Groups", groups)
			if err := json.Unmarshal([]byte(body), &res); err != nil {
				t.Fatal(err)
			}
			// Each value's count is the number of results filtering by
			// it gives, each of that value; the values of each facet
			// cover every result.
			for _, name := range []string{"host", "section"} {
				covered := map[string]bool{}
				for _, v := range res.Facets[name] {
					var fres result
					_, body := get(t, ts.URL+"/api/search?size=100&q="+url.QueryEscape(q)+"&"+name+"="+url.QueryEscape(v.Value), "X-Doppel-Groups", groups)
					if err := json.Unmarshal([]byte(body), &fres); err != nil {
						t.Fatal(err)
					}
					if fres.Total != v.Count || len(fres.Hits) != v.Count {
						t.Errorf("groups %q q=%q %s=%s: counted %d, filtering gives %d (%d hits)", groups, q, name, v.Value, v.Count, fres.Total, len(fres.Hits))
					}
					for _, h := range fres.Hits {
						u, _ := url.Parse(h.URL)
						sec := "/"
						if first, _, nested := strings.Cut(strings.TrimPrefix(u.Path, "/"), "/"); nested && first != "" {
							sec = "/" + first + "/"
						}
						if got := map[string]string{"host": h.Host, "section": sec}[name]; got != v.Value {
							t.Errorf("groups %q q=%q %s=%s: %s has %s", groups, q, name, v.Value, h.URL, got)
						}
						covered[h.URL] = true
					}
				}
				if len(covered) < len(res.Hits) {
					t.Errorf("groups %q q=%q: the %s values give %d results of %d", groups, q, name, len(covered), len(res.Hits))
				}
			}
		}
	}
	_, page := get(t, ts.URL+"/?q=")
	m := regexp.MustCompile(`<div class="facet" data-facet="section"><strong>section</strong> <a href="([^"]+)">(/[a-z]+/)</a>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no section facet on the result page")
	}
	_, filtered := get(t, ts.URL+html.UnescapeString(m[1]))
	if !strings.Contains(filtered, `<span class="chip">section: `+m[2]) || !strings.Contains(filtered, `<input type="hidden" name="section" value="`+m[2]+`">`) {
		t.Errorf("filtered by section %s: no chip, or the search form does not keep it", m[2])
	}
}

// TestSuggestions: a misspelled query gets "Did you mean" in the API and
// on the page; /api/suggest completes what is typed.
// TestSuggestionUnavailable checks that the API says when spelling help
// could not be made — here its search for near words is too broad for a
// term budget of one, which the plain search of the word does not need —
// rather than answering as for a word spelled right.
func TestSuggestionUnavailable(t *testing.T) {
	for _, tc := range []struct {
		maxTerms    int
		unavailable bool
		suggestion  string
	}{
		{0, false, "vpn"}, // the default budget: made
		{1, true, ""},
	} {
		bi, err := bleve.NewMemOnly(indexer.Mapping())
		if err != nil {
			t.Fatal(err)
		}
		ix, err := indexer.Wrap(bi, indexer.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"http://intra/vpn", "http://intra/vps", "http://intra/vpc"} {
			d := indexer.Doc{ID: id, URL: id, Title: strings.ToUpper(id[len(id)-3:]), Body: "About the " + id[len(id)-3:] + " service."}
			if err := ix.Add(context.Background(), d, indexer.Placement{ID: id, Cluster: id, Master: id}); err != nil {
				t.Fatal(err)
			}
		}
		if err := ix.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		srv, err := New(ranking.New(ix, ranking.Options{MaxTerms: tc.maxTerms}), Options{})
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(srv)
		code, body := get(t, ts.URL+"/api/search?q=vpnn")
		ts.Close()
		ix.Close()
		var res struct {
			Suggestion            string
			SuggestionUnavailable bool `json:"suggestion_unavailable"`
		}
		if err := json.Unmarshal([]byte(body), &res); err != nil || code != http.StatusOK ||
			res.Suggestion != tc.suggestion || res.SuggestionUnavailable != tc.unavailable {
			t.Errorf("MaxTerms %d: %d %s; want suggestion %q, unavailable %v", tc.maxTerms, code, body, tc.suggestion, tc.unavailable)
		}
	}
}

func TestSuggestions(t *testing.T) {
	ts := testServer(t, Options{})
	var res struct {
		Total      int
		Suggestion string
	}
	_, body := get(t, ts.URL+"/api/search?q=vpnn")
	if err := json.Unmarshal([]byte(body), &res); err != nil || res.Total != 0 || res.Suggestion != "vpn" {
		t.Errorf("vpnn: %v %d results, suggestion %q; want vpn", err, res.Total, res.Suggestion)
	}
	if _, page := get(t, ts.URL+"/?q=vpnn"); !strings.Contains(page, `Did you mean <a href="/?q=vpn"><em>vpn</em></a>?`) {
		t.Error("the page does not ask: Did you mean vpn?")
	}
	var cs struct {
		Completions []struct{ Text, Kind string }
	}
	_, body = get(t, ts.URL+"/api/suggest?q=conn")
	if err := json.Unmarshal([]byte(body), &cs); err != nil || len(cs.Completions) == 0 || cs.Completions[0].Text != "connecting" {
		t.Errorf("/api/suggest?q=conn: %v %+v", err, cs)
	}
	if _, page := get(t, ts.URL+"/"); !strings.Contains(page, `<script src="/suggest.js" defer></script>`) || !strings.Contains(page, `list="completions"`) {
		t.Error("the search box does not complete as people type")
	}
	if code, js := get(t, ts.URL+"/suggest.js"); code != 200 || !strings.Contains(js, `/api/suggest?q=`) {
		t.Errorf("/suggest.js: %d", code)
	}
	if code, _ := get(t, ts.URL+"/api/suggest?q=conn&user=guest"); code != http.StatusOK {
		t.Errorf("/api/suggest with the user parameter /api/search takes: %d", code)
	}
	if code, _ := get(t, ts.URL+"/api/suggest?q=can&x=1"); code != http.StatusBadRequest {
		t.Errorf("/api/suggest with an unknown parameter: %d", code)
	}
}
