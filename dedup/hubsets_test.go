package dedup

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/dedup/features"
)

// randomSet returns a sorted set of n distinct values below about limit.
func randomSet(r *rand.Rand, n int, limit uint64) []uint64 {
	s := make([]uint64, n)
	gap, v := max(limit/uint64(n+1), 1), uint64(0)
	for i := range s {
		v += 1 + r.Uint64N(2*gap)
		s[i] = v
	}
	return s
}

// TestSetDiff checks setDiff, diffCounts and countIn against plain
// set operations on random sets of overlapping and disjoint ranges, and
// that setDiff refuses a difference over its limit.
func TestSetDiff(t *testing.T) {
	r := rand.New(rand.NewPCG(38, 9))
	for i := range 400 {
		limit := uint64(10 + r.IntN(3000))
		a := randomSet(r, r.IntN(int(limit)/2+1), limit)
		b := randomSet(r, r.IntN(int(limit)/2+1), limit)
		inA, inB := map[uint64]bool{}, map[uint64]bool{}
		for _, v := range a {
			inA[v] = true
		}
		for _, v := range b {
			inB[v] = true
		}
		var wantMinus, wantPlus []uint64
		for _, v := range a {
			if !inB[v] {
				wantMinus = append(wantMinus, v)
			}
		}
		for _, v := range b {
			if !inA[v] {
				wantPlus = append(wantPlus, v)
			}
		}
		diff := len(wantMinus) + len(wantPlus)
		minus, plus, ok := setDiff(a, b, diff)
		var lacking []uint64
		for _, i := range minus {
			lacking = append(lacking, a[i])
		}
		if !ok || !slices.Equal(lacking, wantMinus) || !slices.Equal(plus, wantPlus) {
			t.Fatalf("case %d: setDiff = %d, %d values (%v), want %d, %d", i, len(minus), len(plus), ok, len(wantMinus), len(wantPlus))
		}
		if diff > 0 {
			if _, _, ok := setDiff(a, b, diff-1); ok {
				t.Fatalf("case %d: setDiff within %d of a difference of %d", i, diff-1, diff)
			}
		}
		if got, want := countIn(a, b), features.Intersection(a, b); got != want {
			t.Fatalf("case %d: countIn = %d, want %d", i, got, want)
		}
		if got, want := countIn(b, a), features.Intersection(a, b); got != want {
			t.Fatalf("case %d: countIn (the other way) = %d, want %d", i, got, want)
		}
		// A few values of a against b, as the deltas are looked up
		// (gallop), and many (merge), by their places in a.
		for _, n := range []int{len(a) / 40, len(a) / 2} {
			places := make([]uint32, 0, n)
			var vals []uint64
			for k := range a {
				if len(places) < n && r.IntN(len(a)) < 2*n {
					places, vals = append(places, uint32(k)), append(vals, a[k])
				}
			}
			if got, want := countPlaces(places, a, b), features.Intersection(vals, b); got != want {
				t.Fatalf("case %d: countPlaces of %d = %d, want %d", i, len(places), got, want)
			}
			if got, want := countIn(vals, b), features.Intersection(vals, b); got != want {
				t.Fatalf("case %d: countIn of %d = %d, want %d", i, len(vals), got, want)
			}
		}
	}
}

// TestHubSetsBudget checks that hubSets keeps long sets only, as deltas
// from a base they are near, a far one as a new base, and nothing past
// its budget; and that drop gives back a delta's memory.
func TestHubSetsBudget(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var h hubSets
	h.add(0, randomSet(r, hubMinLen-1, 1<<40))
	if len(h.by) != 0 {
		t.Fatalf("a set of %d values kept", hubMinLen-1)
	}
	base := randomSet(r, hubMinLen+100, 1<<40)
	h.add(8, base)
	near := slices.Clone(base[50:])
	near = append(near, 1<<41, 1<<41+1)
	h.add(16, near)
	h.add(24, randomSet(r, hubMinLen+100, 1<<40))
	if len(h.bases) != 2 {
		t.Fatalf("%d bases, want 2 (the first set and the far one)", len(h.bases))
	}
	e, ok := h.get(16)
	if !ok || e.base != 0 || len(e.minus) != 50 || len(e.plus) != 2 {
		t.Fatalf("near set kept as %+v (%v), want base 0, 50 values lacking, 2 added", e, ok)
	}
	before := h.bytes
	h.drop(16)
	if _, ok := h.get(16); ok || h.bytes != before-(4*50+8*2+hubEntryBytes) {
		t.Fatalf("after drop: kept %v, %d bytes (from %d)", ok, h.bytes, before)
	}
	for i := range hubMaxBases + 8 {
		h.add(int64(100+i), randomSet(r, hubMinLen, 1<<40))
	}
	if len(h.bases) != hubMaxBases || h.bytes > hubBudget || h.baseBytes > hubBaseBudget {
		t.Fatalf("%d bases, %d bytes, %d of bases: want %d bases within the budget", len(h.bases), h.bytes, h.baseBytes, hubMaxBases)
	}
}

// hubCorpus is long documents (over hubMinLen shingles) in families of
// near-copies of two long texts — a few words changed and a tail of their
// own, some copies just below the threshold, some cut short — with
// short documents and long unrelated ones among them, shuffled.
func hubCorpus(seed uint64) []Document {
	r := rand.New(rand.NewPCG(seed, seed))
	word := func() string { return fmt.Sprintf("w%d", r.IntN(50000)) }
	text := func(n int) []string {
		w := make([]string, n)
		for i := range w {
			w[i] = word()
		}
		return w
	}
	longs := [][]string{text(hubMinLen + 2000), text(hubMinLen + 6000)}
	var docs []Document
	for i := range 60 {
		src := longs[i%2]
		w := slices.Clone(src)
		switch i % 6 {
		case 0, 1, 2: // a near-copy
			for range 20 {
				w[r.IntN(len(w))] = word()
			}
		case 3: // just below the threshold: a long tail of its own
			w = append(w, text(len(w)/9)...)
		case 4: // cut short: ruled out by the sizes, or counted
			w = w[:len(w)*(85+r.IntN(15))/100]
		case 5: // unrelated
			w = text(hubMinLen + r.IntN(3000))
		}
		w = append(w, text(r.IntN(50))...)
		docs = append(docs, Document{ID: fmt.Sprintf("long%02d", i), Text: strings.Join(w, " ")})
	}
	for i := range 40 {
		docs = append(docs, Document{ID: fmt.Sprintf("short%02d", i), Text: strings.Join(text(200), " ")})
	}
	r.Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })
	return docs
}

// TestHubSetsSameResults adds long near-copies with their sets on disk,
// with hubSets and without (the sets read from the file), one at a time
// and with AddSeq on 2 workers, and checks that the results (pairs with
// their scores), counters and clusters are the same, and that the long
// sets were kept as deltas.
func TestHubSetsSameResults(t *testing.T) {
	docs := hubCorpus(38)
	for _, base := range []Options{{LSHOnly: true}, Web()} {
		base.SetsDir = t.TempDir()
		// run adds docs, one at a time (workers 0) or with AddSeq.
		run := func(hubs bool, workers int) ([]Result, Stats, []Assignment, [2]int) {
			d, err := New(nil, base)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			d.sets.noHubs = !hubs
			var got []Result
			add := func(r Result) error {
				got = append(got, r)
				return nil
			}
			if workers == 0 {
				for _, doc := range docs {
					res, err := d.Add(doc)
					if err == nil {
						err = add(res)
					}
					if err != nil {
						t.Fatal(err)
					}
				}
			} else if err := d.AddAll(context.Background(), docs, workers, add); err != nil {
				t.Fatal(err)
			}
			return got, d.Stats(), d.Assignments(), [2]int{len(d.sets.hubs.by), d.hubs.hits}
		}
		want, wantStats, wantAssigned, ref := run(false, 0)
		if ref != [2]int{} {
			t.Fatalf("%d sets kept, %d pairs counted from them with hubSets off", ref[0], ref[1])
		}
		if wantStats.Pairs == 0 {
			t.Fatal("no pairs: the corpus tests nothing")
		}
		for _, workers := range []int{0, 1, 2} {
			got, st, assigned, hub := run(true, workers)
			name := fmt.Sprintf("edits %d, %d workers", base.EditAllowance, workers)
			t.Logf("%s: %d pairs, %d long sets kept, %d pairs counted from them", name, st.Pairs, hub[0], hub[1])
			if kept := hub[0]; kept < 30 {
				t.Errorf("%s: %d long sets kept, want most of the 60", name, kept)
			}
			if workers == 0 && hub[1] < 50 {
				t.Errorf("%s: %d pairs counted from the long sets kept", name, hub[1])
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: results differ from reading the sets", name)
			}
			if st != wantStats {
				t.Errorf("%s: stats %+v, want %+v", name, st, wantStats)
			}
			if !reflect.DeepEqual(assigned, wantAssigned) {
				t.Errorf("%s: assignments differ", name)
			}
		}
	}
}

// BenchmarkHubInter verifies a long document (200,000 shingles) against
// a stored near-copy whose set is in the set file: read from the file and
// counted (hubSets off), or counted from the delta hubSets keeps (the
// count against the base done once, as for a document verified against a
// cluster's members). values/op: set values read or looked up a
// verification.
func BenchmarkHubInter(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 7))
	base := randomSet(r, 200000, 1<<50)
	near := func() []uint64 {
		s := slices.Clone(base[r.IntN(500):])
		s = append(s, randomSet(r, 400, 1<<50)...)
		slices.Sort(s)
		return slices.Compact(s)
	}
	for _, hubs := range []bool{false, true} {
		b.Run(fmt.Sprintf("hubs=%v", hubs), func(b *testing.B) {
			d, err := New(nil, Options{SetsDir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			defer d.Close()
			d.sets.noHubs = !hubs
			d.sets.put(0, base)
			d.sets.put(1, near())
			d.sets.flush()
			stored := &record{slot: 1, spilled: true}
			doc := &record{set: near()}
			values := len(doc.set) + d.sets.size(1)
			if e, ok := d.sets.hubs.get(d.sets.at[1]); hubs && ok {
				values = len(e.minus) + len(e.plus)
			}
			b.ResetTimer()
			for b.Loop() {
				if _, ok := d.matchShingles(doc, stored, 0.9, d); !ok {
					b.Fatal("a near-copy rejected")
				}
			}
			b.ReportMetric(float64(values), "values/op")
		})
	}
}
