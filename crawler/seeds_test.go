package crawler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler/pages"
)

// closedPort returns a loopback address nothing listens at.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// noSuchHost is a transport that finds no host named "*.invalid" (as a
// DNS server answers NXDOMAIN) and dials the others: the test talks to
// no resolver.
func noSuchHost() *http.Client {
	d := &net.Dialer{}
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, _ := net.SplitHostPort(addr)
		if strings.HasSuffix(host, ".invalid") {
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		}
		return d.DialContext(ctx, network, addr)
	}}}
}

// untrustedTLS is an HTTPS site whose certificate the crawler does not
// trust (the handshake errors it logs are dropped).
func untrustedTLS(t *testing.T) *httptest.Server {
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "<p>hi</p>") }))
	s.Config.ErrorLog = log.New(io.Discard, "", 0)
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}

// TestNoSeedStopsAtOnce: a crawl whose seeds all fail stops at once —
// well within 5 s, without retries — with ErrNoSeed naming each seed and
// why: refused, no such host, 404, TLS, robots.txt, a redirect to a 404.
func TestNoSeedStopsAtOnce(t *testing.T) {
	notFound := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
		case "/moved":
			http.Redirect(w, r, "/nowhere", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	tlsSite := untrustedTLS(t)
	for _, tc := range []struct {
		name, seed, reason string
	}{
		{"refused", "http://" + closedPort(t) + "/", "connection refused"},
		{"no such host", "http://intranet.invalid/", "no such host intranet.invalid"},
		{"404", notFound.URL + "/typo/", "HTTP 404"},
		{"tls", tlsSite.URL + "/", "TLS: "},
		{"robots", notFound.URL + "/private/", "robots.txt"},
		{"redirect to a 404", notFound.URL + "/moved", notFound.URL + "/nowhere: HTTP 404"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := testOptions(tc.seed)
			opts.RetryBackoff = time.Second // a retry would show in the time taken
			opts.Client = noSuchHost()
			c, err := Open(t.TempDir(), opts)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			err = c.Run(context.Background())
			if !errors.Is(err, ErrNoSeed) || !strings.Contains(err.Error(), tc.reason) {
				t.Fatalf("Run = %v, want ErrNoSeed naming %q", err, tc.reason)
			}
			if c.Stats().Retries > 0 { // at once: no retry (read in the count, not in a time)
				t.Errorf("%d retries, want at once", c.Stats().Retries)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("the error is not one line: %q", err)
			}
		})
	}
}

// TestFailedSeedIsTriedAgain: the same command run again after the
// problem is fixed crawls: a seed that failed is queued again.
func TestFailedSeedIsTriedAgain(t *testing.T) {
	var up atomic.Bool
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !up.Load() || r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, "<html><body><main><p>The intranet home page, at last.</p></main></body></html>")
	}))
	dir := t.TempDir()
	opts := testOptions(s.URL + "/")
	c, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Run(context.Background()); !errors.Is(err, ErrNoSeed) {
		t.Fatalf("first run: %v, want ErrNoSeed", err)
	}
	c.Close()
	up.Store(true)
	c = crawl(t, dir, opts)
	if st := c.Stats(); st.Fetched != 1 {
		t.Errorf("second run fetched %d pages, want the seed", st.Fetched)
	}
}

// TestSomeSeedsFail: one good seed is enough; the bad one is recorded.
func TestSomeSeedsFail(t *testing.T) {
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, "<html><body><main><p>Home.</p></main></body></html>")
	}))
	opts := testOptions(s.URL + "/")
	opts.Seeds = append(opts.Seeds, "http://"+closedPort(t)+"/")
	c := crawl(t, t.TempDir(), opts)
	if st := c.Stats(); st.Fetched != 1 || st.Errors != 1 {
		t.Errorf("fetched %d, errors %d; want 1 and 1", st.Fetched, st.Errors)
	}
}

// TestPermanentFailuresAreNotRetried: a link to a host that does not
// exist or whose certificate is not trusted fails once, recorded as not
// transient; a refused connection is retried.
func TestPermanentFailuresAreNotRetried(t *testing.T) {
	tlsSite := untrustedTLS(t)
	closed := "http://" + closedPort(t) + "/"
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, `<html><body><main><p>Links.</p><a href="http://wiki.invalid/">wiki</a> <a href="%s/">tls</a> <a href="%s">down</a></main></body></html>`, tlsSite.URL, closed)
	}))
	opts := testOptions(s.URL + "/")
	opts.AllowedHosts = []string{hostOf(s.URL + "/"), "wiki.invalid", hostOf(tlsSite.URL + "/"), hostOf(closed)}
	opts.Client = noSuchHost()
	opts.MaxRetries = 2
	c := crawl(t, t.TempDir(), opts)
	if st := c.Stats(); st.Retries != 2 {
		t.Errorf("retries %d, want 2 (the refused connection's)", st.Retries)
	}
	recs := records(t, c)
	for u, want := range map[string]struct {
		reason    string
		transient bool
	}{
		"http://wiki.invalid/": {"no such host", false},
		tlsSite.URL + "/":      {"TLS: ", false},
		closed:                 {"connection refused", true},
	} {
		r := recs[u]
		if r.Status != pages.Failed || !strings.Contains(r.Reason, want.reason) || r.Transient != want.transient {
			t.Errorf("%s: %s %q transient %v; want failed %q transient %v", u, r.Status, r.Reason, r.Transient, want.reason, want.transient)
		}
	}
}
