package minhash

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestFastEstimate checks that fast sketches
// estimate resemblance without bias, on sets much larger than the sketch
// and on sets smaller than it (most bins densified), with an error close
// to the binomial one of independent coordinates.
func TestFastEstimate(t *testing.T) {
	const k, trials = 128, 80
	h := mustNew(t, Options{Size: k})
	r := rand.New(rand.NewPCG(3, 3))
	for _, c := range []struct {
		u        int
		J        float64
		maxRatio float64 // mean squared error over J(1−J)/k
	}{
		{2000, 0.5, 1.6}, {2000, 0.8, 1.6}, {2000, 0.9, 1.6}, {2000, 0.95, 1.6},
		{300, 0.9, 1.6}, {60, 0.8, 3}, {60, 0.9, 3},
	} {
		t.Run(fmt.Sprintf("u=%d,J=%v", c.u, c.J), func(t *testing.T) {
			se := math.Sqrt(c.J * (1 - c.J) / k)
			var sum, sq float64
			for range trials {
				a, b := pair(r, c.u, int(c.J*float64(c.u)))
				J := float64(int(c.J*float64(c.u))) / float64(c.u)
				est := h.Fast(a).Jaccard(h.Fast(b))
				sum += est - J
				sq += (est - J) * (est - J)
			}
			if bias := sum / trials; math.Abs(bias) > 4*math.Sqrt(c.maxRatio)*se/math.Sqrt(trials) {
				t.Errorf("mean error %.4f: biased", bias)
			}
			if ratio := sq / trials / (se * se); ratio > c.maxRatio {
				t.Errorf("mean squared error / J(1−J)/k = %.2f, want at most %.1f", ratio, c.maxRatio)
			}
		})
	}
}

// TestFastBands checks what LSH needs: with 16 bands of 8
// rows, a pair at resemblance 0.9 shares a band almost always, and a pair
// at 0.3 almost never, as with independent hash functions
// (1−(1−J⁸)¹⁶: 0.9999 and 0.0010).
func TestFastBands(t *testing.T) {
	h := mustNew(t, Options{})
	r := rand.New(rand.NewPCG(4, 4))
	shares := func(J float64, u int) float64 {
		n := 0
		const trials = 400
		for range trials {
			a, b := pair(r, u, int(J*float64(u)))
			ba, bb := Bands(h.Fast(a), 16, 8), Bands(h.Fast(b), 16, 8)
			for i := range ba {
				if ba[i] == bb[i] {
					n++
					break
				}
			}
		}
		return float64(n) / trials
	}
	for _, u := range []int{100, 1500} {
		if p := shares(0.9, u); p < 0.99 {
			t.Errorf("%d features: pairs at 0.9 share a band %.3f of the time, want ≥ 0.99", u, p)
		}
		if p := shares(0.3, u); p > 0.02 {
			t.Errorf("%d features: pairs at 0.3 share a band %.3f of the time, want ≤ 0.02", u, p)
		}
	}
}

func TestFastSets(t *testing.T) {
	h := mustNew(t, Options{})
	if s := h.Fast(nil); !s.IsEmpty() || len(s) != h.Size() {
		t.Errorf("empty set: %v", s)
	}
	set := []uint64{5, 1, 9, 1, 5, 1 << 40}
	want := h.Fast([]uint64{1, 5, 9, 1 << 40})
	if got := h.Fast(set); !slices.Equal(got, want) {
		t.Error("sketch depends on order or duplicates")
	}
	if want.IsEmpty() || slices.Contains(want, Empty) {
		t.Error("a bin of a non-empty set's sketch stayed empty")
	}
	if !slices.Equal(set, []uint64{5, 1, 9, 1, 5, 1 << 40}) {
		t.Error("Fast modified its input")
	}
	if a, b := h.Fast([]uint64{42}), h.Fast([]uint64{43}); a.Jaccard(b) != 0 || slices.Contains(a, Empty) {
		t.Errorf("one-feature sets {42}, {43}: resemblance %.2f, want 0, every bin filled", a.Jaccard(b))
	}
	if other := mustNew(t, Options{Seed: 2}).Fast(set); other.Jaccard(want) > 0.1 {
		t.Error("seeds 1 and 2 give the same sketch")
	}
}

func BenchmarkFast(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 5))
	set := make([]uint64, 1800)
	for i := range set {
		set[i] = r.Uint64()
	}
	h := mustNew(b, Options{})
	b.Run("k-permutations", func(b *testing.B) {
		for b.Loop() {
			h.Sketch(set)
		}
	})
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			h.Fast(set)
		}
	})
}
