package dedup

import (
	"math/rand/v2"
	"testing"

	"github.com/doppel-search/doppel/dedup/features"
)

// TestInterNeeded: the count interNeeded returns is the fewest shared
// elements whose resemblance, computed as judgeShingles does, reaches
// the floor.
func TestInterNeeded(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	floors := []float64{0, 0.5, 0.8, 0.85, 0.9, 0.95, 1}
	for range 2000 {
		na, nb := r.IntN(400), r.IntN(400)
		if r.IntN(4) == 0 {
			nb = na + r.IntN(3)
		}
		for _, f := range floors {
			k := interNeeded(na, nb, f)
			reaches := func(i int) bool { return i <= min(na, nb) && (f <= 0 || jaccard(i, na, nb) >= f) }
			if k < 0 || k > min(na, nb)+1 {
				t.Fatalf("interNeeded(%d, %d, %v) = %d, outside [0, %d]", na, nb, f, k, min(na, nb)+1)
			}
			if k <= min(na, nb) && !reaches(k) {
				t.Fatalf("interNeeded(%d, %d, %v) = %d: resemblance %v below the floor", na, nb, f, k, jaccard(k, na, nb))
			}
			if k > 0 && reaches(k-1) && na+nb > 0 {
				t.Fatalf("interNeeded(%d, %d, %v) = %d: %d already reaches it", na, nb, f, k, k-1)
			}
		}
	}
}

// TestMatchAbove: the bounded verification (matchAbove) gives every
// pair the decision the full count gives, the exact score of a pair that
// scores at least the floor, and a score below the floor otherwise —
// under the default options, the edit allowance and containment
// (twins), with the sets in memory and in a set file.
func TestMatchAbove(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	// set returns a sorted set of about n shingles of which about share
	// come from base.
	set := func(base []uint64, n int, share float64) []uint64 {
		var s []uint64
		for _, v := range base {
			if r.Float64() < share {
				s = append(s, v)
			}
		}
		for len(s) < n {
			s = append(s, r.Uint64())
		}
		return features.Set(s)
	}
	for _, tt := range []struct {
		name string
		opts Options
	}{
		{"defaults", Options{}},
		{"web", Web()},
		{"sets in a file", Options{SetsDir: t.TempDir()}},
		{"web, sets in a file", func() Options { o := Web(); o.SetsDir = t.TempDir(); return o }()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d, err := New(nil, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			o := &d.opts
			for i := range 3000 {
				n := 1 + r.IntN(300)
				base := set(nil, n, 0)
				a := &record{set: base, extracted: r.IntN(8) == 0}
				b := &record{set: set(base, n+r.IntN(n/4+1)-n/8, 0.6+0.4*r.Float64()), extracted: r.IntN(8) == 0}
				if d.sets != nil {
					d.sets.put(uint32(i), b.set)
					b.set, b.slot, b.spilled = nil, uint32(i), true
				}
				inter := features.Intersection(a.set, d.setOf(b, 1))
				wantS, wantOK := d.judgeShingles(inter, len(a.set), d.setLen(b), a.extracted || b.extracted)
				for _, floor := range []float64{d.acceptFloor(), min(o.Threshold, o.EditFloor)} {
					s, ok := d.matchAbove(a, b, floor)
					switch {
					case ok != wantOK:
						t.Fatalf("pair %d, floor %v: accepted %v, the full count says %v (score %v)", i, floor, ok, wantOK, wantS)
					case (ok || wantS >= floor) && s != wantS:
						t.Fatalf("pair %d, floor %v: score %v, want the exact %v", i, floor, s, wantS)
					case wantS < floor && s >= floor:
						t.Fatalf("pair %d, floor %v: score %v at or above the floor, exact %v below", i, floor, s, wantS)
					}
				}
			}
			if err := d.setsErr(); err != nil {
				t.Fatal(err)
			}
		})
	}
}
