package minhash

import (
	"encoding/binary"
	"fmt"

	"github.com/cespare/xxhash/v2"
)

// The DSC-SS configuration of Fetterly et al. (2003) and Henzinger (2006):
// sketches of DSCSSSize min-values cut into DSCSSSuperShingles super
// shingles of 14; two documents are near-duplicates when they share at
// least DSCSSMinShared super shingles.
const (
	DSCSSSize          = 84
	DSCSSSuperShingles = 6
	DSCSSMinShared     = 2
)

// SuperShingles cuts s into n groups of len(s)/n consecutive min-values
// (any len(s) mod n trailing values are unused) and returns one hash per
// group: xxHash64 of the group's index followed by its values, all as
// little-endian uint64s. Because the index is hashed, super shingle i of
// one document can only equal super shingle i of another, so super
// shingles from different positions never collide (up to 2⁻⁶⁴).
//
// Two sketches that agree on all values of group i share super shingle i;
// for resemblance J that happens with probability about J^(len(s)/n).
//
// The sketch of an empty set (see [Sketch.IsEmpty]) has no super shingles:
// the result is nil, so empty documents never match anything. SuperShingles
// panics if n < 1 or n > len(s).
//
// Cost: O(len(s)) bytes hashed; one allocation for the result (two when a
// group holds more than 63 values).
func SuperShingles(s Sketch, n int) []uint64 {
	if n < 1 || n > len(s) {
		panic(fmt.Sprintf("minhash: SuperShingles: %d groups for a sketch of size %d", n, len(s)))
	}
	if s.IsEmpty() {
		return nil
	}
	return hashGroups(s, n, len(s)/n)
}

// SharedSuperShingles returns how many values of a also occur in b: the
// number of super shingles two documents share when a and b come from
// [SuperShingles] with the same n. With DSC-SS, a result of at least
// [DSCSSMinShared] means near-duplicate.
//
// Cost: O(len(a)·len(b)), no allocation; meant for the handful of super
// shingles of one document.
func SharedSuperShingles(a, b []uint64) int {
	n := 0
	for _, x := range a {
		for _, y := range b {
			if x == y {
				n++
				break
			}
		}
	}
	return n
}

// Bands returns the b band hashes of s used for locality-sensitive hashing:
// band i is xxHash64 of i followed by the r values s[i·r : (i+1)·r], all as
// little-endian uint64s. Identical sketches have identical bands; the
// sketches of two sets with resemblance J agree on at least one band with
// probability 1−(1−J^r)^b. Because the band index is hashed, band i of one
// document never equals band j ≠ i of another (up to 2⁻⁶⁴), so bands can
// share one [LSH] table.
//
// The sketch of an empty set has no bands: the result is nil. Bands panics
// if b < 1, r < 1 or b·r > len(s).
//
// Cost: O(b·r) bytes hashed; one allocation for the result (two when
// r > 63).
func Bands(s Sketch, b, r int) []uint64 {
	if b < 1 || r < 1 || b > len(s)/r {
		panic(fmt.Sprintf("minhash: Bands: %d bands of %d rows for a sketch of size %d", b, r, len(s)))
	}
	if s.IsEmpty() {
		return nil
	}
	return hashGroups(s, b, r)
}

// hashGroups returns, for i < n, xxHash64 of (i, s[i·g : (i+1)·g]) encoded
// as little-endian uint64s. A group too large for its stack buffer (the
// whole sketch: 129 values) is hashed in pieces, to the same hash,
// without allocating.
func hashGroups(s Sketch, n, g int) []uint64 {
	const words = 64
	var stack [words * 8]byte
	out := make([]uint64, n)
	if g+1 <= words {
		buf := stack[:8*(g+1)]
		for i := range out {
			binary.LittleEndian.PutUint64(buf, uint64(i))
			for j, v := range s[i*g : (i+1)*g] {
				binary.LittleEndian.PutUint64(buf[8*(j+1):], v)
			}
			out[i] = xxhash.Sum64(buf)
		}
		return out
	}
	var d xxhash.Digest
	for i := range out {
		d.Reset()
		buf := binary.LittleEndian.AppendUint64(stack[:0], uint64(i))
		for _, v := range s[i*g : (i+1)*g] {
			if len(buf) == len(stack) {
				d.Write(buf)
				buf = stack[:0]
			}
			buf = binary.LittleEndian.AppendUint64(buf, v)
		}
		d.Write(buf)
		out[i] = d.Sum64()
	}
	return out
}
