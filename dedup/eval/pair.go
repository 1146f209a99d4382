package eval

import (
	"cmp"
	"slices"
)

// A Pair is an unordered pair of document ids, stored with the smaller id
// (in byte order) in A. Make Pairs with [NewPair] so that the two orders of
// the same pair compare equal.
type Pair struct {
	A, B string
}

// NewPair returns the pair of a and b in normal order (A <= B).
func NewPair(a, b string) Pair {
	if b < a {
		a, b = b, a
	}
	return Pair{a, b}
}

// A PairSet is a set of unordered document pairs. The zero value (nil) is an
// empty set that can be read but not added to; make one with make(PairSet).
// A PairSet is a map: safe for concurrent reads, not for concurrent writes.
type PairSet map[Pair]struct{}

// Add adds the pair of a and b, in either order. Pairs of a document with
// itself (a == b) are ignored. Cost: O(1) expected.
func (s PairSet) Add(a, b string) {
	if a != b {
		s[NewPair(a, b)] = struct{}{}
	}
}

// Has reports whether the pair of a and b, in either order, is in s.
// Cost: O(1) expected.
func (s PairSet) Has(a, b string) bool {
	_, ok := s[NewPair(a, b)]
	return ok
}

// Sorted returns the pairs of s sorted by A, then B: a deterministic order
// for output and tests. Cost: O(n log n).
func (s PairSet) Sorted() []Pair {
	out := make([]Pair, 0, len(s))
	for p := range s {
		out = append(out, p)
	}
	slices.SortFunc(out, func(x, y Pair) int {
		return cmp.Or(cmp.Compare(x.A, y.A), cmp.Compare(x.B, y.B))
	})
	return out
}
