package indexer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
	index "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"

	"github.com/doppel-search/doppel/internal/ticker"
)

// ErrNotCompactable is returned by Compact for an index that is not a
// scorch index on disk (an in-memory one, say): all Compact merges.
var ErrNotCompactable = errors.New("indexer: only a scorch index on disk can be compacted")

// ErrNoSpace is returned by Compact when the file system holding the
// index has less room than a compaction may write (the live records'
// segments, once more).
var ErrNoSpace = errors.New("indexer: not enough free disk space to compact")

// CompactOptions configure [Index.Compact]. The zero value is the
// default.
type CompactOptions struct {
	// Progress, if not nil, is called every ProgressEvery while the
	// segments are merged, from a goroutine of its own (one call at a
	// time), with what has been done so far.
	Progress func(CompactProgress)
	// ProgressEvery is how often Progress is called. Default 5 s.
	ProgressEvery time.Duration
	// Planned merges what scorch's planner judges worth merging, in
	// one round: it may leave a segment alone, the largest or one of
	// mostly deleted records, with its deleted records, when merging it
	// costs more than it saves. `doppel crawl --once --serve` uses it
	// once the pass has ended (1.5 s less than merging all on the 10,552
	// pages of docs/measurements.md's quiet pair); `doppel compact`
	// merges all.
	Planned bool
}

// CompactProgress is how far a compaction has gone.
type CompactProgress struct {
	Segments int           // segments when the merge began
	Written  uint64        // bytes of merged segments written so far
	Total    uint64        // bytes of the segments read (what a merge writes at most)
	Elapsed  time.Duration // since the merge began
}

// Compaction is what [Index.Compact] did: the index's segments and the
// deleted records they held before and after, and how long it took.
type Compaction struct {
	Before, After SegmentStats
	Elapsed       time.Duration
}

// SegmentStats describe an index's segments at one moment.
type SegmentStats struct {
	Segments int    // index segments (files)
	Records  uint64 // live records (documents, difference and member records)
	Deleted  uint64 // records deleted but still in a segment, which every search skips
	Bytes    uint64 // size of the segments' files
}

// compactable is a bleve index implementation that merges its segments
// on request: scorch, and package indexer/shard's stores (which embed
// it).
type compactable interface {
	ForceMerge(ctx context.Context, mo *mergeplan.MergePlanOptions) error
	Stats() json.Marshaler
	Reader() (index.IndexReader, error)
}

// Compact merges the index's segments into one (unless
// CompactOptions.Planned), dropping deleted records, so that each term
// of a search reads one posting list instead of one per segment and
// skips no deleted records (scorch cannot merge a single segment: its
// deleted records stay). Searches go on meanwhile, on the segments as
// they were until the merged one replaces them; Add and Flush go on too,
// into new segments. Changes not flushed are not merged.
//
// A compaction is interruptible and crash-safe: when ctx is done (or the
// index is closed) the merge in progress stops, its partial file is
// removed and Compact returns ctx's error; the merged segment replaces the
// old ones in one commit of the index's root, so a process killed at any
// point leaves the old segments or the merged one, never a mix. It is
// bounded: it writes at most the live records' segments once more, and
// refuses with an error wrapping [ErrNoSpace] when the file system
// holds less than that free. Cost: reading and writing the index's
// segments once (10 s of CPU for the 321 MB of a 25,779-page crawl:
// docs/measurements.md). An index opened read-only returns
// [ErrReadOnly]; one that is not a scorch index on disk,
// [ErrNotCompactable].
func (x *Index) Compact(ctx context.Context, opts CompactOptions) (Compaction, error) {
	switch {
	case x.shut.Load():
		return Compaction{}, ErrClosed
	case x.opts.ReadOnly:
		return Compaction{}, ErrReadOnly
	}
	c, ok := compactableOf(x.idx)
	if !ok {
		return Compaction{}, ErrNotCompactable
	}
	return compact(ctx, c, opts, x.shut.Load)
}

// Segments returns the index's segments as they stand: what
// [Index.Compact] would merge. An index that is not a scorch index on
// disk returns an error wrapping [ErrNotCompactable].
func (x *Index) Segments() (SegmentStats, error) {
	if x.shut.Load() {
		return SegmentStats{}, ErrClosed
	}
	c, ok := compactableOf(x.idx)
	if !ok {
		return SegmentStats{}, ErrNotCompactable
	}
	st, _, err := segmentStats(c)
	return st, err
}

// compactableOf returns the scorch index under idx, if it is one.
func compactableOf(idx interface {
	Advanced() (index.Index, error)
}) (compactable, bool) {
	adv, err := idx.Advanced()
	if err != nil {
		return nil, false
	}
	c, ok := adv.(compactable)
	return c, ok
}

// compact force-merges c once, waiting until the merged segment is
// persisted (the index's root written), reporting progress meanwhile;
// closed says whether the index was closed (which stops the merge).
func compact(ctx context.Context, c compactable, opts CompactOptions, closed func() bool) (Compaction, error) {
	start := time.Now()
	before, dir, err := segmentStats(c)
	if err != nil {
		return Compaction{}, err
	}
	out := Compaction{Before: before, After: before}
	if before.Segments <= 1 && before.Deleted == 0 {
		return out, nil
	}
	if err := ctx.Err(); err != nil {
		return out, fmt.Errorf("indexer: compaction not started: %w", err)
	}
	if err := checkSpace(dir, before.Bytes); err != nil {
		return out, err
	}
	st, ok := c.Stats().(*scorch.Stats)
	if !ok {
		return out, ErrNotCompactable
	}
	stop := reportCompaction(opts, st, before, start)
	defer stop()
	// A round merges ten segments at a time; segments that Add and Flush
	// make meanwhile are merged by the next round, while rounds make
	// progress.
	for round := 1; ; round++ {
		mo := mergeAll
		if opts.Planned {
			mo = mergeplan.SingleSegmentMergePlanOptions
		}
		err = c.ForceMerge(ctx, &mo)
		switch {
		case err != nil:
		case ctx.Err() != nil:
			err = ctx.Err() // a cancelled merge returns nil: it stopped
		case closed():
			err = ErrClosed // so does a merge the index's Close stopped
		}
		if err == nil {
			err = waitPersisted(ctx, st, closed)
		}
		if err != nil {
			return out, fmt.Errorf("indexer: compaction stopped: %w", err)
		}
		prev := out.After
		if out.After, _, err = segmentStats(c); err != nil {
			return out, err
		}
		if opts.Planned || out.After.Segments <= 1 || out.After.Segments >= prev.Segments || round == maxMergeRounds {
			break
		}
	}
	out.Elapsed = time.Since(start)
	return out, nil
}

// maxMergeRounds bounds the force merges of one compaction: enough for
// 10^4 segments, ten merged at a time.
const maxMergeRounds = 4

// mergeAll is scorch's single-segment merge plan made to merge every
// segment, ten at a time. Scorch's own scoring of a roster of segments
// (what a merge saves against what it writes) may leave the largest
// segment alone, and its deleted records in it: a compaction merges
// all, whatever it costs, so it scores a roster by its length.
var mergeAll = func() mergeplan.MergePlanOptions {
	mo := mergeplan.SingleSegmentMergePlanOptions
	mo.ScoreSegments = func(roster []mergeplan.Segment, _ *mergeplan.MergePlanOptions) float64 {
		return -float64(len(roster))
	}
	return mo
}()

// reportCompaction calls opts.Progress every opts.ProgressEvery until
// the returned function is called.
func reportCompaction(opts CompactOptions, st *scorch.Stats, before SegmentStats, start time.Time) (stop func()) {
	if opts.Progress == nil {
		return func() {}
	}
	every := opts.ProgressEvery
	if every <= 0 {
		every = 5 * time.Second
	}
	written0 := atomic.LoadUint64(&st.TotFileMergeWrittenBytes)
	return ticker.Every(every, func() {
		opts.Progress(CompactProgress{Segments: before.Segments, Total: before.Bytes,
			Written: atomic.LoadUint64(&st.TotFileMergeWrittenBytes) - written0, Elapsed: time.Since(start)})
	})
}

// persistPoll is how often waitPersisted looks at the index's epochs.
const persistPoll = 20 * time.Millisecond

// waitPersisted waits until the index's root as it stands now is
// persisted: a merged segment is introduced in memory first, and a
// close before the persister writes the root would leave the old
// segments as the index.
func waitPersisted(ctx context.Context, st *scorch.Stats, closed func() bool) error {
	root := atomic.LoadUint64(&st.CurRootEpoch)
	tick := time.NewTicker(persistPoll)
	defer tick.Stop()
	for atomic.LoadUint64(&st.LastPersistedEpoch) < root {
		if closed() {
			return ErrClosed // the persister stopped: the old segments stay
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
	return nil
}

// segmentStats returns the segments of c's current snapshot and the
// directory of their files ("" if none is on disk).
func segmentStats(c compactable) (SegmentStats, string, error) {
	r, err := c.Reader()
	if err != nil {
		return SegmentStats{}, "", fmt.Errorf("indexer: %w", err)
	}
	defer r.Close()
	snap, ok := r.(interface {
		Segments() []*scorch.SegmentSnapshot
	})
	if !ok {
		return SegmentStats{}, "", ErrNotCompactable
	}
	var out SegmentStats
	dir := ""
	for _, ss := range snap.Segments() {
		out.Segments++
		out.Records += ss.Count()
		if del := ss.Deleted(); del != nil {
			out.Deleted += del.GetCardinality()
		}
		if ps, ok := ss.Segment().(segment.PersistedSegment); ok {
			dir = filepath.Dir(ps.Path())
			if fi, err := os.Stat(ps.Path()); err == nil {
				out.Bytes += uint64(fi.Size())
			}
		}
	}
	return out, dir, nil
}
