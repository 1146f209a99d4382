package crawler

import (
	"slices"
	"time"

	"github.com/doppel-search/doppel/crawler/hook"
	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/crawler/schedule"
)

// The committer's records of processed pages: the hook's Recorder
// (record), with the fetch's details of the page fetched (recording), the
// anchor texts a page is indexed with (anchorsOf) and the containment of
// its parts (recordParts).

// anchorsOf returns the anchor texts of links to url known now: committed
// ones, those of groups the record writer has not committed yet, and
// those of pages earlier in this group.
func (c *committer) anchorsOf(url string) ([]string, error) {
	// The writer's first: a group it commits meanwhile is then in the
	// store when the store is read.
	var pending []string
	if c.writer != nil {
		pending = c.writer.unwrittenAnchors(url)
	}
	anchors, err := c.pages.Anchors(url)
	if err != nil {
		return nil, err
	}
	for _, a := range append(pending, c.batch.PendingAnchors(url)...) {
		if a != "" && len(anchors) < pages.MaxAnchors && !slices.Contains(anchors, a) {
			anchors = append(anchors, a)
		}
	}
	return anchors, nil
}

// recording is what the committer knows of the page the hook is about to
// record beyond the page itself: the fetch, for the page fetched; nothing
// (zero) for pages a change moved, whose record keeps its fetch.
type recording struct {
	url            string // the page fetched
	etag, modified string
	hash           uint64
	linkHash       uint64
	links          []string // Record.Links
	linksOnly      bool     // Record.LinksOnly
	sched          schedule.State
	fetched        time.Time
	reason         string // a bound the page hit (Record.Reason)
}

// record is the hook's Recorder: it puts the page's record in the group
// being built. The page fetched gets the fetch's details (c.recording);
// another page (one a change gave a new cluster or master) keeps those of
// its record. A page that left its cluster and entered the detector anew
// is moved to the end of the record order, where a restart replays it.
func (c *committer) record(p hook.Page) error {
	rec, err := c.recordOf(p)
	if err != nil {
		return err
	}
	if p.Arrived {
		c.batch.Move(rec)
	} else {
		c.batch.Put(rec)
	}
	if p.Result.Master == p.URL {
		c.batch.SetMaster(string(p.Result.Cluster), p.URL)
	}
	return c.recordParts(p)
}

// recordParts records, for every earlier page the detector found to be
// a part of page p (dedup.Result.Parts), that it is contained in p.
func (c *committer) recordParts(p hook.Page) error {
	for _, part := range p.Result.Parts {
		old, ok, err := c.latest(part)
		if err != nil {
			return err
		}
		if ok && old.Status == pages.Fetched && old.ContainedIn != p.URL {
			old.ContainedIn = p.URL
			c.batch.Put(old)
		}
	}
	return nil
}

// recordOf returns the record of a processed page: the page, with the
// fetch's details (c.recording) if it is the page fetched, else those of
// its record.
func (c *committer) recordOf(p hook.Page) (pages.Record, error) {
	rec := hook.Record(p)
	if rc := c.recording; rc.url == p.URL {
		rec.FetchedAt, rec.ETag, rec.Modified, rec.Hash, rec.Schedule = rc.fetched, rc.etag, rc.modified, rc.hash, rc.sched
		rec.LinkHash, rec.Links, rec.LinksOnly, rec.Reason = rc.linkHash, rc.links, rc.linksOnly, rc.reason
		return rec, nil
	}
	old, ok, err := c.latest(p.URL)
	if err != nil {
		return rec, err
	}
	if ok {
		rec.FetchedAt, rec.ETag, rec.Modified, rec.Hash, rec.Schedule = old.FetchedAt, old.ETag, old.Modified, old.Hash, old.Schedule
		rec.LinkHash, rec.Links, rec.LinksOnly, rec.Reason = old.LinkHash, old.Links, old.LinksOnly, old.Reason
	}
	return rec, nil
}
