package simhash

import (
	"math"
	"math/bits"
)

// A Simhash is a 64-bit SimHash signature. The zero value is the signature
// of a document without features.
type Simhash uint64

// Distance returns the Hamming distance between a and b: the number of bit
// positions where they differ, in [0, 64]. Cost: O(1).
func (a Simhash) Distance(b Simhash) int { return bits.OnesCount64(uint64(a ^ b)) }

// String returns a as 16 lowercase hexadecimal digits, zero-padded.
func (a Simhash) String() string {
	var b [16]byte
	for i := len(b) - 1; i >= 0; i-- {
		b[i] = "0123456789abcdef"[a&15]
		a >>= 4
	}
	return string(b[:])
}

// A Feature is one input of [FromFeatures]: a 64-bit feature hash and its
// weight.
type Feature struct {
	Hash   uint64
	Weight float64
}

// FromFeatures returns the SimHash of fs (Charikar): for each bit j, the
// sum over features of +Weight when bit j of Hash is 1 and −Weight when it
// is 0; bit j of the result is 1 when that sum is positive. Features with a
// weight that is not positive and finite (zero, negative, NaN, ±Inf) are
// ignored, so an empty or all-ignored fs gives 0. Features with the same
// hash simply add up. A sum of exactly 0 gives a 0 bit.
//
// Cost: O(64·len(fs)) additions, no allocation.
func FromFeatures(fs []Feature) Simhash {
	var v [64]float64
	for _, f := range fs {
		if f.Weight > 0 && f.Weight <= math.MaxFloat64 {
			accumulate(&v, f.Hash, f.Weight)
		}
	}
	return signs(&v)
}

// accumulate adds w to v[j] for every bit j set in h and subtracts it for
// every clear bit, four bits at a time: multiplying by ±1 is exact, so the
// sums equal those of a plain if/else loop.
func accumulate(v *[64]float64, h uint64, w float64) {
	for j := 0; j < 64; j += 4 {
		s := &nibbleSigns[h&15]
		v[j] += w * s[0]
		v[j+1] += w * s[1]
		v[j+2] += w * s[2]
		v[j+3] += w * s[3]
		h >>= 4
	}
}

// nibbleSigns[n][k] is +1 when bit k of n is set, else −1.
var nibbleSigns = func() (t [16][4]float64) {
	for n := range t {
		for k := range t[n] {
			t[n][k] = float64(int(n>>k&1)*2 - 1)
		}
	}
	return t
}()

// signs returns the Simhash whose bit j is v[j] > 0.
func signs(v *[64]float64) Simhash {
	var s uint64
	for j, x := range v {
		if x > 0 {
			s |= 1 << j
		}
	}
	return Simhash(s)
}
