package crawler

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/doppel-search/doppel/crawler/frontier"
)

// On a shared frontier (frontier.Shared: workers crawling one site
// together, each a Crawler with a directory of its own), every request to
// a host passes the frontier's gate (gated), so that, whoever sends them
// — pages, robots.txt, the soft-404 probe, sitemaps — a host with a delay
// gets one request at a time, each its delay after the one before was
// answered: as the host sees them, no two are closer than the delay. A claimed URL is one turn of its host: the
// worker that claims the first URL of a host spends the turns of its
// first claims on what the host must tell first — its robots.txt, its
// answer for a missing page (admit.Learn) and its sitemaps
// (sitemaps.step), each learnt once among the workers and kept in the
// frontier — giving the URL back each time (frontier.Shared.Release), and
// fetches the page at a later turn.

// gated sends a request to the network once the shared frontier's gate
// lets it start (claimed: for a claimed URL's turn, see
// frontier.Shared.Start). File and smb URLs pass.
type gated struct {
	base    http.RoundTripper
	q       frontier.Shared
	claimed bool
}

// RoundTrip waits for the request's turn, sends it and, once it is
// answered (its header read) or failed, tells the frontier.
func (g gated) RoundTrip(r *http.Request) (*http.Response, error) {
	base := g.base
	if base == nil {
		base = http.DefaultTransport
	}
	if r.URL.Scheme != "http" && r.URL.Scheme != "https" {
		return base.RoundTrip(r)
	}
	if err := startRequest(r.Context(), g.q, r.URL.Host, g.claimed); err != nil {
		return nil, err
	}
	resp, err := base.RoundTrip(r)
	if err := g.q.End(r.URL.Host); err != nil {
		slog.Warn("crawler: the shared frontier did not hear a request's end", "host", r.URL.Host, "err", err)
	}
	return resp, err
}

// gate returns a function wrapping a transport in q's gate (nil without
// a shared frontier).
func gate(q frontier.Shared, claimed bool) func(http.RoundTripper) http.RoundTripper {
	if q == nil {
		return nil
	}
	return func(base http.RoundTripper) http.RoundTripper { return gated{base: base, q: q, claimed: claimed} }
}

// startRequest waits until q lets a request to host start, and records
// its start.
func startRequest(ctx context.Context, q frontier.Shared, host string, claimed bool) error {
	for {
		wait, err := q.Start(host, claimed)
		if err != nil || wait <= 0 {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}
