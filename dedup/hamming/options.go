package hamming

import (
	"fmt"
	"math/bits"
	"slices"
)

// MaxTables bounds C(Blocks, MaxDistance), the number of tables an [Index]
// keeps. Each table costs 12 bytes per entry.
const MaxTables = 256

// Options configures an [Index]. The zero value is the default layout of
// the paper for 64-bit SimHash: f = 64, K = 3, four 16-bit blocks, four
// tables.
type Options struct {
	// Bits is f, the fingerprint width, 1..64. Fingerprints use the low
	// Bits bits; inserting one with higher bits set is an error. Zero means
	// the sum of BlockWidths when given, otherwise 64.
	Bits int

	// MaxDistance is K, the largest query distance the index answers.
	// Zero means 3. (Queries at distance 0 work with any K.)
	MaxDistance int

	// Blocks is m, the number of blocks; it must exceed MaxDistance and
	// not exceed Bits. The index keeps C(m, K) tables, each keyed on the
	// m−K blocks it requires to match exactly: more blocks mean more
	// tables and memory but longer keys and fewer candidates per query.
	// Zero means len(BlockWidths) when given, otherwise MaxDistance+1.
	Blocks int

	// BlockWidths optionally gives the width of each block in bits, most
	// significant block first; the widths must be positive and sum to Bits.
	// Nil means Bits split as evenly as possible, the first Bits mod Blocks
	// blocks one bit wider.
	BlockWidths []int

	// MergeThreshold is the number of pending inserts, kept in a small
	// sorted delta per table, above which the deltas are merged into the
	// main arrays; it is also the least number of tombstones that triggers
	// a purge. Zero means max(1024, 4√n) for n stored entries, which
	// balances the O(delta) cost of each insert against the O(n) merge.
	MergeThreshold int
}

// EnsureDefaults sets every zero field to its default and returns o: Bits
// 64 (or the sum of BlockWidths), MaxDistance 3, Blocks MaxDistance+1 (or
// len(BlockWidths)), and BlockWidths, when nil and Blocks fits in Bits,
// Bits split into Blocks near-equal widths. Fields that are set are left
// as they are, even when invalid: Validate says so.
func (o *Options) EnsureDefaults() *Options {
	if o.Bits == 0 {
		o.Bits = 64
		if len(o.BlockWidths) > 0 {
			o.Bits = 0
			for _, w := range o.BlockWidths {
				o.Bits += w
			}
		}
	}
	if o.MaxDistance == 0 {
		o.MaxDistance = 3
	}
	if o.Blocks == 0 {
		o.Blocks = o.MaxDistance + 1
		if len(o.BlockWidths) > 0 {
			o.Blocks = len(o.BlockWidths)
		}
	}
	if o.BlockWidths == nil && o.Blocks > 0 && o.Blocks <= o.Bits {
		o.BlockWidths = make([]int, o.Blocks)
		for i := range o.BlockWidths {
			o.BlockWidths[i] = o.Bits / o.Blocks
			if i < o.Bits%o.Blocks {
				o.BlockWidths[i]++
			}
		}
	}
	return o
}

// Validate reports whether o, with its zero fields replaced by their
// defaults, describes a usable layout. Errors wrap [ErrInvalidOptions].
func (o Options) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidOptions, fmt.Sprintf(format, args...))
	}
	for i, w := range o.BlockWidths {
		if w <= 0 {
			return bad("BlockWidths[%d] = %d, want > 0", i, w)
		}
	}
	o.BlockWidths = slices.Clone(o.BlockWidths)
	o.EnsureDefaults()
	sum := 0
	for _, w := range o.BlockWidths {
		sum += w
	}
	switch {
	case o.Bits < 1 || o.Bits > 64:
		return bad("Bits = %d, want 1..64", o.Bits)
	case o.MaxDistance < 0:
		return bad("MaxDistance = %d, want >= 0", o.MaxDistance)
	case o.Blocks <= o.MaxDistance:
		return bad("Blocks = %d must exceed MaxDistance = %d", o.Blocks, o.MaxDistance)
	case o.Blocks > o.Bits:
		return bad("Blocks = %d exceeds Bits = %d", o.Blocks, o.Bits)
	case o.MergeThreshold < 0:
		return bad("MergeThreshold = %d, want >= 0", o.MergeThreshold)
	case len(o.BlockWidths) != o.Blocks:
		return bad("len(BlockWidths) = %d but Blocks = %d", len(o.BlockWidths), o.Blocks)
	case sum != o.Bits:
		return bad("BlockWidths sum to %d but Bits = %d", sum, o.Bits)
	}
	if n, ok := binomial(o.Blocks, o.MaxDistance); !ok || n > MaxTables {
		return bad("Blocks = %d, MaxDistance = %d need C(%d, %d) tables, more than %d",
			o.Blocks, o.MaxDistance, o.Blocks, o.MaxDistance, MaxTables)
	}
	return nil
}

// resolve returns o validated, with its defaults filled in and
// BlockWidths explicit (a copy: the caller's slice is not shared).
func (o Options) resolve() (Options, error) {
	if err := o.Validate(); err != nil {
		return Options{}, err
	}
	o.BlockWidths = slices.Clone(o.BlockWidths)
	o.EnsureDefaults()
	return o, nil
}

// binomial returns C(n, k) and whether it fits in an int without overflow
// (n ≤ 64 here).
func binomial(n, k int) (int, bool) {
	k = min(k, n-k)
	c := uint64(1)
	for i := 1; i <= k; i++ {
		hi, lo := bits.Mul64(c, uint64(n-k+i))
		if hi != 0 {
			return 0, false
		}
		c = lo / uint64(i) // exact: c·(n−k+i) = C(n−k+i, i)·i
	}
	return int(c), c <= 1<<31
}

// shift moves one run of fingerprint bits: (fp >> src) & mask << dst.
type shift struct {
	mask     uint64
	src, dst uint8
}

// permutation rearranges the blocks of a fingerprint into a table key. It
// is computed once per table and used by inserts, deletes and queries.
type permutation []shift

func (p permutation) apply(fp uint64) uint64 {
	var key uint64
	for _, s := range p {
		key |= (fp >> s.src & s.mask) << s.dst
	}
	return key
}

// tableLayout is the fixed part of one table.
type tableLayout struct {
	blocks     uint64 // bit i set: block i is in the exact-match prefix
	perm       permutation
	prefix     uint64 // the bits of a key holding those blocks (its top bits)
	prefixBits int    // the number of bits in prefix
	// blockMask[i] holds the bits of block i in a key of this table.
	blockMask []uint64
}

// layout is the block structure shared by the tables of an index.
type layout struct {
	opts   Options // resolved
	fpMask uint64  // the low Bits bits
	exact  int     // m − K, blocks per table prefix
	// tables lists the (m−K)-subsets of blocks in colex order (by bitmask
	// value), so the subsets of the first j blocks come first.
	tables []tableLayout
	// probes[k] is how many leading tables a query at distance k must
	// probe: C(m−K+k, k). Among d ≤ k differing blocks, the m−K lowest
	// agreeing blocks lie within the first m−K+k blocks.
	probes []int
}

func newLayout(o Options) layout {
	m, k := o.Blocks, o.MaxDistance
	l := layout{
		opts:   o,
		fpMask: ^uint64(0) >> (64 - o.Bits),
		exact:  m - k,
		probes: make([]int, k+1),
	}
	src := make([]int, m) // src[i]: shift of block i's lowest bit
	low := o.Bits
	for i, w := range o.BlockWidths {
		low -= w
		src[i] = low
	}
	for d := range l.probes {
		l.probes[d], _ = binomial(l.exact+d, d)
	}
	last := lowBits(l.exact) << (m - l.exact)
	for set := lowBits(l.exact); ; set = nextSubset(set) {
		l.tables = append(l.tables, l.table(set, src))
		if set == last {
			break
		}
	}
	return l
}

// table builds the layout of the table whose prefix is the blocks in set:
// those blocks first, then the others, each group in block order, packed
// from bit 63 down.
func (l *layout) table(set uint64, src []int) tableLayout {
	t := tableLayout{blocks: set}
	dst := 64
	for _, inPrefix := range []bool{true, false} {
		for i, w := range l.opts.BlockWidths {
			if set>>i&1 == 1 != inPrefix {
				continue
			}
			dst -= w
			// Merge with the previous run when block i continues it
			// in the fingerprint too (it always does in the key).
			if n := len(t.perm); n > 0 && int(t.perm[n-1].src) == src[i]+w {
				p := &t.perm[n-1]
				p.mask = p.mask<<w | lowBits(w)
				p.src, p.dst = uint8(src[i]), uint8(dst)
			} else {
				t.perm = append(t.perm, shift{mask: lowBits(w), src: uint8(src[i]), dst: uint8(dst)})
			}
		}
		if inPrefix {
			t.prefix, t.prefixBits = ^uint64(0)<<dst, 64-dst
		}
	}
	for i, w := range l.opts.BlockWidths {
		t.blockMask = append(t.blockMask, t.perm.apply(lowBits(w)<<src[i]))
	}
	return t
}

// canonical reports whether table t is the one that reports a stored
// fingerprint whose key in t differs from the query's in the bits diff:
// the first table in colex order whose prefix blocks all agree, that is,
// whose blocks are the m−K lowest-numbered agreeing blocks. Reporting each
// match only from its canonical table makes results duplicate-free without
// a set, and is decided from the keys alone, before touching the entry.
func (l *layout) canonical(t int, diff uint64) bool {
	tl := &l.tables[t]
	agree := lowBits(len(tl.blockMask))
	for i, bm := range tl.blockMask {
		if diff&bm != 0 {
			agree &^= 1 << i
		}
	}
	var want uint64
	for range l.exact {
		lowest := agree & -agree
		want |= lowest
		agree ^= lowest
	}
	return tl.blocks == want
}

// lowBits returns a mask of the low w bits, 0 ≤ w ≤ 64.
func lowBits(w int) uint64 {
	if w >= 64 {
		return ^uint64(0)
	}
	return 1<<w - 1
}

// nextSubset returns the next larger integer with the same number of set
// bits (Gosper's hack), which enumerates subsets in colex order.
func nextSubset(x uint64) uint64 {
	c := x & -x
	r := x + c
	return (r^x)>>2/c | r
}
