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
	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/crawler/traps"
	"github.com/doppel-search/doppel/dedup/cluster"
	"github.com/doppel-search/doppel/dedup/features"
)

// replay rebuilds the detector, site-template statistics, trap statistics,
// revisit states and counters from the recorded pages, in record order,
// through the same path live pages take (hook.Replay: Insert → Index), and
// re-indexes the pages the index may lack: those recorded after its
// watermark, and those whose cluster the replay decided differently from
// the record (after revisits changed pages, the clusters of a rebuild can
// differ from those live changes left; the replayed ones are then
// recorded and indexed). Pages removed after the watermark are removed
// from the index again. Index updates are idempotent, so re-applying them
// makes the index agree with the records whatever a crash interrupted.
// Fetched pages without a revisit scheduled (a crash between their record
// and their done mark, or a crawl from before revisits) are scheduled.
func (c *Crawler) replay() error {
	var err error
	if c.hook, err = c.newHook(); err != nil {
		return err
	}
	through, err := c.pages.IndexedThrough()
	if err != nil {
		return err
	}
	c.stored, c.watermark, c.lastFlush = through, through, time.Now()
	ctx := context.Background()
	var fixes pages.Batch
	var removed []string
	recorded, err := c.pages.Masters()
	if err != nil {
		return err
	}
	final := map[string]string{} // cluster → its master after the replay
	err = c.pages.Each(func(r pages.Record) error {
		c.lastRev = max(c.lastRev, r.Rev)
		switch r.Status {
		case pages.Skipped:
			c.skipped.Add(1)
			if r.Reason == admit.ReasonSoft404 {
				c.admit.Observe(r.URL, traps.NotFound, "")
			}
		case pages.Failed:
			c.errs.Add(1)
			if r.Transient {
				c.transient = append(c.transient, r.URL)
			}
		}
		if r.Status != pages.Fetched {
			if r.Rev > through {
				removed = append(removed, r.URL)
			}
			return nil
		}
		reindex := r.Rev > through
		p, err := c.hook.Replay(ctx, pageOf(r), reindex)
		if err != nil {
			return err
		}
		if string(p.Result.Cluster) != r.Cluster && !reindex {
			if err := c.hook.Reindex(ctx, p); err != nil {
				return err
			}
			reindex = true
		}
		if string(p.Result.Cluster) != r.Cluster {
			r.Cluster = string(p.Result.Cluster)
			fixes.Put(r)
		}
		final[r.Cluster] = p.Result.Master
		v := traps.Unique
		if len(features.Tokens(strings.Join(r.Blocks, " "))) == 0 {
			v = traps.Empty
		}
		c.countPage(r.URL, r.Title, p.Result, v)
		if r.Schedule.LastFetch.IsZero() { // recorded before revisits existed
			r.Schedule.LastFetch = r.FetchedAt
		}
		c.recrawl.states[r.URL] = r.Schedule
		if reindex {
			c.sinceFlush++
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("crawler: replaying recorded pages: %w", err)
	}
	for _, u := range removed {
		if err := c.hook.Unindex(ctx, u); err != nil {
			return err
		}
		c.sinceFlush++
	}
	// A cluster whose replayed master is not the recorded one (revisits
	// elected another): the replayed master takes it over in the index.
	for _, cl := range slices.Sorted(maps.Keys(final)) {
		m := final[cl]
		if recorded[cl] == m {
			continue
		}
		fixes.SetMaster(cl, m)
		rec, ok, err := c.pages.Get(m)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		p := pageOf(rec)
		p.Result.Cluster, p.Result.Master, p.Result.Duplicate = cluster.ID(cl), m, true
		if err := c.hook.Reindex(ctx, p); err != nil {
			return err
		}
		c.sinceFlush++
	}
	if stored, err := c.pages.Commit(&fixes); err != nil {
		return err
	} else if len(stored) > 0 {
		c.lastRev = max(c.lastRev, stored[len(stored)-1].Rev)
	}
	err = c.front.All(func(u string, st frontier.State, _ string) error {
		c.admit.Restore(u)
		if st == frontier.Pending && !c.admit.HasDuplicates(u) {
			tmpl := c.admit.Template(u)
			c.queued[tmpl] = append(c.queued[tmpl], u)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := c.scheduleMissing(); err != nil {
		return err
	}
	c.recrawl.plan(time.Now())
	return c.finish()
}

// scheduleMissing schedules the revisit of every fetched page that has
// none and is not queued: due its policy interval after its last fetch.
func (c *Crawler) scheduleMissing() error {
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
