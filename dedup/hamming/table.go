package hamming

import "math/bits"

// table holds the keys of one permuted table (its layout is the matching
// layout.tables entry): a main run with a directory, and a small delta.
type table struct {
	main run
	// dir[p] is the index of the first key of main whose top dirBits bits
	// are ≥ p, for p in 0..2^dirBits, so a query finds its prefix's keys
	// with one lookup instead of a binary search over all of main.
	dir     []uint32
	dirBits int
	delta   run
}

// dirBits returns the directory width for n keys with a prefix of
// prefixBits bits: at most the prefix, so that all keys sharing a prefix
// fall in one directory range, and about log2(n)−3, so that the directory
// costs 0.5 to 1 byte per key and a range holds 4 to 8 keys per slot.
func dirBits(n, prefixBits int) int {
	return min(prefixBits, max(0, bits.Len(uint(n))-3))
}

// reindex rebuilds the directory: O(n + 2^dirBits).
func (t *table) reindex(prefixBits int) {
	n := t.main.len()
	t.dirBits = dirBits(n, prefixBits)
	size := 1<<t.dirBits + 1
	if cap(t.dir) < size {
		t.dir = make([]uint32, size)
	}
	t.dir = t.dir[:size]
	clear(t.dir)
	t.count(t.main)
}

// count adds to the directory the keys of the sorted run r: dir[p] counts
// the keys whose top dirBits bits are < p. O(len(r) + 2^dirBits).
func (t *table) count(r run) {
	shift := 64 - t.dirBits
	j := 0
	for p := range t.dir {
		for j < r.len() && r.keys[j]>>shift < uint64(p) {
			j++
		}
		t.dir[p] += uint32(j)
	}
}

// absorb merges the sorted run r into main and updates the directory,
// rebuilding it only when its width changes: O(n) memmove plus
// O(len(r)·log n + 2^dirBits).
func (t *table) absorb(r run, prefixBits int) {
	if r.len() == 0 {
		return
	}
	t.main.absorb(r)
	if t.dir == nil || dirBits(t.main.len(), prefixBits) != t.dirBits {
		t.reindex(prefixBits)
		return
	}
	t.count(r)
}

// filter drops the entries whose slots are dead: O(n + 2^dirBits).
func (t *table) filter(dead bitset, prefixBits int) {
	t.main.filter(dead)
	t.delta.filter(dead)
	t.reindex(prefixBits)
}

// candidates returns the keys of main in [lo, hi], where lo and hi share
// their top prefix bits: one directory lookup, plus a binary search within
// the directory range when the prefix is wider than the directory.
func (t *table) candidates(lo, hi uint64, prefixBits int) run {
	if t.dir == nil {
		return run{}
	}
	p := lo >> (64 - t.dirBits)
	a, b := t.dir[p], t.dir[p+1]
	r := run{keys: t.main.keys[a:b], slots: t.main.slots[a:b]}
	if t.dirBits < prefixBits {
		r = r.between(lo, hi)
	}
	return r
}

// bytes returns the memory held by t's arrays.
func (t *table) bytes() int64 {
	return t.main.bytes() + t.delta.bytes() + int64(cap(t.dir))*4
}
