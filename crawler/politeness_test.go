package crawler

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler/admit"
	"github.com/doppel-search/doppel/crawler/pages"
)

// timedSite logs when each path is requested.
type timedSite struct {
	mu    sync.Mutex
	times map[string][]time.Time
}

func (s *timedSite) note(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.times[path] = append(s.times[path], time.Now())
	return len(s.times[path])
}

func (s *timedSite) at(path string) []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.times[path]...)
}

func writePage(w http.ResponseWriter, title string, links ...string) {
	w.Header().Set("Content-Type", "text/html")
	fmt.Fprintf(w, "<html><head><title>%s</title></head><body><main><p>This is the page about %s, with a sentence of its own about %s.</p>", title, title, title)
	for _, l := range links {
		fmt.Fprintf(w, `<a href="%s">%s</a> `, l, l)
	}
	fmt.Fprint(w, "</main></body></html>")
}

// sendTimes is a RoundTripper that notes when each page request leaves
// the crawler (robots.txt, the soft-404 probe and the sitemap aside): the
// client's side of the host's pace, which a server's clock would see
// later by however long the machine took to schedule its handler.
type sendTimes struct {
	base http.RoundTripper
	mu   sync.Mutex
	at   []time.Time
}

func (s *sendTimes) RoundTrip(r *http.Request) (*http.Response, error) {
	if p := r.URL.Path; p != "/robots.txt" && p != "/sitemap.xml" && !strings.HasPrefix(p, "/doppel-probe-") {
		s.mu.Lock()
		s.at = append(s.at, time.Now())
		s.mu.Unlock()
	}
	return s.base.RoundTrip(r)
}

// TestCrawlDelay: robots.txt's Crawl-delay spaces the requests to its
// host however many workers the crawl has, and however slowly the pages
// are processed: the gaps are measured where the requests are sent.
func TestCrawlDelay(t *testing.T) {
	const delay = 300 * time.Millisecond
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprintf(w, "User-agent: *\nCrawl-delay: %.1f\n", delay.Seconds())
			return
		}
		if strings.HasPrefix(r.URL.Path, "/doppel-probe-") || r.URL.Path == "/sitemap.xml" {
			http.NotFound(w, r)
			return
		}
		writePage(w, r.URL.Path, "/a", "/b", "/c", "/d", "/e")
	}))
	sent := &sendTimes{base: http.DefaultTransport}
	opts := testOptions(s.URL + "/")
	opts.Parallelism, opts.HostParallelism = 4, 4
	opts.Client = &http.Client{Transport: sent}
	crawl(t, t.TempDir(), opts)
	sent.mu.Lock()
	defer sent.mu.Unlock()
	if len(sent.at) != 6 {
		t.Fatalf("%d page requests sent, want 6", len(sent.at))
	}
	for i := 1; i < len(sent.at); i++ {
		// A little slack for the clock read after the pacer's: the
		// pacer's own record is exact (polite's TestSendKeepsDelay).
		if gap := sent.at[i].Sub(sent.at[i-1]); gap < delay-10*time.Millisecond {
			t.Errorf("request %d sent %v after the one before, under Crawl-delay %v", i, gap, delay)
		}
	}
}

// TestRetryAfterAndTransientErrors: a 503 with Retry-After is fetched
// again no sooner than it asks; a 500 is retried with backoff and the
// page is fetched once the server recovers; a page that keeps failing is
// recorded as a transient error after MaxRetries, and the next run
// retries it.
func TestRetryAfterAndTransientErrors(t *testing.T) {
	ts := &timedSite{times: map[string][]time.Time{}}
	var failing sync.Map // path → still failing
	failing.Store("/down", true)
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := ts.note(r.URL.Path)
		switch {
		case r.URL.Path == "/busy" && n == 1:
			w.Header().Set("Retry-After", "1")
			http.Error(w, "busy", http.StatusServiceUnavailable)
		case r.URL.Path == "/flaky" && n <= 2:
			http.Error(w, "oops", http.StatusInternalServerError)
		case r.URL.Path == "/down":
			if v, _ := failing.Load("/down"); v == true {
				http.Error(w, "down", http.StatusBadGateway)
				return
			}
			writePage(w, "down")
		case r.URL.Path == "/":
			writePage(w, "home", "/busy", "/flaky", "/down")
		case r.URL.Path == "/busy" || r.URL.Path == "/flaky":
			writePage(w, r.URL.Path)
		default:
			http.NotFound(w, r)
		}
	}))
	opts := testOptions(s.URL + "/")
	opts.MaxRetries = 2
	opts.RetryBackoff = 50 * time.Millisecond
	dir := t.TempDir()
	c := crawl(t, dir, opts)
	recs := records(t, c)
	busy := ts.at("/busy")
	if len(busy) != 2 || busy[1].Sub(busy[0]) < 950*time.Millisecond {
		t.Errorf("/busy requested at %v: want twice, the second at least the Retry-After of 1 s later", busy)
	}
	if r := recs[s.URL+"/busy"]; r.Status != pages.Fetched {
		t.Errorf("/busy recorded as %+v after its retry", r)
	}
	flaky := ts.at("/flaky")
	if r := recs[s.URL+"/flaky"]; len(flaky) != 3 || r.Status != pages.Fetched {
		t.Errorf("/flaky: %d requests, recorded %q; want 3 (two 500s, then the page) and fetched", len(flaky), r.Status)
	} else if gap1, gap2 := flaky[1].Sub(flaky[0]), flaky[2].Sub(flaky[1]); gap1 < 45*time.Millisecond || gap2 < 95*time.Millisecond {
		// (the first retry may also wait for the host's Retry-After pause)
		t.Errorf("/flaky retried after %v then %v: want at least the backoff (50 ms), then twice that", gap1, gap2)
	}
	if r := recs[s.URL+"/down"]; r.Status != pages.Failed || !r.Transient || len(ts.at("/down")) != 1+opts.MaxRetries {
		t.Errorf("/down: %d requests, recorded %+v; want %d and a transient failure", len(ts.at("/down")), r, 1+opts.MaxRetries)
	}
	if st := c.Stats(); st.Retries != 1+2+int64(opts.MaxRetries) {
		t.Errorf("%d retries, want %d", st.Retries, 1+2+opts.MaxRetries)
	}

	// The server recovers; the next run fetches what failed transiently.
	c.Close()
	failing.Store("/down", false)
	opts.Seeds = nil
	c2 := crawl(t, dir, opts)
	if r := records(t, c2)[s.URL+"/down"]; r.Status != pages.Fetched {
		t.Errorf("after the server recovered, the rerun recorded /down as %+v", r)
	}
}

// TestRobotsBehindRedirect: a robots.txt reached through a redirect is
// obeyed (RFC 9309).
func TestRobotsBehindRedirect(t *testing.T) {
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			http.Redirect(w, r, "/policies/robots.txt", http.StatusMovedPermanently)
		case "/policies/robots.txt":
			fmt.Fprint(w, "User-agent: *\nDisallow: /secret\n")
		case "/":
			writePage(w, "home", "/open", "/secret/plans")
		case "/open", "/secret/plans":
			writePage(w, r.URL.Path)
		default:
			http.NotFound(w, r)
		}
	}))
	c := crawl(t, t.TempDir(), testOptions(s.URL+"/"))
	if _, n := s.hitsWhere(func(p string) bool { return strings.HasPrefix(p, "/secret") }); n != 0 {
		t.Errorf("a page disallowed by the redirected robots.txt was requested %d times", n)
	}
	recs := records(t, c)
	if r := recs[s.URL+"/secret/plans"]; r.Status != pages.Skipped || r.Reason != admit.ReasonRobots {
		t.Errorf("/secret/plans recorded as %+v, want skipped by robots.txt", r)
	}
	if r := recs[s.URL+"/open"]; r.Status != pages.Fetched {
		t.Errorf("/open recorded as %+v", r)
	}
}
