// Package gate sends the requests of a crawl on a shared frontier
// (frontier.Shared: workers crawling one site together) through the
// frontier's gate, so that, whoever sends them — pages, robots.txt, the
// soft-404 probe, sitemaps — a host with a delay gets one request at a
// time, each once the one before was answered and its delay after the
// one before was sent: as the host sees them, no two are closer than the
// delay. When a request was sent is told to the frontier as the time from
// its start — the Start call that let it go, plus the wait of a start
// recorded ahead — to the moment its request was written
// (net/http/httptrace), which bounds it from above whatever the clocks.
package gate

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
	"time"

	"github.com/doppel-search/doppel/crawler/frontier"
)

// Transport sends a request to the network once the shared frontier's
// gate lets it start (Claimed: for a claimed URL's turn, see
// frontier.Shared.Start), and tells the frontier when it was answered and
// when, at the latest, it was sent (frontier.Shared.End). File and smb
// URLs pass at once.
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
// answered (its header read) or failed, tells the frontier, with how
// long after the turn's recorded start (wait) the request was written:
// the last time its transport reported writing it (httptrace's
// WroteRequest, once per try), or, if it reported none, the time to the
// answer.
func (g Transport) RoundTrip(r *http.Request) (*http.Response, error) {
	base := g.Base
	if base == nil {
		base = http.DefaultTransport
	}
	if r.URL.Scheme != "http" && r.URL.Scheme != "https" {
		return base.RoundTrip(r)
	}
	asked, err := wait(r.Context(), g.Queue, r.URL.Host, g.Claimed)
	if err != nil {
		return nil, err
	}
	var wrote atomic.Int64 // ns after asked; 0: not reported
	trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) {
		wrote.Store(int64(max(time.Since(asked), 1)))
	}}
	resp, err := base.RoundTrip(r.WithContext(httptrace.WithClientTrace(r.Context(), trace)))
	sent := time.Duration(wrote.Load())
	if sent == 0 {
		sent = time.Since(asked)
	}
	if err := g.Queue.End(r.URL.Host, sent); err != nil {
		slog.Warn("gate: the shared frontier did not hear a request's end", "host", r.URL.Host, "err", err)
	}
	return resp, err
}

// Wait waits until q lets a request to host start, and records its
// start (frontier.Shared.Start), or until ctx is done.
func Wait(ctx context.Context, q frontier.Shared, host string, claimed bool) error {
	_, err := wait(ctx, q, host, claimed)
	return err
}

// wait is Wait; it also returns when, by this machine's clock, the
// request's recorded start was at the latest: when the Start call that
// let it go began, plus the wait of a start recorded ahead. A start
// recorded ahead whose wait ctx interrupts is ended at once (End).
func wait(ctx context.Context, q frontier.Shared, host string, claimed bool) (time.Time, error) {
	for {
		asked := time.Now()
		wait, started, err := q.Start(host, claimed)
		if err != nil || started && wait <= 0 {
			return asked, err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			if started {
				if err := q.End(host, 0); err != nil {
					slog.Warn("gate: the shared frontier did not hear a start given up", "host", host, "err", err)
				}
			}
			return asked, ctx.Err()
		case <-t.C:
		}
		if started {
			return asked.Add(wait), nil
		}
	}
}
