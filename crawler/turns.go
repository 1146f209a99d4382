package crawler

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/doppel-search/doppel/crawler/admit"
	"github.com/doppel-search/doppel/crawler/frontier"
	"github.com/doppel-search/doppel/crawler/frontier/gate"
)

// hostTurns is how a crawl's requests take their host's turns beyond the
// pacer's slots, chosen once by Open from the crawl's frontier:
//
//   - ownTurns: a frontier of the crawl's own — the pacer's slots are
//     all there is: nothing to wait for, nothing to learn first;
//   - sharedTurns: a frontier that worker processes share
//     (frontier.Shared: a Redis Cluster's; see "Workers on a shared
//     frontier" in the package doc) — every request to a host passes the
//     frontier's gate (package frontier/gate), and the first claimed
//     turns of a host go to what it must tell first (robots.txt, its
//     answer for a missing page, its sitemaps), learnt once among the
//     workers, the claimed URL going back to the frontier.
//
// The fetcher, the sitemap reader and the dispatcher call it and never
// ask which it is.
type hostTurns interface {
	// wrap returns base with its requests taking their host's turn
	// (claimed: at the turn of a URL this worker claimed).
	wrap(base http.RoundTripper, claimed bool) http.RoundTripper
	// admission sets how admission learns a host (robots.txt, the
	// soft-404 probe), with client the crawl's Options.Client.
	admission(aopts *admit.Options, client *http.Client)
	// spend spends the turn of r's URL on what its host must tell first,
	// if this worker does not know it yet, and reports whether it was
	// spent (r is given back or skipped) and whether ctx interrupted it.
	spend(ctx context.Context, f *fetcher, r *result) (spent, interrupted bool)
	// giveBack gives a claimed URL whose turn was spent back to the
	// frontier.
	giveBack(url string) error
	// readsSitemaps reports whether this worker reads host's sitemaps
	// at this reading (see sitemaps.readHost).
	readsSitemaps(s *sitemaps, host string) bool
	// elsewhere reports whether other workers have URLs in flight (or,
	// if the dispatcher's look found the queue empty, gave one back
	// since).
	elsewhere(empty bool) bool
}

// newHostTurns returns the turns of a crawl on front.
func newHostTurns(front frontier.Queue) hostTurns {
	if q, ok := front.(frontier.Shared); ok {
		return sharedTurns{q, front}
	}
	return ownTurns{}
}

// ownTurns are the turns on a frontier of the crawl's own: the pacer's.
type ownTurns struct{}

func (ownTurns) wrap(base http.RoundTripper, _ bool) http.RoundTripper { return base }
func (ownTurns) admission(*admit.Options, *http.Client)                {}
func (ownTurns) spend(context.Context, *fetcher, *result) (bool, bool) { return false, false }

// giveBack is never called: no turn is spent.
func (ownTurns) giveBack(string) error { return nil }

// readsSitemaps: the crawl reads every host's sitemaps itself.
func (ownTurns) readsSitemaps(*sitemaps, string) bool { return true }

func (ownTurns) elsewhere(bool) bool { return false }

// sharedTurns are the turns on a frontier workers share: q, which is
// front.
type sharedTurns struct {
	q     frontier.Shared
	front frontier.Queue
}

// wrap passes the requests through the frontier's gate.
func (t sharedTurns) wrap(base http.RoundTripper, claimed bool) http.RoundTripper {
	return gate.Transport{Base: base, Queue: t.q, Claimed: claimed}
}

// admission learns robots.txt and the probe once among the workers, kept
// in the frontier (admit.Options.Shared), at a claimed URL's turn.
func (t sharedTurns) admission(aopts *admit.Options, client *http.Client) {
	aopts.Shared = t.q
	g := gate.Transport{Queue: t.q, Claimed: true}
	aopts.Client = &http.Client{}
	if client != nil {
		g.Base, aopts.Client.Jar = client.Transport, client.Jar
	}
	aopts.Client.Transport = g
}

// spend spends the turn of r's URL on what its host must tell before its
// pages are fetched, if this worker does not know it yet: robots.txt, the
// answer for a missing page (learnt once among the workers:
// admit.Learn), then its sitemaps (read once a reading among them:
// sitemaps.step). It reports whether the turn was spent (r is given back
// to the frontier, with a sitemap's findings, or skipped by robots.txt)
// and whether ctx interrupted it.
func (sharedTurns) spend(ctx context.Context, f *fetcher, r *result) (spent, interrupted bool) {
	u, err := url.Parse(r.url)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" {
		return false, false
	}
	step, err := f.admit.Learn(ctx, u)
	switch {
	case ctx.Err() != nil:
		return true, true
	case err != nil:
		f.setFatal(err)
		r.fail(err.Error())
		return true, false
	case step != admit.Known: // a request made, or another worker at it
		r.release = true
		return true, false
	case r.prev == nil && !f.admit.Allowed(r.url): // its link was followed before its host was learnt
		r.skip(admit.ReasonRobots)
		return true, false
	}
	found, read := f.maps.step(ctx, u)
	if ctx.Err() != nil {
		return true, true
	}
	if read {
		r.release, r.found = true, found
	}
	return read, false
}

// giveBack releases the URL's claim (frontier.Shared.Release).
func (t sharedTurns) giveBack(url string) error { return t.q.Release(url) }

// readsSitemaps reports whether no other worker has taken the reading of
// host's sitemaps since Revisit.Sitemaps, and marks the host read for
// sitemaps.step.
func (t sharedTurns) readsSitemaps(s *sitemaps, host string) bool {
	s.mu.Lock()
	s.stepped[host] = true
	s.mu.Unlock()
	_, _, mine, err := t.q.Take(host, "sitemaps", max(s.opts.Revisit.Sitemaps, time.Minute))
	if err != nil {
		slog.Warn("crawler: the shared frontier did not say who reads a host's sitemaps", "host", host, "err", err)
	}
	return mine
}

// elsewhere asks the frontier for the URLs leased to other workers. This
// worker's own, whose pages are committed but not yet marked done (the
// committer marks them at its next commit), do not count. With none, and
// the dispatcher's look having found the queue empty, a URL pending
// counts, read after: another worker gave a claim back (Release: the
// claim's turn went to robots.txt or a sitemap) between the look and
// this question, which ended its lease. (A look that found URLs pending
// and took none — the page budget spent — is not made to wait for them.)
func (t sharedTurns) elsewhere(empty bool) bool {
	n, err := t.q.InFlightElsewhere()
	if err != nil || n > 0 || !empty {
		return err == nil && n > 0
	}
	st, err := t.front.Stats()
	return err == nil && st.Pending > 0
}
