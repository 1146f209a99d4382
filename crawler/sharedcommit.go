package crawler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/doppel-search/doppel/crawler/frontier"
	"github.com/doppel-search/doppel/crawler/hook"
	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/crawler/traps"
	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/page"
)

// A shared crawl's commit path. In this file "worker" is a crawl process
// of a shared crawl (`doppel worker`), not a fetch goroutine of one
// crawl (dispatch.go).
//
// A crawl shared among workers (Options.Share) splits the committer's
// work in two. Each worker fetches, cleans and signs its pages, assigns
// their clusters with the workers' shared detector and queues their
// links in the shared frontier; at each page's turn in the detector's
// order, before the page is committed there, it appends the page's
// record (a logEntry) to the shared page log, and it appends each group's
// decisions (URLs skipped or failed) and anchor texts as a note under a
// number of their own (dedup.Detector.Aside). One Follower reads the log
// in number order and applies it through this committer and a detector
// of its own (applyLogged, flushLogged): the crawl's records and index,
// re-clustered as one machine's are. The worker keeps its own records
// too, for its decisions and its restart, but no index. Revisits are the
// follower's to schedule (the shared detector has no removals or new
// versions): a worker fetches one with the copy's validators from its
// task and hands what it found on in its group's note (shareRevisit), and
// the follower applies it through the committer's revisit path
// (applyRevisit).

// Share is what the workers of a shared crawl share besides the
// frontier.
type Share struct {
	// Detector assigns the clusters of every worker's pages: a detector
	// made with dedup.NewShared under dedup.Web, with
	// Options.Similarity, on every worker.
	Detector *dedup.Detector
	// Log receives each page at its turn and each group's decisions
	// (*pagelog.Log).
	Log PageLog
}

// PageLog is where a shared crawl's workers hand their records on to the
// Follower, in the shared detector's order: *pagelog.Log.
type PageLog interface {
	// Append adds the entry of document number n, before n is committed.
	Append(ctx context.Context, n uint32, payload []byte) error
	// AppendNote adds a note under number n, before n is given up.
	AppendNote(ctx context.Context, n uint32, payload []byte) error
}

// validate checks a shared crawl's options.
func (s *Share) validate(o Options) error {
	if s == nil {
		return nil
	}
	var errs []error
	if s.Detector == nil || s.Log == nil {
		errs = append(errs, errors.New("share: a shared crawl needs the shared detector and the page log"))
	}
	if _, ok := o.Frontier.(frontier.Shared); !ok {
		errs = append(errs, errors.New("share: a shared crawl needs a shared frontier"))
	}
	if o.NoDedup {
		errs = append(errs, errors.New("share: a shared crawl detects near-duplicates (no_dedup is not supported)"))
	}
	return errors.Join(errs...)
}

// A logEntry is what a worker appends to the page log: a fetched page's
// record, with the cluster the shared detector gave it (Page), or a
// group's decisions (Decisions).
type logEntry struct {
	Page      *pages.Record  `json:"page,omitempty"`
	Decisions []pages.Record `json:"decisions,omitempty"`
	// Anchors are the anchor texts of the group's links, by target URL:
	// what a page fetched later, by any worker, is indexed with.
	Anchors map[string][]string `json:"anchors,omitempty"`
	// Revisits are the group's pages fetched again, for the follower,
	// which holds their records, to update.
	Revisits []*revisited `json:"revisits,omitempty"`
}

// revisited is what a worker found fetching a page again: what the
// committer's revisit path takes (see committer.revisit).
type revisited struct {
	URL         string       `json:"url"`
	Status      pages.Status `json:"status"`
	Reason      string       `json:"reason,omitempty"`
	Transient   bool         `json:"transient,omitempty"`
	NotModified bool         `json:"not_modified,omitempty"`
	ETag        string       `json:"etag,omitempty"`
	Modified    string       `json:"modified,omitempty"`
	Hash        uint64       `json:"hash,omitempty"`
	LinkHash    uint64       `json:"link_hash,omitempty"`
	MainLinks   []string     `json:"main_links,omitempty"`
	FetchedAt   time.Time    `json:"fetched_at"`
	// Page is the new version, when the content changed.
	Page *page.Page `json:"page,omitempty"`
}

// shared reports whether the crawl is one worker's part of a shared one.
func (c *committer) shared() bool { return c.opts.Share != nil }

// atTurn is the hook's AtTurn on a shared crawl: it appends the page's
// record, as the hook is about to record it, with its place.
func (c *committer) atTurn(n uint32, p hook.Page) error {
	rec, err := c.recordOf(p)
	if err != nil {
		return err
	}
	payload, err := json.Marshal(logEntry{Page: &rec})
	if err != nil {
		return err
	}
	return c.opts.Share.Log.Append(context.Background(), n, payload)
}

// shareDecisions appends the group's decisions (the records in c.batch of
// URLs not fetched) and the anchor texts of its links as one note, before
// the group's frontier commit.
func (c *committer) shareDecisions(ctx context.Context) error {
	var ds []pages.Record
	for _, w := range c.batch.Writes() {
		if w.Record.Status != pages.Fetched {
			ds = append(ds, w.Record)
		}
	}
	anchors, revisits := c.batch.AllAnchors(), c.revisited
	c.revisited = nil
	if len(ds) == 0 && len(anchors) == 0 && len(revisits) == 0 {
		return nil
	}
	payload, err := json.Marshal(logEntry{Decisions: ds, Anchors: anchors, Revisits: revisits})
	if err != nil {
		return err
	}
	err = c.opts.Share.Detector.Aside(func(n uint32) error { return c.opts.Share.Log.AppendNote(ctx, n, payload) })
	if err != nil {
		return fmt.Errorf("crawler: sharing %d decisions and %d revisits: %w", len(ds), len(revisits), err)
	}
	return nil
}

// applyLogged applies an entry of a shared crawl's page log (a
// Follower's): its decisions recorded, unless the URL was fetched since;
// its page put through this crawl's site statistics and detector
// (hook.Arrive: in the log's order it decides as the shared detector did),
// recorded with its fetch and indexed, as a live page is, with the anchor
// texts every worker found before it. It returns the pages and decisions
// applied.
func (c *committer) applyLogged(ctx context.Context, le logEntry) (pageCount, decisions int, err error) {
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
		links: rec.Links, sched: rec.Schedule, fetched: rec.FetchedAt, reason: rec.Reason}
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
		at := c.nextVisit(c.batch.Latest(p.URL), false, p.Result.Master == p.URL, rec.FetchedAt)
		c.fbatch.Schedule(p.URL, at, PriorityRevisit, c.revisitTask(p.URL, 0))
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

// shareRevisit hands what fetching a page again found to the follower,
// which holds the page's record and the detector that can take its new
// version (the shared detector cannot): in the group's note
// (shareDecisions). The URL is done here; the follower schedules its next
// visit. The page's links are queued as any page's.
func (c *committer) shareRevisit(r *result, now time.Time) (doneMark, bool) {
	c.revisits.Add(1)
	v := &revisited{URL: r.url, Status: r.status, Reason: r.reason, Transient: r.transient, NotModified: r.notModified,
		ETag: r.etag, Modified: r.modified, Hash: r.hash, LinkHash: r.linkHash, MainLinks: r.mainLinks, FetchedAt: now}
	if r.prep != nil {
		p := r.prep.Page().Page
		v.Page = &p
	}
	c.revisited = append(c.revisited, v)
	return doneMark{url: r.url, outcome: string(pages.Fetched), depth: r.task.Depth}, true
}

// applyRevisit applies a revisit a worker handed on (a Follower's): the
// committer's revisit path on the page's record — kept, updated through
// this crawl's detector, or removed — and its next visit scheduled.
func (c *committer) applyRevisit(ctx context.Context, v *revisited) error {
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
		c.fbatch.Schedule(v.URL, mark.revisit, PriorityRevisit, c.revisitTask(v.URL, mark.depth))
	}
	return nil
}
