package dedup

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/dedup/cluster"
)

// aheadCases are detector options for the verification ahead of Insert:
// doppel dedup's default (LSH candidates alone, sets in memory then in a
// file), sets on disk from the first document, lists small enough to cap
// and stop keys, the hybrid with SimHash and I-Match candidates and the
// edit allowance (only the verifications are taken over then), and a
// master policy under which newcomers take clusters over.
func aheadCases(t *testing.T) []struct {
	name string
	opts Options
} {
	return []struct {
		name string
		opts Options
	}{
		{"dedup-default", Options{LSHOnly: true}},
		{"sets-on-disk", Options{LSHOnly: true, SetsDir: t.TempDir()}},
		{"sets-move-to-disk", Options{LSHOnly: true, SetsMemory: 20 << 10}},
		{"small-lists", Options{LSHOnly: true, MaxFanout: 2, SetsDir: t.TempDir()}},
		{"all-sources-edits", Options{EditAllowance: 3}},
		{"shortest-url", Options{LSHOnly: true, Master: cluster.ShortestURL}},
	}
}

// aheadCorpus is many near-duplicate families (copies within a few
// edits, some just below the threshold) in random order, each document
// with a URL whose length varies (for the ShortestURL policy).
func aheadCorpus(seed uint64) []Document {
	r := rand.New(rand.NewPCG(seed, seed))
	docs := synthCorpus(r, "a", 40, 9, 150, 0.015)
	for i := range docs {
		docs[i].URL = fmt.Sprintf("http://h/%s/%d", docs[i].ID, r.IntN(1000))
	}
	return docs
}

// sequentially adds docs one at a time, the reference.
func sequentially(t *testing.T, opts Options, docs []Document) ([]Result, Stats, []Assignment) {
	t.Helper()
	d, err := New(nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var out []Result
	for _, doc := range docs {
		res, err := d.Add(doc)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, res)
	}
	return out, d.Stats(), d.Assignments()
}

// TestVerifiedAheadLag verifies each document ahead (preverify) while
// lag documents before it are still to be inserted, then inserts it, and
// checks that results, counters and clusters are those of adding one
// document at a time: with no lag every candidate and verification is
// taken over; with a lag the documents inserted in between are found
// and verified by Insert, and the lists they changed are read again.
func TestVerifiedAheadLag(t *testing.T) {
	docs := aheadCorpus(3)
	for _, c := range aheadCases(t) {
		want, wantStats, wantAssigned := sequentially(t, c.opts, docs)
		for _, lag := range []int{0, 1, 7, 64, len(docs)} {
			d, err := New(nil, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			d.enablePreverify()
			var sc preScratch
			prepared := make([]*Prepared, len(docs))
			var got []Result
			for i := range len(docs) + lag {
				if i < len(docs) {
					if prepared[i], err = d.Prepare(docs[i]); err != nil {
						t.Fatal(err)
					}
					d.preverify(prepared[i], &sc)
				}
				if j := i - lag; j >= 0 {
					res, err := d.Insert(prepared[j])
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, res)
				}
			}
			name := fmt.Sprintf("%s, lag %d", c.name, lag)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: results differ from adding one document at a time", name)
			}
			if st := d.Stats(); st != wantStats {
				t.Errorf("%s: stats %+v, want %+v", name, st, wantStats)
			}
			if a := d.Assignments(); !reflect.DeepEqual(a, wantAssigned) {
				t.Errorf("%s: assignments differ", name)
			}
			p := d.pre
			t.Logf("%s: %+v", name, p)
			switch lsh := c.opts.LSHOnly; {
			case lag == len(docs) && p.reused != 0:
				t.Errorf("%s: verifications taken over from an empty detector: %+v", name, p)
			case lag < len(docs) && p.reused == 0:
				t.Errorf("%s: no verification taken over (%+v)", name, p)
			case lag == 0 && lsh && (p.relisted != 0 || p.fresh != 0 || p.kept == 0):
				t.Errorf("%s: with nothing inserted in between, Insert should take everything over: %+v", name, p)
			case lag == 0 && !lsh && p.kept != 0:
				t.Errorf("%s: candidates taken over beside SimHash neighbours: %+v", name, p)
			case lag >= 64 && lsh && (p.relisted == 0 || p.fresh == 0):
				t.Errorf("%s: copies inserted in between should be found by Insert: %+v", name, p)
			}
			d.Close()
		}
	}
}

// TestVerifiedAheadEpoch checks that what was verified ahead is dropped
// once the Detector changes otherwise than by an Insert: each document is
// verified ahead, then, every third one, the first stored document of
// its family (a candidate it likely found) is removed before it is
// inserted; the results are those of Add after the same removals.
func TestVerifiedAheadEpoch(t *testing.T) {
	docs := aheadCorpus(5)
	opts := Options{LSHOnly: true}
	ref, _ := New(nil, opts)
	d, _ := New(nil, opts)
	d.enablePreverify()
	var sc preScratch
	stored := map[string][]string{} // by family, in arrival order
	removed := 0
	for i, doc := range docs {
		p, err := d.Prepare(doc)
		if err != nil {
			t.Fatal(err)
		}
		d.preverify(p, &sc)
		family, _, _ := strings.Cut(doc.ID, "-")
		if i%3 == 2 && len(stored[family]) > 0 {
			victim := stored[family][0]
			stored[family] = stored[family][1:]
			if _, err := ref.Remove(victim); err != nil {
				t.Fatal(err)
			}
			if _, err := d.Remove(victim); err != nil {
				t.Fatal(err)
			}
			if d.taken(p) != nil {
				t.Fatalf("%s: verified ahead kept after a removal", doc.ID)
			}
			removed++
		}
		stored[family] = append(stored[family], doc.ID)
		want, err := ref.Add(doc)
		if err != nil {
			t.Fatal(err)
		}
		got, err := d.Insert(p)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: %+v, want %+v", doc.ID, got, want)
		}
	}
	if removed < 20 || d.pre.reused == 0 {
		t.Fatalf("%d removals, %+v: the test tests too little", removed, d.pre)
	}
	if got, want := d.Assignments(), ref.Assignments(); !reflect.DeepEqual(got, want) {
		t.Errorf("assignments differ from the reference after %d removals", removed)
	}
}

// TestAddSeqVerifiesAhead runs AddSeq, whose signing goroutines verify
// ahead while earlier documents are inserted, on the near-duplicate
// corpus and checks every result, the counters and the clusters against
// adding one document at a time (run it with -race).
func TestAddSeqVerifiesAhead(t *testing.T) {
	docs := aheadCorpus(7)
	for _, c := range aheadCases(t) {
		want, wantStats, wantAssigned := sequentially(t, c.opts, docs)
		for _, workers := range []int{1, 2, 4} {
			d, err := New(nil, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []Result
			if err := d.AddAll(context.Background(), docs, workers, func(r Result) error {
				got = append(got, r)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("%s, %d workers", c.name, workers)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: results differ from adding one document at a time", name)
			}
			if st := d.Stats(); st != wantStats {
				t.Errorf("%s: stats %+v, want %+v", name, st, wantStats)
			}
			if a := d.Assignments(); !reflect.DeepEqual(a, wantAssigned) {
				t.Errorf("%s: assignments differ", name)
			}
			// One worker signs at most a few batches ahead of the
			// insertions (more may verify everything ahead against an
			// empty detector on this small corpus).
			if workers == 1 && d.pre.reused == 0 {
				t.Errorf("%s: no verification taken over (%+v)", name, d.pre)
			}
			d.Close()
		}
	}
}
