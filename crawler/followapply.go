package crawler

import (
	"context"
	"fmt"

	"github.com/doppel-search/doppel/crawler/frontier"
	"github.com/doppel-search/doppel/crawler/hook"
	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/crawler/traps"
)

// The Follower's side of a shared crawl's commit path: what the workers
// handed on (sharedworker.go) to the page log, applied through
// this crawl's committer as a one-machine crawl's pages are.

// applyLogged applies an entry of a shared crawl's page log (a
// Follower's): its decisions recorded, unless the URL was fetched since;
// its page put through this crawl's site statistics and detector
// (hook.Arrive: in the log's order it decides as the shared detector did),
// recorded with its fetch and indexed, as a live page is, with the anchor
// texts every worker found before it. It returns the pages and decisions
// applied.
func (c *committer) applyLogged(ctx context.Context, le Handed) (pageCount, decisions int, err error) {
	for _, d := range le.Decisions {
		if d.URL == "" || d.Status == pages.Fetched {
			return 0, decisions, fmt.Errorf("a decision without URL or of a fetched page (%q)", d.URL)
		}
		prev, ok, err := c.latest(d.URL)
		if err != nil {
			return 0, decisions, err
		}
		if ok && prev.Status == pages.Fetched {
			continue // fetched by another worker since
		}
		c.batch.Put(d)
		c.countDecision(d.Status)
		decisions++
	}
	for u, texts := range le.Anchors {
		c.batch.AddAnchors(u, texts...)
		for _, t := range texts {
			if t != "" {
				c.hook.Anchors().Observe(t, u)
			}
		}
	}
	for _, v := range le.Revisits {
		if err := c.applyRevisit(ctx, v); err != nil {
			return 0, decisions, err
		}
	}
	if le.Page == nil {
		return 0, decisions, nil
	}
	rec := *le.Page
	// Indexed with the anchor texts every worker found, as one machine
	// indexes a page with those it found.
	if rec.Anchors, err = c.anchorsOf(rec.URL); err != nil {
		return 0, decisions, err
	}
	if rec.URL == "" || rec.Status != pages.Fetched {
		return 0, decisions, fmt.Errorf("a page entry without URL (%q)", rec.URL)
	}
	c.recording = recording{url: rec.URL, etag: rec.ETag, modified: rec.Modified, hash: rec.Hash, linkHash: rec.LinkHash,
		links: rec.Links, linksOnly: rec.LinksOnly, sched: rec.Schedule, fetched: rec.FetchedAt, reason: rec.Reason}
	p, err := c.hook.Arrive(ctx, hook.FromRecord(rec))
	if err != nil {
		return 0, decisions, err
	}
	if err := c.record(p); err != nil {
		return 0, decisions, err
	}
	c.countPage(p.URL, p.Title, p.Result, traps.Unique)
	c.sinceFlush++
	c.sinceSnapshot++
	if c.schedule != nil {
		c.recrawl.plan() // as the committer plans after each group
		latest := c.batch.Latest(p.URL)
		at := c.nextVisit(latest, false, p.Result.Master == p.URL, rec.FetchedAt)
		c.fbatch.Schedule(p.URL, at, revisitPriority(revisitsFirst(latest)), c.revisitTask(p.URL, 0))
	}
	return 1, decisions, nil
}

// flushLogged makes the entries applied durable, as a group's commit and
// the index's flush do: the records committed, re-clustered if the crawl
// grew enough (or, idle, if any page came since the last time), the index
// flushed and its watermark stored, the detector's snapshot written when
// due.
func (c *committer) flushLogged(ctx context.Context, idle bool) error {
	stored, err := c.pages.Commit(&c.batch)
	if err != nil {
		return err
	}
	if len(stored) > 0 {
		c.lastRev = max(c.lastRev, stored[len(stored)-1].Rev)
	}
	c.batch = pages.Batch{}
	if idle && c.sinceRecluster > 0 {
		err = c.recluster(ctx, nil)
	} else {
		err = c.maybeRecluster(ctx)
	}
	if err != nil {
		return err
	}
	if err := c.flushIndexNow(); err != nil {
		return err
	}
	// The revisits, scheduled in the workers' frontier once the records
	// they follow are durable (without one, nothing is scheduled).
	if c.schedule != nil && c.fbatch.Len() > 0 {
		if _, err := c.schedule.Commit(&c.fbatch); err != nil {
			return err
		}
	}
	c.fbatch = frontier.Batch{}
	return c.maybeSnapshot()
}

// applyRevisit applies a revisit a worker handed on (a Follower's): the
// committer's revisit path on the page's record — kept, updated through
// this crawl's detector, or removed — and its next visit scheduled.
func (c *committer) applyRevisit(ctx context.Context, v *Revisited) error {
	prev, ok, err := c.latest(v.URL)
	if err != nil || !ok || prev.Status != pages.Fetched {
		return err // gone since, or never recorded: nothing to revisit
	}
	r := &result{url: v.URL, status: v.Status, reason: v.Reason, transient: v.Transient, notModified: v.NotModified,
		etag: v.ETag, modified: v.Modified, hash: v.Hash, linkHash: v.LinkHash, mainLinks: v.MainLinks, prev: &prev, popped: true}
	if v.Page != nil {
		p := hook.Page{Page: *v.Page}
		if p.Anchors, err = c.anchorsOf(v.URL); err != nil {
			return err
		}
		if r.prep, err = c.hook.PreparePage(p); err != nil {
			return err
		}
	}
	c.recrawl.plan()
	mark, _, err := c.revisit(ctx, r, v.FetchedAt)
	if err != nil {
		return err
	}
	if !mark.revisit.IsZero() {
		c.fbatch.Schedule(v.URL, mark.revisit, revisitPriority(mark.listing), c.revisitTask(v.URL, mark.depth))
	}
	return nil
}
