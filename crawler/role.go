package crawler

import (
	"context"
	"time"

	"github.com/doppel-search/doppel/crawler/pages"
)

// A commitRole is what the committer does with a crawl's pages that
// depends on whose crawl it is, chosen once by Open (newRoles):
//
//   - oneMachine: a crawl on one machine (and a shared crawl's Follower,
//     which commits as one machine does) owns its pages' fates — it
//     schedules every revisit in its frontier and commits a revisit
//     through its own detector;
//   - sharedWorker (sharedworker.go): a worker process of a crawl shared
//     among workers (`doppel worker`, Options.Share) hands its pages,
//     decisions and revisits on (Share: sharedcrawl's Worker, to the
//     shared page log), and the follower schedules their revisits.
//
// The committer's paths call it and never ask which it is.
type commitRole interface {
	// handOn hands on what was decided since the last frontier commit
	// (a group's, or the seeds'), before it is made durable.
	handOn(ctx context.Context) error
	// takeFetched commits a page fetched for the first time and returns
	// its done mark and whether its links count as found on unique
	// content.
	takeFetched(ctx context.Context, r *result, mark doneMark, now time.Time) (doneMark, bool, error)
	// takeRevisit commits a page fetched again, likewise.
	takeRevisit(ctx context.Context, r *result, now time.Time) (doneMark, bool, error)
	// takeFound schedules the revisits a sitemap found due now.
	takeFound(r *result, now time.Time)
	// scheduleMissing schedules, after a restart, the revisits the
	// fetched pages lack.
	scheduleMissing() error
	// fetchedNothing returns the error of a run that ended without a
	// page fetched.
	fetchedNothing() error
	// checkStores checks, when the crawl is opened, that its records and
	// its index in dir can belong together.
	checkStores(dir string, recs *pages.Store, index Store) error
}

// newRoles returns the committer's role and its detector's keeper for a
// crawl with options opts: a shared crawl's worker's (Options.Share),
// else one machine's.
func newRoles(opts *Options, c *committer) (commitRole, detectorKeeper) {
	if opts.Share != nil {
		w := &sharedWorker{c: c, share: opts.Share}
		return w, sharedDetector{det: opts.Share.Detector(), atTurn: w.atTurn}
	}
	return oneMachine{c}, ownDetector{c}
}

// oneMachine is the role of a crawl on one machine: the committer owns
// its pages' fates.
type oneMachine struct{ c *committer }

// handOn has nothing to hand on: the frontier commit makes it durable.
func (oneMachine) handOn(context.Context) error { return nil }

// takeFetched inserts the page (committer.insertFetched) and plans its
// revisit.
func (m oneMachine) takeFetched(ctx context.Context, r *result, mark doneMark, now time.Time) (doneMark, bool, error) {
	c := m.c
	res, err := c.insertFetched(ctx, r, now)
	if err != nil {
		return mark, false, err
	}
	rec := c.batch.Latest(r.url)
	mark.revisit = c.nextVisit(rec, false, res.Master == r.url, now)
	mark.listing = revisitsFirst(rec)
	return mark, !res.Duplicate, nil
}

// takeRevisit commits the revisit through the crawl's detector
// (committer.revisit).
func (m oneMachine) takeRevisit(ctx context.Context, r *result, now time.Time) (doneMark, bool, error) {
	return m.c.revisit(ctx, r, now)
}

// takeFound schedules the pages a sitemap found changed, as urgent as a
// new page, and keeps its changefreqs for their next visits.
func (m oneMachine) takeFound(r *result, now time.Time) {
	c := m.c
	for _, u := range r.revisitNow {
		c.fbatch.Schedule(u, now, PriorityUnique, revisitPayload(1)) // a known change: as urgent as a new page
	}
	c.recrawl.hint(r.changeFreq)
}

// scheduleMissing schedules the missing revisits
// (committer.scheduleMissing).
func (m oneMachine) scheduleMissing() error { return m.c.scheduleMissing() }

// fetchedNothing names the first reasons recorded
// (committer.fetchedNothing).
func (m oneMachine) fetchedNothing() error { return m.c.fetchedNothing() }

// checkStores checks that the index and the records agree (agree).
func (oneMachine) checkStores(dir string, recs *pages.Store, index Store) error {
	return agree(dir, recs, index)
}
