package crawler

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/doppel-search/doppel/crawler/admit"
	"github.com/doppel-search/doppel/crawler/frontier"
	"github.com/doppel-search/doppel/crawler/pages"
)

// ErrNoSeed means that a crawl which had fetched nothing could fetch none
// of its seeds: the error names each seed and why (connection refused, no
// such host, HTTP 404, TLS, robots.txt), and the crawl stops at once
// rather than retrying.
var ErrNoSeed = errors.New("no seed could be fetched")

// ErrNothingFetched means a crawl ended without fetching a page: its
// error gives the first reasons recorded.
var ErrNothingFetched = errors.New("the crawl fetched no page")

// seedWatch follows the seeds of a crawl that has fetched nothing yet,
// until one of them (or the target of its redirect) is fetched. When
// every one has failed, the crawl stops with ErrNoSeed.
type seedWatch struct {
	waiting map[string]bool // seeds (and their redirects' targets) not decided yet
	failed  []string        // "URL: reason", in the order they failed
}

// watch starts watching the seed u.
func (w *seedWatch) watch(u string) { w.waiting[u] = true }

// fail notes that the seed u failed for reason; it returns ErrNoSeed with
// every seed's reason when no seed is left to wait for.
func (w *seedWatch) fail(u, reason string) error {
	delete(w.waiting, u)
	w.failed = append(w.failed, u+": "+reason)
	if len(w.waiting) > 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrNoSeed, strings.Join(w.failed, "; "))
}

// seedResult notes what r says of a watched seed and reports whether it
// decided it as failed, so that it is not retried. It stops watching
// when a seed was fetched, and stops the crawl (c.stop) when every seed
// failed.
func (c *committer) seedResult(r *result) (failed bool) {
	w := c.seeds
	if w == nil || !w.waiting[r.url] || r.prev != nil {
		return false
	}
	switch {
	case r.status == pages.Fetched:
		c.seeds = nil
	case r.redirectTo != "":
		delete(w.waiting, r.url)
		w.watch(r.redirectTo)
	case len(r.links) > 0: // a folder's listing: its files are the crawl
		c.seeds = nil
	case r.status == pages.Failed || r.status == pages.Skipped:
		if err := w.fail(r.url, r.reason); err != nil {
			c.stop(err)
		}
		return true
	}
	return false
}

// fetchedNothing returns ErrNothingFetched with the first reasons
// recorded in this run, for a crawl that ended without a page — unless
// its frontier is shared (frontier.Shared) and records a page done or in
// flight: the other workers on it fetched, or are fetching, every page
// this one could have.
func (c *committer) fetchedNothing() error {
	if _, shared := c.front.(frontier.Shared); shared {
		if st, err := c.front.Stats(); err == nil && st.Done+st.InFlight > 0 {
			return nil
		}
	}
	if len(c.reasons) == 0 {
		return fmt.Errorf("%w (no URL was queued: see the seeds and the allowed hosts)", ErrNothingFetched)
	}
	return fmt.Errorf("%w: %s", ErrNothingFetched, strings.Join(c.reasons, "; "))
}

// queueSeeds queues the seeds (or records why not) — again, a seed that
// failed before — and the URLs an earlier run recorded as transient
// failures, in one commit. A crawl that has fetched nothing yet watches
// its seeds (seedWatch).
func (c *committer) queueSeeds() error {
	c.batch, c.fbatch = pages.Batch{}, frontier.Batch{}
	c.seeds, c.reasons = nil, nil
	if c.fetched.Load() == 0 {
		c.seeds = &seedWatch{waiting: map[string]bool{}}
	}
	var links []link
	for _, s := range c.opts.Seeds {
		u, err := c.admit.Seed(s)
		if err != nil {
			return err
		}
		d := c.admit.Link(u)
		rec, known, err := c.pages.Get(d.URL)
		if err != nil {
			return err
		}
		switch {
		case known && rec.Status == pages.Failed: // the entry point people gave: tried again each run
			c.fbatch.Requeue(d.URL, PrioritySeed, revisitPayload(0))
		case known:
		default:
			links = append(links, link{Decision: d, priority: PrioritySeed, fixed: true})
		}
		if c.seeds == nil {
			continue
		}
		if d.Verdict == admit.Refuse {
			if err := c.seeds.fail(d.URL, d.Reason); err != nil {
				return err
			}
			continue
		}
		c.seeds.watch(d.URL)
	}
	for _, u := range c.transient { // failed for a while in an earlier run: try again
		c.fbatch.Requeue(u, PriorityRetry, revisitPayload(0))
	}
	c.transient = nil
	adds, err := c.queueLinks(links, make([]bool, len(links)), nil, time.Now().UTC())
	if err != nil {
		return err
	}
	if _, err := c.front.Commit(&c.fbatch); err != nil {
		return err
	}
	c.noteQueued(adds)
	if err := c.role.handOn(context.Background()); err != nil {
		return err
	}
	_, err = c.pages.Commit(&c.batch)
	return err
}
