package pagelog

import (
	"context"

	"github.com/doppel-search/doppel/dedup/signatures/redissig"
)

// FatesOf returns the fates of the document numbers of the shared
// detector's signatures s: a number is committed if it has a cluster,
// given up if it has none and is below the turn (the first number
// neither committed nor given up), pending otherwise. Each call is one
// script on the master of s's turns (redissig's Outcomes), which also
// gives up a number at the turn whose lease ran out, so that a reader
// moves on when no worker is left to.
func FatesOf(s *redissig.Signatures) Fates { return sigFates{s} }

// sigFates are the fates of a redissig store's numbers.
type sigFates struct{ s *redissig.Signatures }

// Fates returns the fates of from, …, from+count-1.
func (f sigFates) Fates(ctx context.Context, from uint32, count int) ([]Fate, error) {
	turn, committed, err := f.s.Outcomes(ctx, from, count)
	if err != nil {
		return nil, err
	}
	out := make([]Fate, count)
	for i, c := range committed {
		switch n := from + uint32(i); {
		case c:
			out[i] = Committed
		case n < turn:
			out[i] = GivenUp
		}
	}
	return out, nil
}
