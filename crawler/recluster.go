package crawler

import (
	"context"

	"github.com/doppel-search/doppel/crawler/hook"
	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/dedup"
)

// testHookRecluster, when set (by the kill tests), runs after a
// re-clustering has changed records and index, before either is durable.
var testHookRecluster func()

// reclusterState says when the detector is re-clustered next (see
// maybeRecluster): pages inserted since the last re-clustering, and how
// many pages the detector held then. The committer's part; touched only
// by the committer goroutine.
type reclusterState struct {
	sinceRecluster, reclustered int
}

// reclusterMin is the fewest pages inserted since the last re-clustering
// for which a crawl re-clusters before it ends (see maybeRecluster).
const reclusterMin = 1000

// maybeRecluster re-clusters when the crawl has inserted as many pages
// since the last re-clustering as it held then (and at least
// reclusterMin): the clusters of a growing crawl are rebuilt as stars at
// doublings of its size, so the work stays proportional to the pages
// crawled, and chains that online clustering splits do not last.
func (c *committer) maybeRecluster(ctx context.Context) error {
	if c.sinceRecluster < max(reclusterMin, c.reclustered) {
		return nil
	}
	return c.recluster(ctx, nil)
}

// recluster makes the detector's clusters star clusters
// (dedup.Detector.Recluster: the same whatever the arrival order, every
// member resembling its master) and makes records and index follow: each
// fetched page whose cluster or cluster master is not the one its record
// and the recorded masters say, each page whose index text the site
// statistics known now strip otherwise (hook.Restrip), and each page in
// force (replay: the pages the index may lack), is recorded and indexed
// again with its new place and text,
// masters first. The records are committed (through the record writer,
// when one runs) before the index is flushed, as for any page. Cost: the
// detector's rebuild, one read of every page's placement (in one
// transaction, while the detector rebuilds: readPlacements; the whole
// record only for a page that moves or may be stripped again), and an
// index Add per page that moved.
func (c *committer) recluster(ctx context.Context, force map[string]bool) error {
	c.sinceRecluster = 0
	if c.opts.NoDedup {
		return nil
	}
	if err := c.waitRecords(); err != nil {
		return err
	}
	read := c.readPlacements()
	as, err := c.hook.Detector().Recluster(ctx)
	placed, recorded, rerr := read()
	if err != nil {
		return err
	}
	if rerr != nil {
		return rerr
	}
	c.reclustered = len(as)
	c.countClusters(as)
	size := map[string]int{}
	for _, a := range as {
		size[string(a.Cluster)]++
	}
	var fixes pages.Batch
	// Masters first: a member's difference record is made against its
	// master as the index holds it.
	for _, masters := range []bool{true, false} {
		for _, a := range as {
			if (a.Master == a.ID) != masters {
				continue
			}
			if err := c.place(ctx, a, size[string(a.Cluster)] > 1, placed[a.ID], recorded, force[a.ID], &fixes); err != nil {
				return err
			}
		}
	}
	if fixes.Empty() {
		return nil
	}
	if err := c.store(fixes); err != nil {
		return err
	}
	if testHookRecluster != nil {
		testHookRecluster()
	}
	return nil
}

// readPlacements starts reading, in a goroutine of its own, the
// placement of every page the detector holds and the recorded masters,
// and returns the function that waits for them: the read goes on while
// the detector re-clusters (the same pages, whatever their clusters),
// with every record committed (waitRecords) and none written meanwhile.
func (c *committer) readPlacements() func() (map[string]pages.Placement, map[string]string, error) {
	as := c.hook.Detector().Assignments()
	ids := make([]string, len(as))
	for i, a := range as {
		ids[i] = a.ID
	}
	var placed map[string]pages.Placement
	var recorded map[string]string
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		if recorded, err = c.pages.Masters(); err == nil {
			placed, err = c.pages.Placements(ids)
		}
	}()
	return func() (map[string]pages.Placement, map[string]string, error) {
		<-done
		return placed, recorded, err
	}
}

// countClusters sets the counters of unique and duplicate pages to the
// clusters of as, a re-clustering's assignments: a page is unique when it
// is its cluster's master — as the records count when the crawl is
// opened again (restorePage), so that the counters do not change on a
// restart. Between re-clusterings a page counts as it was inserted (a
// new cluster's page unique, a page joining one a duplicate).
func (c *committer) countClusters(as []dedup.Assignment) {
	masters := 0
	for _, a := range as {
		if a.Master == a.ID {
			masters++
		}
	}
	c.unique.Store(int64(masters))
	c.dups.Store(int64(len(as) - masters))
}

// place records and indexes again the fetched page of assignment a when
// its record or its cluster's recorded master (recorded) differ from a,
// when its index text stripped by the site-template statistics known now
// differs from its record's (hook.Restrip: pages stripped before their
// host's or section's template was known), or when force is set; dup
// says a's cluster has other members; at is where its record puts it
// (zero if it has none). The record itself is read only when it is to
// change or may be stripped again (hook.Early).
func (c *committer) place(ctx context.Context, a dedup.Assignment, dup bool, at pages.Placement, recorded map[string]string, force bool, fixes *pages.Batch) error {
	cl := string(a.Cluster)
	if at.Status != pages.Fetched || at.Cluster == cl && recorded[cl] == a.Master && !force && !c.hook.Early(a.ID) {
		return nil
	}
	rec, ok, err := c.pages.Get(a.ID)
	if err != nil || !ok || rec.Status != pages.Fetched {
		return err
	}
	restripped := c.hook.Restrip(&rec.Page)
	if rec.Cluster == cl && recorded[cl] == a.Master && !force && !restripped {
		return nil
	}
	rec.Cluster = cl
	fixes.Put(rec)
	if a.Master == a.ID && recorded[cl] != a.ID {
		fixes.SetMaster(cl, a.ID)
	}
	p := hook.FromRecord(rec)
	p.Result = dedup.Result{ID: a.ID, Cluster: a.Cluster, Master: a.Master, Duplicate: dup, Edited: a.Edited, Simhash: rec.Simhash}
	if err := c.hook.Reindex(ctx, p); err != nil {
		return err
	}
	c.sinceFlush++
	return nil
}

// store commits records: through the record writer when one runs (in
// order with the groups' records), else at once.
func (c *committer) store(b pages.Batch) error {
	if c.writer != nil {
		c.writer.write(b, nil)
		return nil
	}
	stored, err := c.pages.Commit(&b)
	if err != nil {
		return err
	}
	if len(stored) > 0 {
		c.lastRev = max(c.lastRev, stored[len(stored)-1].Rev)
	}
	return nil
}
