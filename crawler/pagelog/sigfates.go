package pagelog

import (
	"context"
	"fmt"

	"github.com/doppel-search/doppel/dedup/signatures/redissig"
)

// FatesOf returns the fates of the document numbers of the shared
// detector's signatures s: a number is committed if it has a cluster,
// given up if it has none and is below the turn (the first number
// neither committed nor given up), pending otherwise; a committed
// number's Cluster is the id the detector gave its cluster
// (dedup.Result.Cluster, what indexer/shard's Route takes). Each call is
// one script on the master of s's turns (redissig's Outcomes), which also
// gives up a number at the turn whose lease ran out, so that a reader
// moves on when no worker is left to.
func FatesOf(s *redissig.Signatures) Fates { return sigFates{s} }

// sigFates are the fates of a redissig store's numbers.
type sigFates struct{ s *redissig.Signatures }

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
