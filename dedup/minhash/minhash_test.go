package minhash

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/doppel-search/doppel/dedup/stats"
)

func mustNew(t testing.TB, opts Options) *Hasher {
	t.Helper()
	h, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// pair returns two random sets with exactly inter common elements out of a
// union of u, the rest split evenly, so their resemblance is inter/u.
func pair(r *rand.Rand, u, inter int) (a, b []uint64) {
	for i := 0; i < u; i++ {
		x := r.Uint64()
		switch {
		case i < inter:
			a, b = append(a, x), append(b, x)
		case i%2 == 0:
			a = append(a, x)
		default:
			b = append(b, x)
		}
	}
	return a, b
}

func TestNew(t *testing.T) {
	tests := []struct {
		opts     Options
		wantErr  bool
		wantSize int
		wantSeed uint64
	}{
		{Options{}, false, DefaultSize, DefaultSeed},
		{Options{Size: 84, Seed: 7}, false, 84, 7},
		{Options{Size: 1}, false, 1, DefaultSeed},
		{Options{Size: MaxSize}, false, MaxSize, DefaultSeed},
		{Options{Size: -1}, true, 0, 0},
		{Options{Size: MaxSize + 1}, true, 0, 0},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%+v", tt.opts), func(t *testing.T) {
			h, err := New(tt.opts)
			if tt.wantErr {
				if !errors.Is(err, ErrOptions) {
					t.Fatalf("New: err = %v, want ErrOptions", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if h.Size() != tt.wantSize || h.Options().Seed != tt.wantSeed {
				t.Errorf("size, seed = %d, %d; want %d, %d", h.Size(), h.Options().Seed, tt.wantSize, tt.wantSeed)
			}
			if got := len(h.Sketch([]uint64{1, 2, 3})); got != tt.wantSize {
				t.Errorf("len(Sketch) = %d, want %d", got, tt.wantSize)
			}
		})
	}
}

func TestSketchEmpty(t *testing.T) {
	h := mustNew(t, Options{})
	e := h.Sketch(nil)
	if !e.IsEmpty() {
		t.Fatalf("Sketch(nil) = %v, want all Empty", e[:4])
	}
	s := h.Sketch([]uint64{42})
	if s.IsEmpty() {
		t.Fatal("sketch of {42} reports IsEmpty")
	}
	for _, v := range s {
		if v >= 1<<63 {
			t.Fatalf("coordinate %#x has 64 bits", v)
		}
	}
	if j := e.Jaccard(e); j != 0 {
		t.Errorf("empty.Jaccard(empty) = %v, want 0", j)
	}
	if j := e.Jaccard(s); j != 0 {
		t.Errorf("empty.Jaccard(s) = %v, want 0", j)
	}
	if j := s.Jaccard(s); j != 1 {
		t.Errorf("s.Jaccard(s) = %v, want 1", j)
	}
	if !(Sketch{}).IsEmpty() {
		t.Error("zero-length sketch is not IsEmpty")
	}
}

func TestJaccardMismatchedSizes(t *testing.T) {
	set := []uint64{1, 2, 3}
	a := mustNew(t, Options{Size: 64}).Sketch(set)
	b := mustNew(t, Options{Size: 128}).Sketch(set)
	if j := a.Jaccard(b); j != 0 {
		t.Errorf("Jaccard across sizes = %v, want 0", j)
	}
	if j := b[:64].Jaccard(a); j != 1 {
		t.Errorf("prefix of a larger sketch with the same seed: Jaccard = %v, want 1", j)
	}
}

// TestSketchOracle compares Sketch with a coordinate-at-a-time computation
// of the documented hash family.
func TestSketchOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, size := range []int{1, 7, 84, 128} {
		h := mustNew(t, Options{Size: size, Seed: uint64(size)})
		for trial := 0; trial < 20; trial++ {
			set := make([]uint64, r.IntN(50))
			for i := range set {
				set[i] = r.Uint64() >> r.UintN(64) // include small values
			}
			got := h.Sketch(set)
			for i, c := range h.coefs {
				want := uint64(math.MaxUint64)
				for _, x := range set {
					v := (mix(x) ^ c.key) * c.mul
					want = min(want, (v^v>>32)>>1)
				}
				if got[i] != want {
					t.Fatalf("size %d, set %v: coordinate %d = %#x, want %#x", size, set, i, got[i], want)
				}
			}
		}
	}
}

func TestSketchIgnoresOrderAndDuplicates(t *testing.T) {
	h := mustNew(t, Options{})
	set := []uint64{5, 1, 9, 1, 5, 1 << 40}
	want := h.Sketch([]uint64{1, 5, 9, 1 << 40})
	if got := h.Sketch(set); !slices.Equal(got, want) {
		t.Error("sketch depends on order or duplicates")
	}
	if !slices.Equal(set, []uint64{5, 1, 9, 1, 5, 1 << 40}) {
		t.Error("Sketch modified its input")
	}
}

func TestSeedsDiffer(t *testing.T) {
	set := []uint64{1, 2, 3, 4, 5}
	a := mustNew(t, Options{Seed: 1}).Sketch(set)
	b := mustNew(t, Options{Seed: 2}).Sketch(set)
	if a.Jaccard(b) > 0.1 {
		t.Errorf("sketches of one set under seeds 1 and 2 agree on %.2f of coordinates", a.Jaccard(b))
	}
	if c := mustNew(t, Options{Seed: 1}).Sketch(set); !slices.Equal(a, c) {
		t.Error("two Hashers with the same options disagree")
	}
}

// TestJaccardEstimate checks that the estimate is unbiased and has the
// binomial standard error sqrt(J(1−J)/k) of independent coordinates.
func TestJaccardEstimate(t *testing.T) {
	const k, u, trials = 128, 1000, 60
	h := mustNew(t, Options{Size: k})
	r := rand.New(rand.NewPCG(2, 2))
	for _, J := range []float64{0.2, 0.5, 0.8, 0.9, 0.95} {
		t.Run(fmt.Sprintf("J=%v", J), func(t *testing.T) {
			se := math.Sqrt(J * (1 - J) / k)
			var sum, sq float64
			within := 0
			for range trials {
				a, b := pair(r, u, int(J*u))
				est := h.Sketch(a).Jaccard(h.Sketch(b))
				if math.Abs(est-J) <= 3*se {
					within++
				}
				sum += est - J
				sq += (est - J) * (est - J)
			}
			if bias := sum / trials; math.Abs(bias) > 3*se/math.Sqrt(trials) {
				t.Errorf("mean error %.4f exceeds 3 standard errors of the mean (%.4f)", bias, 3*se/math.Sqrt(trials))
			}
			if within < trials-2 {
				t.Errorf("%d of %d estimates within 3 standard errors (%.3f)", within, trials, 3*se)
			}
			if ratio := sq / trials / (se * se); ratio < 0.5 || ratio > 1.6 {
				t.Errorf("mean squared error / J(1−J)/k = %.2f, want about 1", ratio)
			}
		})
	}
}

func TestSuperShingles(t *testing.T) {
	h := mustNew(t, Options{Size: DSCSSSize})
	r := rand.New(rand.NewPCG(3, 3))
	a, b := pair(r, 500, 0)
	sa := SuperShingles(h.Sketch(a), DSCSSSuperShingles)
	if len(sa) != DSCSSSuperShingles {
		t.Fatalf("len = %d, want %d", len(sa), DSCSSSuperShingles)
	}
	if n := SharedSuperShingles(sa, SuperShingles(h.Sketch(slices.Clone(a)), DSCSSSuperShingles)); n != 6 {
		t.Errorf("identical sets share %d super shingles, want 6", n)
	}
	if n := SharedSuperShingles(sa, SuperShingles(h.Sketch(b), DSCSSSuperShingles)); n != 0 {
		t.Errorf("disjoint sets share %d super shingles, want 0", n)
	}
	if got := SuperShingles(h.Sketch(nil), 6); got != nil {
		t.Errorf("empty sketch gives %v, want nil", got)
	}
	// Groups with equal values at different positions hash differently.
	same := make(Sketch, 84)
	ss := SuperShingles(same, 6)
	if SharedSuperShingles(ss[:1], ss[1:]) != 0 {
		t.Error("super shingles of equal groups at different positions collide")
	}
	// Trailing values beyond n·(len/n) are ignored.
	long := append(h.Sketch(a), 1, 2, 3)
	if !slices.Equal(SuperShingles(long, 6)[:1], SuperShingles(append(h.Sketch(a), 4, 5, 6), 6)[:1]) {
		t.Error("trailing values changed a super shingle")
	}
}

// TestSuperShinglesProbability compares the mean number of shared super
// shingles with its expectation n·J^(k/n).
func TestSuperShinglesProbability(t *testing.T) {
	const trials = 200
	h := mustNew(t, Options{Size: DSCSSSize})
	r := rand.New(rand.NewPCG(4, 4))
	for _, J := range []float64{0.5, 0.9, 0.95, 1} {
		var sum, sq float64
		for range trials {
			a, b := pair(r, 200, int(J*200))
			n := float64(SharedSuperShingles(SuperShingles(h.Sketch(a), 6), SuperShingles(h.Sketch(b), 6)))
			sum, sq = sum+n, sq+n*n
		}
		mean, want := sum/trials, 6*math.Pow(J, 14)
		sd := math.Sqrt(max(sq/trials-mean*mean, 0))
		if tol := 4*sd/math.Sqrt(trials) + 0.05; math.Abs(mean-want) > tol {
			t.Errorf("J=%v: mean shared super shingles %.3f, want %.3f ± %.3f", J, mean, want, tol)
		}
	}
}

func TestSuperShinglesPanics(t *testing.T) {
	for _, n := range []int{0, -1, 85} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("SuperShingles(n=%d) did not panic", n)
				}
			}()
			SuperShingles(make(Sketch, 84), n)
		}()
	}
}

func TestBands(t *testing.T) {
	h := mustNew(t, Options{})
	r := rand.New(rand.NewPCG(5, 5))
	a, b := pair(r, 300, 0)
	ba := Bands(h.Sketch(a), 16, 8)
	if len(ba) != 16 {
		t.Fatalf("len = %d, want 16", len(ba))
	}
	if !slices.Equal(ba, Bands(h.Sketch(slices.Clone(a)), 16, 8)) {
		t.Error("bands of identical sketches differ")
	}
	bb := Bands(h.Sketch(b), 16, 8)
	for i := range ba {
		if ba[i] == bb[i] {
			t.Errorf("disjoint sets agree on band %d", i)
		}
	}
	if got := Bands(h.Sketch(nil), 16, 8); got != nil {
		t.Errorf("empty sketch gives %v, want nil", got)
	}
	zero := Bands(make(Sketch, 128), 128, 1)
	if len(slices.Compact(slices.Sorted(slices.Values(zero)))) != 128 {
		t.Error("bands with equal rows at different indexes collide")
	}
	// Rows beyond b·r do not matter; r > 63 takes the allocating path.
	s := h.Sketch(a)
	t2 := slices.Clone(s)
	t2[127] = 0
	if !slices.Equal(Bands(s, 1, 100), Bands(t2, 1, 100)) {
		t.Error("a row outside the bands changed them")
	}
}

func TestBandsPanics(t *testing.T) {
	for _, br := range [][2]int{{0, 8}, {8, 0}, {17, 8}, {-1, -1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Bands(b=%d, r=%d) did not panic", br[0], br[1])
				}
			}()
			Bands(make(Sketch, 128), br[0], br[1])
		}()
	}
}

// TestBandingSCurve compares the rate at which pairs with resemblance J
// share a band with the formula 1−(1−J^r)^b.
func TestBandingSCurve(t *testing.T) {
	trials := 300
	if testing.Short() {
		trials = 100
	}
	const b, rows = 16, 8
	h := mustNew(t, Options{})
	r := rand.New(rand.NewPCG(6, 6))
	for _, J := range []float64{0.4, 0.6, 0.7, 0.8, 0.9} {
		hits := 0
		for range trials {
			x, y := pair(r, 100, int(J*100))
			bx, by := Bands(h.Sketch(x), b, rows), Bands(h.Sketch(y), b, rows)
			for i := range bx {
				if bx[i] == by[i] {
					hits++
					break
				}
			}
		}
		p := 1 - math.Pow(1-math.Pow(J, rows), b)
		got := float64(hits) / float64(trials)
		if tol := 4*math.Sqrt(p*(1-p)/float64(trials)) + 0.02; math.Abs(got-p) > tol {
			t.Errorf("J=%v: candidate rate %.3f, formula %.3f ± %.3f", J, got, p, tol)
		}
	}
}

// TestLSHOracle checks Candidates against a linear scan over the stored
// documents' bands, before and after deletions.
func TestLSHOracle(t *testing.T) {
	const docs, b, rows = 300, 20, 4
	h := mustNew(t, Options{Size: b * rows})
	r := rand.New(rand.NewPCG(7, 7))
	// Documents are random subsets of a few base sets, so many share bands.
	var bases [][]uint64
	for range 10 {
		base, _ := pair(r, 60, 60)
		bases = append(bases, base)
	}
	bands := make([][]uint64, docs)
	var l LSH
	for id := range bands {
		base := bases[r.IntN(len(bases))]
		var set []uint64
		for _, x := range base {
			if r.Float64() < 0.9 {
				set = append(set, x)
			}
		}
		bands[id] = Bands(h.Sketch(set), b, rows)
		l.Insert(uint64(id), bands[id])
	}
	deleted := map[int]bool{}
	check := func() {
		t.Helper()
		for q := range bands {
			var want []uint64
			for id, bs := range bands {
				if deleted[id] {
					continue
				}
				for i := range bs {
					if bs[i] == bands[q][i] {
						want = append(want, uint64(id))
						break
					}
				}
			}
			if got := l.Candidates(bands[q]); !slices.Equal(got, want) {
				t.Fatalf("Candidates(doc %d) = %v, want %v", q, got, want)
			}
		}
	}
	check()
	for id := 0; id < docs; id += 3 {
		if !l.Delete(uint64(id), bands[id]) {
			t.Fatalf("Delete(%d) did not find it", id)
		}
		deleted[id] = true
	}
	check()
	if l.Delete(0, bands[0]) {
		t.Error("second Delete(0) reports found")
	}
	if got := l.Candidates([]uint64{1, 2, 3}); got != nil {
		t.Errorf("Candidates of unknown bands = %v, want nil", got)
	}
	var empty LSH
	if got := empty.Candidates(bands[0]); got != nil {
		t.Errorf("zero LSH Candidates = %v, want nil", got)
	}
}

func TestLSHEmptyDocAndDuplicates(t *testing.T) {
	h := mustNew(t, Options{})
	var l LSH
	l.Insert(1, Bands(h.Sketch(nil), 16, 8))
	l.Insert(2, Bands(h.Sketch([]uint64{7}), 16, 8))
	l.Insert(2, Bands(h.Sketch([]uint64{7}), 16, 8))
	if got := l.Candidates(Bands(h.Sketch([]uint64{7}), 16, 8)); !slices.Equal(got, []uint64{2}) {
		t.Errorf("Candidates = %v, want [2]", got)
	}
	if got := l.Candidates(Bands(h.Sketch(nil), 16, 8)); got != nil {
		t.Errorf("empty document has candidates %v", got)
	}
}

func TestLSHConcurrent(t *testing.T) {
	h := mustNew(t, Options{Size: 32})
	var l LSH
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 100 {
				id := uint64(w*100 + i)
				bs := Bands(h.Sketch([]uint64{id}), 8, 4)
				l.Insert(id, bs)
				if c := l.Candidates(bs); !slices.Contains(c, id) {
					t.Errorf("doc %d is not its own candidate", id)
				}
			}
		})
	}
	wg.Wait()
	for id := range uint64(400) {
		if c := l.Candidates(Bands(h.Sketch([]uint64{id}), 8, 4)); !slices.Equal(c, []uint64{id}) {
			t.Fatalf("Candidates(%d) = %v", id, c)
		}
	}
}

func TestDropCommon(t *testing.T) {
	var sb stats.Builder
	sb.AddHashes([]uint64{1, 2, 3})
	sb.AddHashes([]uint64{1, 2})
	sb.AddHashes([]uint64{1})
	table := sb.Table() // df: 1→3, 2→2, 3→1
	tests := []struct {
		name  string
		t     *stats.Table
		maxDF int
		want  []uint64
	}{
		{"maxDF=1", table, 1, []uint64{3, 9, 3}},
		{"maxDF=2", table, 2, []uint64{2, 3, 9, 3}},
		{"maxDF=3", table, 3, []uint64{1, 2, 3, 9, 3}},
		{"disabled", table, 0, []uint64{1, 2, 3, 9, 3}},
		{"nil table", nil, 1, []uint64{1, 2, 3, 9, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DropCommon([]uint64{1, 2, 3, 9, 3}, tt.t, tt.maxDF)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSketchAllocatesOnlyResult(t *testing.T) {
	h := mustNew(t, Options{})
	set := make([]uint64, 500)
	for i := range set {
		set[i] = uint64(i)
	}
	if n := testing.AllocsPerRun(50, func() { h.Sketch(set) }); n != 1 {
		t.Errorf("Sketch allocates %v times, want 1", n)
	}
	s := h.Sketch(set)
	if n := testing.AllocsPerRun(50, func() { Bands(s, 16, 8) }); n != 1 {
		t.Errorf("Bands allocates %v times, want 1", n)
	}
}
