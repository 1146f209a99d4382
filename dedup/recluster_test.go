package dedup

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/dedup/cluster"
	"github.com/doppel-search/doppel/dedup/features"
)

// chainTexts returns chains of texts: in each, text k is text k−1 with
// three words of its own edited, so neighbours are copies (resemblance of
// 5-shingles near 0.93) and texts two apart are not (near 0.86).
func chainTexts(r *rand.Rand, chains, length int) [][]string {
	out := make([][]string, chains)
	for c := range out {
		words := make([]string, 400)
		for i := range words {
			words[i] = fmt.Sprintf("w%d", r.IntN(100000))
		}
		for k := range length {
			if k > 0 {
				for e := range 3 { // far apart: each edit changes its own 5 shingles
					words[(k*3+e)*30%400] = fmt.Sprintf("edit%d_%d_%d", c, k, e)
				}
			}
			out[c] = append(out[c], strings.Join(words, " "))
		}
	}
	return out
}

// reclustered adds docs in order to a new Detector, re-clusters it, and
// checks its structures and invariants.
func reclustered(t *testing.T, docs []Document, order []int) (*Detector, []Assignment) {
	t.Helper()
	d, err := New(nil, reclusterOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range order {
		if _, err := d.Add(docs[i]); err != nil {
			t.Fatal(err)
		}
	}
	as, err := d.Recluster(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	checkStructures(t, d)
	checkInvariants(t, d)
	return d, as
}

func reclusterOptions() Options {
	return Options{Terms: features.Options{StripDates: true}, EditAllowance: 3, Master: cluster.ShortestURL}
}

// TestReclusterChains: a chain A ≈ B ≈ C (A ≉ C) becomes one cluster
// around B whatever the order A, B and C arrive in; every member is a
// copy of its master; the structures agree with a rebuild; and the
// Detector goes on working after it.
func TestReclusterChains(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	chain := chainTexts(r, 1, 3)[0]
	docs := []Document{
		{ID: "a", URL: "http://x/chain/a", Text: chain[0]},
		{ID: "b", URL: "http://x/chain/bb", Text: chain[1]}, // the longest URL: the centre by its near-duplicates alone
		{ID: "c", URL: "http://x/chain/c", Text: chain[2]},
	}
	d0, err := New(nil, reclusterOptions())
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := d0.match(d0.prepare(docs[0]).rec, d0.prepare(docs[2]).rec); ok {
		t.Fatalf("the chain's ends are copies (%.3f): the test needs a chain", s)
	}
	var first map[string]string
	for _, order := range [][]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}} {
		d, as := reclustered(t, docs, order)
		if len(as) != 3 || as[0].ID != "b" {
			t.Fatalf("order %v: assignments %+v, want b first", order, as)
		}
		for _, a := range as {
			if a.Master != "b" || a.Cluster != as[0].Cluster {
				t.Fatalf("order %v: %+v, want one cluster around b", order, as)
			}
		}
		p := partition(d)
		if first == nil {
			first = p
		} else if !maps.Equal(p, first) {
			t.Fatalf("order %v: %v, first order %v", order, p, first)
		}
		if st := d.Stats(); st.Documents != 3 || st.Clusters != 1 || st.Reclusters != 1 || st.Pairs != 2 {
			t.Fatalf("order %v: stats %+v", order, st)
		}
		// It goes on: a copy of c arrives, b leaves.
		if res, err := d.Add(Document{ID: "c2", URL: "http://x/chain/c2", Text: chain[2]}); err != nil || res.Master != "b" {
			t.Fatalf("order %v: a copy of c after: %+v, %v", order, res, err)
		}
		if _, err := d.Remove("b"); err != nil {
			t.Fatal(err)
		}
		checkStructures(t, d)
		checkInvariants(t, d)
	}
}

// TestReclusterOrderFree: on families of copies and chains mixed with
// unrelated texts, the clusters after Recluster are the same for every
// arrival order, every member is a copy of its master (or within the edit
// allowance), and no pair of the oracle's copies is split more often than
// star clustering splits it.
func TestReclusterOrderFree(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	texts, _ := cliqueTexts(r, 6, 4, 10, false)
	for _, ch := range chainTexts(r, 4, 4) {
		texts = append(texts, ch...)
	}
	var docs []Document
	for i, text := range texts {
		docs = append(docs, Document{ID: fmt.Sprintf("d%02d", i), URL: fmt.Sprintf("http://x/%s/%d", strings.Repeat("p", 1+r.IntN(3)), i), Text: text})
	}
	var first map[string]string
	for run := range 8 {
		order := slices.Clone(docs)
		if run > 0 {
			r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		}
		d, err := New(nil, reclusterOptions())
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range order {
			if _, err := d.Add(doc); err != nil {
				t.Fatal(err)
			}
		}
		// The pairs star clustering keeps in one cluster, and the
		// pairs found: Recluster keeps at least as many together.
		pairs := map[[2]string]bool{}
		d.mu.RLock()
		for i, adj := range d.adj {
			for _, j := range adj {
				pairs[[2]string{d.docs[i].member.ID, d.docs[j].member.ID}] = true
			}
		}
		d.mu.RUnlock()
		together := func(cluster map[string]cluster.ID) int {
			n := 0
			for p := range pairs {
				if cluster[p[0]] == cluster[p[1]] {
					n++
				}
			}
			return n
		}
		star := map[string]cluster.ID{}
		for _, a := range d.StarAssignments() {
			star[a.ID] = a.Cluster
		}
		as, err := d.Recluster(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		checkStructures(t, d)
		checkInvariants(t, d)
		re := map[string]cluster.ID{}
		for _, a := range as {
			re[a.ID] = a.Cluster
		}
		if got, want := together(re), together(star); got < want {
			t.Fatalf("run %d: %d pairs in one cluster, star clustering %d", run, got, want)
		}
		p := partition(d)
		if first == nil {
			first = p
			continue
		}
		if !maps.Equal(p, first) {
			for id := range p {
				if p[id] != first[id] {
					t.Errorf("run %d: %s in %q, first run %q", run, id, p[id], first[id])
				}
			}
			t.FailNow()
		}
	}
	// Chains are whole: each chain of four is at most two clusters, each
	// around a middle text.
	chains := 0
	for id, s := range first {
		if strings.HasPrefix(s, id+"*") && strings.Count(s, " ") >= 2 {
			chains++
		}
	}
	if chains == 0 {
		t.Fatalf("no cluster of three or more: %v", first)
	}
}

func TestReclusterCanceled(t *testing.T) {
	d, err := New(nil, reclusterOptions())
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	for i, text := range chainTexts(r, 2, 3) {
		for k, s := range text {
			if _, err := d.Add(Document{ID: fmt.Sprintf("c%d-%d", i, k), Text: s}); err != nil {
				t.Fatal(err)
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := d.Recluster(ctx); err == nil {
		t.Fatal("a canceled Recluster succeeded")
	}
	as, err := d.Recluster(context.Background())
	if err != nil || len(as) != 6 {
		t.Fatalf("again: %d assignments, %v", len(as), err)
	}
	checkStructures(t, d)
}

// TestReclusterBorderline: a chain of four (each text three words from
// the next) is one cluster whatever the order: star clustering splits it
// (the third text's centre leaves the fourth alone), and the two stars
// are joined because every text resembles one master at least EditFloor;
// the member below the Threshold is edited.
func TestReclusterBorderline(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	chain := chainTexts(r, 1, 4)[0]
	var docs []Document
	for k, text := range chain {
		docs = append(docs, Document{ID: fmt.Sprintf("t%d", k), URL: fmt.Sprintf("http://x/%s", strings.Repeat("p", 1+k%3)), Text: text})
	}
	var first map[string]string
	var perms func(rest, order []int)
	perms = func(rest, order []int) {
		if len(rest) == 0 {
			d, as := reclustered(t, docs, order)
			edited := 0
			for _, a := range as {
				if a.Cluster != as[0].Cluster {
					t.Fatalf("order %v: %+v, want one cluster", order, as)
				}
				s, _ := d.match(d.docs[d.byID[a.ID]], d.docs[d.byID[a.Master]])
				if s < d.opts.EditFloor {
					t.Fatalf("order %v: %s resembles its master %s at %.3f", order, a.ID, a.Master, s)
				}
				if a.Edited {
					edited++
				}
			}
			if edited == 0 {
				t.Fatalf("order %v: no member below the threshold: the chain does not test joining stars", order)
			}
			if p := partition(d); first == nil {
				first = p
			} else if !maps.Equal(p, first) {
				t.Fatalf("order %v: %v, first order %v", order, p, first)
			}
			return
		}
		for i := range rest {
			perms(slices.Concat(rest[:i], rest[i+1:]), append(slices.Clone(order), rest[i]))
		}
	}
	perms([]int{0, 1, 2, 3}, nil)
}

// TestReclusterThenInsert: after removals and a Recluster, the documents
// have new slots; documents inserted then take slots that were the old
// ones of others, and a copy of an earlier document must still be
// verified against that document's own set (kept in memory or in the set
// file).
func TestReclusterThenInsert(t *testing.T) {
	text := func(i int) string {
		return strings.Repeat(fmt.Sprintf("word%d other%d thing%d more%d ", i, 7*i, 13*i, 17*i), 10)
	}
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"sets in memory", Options{LSHOnly: true}},
		{"sets on disk", Options{LSHOnly: true, SetsDir: t.TempDir()}},
	} {
		d, err := New(nil, tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		add := func(id string, i int) Result {
			res, err := d.Add(Document{ID: id, Text: text(i)})
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		for i := range 6 {
			add(fmt.Sprint("d", i), i)
		}
		for _, id := range []string{"d0", "d1"} {
			if _, err := d.Remove(id); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := d.Recluster(context.Background()); err != nil {
			t.Fatal(err)
		}
		for i := 10; i < 14; i++ {
			add(fmt.Sprint("d", i), i)
		}
		for i := 2; i < 6; i++ {
			if res := add(fmt.Sprint("copy", i), i); !res.Duplicate || res.Master != fmt.Sprint("d", i) {
				t.Errorf("%s: copy of d%d: duplicate %v of %s, want of d%d", tc.name, i, res.Duplicate, res.Master, i)
			}
		}
		d.Close()
	}
}

// TestReclusterCopyBeforeStar: a page that is only an edited near-copy
// of its star's master (two words changed: resemblance 0.81) joins the
// master it is a copy of (one word changed: 0.90) instead, as
// `_mm_maskz_mul_round_sd` under x86/ and x86_64/ beside their sibling
// `_mm_maskz_add_round_sd`; a copy of the star's master stays with it,
// and the sibling stays apart from the pair.
func TestReclusterCopyBeforeStar(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 6))
	words := make([]string, 100)
	for i := range words {
		words[i] = fmt.Sprintf("w%d", r.IntN(100000))
	}
	// Positions far apart, each word in 5 shingles of its own: arch 10,
	// op 40 and 70 (the name and its description), other 90.
	text := func(arch, op, other string) string {
		w := slices.Clone(words)
		w[10], w[40], w[70], w[90] = arch, op, op+"s", other
		return strings.Join(w, " ")
	}
	docs := []Document{
		{ID: "x86/add", URL: "http://x/a", Text: text("x86", "add", "")},
		{ID: "x86_64/add", URL: "http://x/b", Text: text("x86_64", "add", "")},
		{ID: "x86/add-note", URL: "http://x/c", Text: text("x86", "add", "note")},
		{ID: "x86/add-see", URL: "http://x/d", Text: text("x86", "add", "see")},
		{ID: "x86/sub", URL: "http://x/e", Text: text("x86", "sub", "")},
		{ID: "x86/div", URL: "http://x/f", Text: text("x86", "div", "")},
		{ID: "x86/mul", URL: "http://x/g", Text: text("x86", "mul", "")},
		{ID: "x86_64/mul", URL: "http://x/h", Text: text("x86_64", "mul", "")},
	}
	d0, err := New(nil, reclusterOptions())
	if err != nil {
		t.Fatal(err)
	}
	score := func(a, b int) float64 {
		s, _ := d0.match(d0.prepare(docs[a]).rec, d0.prepare(docs[b]).rec)
		return s
	}
	if s := score(6, 7); s < 0.9 {
		t.Fatalf("x86/mul and x86_64/mul resemble %.3f: the test needs copies", s)
	}
	if s := score(0, 6); s < 0.8 || s >= 0.9 {
		t.Fatalf("x86/add and x86/mul resemble %.3f: the test needs an edited near-copy", s)
	}
	for _, order := range [][]int{{0, 1, 2, 3, 4, 5, 6, 7}, {7, 6, 5, 4, 3, 2, 1, 0}, {6, 0, 7, 1, 2, 3, 4, 5}} {
		_, as := reclustered(t, docs, order)
		of := map[string]cluster.ID{}
		for _, a := range as {
			of[a.ID] = a.Cluster
		}
		for _, c := range []struct {
			a, b string
			same bool
		}{
			{"x86/mul", "x86_64/mul", true},
			{"x86/add", "x86_64/add", true},
			{"x86/add", "x86/mul", false},
			{"x86/sub", "x86/mul", false},
		} {
			if got := of[c.a] == of[c.b]; got != c.same {
				t.Errorf("order %v: %s and %s in one cluster: %v, want %v (%+v)", order, c.a, c.b, got, c.same, as)
			}
		}
	}
}

// orderOutcomes adds docs to a new Detector (options opts) in every order
// perms gives, re-clusters, and returns the orders (as indexes into docs)
// by the clustering they gave (partition: each document's master and
// cluster).
func orderOutcomes(t *testing.T, opts Options, docs []Document, orders [][]int) map[string][][]int {
	t.Helper()
	out := map[string][][]int{}
	for _, order := range orders {
		d, err := New(nil, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range order {
			if _, err := d.Add(docs[i]); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := d.Recluster(context.Background()); err != nil {
			t.Fatal(err)
		}
		checkStructures(t, d)
		checkInvariants(t, d)
		p := partition(d)
		var lines []string
		for _, doc := range docs {
			lines = append(lines, doc.ID+": "+p[doc.ID])
		}
		key := strings.Join(lines, "\n")
		out[key] = append(out[key], order)
	}
	return out
}

// permutations returns every order of 0…n-1.
func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for i := range n {
			out = append(out, slices.Insert(slices.Clone(p), i, n-1))
		}
	}
	return out
}

// TestReclusterStarMasterWhateverOrder: four pages of Rust's API
// reference (testdata/fma, the crawler's text and tagged text of each)
// make a square: each is a copy (0.91) of its twin under the other
// architecture's path and resembles its fmadd/fnmadd sibling at 0.86;
// across the diagonal 0.80, just at the EditFloor, and the diagonal
// shares no LSH key. Star clustering makes them one cluster around
// x86/fmadd (the shortest URL); Recluster must put them there in any of
// the 24 orders. It did not in 5 of them: inserted again right after its
// star master, x86_64/fnmadd saw no candidate, founded a cluster of its
// own, and took its twin along (18,533 clusters on Rust's documentation
// or 18,534, by the order the pages came in).
func TestReclusterStarMasterWhateverOrder(t *testing.T) {
	var docs []Document
	for _, name := range []string{"x86_fn._mm_maskz_fmadd_round_ss", "x86_fn._mm_maskz_fnmadd_round_ss",
		"x86_64_fn._mm_maskz_fmadd_round_ss", "x86_64_fn._mm_maskz_fnmadd_round_ss"} {
		text, err := os.ReadFile(filepath.Join("testdata", "fma", name+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		tagged, err := os.ReadFile(filepath.Join("testdata", "fma", name+".tagged"))
		if err != nil {
			t.Fatal(err)
		}
		u := "http://docs.example/core/arch/" + strings.Replace(name, "_fn.", "/fn.", 1) + ".html"
		docs = append(docs, Document{ID: u, URL: u, Text: string(text), Tagged: string(tagged), Preference: 19})
	}
	outcomes := orderOutcomes(t, Web(), docs, permutations(len(docs)))
	if len(outcomes) != 1 {
		for p, orders := range outcomes {
			t.Errorf("orders %v:\n%s", orders, p)
		}
		t.Fatalf("%d clusterings of the same four pages", len(outcomes))
	}
	for p := range outcomes {
		if strings.Count(p, docs[0].ID+"*") != 4 {
			t.Errorf("want one cluster around %s:\n%s", docs[0].ID, p)
		}
	}
}

// TestReclusterTiesWhateverOrder: under the master policy FirstSeen, which
// prefers no document to another, a star's centre is chosen among
// documents with equally many near-duplicates by id, not by arrival:
// pairs of copies, and chains of three, cluster the same in every order.
func TestReclusterTiesWhateverOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	var docs []Document
	for c, chain := range chainTexts(r, 3, 3) {
		for k, text := range chain[:2+c%2] {
			id := fmt.Sprintf("c%d-%d", c, k)
			docs = append(docs, Document{ID: id, URL: "http://x/" + id, Text: text})
		}
	}
	opts := reclusterOptions()
	opts.Master = cluster.FirstSeen
	var orders [][]int
	for range 12 {
		orders = append(orders, r.Perm(len(docs)))
	}
	if outcomes := orderOutcomes(t, opts, docs, orders); len(outcomes) != 1 {
		for p, orders := range outcomes {
			t.Errorf("orders %v:\n%s", orders, p)
		}
		t.Fatalf("%d clusterings of the same %d documents", len(outcomes), len(docs))
	}
}
