// Package gate sends the requests of a crawl on a shared frontier
// (frontier.Shared: workers crawling one site together) through the
// frontier's gate, so that, whoever sends them — pages, robots.txt, the
// soft-404 probe, sitemaps — a host with a delay gets one request at a
// time, each its delay after the one before was answered: as the host
// sees them, no two are closer than the delay.
package gate

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/doppel-search/doppel/crawler/frontier"
)

// Transport sends a request to the network once the shared frontier's
// gate lets it start (Claimed: for a claimed URL's turn, see
// frontier.Shared.Start), and tells the frontier when it was answered.
// File and smb URLs pass at once.
type Transport struct {
	// Base sends the request. Default http.DefaultTransport.
	Base http.RoundTripper
	// Queue is the shared frontier whose gate requests pass.
	Queue frontier.Shared
	// Claimed: the requests are made at the turn of a URL this worker
	// claimed (frontier.Shared.Start's claimed).
	Claimed bool
}

// RoundTrip waits for the request's turn, sends it and, once it is
// answered (its header read) or failed, tells the frontier.
func (g Transport) RoundTrip(r *http.Request) (*http.Response, error) {
	base := g.Base
	if base == nil {
		base = http.DefaultTransport
	}
	if r.URL.Scheme != "http" && r.URL.Scheme != "https" {
		return base.RoundTrip(r)
	}
	if err := Wait(r.Context(), g.Queue, r.URL.Host, g.Claimed); err != nil {
		return nil, err
	}
	resp, err := base.RoundTrip(r)
	if err := g.Queue.End(r.URL.Host); err != nil {
		slog.Warn("gate: the shared frontier did not hear a request's end", "host", r.URL.Host, "err", err)
	}
	return resp, err
}

// Wait waits until q lets a request to host start, and records its
// start (frontier.Shared.Start), or until ctx is done.
func Wait(ctx context.Context, q frontier.Shared, host string, claimed bool) error {
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
