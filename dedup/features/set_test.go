package features

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// referenceSet is Set by a comparison sort.
func referenceSet(h []uint64) []uint64 {
	h = slices.Clone(h)
	slices.Sort(h)
	return slices.Compact(h)
}

func TestSet(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	spread := func(n int) []uint64 {
		h := make([]uint64, n)
		for i := range h {
			h[i] = r.Uint64()
		}
		return h
	}
	tests := []struct {
		name string
		in   []uint64
	}{
		{"empty", nil},
		{"one", []uint64{7}},
		{"short", []uint64{3, 1, 2, 1, 3}},
		{"spread", spread(300)},
		{"spread with copies", func() []uint64 { h := spread(200); return append(h, h[:100]...) }()},
		{"long", spread(100_000)},
		{"one top byte", func() []uint64 { // every hash in one bucket
			h := spread(500)
			for i := range h {
				h[i] = h[i]>>8 | 0xab<<56
			}
			return h
		}()},
		{"two top bytes, sorted backwards", func() []uint64 {
			h := make([]uint64, 400)
			for i := range h {
				h[i] = uint64(len(h)-i) | uint64(i%2)<<63
			}
			return h
		}()},
		{"all equal", slices.Repeat([]uint64{1 << 60}, 100)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := referenceSet(tt.in)
			if got := Set(slices.Clone(tt.in)); !slices.Equal(got, want) {
				t.Fatalf("Set differs from a sorted, compacted copy (len %d, want %d)", len(got), len(want))
			}
		})
	}
}

func FuzzSet(f *testing.F) {
	f.Add([]byte("abcdefgh12345678abcdefgh"))
	f.Add([]byte(strings.Repeat("\xff\x00\x01\x02\x03\x04\x05\x06", 80)))
	f.Fuzz(func(t *testing.T, b []byte) {
		h := make([]uint64, len(b)/8)
		for i := range h {
			h[i] = binary.LittleEndian.Uint64(b[8*i:])
		}
		if got, want := Set(slices.Clone(h)), referenceSet(h); !slices.Equal(got, want) {
			t.Fatalf("Set(%x) = %x, want %x", h, got, want)
		}
	})
}

// BenchmarkSet sorts the shingle sets of 1.5 KB documents (about 250
// shingles) with Set and, as the reference, with a comparison sort.
func BenchmarkSet(b *testing.B) {
	words := strings.Fields(strings.Repeat("the quick brown fox jumps over a lazy dog while seven wise owls watch ", 18))
	for i := range words {
		words[i] += string(rune('a' + i%26))
	}
	shingles := Shingles(words, 0) // 248
	for _, s := range []struct {
		name string
		set  func([]uint64) []uint64
	}{{"radix", Set}, {"pdqsort", func(h []uint64) []uint64 { slices.Sort(h); return slices.Compact(h) }}} {
		b.Run(s.name, func(b *testing.B) {
			buf := make([]uint64, len(shingles))
			for b.Loop() {
				copy(buf, shingles)
				s.set(buf)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(shingles)), "ns/shingle")
		})
	}
}
