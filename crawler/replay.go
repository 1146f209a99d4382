package crawler

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/doppel-search/doppel/crawler/admit"
	"github.com/doppel-search/doppel/crawler/frontier"
	"github.com/doppel-search/doppel/crawler/hook"
	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/crawler/traps"
	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/dedup/features"
)

// replay rebuilds the detector, site-template statistics, trap statistics,
// revisit states and counters from the recorded pages, in record order,
// through the same path live pages take (hook.Replay), then re-clusters
// (see recluster) and makes records and index follow: the pages recorded
// after the index's watermark, which the index may lack, are indexed
// again, and so is every page whose cluster or master is not the one
// recorded (a crash between a re-clustering's records and its index
// flush, or revisits that left clusters a rebuild forms differently).
// Pages removed after the watermark are removed from the index again.
// Index updates are idempotent, so re-applying them makes the index agree
// with the records whatever a crash interrupted. Fetched pages without a
// revisit scheduled (a crash between their record and their done mark, or
// a crawl from before revisits) are scheduled.
func (c *committer) replay() error {
	through, err := c.pages.IndexedThrough()
	if err != nil {
		return err
	}
	c.stored, c.watermark, c.lastFlush = through, through, time.Now()
	ctx := context.Background()
	restored, masters, err := c.restoredDetector()
	if err != nil {
		return err
	}
	rp, err := c.replayRecords(ctx, through, restored, masters)
	if err != nil {
		return fmt.Errorf("crawler: replaying recorded pages: %w", err)
	}
	forgotten, err := c.forgetGone(rp.gone)
	if err != nil {
		return err
	}
	replayed := rp.replayed + forgotten
	c.opened = Opened{Pages: int(c.fetched.Load()), Replayed: replayed, FromSnapshot: c.snap != nil}
	if c.snap != nil { // as they were when the snapshot was written, and the pages since
		c.sinceRecluster, c.reclustered = c.snap.sinceRecluster+replayed, c.snap.reclustered
	}
	for _, u := range rp.removed {
		if err := c.hook.Unindex(ctx, u); err != nil {
			return err
		}
		c.sinceFlush++
	}
	// Read from a snapshot that every record agrees with, the detector
	// has the clusters the records and the index have: nothing to
	// re-cluster.
	if !restored || replayed > 0 || len(rp.force) > 0 {
		if err := c.keeper.recluster(ctx, rp.force); err != nil {
			return err
		}
	}
	if err := c.restoreQueued(); err != nil {
		return err
	}
	c.recrawl.plan() // before scheduleMissing asks the policy
	if err := c.role.scheduleMissing(); err != nil {
		return err
	}
	return c.finish(false)
}

// restoredDetector reports whether the detector was restored — read from
// a snapshot, holding every page recorded up to c.snap.rev (c.snapRev),
// or a shared crawl's, holding every page recorded (see
// detectorKeeper.restoredThrough) — and then returns the recorded
// masters.
func (c *committer) restoredDetector() (restored bool, masters map[string]string, err error) {
	var rev uint64
	if rev, restored = c.keeper.restoredThrough(c.snap); restored {
		c.snapRev = rev
		if masters, err = c.pages.Masters(); err != nil {
			return false, nil, err
		}
	}
	return restored, masters, nil
}

// replayFound is what replaying the records found: the URLs no longer
// fetched whose index entries to remove (recorded after the watermark)
// and those the snapshot may still hold (gone), the pages put through
// the detector again, and the pages the index may lack (force).
type replayFound struct {
	removed, gone []string
	replayed      int
	force         map[string]bool
}

// replayRecords counts every record, restores those the restored
// detector holds and puts the others through the detector again.
func (c *committer) replayRecords(ctx context.Context, through uint64, restored bool, masters map[string]string) (replayFound, error) {
	rp := replayFound{force: map[string]bool{}}
	err := c.pages.Each(func(r pages.Record) error {
		c.lastRev = max(c.lastRev, r.Rev)
		after := !restored || r.Rev > c.snapRev // not in the snapshot as recorded
		if r.Status != pages.Fetched {
			c.replayDecision(r)
			if r.Rev > through {
				rp.removed = append(rp.removed, r.URL)
			}
			if restored && after {
				rp.gone = append(rp.gone, r.URL) // the snapshot may hold it
			}
			return nil
		}
		reindex := r.Rev > through
		if reindex {
			rp.force[r.URL] = true
		}
		if !after {
			return c.restorePage(r, masters)
		}
		rp.replayed++
		return c.replayPage(ctx, r, reindex)
	})
	return rp, err
}

// forgetGone removes from the detector the pages of gone it holds and
// returns how many it removed.
func (c *committer) forgetGone(gone []string) (int, error) {
	n := 0
	for _, u := range gone {
		if _, held := c.hook.Detector().Fingerprint(u); held {
			if _, err := c.hook.Detector().Remove(u); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

// restoreQueued tells admission every URL of the frontier and rebuilds
// the link plan's URLs queued by template and by family.
func (c *committer) restoreQueued() error {
	return c.front.All(func(u string, st frontier.State, _ string) error {
		c.admit.Restore(u)
		if st == frontier.Pending && !c.admit.HasDuplicates(u) {
			tmpl := c.admit.Template(u)
			c.queued[tmpl] = append(c.queued[tmpl], u)
		}
		if st == frontier.Pending && !c.admit.Demoted(u) {
			fam := c.admit.Family(u)
			c.shaped[fam] = append(c.shaped[fam], u)
		}
		return nil
	})
}

// replayDecision counts a record of a URL not fetched, and tells the
// trap statistics of a soft 404 and the next run of a transient failure.
func (c *committer) replayDecision(r pages.Record) {
	switch r.Status {
	case pages.Skipped:
		c.skipped.Add(1)
		if r.Requested {
			c.requests.Add(1)
		}
		if r.Reason == admit.ReasonSoft404 {
			c.admit.Observe(r.URL, traps.NotFound, "")
		}
	case pages.Gone:
		c.requests.Add(1)
	case pages.Failed:
		c.errs.Add(1)
		if r.Requested {
			c.requests.Add(1)
		}
		if r.Transient {
			c.transient = append(c.transient, r.URL)
		}
	}
}

// replayPage puts a fetched record back through the detector (hook.Replay)
// and counts it; reindex says the index may lack it. With detection the
// index follows the re-clustering that ends the replay; without, every
// page is its own cluster, as recorded, and is indexed here.
func (c *committer) replayPage(ctx context.Context, r pages.Record, reindex bool) error {
	p, err := c.hook.Replay(ctx, hook.FromRecord(r), reindex && c.opts.NoDedup)
	if err != nil {
		return err
	}
	if reindex && c.opts.NoDedup {
		c.sinceFlush++
	}
	c.restored(r, p.Result)
	return nil
}

// restorePage counts a fetched record the detector read from its
// snapshot holds as recorded, with the cluster and master (masters: by
// cluster) the records give it, and tells the site statistics its blocks
// and anchors (hook.Observe).
func (c *committer) restorePage(r pages.Record, masters map[string]string) error {
	p := hook.FromRecord(r)
	c.hook.Observe(p)
	p.Result.Master = masters[r.Cluster]
	p.Result.Duplicate = p.Result.Master != "" && p.Result.Master != r.URL
	c.restored(r, p.Result)
	return nil
}

// restored counts a fetched record, placed as res, and restores its
// revisit state.
func (c *committer) restored(r pages.Record, res dedup.Result) {
	v := traps.Unique
	if len(features.Tokens(strings.Join(r.Blocks, " "))) == 0 {
		v = traps.Empty
	}
	c.requests.Add(1)
	c.countPage(r.URL, r.Title, res, v)
	if r.Schedule.LastFetch.IsZero() { // recorded before revisits existed
		r.Schedule.LastFetch = r.FetchedAt
	}
	c.recrawl.states[r.URL] = r.Schedule
	c.recrawl.setListing(&r)
	c.recrawl.planned = false // the policy is given every state again
}

// scheduleMissing schedules the revisit of every fetched page that has
// none and is not queued: due its policy interval after its last fetch.
func (c *committer) scheduleMissing() error {
	missing := maps.Clone(c.recrawl.states)
	err := c.front.Scheduled(func(u string, _ time.Time) error {
		delete(missing, u)
		return nil
	})
	if err != nil {
		return err
	}
	err = c.front.All(func(u string, st frontier.State, _ string) error {
		if st != frontier.Done {
			delete(missing, u)
		}
		return nil
	})
	if err != nil || len(missing) == 0 {
		return err
	}
	var fb frontier.Batch
	for _, u := range slices.Sorted(maps.Keys(missing)) {
		st := missing[u]
		at := st.LastFetch.Add(c.recrawl.policy.Next(&st))
		fb.Schedule(u, at, PriorityRevisit, revisitPayload(0))
	}
	_, err = c.front.Commit(&fb)
	return err
}
