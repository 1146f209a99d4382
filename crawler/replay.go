package crawler

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/doppel-search/doppel/crawler/admit"
	"github.com/doppel-search/doppel/crawler/frontier"
	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/crawler/traps"
	"github.com/doppel-search/doppel/dedup/features"
)

// replay rebuilds the detector, site-template statistics, trap statistics
// and counters from the recorded pages, in crawl order, through the same
// path live pages take (hook.Replay: Insert → Index), and re-indexes the
// pages the index may lack: those recorded after its watermark. Index
// updates are idempotent upserts, so re-applying them makes the index
// agree with the records whatever a crash interrupted.
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
	err = c.pages.Each(func(r pages.Record) error {
		c.lastRev = max(c.lastRev, r.Rev)
		switch r.Status {
		case pages.Skipped:
			c.skipped.Add(1)
			if r.Reason == admit.ReasonSoft404 {
				c.admit.Observe(r.URL, traps.NotFound, "")
			}
			return nil
		case pages.Failed:
			c.errs.Add(1)
			return nil
		}
		reindex := r.Rev > through
		p, err := c.hook.Replay(ctx, pageOf(r), reindex)
		if err != nil {
			return err
		}
		v := traps.Unique
		if len(features.Tokens(strings.Join(r.Blocks, " "))) == 0 {
			v = traps.Empty
		}
		c.countPage(r.URL, p.Result, v)
		if reindex {
			c.sinceFlush++
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("crawler: replaying recorded pages: %w", err)
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
	return c.finish()
}
