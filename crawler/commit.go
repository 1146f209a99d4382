package crawler

import (
	"context"
	"slices"
	"time"

	"github.com/doppel-search/doppel/crawler/admit"
	"github.com/doppel-search/doppel/crawler/frontier"
	"github.com/doppel-search/doppel/crawler/hook"
	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/crawler/polite"
	"github.com/doppel-search/doppel/crawler/traps"
	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/page"
)

// The committer is the one goroutine that writes: it takes the fetch
// goroutines' results in arrival order and, a group at a time, assigns
// clusters (hook.Insert, Update, Remove), records pages (into batch,
// committed by the record writer), adds them to the index batch, decides
// and queues their links and marks their URLs done (fbatch, one frontier
// transaction), and flushes the index when due. Touched by Open, then
// only by the committer goroutine of Run (and by Run after it has ended).
//
// It composes parts with one job each, each a type with its own fields:
//   - indexFlush, the group commit's index flush and its watermark
//     (flush.go);
//   - linkPlan, what the queued links taught of templates and families
//     (links.go), and what each page and request yielded (yield.go);
//   - the records of processed pages, the hook's Recorder (record.go);
//   - reclusterState, when the detector is re-clustered (recluster.go);
//   - snapshots, the restore after a restart (replay.go) and the
//     detector's snapshot (snapshot.go);
//   - revisitPlan, revisit planning and retries (revisit.go).
//
// What depends on whose crawl it is — one machine's, or a worker's of a
// crawl shared among workers — is its role (role.go, sharedworker.go)
// and its detector's keeper (keeper.go), both chosen once by Open; the
// Follower of a shared crawl applies the workers' page log through it
// (followapply.go).
type committer struct {
	opts   *Options
	front  frontier.Queue
	pages  pages.Records
	index  indexer.Writer
	hook   *hook.Hook
	admit  *admit.Admission
	pacer  *polite.Pacer  // paused by a Retry-After
	role   commitRole     // one machine's or a shared crawl worker's
	keeper detectorKeeper // the crawl's own detector's, or the shared one's
	*counters
	*fatal

	batch   pages.Batch    // records of the group being built; the hook's Recorder appends here
	fbatch  frontier.Batch // frontier changes of the group being built
	writer  *recordWriter  // commits the groups' records in the background; nil outside Run
	lastRev uint64         // revision of the last committed record

	linkPlan
	indexFlush
	reclusterState
	snapshots
	revisitPlan

	recording recording // the fetch the hook is recording
	seeds     *seedWatch
	reasons   []string // "URL: reason" of the first URLs this run skipped or failed (maxReasons)
}

// maxReasons is how many failures a crawl that fetched nothing names.
const maxReasons = 3

// commitLoop receives the fetch goroutines' results until the channel is closed and
// commits them in groups: whatever has arrived while the previous group
// was committed, up to maxGroup. While no result comes it commits every
// RefreshInterval what is waiting (URLs to mark done, revisits to
// schedule, the index to flush), so that a crawl kept alive (Watch) does
// not hold them. After a storage error it only drains the channel.
func (c *committer) commitLoop(results <-chan *result, d *dispatcher) {
	ctx := context.Background()
	tick := time.NewTicker(c.opts.RefreshInterval)
	defer tick.Stop()
	for {
		select {
		case r, ok := <-results:
			if !ok {
				return
			}
			c.commitGroup(ctx, gather(results, r), d)
		case <-tick.C:
			c.commitWaiting(ctx)
			d.poke()
		case <-d.idle:
			// This worker process of a shared crawl waits for the others,
			// which wait for its URLs to be marked done.
			if c.writer.hasDone() {
				c.commitWaiting(ctx)
			}
		}
	}
}

// gather returns first and the results that have arrived since, up to
// maxGroup, without waiting for more.
func gather(results <-chan *result, first *result) []*result {
	group := []*result{first}
	for len(group) < maxGroup {
		select {
		case r, ok := <-results:
			if !ok {
				return group
			}
			group = append(group, r)
		default:
			return group
		}
	}
	return group
}

// commitWaiting commits what is waiting without a new result (URLs to
// mark done, revisits to schedule, the index to flush), unless a storage
// error stopped the crawl.
func (c *committer) commitWaiting(ctx context.Context) {
	if c.fatalErr() == nil {
		if err := c.commit(ctx, nil, func() {}); err != nil {
			c.setFatal(err)
		}
	}
}

// commitGroup commits a group of results — or, after a storage error,
// only releases its fetch goroutines — then re-clusters and writes the
// detector's snapshot when due.
func (c *committer) commitGroup(ctx context.Context, group []*result, d *dispatcher) {
	release := groupReleaser(group, d)
	if c.fatalErr() == nil {
		if err := c.commit(ctx, group, release); err != nil {
			c.setFatal(err)
		}
	}
	release()
	c.sinceSnapshot += len(group)
	if c.fatalErr() == nil {
		if err := c.keeper.afterGroup(ctx); err != nil {
			c.setFatal(err)
		}
	}
}

// groupReleaser returns the function that releases a group's fetch
// goroutines once (its links are queued): it settles the group with the
// dispatcher and tells each result's goroutine.
func groupReleaser(group []*result, d *dispatcher) func() {
	released := false
	return func() {
		if !released {
			released = true
			fresh := 0
			for _, r := range group {
				if r.popped && !r.task.Revisit {
					fresh++
				}
			}
			d.settle(len(group), fresh)
			for _, r := range group {
				close(r.queued)
			}
		}
	}
}

// commit processes a group of results in order — pages inserted (cluster
// assigned, recorded into c.batch, added to the index), revisits and
// decisions recorded, retries queued, links decided — and makes it
// durable in this order: links queued in one frontier transaction (which
// also marks done the URLs of earlier groups whose records are committed,
// and schedules their revisits), fetch goroutines released, records handed to the
// record writer (one page-store transaction, in the background), index
// write started when due (after the records it holds are committed). A
// crash between any two steps loses nothing: a page whose record is not
// stored is fetched again (its links are queued, or will be again), and a
// recorded URL not yet marked done is marked done, unfetched, when the
// next run pops it (a revisit is fetched again).
func (c *committer) commit(ctx context.Context, group []*result, release func()) error {
	written, err := c.writer.takeDone()
	if err != nil {
		return err
	}
	c.fbatch, c.batch = frontier.Batch{}, pages.Batch{}
	for _, d := range written {
		markDone(&c.fbatch, d)
	}
	if c.watermark > c.stored {
		c.batch.SetIndexedThrough(c.watermark)
		c.stored = c.watermark
	}
	now := time.Now().UTC()
	total := 0 // the group's links, at most: one allocation of links
	for _, r := range group {
		total += len(r.links)
	}
	links, fromUnique := make([]link, 0, total), make([]bool, 0, total)
	var firsts []firstFetch
	var marks []doneMark
	for _, r := range group {
		mark, unique, settled, err := c.take(ctx, r, now)
		if err != nil {
			return err
		}
		if settled {
			continue
		}
		for _, l := range r.links {
			links = append(links, l)
			fromUnique = append(fromUnique, unique)
		}
		if r.prev == nil && r.status == pages.Fetched {
			firsts = append(firsts, firstFetch{r.url, len(links) - len(r.links), len(links)})
		}
		if r.popped {
			marks = append(marks, mark)
		}
	}
	added, err := c.queueLinks(links, fromUnique, firsts, now)
	if err != nil {
		return err
	}
	c.noteQueued(added)
	c.observeDecisions(group, added)
	if err := c.role.handOn(ctx); err != nil {
		return err
	}
	if _, err := c.front.Commit(&c.fbatch); err != nil {
		return err
	}
	release() // the group's links are queued: its fetch goroutines may pop again
	c.writer.write(c.batch, marks)
	c.recrawl.plan()
	return c.flushIndex(false)
}

// take processes one result of a group: a sitemap's findings scheduled,
// a URL recorded before a crash marked done, a transient failure queued
// again (settled: nothing more to do), a revisit, a new page inserted, or
// a decision recorded. It returns the URL's done mark and whether its
// links count as found on unique content.
func (c *committer) take(ctx context.Context, r *result, now time.Time) (mark doneMark, unique, settled bool, err error) {
	mark = doneMark{url: r.url, outcome: string(r.status), depth: r.task.Depth}
	c.health.noteFailure(r)
	if r.popped && r.requested && !r.task.Revisit {
		c.requests.Add(1)
	}
	switch {
	case !r.popped: // a sitemap's findings
		c.role.takeFound(r, now)
	case r.known != "": // its record is committed: done now
		mark.outcome = string(r.known)
		if st, ok := c.recrawl.states[r.url]; ok && r.known == pages.Fetched {
			mark.revisit = st.LastFetch.Add(c.recrawl.policy.Next(&st))
		}
		markDone(&c.fbatch, mark)
		return mark, false, true, nil
	case c.seedResult(r):
		c.recordDecision(r, now)
	case c.retry(r, now):
		return mark, false, true, nil
	case r.prev != nil:
		mark, unique, err = c.role.takeRevisit(ctx, r, now)
	case r.status == pages.Fetched:
		mark, unique, err = c.role.takeFetched(ctx, r, mark, now)
	default:
		c.recordDecision(r, now)
		if r.verdict == traps.NotFound {
			c.admit.Observe(r.url, traps.NotFound, "")
		}
	}
	return mark, unique, false, err
}

// recordDecision records a URL not fetched (skipped or failed) and
// counts it.
func (c *committer) recordDecision(r *result, now time.Time) {
	c.batch.Put(pages.Record{Page: page.Page{URL: r.url}, Status: r.status, Reason: r.reason, FetchedAt: now, Transient: r.transient, Requested: r.requested})
	c.countDecision(r.status)
	c.noteReason(r)
}

// insertFetched inserts a page fetched for the first time (insert), with
// its fetch's details for its record (c.recording).
func (c *committer) insertFetched(ctx context.Context, r *result, now time.Time) (dedup.Result, error) {
	c.recording = recording{url: r.url, etag: r.etag, modified: r.modified, hash: r.hash, linkHash: r.linkHash, fetched: now, reason: r.reason}
	if len(r.mainLinks) >= pages.ListingLinks { // perhaps a listing: its first change is a diff too
		c.recording.links, c.recording.linksOnly = slices.Clip(r.mainLinks[:min(len(r.mainLinks), pages.MaxLinks)]), true
	}
	return c.insert(ctx, r)
}

// insert assigns a fetched page its cluster, records it into c.batch and
// indexes it (hook.Insert), and counts it.
func (c *committer) insert(ctx context.Context, r *result) (dedup.Result, error) {
	anchors, err := c.anchorsOf(r.url)
	if err != nil {
		return dedup.Result{}, err
	}
	r.prep.SetAnchors(anchors)
	p, err := c.hook.Insert(ctx, r.prep)
	if err != nil {
		return dedup.Result{}, err
	}
	c.countPage(p.URL, p.Title, p.Result, r.verdict)
	c.sinceFlush++
	return p.Result, nil
}

func (c *committer) countDecision(s pages.Status) {
	if s == pages.Failed {
		c.errs.Add(1)
	} else {
		c.skipped.Add(1)
	}
}

// noteReason keeps the reason of a skipped or failed URL among the first
// few of the run.
func (c *committer) noteReason(r *result) {
	if len(c.reasons) < maxReasons && r.reason != "" && r.redirectTo == "" {
		c.reasons = append(c.reasons, r.url+": "+r.reason)
	}
}

// finish waits for the records in writing, re-clusters if asked to and
// pages were inserted since the last re-clustering, flushes the index,
// stores the watermark and marks done the URLs recorded last.
func (c *committer) finish(recluster bool) error {
	var fb frontier.Batch
	if c.writer != nil {
		c.writer.close()
		rev, err := c.writer.wait()
		if err != nil {
			return err
		}
		c.lastRev = rev
		done, _ := c.writer.takeDone()
		for _, d := range done {
			markDone(&fb, d)
		}
		c.writer = nil
	}
	if recluster && c.sinceRecluster > 0 {
		if err := c.keeper.recluster(context.Background(), nil); err != nil {
			return err
		}
	}
	if err := c.flushIndexNow(); err != nil {
		return err
	}
	if fb.Len() > 0 {
		if _, err := c.front.Commit(&fb); err != nil {
			return err
		}
	}
	return c.keeper.snapshot()
}

// waitRecords waits until the records handed to the record writer (if
// one runs) are committed, and moves lastRev past them.
func (c *committer) waitRecords() error {
	if c.writer == nil {
		return nil
	}
	rev, err := c.writer.wait()
	if err != nil {
		return err
	}
	c.lastRev = max(c.lastRev, rev)
	return nil
}
