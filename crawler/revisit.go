package crawler

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"time"

	"github.com/doppel-search/doppel/crawler/frontier"
	"github.com/doppel-search/doppel/crawler/hook"
	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/crawler/schedule"
	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/dedup/cluster"
	"github.com/doppel-search/doppel/page"
)

// Priorities of revisits and retries.
const (
	PriorityRevisit = 5 // a fetched page whose revisit fell due: after new links from unique pages, before those from near-duplicates
	// PriorityListingRevisit: a listing whose revisit fell due, before the
	// other revisits due: one fetch tells of up to a hundred pages born
	// or deleted, which a backlog of revisits should not put off.
	PriorityListingRevisit = PriorityRevisit + 1
	PriorityRetry          = -10 // a URL fetched again after a transient failure, once its backoff is over
)

// maxRecheck bounds how many members of a cluster are fetched at once when
// its master changed.
const maxRecheck = 50

// revisitPlan is the committer's revisit planning: the revisit policy
// and page states, where revisits are scheduled, and the retries of
// transient failures. The committer's part; touched only by the
// committer goroutine.
type revisitPlan struct {
	recrawl *recrawl // revisit policy and page states
	// A shared crawl's follower: the shared frontier its revisits are
	// scheduled in (nil: the crawl's own frontier).
	schedule  frontier.Queue
	transient []string // URLs recorded as transient failures, retried by the next Run
}

// recrawl is the committer's revisit state: the policy and every fetched
// page's schedule state. The policy keeps its allocation up to date as
// pages are observed (Policy.Observe); it is given every state once, when
// the crawl resumes, to rebuild it (plan).
type recrawl struct {
	opts    schedule.Options
	policy  schedule.Policy
	states  map[string]schedule.State // URL → state
	planned bool
	// hints are the sitemaps' changefreqs not yet in their pages'
	// states: taken into a page's state (State.ChangeFreq, a weak prior
	// on its rate) at its next fetch.
	hints map[string]time.Duration
	// listings are the pages revisited as listings (Record.Listing):
	// their count sets their share of the budget (listingShare).
	listings map[string]struct{}
	// candidates are the pages that may be listings: their links are
	// kept from their first fetch and have not changed since
	// (Record.LinksOnly). They have a share of the budget of their own
	// (listingShare), so that a listing's first change — and the
	// deletions it reveals — is seen as soon as a listing's.
	candidates map[string]struct{}
	// roots are the square roots of the listings' change rates (within
	// 1/MinInterval), of those that have changed, and rootSum their sum:
	// a listing's share of the listings' budget is its root over the sum
	// (recrawl.listing).
	roots   map[string]float64
	rootSum float64
}

// listingShare is the share of the budget the listings take: each is due,
// until it changes, within listings ÷ (listingShare · Budget), so that a
// page deleted is seen soon (a listing stops linking to it, and checkLeft
// fetches it at once) and a page born is fetched soon. A listing's own
// changes say how often one of its hundred pages is born or deleted, but
// a Poisson schedule by them leaves a deletion unseen for half the
// average interval. What a listing's fetch is worth: a listing whose
// pages are born or deleted at rate λ, fetched every T, leaves λT/2 of
// them stale on average, and a fetch spent on the pages instead is worth
// μ (the allocation's multiplier, in page-seconds); T = √(2μ/λ) spends
// best. On the kit's living site at 5 fetches/s (μ ≈ 50 s, 21 listings,
// λ ≈ 1/770 s each) that is 270 s, 1.5 % of the budget: a fiftieth
// keeps them near it (210 s each) while a deletion is still seen within
// minutes. (A twentieth, before: 84 s, and 3 % of the budget taken from
// the pages' revisits for a few seconds less of staleness.) Listings
// that change faster are due sooner, but within the share together
// (recrawl.listing).
const listingShare = 0.02

// setListing counts the page of record rec as a listing
// (Record.Listing), a candidate (Record.LinksOnly) or neither.
func (rc *recrawl) setListing(rec *pages.Record) {
	rc.listings = setMember(rc.listings, rec.URL, rec.Listing())
	if !rec.Listing() {
		rc.setRoot(rec.URL, 0)
	}
	rc.candidates = setMember(rc.candidates, rec.URL, !rec.Listing() && rec.LinksOnly)
}

// forgetListing counts url as neither a listing nor a candidate.
func (rc *recrawl) forgetListing(url string) {
	delete(rc.listings, url)
	delete(rc.candidates, url)
	rc.setRoot(url, 0)
}

// setRoot sets the listing url's root (0: none) and keeps rootSum.
func (rc *recrawl) setRoot(url string, root float64) {
	rc.rootSum -= rc.roots[url]
	if root <= 0 {
		delete(rc.roots, url)
	} else {
		if rc.roots == nil {
			rc.roots = map[string]float64{}
		}
		rc.roots[url] = root
		rc.rootSum += root
	}
	if len(rc.roots) == 0 {
		rc.rootSum = 0 // no drift left over from the additions
	}
}

// setMember adds url to set (made if nil) or takes it out, and returns
// the set.
func setMember(set map[string]struct{}, url string, in bool) map[string]struct{} {
	if !in {
		delete(set, url)
		return set
	}
	if set == nil {
		set = map[string]struct{}{}
	}
	set[url] = struct{}{}
	return set
}

// hint keeps the changefreqs a sitemap gave (URL → interval) that differ
// from their pages' states, for their next fetch.
func (rc *recrawl) hint(freqs map[string]time.Duration) {
	for u, f := range freqs {
		if st, ok := rc.states[u]; ok && st.ChangeFreq == f {
			delete(rc.hints, u)
			continue
		}
		if rc.hints == nil {
			rc.hints = map[string]time.Duration{}
		}
		rc.hints[u] = f
	}
}

func newRecrawl(o RevisitOptions) *recrawl {
	so := schedule.Options{Budget: o.Budget, MinInterval: o.MinInterval, MaxInterval: o.MaxInterval, Prior: o.Prior}
	return &recrawl{opts: *so.EnsureDefaults(), policy: schedule.New(o.Policy, so), states: map[string]schedule.State{}}
}

// average is the interval of equal revisits at the budget: the pages
// scheduled over the budget, within the bounds.
func (rc *recrawl) average() time.Duration {
	d := time.Duration(float64(len(rc.states)) / rc.opts.Budget * float64(time.Second))
	return min(max(d, rc.opts.MinInterval), rc.opts.MaxInterval)
}

// plan gives the policy every page's state, the first time there are
// any: after a restart, the states the records kept. (States the policy
// completes, such as a rate missing from an old record, are kept.)
func (rc *recrawl) plan() {
	if rc.planned || len(rc.states) == 0 {
		return
	}
	rc.policy.Plan(func(yield func(string, *schedule.State) bool) {
		for u, s := range rc.states {
			ok := yield(u, &s)
			rc.states[u] = s
			if !ok {
				return
			}
		}
	})
	rc.planned = true
}

// listing records the listing url's root (recrawl.roots) and returns its
// interval, with schedule state st: the mean time between its changes as
// estimated from its own history alone (within the bounds), at most the
// average interval, and, until it has changed, at most the listings'
// share of the budget allows (listingShare). A listing
// is not revisited for its own freshness but for the pages born and
// deleted that its changes reveal: unlike a page's, its interval does not
// grow when it changes faster than it could be kept fresh. But the
// listings together keep to their share: a listing that has changed is
// revisited no more often than its part of the share, which is the
// square root of its change rate over the sum of the listings' — the
// interval √(2μ/λ) above, with μ set so that the listings that change
// take the share between them. (Pages listed a hundred a listing in
// order change every listing after one deleted: on the kit's living site
// the listings changed every minute or two, and at their own rates they
// took 3 % of the budget, not their 2 %.)
func (rc *recrawl) listing(url string, st schedule.State) time.Duration {
	d := min(rc.average(), rc.listingBound())
	// A listing has changed: its own history is enough, without a prior.
	// The mean is compared as seconds: a slow rate's overflows a Duration.
	rate := schedule.EstimateRate(st.History, schedule.Prior{})
	if mean := 1 / rate; mean < d.Seconds() {
		d = max(time.Duration(mean*float64(time.Second)), rc.opts.MinInterval)
	}
	root := math.Sqrt(min(rate, 1/rc.opts.MinInterval.Seconds()))
	rc.setRoot(url, root)
	if root > 0 {
		part := rc.rootSum / (root * listingShare * rc.opts.Budget)
		d = max(d, min(time.Duration(part*float64(time.Second)), rc.average(), rc.opts.MaxInterval))
	}
	return d
}

// listingBound is the interval at which every listing together takes
// listingShare of the budget, within the bounds.
func (rc *recrawl) listingBound() time.Duration { return rc.shareBound(len(rc.listings)) }

// candidate is the longest interval of a page that may be a listing
// (Record.LinksOnly): the interval at which every such page together
// takes listingShare of the budget, within the bounds. Unlike a
// listing's, it is not held to the average interval: a site may have
// many pages with ListingLinks links that never change (a manual's
// tables of contents), and they together take at most their share.
func (rc *recrawl) candidate() time.Duration { return rc.shareBound(len(rc.candidates)) }

// shareBound is the interval at which n pages together take
// listingShare of the budget, within the bounds.
func (rc *recrawl) shareBound(n int) time.Duration {
	d := time.Duration(float64(max(n, 1)) / (listingShare * rc.opts.Budget) * float64(time.Second))
	return min(max(d, rc.opts.MinInterval), rc.opts.MaxInterval)
}

// nextVisit adds a fetch at now to rec's schedule state (changed: a real
// change since the last fetch; a sitemap's changefreq, if one came since)
// and returns when rec is due again: the
// policy's interval, CopyFactor times longer for a near-duplicate that is
// not its cluster's master, and for a listing (a page whose links have
// changed: Record.Links) at most recrawl.listing, since its changes lead
// to pages born and deleted.
func (c *committer) nextVisit(rec *pages.Record, changed, master bool, now time.Time) time.Time {
	st := rec.Schedule
	st.History = append([]schedule.Observation(nil), st.History...)
	if f, ok := c.recrawl.hints[rec.URL]; ok {
		st.ChangeFreq = f
		delete(c.recrawl.hints, rec.URL)
	}
	c.recrawl.policy.Observe(rec.URL, &st, now, changed, rec.LastModified)
	interval := c.recrawl.policy.Next(&st)
	if !master {
		interval = min(time.Duration(float64(interval)*c.opts.Revisit.CopyFactor), c.opts.Revisit.MaxInterval)
	}
	c.recrawl.setListing(rec)
	switch {
	case rec.Listing():
		interval = min(interval, c.recrawl.listing(rec.URL, st))
	case rec.LinksOnly:
		interval = min(interval, c.recrawl.candidate())
	}
	rec.Schedule = st
	c.recrawl.states[rec.URL] = st
	return now.Add(interval)
}

// revisitsFirst reports whether the revisit of the page of record rec
// goes before the other revisits due (PriorityListingRevisit): it is a
// listing, or may be one (Record.LinksOnly).
func revisitsFirst(rec *pages.Record) bool { return rec.Listing() || rec.LinksOnly }

// revisitPayload is the frontier payload of a revisit.
func revisitPayload(depth int) []byte {
	p, _ := json.Marshal(task{Depth: depth, Revisit: true})
	return p
}

// revisitTask is the payload of a revisit of url that the committer
// schedules itself: revisitPayload, with the copy's validators when the
// revisit goes to a shared crawl's workers (c.schedule), which may not
// have the page's record.
func (c *committer) revisitTask(url string, depth int) []byte {
	if c.schedule == nil {
		return revisitPayload(depth)
	}
	t := task{Depth: depth, Revisit: true}
	if rec, ok, err := c.latest(url); err == nil && ok {
		t.Copy = &copyOf{ETag: rec.ETag, Modified: rec.Modified, Hash: rec.Hash}
	}
	p, _ := json.Marshal(t)
	return p
}

// markDone marks a URL done in fb and schedules its revisit, if any: a
// listing's at PriorityListingRevisit, any other's at PriorityRevisit.
func markDone(fb *frontier.Batch, d doneMark) {
	fb.Done(d.url, d.outcome)
	if !d.revisit.IsZero() {
		fb.Schedule(d.url, d.revisit, revisitPriority(d.listing), revisitPayload(d.depth))
	}
}

// revisitPriority is the priority of a revisit: PriorityListingRevisit
// for a listing or a page that may be one (revisitsFirst), else
// PriorityRevisit. A one-machine crawl's committer and a shared crawl's
// follower schedule by it alike.
func revisitPriority(listing bool) int {
	if listing {
		return PriorityListingRevisit
	}
	return PriorityRevisit
}

// retry puts a URL whose fetch failed transiently back in the queue, due
// after its backoff — RetryBackoff doubled per earlier attempt, or the
// server's Retry-After if longer (a 429 or a Retry-After also pauses the
// host that long) — and reports whether it did; after MaxRetries attempts
// it does not.
func (c *committer) retry(r *result, now time.Time) bool {
	if !r.transient || r.task.Attempt >= c.opts.MaxRetries {
		return false
	}
	wait := c.opts.RetryBackoff << r.task.Attempt
	if r.retryAfter > 0 || r.reason == "HTTP 429" {
		wait = max(wait, r.retryAfter)
		c.pacer.Pause(hostOf(r.url), wait)
	}
	t := r.task
	t.Attempt++
	t.After = now.Add(wait).UnixMilli()
	t.Revisit = t.Revisit || r.prev != nil
	payload, err := json.Marshal(t)
	if err != nil {
		return false
	}
	c.fbatch.Requeue(r.url, PriorityRetry, payload)
	c.retries.Add(1)
	return true
}

// isMaster reports whether the recorded page url is its cluster's master
// in the detector now.
func (c *committer) isMaster(url, clusterID string) bool {
	cl, ok := c.hook.Detector().Cluster(cluster.ID(clusterID))
	return !ok || cl.Master.ID == url
}

// revisit commits the result of fetching a fetched page again and returns
// its done mark and whether its links count as found on unique content.
//
//   - Not modified (304), or the same content: the record is kept, with
//     the fetch added to its history.
//   - New content: the hook updates the detector, the record and the
//     index (and whatever pages the change moved). A trivial change
//     (SimHash within TrivialBits) does not count as a change in the
//     history, so a page whose only change is a date line keeps its
//     interval. When a master changed for real, the members of its
//     cluster are fetched again now: mirrors change together.
//   - Gone (404, 410, another refusal) or no longer a page (a redirect,
//     noindex, a canonical elsewhere, a soft 404): the hook takes it out
//     of the detector and the index, handing its cluster over; its record
//     says why, and it is not scheduled again.
//   - A transient failure that outlasted its retries: the copy is kept
//     and the page is due again as if unchanged.
func (c *committer) revisit(ctx context.Context, r *result, now time.Time) (doneMark, bool, error) {
	c.revisits.Add(1)
	prev := *r.prev
	if rec, ok, err := c.latest(r.url); err != nil {
		return doneMark{}, false, err
	} else if ok && rec.Status == pages.Fetched { // its cluster may have changed since the worker read it
		prev = rec
	}
	mark := doneMark{url: r.url, outcome: string(r.status), depth: r.task.Depth}
	switch {
	case r.status == pages.Fetched && r.prep == nil: // unchanged
		if r.notModified {
			c.notModified.Add(1)
		} else {
			c.unchanged.Add(1)
		}
		rec := prev
		rec.FetchedAt = now
		if r.etag != "" { // a 304 need not repeat the validators
			rec.ETag = r.etag
		}
		if r.modified != "" {
			rec.Modified = r.modified
		}
		linksChanged := false
		if !r.notModified {
			linksChanged, rec.Links = c.linkChange(prev, r, now)
			rec.LinkHash, rec.LinksOnly = r.linkHash, stillLinksOnly(prev, linksChanged)
		}
		master := c.isMaster(rec.URL, rec.Cluster)
		mark.revisit = c.nextVisit(&rec, linksChanged, master, now)
		mark.listing = revisitsFirst(&rec)
		c.batch.Put(rec)
		return mark, master, nil
	case r.status == pages.Fetched: // new content
		fp, _ := c.hook.Detector().Fingerprint(r.url)
		trivial := r.prep.Fingerprint().Compare(fp, c.opts.Revisit.TrivialBits) != dedup.Changed
		if trivial {
			c.trivial.Add(1)
		} else {
			c.changed.Add(1)
		}
		linksChanged, links := c.linkChange(prev, r, now)
		c.recording = recording{url: r.url, etag: r.etag, modified: r.modified, hash: r.hash,
			linkHash: r.linkHash, links: links, linksOnly: stillLinksOnly(prev, linksChanged), sched: prev.Schedule, fetched: now, reason: r.reason}
		p, change, err := c.hook.Update(ctx, r.prep)
		if err != nil {
			return mark, false, err
		}
		c.sinceFlush++
		master := p.Result.Master == p.URL
		rec := c.batch.Latest(r.url)
		mark.revisit = c.nextVisit(rec, !trivial || linksChanged, master, now)
		mark.listing = revisitsFirst(rec)
		if change.WasMaster && !trivial {
			c.recheck(prev.Cluster, r.url, now)
		}
		return mark, master, nil
	case r.transient || r.status == pages.Failed:
		// Retries spent, or a failure that says nothing of the page (no
		// such host, TLS, a login refused): keep the copy.
		mark.outcome = string(pages.Fetched)
		rec := prev
		mark.revisit = c.nextVisit(&rec, false, c.isMaster(rec.URL, rec.Cluster), now)
		mark.listing = revisitsFirst(&rec)
		c.batch.Put(rec)
		return mark, false, nil
	default: // gone
		c.gone.Add(1)
		c.fetched.Add(-1)
		c.health.hosts.add(urlHost(r.url), -1, 0)
		if _, err := c.hook.Remove(ctx, r.url); err != nil {
			return mark, false, err
		}
		c.sinceFlush++
		c.batch.Put(pages.Record{Page: page.Page{URL: r.url}, Status: r.status, Reason: r.reason, FetchedAt: now})
		c.recrawl.policy.Forget(r.url, c.recrawl.states[r.url])
		delete(c.recrawl.states, r.url)
		c.recrawl.forgetListing(r.url)
		return mark, false, nil
	}
}

// recheck schedules the members of a cluster (but url) to be fetched now.
func (c *committer) recheck(clusterID, url string, now time.Time) {
	cl, ok := c.hook.Detector().Cluster(cluster.ID(clusterID))
	if !ok {
		return
	}
	n := 0
	for _, m := range cl.Members {
		if n == maxRecheck {
			break
		}
		if m.ID == url {
			continue
		}
		c.fbatch.Schedule(m.ID, now, PriorityRevisit, c.revisitTask(m.ID, 0))
		n++
	}
}

// linkChange compares the main-content links of a revisited page with
// those its record knew and returns whether they changed — for the
// schedule, a real change even if the text barely did: the page is a
// listing, whose changes are pages born and deleted — and the links to
// keep in the record (Record.Links): none until they first change, unless
// kept from the first fetch (Record.LinksOnly). When they changed and the
// record kept the old ones, each page that left the listing is fetched at
// once (checkLeft).
func (c *committer) linkChange(prev pages.Record, r *result, now time.Time) (changed bool, keep []string) {
	changed = prev.LinkHash != 0 && r.linkHash != prev.LinkHash
	if !changed && prev.Links == nil {
		return false, nil
	}
	if changed && prev.Links != nil {
		c.checkLeft(prev.Links, r.mainLinks, now)
	}
	return changed, slices.Clip(r.mainLinks[:min(len(r.mainLinks), pages.MaxLinks)])
}

// stillLinksOnly reports whether a revisited page's links stay kept from
// its first fetch only (Record.LinksOnly): they were, and did not change.
func stillLinksOnly(prev pages.Record, linksChanged bool) bool {
	return prev.LinksOnly && !linksChanged
}

// checkLeft schedules the fetched pages among old that are not in now
// (sorted) to be fetched at once, at most maxRecheck of them: a page a
// listing stopped linking to is the commonest sign of a page deleted.
func (c *committer) checkLeft(old, now []string, at time.Time) {
	n := 0
	for _, u := range old {
		if n == maxRecheck {
			return
		}
		if _, ok := slices.BinarySearch(now, u); ok {
			continue
		}
		rec, ok, err := c.latest(u)
		if err != nil || !ok || rec.Status != pages.Fetched {
			continue // not fetched yet (the queue has it) or no longer a page
		}
		c.fbatch.Schedule(u, at, PriorityUnique, c.revisitTask(u, 0))
		c.linksLeft.Add(1)
		n++
	}
}

// latest returns the latest record of url: put in the group being built,
// handed to the record writer, or committed.
func (c *committer) latest(url string) (pages.Record, bool, error) {
	if rec, ok := c.batch.Pending(url); ok {
		return rec, true, nil
	}
	if c.writer != nil {
		if rec, ok := c.writer.unwrittenRecord(url); ok {
			return rec, true, nil
		}
	}
	return c.pages.Get(url)
}

// recordedPage returns the page recorded for url: what the hook re-indexes
// when a change moves a page that was not itself fetched.
func (c *committer) recordedPage(url string) (hook.Page, bool, error) {
	rec, ok, err := c.latest(url)
	if err != nil || !ok || rec.Status != pages.Fetched {
		return hook.Page{}, false, err
	}
	return hook.FromRecord(rec), true, nil
}
