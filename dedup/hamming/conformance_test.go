package hamming

import (
	"errors"
	"slices"
	"testing"
)

// subject is one implementation under the conformance suite.
type subject struct {
	name string
	bits int // fingerprint width it stores
	k    int // largest distance it answers
	new  func(t *testing.T) store
}

func subjects(t *testing.T) []subject {
	s := []subject{{name: "linear", bits: 64, k: 8, new: func(*testing.T) store { return new(Linear) }}}
	for _, o := range testLayouts {
		r, err := o.resolve()
		if err != nil {
			t.Fatal(err)
		}
		s = append(s, subject{
			name: "index/" + layoutName(t, o),
			bits: r.Bits,
			k:    r.MaxDistance,
			new:  func(t *testing.T) store { return mustNew(t, o) },
		})
	}
	return s
}

// TestConformance runs one suite against every Searcher implementation.
func TestConformance(t *testing.T) {
	cases := []struct {
		name string
		run  func(t *testing.T, s subject)
	}{
		{"empty", testEmpty},
		{"planted", testPlanted},
		{"shared-fingerprint", testSharedFingerprint},
		{"duplicates", testDuplicates},
		{"delete", testDelete},
		{"append", testAppend},
	}
	for _, s := range subjects(t) {
		t.Run(s.name, func(t *testing.T) {
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) { c.run(t, s) })
			}
		})
	}
}

func testEmpty(t *testing.T, s subject) {
	st := s.new(t)
	if got := st.Query(0, s.k); got != nil {
		t.Errorf("Query on empty store = %v, want nil", got)
	}
	if st.Len() != 0 {
		t.Errorf("Len = %d, want 0", st.Len())
	}
	if st.Delete(1, 2) {
		t.Error("Delete on empty store reported true")
	}
}

// testPlanted plants a signature among random ones, flips d random bits of
// it and checks it is found exactly when d ≤ k.
func testPlanted(t *testing.T, s subject) {
	r := newRand(1)
	st := s.new(t)
	background := make([]Entry, 2000)
	for i := range background {
		background[i] = Entry{ID: uint64(i), Fingerprint: randomFP(r, s.bits)}
	}
	if err := st.InsertBatch(background); err != nil {
		t.Fatal(err)
	}
	const planted = 1 << 62
	for trial := range 200 {
		sig := randomFP(r, s.bits)
		if err := st.Insert(planted, sig); err != nil {
			t.Fatal(err)
		}
		d := trial % (s.k + 4)
		q := flip(r, sig, d, s.bits)
		for k := max(0, d-1); k <= min(d+1, s.k); k++ {
			got := st.Query(q, k)
			checkResult(t, got, q, k)
			m, found := containsID(got, planted)
			if found != (d <= k) {
				t.Fatalf("trial %d: signature %#x at distance %d, query k=%d: found = %v", trial, sig, d, k, found)
			}
			if found && m.Distance != d {
				t.Fatalf("trial %d: planted match %+v, want distance %d", trial, m, d)
			}
		}
		if !st.Delete(planted, sig) {
			t.Fatalf("trial %d: Delete(planted) = false", trial)
		}
	}
	if got := st.Query(0, -1); got != nil {
		t.Errorf("Query with k = -1 = %v, want nil", got)
	}
}

func testSharedFingerprint(t *testing.T, s subject) {
	st := s.new(t)
	const fp = 0xbeef
	for _, id := range []uint64{5, 3, 9} {
		if err := st.Insert(id, fp); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Insert(3, fp^1); err != nil { // one ID, two fingerprints
		t.Fatal(err)
	}
	got := st.Query(fp, 1)
	want := []Match{{3, fp, 0}, {5, fp, 0}, {9, fp, 0}, {3, fp ^ 1, 1}}
	if !slices.Equal(got, want) {
		t.Errorf("Query = %v, want %v", got, want)
	}
}

func testDuplicates(t *testing.T, s subject) {
	st := s.new(t)
	if err := st.Insert(1, 10); err != nil {
		t.Fatal(err)
	}
	if err := st.Insert(1, 10); !errors.Is(err, ErrExists) {
		t.Errorf("second Insert: err = %v, want ErrExists", err)
	}
	batches := map[string][]Entry{
		"repeat in batch":  {{2, 20}, {3, 30}, {2, 20}},
		"already stored":   {{2, 20}, {1, 10}},
		"large with dupes": append(make([]Entry, 0, 3000), Entry{7, 70}, Entry{7, 70}),
	}
	for i := range 2998 {
		batches["large with dupes"] = append(batches["large with dupes"], Entry{uint64(100 + i), uint64(i)})
	}
	for name, b := range batches {
		if err := st.InsertBatch(b); !errors.Is(err, ErrExists) {
			t.Errorf("InsertBatch(%s): err = %v, want ErrExists", name, err)
		}
		if st.Len() != 1 {
			t.Fatalf("after failed InsertBatch(%s): Len = %d, want 1", name, st.Len())
		}
	}
	if got := st.Query(20, 0); got != nil {
		t.Errorf("entry of a failed batch found: %v", got)
	}
}

func testDelete(t *testing.T, s subject) {
	st := s.new(t)
	for i := range uint64(100) {
		if err := st.Insert(i, i*7); err != nil {
			t.Fatal(err)
		}
	}
	if !st.Delete(42, 42*7) {
		t.Fatal("Delete(42) = false")
	}
	if st.Delete(42, 42*7) {
		t.Error("second Delete(42) = true")
	}
	if st.Delete(43, 42*7) {
		t.Error("Delete of a wrong pair = true")
	}
	if _, found := containsID(st.Query(42*7, 0), 42); found {
		t.Error("deleted entry still found")
	}
	if st.Len() != 99 {
		t.Errorf("Len = %d, want 99", st.Len())
	}
	if err := st.Insert(42, 42*7); err != nil {
		t.Fatalf("reinsert: %v", err)
	}
	if _, found := containsID(st.Query(42*7, 0), 42); !found {
		t.Error("reinserted entry not found")
	}
}

func testAppend(t *testing.T, s subject) {
	st := s.new(t)
	for i := range uint64(50) {
		if err := st.Insert(i, 1<<(i%uint64(s.bits))); err != nil {
			t.Fatal(err)
		}
	}
	prefix := Match{ID: 999, Distance: -1}
	dst := append(make([]Match, 0, 256), prefix)
	got := st.AppendQuery(dst, 0, 1)
	if got[0] != prefix {
		t.Errorf("AppendQuery changed dst[0] to %+v", got[0])
	}
	if want := st.Query(0, 1); !slices.Equal(got[1:], want) {
		t.Errorf("AppendQuery appended %v, Query returned %v", got[1:], want)
	}
	allocs := testing.AllocsPerRun(100, func() { st.AppendQuery(dst[:1], 0, 1) })
	if allocs != 0 {
		t.Errorf("AppendQuery with room allocates %.1f times per call", allocs)
	}
}
