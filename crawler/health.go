package crawler

import (
	"slices"
	"sync/atomic"

	"github.com/gocolly/colly/v2"

	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/crawler/polite"
)

// Health is what a crawl's fetches met beyond Stats, in this process:
// failures by class, bytes read, and the waits per-host pacing imposed.
// It is a value: a snapshot.
type Health struct {
	// Failures counts failed fetches by class, with every class of
	// FailureClasses present (zeros included): each attempt, retries and
	// revisits included. A URL that fails three times counts three.
	Failures map[string]int64
	// Bytes counts the bytes of the response bodies read for pages
	// (after decompression, up to the body limits); robots.txt and
	// sitemaps aside.
	Bytes int64
	// Pacing counts the requests that waited for their host's request
	// slot (its parallelism, Delay or Crawl-delay, a Retry-After) and the
	// time they waited; the sitemap reader's included.
	Pacing polite.Stats
	// Families holds the URL families (urlnorm.Shape) whose requests the
	// crawl has learnt yield nothing, by family: "demoted" (fetched after
	// every other URL) or "stopped" (no longer fetched); see traps.Yields.
	Families map[string]string
}

// failureClasses are the classes Health.Failures counts, in the order
// FailureClasses lists them; an unknown class counts as ClassOther.
var failureClasses = [...]string{ClassRefused, ClassDNS, ClassTLS, ClassTimeout, ClassReset,
	ClassHTTP4xx, ClassHTTP5xx, ClassLogin, ClassOther}

// FailureClasses returns the classes a failed fetch is counted under
// (ClassRefused … ClassOther): a fixed set, for metrics labels.
func FailureClasses() []string { return slices.Clone(failureClasses[:]) }

// health holds what Health, Hosts and History report: written by the
// committer, the fetches and the sampler, read at any time.
type health struct {
	failures [len(failureClasses)]atomic.Int64
	bytes    atomic.Int64
	hosts    hostTable
	history  history
}

// classIndex returns the index of class in failureClasses; ClassOther's
// for an unknown class.
func classIndex(class string) int {
	if i := slices.Index(failureClasses[:], class); i >= 0 {
		return i
	}
	return len(failureClasses) - 1
}

// noteFailure counts r, a result the committer takes, if it is a fetch
// that failed: under its class and its host.
func (h *health) noteFailure(r *result) {
	if !r.popped || r.status != pages.Failed {
		return
	}
	h.failures[classIndex(r.class)].Add(1)
	h.hosts.add(urlHost(r.url), 0, 1)
}

// countBodies counts the bytes of the response bodies col reads, error
// answers' included.
func (h *health) countBodies(col *colly.Collector) {
	count := func(resp *colly.Response) { h.bytes.Add(int64(len(resp.Body))) }
	col.OnResponse(count)
	col.OnError(func(resp *colly.Response, _ error) { count(resp) })
}

// Health returns what the crawl's fetches met so far.
func (c *Crawler) Health() Health {
	failures := make(map[string]int64, len(failureClasses))
	for i, class := range failureClasses {
		failures[class] = c.n.health.failures[i].Load()
	}
	return Health{Failures: failures, Bytes: c.n.health.bytes.Load(), Pacing: c.pacer.Stats(), Families: c.commit.admit.Families()}
}
