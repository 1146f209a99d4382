package crawler

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/doppel-search/doppel/crawler/frontier"
	"github.com/doppel-search/doppel/crawler/hook"
	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/page"
)

// The committer's side of a shared crawl's worker. In this file "worker"
// is a crawl process of a shared crawl (`doppel worker`), not a fetch
// goroutine of one crawl (dispatch.go).
//
// A crawl shared among workers (Options.Share) splits the committer's
// work in two. Each worker fetches, cleans and signs its pages, assigns
// their clusters with the workers' shared detector and queues their
// links in the shared frontier; at each page's turn in the detector's
// order, before the page is committed there, it hands the page's record
// on (Share.AtTurn), and it hands on each group's decisions (URLs
// skipped or failed), anchor texts and revisits (Share.HandOn). Where
// they go — the page log on a Redis Cluster, in its format on the wire —
// is package crawler/sharedcrawl's (its Worker is the Share). One
// Follower reads them back in number order and applies them through this
// committer and a detector of its own (followapply.go: applyLogged,
// flushLogged): the crawl's records and index, re-clustered as one
// machine's are. The worker keeps its own records too, for its decisions
// and its restart, but no index. Revisits are the follower's to schedule
// (the shared detector has no removals or new versions): a worker
// fetches one with the copy's validators from its task and hands what it
// found on with its group (takeRevisit), and the follower applies it
// through the committer's revisit path (applyRevisit).

// Share is where a worker process of a crawl shared among workers hands
// on what it commits, for the crawl's Follower: sharedcrawl's Worker,
// over the crawl's page log.
type Share interface {
	// Detector returns the workers' shared detector, which assigns the
	// clusters of every worker's pages: one made with dedup.NewShared
	// under dedup.Web, with Options.Similarity, on every worker. Its
	// maker closes it.
	Detector() *dedup.Detector
	// AtTurn hands on the record of the page the shared detector
	// numbered n, at its turn, before n is committed.
	AtTurn(n uint32, rec pages.Record) error
	// HandOn hands on a group's decisions, anchor texts and revisits (h
	// without Page), before the group's frontier commit.
	HandOn(ctx context.Context, h Handed) error
}

// Handed is what a worker hands on to the Follower (one entry of a
// shared crawl's page log): a fetched page's record, with the cluster the
// shared detector gave it (Page), or a group's decisions, anchor texts
// and revisits.
type Handed struct {
	Page      *pages.Record  `json:"page,omitempty"`
	Decisions []pages.Record `json:"decisions,omitempty"`
	// Anchors are the anchor texts of the group's links, by target URL:
	// what a page fetched later, by any worker, is indexed with.
	Anchors map[string][]string `json:"anchors,omitempty"`
	// Revisits are the group's pages fetched again, for the follower,
	// which holds their records, to update.
	Revisits []*Revisited `json:"revisits,omitempty"`
}

// Revisited is what a worker found fetching a page again: what the
// committer's revisit path takes (see committer.revisit).
type Revisited struct {
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

// validateShare checks a shared crawl's options.
func validateShare(o Options) error {
	if o.Share == nil {
		return nil
	}
	var errs []error
	if o.Share.Detector() == nil {
		errs = append(errs, errors.New("share: a shared crawl needs the shared detector"))
	}
	if _, ok := o.Frontier.(frontier.Shared); !ok {
		errs = append(errs, errors.New("share: a shared crawl needs a shared frontier"))
	}
	if o.NoDedup {
		errs = append(errs, errors.New("share: a shared crawl detects near-duplicates (no_dedup is not supported)"))
	}
	return errors.Join(errs...)
}

// sharedWorker is the committer's role on a worker process of a crawl
// shared among workers (see commitRole): it hands each page on at its
// turn (atTurn), and each group's decisions, anchor texts and revisits
// (handOn); the follower schedules every revisit.
type sharedWorker struct {
	c     *committer
	share Share
	// revisited are the revisits fetched in the group being built.
	revisited []*Revisited
}

// atTurn is the hook's AtTurn on a shared crawl: it hands on the page's
// record, as the hook is about to record it, with its place.
func (w *sharedWorker) atTurn(n uint32, p hook.Page) error {
	rec, err := w.c.recordOf(p)
	if err != nil {
		return err
	}
	return w.share.AtTurn(n, rec)
}

// handOn hands on the group's decisions (the records in the committer's
// batch of URLs not fetched), the anchor texts of its links and its
// revisits, before the group's frontier commit.
func (w *sharedWorker) handOn(ctx context.Context) error {
	var ds []pages.Record
	for _, wr := range w.c.batch.Writes() {
		if wr.Record.Status != pages.Fetched {
			ds = append(ds, wr.Record)
		}
	}
	anchors, revisits := w.c.batch.AllAnchors(), w.revisited
	w.revisited = nil
	if len(ds) == 0 && len(anchors) == 0 && len(revisits) == 0 {
		return nil
	}
	if err := w.share.HandOn(ctx, Handed{Decisions: ds, Anchors: anchors, Revisits: revisits}); err != nil {
		return fmt.Errorf("crawler: sharing %d decisions and %d revisits: %w", len(ds), len(revisits), err)
	}
	return nil
}

// takeFetched inserts the page through the shared detector; its revisit
// is the follower's to schedule. A page another worker inserted and died
// before its done mark and its links (dedup.ErrDuplicateID) is not
// recorded again, and its links are queued.
func (w *sharedWorker) takeFetched(ctx context.Context, r *result, mark doneMark, now time.Time) (doneMark, bool, error) {
	res, err := w.c.insertFetched(ctx, r, now)
	switch {
	case errors.Is(err, dedup.ErrDuplicateID):
		return mark, true, nil
	case err != nil:
		return mark, false, err
	}
	return mark, !res.Duplicate, nil
}

// takeRevisit hands what fetching a page again found to the follower,
// which holds the page's record and the detector that can take its new
// version (the shared detector cannot): with the group (handOn). The URL
// is done here; the follower schedules its next visit. The page's links
// are queued as any page's.
func (w *sharedWorker) takeRevisit(_ context.Context, r *result, now time.Time) (doneMark, bool, error) {
	w.c.revisits.Add(1)
	v := &Revisited{URL: r.url, Status: r.status, Reason: r.reason, Transient: r.transient, NotModified: r.notModified,
		ETag: r.etag, Modified: r.modified, Hash: r.hash, LinkHash: r.linkHash, MainLinks: r.mainLinks, FetchedAt: now}
	if r.prep != nil {
		p := r.prep.Page().Page
		v.Page = &p
	}
	w.revisited = append(w.revisited, v)
	return doneMark{url: r.url, outcome: string(pages.Fetched), depth: r.task.Depth}, true, nil
}

// takeFound schedules nothing: a worker schedules no revisits, the
// follower does.
func (*sharedWorker) takeFound(*result, time.Time) {}

// scheduleMissing schedules nothing, likewise.
func (*sharedWorker) scheduleMissing() error { return nil }

// fetchedNothing is no error: the other workers may have fetched it all.
func (*sharedWorker) fetchedNothing() error { return nil }

// checkStores checks nothing: a worker keeps no index (the follower
// does), while its records say what it committed.
func (*sharedWorker) checkStores(string, *pages.Store, Store) error { return nil }
