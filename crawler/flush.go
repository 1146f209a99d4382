package crawler

import (
	"context"
	"time"
)

// indexFlush is the group commit's index flush: the index is flushed
// every flushPages fetched pages or RefreshInterval, in the background
// (Index.FlushAsync) while the next groups are committed, and its
// watermark — the last record durably in the index — is stored in the
// page store, so that a restart re-indexes only the records after it.
// The committer's part; touched only by the committer goroutine.
type indexFlush struct {
	sinceFlush  int          // fetched pages added to the index since its last flush
	lastFlush   time.Time    // when the index was last flushed
	watermark   uint64       // records up to here are durably in the index; not yet stored when > stored
	stored      uint64       // the watermark the page store has
	flushing    func() error // waits for the index write in progress (Index.FlushAsync); nil if none
	flushingRev uint64       // the last record that write holds
}

// flushIndex starts writing the index batch in the background when due
// (every flushPages pages, or RefreshInterval after the last flush), once
// the records it holds are committed and the previous write has finished,
// whose pages then count as durably indexed (the watermark the next
// page-store commit stores). With force it waits for both and writes what
// is left at once. The index is never ahead of the records.
func (c *committer) flushIndex(force bool) error {
	due := c.sinceFlush > 0 && (force || c.sinceFlush >= flushPages || time.Since(c.lastFlush) >= c.opts.RefreshInterval)
	if !due && !force {
		return nil
	}
	if err := c.waitFlush(); err != nil {
		return err
	}
	if !due {
		return nil
	}
	if err := c.waitRecords(); err != nil {
		return err
	}
	if force {
		if err := c.index.Flush(context.Background()); err != nil {
			return err
		}
		c.watermark = c.lastRev
	} else {
		c.flushing, c.flushingRev = c.index.FlushAsync(), c.lastRev
	}
	c.sinceFlush, c.lastFlush = 0, time.Now()
	return nil
}

// flushIndexNow writes what is left of the index batch at once (after
// the records it holds) and stores the watermark in the page store.
func (c *committer) flushIndexNow() error {
	if err := c.flushIndex(true); err != nil {
		return err
	}
	if c.watermark > c.stored {
		if err := c.pages.SetIndexedThrough(c.watermark); err != nil {
			return err
		}
		c.stored = c.watermark
	}
	return nil
}

// waitFlush waits for the index write in progress, if any, and moves the
// watermark past its pages.
func (f *indexFlush) waitFlush() error {
	if f.flushing == nil {
		return nil
	}
	err := f.flushing()
	f.flushing = nil
	if err != nil {
		return err
	}
	f.watermark = max(f.watermark, f.flushingRev)
	return nil
}
