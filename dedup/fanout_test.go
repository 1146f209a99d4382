package dedup

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/dedup/cluster"
	"github.com/doppel-search/doppel/internal/testrig/long"
	"github.com/doppel-search/doppel/internal/testrig/testcorpus"
)

// fanoutCorpus mixes the inputs that make candidate lists long: families
// of lightly edited copies, many exact copies of a few pages, short pages
// that differ only by numbers (they share every I-Match signature), and
// long template pages that differ by one number in the middle (resemblance
// about 0.9 to each other: some are near-duplicates, some just miss), all
// shuffled.
func fanoutCorpus(r *rand.Rand) []Document {
	docs := synthCorpus(r, "fam", 4, 4, 120, 0.01)
	for p := range 3 {
		text := strings.Join(randomWords(r, 60), " ")
		for c := range 12 + r.IntN(20) {
			docs = append(docs, Document{ID: fmt.Sprintf("page%d-copy%d", p, c), Text: text})
		}
	}
	for i := range 40 + r.IntN(40) {
		docs = append(docs, Document{ID: fmt.Sprintf("short%d", i), Text: fmt.Sprintf("document number %d about things and more things %d", i, i%7)})
	}
	head, tail := randomWords(r, 50), randomWords(r, 50)
	for i := range 30 + r.IntN(30) {
		n := r.IntN(12) // few distinct numbers: exact copies among them too
		text := fmt.Sprintf("%s %d %s", strings.Join(head, " "), n, strings.Join(tail, " "))
		docs = append(docs, Document{ID: fmt.Sprintf("tmpl%d-n%d", i, n), Text: text, URL: fmt.Sprintf("http://x/%d", r.IntN(1000))})
	}
	r.Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })
	return docs
}

func randomWords(r *rand.Rand, n int) []string {
	w := make([]string, n)
	for i := range w {
		w[i] = vocab[r.IntN(len(vocab))]
	}
	return w
}

// bruteOnline is the online clustering specified for the Detector,
// computed from all pairs with the detector's own similarity (match): in
// arrival order, each document joins the cluster whose master it resembles
// most (ties to the smaller cluster id), if any qualifies, else founds
// one; the policy may make it the master. It never looks at members. It
// returns the master of each document's cluster at the end, and every
// similar pair (i < j) as [2]int{i, j}.
func bruteOnline(det *Detector, policy cluster.Policy) (masters []string, pairs map[[2]int]bool) {
	n := len(det.docs)
	pairs = map[[2]int]bool{}
	type cl struct {
		id     cluster.ID
		master int
	}
	var clusters []*cl
	of := make([]*cl, n)
	for j := range n {
		best, bestScore := (*cl)(nil), -1.0
		for _, c := range clusters {
			s, ok := det.match(det.docs[j], det.docs[c.master])
			if ok && (s > bestScore || s == bestScore && c.id < best.id) {
				best, bestScore = c, s
			}
		}
		for i := range j {
			if _, ok := det.match(det.docs[j], det.docs[i]); ok {
				pairs[[2]int{i, j}] = true
			}
		}
		if best == nil {
			best = &cl{id: cluster.IDFor(det.docs[j].member.ID), master: j}
			clusters = append(clusters, best)
		} else if policy.Better(det.docs[j].member.full(), det.docs[best.master].member.full()) {
			best.master = j
		}
		of[j] = best
	}
	masters = make([]string, n)
	for j, c := range of {
		masters[j] = det.docs[c.master].member.ID
	}
	return masters, pairs
}

func mastersOf(as []Assignment) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.Master
	}
	return out
}

// TestFanoutAgainstUnboundedAndAllPairs is the oracle test of the fan-out
// limits: on small random inputs full of exact copies and templated pages,
// with limits small enough that every kind of bound is reached (capped
// lists, stop signatures, dense SimHash neighbourhoods, members left
// unverified), the online clusters
// equal those of the unbounded search and those of an all-pairs
// computation, for every method and both similarities, and the bounded
// pairs are true pairs that always include the master joined.
func TestFanoutAgainstUnboundedAndAllPairs(t *testing.T) {
	seeds := 6
	if testing.Short() {
		seeds = 2
	}
	type config struct {
		name string
		opts Options
	}
	var configs []config
	for _, m := range Methods() {
		configs = append(configs, config{m.String(), Options{Method: m}})
	}
	configs = append(configs,
		config{"hybrid-cosine", Options{Similarity: Cosine}},
		config{"hybrid-shortest-url", Options{Master: cluster.ShortestURL}})
	var hit Stats // limits reached over all runs: each kind must be
	for seed := range seeds {
		docs := fanoutCorpus(rand.New(rand.NewPCG(11, uint64(seed))))
		for _, c := range configs {
			for _, fanout := range []int{1, 3} {
				t.Run(fmt.Sprintf("seed=%d/%s/fanout=%d", seed, c.name, fanout), func(t *testing.T) {
					bounded, unbounded := c.opts, c.opts
					bounded.MaxFanout, unbounded.MaxFanout = fanout, -1
					bdet, bres := run(t, bounded, docs)
					udet, ures := run(t, unbounded, docs)
					want, truePairs := bruteOnline(udet, c.opts.Master)
					if got := mastersOf(udet.Assignments()); !slices.Equal(got, want) {
						t.Errorf("unbounded clusters differ from the all-pairs clustering:\n%v\n%v", got, want)
					}
					if got := mastersOf(bdet.Assignments()); !slices.Equal(got, want) {
						t.Errorf("bounded clusters differ from the all-pairs clustering:\n%v\n%v", got, want)
					}
					if !slices.Equal(bdet.Assignments(), udet.Assignments()) {
						t.Error("bounded and unbounded cluster ids differ")
					}
					checkBoundedPairs(t, bdet, bres, ures, truePairs, fanout)
					st := bdet.Stats()
					hit.Capped += st.Capped
					hit.StopKeys += st.StopKeys
					hit.Skipped += st.Skipped
					hit.DenseKeys += st.DenseKeys
					if st := udet.Stats(); st.Capped+st.StopKeys+st.Skipped+st.DenseKeys != 0 {
						t.Errorf("unbounded detector reports limits: %+v", st)
					}
				})
			}
		}
	}
	if hit.Capped == 0 || hit.StopKeys == 0 || hit.Skipped == 0 || hit.DenseKeys == 0 {
		t.Errorf("limits never reached (%+v): the inputs do not test them", hit)
	}
}

// checkBoundedPairs checks the pairs of a bounded run: each a true pair,
// the master joined among them, at most fanout+1 per cluster and
// document, all also found by the unbounded run — which found exactly the
// true pairs the candidate sources reach (here: all of them).
func checkBoundedPairs(t *testing.T, det *Detector, bres, ures []Result, truePairs map[[2]int]bool, fanout int) {
	t.Helper()
	unboundedPairs := 0
	for _, r := range ures {
		for _, p := range r.Pairs {
			unboundedPairs++
			if !truePairs[[2]int{int(det.byID[p.A]), int(det.byID[p.B])}] {
				t.Errorf("unbounded pair %s %s is not similar", p.A, p.B)
			}
		}
	}
	if unboundedPairs != len(truePairs) {
		t.Errorf("unbounded run found %d pairs, all-pairs has %d", unboundedPairs, len(truePairs))
	}
	for k, r := range bres {
		inUnbounded := map[Pair]bool{}
		for _, p := range ures[k].Pairs {
			inUnbounded[p] = true
		}
		perCluster := map[cluster.ID]int{}
		sawMaster := false
		for _, p := range r.Pairs {
			if !inUnbounded[p] {
				t.Errorf("bounded pair %+v not found without bounds", p)
			}
			cid, _ := det.clusters.Of(p.A)
			perCluster[cid]++
			if perCluster[cid] > fanout+1 {
				t.Errorf("%s: more than %d pairs with cluster %s", r.ID, fanout+1, cid)
			}
			sawMaster = sawMaster || r.Duplicate && !r.NewMaster && p.A == r.Master
		}
		if r.Duplicate && !r.NewMaster && !sawMaster {
			t.Errorf("%s joined %s but does not pair with its master", r.ID, r.Master)
		}
	}
}

// TestFanoutDeterministic: the bounded detector gives the same results
// added in batches with parallel signing and one document at a time.
func TestFanoutDeterministic(t *testing.T) {
	docs := fanoutCorpus(rand.New(rand.NewPCG(12, 1)))
	opts := Options{MaxFanout: 2}
	d1, r1 := run(t, opts, docs)
	d2, err := New(tableOf(t, opts, docs), opts)
	if err != nil {
		t.Fatal(err)
	}
	for i, doc := range docs {
		r2, err := d2.Add(doc)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(r1[i].Pairs, r2.Pairs) || r1[i].Cluster != r2.Cluster {
			t.Fatalf("%s: results differ between runs", doc.ID)
		}
	}
	if !slices.Equal(d1.Assignments(), d2.Assignments()) || !slices.Equal(d1.StarAssignments(), d2.StarAssignments()) {
		t.Error("clusters differ between runs")
	}
}

// TestFanoutCopies: with many exact copies of one page, every copy joins
// the first; it pairs with the first MaxFanout copies only (the master
// first), so pairs grow linearly; star clustering still makes one cluster.
func TestFanoutCopies(t *testing.T) {
	text := strings.Join(randomWords(rand.New(rand.NewPCG(1, 1)), 80), " ")
	var docs []Document
	for i := range 300 {
		docs = append(docs, Document{ID: fmt.Sprintf("copy%03d", i), Text: text})
	}
	const fanout = 8
	det, results := run(t, Options{MaxFanout: fanout}, docs)
	for i, r := range results {
		if r.Master != "copy000" {
			t.Fatalf("%s: master %s, want copy000", r.ID, r.Master)
		}
		var want []Pair
		for j := range min(i, fanout) {
			want = append(want, Pair{A: docs[j].ID, B: r.ID, Score: 1})
		}
		if !slices.Equal(r.Pairs, want) {
			t.Fatalf("%s: pairs %v, want %v", r.ID, r.Pairs, want)
		}
	}
	for _, a := range det.StarAssignments() {
		if a.Master != "copy000" {
			t.Fatalf("star: %s has master %s", a.ID, a.Master)
		}
	}
	if st := det.Stats(); st.Candidates > len(docs)*fanout || st.Capped == 0 {
		t.Errorf("Stats = %+v: want at most %d candidates per document, capped lists", st, fanout)
	}
}

// TestFanoutFindsPlantedCopy: thousands of short templated pages share
// their I-Match signatures, so those lists stop; a page planted before them
// with the same signatures still finds its exact and its edited copy
// planted after them, through its other signatures. And thousands of long
// templated pages that are near-duplicates of a planted one fill their
// lists with one cluster, which are capped, not stopped: a copy planted
// after them still joins it.
func TestFanoutFindsPlantedCopy(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 1500
	}
	r := rand.New(rand.NewPCG(2, 2))
	words := randomWords(r, 200)
	planted := Document{ID: "planted", Text: "document number 123456 about things and more things 3 " + strings.Join(words, " ")}
	words[100] = "edited"
	edited := "document number 123456 about things and more things 3 " + strings.Join(words, " ")
	head, tail := strings.Join(randomWords(r, 50), " "), strings.Join(randomWords(r, 50), " ")
	long := Document{ID: "planted-long", Text: fmt.Sprintf("%s %d %s", head, 999999, tail)}
	docs := []Document{planted, long}
	for i := range n {
		docs = append(docs,
			Document{ID: fmt.Sprint("short", i), Text: fmt.Sprintf("document number %d about things and more things %d", i, i%7)},
			Document{ID: fmt.Sprint("long", i), Text: fmt.Sprintf("%s %d %s", head, i, tail)})
	}
	docs = append(docs,
		Document{ID: "planted-copy", Text: planted.Text},
		Document{ID: "planted-edited", Text: edited},
		Document{ID: "planted-long-copy", Text: long.Text})
	for _, fanout := range []int{16, 64} {
		t.Run(fmt.Sprint("fanout=", fanout), func(t *testing.T) {
			det, results := run(t, Options{MaxFanout: fanout}, docs)
			if st := det.Stats(); st.StopKeys == 0 || st.Capped == 0 {
				t.Fatalf("Stats %+v: no stop signatures or no capped lists, the test does not test them", st)
			}
			for _, r := range results[len(results)-3:] {
				want := strings.TrimSuffix(strings.TrimSuffix(r.ID, "-copy"), "-edited")
				if r.Master != want || !slices.ContainsFunc(r.Pairs, func(p Pair) bool { return p.A == want }) {
					t.Errorf("%s: master %s, pairs %v; want it to join %s", r.ID, r.Master, r.Pairs, want)
				}
			}
			if c, _ := det.Cluster(results[1].Cluster); len(c.Members) != n+2 {
				t.Errorf("the long templated pages are in %d clusters, want one", len(c.Members))
			}
		})
	}
}

// TestFanoutRefresh: Refresh rebuilds the bounded I-Match and SimHash lists
// from the clusters already formed, and later copies still find them.
func TestFanoutRefresh(t *testing.T) {
	docs := fanoutCorpus(rand.New(rand.NewPCG(13, 1)))
	half := len(docs) / 2
	opts := Options{MaxFanout: 2}
	det, err := New(tableOf(t, opts, docs[:half]), opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range docs[:half] {
		if _, err := det.Add(doc); err != nil {
			t.Fatal(err)
		}
	}
	byID := map[string]Document{}
	for _, d := range docs {
		byID[d.ID] = d
	}
	if err := det.Refresh(context.Background(), tableOf(t, opts, docs), func(id string) (Document, error) { return byID[id], nil }); err != nil {
		t.Fatal(err)
	}
	for _, doc := range docs[half:] {
		if _, err := det.Add(doc); err != nil {
			t.Fatal(err)
		}
	}
	want, _ := bruteOnline(det, opts.Master)
	if got := mastersOf(det.Assignments()); !slices.Equal(got, want) {
		t.Errorf("clusters after Refresh differ from the all-pairs clustering:\n%v\n%v", got, want)
	}
}

// TestFanoutCorpusUnchanged: on the shared corpus no signature reaches
// the default fan-out limits — no list is capped or stopped, no
// neighbourhood is dense, every candidate is verified — so the default
// detector runs exactly the unbounded search (the oracle test above
// compares the two where limits are reached). Checked with cosine
// verification, whose clusters and shared band lists are the corpus's
// largest (210 members, 363 documents). Its first 1,500 documents by
// default, all 5,702 with DOPPEL_LONG=1. Skipped without the corpus.
func TestFanoutCorpusUnchanged(t *testing.T) {
	limit := long.N(1500, 0) // the whole corpus with DOPPEL_LONG=1
	if testing.Short() {
		limit = 1500
	}
	recs := testcorpus.Docs(t, "book-revisions.jsonl.gz", limit)
	docs := make([]Document, len(recs))
	for i, r := range recs {
		docs[i] = Document{ID: r.ID, Text: r.Text}
	}
	det, _ := run(t, Options{Similarity: Cosine}, docs)
	if st := det.Stats(); st.Capped+st.StopKeys+st.Skipped+st.DenseKeys != 0 {
		t.Errorf("default limits reached on the corpus: %+v", st)
	}
}
