package hamming

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// store is what the conformance and property tests drive: a Searcher that
// can be written to. Index and Linear implement it.
type store interface {
	Searcher
	Insert(id, fp uint64) error
	InsertBatch(entries []Entry) error
	Delete(id, fp uint64) bool
}

// testLayouts are the index layouts every oracle test runs: the brief's
// (f=64 with K=3 m=4, K=3 m=6, K=5 m=6, K=1 m=2, f=32), uneven explicit
// widths, and small merge thresholds so merges and tombstones happen often.
var testLayouts = []Options{
	{},
	{MaxDistance: 3, Blocks: 6},
	{MaxDistance: 5, Blocks: 6},
	{MaxDistance: 1, Blocks: 2},
	{Bits: 32},
	{BlockWidths: []int{20, 20, 13, 11}},
	{Bits: 16, MaxDistance: 2, Blocks: 3, MergeThreshold: 8},
	{MaxDistance: 2, Blocks: 5, MergeThreshold: 4},
}

// layoutName names a layout by its resolved parameters.
func layoutName(t testing.TB, o Options) string {
	r, err := o.resolve()
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("f=%d/k=%d/m=%d", r.Bits, r.MaxDistance, r.Blocks)
	if o.BlockWidths != nil {
		name += fmt.Sprintf("/widths=%v", o.BlockWidths)
	}
	if o.MergeThreshold != 0 {
		name += fmt.Sprintf("/merge=%d", o.MergeThreshold)
	}
	return name
}

func mustNew(t testing.TB, o Options) *Index {
	t.Helper()
	x, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5eed)) }

// randomFP returns a uniform fingerprint of f bits.
func randomFP(r *rand.Rand, f int) uint64 { return r.Uint64() & lowBits(f) }

// flip returns fp with exactly d distinct bits among the low f flipped.
func flip(r *rand.Rand, fp uint64, d, f int) uint64 {
	for _, b := range r.Perm(f)[:d] {
		fp ^= 1 << b
	}
	return fp
}

// checkResult fails unless got is sorted by (Distance, ID, Fingerprint),
// duplicate-free, with correct distances within k of q.
func checkResult(t testing.TB, got []Match, q uint64, k int) {
	t.Helper()
	if err := resultError(got, q, k); err != nil {
		t.Fatal(err)
	}
}

func resultError(got []Match, q uint64, k int) error {
	if !slices.IsSortedFunc(got, compareMatches) {
		return fmt.Errorf("query %#x k=%d: result not sorted: %v", q, k, got)
	}
	for i, m := range got {
		if d := bits.OnesCount64(m.Fingerprint ^ q); m.Distance != d || d > k {
			return fmt.Errorf("query %#x k=%d: match %+v has true distance %d", q, k, m, d)
		}
		if i > 0 && compareMatches(got[i-1], m) == 0 {
			return fmt.Errorf("query %#x k=%d: duplicate match %+v", q, k, m)
		}
	}
	return nil
}

func containsID(ms []Match, id uint64) (Match, bool) {
	for _, m := range ms {
		if m.ID == id {
			return m, true
		}
	}
	return Match{}, false
}
