package shard

import (
	"context"
	"time"

	"github.com/doppel-search/doppel/indexer"
)

// Compact merges the segments of each local shard in turn, as
// [indexer.Index.Compact] does for one index, and returns what it did
// summed over the shards (Elapsed: in all). It stops at the first shard
// that fails or is interrupted (the shards done stay merged); a sharded
// index with shards in other processes returns an error wrapping
// [indexer.ErrNotCompactable] (each is compacted where it is written).
// Progress reports, for the shard being merged, what indexer's does.
func (s *Index) Compact(ctx context.Context, opts indexer.CompactOptions) (indexer.Compaction, error) {
	var out indexer.Compaction
	if s.remote {
		return out, indexer.ErrNotCompactable
	}
	start := time.Now()
	for _, l := range s.local {
		c, err := l.Compact(ctx, opts)
		out.Before = add(out.Before, c.Before)
		out.After = add(out.After, c.After)
		if err != nil {
			out.Elapsed = time.Since(start)
			return out, err
		}
	}
	out.Elapsed = time.Since(start)
	return out, nil
}

// Segments returns the segments of the local shards, summed; with
// shards in other processes, an error wrapping
// [indexer.ErrNotCompactable].
func (s *Index) Segments() (indexer.SegmentStats, error) {
	var out indexer.SegmentStats
	if s.remote {
		return out, indexer.ErrNotCompactable
	}
	for _, l := range s.local {
		st, err := l.Segments()
		if err != nil {
			return out, err
		}
		out = add(out, st)
	}
	return out, nil
}

// add returns the sum of two shards' segment statistics.
func add(a, b indexer.SegmentStats) indexer.SegmentStats {
	return indexer.SegmentStats{Segments: a.Segments + b.Segments, Records: a.Records + b.Records,
		Deleted: a.Deleted + b.Deleted, Bytes: a.Bytes + b.Bytes}
}
