package features

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
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
		{"very long", spread(300_000)}, // buckets scattered again by the next byte
		{"very long with copies", func() []uint64 { // a long listing: its shingles four times over
			h := spread(80_000)
			return slices.Concat(h, h, h, h)
		}()},
		{"long in one top byte", func() []uint64 { // one bucket, spread over the next byte
			h := spread(5_000)
			for i := range h {
				h[i] = h[i]>>8 | 0x17<<56
			}
			return h
		}()},
		{"long in two top bytes", func() []uint64 { // one bucket, then one sub-bucket
			h := spread(3_000)
			for i := range h {
				h[i] = h[i]>>16 | 0x17fe<<48
			}
			return h
		}()},
		{"long, small second buckets", func() []uint64 { // over 256 in a bucket, at most 16 in each of its parts
			h := spread(2_000)
			for i := range h {
				h[i] = h[i]>>8 | 0x42<<56
			}
			return h
		}()},
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
// shingles) with Set and, as the reference, with a comparison sort;
// BenchmarkSetLong does it for long documents.
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

// TestIntersectionAtLeast checks the bounded count against the full one
// for every need from 0 past both sizes: the exact count and true when
// it reaches need, else false and a bound at least the count but below
// need.
func TestIntersectionAtLeast(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	// pair returns two sets of about n elements sharing about share of them.
	pair := func(n int, share float64) ([]uint64, []uint64) {
		var a, b []uint64
		for range n {
			v := r.Uint64N(1 << 20)
			switch x := r.Float64(); {
			case x < share:
				a, b = append(a, v), append(b, v)
			case x < (1+share)/2:
				a = append(a, v)
			default:
				b = append(b, v)
			}
		}
		return referenceSet(a), referenceSet(b)
	}
	tests := []struct {
		name  string
		n     int
		share float64
	}{
		{"empty", 0, 0},
		{"disjoint", 50, 0},
		{"half", 200, 0.5},
		{"near copies", 300, 0.95},
		{"equal", 100, 1},
		{"one", 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := pair(tt.n, tt.share)
			b = append(b, 1<<21) // one larger than every element of a: the merge ends on a
			want := Intersection(a, b)
			for need := range max(len(a), len(b)) + 2 {
				got, ok := IntersectionAtLeast(a, b, need)
				switch {
				case ok != (want >= need):
					t.Fatalf("need %d: ok %v, but |a∩b| = %d", need, ok, want)
				case ok && got != want:
					t.Fatalf("need %d: %d, want the exact %d", need, got, want)
				case !ok && (got < want || got >= need):
					t.Fatalf("need %d: bound %d, want in [%d, %d)", need, got, want, need)
				}
				if g2, ok2 := IntersectionAtLeast(b, a, need); ok2 != ok || ok && g2 != got {
					t.Fatalf("need %d: (%d, %v) with the sets swapped, (%d, %v) before", need, g2, ok2, got, ok)
				}
			}
		})
	}
}

// BenchmarkIntersection counts the overlap of two sets of 400 shingles
// (a documentation page) that share 60 % of them — a candidate pair
// below the 0.9 threshold — in full (Intersection, the reference) and
// bounded at the overlap resemblance 0.9 needs (IntersectionAtLeast,
// which stops early), and of two sets sharing 95 % (an accepted pair,
// counted in full by both).
func BenchmarkIntersection(b *testing.B) {
	r := rand.New(rand.NewPCG(9, 10))
	pair := func(share float64) ([]uint64, []uint64) {
		var x, y []uint64
		for len(x) < 400 {
			v := r.Uint64()
			x = append(x, v)
			if r.Float64() < share {
				y = append(y, v)
			} else {
				y = append(y, r.Uint64())
			}
		}
		return referenceSet(x), referenceSet(y)
	}
	need := 379 // the fewest shared shingles of two sets of 400 at resemblance 0.9
	for _, c := range []struct {
		name  string
		share float64
	}{{"rejected", 0.6}, {"accepted", 0.95}} {
		x, y := pair(c.share)
		b.Run(c.name+"/full", func(b *testing.B) {
			for b.Loop() {
				Intersection(x, y)
			}
		})
		b.Run(c.name+"/bounded", func(b *testing.B) {
			for b.Loop() {
				IntersectionAtLeast(x, y, need)
			}
		})
	}
}

// BenchmarkSetLong sorts the shingle sets of long documents (10 Ki to
// 256 Ki shingles: a page of 60 KB to a collapsed source listing of
// 1.5 MB) with Set and, as the reference, with a comparison sort,
// alternating in the same run, timed in the thread's CPU time (a wait
// for the processor on a loaded machine does not count):
// radix-cpu-ns/shingle and pdqsort-cpu-ns/shingle.
func BenchmarkSetLong(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{10 << 10, 64 << 10, 256 << 10} {
		shingles := make([]uint64, n)
		for i := range shingles {
			shingles[i] = r.Uint64()
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			buf := make([]uint64, n)
			var spent [2]time.Duration
			for b.Loop() {
				for j, set := range []func([]uint64) []uint64{Set, sortCompact} {
					copy(buf, shingles)
					start := threadCPU(b)
					set(buf)
					spent[j] += threadCPU(b) - start
				}
			}
			per := float64(b.N) * float64(n)
			b.ReportMetric(float64(spent[0].Nanoseconds())/per, "radix-cpu-ns/shingle")
			b.ReportMetric(float64(spent[1].Nanoseconds())/per, "pdqsort-cpu-ns/shingle")
		})
	}
}

// sortCompact is Set by a comparison sort, in place.
func sortCompact(h []uint64) []uint64 {
	slices.Sort(h)
	return slices.Compact(h)
}

// threadCPU returns the CPU time of the calling goroutine's thread (lock
// it first).
func threadCPU(b *testing.B) time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ts.Nano())
}
