package hamming

import (
	"cmp"
	"slices"
	"testing"
)

// pair is a (key, slot) for checking runs against plain sorting.
type pair struct {
	key  uint64
	slot uint32
}

func pairsOf(r run) []pair {
	p := make([]pair, r.len())
	for i := range p {
		p[i] = pair{r.keys[i], r.slots[i]}
	}
	return p
}

func runOf(p []pair) run {
	r := run{keys: make([]uint64, len(p)), slots: make([]uint32, len(p))}
	for i, x := range p {
		r.keys[i], r.slots[i] = x.key, x.slot
	}
	return r
}

func sortedPairs(p []pair) []pair {
	p = slices.Clone(p)
	slices.SortStableFunc(p, func(a, b pair) int { return cmp.Compare(a.key, b.key) })
	return p
}

// randomPairs returns n pairs with slots base.., keys drawn from a few
// styles: uniform, few distinct values (ties), low bits only, extremes.
func randomPairs(seed uint64, n int, base uint32) []pair {
	r := newRand(seed)
	p := make([]pair, n)
	for i := range p {
		var k uint64
		switch seed % 4 {
		case 0:
			k = r.Uint64()
		case 1:
			k = r.Uint64N(5) << 60
		case 2:
			k = r.Uint64N(1 << 20)
		case 3:
			k = []uint64{0, 1, ^uint64(0), ^uint64(0) - 1, 1 << 63}[r.IntN(5)]
		}
		p[i] = pair{k, base + uint32(i)}
	}
	return p
}

func TestRadixSort(t *testing.T) {
	for seed := range uint64(8) {
		for _, n := range []int{0, 1, 2, 17, 1000} {
			in := randomPairs(seed, n, 0)
			r := runOf(in)
			radixSort(r, run{keys: make([]uint64, n), slots: make([]uint32, n)})
			if got, want := pairsOf(r), sortedPairs(in); !slices.Equal(got, want) {
				t.Fatalf("seed %d n %d: radixSort not a stable sort:\n got %v\nwant %v", seed, n, got, want)
			}
		}
	}
}

func TestAbsorb(t *testing.T) {
	for seed := range uint64(8) {
		for _, sizes := range [][2]int{{0, 0}, {0, 5}, {5, 0}, {100, 7}, {7, 100}, {300, 300}, {1000, 5}, {3000, 100}} {
			a := sortedPairs(randomPairs(seed, sizes[0], 0))
			b := sortedPairs(randomPairs(seed+8, sizes[1], 1000))
			want := sortedPairs(append(slices.Clone(a), b...))
			r := runOf(a)
			r.absorb(runOf(b))
			// Equal keys may come in either order.
			got := pairsOf(r)
			if !slices.IsSortedFunc(got, func(x, y pair) int { return cmp.Compare(x.key, y.key) }) || !sameSet(got, want) {
				t.Fatalf("seed %d sizes %v: absorb = %v, want %v", seed, sizes, got, want)
			}
		}
	}
}

func TestFilter(t *testing.T) {
	in := sortedPairs(randomPairs(0, 200, 0))
	dead := make(bitset, 4)
	for _, s := range []uint32{0, 3, 4, 50, 199} {
		dead.set(s)
	}
	var want []pair
	for _, p := range in {
		if !dead.has(p.slot) {
			want = append(want, p)
		}
	}
	r := runOf(in)
	r.filter(dead)
	if got := pairsOf(r); !slices.Equal(got, want) {
		t.Fatalf("filter = %v, want %v", got, want)
	}
}

func sameSet(a, b []pair) bool {
	by := func(x, y pair) int {
		return cmp.Or(cmp.Compare(x.key, y.key), cmp.Compare(x.slot, y.slot))
	}
	a, b = slices.Clone(a), slices.Clone(b)
	slices.SortFunc(a, by)
	slices.SortFunc(b, by)
	return slices.Equal(a, b)
}

// TestCandidates checks the directory lookup and run.between against a
// scan, for prefixes narrower, equal to and wider than the directory.
func TestCandidates(t *testing.T) {
	for seed := range uint64(4) {
		pairs := sortedPairs(randomPairs(seed, 3000, 0))
		for _, prefixBits := range []int{1, 4, 9, 20, 64} {
			tb := table{main: runOf(pairs)}
			tb.reindex(prefixBits)
			if tb.dirBits > prefixBits || len(tb.dir) != 1<<tb.dirBits+1 {
				t.Fatalf("prefix %d: dirBits %d, len(dir) %d", prefixBits, tb.dirBits, len(tb.dir))
			}
			mask := ^uint64(0) << (64 - prefixBits)
			queries := []uint64{0, ^uint64(0), 1 << 63}
			for _, p := range pairs[:50] {
				queries = append(queries, p.key, p.key^1, p.key^1<<62)
			}
			for _, q := range queries {
				lo, hi := q&mask, q|^mask
				var want []uint64
				for _, p := range pairs {
					if p.key >= lo && p.key <= hi {
						want = append(want, p.key)
					}
				}
				if got := tb.candidates(lo, hi, prefixBits).keys; !slices.Equal(got, want) {
					t.Fatalf("seed %d prefix %d query %#x: candidates %v, want %v", seed, prefixBits, q, got, want)
				}
				if got := tb.main.between(lo, hi).keys; !slices.Equal(got, want) {
					t.Fatalf("seed %d prefix %d query %#x: between %v, want %v", seed, prefixBits, q, got, want)
				}
			}
		}
	}
	var empty table
	if r := empty.candidates(0, ^uint64(0), 8); r.len() != 0 {
		t.Errorf("candidates on an empty table = %v", r.keys)
	}
}
