package admit

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler/traps"
)

// site serves robots.txt through a redirect (RFC 9309: followed) and
// counts the requests for it.
func site(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var robots atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/real-robots.txt", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/real-robots.txt", func(w http.ResponseWriter, r *http.Request) {
		robots.Add(1)
		fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
	})
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s, &robots
}

func TestLink(t *testing.T) {
	s, _ := site(t)
	host := strings.TrimPrefix(s.URL, "http://")
	a := New(Options{AllowedHosts: []string{host}, Traps: traps.Options{MaxSegments: 4}})
	for _, tc := range []struct {
		raw     string
		verdict Verdict
		url     string
		reason  string
	}{
		{s.URL + "/docs/a.html#top", Follow, s.URL + "/docs/a.html", ""},
		{s.URL + "/docs/b.html?utm_source=mail&x=1", Follow, s.URL + "/docs/b.html?x=1", ""},
		{s.URL + "/private/salaries.html", Refuse, s.URL + "/private/salaries.html", ReasonRobots},
		{s.URL + "/a/b/c/d/e", Refuse, s.URL + "/a/b/c/d/e", "more than 4 path segments"},
		{"http://elsewhere.example/x", Ignore, "http://elsewhere.example/x", "out of scope"},
		{"mailto:someone@example.com", Ignore, "", ""},
		{"ftp://" + host + "/file", Ignore, "", ""},
	} {
		d := a.Link(tc.raw)
		if d.Verdict != tc.verdict || d.URL != tc.url || !strings.Contains(d.Reason, tc.reason) {
			t.Errorf("Link(%s) = %+v, want verdict %d, URL %q, reason containing %q", tc.raw, d, tc.verdict, tc.url, tc.reason)
		}
	}
	// A template that became a trap refuses its URLs from then on.
	for i := range 25 {
		a.Observe(fmt.Sprintf("%s/cal/%d", s.URL, i), traps.Duplicate, "c1")
	}
	if d := a.Link(s.URL + "/cal/99"); d.Verdict != Refuse || !strings.HasPrefix(d.Reason, "trap: ") {
		t.Errorf("a link into a trap: %+v", d)
	}
	if _, trapped := a.Trapped(s.URL + "/cal/7"); !trapped || !a.HasDuplicates(s.URL+"/cal/1") {
		t.Error("the trapped template is not reported")
	}
}

func TestRobotsFetchedOncePerHost(t *testing.T) {
	s, robots := site(t)
	a := New(Options{AllowedHosts: []string{strings.TrimPrefix(s.URL, "http://")}})
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() { a.Link(fmt.Sprintf("%s/p/%d", s.URL, i)) })
	}
	wg.Wait()
	if n := robots.Load(); n != 1 {
		t.Errorf("robots.txt fetched %d times, want once", n)
	}
	// Ignoring robots.txt: allowed, and not fetched at all.
	s2, robots2 := site(t)
	b := New(Options{AllowedHosts: []string{strings.TrimPrefix(s2.URL, "http://")}, IgnoreRobots: true})
	if d := b.Link(s2.URL + "/private/x"); d.Verdict != Follow || robots2.Load() != 0 {
		t.Errorf("IgnoreRobots: %+v after %d robots.txt requests", d, robots2.Load())
	}
}

func TestRedirectCanonicalSeed(t *testing.T) {
	a := New(Options{AllowedHosts: []string{"intra.example"}, AllowedPrefixes: []string{"http://intra.example/docs/"}, MaxRedirects: 2})
	for _, tc := range []struct {
		location string
		hops     int
		verdict  Verdict
		url      string
		reason   string
	}{
		{"/docs/b.html", 0, Follow, "http://intra.example/docs/b.html", ""},
		{"b.html", 1, Follow, "http://intra.example/docs/b.html", ""},
		{"/docs/c.html", 2, Refuse, "http://intra.example/docs/c.html", "redirect chain longer than 2"},
		{"/blog/x", 0, Refuse, "http://intra.example/blog/x", "redirect out of scope to http://intra.example/blog/x"},
	} {
		d, err := a.Redirect("http://intra.example/docs/a.html", tc.location, tc.hops)
		if err != nil || d.Verdict != tc.verdict || d.URL != tc.url || !strings.Contains(d.Reason, tc.reason) {
			t.Errorf("Redirect(%s, %d) = %+v, %v", tc.location, tc.hops, d, err)
		}
	}
	if _, err := a.Redirect("http://intra.example/docs/a.html", "http://[::1", 0); err == nil {
		t.Error("an unusable Location is not an error")
	}
	if c, ok := a.Canonical("http://intra.example/docs/a.html?print=1", "http://intra.example/docs/a.html"); !ok || c != "http://intra.example/docs/a.html" {
		t.Errorf("Canonical = %q, %v", c, ok)
	}
	for _, canon := range []string{"", "http://intra.example/docs/a.html", "http://other.example/docs/a.html", "/blog/a"} {
		if c, ok := a.Canonical("http://intra.example/docs/a.html", canon); ok {
			t.Errorf("Canonical(%q) = %q: itself, empty or out of scope must be ignored", canon, c)
		}
	}
	if _, err := a.Seed("http://intra.example/blog/"); err == nil {
		t.Error("a seed out of the prefixes was accepted")
	}
	if u, err := a.Seed("HTTP://Intra.Example/docs/#x"); err != nil || u != "http://intra.example/docs/" {
		t.Errorf("Seed = %q, %v", u, err)
	}
}

func TestSoftNotFoundLearnedWithRobots(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/real" {
			fmt.Fprint(w, "<html><body><p>A real page about the pension scheme.</p></body></html>")
			return
		}
		fmt.Fprint(w, "<html><body><p>Sorry, we could not find that page. Try the search box or the site map.</p></body></html>")
	})
	s := httptest.NewServer(mux)
	defer s.Close()
	host := strings.TrimPrefix(s.URL, "http://")
	a := New(Options{AllowedHosts: []string{host}})
	a.Link(s.URL + "/real")
	if !a.SoftNotFound(host, "Sorry, we could not find that page. Try the search box or the site map.") {
		t.Error("the host's not-found answer is not recognised")
	}
	if a.SoftNotFound(host, "A real page about the pension scheme.") {
		t.Error("a real page is taken for a soft 404")
	}
}

// OnRobots hears the Crawl-delay of our group and the sitemaps; after
// RobotsTTL robots.txt is fetched again and a changed rule applies.
func TestRobotsDelaySitemapsAndExpiry(t *testing.T) {
	var body atomic.Value
	body.Store("User-agent: DoppelBot\nCrawl-delay: 2\nDisallow: /old/\n\nUser-agent: *\nCrawl-delay: 30\n")
	var fetches atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fetches.Add(1)
			fmt.Fprint(w, body.Load().(string)+"Sitemap: http://"+r.Host+"/sitemap.xml\n")
			return
		}
		http.NotFound(w, r)
	}))
	defer s.Close()
	host := strings.TrimPrefix(s.URL, "http://")
	var mu sync.Mutex
	var heard []Robots
	a := New(Options{AllowedHosts: []string{host}, RobotsTTL: 50 * time.Millisecond, OnRobots: func(root *url.URL, r Robots) {
		if root.String() != s.URL {
			t.Errorf("OnRobots for %s", root)
		}
		mu.Lock()
		heard = append(heard, r)
		mu.Unlock()
	}})
	if d := a.Link(s.URL + "/old/x"); d.Verdict != Refuse {
		t.Errorf("/old/x: %+v, want refused", d)
	}
	if len(heard) != 1 || heard[0].CrawlDelay != 2*time.Second || len(heard[0].Sitemaps) != 1 ||
		heard[0].Sitemaps[0] != s.URL+"/sitemap.xml" {
		t.Fatalf("OnRobots heard %+v", heard)
	}
	a.Link(s.URL + "/old/y")
	if fetches.Load() != 1 {
		t.Errorf("robots.txt fetched %d times within its TTL", fetches.Load())
	}
	body.Store("User-agent: *\nDisallow:\n")
	time.Sleep(60 * time.Millisecond)
	if d := a.Link(s.URL + "/old/x"); d.Verdict != Follow {
		t.Errorf("after the TTL the new robots.txt allows /old/x: %+v", d)
	}
	if fetches.Load() != 2 || len(heard) != 2 || heard[1].CrawlDelay != 0 {
		t.Errorf("after the TTL: %d fetches, heard %+v", fetches.Load(), heard)
	}
}

// memory is a Shared in memory: holder names the crawler asking.
type memory struct {
	mu     *sync.Mutex
	values map[string][]byte
	locks  map[string]string
	holder string
}

func (m memory) Take(host, name string, _ time.Duration) ([]byte, bool, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := name + ":" + host
	if v, ok := m.values[k]; ok {
		return v, true, false, nil
	}
	if h, ok := m.locks[k]; ok && h != m.holder {
		return nil, false, false, nil
	}
	m.locks[k] = m.holder
	return nil, false, true, nil
}

func (m memory) Put(host, name string, v []byte, _ time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.values[name+":"+host] = v
	delete(m.locks, name+":"+host)
	return nil
}

// TestLearnShared: crawlers that share what they learn per host fetch a
// host's robots.txt and soft-404 probe once among them, one request a
// call of Learn, when a page of the host is about to be fetched; Link
// fetches nothing and follows links to hosts not learnt yet.
func TestLearnShared(t *testing.T) {
	var robots, probes atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		robots.Add(1)
		fmt.Fprint(w, "User-agent: *\nDisallow: /private/\nCrawl-delay: 2\n")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		probes.Add(1)
		fmt.Fprint(w, "<html><body><main><p>Sorry, we could not find that page on our site.</p></main></body></html>")
	})
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	host := strings.TrimPrefix(s.URL, "http://")
	mem := memory{mu: &sync.Mutex{}, values: map[string][]byte{}, locks: map[string]string{}}
	var delays sync.Map
	open := func(holder string) *Admission {
		m := mem
		m.holder = holder
		return New(Options{AllowedHosts: []string{host}, Shared: m, OnRobots: func(root *url.URL, r Robots) {
			delays.Store(holder, r.CrawlDelay)
		}})
	}
	a, b := open("a"), open("b")
	private := s.URL + "/private/x.html"
	if d := a.Link(private); d.Verdict != Follow {
		t.Errorf("before the host is learnt: Link = %+v, want Follow (Allowed decides at fetch time)", d)
	}
	if n := robots.Load() + probes.Load(); n != 0 {
		t.Errorf("Link made %d requests, want none", n)
	}
	u, _ := url.Parse(s.URL + "/page.html")
	ctx := t.Context()
	for i, want := range []Step{Fetched, Fetched, Known} {
		if got, err := a.Learn(ctx, u); err != nil || got != want {
			t.Fatalf("Learn %d: %v, %v; want %v", i, got, err, want)
		}
		if n := robots.Load() + probes.Load(); n != int32(min(i+1, 2)) {
			t.Fatalf("after Learn %d: %d requests", i, n)
		}
	}
	if got, err := b.Learn(ctx, u); err != nil || got != Known {
		t.Fatalf("the other crawler's Learn: %v, %v; want Known from what the first put", got, err)
	}
	if robots.Load() != 1 || probes.Load() != 1 {
		t.Errorf("robots.txt fetched %d times, the probe %d; want once each among the crawlers", robots.Load(), probes.Load())
	}
	for _, x := range []*Admission{a, b} {
		if x.Allowed(private) || !x.Allowed(s.URL+"/page.html") {
			t.Error("Allowed does not follow robots.txt once learnt")
		}
		if d := x.Link(private); d.Verdict != Refuse || d.Reason != ReasonRobots {
			t.Errorf("once learnt: Link = %+v, want refused by robots.txt", d)
		}
		if !x.SoftNotFound(host, "Sorry, we could not find that page on our site.") {
			t.Error("the soft-404 answer was not learnt")
		}
	}
	for _, h := range []string{"a", "b"} {
		if d, _ := delays.Load(h); d != 2*time.Second {
			t.Errorf("crawler %s heard a Crawl-delay of %v, want 2s", h, d)
		}
	}
	// While one crawler learns a host, the others come back later.
	c := open("c")
	other, _ := url.Parse("http://" + host + "/")
	mem.locks["robots http:127.0.0.2"] = "someone"
	other.Host = "127.0.0.2"
	if got, err := c.Learn(ctx, other); err != nil || got != Busy {
		t.Errorf("a host another crawler is learning: %v, %v; want Busy", got, err)
	}
}

// TestLinkScopeSpellings: a link leaves the crawl's folder or allowed
// prefix however its ".." is spelt — percent-encoded, behind an encoded
// slash, with backslashes — and is refused with a reason, never
// followed; a link that stays inside is followed.
func TestLinkScopeSpellings(t *testing.T) {
	a := New(Options{AllowedHosts: []string{"intra.example"}, AllowedPrefixes: []string{"http://intra.example/docs/"},
		Folders: []string{"file:///srv/share/", "smb://files.example/docs/reports/"}, IgnoreRobots: true})
	for _, tc := range []struct {
		raw     string
		verdict Verdict
		url     string
		reason  string
	}{
		{"file:///srv/share/a/b.txt", Follow, "file:///srv/share/a/b.txt", ""},
		{"file:///srv/share/a/%2e%2e/b.txt", Follow, "file:///srv/share/b.txt", ""},
		{"file:///srv/share/../etc/passwd", Refuse, "file:///srv/etc/passwd", ReasonOutsideFolders},
		{"file:///srv/share/%2e%2e/%2e%2e/%2e%2e/etc/passwd", Refuse, "file:///etc/passwd", ReasonOutsideFolders},
		{"file:///srv/share/%2E%2E/x", Refuse, "file:///srv/x", ReasonOutsideFolders},
		{"file:///srv/share/.%2e/x", Refuse, "file:///srv/x", ReasonOutsideFolders},
		{"file:///srv/share/..%2fx", Refuse, "file:///srv/x", ReasonOutsideFolders},
		{"file:///srv/share/..%5cx", Refuse, "file:///srv/x", ReasonOutsideFolders},
		{`file:///srv/share/..\x`, Refuse, "file:///srv/x", ReasonOutsideFolders},
		{"file:///srv/shared/x", Refuse, "file:///srv/shared/x", ReasonOutsideFolders},
		{"file:///etc/passwd", Refuse, "file:///etc/passwd", ReasonOutsideFolders},
		{"smb://files.example/docs/reports/q3.pdf", Follow, "smb://files.example/docs/reports/q3.pdf", ""},
		{"smb://files.example/docs/reports/%2e%2e/hr/", Refuse, "smb://files.example/docs/hr/", ReasonOutsideFolders},
		{`smb://files.example/docs/reports/..\hr\pay.pdf`, Refuse, "smb://files.example/docs/hr/pay.pdf", ReasonOutsideFolders},
		{"smb://files.example/docs/reports/..%2f..%2fadmin$/", Refuse, "smb://files.example/admin$/", ReasonOutsideFolders},
		{"http://intra.example/docs/a.html", Follow, "http://intra.example/docs/a.html", ""},
		{"http://intra.example/docs/%2e%2e/admin/", Ignore, "http://intra.example/admin/", "out of scope"},
		{"http://intra.example/docs/..%2fadmin/", Refuse, "http://intra.example/docs/..%2Fadmin/", "once decoded"},
		{"http://intra.example/docs/x/..%2F..%2F..%2Fadmin/", Refuse, "http://intra.example/docs/x/..%2F..%2F..%2Fadmin/", "once decoded"},
		{`http://intra.example/docs/..%5Cadmin/`, Refuse, `http://intra.example/docs/..%5Cadmin/`, "once decoded"},
		{"http://intra.example/docs/a%2Fb.html", Follow, "http://intra.example/docs/a%2Fb.html", ""},
	} {
		d := a.Link(tc.raw)
		if d.Verdict != tc.verdict || d.URL != tc.url || !strings.Contains(d.Reason, tc.reason) {
			t.Errorf("Link(%s) = %+v, want verdict %d, URL %q, reason containing %q", tc.raw, d, tc.verdict, tc.url, tc.reason)
		}
	}
}

// TestLinkExcludeViewsFamilies: an Exclude pattern, a view by its shape
// and a family stopped for yielding nothing refuse a link, each with
// its reason; FetchViews follows views; the query is kept as linked.
func TestLinkExcludeViewsFamilies(t *testing.T) {
	s, _ := site(t)
	host := strings.TrimPrefix(s.URL, "http://")
	exclude, err := CompileExclude([]string{`[?&]action=(edit|history)`, `/Special:`})
	if err != nil {
		t.Fatal(err)
	}
	a := New(Options{AllowedHosts: []string{host}, Exclude: exclude, Traps: traps.Options{DemoteUselessAfter: 2, MaxUselessPerFamily: 4}})
	views := New(Options{AllowedHosts: []string{host}, FetchViews: true})
	for _, tc := range []struct {
		raw     string
		verdict Verdict
		reason  string
		fetch   Verdict // with FetchViews and no patterns
	}{
		{s.URL + "/w/index.php?title=Os&action=edit", Refuse, ReasonExcluded + " [?&]action=(edit|history)", Follow},
		{s.URL + "/w/index.php/Special:WhatLinksHere/Os", Refuse, ReasonExcluded + " /Special:", Follow},
		{s.URL + "/w/index.php?title=Os&action=raw", Follow, "", Follow},
		{s.URL + "/doc/?C=N;O=D", Refuse, ReasonView + " a sort order of a file listing", Follow},
		{s.URL + "/w/index.php?title=Os&printable=yes", Refuse, ReasonView + " a print view", Follow},
		{s.URL + "/doc/?sort=name;order=desc", Follow, "", Follow},
	} {
		d := a.Link(tc.raw)
		if d.Verdict != tc.verdict || d.Reason != tc.reason {
			t.Errorf("Link(%s) = %+v, want verdict %d, reason %q", tc.raw, d, tc.verdict, tc.reason)
		}
		if d := views.Link(tc.raw); d.Verdict != tc.fetch {
			t.Errorf("with FetchViews, Link(%s) = %+v", tc.raw, d)
		}
	}
	if d := a.Link(s.URL + "/doc/?sort=name;order=desc"); d.URL != s.URL+"/doc/?sort=name;order=desc" {
		t.Errorf("a query with ; became %s", d.URL)
	}
	// A family whose requests yield nothing: demoted, then stopped.
	for i, want := range []struct{ demoted, stopped bool }{{false, false}, {true, false}, {false, false}, {false, true}} {
		d, st := a.ObserveYield(fmt.Sprintf("%s/w/index.php?title=T%c&action=info", s.URL, 'a'+i), traps.Nothing, "marked noindex")
		if d != want.demoted || st != want.stopped {
			t.Errorf("useless request %d: demoted %v stopped %v, want %+v", i+1, d, st, want)
		}
	}
	if !a.Demoted(s.URL + "/w/index.php?title=Other&action=info") {
		t.Error("the family of ?action=info is not demoted")
	}
	if d := a.Link(s.URL + "/w/index.php?title=Other&action=info"); d.Verdict != Refuse || !strings.Contains(d.Reason, "4 marked noindex") {
		t.Errorf("a link of a stopped family: %+v", d)
	}
	if d := a.Link(s.URL + "/w/index.php?title=Other"); d.Verdict != Follow {
		t.Errorf("an article, another family: %+v", d)
	}
	// A file type whose requests are all of another type is stopped
	// everywhere on the host; noindex pages of a type stop no type.
	for i := range 4 {
		a.ObserveYield(fmt.Sprintf("%s/doc/p%d/changelog.gz", s.URL, i), traps.Nothing, traps.WhyType)
		a.ObserveYield(fmt.Sprintf("%s/doc/p%d/index.html", s.URL, i), traps.Nothing, "marked noindex")
	}
	if d := a.Link(s.URL + "/doc/other/changelog.gz"); d.Verdict != Refuse || !strings.Contains(d.Reason, "*.gz") {
		t.Errorf("a gzip file after four of another type: %+v", d)
	}
	if d := a.Link(s.URL + "/doc/other/index.html"); d.Verdict != Follow {
		t.Errorf("a page of another folder after noindex pages elsewhere: %+v", d)
	}
	if _, err := CompileExclude([]string{"(edit"}); err == nil {
		t.Error("a pattern that does not compile was accepted")
	}
}

// TestLinkKeysKept asks about the same links again and again, as a site's
// pages link the same URLs: what the URL alone decides is kept
// (linkKeys), what the crawl learns meanwhile — a template turned trap, a
// family stopped, a template's budget spent — decides each time.
func TestLinkKeysKept(t *testing.T) {
	s, _ := site(t)
	host := strings.TrimPrefix(s.URL, "http://")
	a := New(Options{AllowedHosts: []string{host}, Traps: traps.Options{MaxPerTemplate: 3, DemoteUselessAfter: 2, MaxUselessPerFamily: 4}})
	cal, item := s.URL+"/cal/2026/1", s.URL+"/w/index.php?title=Os&action=info"
	for range 2 {
		if d := a.Link(cal); d.Verdict != Follow || d.URL != cal {
			t.Fatalf("Link(%s) = %+v, want Follow", cal, d)
		}
	}
	// The budget of 3 URLs a template counts every call, kept keys or not.
	if d := a.Link(s.URL + "/cal/2026/2"); d.Verdict != Follow {
		t.Errorf("the template's third URL: %+v", d)
	}
	if d := a.Link(cal); d.Verdict != Refuse || !strings.Contains(d.Reason, "more than 3 URLs like") {
		t.Errorf("the template's fourth admission: %+v", d)
	}
	if d := a.Link(item); d.Verdict != Follow {
		t.Fatalf("Link(%s) = %+v, want Follow", item, d)
	}
	for i := range 4 {
		a.ObserveYield(fmt.Sprintf("%s/w/index.php?title=T%d&action=info", s.URL, i), traps.Nothing, "marked noindex")
	}
	if d := a.Link(item); d.Verdict != Refuse || !strings.Contains(d.Reason, "4 marked noindex") {
		t.Errorf("the same link once its family is stopped: %+v", d)
	}
	// More links than are kept: each still decided by its own URL.
	a.links.max = 100
	for i := range a.links.max + 10 {
		raw := fmt.Sprintf("%s/p/%d/x.html#f", s.URL, i)
		if d := a.Link(raw); d.URL != fmt.Sprintf("%s/p/%d/x.html", s.URL, i) {
			t.Fatalf("Link(%s) = %+v", raw, d)
		}
	}
	if d := a.Link(s.URL + "/private/a.html"); d.Verdict != Refuse || d.Reason != ReasonRobots {
		t.Errorf("robots.txt after the keys were forgotten: %+v", d)
	}
	if n := len(a.links.m); n > a.links.max {
		t.Errorf("%d links' keys kept, at most %d", n, a.links.max)
	}
}
