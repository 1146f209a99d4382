package hamming

import "slices"

// run is a sequence of permuted keys and the slots of their entries,
// sorted by key.
type run struct {
	keys  []uint64
	slots []uint32
}

func (r run) len() int { return len(r.keys) }

// bytes returns the memory held by r's arrays.
func (r run) bytes() int64 { return int64(cap(r.keys))*8 + int64(cap(r.slots))*4 }

// search returns the index of the first key ≥ key: O(log n).
func (r run) search(key uint64) int {
	lo, hi := 0, len(r.keys)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if r.keys[mid] < key {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// between returns the part of r with keys in [lo, hi]: O(log n).
func (r run) between(lo, hi uint64) run {
	a, b := r.search(lo), len(r.keys)
	if hi < ^uint64(0) {
		b = r.search(hi + 1)
	}
	return run{keys: r.keys[a:b], slots: r.slots[a:b]}
}

// insert adds (key, slot) keeping r sorted: O(log n + n) for the shift.
func (r *run) insert(key uint64, slot uint32) {
	i := r.search(key)
	r.keys = slices.Insert(r.keys, i, key)
	r.slots = slices.Insert(r.slots, i, slot)
}

// reset empties r, keeping its arrays for reuse.
func (r *run) reset() {
	r.keys, r.slots = r.keys[:0], r.slots[:0]
}

// absorb merges the sorted run b into r in place, from the back, so each
// entry moves once: O(n + len(b)), allocating only when r lacks room for b.
// When b is much smaller than r, each entry of b is placed by a binary
// search and the entries of r above it move up in one copy, at memmove
// speed: O(len(b)·log n) plus the copies.
func (r *run) absorb(b run) {
	i, j := r.len(), b.len() // r[:i] and b[:j] are still to place
	n := i + j
	r.keys = slices.Grow(r.keys, j)[:n]
	r.slots = slices.Grow(r.slots, j)[:n]
	if j > i/16 {
		for w := n - 1; j > 0; w-- {
			if i > 0 && r.keys[i-1] > b.keys[j-1] {
				i--
				r.keys[w], r.slots[w] = r.keys[i], r.slots[i]
			} else {
				j--
				r.keys[w], r.slots[w] = b.keys[j], b.slots[j]
			}
		}
		return
	}
	for j > 0 {
		j--
		p := run{keys: r.keys[:i]}.search(b.keys[j])
		copy(r.keys[p+j+1:], r.keys[p:i])
		copy(r.slots[p+j+1:], r.slots[p:i])
		r.keys[p+j], r.slots[p+j] = b.keys[j], b.slots[j]
		i = p
	}
}

// filter drops the entries of r whose slots are dead, in place: O(n).
func (r *run) filter(dead bitset) {
	w := 0
	for i, s := range r.slots {
		if !dead.has(s) {
			r.keys[w], r.slots[w] = r.keys[i], s
			w++
		}
	}
	r.keys, r.slots = r.keys[:w], r.slots[:w]
}

// radixSort sorts r by key with a stable least-significant-byte radix sort,
// using tmp (at least as long as r) as scratch: O(8·n), skipping the byte
// positions where all keys agree (the unused low bits when Bits < 64).
func radixSort(r, tmp run) {
	n := r.len()
	if n < 2 {
		return
	}
	tmp.keys, tmp.slots = tmp.keys[:n], tmp.slots[:n]
	var counts [8][256]int
	for _, k := range r.keys {
		for b := range counts {
			counts[b][byte(k>>(8*b))]++
		}
	}
	src, dst := r, tmp
	for b := range counts {
		c := &counts[b]
		shift := 8 * b
		if c[byte(src.keys[0]>>shift)] == n {
			continue
		}
		sum := 0
		for i, v := range c {
			c[i], sum = sum, sum+v
		}
		slots := src.slots[:n]
		for i, k := range src.keys {
			d := byte(k >> shift)
			p := c[d]
			c[d]++
			dst.keys[p], dst.slots[p] = k, slots[i]
		}
		src, dst = dst, src
	}
	if &src.keys[0] != &r.keys[0] {
		copy(r.keys, src.keys)
		copy(r.slots, src.slots)
	}
}

// bitset is a set of slots.
type bitset []uint64

func (s bitset) has(i uint32) bool { return s[i>>6]>>(i&63)&1 == 1 }
func (s bitset) set(i uint32)      { s[i>>6] |= 1 << (i & 63) }
func (s bitset) clear(i uint32)    { s[i>>6] &^= 1 << (i & 63) }
