// Package crawlstatus fills the status page's live crawl section
// (web.Crawl) from a crawl running in this process: its requests against
// the page budget, the URL families it learnt yield nothing, the busiest
// hosts, failed fetches by class and the crawl over time. `doppel run`,
// `doppel crawl --serve` and the browser tests use it.
package crawlstatus

import (
	"sync"
	"time"

	"github.com/doppel-search/doppel/crawler"
	"github.com/doppel-search/doppel/web"
)

// MaxHosts is how many hosts the section lists; the others are counted.
const MaxHosts = 50

// A Source is what Live reads: a *crawler.Crawler.
type Source interface {
	Stats() crawler.Stats
	Options() crawler.Options
	Hosts(limit int) ([]crawler.HostStats, int, error)
	Health() crawler.Health
	History() []crawler.Sample
}

var _ Source = (*crawler.Crawler)(nil)

// Live returns a function that gives src's live crawl section, computed
// at most once per ttl (Crawler.Hosts reads the whole frontier) and
// shared by every caller meanwhile. If the hosts cannot be read, the
// section keeps the hosts it last had. Safe for concurrent use.
func Live(src Source, ttl time.Duration) func() *web.Crawl {
	var mu sync.Mutex
	var last *web.Crawl
	var at time.Time
	return func() *web.Crawl {
		mu.Lock()
		defer mu.Unlock()
		if last != nil && time.Since(at) < ttl {
			return last
		}
		now := time.Now()
		next := section(src, now)
		if next.Hosts == nil && last != nil { // the frontier could not be read
			next.Hosts, next.MoreHosts = last.Hosts, last.MoreHosts
		}
		last, at = next, now
		return last
	}
}

// section reads src at now; Hosts is nil if the hosts cannot be read.
func section(src Source, now time.Time) *web.Crawl {
	st, health := src.Stats(), src.Health()
	cr := &web.Crawl{Failures: health.Failures, Requests: st.Requests, Skipped: st.Skipped, Budget: src.Options().MaxPages,
		Families: health.Families}
	if hosts, total, err := src.Hosts(MaxHosts); err == nil {
		cr.Hosts, cr.MoreHosts = make([]web.CrawlHost, 0, len(hosts)), total-len(hosts)
		for _, h := range hosts {
			cr.Hosts = append(cr.Hosts, web.CrawlHost{Host: h.Host, Fetched: h.Fetched, Errors: h.Errors, Queued: h.Queued,
				NextVisit: h.NextVisit(now)})
		}
	}
	for _, s := range src.History() {
		cr.History = append(cr.History, web.CrawlSample{At: s.At, Fetched: s.Fetched, Errors: s.Errors, Queued: s.Queued})
	}
	return cr
}
