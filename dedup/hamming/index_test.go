package hamming

import (
	"errors"
	"math/bits"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestOptionsValidate(t *testing.T) {
	cases := []struct {
		name    string
		opts    Options
		want    Options // resolved, when valid
		wantErr string  // substring, when invalid
	}{
		{name: "zero", want: Options{Bits: 64, MaxDistance: 3, Blocks: 4, BlockWidths: []int{16, 16, 16, 16}}},
		{name: "k3m6", opts: Options{Blocks: 6},
			want: Options{Bits: 64, MaxDistance: 3, Blocks: 6, BlockWidths: []int{11, 11, 11, 11, 10, 10}}},
		{name: "k5", opts: Options{MaxDistance: 5},
			want: Options{Bits: 64, MaxDistance: 5, Blocks: 6, BlockWidths: []int{11, 11, 11, 11, 10, 10}}},
		{name: "f32", opts: Options{Bits: 32, MergeThreshold: 7},
			want: Options{Bits: 32, MaxDistance: 3, Blocks: 4, BlockWidths: []int{8, 8, 8, 8}, MergeThreshold: 7}},
		{name: "widths imply bits and blocks", opts: Options{BlockWidths: []int{10, 6, 4}, MaxDistance: 2},
			want: Options{Bits: 20, MaxDistance: 2, Blocks: 3, BlockWidths: []int{10, 6, 4}}},
		{name: "bits too wide", opts: Options{Bits: 65}, wantErr: "Bits = 65"},
		{name: "negative bits", opts: Options{Bits: -1}, wantErr: "Bits = -1"},
		{name: "negative k", opts: Options{MaxDistance: -2}, wantErr: "MaxDistance = -2"},
		{name: "too few blocks", opts: Options{Blocks: 3}, wantErr: "must exceed MaxDistance"},
		{name: "blocks wider than bits", opts: Options{Bits: 3}, wantErr: "exceeds Bits"},
		{name: "zero width", opts: Options{BlockWidths: []int{32, 0, 16, 16}}, wantErr: "BlockWidths[1] = 0"},
		{name: "widths vs blocks", opts: Options{Blocks: 5, BlockWidths: []int{16, 16, 16, 16}}, wantErr: "len(BlockWidths) = 4"},
		{name: "widths vs bits", opts: Options{Bits: 64, BlockWidths: []int{16, 16, 16}, MaxDistance: 2}, wantErr: "sum to 48"},
		{name: "widths over 64", opts: Options{BlockWidths: []int{40, 40}, MaxDistance: 1}, wantErr: "Bits = 80"},
		{name: "too many tables", opts: Options{MaxDistance: 8, Blocks: 16}, wantErr: "more than 256"},
		{name: "negative threshold", opts: Options{MergeThreshold: -1}, wantErr: "MergeThreshold = -1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.opts.Validate()
			if c.wantErr != "" {
				if !errors.Is(err, ErrInvalidOptions) || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("Validate() = %v, want ErrInvalidOptions containing %q", err, c.wantErr)
				}
				if _, err := New(c.opts); !errors.Is(err, ErrInvalidOptions) {
					t.Fatalf("New() err = %v, want ErrInvalidOptions", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Validate() = %v", err)
			}
			if got := mustNew(t, c.opts).Options(); !reflect.DeepEqual(got, c.want) {
				t.Errorf("Options() = %+v, want %+v", got, c.want)
			}
		})
	}
}

// TestLayout checks the tables of each test layout: C(m, K) distinct
// prefixes of m−K blocks in colex order, permutations that are bijections
// preserving distance, prefixes covering exactly the chosen blocks, and
// probe counts.
func TestLayout(t *testing.T) {
	for _, o := range testLayouts {
		t.Run(layoutName(t, o), func(t *testing.T) {
			r, _ := o.resolve()
			l := newLayout(r)
			m, K := r.Blocks, r.MaxDistance
			if want, _ := binomial(m, K); len(l.tables) != want {
				t.Fatalf("%d tables, want C(%d, %d) = %d", len(l.tables), m, K, want)
			}
			rnd := newRand(7)
			for i, tl := range l.tables {
				if bits.OnesCount64(tl.blocks) != m-K || (i > 0 && tl.blocks <= l.tables[i-1].blocks) {
					t.Fatalf("table %d blocks %b: want %d blocks, increasing", i, tl.blocks, m-K)
				}
				var prefixBits int
				for b := range m {
					if tl.blocks>>b&1 == 1 {
						prefixBits += r.BlockWidths[b]
						// A fingerprint with only block b set keys
						// inside the prefix.
						if k := tl.blockMask[b]; k&^tl.prefix != 0 || bits.OnesCount64(k) != r.BlockWidths[b] {
							t.Fatalf("table %d: block %d maps to %#x outside prefix %#x", i, b, k, tl.prefix)
						}
					}
				}
				var all uint64
				for b, bm := range tl.blockMask {
					if all&bm != 0 || bits.OnesCount64(bm) != r.BlockWidths[b] {
						t.Fatalf("table %d: block masks %#x overlap or have wrong widths", i, tl.blockMask)
					}
					all |= bm
				}
				if all != lowBits(r.Bits)<<(64-r.Bits) {
					t.Fatalf("table %d: block masks cover %#x, want the top %d bits", i, all, r.Bits)
				}
				if bits.OnesCount64(tl.prefix) != prefixBits || bits.LeadingZeros64(tl.prefix) != 0 {
					t.Fatalf("table %d: prefix %#x, want top %d bits", i, tl.prefix, prefixBits)
				}
				for range 100 {
					a, b := randomFP(rnd, r.Bits), randomFP(rnd, r.Bits)
					if bits.OnesCount64(tl.perm.apply(a)^tl.perm.apply(b)) != bits.OnesCount64(a^b) {
						t.Fatalf("table %d does not preserve distance of %#x, %#x", i, a, b)
					}
					if pa := tl.perm.apply(a); bits.OnesCount64(pa) != bits.OnesCount64(a) || pa<<r.Bits != 0 {
						t.Fatalf("table %d maps %#x to %#x", i, a, pa)
					}
				}
				if len(tl.perm) > m {
					t.Fatalf("table %d: %d shifts for %d blocks", i, len(tl.perm), m)
				}
			}
			for k, p := range l.probes {
				if want, _ := binomial(m-K+k, k); p != want {
					t.Errorf("probes[%d] = %d, want %d", k, p, want)
				}
			}
			if l.probes[K] != len(l.tables) {
				t.Errorf("probes[K] = %d, want all %d tables", l.probes[K], len(l.tables))
			}
		})
	}
}

func TestBinomial(t *testing.T) {
	cases := []struct{ n, k, want int }{{4, 3, 4}, {6, 3, 20}, {6, 5, 6}, {2, 1, 2}, {5, 0, 1}, {64, 32, 1832624140942590534}}
	for _, c := range cases {
		got, ok := binomial(c.n, c.k)
		if c.want > 1<<31 {
			if ok {
				t.Errorf("binomial(%d, %d) reported ok for a huge value", c.n, c.k)
			}
			continue
		}
		if !ok || got != c.want {
			t.Errorf("binomial(%d, %d) = %d, %v; want %d", c.n, c.k, got, ok, c.want)
		}
	}
}

func TestQueryClampsK(t *testing.T) {
	x := mustNew(t, Options{MaxDistance: 2, Blocks: 4})
	var lin Linear
	r := newRand(3)
	for i := range uint64(500) {
		fp := randomFP(r, 64)
		for _, s := range []store{x, &lin} {
			if err := s.Insert(i, fp); err != nil {
				t.Fatal(err)
			}
			if err := s.Insert(1000+i, flip(r, fp, 4, 64)); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := range 200 {
		q := randomFP(r, 64)
		if i%2 == 0 {
			q = flip(r, lin.fps[i], 2, 64)
		}
		if got, want := x.Query(q, 10), lin.Query(q, 2); !slices.Equal(got, want) {
			t.Fatalf("Query(k=10) = %v, want the k=2 answer %v", got, want)
		}
	}
}

func TestOutOfRange(t *testing.T) {
	x := mustNew(t, Options{Bits: 32})
	if err := x.Insert(1, 1<<32); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("Insert(1<<32) err = %v, want ErrOutOfRange", err)
	}
	if err := x.InsertBatch([]Entry{{1, 1}, {2, 1 << 40}}); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("InsertBatch err = %v, want ErrOutOfRange", err)
	}
	if x.Len() != 0 {
		t.Errorf("Len = %d after rejected inserts", x.Len())
	}
	if x.Delete(1, 1<<32) {
		t.Error("Delete of a too-wide fingerprint = true")
	}
	if err := x.Insert(1, 0xffffffff); err != nil {
		t.Fatal(err)
	}
	// The bit above f counts: distance 1 from the stored fingerprint.
	want := []Match{{1, 0xffffffff, 1}}
	if got := x.Query(1<<32|0xffffffff, 1); !slices.Equal(got, want) {
		t.Errorf("Query with bit 32 set = %v, want %v", got, want)
	}
	if got := x.Query(1<<32|0xffffffff, 0); got != nil {
		t.Errorf("Query with bit 32 set, k=0 = %v, want nil", got)
	}
}

// TestLifecycle follows Stats through inserts, merges, deletes and slot
// reuse.
func TestLifecycle(t *testing.T) {
	x := mustNew(t, Options{MergeThreshold: 10})
	for i := range uint64(10) {
		if err := x.Insert(i, i<<20); err != nil {
			t.Fatal(err)
		}
	}
	if s := x.Stats(); s.Pending != 10 || s.Merges != 0 || s.Len != 10 || s.Tables != 4 {
		t.Fatalf("after 10 inserts: %+v, want 10 pending, no merge", s)
	}
	if err := x.Insert(10, 10<<20); err != nil {
		t.Fatal(err)
	}
	if s := x.Stats(); s.Pending != 0 || s.Merges != 1 {
		t.Fatalf("after 11 inserts: %+v, want a merge", s)
	}
	big := make([]Entry, 1000)
	for i := range big {
		big[i] = Entry{ID: uint64(100 + i), Fingerprint: uint64(i) * 0x9e3779b97f4a7c15}
	}
	if err := x.InsertBatch(big); err != nil {
		t.Fatal(err)
	}
	if s := x.Stats(); s.Pending != 0 || s.Merges != 2 || s.Len != 1011 {
		t.Fatalf("after a large batch: %+v, want merged, 1011 entries", s)
	}
	slots := len(x.entries)
	// Tombstones accumulate until they outnumber an eighth of the live
	// entries: after d deletes, d > (1011−d)/8 first holds at d = 113.
	for i, e := range big[:113] {
		if !x.Delete(e.ID, e.Fingerprint) {
			t.Fatalf("Delete(%v) = false", e)
		}
		if s := x.Stats(); i < 112 && (s.Tombstones != i+1 || s.Purges != 0) {
			t.Fatalf("after %d deletes: %+v, want %d tombstones", i+1, s, i+1)
		}
	}
	if s := x.Stats(); s.Tombstones != 0 || s.Purges != 1 || s.Merges != 2 || s.Len != 898 {
		t.Fatalf("after 113 deletes: %+v, want tombstones purged", s)
	}
	if err := x.InsertBatch(big[:113]); err != nil {
		t.Fatal(err)
	}
	if len(x.entries) != slots {
		t.Errorf("reinserting deleted entries grew the slots from %d to %d", slots, len(x.entries))
	}
	s := x.Stats()
	if min := int64(1011 * (16 + 4*12)); s.Bytes < min || s.Bytes > 3*min {
		t.Errorf("Bytes = %d for 1011 entries, want about %d", s.Bytes, min)
	}
}
