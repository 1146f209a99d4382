package minhash

import "github.com/doppel-search/doppel/dedup/stats"

// DropCommon removes from set every feature that occurs in more than maxDF
// documents of t (Broder's filter for "too common" shingles, which come
// from boilerplate such as navigation bars and licence text rather than
// content) and returns the filtered slice. It filters in place, reusing
// set's backing array and keeping the order of the remaining features; the
// caller must not use set afterwards. Features unknown to t are kept.
//
// A nil t or a maxDF < 1 disables the filter and returns set unchanged. A
// document made only of common features ends up empty; its sketch is empty
// and matches nothing, so callers may want to fall back to the unfiltered
// set.
//
// Cost: O(len(set)) table lookups, no allocation.
func DropCommon(set []uint64, t *stats.Table, maxDF int) []uint64 {
	if t == nil || maxDF < 1 {
		return set
	}
	out := set[:0]
	for _, h := range set {
		if t.DF(h) <= maxDF {
			out = append(out, h)
		}
	}
	return out
}
