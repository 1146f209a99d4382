package dedup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/dedup/features"
	"github.com/doppel-search/doppel/dedup/stats"
)

// vocabulary for synthetic documents.
var vocab = func() []string {
	var w []string
	for i := range 3000 { // letters only: cosine words hold at most one digit
		w = append(w, fmt.Sprintf("w%c%c%cx", 'a'+i%26, 'a'+i/26%26, 'a'+i/676))
	}
	return w
}()

// synthCorpus makes families of near-duplicates: a random base text and
// copies with a few word edits, plus unrelated documents.
func synthCorpus(r *rand.Rand, prefix string, families, copies, words int, editRate float64) []Document {
	var docs []Document
	for f := range families {
		base := make([]string, words)
		for i := range base {
			base[i] = vocab[r.IntN(len(vocab))]
		}
		docs = append(docs, Document{ID: fmt.Sprintf("%sf%d-base", prefix, f), Text: strings.Join(base, " ")})
		for c := range copies {
			cp := slices.Clone(base)
			for i := range cp {
				if r.Float64() < editRate {
					cp[i] = vocab[r.IntN(len(vocab))]
				}
			}
			docs = append(docs, Document{ID: fmt.Sprintf("%sf%d-copy%d", prefix, f, c), Text: strings.Join(cp, " ")})
		}
	}
	r.Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })
	return docs
}

func tableOf(t testing.TB, opts Options, docs []Document) *stats.Table {
	tb, err := NewTableBuilder(opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		tb.Add(d.Text)
	}
	return tb.Table()
}

func run(t testing.TB, opts Options, docs []Document) (*Detector, []Result) {
	det, err := New(tableOf(t, opts, docs), opts)
	if err != nil {
		t.Fatal(err)
	}
	var results []Result
	if err := det.AddAll(context.Background(), docs, 2, func(r Result) error {
		results = append(results, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return det, results
}

// exactSim computes the similarity the hybrid verifies, from scratch.
func exactSim(sim Similarity, a, b string) float64 {
	ta, tb := features.Tokens(a), features.Tokens(b)
	if sim == Cosine {
		ca, cb := features.CosineWords(ta), features.CosineWords(tb)
		if len(ca) < features.MinCosineWords || len(cb) < features.MinCosineWords {
			return 0
		}
		return features.Cosine(ca, cb)
	}
	return features.Resemblance(features.Set(features.Shingles(ta, 5)), features.Set(features.Shingles(tb, 5)))
}

// TestHybridAgainstAllPairs checks the hybrid detector against an exact
// all-pairs computation: the pairs it reports are exactly the pairs at or
// above the threshold, and every member is similar enough to its cluster's
// master at the time it joined.
func TestHybridAgainstAllPairs(t *testing.T) {
	for _, c := range []struct {
		sim     Similarity
		lshOnly bool // candidates from LSH alone (Options.LSHOnly)
	}{{Resemblance, false}, {Cosine, false}, {Resemblance, true}, {Cosine, true}} {
		sim := c.sim
		t.Run(fmt.Sprintf("%s/lsh-only=%v", sim, c.lshOnly), func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, uint64(sim)))
			docs := synthCorpus(r, "a", 12, 5, 300, 0.01)
			docs = append(docs, synthCorpus(r, "b", 6, 4, 300, 0.04)...) // borderline families
			opts := Options{Similarity: sim, LSHOnly: c.lshOnly}
			det, results := run(t, opts, docs)
			if c.lshOnly && slices.ContainsFunc(results, func(r Result) bool { return r.Simhash != 0 }) {
				t.Error("LSH alone computed SimHash signatures")
			}

			want := map[[2]string]bool{}
			for i := range docs {
				for j := range i {
					if exactSim(sim, docs[i].Text, docs[j].Text) >= 0.9 {
						want[[2]string{docs[j].ID, docs[i].ID}] = true
					}
				}
			}
			got := map[[2]string]bool{}
			for _, res := range results {
				for _, p := range res.Pairs {
					got[[2]string{p.A, p.B}] = true
					if s := exactSim(sim, textOf(docs, p.A), textOf(docs, p.B)); s < 0.9 || p.Score != s {
						t.Errorf("pair %s %s: score %v, exact %v", p.A, p.B, p.Score, s)
					}
				}
			}
			if len(want) < 50 {
				t.Fatalf("only %d true pairs: the synthetic corpus is too easy to be a test", len(want))
			}
			for p := range want {
				if !got[p] {
					t.Errorf("missed pair %v", p)
				}
			}
			if len(got) != len(want) {
				t.Errorf("reported %d pairs, exact all-pairs has %d", len(got), len(want))
			}
			// Membership: every member resembles the master it joined.
			for _, res := range results {
				if res.Duplicate && !res.NewMaster {
					if s := exactSim(sim, textOf(docs, res.ID), textOf(docs, res.Master)); s < 0.9 {
						t.Errorf("%s joined master %s with similarity %.3f", res.ID, res.Master, s)
					}
				}
			}
			if st := det.Stats(); st.Documents != len(docs) || st.Pairs != len(want) {
				t.Errorf("Stats = %+v", st)
			}
		})
	}
}

func textOf(docs []Document, id string) string {
	for _, d := range docs {
		if d.ID == id {
			return d.Text
		}
	}
	panic("no document " + id)
}

// TestEveryMethodFindsCopies runs each published method on families of
// exact and lightly edited copies and checks that exact copies share a
// cluster and unrelated documents do not.
func TestEveryMethodFindsCopies(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	docs := synthCorpus(r, "", 10, 3, 400, 0)
	for _, m := range Methods() {
		t.Run(m.String(), func(t *testing.T) {
			det, _ := run(t, Options{Method: m}, docs)
			byCluster := map[string]map[string]bool{} // cluster → families
			for _, a := range det.Assignments() {
				fam := strings.Split(a.ID, "-")[0]
				if byCluster[string(a.Cluster)] == nil {
					byCluster[string(a.Cluster)] = map[string]bool{}
				}
				byCluster[string(a.Cluster)][fam] = true
			}
			if len(byCluster) != 10 {
				t.Errorf("%d clusters, want 10 (one per family of identical copies)", len(byCluster))
			}
			for c, fams := range byCluster {
				if len(fams) != 1 {
					t.Errorf("cluster %s mixes families %v", c, fams)
				}
			}
		})
	}
}

func TestClusterIDsStable(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	docs := synthCorpus(r, "", 8, 3, 200, 0.01)
	opts := Options{}
	table := tableOf(t, opts, docs)
	// One run with AddAll, one adding documents one at a time.
	d1, _ := run(t, opts, docs)
	d2, err := New(table, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range docs {
		if _, err := d2.Add(doc); err != nil {
			t.Fatal(err)
		}
	}
	a1, a2 := d1.Assignments(), d2.Assignments()
	if !slices.Equal(a1, a2) {
		t.Fatal("batch and one-at-a-time runs assign different clusters")
	}
	s1, s2 := d1.StarAssignments(), d2.StarAssignments()
	if !slices.Equal(s1, s2) {
		t.Fatal("star clusters differ between identical runs")
	}
}

func TestErrorsAndUnsignable(t *testing.T) {
	det, err := New(nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := det.Add(Document{Text: "no id"}); !errors.Is(err, ErrEmptyID) {
		t.Errorf("empty id: err = %v", err)
	}
	res, err := det.Add(Document{ID: "empty", Text: " ,;: "})
	if err != nil || !res.Unsignable || res.Master != "empty" {
		t.Errorf("empty text: %+v, %v; want unsignable, own cluster", res, err)
	}
	if _, err := det.Add(Document{ID: "empty", Text: "again"}); !errors.Is(err, ErrDuplicateID) {
		t.Errorf("duplicate id: err = %v", err)
	}
	if st := det.Stats(); st.Unsignable != 1 || st.Documents != 1 {
		t.Errorf("Stats = %+v", st)
	}
	if _, err := New(nil, Options{Threshold: 2}); err == nil {
		t.Error("threshold 2: want error")
	}
	if _, err := New(nil, Options{Bands: 40, Rows: 4}); err == nil {
		t.Error("bands×rows > sketch: want error")
	}
}

// TestIMatchUnsignable: with an I-Match method, a document with too few
// lexicon terms is reported, kept alone, and never dropped.
func TestIMatchUnsignable(t *testing.T) {
	docs := []Document{{ID: "a", Text: "tiny"}, {ID: "b", Text: "tiny"}}
	det, results := run(t, Options{Method: IMatch}, docs)
	if len(results) != 2 || !results[0].Unsignable || !results[1].Unsignable {
		t.Fatalf("results = %+v, want both unsignable", results)
	}
	if det.Stats().Unsignable != 2 || len(det.Assignments()) != 2 {
		t.Errorf("Stats = %+v", det.Stats())
	}
}

func TestMasterPolicy(t *testing.T) {
	text := strings.Repeat("the printer manual explains how to clear a paper jam safely ", 5)
	docs := []Document{
		{ID: "long", URL: "http://intranet/print/manual/printing.html?print=1", Text: text},
		{ID: "short", URL: "http://intranet/printing", Text: text},
	}
	opts := Options{}
	opts.Master = 1 // cluster.ShortestURL
	_, results := run(t, opts, docs)
	if !results[1].NewMaster || results[1].Master != "short" || results[1].Demoted != "long" || results[1].Cluster != results[0].Cluster {
		t.Errorf("second result %+v: want it to take over as master of the same cluster, demoting long", results[1])
	}
}

func TestRefreshResigns(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	docs := synthCorpus(r, "", 5, 2, 300, 0)
	opts := Options{Method: IMatch}
	det, _ := run(t, opts, docs[:8])
	before := det.Assignments()
	lookup := func(id string) (Document, error) {
		for _, d := range docs {
			if d.ID == id {
				return d, nil
			}
		}
		return Document{}, errors.New("not found")
	}
	failing := func(string) (Document, error) { return Document{}, errors.New("store offline") }
	if err := det.Refresh(context.Background(), tableOf(t, opts, docs), failing); err == nil {
		t.Fatal("Refresh with a failing document source: want error")
	}
	if err := det.Refresh(context.Background(), tableOf(t, opts, docs), lookup); err != nil {
		t.Fatal(err)
	}
	for _, doc := range docs[8:] {
		if _, err := det.Add(doc); err != nil {
			t.Fatal(err)
		}
	}
	if st := det.Stats(); st.Refreshes != 1 || st.Documents != len(docs) {
		t.Errorf("Stats = %+v", st)
	}
	if !slices.Equal(before, det.Assignments()[:8]) {
		t.Error("Refresh changed existing clusters")
	}
	// After the refresh, copies added later still find their family.
	fams := map[string]map[string]bool{}
	for _, a := range det.Assignments() {
		f := strings.Split(a.ID, "-")[0]
		if fams[f] == nil {
			fams[f] = map[string]bool{}
		}
		fams[f][string(a.Cluster)] = true
	}
	for f, cs := range fams {
		if len(cs) != 1 {
			t.Errorf("family %s split over %d clusters after refresh", f, len(cs))
		}
	}
}

func TestParseNames(t *testing.T) {
	for _, m := range Methods() {
		if got, err := ParseMethod(m.String()); err != nil || got != m {
			t.Errorf("ParseMethod(%q) = %v, %v", m, got, err)
		}
	}
	if _, err := ParseMethod("magic"); err == nil {
		t.Error("ParseMethod(magic): want error")
	}
	for _, s := range []Similarity{Resemblance, Cosine} {
		if got, err := ParseSimilarity(s.String()); err != nil || got != s {
			t.Errorf("ParseSimilarity(%q) = %v, %v", s, got, err)
		}
	}
}

// TestCommonShinglesDropped: pages that share only a big site template are
// near-duplicates by raw resemblance, but not once shingles found on many
// pages are dropped; a real copy of a page stays a near-duplicate.
func TestCommonShinglesDropped(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	words := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = vocab[r.IntN(len(vocab))]
		}
		return strings.Join(w, " ")
	}
	template := words(800)
	var docs []Document
	for i := range 20 {
		docs = append(docs, Document{ID: fmt.Sprintf("page%02d", i), Text: template + " " + words(30)})
	}
	docs = append(docs, Document{ID: "page00-copy", Text: docs[0].Text})

	pairsOf := func(opts Options) map[[2]string]bool {
		tb, err := NewTableBuilder(opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			tb.Add(d.Text)
		}
		if opts.MaxShingleDocs > 0 {
			opts.CommonShingles = tb.ShingleTable()
		}
		det, err := New(tb.Table(), opts)
		if err != nil {
			t.Fatal(err)
		}
		got := map[[2]string]bool{}
		for _, d := range docs {
			res, err := det.Add(d)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range res.Pairs {
				got[[2]string{p.A, p.B}] = true
			}
		}
		return got
	}
	raw := pairsOf(Options{})
	if !raw[[2]string{"page01", "page02"}] {
		t.Fatal("without the filter, template-sharing pages should be near-duplicates (the test is not testing anything)")
	}
	filtered := pairsOf(Options{MaxShingleDocs: 5})
	if len(filtered) != 1 || !filtered[[2]string{"page00", "page00-copy"}] {
		t.Errorf("with common shingles dropped, pairs = %v; want only page00 and its copy", filtered)
	}
	if _, err := New(nil, Options{MaxShingleDocs: 5}); err == nil {
		t.Error("MaxShingleDocs without a CommonShingles table: want error")
	}
}

func TestCosineShortDocumentsMatchOnlyTheSameWords(t *testing.T) {
	det, err := New(nil, Options{Similarity: Cosine, Terms: features.Options{StripNumbers: true, StripDates: true}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		id, text string
		dup      bool
	}{
		{"march", "Events 2026-03. No events are planned for 2026-03. Next month", false},
		{"april", "Events 2026-04. No events are planned for 2026-04. Next month", true},
		{"other", "Events 2026-05. Three events are planned for 2026-05. Next month", false},
	} {
		res, err := det.Add(Document{ID: tc.id, Text: tc.text})
		if err != nil {
			t.Fatal(err)
		}
		if res.Duplicate != tc.dup {
			t.Errorf("%s: duplicate = %v, want %v", tc.id, res.Duplicate, tc.dup)
		}
	}
}

// TestAddSeq checks the streaming pipeline: results in input order and
// equal to adding one document at a time, whatever the workers; an error
// the sequence yields, or fn returns, stops it with that error; a
// cancelled context stops it.
func TestAddSeq(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	docs := synthCorpus(r, "s", 60, 4, 120, 0.01)
	table := tableOf(t, Options{}, docs)
	sequential, err := New(table, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var want []Result
	for _, doc := range docs {
		res, err := sequential.Add(doc)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, res)
	}
	seq := func(failAt int, failure error) iter.Seq2[Document, error] {
		return func(yield func(Document, error) bool) {
			for i, doc := range docs {
				if i == failAt {
					yield(Document{}, failure)
					return
				}
				if !yield(doc, nil) {
					return
				}
			}
		}
	}
	for _, workers := range []int{0, 1, 3} {
		det, err := New(table, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var got []Result
		if err := det.AddSeq(context.Background(), seq(-1, nil), workers, func(r Result) error {
			got = append(got, r)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("workers %d: results differ from adding one at a time", workers)
		}
	}
	readErr := errors.New("disk on fire")
	det, _ := New(table, Options{})
	n := 0
	err = det.AddSeq(context.Background(), seq(150, readErr), 2, func(Result) error { n++; return nil })
	if !errors.Is(err, readErr) || n > 150 {
		t.Errorf("read error at 150: %v after %d results", err, n)
	}
	stop := errors.New("enough")
	det, _ = New(table, Options{})
	n = 0
	err = det.AddSeq(context.Background(), seq(-1, nil), 2, func(Result) error {
		if n++; n == 70 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 70 || det.Stats().Documents != 70 {
		t.Errorf("fn error at 70: %v after %d results, %d documents", err, n, det.Stats().Documents)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	det, _ = New(table, Options{})
	if err := det.AddSeq(ctx, seq(-1, nil), 2, func(Result) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}

// TestTableBuilderAddSeq checks that counting on several workers gives
// the tables counting one text at a time does, and that an error of the
// sequence is returned.
func TestTableBuilderAddSeq(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 11))
	docs := synthCorpus(r, "t", 50, 3, 80, 0.05)
	opts := Options{MaxShingleDocs: 5}
	one, _ := NewTableBuilder(opts)
	for _, d := range docs {
		one.Add(d.Text)
	}
	texts := func(failAt int) iter.Seq2[string, error] {
		return func(yield func(string, error) bool) {
			for i, d := range docs {
				if i == failAt {
					yield("", errors.New("read failed"))
					return
				}
				if !yield(d.Text, nil) {
					return
				}
			}
		}
	}
	for _, workers := range []int{1, 3} {
		many, _ := NewTableBuilder(opts)
		if err := many.AddSeq(context.Background(), texts(-1), workers); err != nil {
			t.Fatal(err)
		}
		for _, pair := range [][2]*stats.Table{{one.Table(), many.Table()}, {one.ShingleTable(), many.ShingleTable()}} {
			a, _ := pair[0].MarshalBinary()
			b, _ := pair[1].MarshalBinary()
			if !bytes.Equal(a, b) || pair[0].Docs() != len(docs) {
				t.Fatalf("workers %d: tables differ from adding one text at a time", workers)
			}
		}
	}
	failing, _ := NewTableBuilder(opts)
	if err := failing.AddSeq(context.Background(), texts(70), 2); err == nil || err.Error() != "read failed" {
		t.Errorf("read error: %v", err)
	}
}
