package crawler

import (
	"context"
	"errors"
	"math"

	"github.com/doppel-search/doppel/crawler/hook"
	"github.com/doppel-search/doppel/dedup"
)

// A detectorKeeper keeps the near-duplicate detector a crawl's pages go
// through, chosen once by Open (newRoles):
//
//   - ownDetector: a crawl's own (on one machine, or a Follower's) is
//     read from its snapshot in the data directory, re-clustered as the
//     crawl grows (recluster.go), written to its snapshot (snapshot.go)
//     and closed with the crawl;
//   - sharedDetector: the workers' shared detector of a crawl shared
//     among workers holds every page recorded, is re-clustered by
//     nobody (the follower re-clusters its own) and is closed by its
//     maker.
type detectorKeeper interface {
	// openHook returns the hook the crawl processes pages with, made
	// from hopts with the detector (and, for a shared crawl's worker, no
	// index and the page log at each page's turn), and the header of the
	// snapshot the detector was read from (nil if none).
	openHook(hopts hook.Options, dir string) (*hook.Hook, *snapHeader, error)
	// restoredThrough reports whether the detector, as opened, holds the
	// pages recorded, and up to which record revision.
	restoredThrough(snap *snapHeader) (rev uint64, restored bool)
	// afterGroup re-clusters and writes the snapshot when due.
	afterGroup(ctx context.Context) error
	// recluster re-clusters now, and records and index follow, with the
	// pages of force indexed again (committer.recluster).
	recluster(ctx context.Context, force map[string]bool) error
	// snapshot writes the detector's snapshot if it changed.
	snapshot() error
	// close closes the detector if it is the crawl's.
	close(det *dedup.Detector) error
}

// ownDetector keeps a crawl's own detector.
type ownDetector struct{ c *committer }

// openHook opens the detector from its snapshot in dir, if usable
// (openDetector), and the hook with it.
func (k ownDetector) openHook(hopts hook.Options, dir string) (*hook.Hook, *snapHeader, error) {
	dopts := dedup.Web()
	dopts.Similarity = k.c.opts.Similarity
	det, snap, err := openDetector(dir, dopts)
	if err != nil {
		return nil, nil, err
	}
	hopts.Detector = det
	h, err := hook.New(hopts)
	if err != nil {
		det.Close()
	}
	return h, snap, err
}

// restoredThrough: a detector read from a snapshot holds every page
// recorded up to the snapshot's revision.
func (ownDetector) restoredThrough(snap *snapHeader) (uint64, bool) {
	if snap == nil {
		return 0, false
	}
	return snap.rev, true
}

// afterGroup re-clusters when due (maybeRecluster) and writes the
// snapshot when due (maybeSnapshot).
func (k ownDetector) afterGroup(ctx context.Context) error {
	return errors.Join(k.c.maybeRecluster(ctx), k.c.maybeSnapshot())
}

func (k ownDetector) recluster(ctx context.Context, force map[string]bool) error {
	return k.c.recluster(ctx, force)
}

func (k ownDetector) snapshot() error { return k.c.writeSnapshot() }

func (ownDetector) close(det *dedup.Detector) error { return det.Close() }

// sharedDetector keeps nothing of a shared crawl's detector: the shared
// detector holds every page recorded (the signatures on the Redis
// Cluster), and only the follower's own is re-clustered and written.
type sharedDetector struct {
	det *dedup.Detector
	// atTurn hands each page on at its turn (sharedWorker.atTurn).
	atTurn func(n uint32, p hook.Page) error
}

// openHook makes the hook with the shared detector, no index, and
// atTurn at each page's turn.
func (k sharedDetector) openHook(hopts hook.Options, _ string) (*hook.Hook, *snapHeader, error) {
	hopts.Detector, hopts.Index, hopts.AtTurn = k.det, nil, k.atTurn
	h, err := hook.New(hopts)
	return h, nil, err
}

// restoredThrough: the shared detector holds every page recorded.
func (sharedDetector) restoredThrough(*snapHeader) (uint64, bool) { return math.MaxUint64, true }

func (sharedDetector) afterGroup(context.Context) error                 { return nil }
func (sharedDetector) recluster(context.Context, map[string]bool) error { return nil }
func (sharedDetector) snapshot() error                                  { return nil }

// close leaves the shared detector to its maker.
func (sharedDetector) close(*dedup.Detector) error { return nil }
