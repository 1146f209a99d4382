package indexer

import (
	"context"
	"fmt"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	index "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// VisibleStats are the term statistics of the records one user may see
// — those [VisibleTo] their groups matches — read from one snapshot of
// a scorch index: how many there are, and how many hold a term in a
// field. They are what a count search (the term's query and VisibleTo,
// conjoined) answers, from the posting lists alone: each segment's
// records the user may not see (or that were deleted) are one bitmap,
// made once, and a term's count is its posting list's cardinality
// without them (roaring's AndCardinality) — microseconds, where a
// search costs a searcher, a collector and a walk of both lists. Safe
// for concurrent use; call Close when done.
type VisibleStats struct {
	r     index.IndexReader
	segs  []visibleSegment
	total uint64
	all   bool // total is every record of the snapshot

	mu    sync.Mutex
	dicts map[string][]segment.TermDictionary // by field, one per segment
}

// A visibleSegment is a segment of the snapshot and its records the user
// may not see or that were deleted.
type visibleSegment struct {
	seg    segment.Segment
	hidden *roaring.Bitmap
}

// VisibleStats returns the statistics of the records a user of groups
// may see, from the index as it stands; nil (and no error) when the
// index cannot give them so — it is not a scorch index, or it is a
// user's own index with its records apart (see [Wrap]) — and the caller
// counts with searches. Cost: for each segment of the index, the posting
// lists of the user's groups or'ed and complemented.
func (x *Index) VisibleStats(groups []string) (*VisibleStats, error) {
	if x.shut.Load() {
		return nil, ErrClosed
	}
	if x.split {
		return nil, nil
	}
	adv, err := x.idx.Advanced()
	if err != nil {
		return nil, fmt.Errorf("indexer: %w", err)
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, fmt.Errorf("indexer: %w", err)
	}
	snap, ok := r.(interface {
		Segments() []*scorch.SegmentSnapshot
	})
	if !ok {
		return nil, r.Close()
	}
	v := &VisibleStats{r: r, dicts: map[string][]segment.TermDictionary{}}
	terms := append([]string{PublicGroup}, groups...)
	for _, ss := range snap.Segments() {
		seg := ss.Segment()
		dict, err := seg.Dictionary(FieldGroups)
		if err != nil {
			r.Close()
			return nil, fmt.Errorf("indexer: %w", err)
		}
		visible := roaring.New()
		for _, g := range terms {
			pl, err := dict.PostingsList([]byte(g), nil, nil)
			if err != nil {
				r.Close()
				return nil, fmt.Errorf("indexer: %w", err)
			}
			if err := orPostings(visible, pl); err != nil {
				r.Close()
				return nil, fmt.Errorf("indexer: %w", err)
			}
		}
		if del := ss.Deleted(); del != nil {
			visible.AndNot(del)
		}
		v.total += visible.GetCardinality()
		hidden := roaring.Flip(visible, 0, seg.Count())
		v.segs = append(v.segs, visibleSegment{seg: seg, hidden: hidden})
	}
	records, err := r.DocCount()
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("indexer: %w", err)
	}
	v.all = records == v.total
	return v, nil
}

// orPostings adds the documents of pl to bm.
func orPostings(bm *roaring.Bitmap, pl segment.PostingsList) error {
	it := pl.Iterator(false, false, false, nil)
	if o, ok := it.(segment.OptimizablePostingsIterator); ok {
		if actual := o.ActualBitmap(); actual != nil {
			bm.Or(actual)
			return nil
		}
		if n, ok := o.DocNum1Hit(); ok {
			bm.Add(uint32(n))
			return nil
		}
	}
	for {
		p, err := it.Next()
		if err != nil || p == nil {
			return err
		}
		bm.Add(uint32(p.Number()))
	}
}

// Total returns how many records the user may see.
func (v *VisibleStats) Total() uint64 { return v.total }

// All reports whether the user may see every record of the snapshot
// (member records included, which no user sees): the index's own
// statistics are then theirs.
func (v *VisibleStats) All() bool { return v.all }

// Count returns how many records the user may see hold term in field
// (bleve's composite field, [FieldAll], for any text field). Cost: a
// dictionary lookup and a bitmap intersection's cardinality per segment.
func (v *VisibleStats) Count(field, term string) (uint64, error) {
	dicts, err := v.dictionaries(field)
	if err != nil {
		return 0, err
	}
	n := uint64(0)
	for i, d := range dicts {
		pl, err := d.PostingsList([]byte(term), v.segs[i].hidden, nil)
		if err != nil {
			return 0, fmt.Errorf("indexer: %w", err)
		}
		n += pl.Count()
	}
	return n, nil
}

// dictionaries returns each segment's dictionary of field.
func (v *VisibleStats) dictionaries(field string) ([]segment.TermDictionary, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if d, ok := v.dicts[field]; ok {
		return d, nil
	}
	out := make([]segment.TermDictionary, len(v.segs))
	for i, s := range v.segs {
		d, err := s.seg.Dictionary(field)
		if err != nil {
			return nil, fmt.Errorf("indexer: %w", err)
		}
		out[i] = d
	}
	v.dicts[field] = out
	return out, nil
}

// Close releases the snapshot the statistics read.
func (v *VisibleStats) Close() error { return v.r.Close() }

// termsCheckEvery is how many terms Terms walks between two looks at its
// context.
const termsCheckEvery = 1024

// Terms calls fn, in term order, with each term of field that a record
// the user may see holds and how many such records hold it (what Count
// says), until fn returns an error, which Terms returns, or ctx is done.
// Cost: the field's dictionary walked once, hidden terms included, and a
// posting-list cardinality per term and segment.
func (v *VisibleStats) Terms(ctx context.Context, field string, fn func(term string, count uint64) error) error {
	fd, err := v.r.FieldDict(field)
	if err != nil {
		return fmt.Errorf("indexer: %w", err)
	}
	defer fd.Close()
	for n := 1; ; n++ {
		if n%termsCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		e, err := fd.Next()
		if err != nil {
			return fmt.Errorf("indexer: %w", err)
		}
		if e == nil {
			return nil
		}
		c, err := v.Count(field, e.Term)
		if err != nil {
			return err
		}
		if c > 0 {
			if err := fn(e.Term, c); err != nil {
				return err
			}
		}
	}
}

// Snapshot returns the index snapshot the statistics read: the same
// pointer for every VisibleStats read while the index is unchanged, so
// that what is derived from them can be kept for as long as it lives
// (weakly). Do not close it: Close does.
func (v *VisibleStats) Snapshot() *scorch.IndexSnapshot {
	s, _ := v.r.(*scorch.IndexSnapshot)
	return s
}
