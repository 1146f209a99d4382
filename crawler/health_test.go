package crawler

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/doppel-search/doppel/internal/demosite"
)

// bodyCounter serves h and counts the bytes of the bodies it answers the
// crawler's page fetches with (robots.txt, sitemaps and soft-404 probes
// aside: other clients fetch those, and they are not found).
type bodyCounter struct {
	h     http.HandlerFunc
	mu    sync.Mutex
	bytes int64
}

func (b *bodyCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	if p == "/robots.txt" || p == "/sitemap.xml" || strings.HasPrefix(p, "/doppel-probe-") {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html")
	b.h(countingWriter{w, b}, r)
}

func (b *bodyCounter) served() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.bytes
}

type countingWriter struct {
	http.ResponseWriter
	b *bodyCounter
}

func (w countingWriter) Write(p []byte) (int, error) {
	w.b.mu.Lock()
	w.b.bytes += int64(len(p))
	w.b.mu.Unlock()
	return w.ResponseWriter.Write(p)
}

// linkPage is a page of its own titled title, linking to links.
func linkPage(title string, links ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<html><head><title>%s</title></head><body><main><p>The %s page says something of its own about %s.</p>", title, title, title)
	for _, l := range links {
		fmt.Fprintf(&b, `<a href="%s">%s</a> `, l, l)
	}
	b.WriteString("</main></body></html>")
	return b.String()
}

// closedAddr returns a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func hostPort(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// TestHealthCountsAgreeWithTheCrawl crawls two loopback sites and a
// closed port: failed fetches counted by class and host (every attempt),
// pages per host summing to Stats, bytes as served, a history that ends
// where the crawl did.
func TestHealthCountsAgreeWithTheCrawl(t *testing.T) {
	bc := &bodyCounter{h: func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, linkPage("Bravo home", "/b1", "/b2"))
		case "/b1", "/b2":
			fmt.Fprint(w, linkPage("Bravo "+r.URL.Path[1:]))
		default:
			http.NotFound(w, r)
		}
	}}
	b := newSite(t, bc)
	closed := closedAddr(t)
	ac := &bodyCounter{h: func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, linkPage("Alpha home", "/a1", "/a2", "/a3", "/missing", "/flaky", "/secret", b.URL+"/", "http://"+closed+"/"))
		case "/a1", "/a2", "/a3":
			fmt.Fprint(w, linkPage("Alpha "+r.URL.Path[1:]))
		case "/flaky":
			http.Error(w, "try later", http.StatusInternalServerError)
		case "/secret":
			http.Error(w, "who are you", http.StatusUnauthorized)
		default:
			http.NotFound(w, r)
		}
	}}
	a := newSite(t, ac)
	aHost, bHost := hostPort(t, a.URL), hostPort(t, b.URL)
	opts := testOptions(a.URL + "/")
	opts.AllowedHosts = []string{aHost, bHost, closed}
	start := time.Now()
	c := crawl(t, t.TempDir(), opts)
	st, h := c.Stats(), c.Health()

	// 500 and a refused connection are transient: tried 1 + MaxRetries (3) times.
	wantFailures := map[string]int64{ClassHTTP4xx: 1, ClassHTTP5xx: 4, ClassLogin: 1, ClassRefused: 4}
	var failures int64
	for _, class := range FailureClasses() {
		if got, want := h.Failures[class], wantFailures[class]; got != want {
			t.Errorf("failed fetches of class %s: %d, want %d", class, got, want)
		}
		failures += h.Failures[class]
	}
	if len(h.Failures) != len(FailureClasses()) {
		t.Errorf("Health.Failures has %d classes, want every one of %v", len(h.Failures), FailureClasses())
	}
	if got, want := h.Bytes, ac.served()+bc.served(); got != want || got == 0 {
		t.Errorf("Health.Bytes = %d, the sites served %d bytes of pages", got, want)
	}

	hosts, total, err := c.Hosts(0)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		fetched, errors int64
		queued          int
	}
	want := map[string]row{aHost: {4, 6, 0}, bHost: {3, 0, 0}, closed: {0, 4, 0}}
	got := map[string]row{}
	var fetched, errors int64
	for _, hs := range hosts {
		got[hs.Host] = row{hs.Fetched, hs.Errors, hs.Queued}
		fetched += hs.Fetched
		errors += hs.Errors
		if hs.Fetched > 0 && hs.NextRevisit.Before(start) {
			t.Errorf("host %s: fetched pages but next revisit %v", hs.Host, hs.NextRevisit)
		}
		if hs.Fetched == 0 && !hs.NextRevisit.IsZero() {
			t.Errorf("host %s: no page fetched but a revisit at %v", hs.Host, hs.NextRevisit)
		}
	}
	if total != len(want) || len(hosts) != total {
		t.Errorf("Hosts: %d listed of %d, want %d: %v", len(hosts), total, len(want), got)
	}
	for hn, w := range want {
		if got[hn] != w {
			t.Errorf("host %s: fetched, errors, queued = %v, want %v", hn, got[hn], w)
		}
	}
	if fetched != st.Fetched || errors != failures {
		t.Errorf("hosts sum to %d fetched, %d errors; Stats.Fetched %d, failures %d", fetched, errors, st.Fetched, failures)
	}
	if len(hosts) == 3 && (hosts[0].Host != aHost || hosts[1].Host != bHost) {
		t.Errorf("hosts in order %s, %s, %s; want the most fetched first", hosts[0].Host, hosts[1].Host, hosts[2].Host)
	}
	if top, total, _ := c.Hosts(1); len(top) != 1 || total != 3 || top[0].Host != aHost {
		t.Errorf("Hosts(1) = %v of %d, want %s of 3", top, total, aHost)
	}

	hist := c.History()
	if len(hist) < 2 {
		t.Fatalf("History has %d samples, want one at the start and one at the end", len(hist))
	}
	first, last := hist[0], hist[len(hist)-1]
	if first.Fetched != 0 || first.Queued != 1 || last.Fetched != st.Fetched || last.Errors != failures || last.Queued != st.Queued {
		t.Errorf("History from %+v to %+v; want from nothing fetched and the seed queued to %d fetched, %d errors, %d queued",
			first, last, st.Fetched, failures, st.Queued)
	}
	if !last.At.After(first.At) || first.At.Before(start) {
		t.Errorf("History from %v to %v, the crawl started at %v", first.At, last.At, start)
	}
}

// TestHostsQueuedAndPacing: a crawl stopped by its budget lists the URLs
// it left queued per host (summing to Stats.Queued), with the host's
// next request; a delay longer than a fetch makes requests wait.
func TestHostsQueuedAndPacing(t *testing.T) {
	links := make([]string, 12)
	for i := range links {
		links[i] = fmt.Sprintf("/p%d", i)
	}
	s := newSite(t, &bodyCounter{h: func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, linkPage("Page "+r.URL.Path, links...))
	}})
	opts := testOptions(s.URL + "/")
	opts.Delay, opts.Parallelism, opts.MaxPages = 100*time.Millisecond, 1, 4
	c := crawl(t, t.TempDir(), opts)
	st := c.Stats()
	hosts, total, err := c.Hosts(10)
	if err != nil {
		t.Fatal(err)
	}
	if total != 1 || len(hosts) != 1 {
		t.Fatalf("Hosts: %v of %d, want the one site", hosts, total)
	}
	hs := hosts[0]
	if st.Queued == 0 || hs.Queued != st.Queued || hs.Fetched != st.Fetched || hs.Fetched != 4 {
		t.Errorf("host %+v; Stats: %d fetched, %d queued; want 4 fetched and the rest queued", hs, st.Fetched, st.Queued)
	}
	now := time.Now()
	if next := hs.NextVisit(now); next.Before(now) || next.After(now.Add(opts.Delay)) {
		t.Errorf("next visit %v with URLs queued, want between now (%v) and one delay later", next, now)
	}
	if p := c.Health().Pacing; p.Waits == 0 || p.Waited <= 0 {
		t.Errorf("pacing %+v: no request waited for a %v delay", p, opts.Delay)
	}
}

// TestNextVisit: queued URLs go as soon as pacing allows; otherwise the
// next revisit, pacing permitting.
func TestNextVisit(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	in := func(d time.Duration) time.Time { return now.Add(d) }
	for _, tc := range []struct {
		name string
		h    HostStats
		want time.Time
	}{
		{"nothing planned", HostStats{}, time.Time{}},
		{"queued, free", HostStats{Queued: 3}, now},
		{"queued, free since", HostStats{Queued: 3, NextRequest: in(-time.Second), NextRevisit: in(time.Hour)}, now},
		{"queued, paced", HostStats{Queued: 1, NextRequest: in(5 * time.Second)}, in(5 * time.Second)},
		{"revisit", HostStats{NextRevisit: in(time.Hour)}, in(time.Hour)},
		{"revisit after a pause", HostStats{NextRevisit: in(time.Minute), NextRequest: in(time.Hour)}, in(time.Hour)},
	} {
		if got := tc.h.NextVisit(now); !got.Equal(tc.want) {
			t.Errorf("%s: NextVisit = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestURLHost: urlHost reads the host as hostOf (url.Parse) does.
func TestURLHost(t *testing.T) {
	for _, u := range []string{"http://intra/", "https://intra:8443/a/b?c=d#e", "http://127.0.0.1:8080", "http://[::1]:80/x",
		"http://user@host/p", "file:///srv/docs/a.pdf", "smb://server/share/f.docx", "http://host?q=/x", "not a url"} {
		if got, want := urlHost(u), hostOf(u); got != want {
			t.Errorf("urlHost(%q) = %q, hostOf says %q", u, got, want)
		}
	}
}

// TestHostTableBounded: past maxHosts, new hosts are not tracked; known
// ones still count.
func TestHostTableBounded(t *testing.T) {
	var ht hostTable
	for i := range maxHosts + 5 {
		ht.add(fmt.Sprintf("h%d", i), 1, 0)
	}
	ht.add("h0", 1, 2)
	rows := ht.snapshot()
	if len(rows) != maxHosts {
		t.Errorf("%d hosts tracked, want %d", len(rows), maxHosts)
	}
	if r := rows["h0"]; r == nil || r.Fetched != 2 || r.Errors != 2 {
		t.Errorf("h0: %+v, want 2 fetched, 2 errors", r)
	}
	if rows[fmt.Sprintf("h%d", maxHosts)] != nil {
		t.Error("a host past the bound is tracked")
	}
}

// TestHistoryRing: the ring keeps the last historySize samples, oldest
// first.
func TestHistoryRing(t *testing.T) {
	for _, n := range []int{0, 1, historySize - 1, historySize, historySize + 1, 3*historySize + 7} {
		var h history
		for i := range n {
			h.add(Sample{Fetched: int64(i)})
		}
		got := h.samples()
		if want := min(n, historySize); len(got) != want {
			t.Errorf("%d added: %d kept, want %d", n, len(got), want)
			continue
		}
		for i, s := range got {
			if want := int64(n - len(got) + i); s.Fetched != want {
				t.Errorf("%d added: sample %d is %d, want %d", n, i, s.Fetched, want)
				break
			}
		}
	}
}

// TestHealthWhileRunning reads Hosts, Health and History while the crawl
// runs (run it with -race): no error, counts that never go back.
func TestHealthWhileRunning(t *testing.T) {
	s := newSite(t, demosite.Handler())
	c, err := Open(t.TempDir(), testOptions(s.URL+"/"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	done := make(chan struct{})
	read := make(chan error, 1)
	go func() {
		var fetched int64
		reads := 0
		for {
			select {
			case <-done:
				if reads == 0 {
					read <- fmt.Errorf("no read while the crawl ran")
					return
				}
				read <- nil
				return
			default:
			}
			hosts, _, err := c.Hosts(10)
			if err != nil {
				read <- err
				return
			}
			var sum int64
			for _, h := range hosts {
				sum += h.Fetched
			}
			if sum < fetched {
				read <- fmt.Errorf("pages fetched went back from %d to %d", fetched, sum)
				return
			}
			fetched = sum
			_, _ = c.Health(), c.History()
			reads++
		}
	}()
	if err := c.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	close(done)
	if err := <-read; err != nil {
		t.Error(err)
	}
	if hosts, _, _ := c.Hosts(1); len(hosts) != 1 || hosts[0].Fetched != c.Stats().Fetched {
		t.Errorf("after the crawl: %+v, Stats.Fetched %d", hosts, c.Stats().Fetched)
	}
}
