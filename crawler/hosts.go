package crawler

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/doppel-search/doppel/crawler/frontier"
)

// maxHosts bounds the hosts counted one by one: the first maxHosts hosts
// a crawl meets are tracked, later ones are not listed by Hosts (their
// pages count in Stats and Health all the same).
const maxHosts = 10_000

// HostStats is what a crawl knows about one host. It is a value: a
// snapshot.
type HostStats struct {
	Host string // host and port as in the URLs; "" for file URLs
	// Fetched counts the host's pages fetched, as Stats.Fetched does:
	// distinct pages, across restarts, less those found gone.
	Fetched int64
	// Errors counts the host's failed fetches in this process, as
	// Health.Failures does: every attempt.
	Errors int64
	// Queued counts the host's URLs waiting in the frontier, as
	// Stats.Queued does (not those being fetched).
	Queued int
	// NextRequest is when the host's pacing (Delay, Crawl-delay,
	// Retry-After) lets a request start; a time not after now, or zero,
	// means at once.
	NextRequest time.Time
	// NextRevisit is the earliest scheduled revisit of the host's pages;
	// zero if none is scheduled.
	NextRevisit time.Time
}

// NextVisit returns when the crawl will next ask the host, seen at now:
// with URLs queued, as soon as its pacing allows (now at the earliest);
// otherwise at its next scheduled revisit (or later, if its pacing says
// so); the zero time if nothing is planned.
func (h HostStats) NextVisit(now time.Time) time.Time {
	switch {
	case h.Queued > 0 && h.NextRequest.After(now):
		return h.NextRequest
	case h.Queued > 0:
		return now
	case h.NextRevisit.IsZero():
		return time.Time{}
	}
	if h.NextRequest.After(h.NextRevisit) {
		return h.NextRequest
	}
	return h.NextRevisit
}

// hostTable counts pages fetched and failed fetches per host, for at most
// maxHosts hosts. It is safe for concurrent use.
type hostTable struct {
	mu    sync.Mutex
	hosts map[string]*hostCount
}

type hostCount struct{ fetched, errors int64 }

// add adds to host's counts, unless the table is full and host not in it.
func (t *hostTable) add(host string, fetched, errors int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	hc := t.hosts[host]
	if hc == nil {
		if len(t.hosts) >= maxHosts {
			return
		}
		if t.hosts == nil {
			t.hosts = map[string]*hostCount{}
		}
		hc = &hostCount{}
		t.hosts[host] = hc
	}
	hc.fetched += fetched
	hc.errors += errors
}

// snapshot returns the counts as rows by host.
func (t *hostTable) snapshot() map[string]*HostStats {
	t.mu.Lock()
	defer t.mu.Unlock()
	rows := make(map[string]*HostStats, len(t.hosts))
	for h, hc := range t.hosts {
		rows[h] = &HostStats{Host: h, Fetched: hc.fetched, Errors: hc.errors}
	}
	return rows
}

// Hosts returns what the crawl knows per host: the limit busiest hosts
// (every host if limit ≤ 0) — most URLs queued first, then most pages
// fetched, most errors, and by name — and how many hosts there are in
// all. Hosts are those with pages counted, URLs queued or revisits
// scheduled, at most 10,000 (the first met). It may be called at any
// time, also while Run runs. Cost: one pass over the frontier's URLs and
// one over its scheduled revisits.
func (c *Crawler) Hosts(limit int) ([]HostStats, int, error) {
	rows := c.n.health.hosts.snapshot()
	row := func(host string) *HostStats {
		r := rows[host]
		if r == nil && len(rows) < maxHosts {
			r = &HostStats{Host: host}
			rows[host] = r
		}
		return r
	}
	err := c.front.All(func(u string, st frontier.State, _ string) error {
		if st != frontier.Pending {
			return nil
		}
		if r := row(urlHost(u)); r != nil {
			r.Queued++
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	err = c.front.Scheduled(func(u string, at time.Time) error { // in time order: the first is the earliest
		if r := row(urlHost(u)); r != nil && r.NextRevisit.IsZero() {
			r.NextRevisit = at
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	list := make([]HostStats, 0, len(rows))
	for _, r := range rows {
		list = append(list, *r)
	}
	slices.SortFunc(list, func(a, b HostStats) int {
		return cmp.Or(cmp.Compare(b.Queued, a.Queued), cmp.Compare(b.Fetched, a.Fetched),
			cmp.Compare(b.Errors, a.Errors), strings.Compare(a.Host, b.Host))
	})
	total := len(list)
	if limit > 0 && len(list) > limit {
		list = list[:limit]
	}
	for i := range list {
		list[i].NextRequest = c.pacer.Next(list[i].Host)
	}
	return list, total, nil
}

// urlHost returns the host (with port) of a normalized URL, as hostOf
// does, without parsing the rest: Hosts calls it for every URL the
// frontier holds.
func urlHost(u string) string {
	i := strings.Index(u, "://")
	if i < 0 {
		return hostOf(u)
	}
	h := u[i+len("://"):]
	if j := strings.IndexAny(h, "/?#"); j >= 0 {
		h = h[:j]
	}
	if j := strings.LastIndexByte(h, '@'); j >= 0 {
		h = h[j+1:]
	}
	return h
}
