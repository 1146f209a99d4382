package pagelog

import (
	"context"
	"fmt"
)

// Turns are the shared detector's turns, as redissig's Signatures keep
// them: Outcomes returns the turn (every number below it is committed
// or given up, for good), whether each of from, …, from+count-1 is
// committed, and the id bits of its cluster if it is.
type Turns interface {
	Outcomes(ctx context.Context, from uint32, count int) (turn uint32, committed []bool, hashes []uint64, err error)
}

// FatesOf returns the fates of the document numbers of the shared
// detector's turns s (a *redissig.Signatures): a number is committed if it has a cluster,
// given up if it has none and is below the turn (the first number
// neither committed nor given up), pending otherwise; a committed
// number's Cluster is the id the detector gave its cluster
// (dedup.Result.Cluster, what indexer/shard's Route takes). Each call is
// one script on the master of s's turns (redissig's Outcomes), which also
// gives up a number at the turn whose lease ran out, so that a reader
// moves on when no worker is left to.
func FatesOf(s Turns) Fates { return sigFates{s} }

// sigFates are the fates of the numbers of a shared detector's turns.
type sigFates struct{ s Turns }

// Fates returns the outcomes of from, …, from+count-1.
func (f sigFates) Fates(ctx context.Context, from uint32, count int) ([]Outcome, error) {
	turn, committed, hashes, err := f.s.Outcomes(ctx, from, count)
	if err != nil {
		return nil, err
	}
	out := make([]Outcome, count)
	for i, c := range committed {
		switch n := from + uint32(i); {
		case c:
			// As dedup names a cluster of these id bits.
			out[i] = Outcome{Fate: Committed, Cluster: fmt.Sprintf("c%016x", hashes[i])}
		case n < turn:
			out[i].Fate = GivenUp
		}
	}
	return out, nil
}
