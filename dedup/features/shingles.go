package features

import (
	"cmp"
	"slices"
	"sync"

	"github.com/cespare/xxhash/v2"
)

// DefaultShingleWidth is the shingle width w used when none is given: word
// 5-shingles, the resemblance definition of Broder et al. and of the shared
// evaluation corpus.
const DefaultShingleWidth = 5

// HashTerm returns the 64-bit hash Doppel uses for a term or n-gram
// (xxHash64 of its UTF-8 bytes).
func HashTerm(term string) uint64 { return xxhash.Sum64String(term) }

// Shingles returns the hashes of every run of w consecutive tokens, in
// order, duplicates included. A shingle's hash combines the [HashTerm]
// hashes of its tokens in order with a 64-bit mixer, so every token is
// hashed once however wide the shingles are. A document with fewer than w
// tokens (but at least one) yields the hashes of its tokens instead, so
// short documents still have a comparable set. w < 1 means
// [DefaultShingleWidth].
//
// Cost: O(len(tokens)·w) multiplications after hashing each token once;
// one allocation for the result.
func Shingles(tokens []string, w int) []uint64 {
	if w < 1 {
		w = DefaultShingleWidth
	}
	hashes := make([]uint64, len(tokens))
	for i, t := range tokens {
		hashes[i] = HashTerm(t)
	}
	if len(tokens) < w {
		return hashes
	}
	for i := 0; i+w <= len(hashes); i++ {
		h := uint64(w)
		for _, th := range hashes[i : i+w] {
			h = mix(h ^ th)
		}
		hashes[i] = h // overwrites only hashes no later shingle reads
	}
	return hashes[:len(hashes)-w+1]
}

// mix is the splitmix64 finalizer: a bijective 64-bit avalanche.
func mix(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// Set sorts hashes and removes duplicates in place, returning the sorted set.
// Sorted sets are what [Resemblance] and the exact verifiers compare.
//
// Cost: O(n) expected for hashes spread evenly over 64 bits, as those of
// [HashTerm] and [Shingles] are (one radix pass on the top byte, then a
// sort of each bucket); O(n log n) at worst. No allocation.
func Set(hashes []uint64) []uint64 {
	sortHashes(hashes)
	return slices.Compact(hashes)
}

// sortBufs are sortHashes' scratch arrays for documents of more than
// 512 shingles, reused (a new one each was 4 % of doppel dedup's
// allocation).
var sortBufs = sync.Pool{New: func() any { return new([]uint64) }}

// sortHashes sorts hashes: one counting pass on the top byte scatters
// them into 256 buckets, then the buckets are put in order. For n
// well-spread hashes a bucket holds about n/256, so a document's few
// hundred shingles end nearly sorted after the scatter and one insertion
// sort finishes them, without the mispredicted branches of a comparison
// sort (BenchmarkSet). A bucket of more than 16 (a long document, or
// hashes that are not spread) is sorted on its own instead (sortBuckets).
func sortHashes(h []uint64) {
	if len(h) < 64 {
		slices.Sort(h)
		return
	}
	var stack [512]uint64
	tmp := stack[:]
	if len(h) > len(stack) {
		p := sortBufs.Get().(*[]uint64)
		defer sortBufs.Put(p)
		*p = slices.Grow((*p)[:0], len(h))
		tmp = *p
	}
	tmp = tmp[:len(h)]
	ends, small := scatter(h, tmp, 56)
	if small {
		insertionSort(tmp)
	} else {
		sortBuckets(tmp, h, &ends) // h is free until the copy below
	}
	copy(h, tmp)
}

// scatter puts the values of src into dst (as long) by their byte at
// shift, in src's order within a byte: one pass of a counting sort. It
// returns where each byte's bucket ends in dst, and whether every bucket
// holds at most 16 values.
func scatter(src, dst []uint64, shift uint) (ends [256]int, small bool) {
	var at [257]int // bucket b starts at at[b]
	for _, x := range src {
		at[x>>shift&0xff+1]++
	}
	small = true
	for b := 1; b < len(at); b++ {
		small = small && at[b] <= 16
		at[b] += at[b-1]
	}
	for _, x := range src {
		b := x >> shift & 0xff
		dst[at[b]] = x
		at[b]++ // at[b] ends as the end of bucket b
	}
	return [256]int(at[:256]), small
}

// sortBuckets sorts each bucket of a (ending at ends, as scatter leaves
// them, by the top byte). A bucket of more than 32 values — a document of
// more than about 8 Ki shingles — is scattered once more, by the next
// byte, into scratch (as long as a, free) before its parts are sorted: a
// long document's sort stays close to linear instead of a comparison
// sort of each bucket (BenchmarkSetLong: a third to two thirds less CPU
// from 10 Ki to 256 Ki shingles).
func sortBuckets(a, scratch []uint64, ends *[256]int) {
	start := 0
	for _, end := range ends {
		b := a[start:end]
		switch {
		case len(b) <= 16:
			insertionSort(b)
		case len(b) <= 32:
			slices.Sort(b)
		default:
			s := scratch[start:end]
			sub, small := scatter(b, s, 48)
			if small {
				insertionSort(s)
			} else {
				from := 0
				for _, to := range sub {
					slices.Sort(s[from:to])
					from = to
				}
			}
			copy(b, s)
		}
		start = end
	}
}

// insertionSort sorts h, fast when every value is near its place (as
// after scatter: each moves within its bucket only).
func insertionSort(h []uint64) {
	for i := 1; i < len(h); i++ {
		x, j := h[i], i
		for ; j > 0 && h[j-1] > x; j-- {
			h[j] = h[j-1]
		}
		h[j] = x
	}
}

// Resemblance returns the Jaccard coefficient |a∩b| / |a∪b| of two sorted
// sets (see [Set]). Two empty sets have resemblance 0.
//
// Cost: O(len(a)+len(b)), no allocation.
func Resemblance(a, b []uint64) float64 {
	inter := Intersection(a, b)
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

// Cosine returns |a∩b| / sqrt(|a|·|b|) for two sorted sets: the cosine of
// their binary vectors (the word-set cosine of Kołcz et al.). It returns 0
// when either set is empty.
func Cosine(a, b []uint64) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	return float64(Intersection(a, b)) / sqrtProduct(len(a), len(b))
}

// Intersection returns |a∩b| for two ascending sets by a linear merge.
// Cost: O(len(a)+len(b)), no allocation.
func Intersection[T cmp.Ordered](a, b []T) int {
	n, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			n++
			i++
			j++
		}
	}
	return n
}

// IntersectionAtLeast returns |a∩b| and true when it is at least need,
// for two ascending sets; otherwise false and an upper bound of |a∩b|
// below need. It stops as soon as too many elements of either set have
// no match for need to be reached: a verifier that only needs a pair's
// exact overlap when it passes a threshold reads less of a pair that
// does not. Cost: O(len(a)+len(b)) at most, no allocation.
func IntersectionAtLeast[T cmp.Ordered](a, b []T, need int) (int, bool) {
	// missA, missB: how many elements of a and b may have no match.
	missA, missB := len(a)-need, len(b)-need
	if missA < 0 || missB < 0 {
		return min(len(a), len(b)), false
	}
	n, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			if i++; i-n > missA {
				return n + min(len(a)-i, len(b)-j), false
			}
		case a[i] > b[j]:
			if j++; j-n > missB {
				return n + min(len(a)-i, len(b)-j), false
			}
		default:
			n++
			i++
			j++
		}
	}
	return n, n >= need
}
