package hamming

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// generator draws fingerprints of f bits.
type generator struct {
	name string
	new  func(r *rand.Rand, f int) func() uint64
}

var generators = []generator{
	{"uniform", func(r *rand.Rand, f int) func() uint64 {
		return func() uint64 { return randomFP(r, f) }
	}},
	// Many fingerprints sharing long prefixes: a few bases, a random
	// suffix of 1..f/4 bits.
	{"prefixes", func(r *rand.Rand, f int) func() uint64 {
		bases := []uint64{randomFP(r, f), randomFP(r, f), randomFP(r, f)}
		return func() uint64 {
			tail := 1 + r.IntN(f/4)
			return bases[r.IntN(len(bases))]&^lowBits(tail) | randomFP(r, tail)
		}
	}},
	// Fingerprints a few bits apart: a few bases with 0..5 bits flipped,
	// so queries have many matches at every distance.
	{"near", func(r *rand.Rand, f int) func() uint64 {
		bases := []uint64{randomFP(r, f), randomFP(r, f)}
		return func() uint64 { return flip(r, bases[r.IntN(len(bases))], r.IntN(6), f) }
	}},
}

// TestAgainstLinear interleaves random inserts, batch inserts, deletes and
// queries on an Index and on Linear, and checks every query answer is the
// same for every k in -1..K+1 (above K the index clamps to K).
func TestAgainstLinear(t *testing.T) {
	ops := 4000
	if testing.Short() {
		ops = 800
	}
	for li, o := range testLayouts {
		for gi, g := range generators {
			t.Run(layoutName(t, o)+"/"+g.name, func(t *testing.T) {
				runAgainstLinear(t, o, newRand(uint64(100*li+gi)), g, ops)
			})
		}
	}
}

func runAgainstLinear(t *testing.T, o Options, r *rand.Rand, g generator, ops int) {
	x := mustNew(t, o)
	opts := x.Options()
	f, K := opts.Bits, opts.MaxDistance
	next := g.new(r, f)
	var lin Linear
	var stored []Entry // the pairs both hold, for picking deletes
	newEntry := func() Entry { return Entry{ID: r.Uint64N(64), Fingerprint: next()} }
	sameErr := func(what string, e1, e2 error) {
		t.Helper()
		if errors.Is(e1, ErrExists) != errors.Is(e2, ErrExists) || (e1 == nil) != (e2 == nil) {
			t.Fatalf("%s: index err %v, linear err %v", what, e1, e2)
		}
	}
	compare := func(q uint64) {
		t.Helper()
		for k := -1; k <= K+1; k++ {
			got, want := x.Query(q, k), lin.Query(q, min(k, K))
			checkResult(t, got, q, k)
			if !slices.Equal(got, want) {
				t.Fatalf("Query(%#x, %d) on %d entries:\n index  %v\n linear %v", q, k, lin.Len(), got, want)
			}
		}
	}
	for i := range ops {
		switch p := r.IntN(100); {
		case p < 50: // insert, sometimes an existing pair
			e := newEntry()
			if len(stored) > 0 && p < 5 {
				e = stored[r.IntN(len(stored))]
			}
			e1, e2 := x.Insert(e.ID, e.Fingerprint), lin.Insert(e.ID, e.Fingerprint)
			sameErr("Insert", e1, e2)
			if e1 == nil {
				stored = append(stored, e)
			}
		case p < 53: // batch, sometimes with a repeat or a stored pair
			n := r.IntN(40)
			if r.IntN(10) == 0 { // past the merge threshold: radix sort path
				n = 1100 + r.IntN(200)
			}
			b := make([]Entry, n)
			for j := range b {
				b[j] = newEntry()
			}
			if len(b) > 0 && r.IntN(4) == 0 {
				b = append(b, b[0])
			}
			if len(b) > 0 && len(stored) > 0 && r.IntN(4) == 0 {
				b[r.IntN(len(b))] = stored[r.IntN(len(stored))]
			}
			e1, e2 := x.InsertBatch(b), lin.InsertBatch(b)
			sameErr("InsertBatch", e1, e2)
			if e1 == nil {
				stored = append(stored, b...)
			}
		case p < 73: // delete a stored pair, or a missing one
			e := newEntry()
			if len(stored) > 0 && p < 68 {
				e = stored[r.IntN(len(stored))]
			}
			d1, d2 := x.Delete(e.ID, e.Fingerprint), lin.Delete(e.ID, e.Fingerprint)
			if d1 != d2 {
				t.Fatalf("op %d: Delete(%v): index %v, linear %v", i, e, d1, d2)
			}
			if j := slices.Index(stored, e); d1 && j >= 0 {
				stored[j] = stored[len(stored)-1]
				stored = stored[:len(stored)-1]
			}
		default: // query near a stored fingerprint, or anywhere
			q := next()
			if len(stored) > 0 && p < 90 {
				q = flip(r, stored[r.IntN(len(stored))].Fingerprint, r.IntN(K+3), f)
			}
			if f < 64 && r.IntN(8) == 0 { // bits above f add to the distance
				q |= 1 << (f + r.IntN(64-f))
			}
			compare(q)
		}
		if x.Len() != lin.Len() {
			t.Fatalf("op %d: Len: index %d, linear %d", i, x.Len(), lin.Len())
		}
	}
	for range 100 {
		if len(stored) > 0 {
			compare(stored[r.IntN(len(stored))].Fingerprint)
		}
	}
	if len(stored) != lin.Len() {
		t.Fatalf("test bookkeeping: %d stored, linear holds %d", len(stored), lin.Len())
	}
}

// TestConcurrentUse runs queries in parallel with writers (run with -race)
// and checks the final state against Linear.
func TestConcurrentUse(t *testing.T) {
	x := mustNew(t, Options{MergeThreshold: 16})
	var lin Linear
	r := newRand(99)
	fps := make([]uint64, 2000)
	for i := range fps {
		fps[i] = randomFP(r, 64)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for g := range 3 {
		wg.Go(func() {
			r := newRand(uint64(g))
			var buf []Match
			for {
				select {
				case <-stop:
					return
				default:
				}
				q := flip(r, fps[r.IntN(len(fps))], r.IntN(4), 64)
				buf = x.AppendQuery(buf[:0], q, 3)
				if err := resultError(buf, q, 3); err != nil {
					t.Error(err) // not Fatal: this is not the test goroutine
					return
				}
			}
		})
	}
	for i, fp := range fps {
		if err := x.Insert(uint64(i), fp); err != nil {
			t.Fatal(err)
		}
		if err := lin.Insert(uint64(i), fp); err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			x.Delete(uint64(i), fp)
			lin.Delete(uint64(i), fp)
		}
	}
	close(stop)
	wg.Wait()
	for _, fp := range fps {
		q := flip(r, fp, r.IntN(4), 64)
		if got, want := x.Query(q, 3), lin.Query(q, 3); !slices.Equal(got, want) {
			t.Fatalf("Query(%#x) = %v, want %v", q, got, want)
		}
	}
}

// TestChurnAgainstRebuilt is the recrawl pattern the near-duplicate
// detector puts on an index: waves of inserts, each followed by deletes of
// a random half of what is stored (pages gone, pages changed) and by
// re-inserts of some deleted pairs (pages back), so that purges run and
// freed slots are reused many times. After every wave each answer must
// equal that of Linear and of an index rebuilt from the live entries with
// InsertBatch, and a saved and reloaded copy must answer the same.
func TestChurnAgainstRebuilt(t *testing.T) {
	for _, o := range testLayouts {
		t.Run(layoutName(t, o), func(t *testing.T) {
			x := mustNew(t, o)
			f, K := x.Options().Bits, x.Options().MaxDistance
			r := newRand(7)
			next := generators[2].new(r, f) // near: many matches per query
			var lin Linear
			var live, gone []Entry
			id := uint64(0)
			for wave := range 6 {
				for range 400 {
					e := Entry{ID: id, Fingerprint: next()}
					id++
					if err := x.Insert(e.ID, e.Fingerprint); err != nil {
						t.Fatal(err)
					}
					lin.Insert(e.ID, e.Fingerprint)
					live = append(live, e)
				}
				r.Shuffle(len(live), func(i, j int) { live[i], live[j] = live[j], live[i] })
				half := len(live) / 2
				for _, e := range live[half:] {
					if !x.Delete(e.ID, e.Fingerprint) || !lin.Delete(e.ID, e.Fingerprint) {
						t.Fatalf("wave %d: Delete(%v) = false", wave, e)
					}
				}
				gone = append(gone, live[half:]...)
				live = live[:half]
				for range 50 { // some come back
					i := r.IntN(len(gone))
					e := gone[i]
					gone = slices.Delete(gone, i, i+1)
					if err := x.Insert(e.ID, e.Fingerprint); err != nil {
						t.Fatalf("wave %d: reinsert %v: %v", wave, e, err)
					}
					lin.Insert(e.ID, e.Fingerprint)
					live = append(live, e)
				}
				rebuilt := mustNew(t, o)
				if err := rebuilt.InsertBatch(live); err != nil {
					t.Fatal(err)
				}
				if x.Len() != len(live) || rebuilt.Len() != len(live) || lin.Len() != len(live) {
					t.Fatalf("wave %d: Len %d, rebuilt %d, linear %d; %d live", wave, x.Len(), rebuilt.Len(), lin.Len(), len(live))
				}
				fps := make([]uint64, len(live))
				for i, e := range live {
					fps[i] = e.Fingerprint
				}
				sameAnswers(t, x, rebuilt, f, K, fps, uint64(wave))
				sameAnswers(t, x, &lin, f, K, fps, uint64(wave))
				for _, e := range gone[:min(len(gone), 50)] {
					if _, found := containsID(x.Query(e.Fingerprint, 0), e.ID); found {
						t.Fatalf("wave %d: deleted %v still found", wave, e)
					}
				}
				var buf bytes.Buffer
				if _, err := x.WriteTo(&buf); err != nil {
					t.Fatal(err)
				}
				loaded, err := Read(&buf)
				if err != nil {
					t.Fatal(err)
				}
				sameAnswers(t, loaded, rebuilt, f, K, fps, uint64(wave)+100)
			}
			if st := x.Stats(); st.Purges == 0 {
				t.Errorf("Stats = %+v: no purge ran, the test does not test them", st)
			}
		})
	}
}
