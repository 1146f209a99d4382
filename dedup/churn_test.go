package dedup

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/doppel-search/doppel/dedup/cluster"
	"github.com/doppel-search/doppel/dedup/features"
	"github.com/doppel-search/doppel/dedup/imatch"
	"github.com/doppel-search/doppel/dedup/signatures"
	"github.com/doppel-search/doppel/internal/testrig/long"
)

func featuresStripDates() features.Options { return features.Options{StripDates: true} }

// checkStructures checks that everything the Detector keeps agrees with
// its stored records, as a rebuild from them would: slots and ids,
// clusters and their masters, the pairs StarAssignments reads, every
// candidate list (each list holds, of each cluster, the first MaxFanout
// live members with its key, or all of them unbounded, and nothing of
// documents gone; stop keys excepted) and the Hamming index (one entry per
// live fingerprint, none for fingerprints gone), and the counters.
func checkStructures(t testing.TB, d *Detector) {
	t.Helper()
	d.mu.RLock()
	defer d.mu.RUnlock()
	live, unsignable := 0, 0
	for i, rec := range d.docs {
		if rec == nil {
			continue
		}
		idx := uint32(i)
		live++
		if rec.unsignable {
			unsignable++
		}
		id := rec.member.ID
		if got, ok := d.byID[id]; !ok || got != idx {
			t.Fatalf("%s: byID %d, %v; slot %d", id, got, ok, idx)
		}
		ref := d.ref(d.assigned.Of(idx))
		cid, ok := d.clusters.Of(id)
		if !ok || cid != idOf(ref.hash) {
			t.Fatalf("%s: in cluster %s, number %d says %s", id, cid, d.assigned.Of(idx), idOf(ref.hash))
		}
		c := d.clusters.Get(cid)
		if d.docs[ref.master] == nil || c.Master.ID != d.docs[ref.master].member.ID {
			t.Fatalf("cluster %s: master %s, slot %d", cid, c.Master.ID, ref.master)
		}
		if !slices.Contains(c.Members, rec.member.full()) {
			t.Fatalf("%s: its attributes %+v are not among the members of %s", id, rec.member, cid)
		}
		if rec.edited && (d.opts.EditAllowance == 0 || c.Master.ID == id) {
			t.Fatalf("%s: edited without an allowance, or as master", id)
		}
	}
	st := d.stats
	if len(d.byID) != live || d.clusters.Docs() != live || st.Documents != live || st.Unsignable != unsignable ||
		st.Clusters != d.clusters.Len() || st.Duplicates != live-st.Clusters {
		t.Fatalf("%d live documents, %d unsignable, %d ids, %d in clusters; %d clusters; Stats %+v",
			live, unsignable, len(d.byID), d.clusters.Docs(), d.clusters.Len(), st)
	}
	edges := 0
	for i, l := range d.adj {
		if d.docs[i] == nil && len(l) > 0 {
			t.Fatalf("removed slot %d has pairs %v", i, l)
		}
		for _, j := range l {
			n := 0
			for _, k := range l {
				if k == j {
					n++
				}
			}
			if d.docs[j] == nil || int(j) == i || !slices.Contains(d.adj[j], int32(i)) || n > 1 {
				t.Fatalf("pair %d–%d: gone, a loop, one-sided or repeated", i, j)
			}
		}
		edges += len(l)
	}
	if st.Pairs != edges/2 {
		t.Fatalf("Stats.Pairs %d, pairs held %d", st.Pairs, edges/2)
	}
	checkLists(t, d)
}

func checkLists(t testing.TB, d *Detector) {
	t.Helper()
	fps := map[uint64][]uint32{}
	sigs := make([]map[imatch.Signature][]uint32, d.lexicons)
	for i := range sigs {
		sigs[i] = map[imatch.Signature][]uint32{}
	}
	bands, sketches, supers := map[uint64][]uint32{}, map[uint64][]uint32{}, map[uint64][]uint32{}
	for i, rec := range d.docs {
		if rec == nil {
			continue
		}
		idx := uint32(i)
		if d.hamming != nil && !rec.unsignable {
			fps[uint64(rec.fp)] = append(fps[uint64(rec.fp)], idx)
		}
		for j, sig := range rec.sigs {
			if j < len(sigs) && !sig.IsZero() {
				sigs[j][sig] = append(sigs[j][sig], idx)
			}
		}
		for _, b := range slices.Compact(slices.Sorted(slices.Values(d.bandsOf(rec)))) {
			bands[b] = append(bands[b], idx)
		}
		if rec.banded {
			sketches[rec.whole] = append(sketches[rec.whole], idx)
		}
		for _, s := range slices.Compact(slices.Sorted(slices.Values(rec.supers()))) {
			supers[s] = append(supers[s], idx)
		}
	}
	if d.hamming != nil {
		checkList(t, d, "fingerprints", signatures.Fingerprint, fps)
		n := 0
		for fp := range fps {
			q := d.hamming.Query(fp, 0)
			n += len(q)
			if len(q) > 1 || len(q) == 1 && !d.lists.Known(signatures.Key{Kind: signatures.Fingerprint, Sum: fp}) || len(q) == 0 && d.limits.MaxLen == 0 {
				t.Fatalf("fingerprint %#x: %d entries in the Hamming index (known %v)", fp, len(q), d.lists.Known(signatures.Key{Kind: signatures.Fingerprint, Sum: fp}))
			}
		}
		if n != d.hamming.Len() {
			t.Fatalf("the Hamming index holds %d entries, %d of live fingerprints", d.hamming.Len(), n)
		}
	}
	for i := range d.lexicons {
		checkList(t, d, fmt.Sprint("i-match ", i), signatures.IMatch+signatures.Kind(i), sigs[i])
	}
	checkList(t, d, "bands", signatures.Band, bands)
	checkList(t, d, "sketches", signatures.Sketch, sketches)
	checkList(t, d, "supers", signatures.Super, supers)
}

// checkList checks the lists of m against holders, the live documents
// with each key.
func checkList[K uint64 | imatch.Signature](t testing.TB, d *Detector, name string, kind signatures.Kind, holders map[K][]uint32) {
	t.Helper()
	entries := 0
	for k, docs := range holders {
		key := listKey(kind, k)
		list := d.lists.Get(key)
		if list == nil && d.lists.Known(key) {
			continue // a stop key
		}
		entries += len(list)
		got, want := map[uint32]int{}, map[uint32]int{}
		for _, e := range list {
			if d.docs[e.ID] == nil || e.Group != d.assigned.Of(e.ID) || !slices.Contains(docs, e.ID) {
				t.Fatalf("%s %v: entry %+v gone, in another cluster or without the key", name, k, e)
			}
			got[e.Group]++
		}
		for _, doc := range docs {
			want[d.assigned.Of(doc)]++
		}
		for g, n := range want {
			if d.limits.PerGroup > 0 {
				want[g] = min(n, d.limits.PerGroup)
			}
		}
		if !maps.Equal(got, want) {
			t.Fatalf("%s %v: entries per cluster %v, want %v (documents %v, list %v)", name, k, got, want, docs, list)
		}
	}
	if st := d.lists.Stats(kind); st.Entries != entries {
		t.Fatalf("%s: %d entries stored, %d under keys of live documents", name, st.Entries, entries)
	}
}

// listKey is the key of kind for k, a 64-bit hash or an I-Match
// signature.
func listKey[K uint64 | imatch.Signature](kind signatures.Kind, k K) signatures.Key {
	switch k := any(k).(type) {
	case imatch.Signature:
		return signatures.IMatchKey(int(kind-signatures.IMatch), k)
	case uint64:
		return signatures.Key{Kind: kind, Sum: k}
	}
	panic("unreachable")
}

// checkInvariants checks what the online clusters promise: every member
// that did not join through the edit allowance is a copy of its master —
// at the Threshold under the allowance. (Without an allowance and with a
// policy other than FirstSeen a new master takes over on Insert without
// looking at the members, so there the promise is only the one Insert
// makes: each member resembled the master it joined.)
func checkInvariants(t testing.TB, d *Detector) {
	t.Helper()
	if d.opts.EditAllowance == 0 && d.opts.Master != cluster.FirstSeen {
		return
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	for _, c := range d.clusters.All() {
		master := d.docs[d.byID[c.Master.ID]]
		for _, m := range c.Members {
			rec := d.docs[d.byID[m.ID]]
			if m.ID != c.Master.ID && !rec.edited && !d.copyOf(rec, master) {
				s, _ := d.match(rec, master)
				t.Fatalf("cluster %s: member %s is not a copy of master %s (%.3f)", c.ID, m.ID, c.Master.ID, s)
			}
		}
	}
}

// partition maps each document to its cluster: master first, then the
// members sorted.
func partition(d *Detector) map[string]string {
	out := map[string]string{}
	for _, c := range d.Clusters() {
		var ids []string
		for _, m := range c.Members {
			if m.ID != c.Master.ID {
				ids = append(ids, m.ID)
			}
		}
		slices.Sort(ids)
		s := c.Master.ID + "* " + strings.Join(ids, " ")
		for _, m := range c.Members {
			out[m.ID] = s
		}
	}
	return out
}

// churn drives a Detector through random adds, removals and replacements
// of documents drawn from texts, and returns it with the stored documents.
// After every operation it checks the structures and the invariants, and
// calls each (if not nil).
type churn struct {
	opts   Options
	texts  []string // the texts documents take
	family []int    // family of each text: texts of one family are copies of each other; -1: none
	ids    int      // documents ids d0..d<ids-1>
	ops    int
	mutate bool // replacements may also edit a few words of the text
	seed   uint64
	each   func(t *testing.T, d *Detector, stored map[string]Document, op int, ch *Change)
}

func (c *churn) run(t *testing.T) (*Detector, map[string]Document) {
	t.Helper()
	r := rand.New(rand.NewPCG(c.seed, 77))
	tb, err := NewTableBuilder(c.opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range c.texts {
		tb.Add(s)
	}
	d, err := New(tb.Table(), c.opts)
	if err != nil {
		t.Fatal(err)
	}
	url := make([]string, c.ids)
	for i := range url { // distinct, of random lengths: ShortestURL has one choice
		url[i] = fmt.Sprintf("http://x/%s%d", strings.Repeat("p", r.IntN(6)), i)
	}
	stored := map[string]Document{}
	pick := func(fam int) string { // a text of the family, or any
		if fam >= 0 && r.IntN(10) < 7 {
			var same []int
			for i, f := range c.family {
				if f == fam {
					same = append(same, i)
				}
			}
			return c.texts[same[r.IntN(len(same))]]
		}
		return c.texts[r.IntN(len(c.texts))]
	}
	familyOf := func(text string) int {
		if i := slices.Index(c.texts, text); i >= 0 {
			return c.family[i]
		}
		return -1
	}
	for op := range c.ops {
		id := fmt.Sprint("d", r.IntN(c.ids))
		doc, ok := stored[id]
		var ch *Change
		switch p := r.IntN(10); {
		case !ok:
			doc = Document{ID: id, URL: url[mustAtoi(id[1:])], Text: pick(-1)}
			if _, err := d.Add(doc); err != nil {
				t.Fatal(err)
			}
			stored[id] = doc
		case p < 3:
			removal, err := d.Remove(id)
			if err != nil {
				t.Fatal(err)
			}
			delete(stored, id)
			ch = &removal
		default:
			switch q := r.IntN(10); {
			case q < 2:
				// the same text again
			case q < 4 && c.mutate:
				w := strings.Fields(doc.Text)
				for range 1 + r.IntN(3) {
					if len(w) > 0 {
						w[r.IntN(len(w))] = vocab[r.IntN(len(vocab))]
					}
				}
				doc.Text = strings.Join(w, " ")
			default:
				doc.Text = pick(familyOf(doc.Text))
			}
			replacement, err := d.Replace(doc)
			if err != nil {
				t.Fatal(err)
			}
			stored[id] = doc
			ch = &replacement
		}
		if _, ok := stored[id]; ok != d.has(id) {
			t.Fatalf("op %d: %s stored %v, in the detector %v", op, id, ok, !ok)
		}
		checkStructures(t, d)
		checkInvariants(t, d)
		if c.each != nil {
			c.each(t, d, stored, op, ch)
		}
	}
	return d, stored
}

func mustAtoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// rebuild adds the stored documents, in the detector's arrival order, to
// a new Detector with the same options and statistics.
func rebuild(t *testing.T, d *Detector, stored map[string]Document) *Detector {
	t.Helper()
	r, err := New(d.Table(), d.Options())
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range d.Assignments() {
		if _, err := r.Add(stored[a.ID]); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// cliqueTexts returns families of texts that are all copies of each other
// within a family — exact copies, or, unless exact, copies with one word
// of their own edited (resemblance above 0.93 between any two, word-set
// cosine above 0.99) — and unrelated texts, and the family of each.
func cliqueTexts(r *rand.Rand, families, variants, unrelated int, exact bool) ([]string, []int) {
	var texts []string
	var family []int
	for f := range families {
		base := randomWords(r, 300)
		for v := range variants {
			if exact || v == 0 {
				texts = append(texts, strings.Join(base, " "))
			} else {
				texts = append(texts, edited(base, 10+v*37))
			}
			family = append(family, f)
		}
	}
	for range unrelated {
		texts = append(texts, strings.Join(randomWords(r, 300), " "))
		family = append(family, -1)
	}
	texts = append(texts, "") // unsignable
	family = append(family, -1)
	return texts, family
}

// TestChurnAgainstRebuild is the oracle test of Remove and Update: on
// families of copies (any two texts of a family are copies at the
// Threshold, no two families resemble each other), for random sequences
// of adds, removals and replacements — a text of the same family (the
// cluster is kept), of another family or unrelated (the document leaves),
// the same text — the clusters after every operation are those a Detector
// rebuilt from the surviving documents in the same arrival order finds:
// the same partition and the same masters (the policy's choice), for every
// method, both master policies, with and without the edit allowance and
// with bounded lists small enough that removals empty and refill them.
// Without fan-out bounds the pairs (StarAssignments) are the rebuild's too.
//
// The configurations left out are those where online order legitimately
// decides: with an edit allowance a cluster of more than MaxFanout
// members keeps its master on Insert (mayLead), so ShortestURL with an
// allowance and a small MaxFanout may keep a master the rebuild would
// replace. TestChurnInvariants covers inputs that are not families of
// copies, where rebuilding gives other clusters.
func TestChurnAgainstRebuild(t *testing.T) {
	type config struct {
		name  string
		opts  Options
		exact bool // texts of a family are exact copies (methods without exact similarity)
	}
	var configs []config
	for _, m := range Methods() {
		for _, fanout := range []int{-1, 1} {
			configs = append(configs, config{fmt.Sprintf("%s/exact/fanout=%d", m, fanout), Options{Method: m, MaxFanout: fanout}, true})
		}
	}
	for _, p := range []cluster.Policy{cluster.FirstSeen, cluster.ShortestURL} {
		for _, allow := range []int{0, 3} {
			for _, fanout := range []int{-1, 1, 2} {
				if p == cluster.ShortestURL && allow > 0 && fanout > 0 {
					continue // see above
				}
				configs = append(configs, config{fmt.Sprintf("hybrid/%s/allow=%d/fanout=%d", p, allow, fanout),
					Options{Master: p, EditAllowance: allow, MaxFanout: fanout}, false})
			}
		}
	}
	configs = append(configs, config{"hybrid-cosine/shortest-url", Options{Similarity: Cosine, Master: cluster.ShortestURL, MaxFanout: 1}, false})
	seeds, ops := long.N(1, 3), long.N(100, 160) // DOPPEL_LONG=1: three seeds of 160 changes
	if testing.Short() {
		seeds, ops = 1, 100
	}
	total := map[string]int{}
	defer func() {
		for _, k := range []string{"remove", "replace", "unchanged", "left", "stayed", "elected"} {
			if total[k] == 0 {
				t.Errorf("no %q over all runs (%v): the inputs do not test it", k, total)
			}
		}
	}()
	for _, cf := range configs {
		for seed := range seeds {
			t.Run(fmt.Sprintf("%s/seed=%d", cf.name, seed), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(seed), 5))
				texts, family := cliqueTexts(r, 4, 5, 6, cf.exact)
				c := &churn{opts: cf.opts, texts: texts, family: family, ids: 24, ops: ops, seed: uint64(seed)}
				c.each = func(t *testing.T, d *Detector, stored map[string]Document, op int, _ *Change) {
					if op%8 != 7 && op != c.ops-1 {
						return
					}
					rb := rebuild(t, d, stored)
					if got, want := partition(d), partition(rb); !maps.Equal(got, want) {
						for id := range got {
							if got[id] != want[id] {
								t.Fatalf("op %d: %s is in %q, the rebuild puts it in %q", op, id, got[id], want[id])
							}
						}
					}
					if cf.opts.MaxFanout < 0 && !slices.Equal(d.StarAssignments(), rb.StarAssignments()) {
						t.Fatalf("op %d: star clusters differ from the rebuild's", op)
					}
				}
				d, _ := c.run(t)
				tally(total, d.Stats())
			})
		}
	}
}

// tally adds what a run did to total.
func tally(total map[string]int, st Stats) {
	total["remove"] += st.Removed
	total["replace"] += st.Replaced
	total["unchanged"] += st.Unchanged
	total["left"] += st.Left
	total["stayed"] += st.Replaced - st.Unchanged - st.Left
	total["elected"] += st.Elections
	total["moved"] += st.Moved
}

// has reports whether id is stored.
func (d *Detector) has(id string) bool {
	_, ok := d.Fingerprint(id)
	return ok
}

// TestChurnInvariants drives the Detector through random adds, removals
// and replacements over inputs that are not families of copies: lightly
// edited copies (chains: a resembles b, b resembles c, a not c), exact
// copies, short pages differing by numbers and long template pages one
// number apart (fanoutCorpus), replacements that edit a few words, with
// bounds small enough that lists are capped, stopped and refilled. After
// every operation the structures agree with the records and every member
// that did not join through the edit allowance is a copy of its master;
// every Change agrees with the clusters; without bounds the pairs held are
// exactly the similar pairs among the documents stored (as the all-pairs
// computation gives them).
//
// Exact equality with a rebuild does not hold on such inputs, and is not
// asked: online clustering depends on order. A document that arrived
// after a cluster's master but before a member that later became master
// was compared with the master of its time; a member moved out on an
// election is compared with today's masters only, and does not pull in
// documents that arrived after it and founded clusters of their own; a
// trivially changed document keeps its cluster although, placed again,
// it might resemble another master more; a stop signature stays stopped
// and a dense SimHash fingerprint stays out of the Hamming index, where a
// rebuild from fewer documents might do otherwise.
func TestChurnInvariants(t *testing.T) {
	type config struct {
		name string
		opts Options
	}
	var configs []config
	for _, p := range []cluster.Policy{cluster.FirstSeen, cluster.ShortestURL} {
		for _, allow := range []int{0, 3} {
			for _, fanout := range []int{-1, 1, 3} {
				configs = append(configs, config{fmt.Sprintf("hybrid/%s/allow=%d/fanout=%d", p, allow, fanout),
					Options{Master: p, EditAllowance: allow, MaxFanout: fanout}})
			}
		}
	}
	for _, m := range Methods()[1:] {
		configs = append(configs, config{fmt.Sprintf("%s/fanout=2", m), Options{Method: m, MaxFanout: 2}})
	}
	configs = append(configs, config{"hybrid-cosine/fanout=2", Options{Similarity: Cosine, MaxFanout: 2}})
	seeds, ops := long.N(1, 2), long.N(150, 300) // DOPPEL_LONG=1: two seeds of 300 changes
	if testing.Short() {
		seeds, ops = 1, 150
	}
	total := map[string]int{}
	defer func() {
		for _, k := range []string{"remove", "replace", "unchanged", "left", "stayed", "elected", "moved"} {
			if total[k] == 0 {
				t.Errorf("no %q over all runs (%v): the inputs do not test it", k, total)
			}
		}
	}()
	var limits Stats
	var lsh belowThreshold // similar pairs below the Threshold, and those not held
	for _, cf := range configs {
		for seed := range seeds {
			t.Run(fmt.Sprintf("%s/seed=%d", cf.name, seed), func(t *testing.T) {
				r := rand.New(rand.NewPCG(21, uint64(seed)))
				var texts []string
				var family []int
				// Stars: a page and copies of it with one edit each, at
				// different places: copies of the page (resemblance 0.92),
				// not of each other (0.84; close under the allowance).
				for f := range 4 {
					base := randomWords(r, 120)
					texts = append(texts, strings.Join(base, " "))
					family = append(family, f)
					for v := range 4 {
						texts = append(texts, edited(base, 5+v*30))
						family = append(family, f)
					}
				}
				for _, doc := range fanoutCorpus(r) {
					texts = append(texts, doc.Text)
					family = append(family, -1)
				}
				for i := range 60 { // more pages that share signatures across clusters, so that keys stop
					texts = append(texts, fmt.Sprintf("document number %d about things and more things %d", 1000+i, i%7))
					family = append(family, -1)
				}
				c := &churn{opts: cf.opts, texts: texts, family: family, ids: 80, ops: ops, mutate: true, seed: uint64(seed)}
				c.each = func(t *testing.T, d *Detector, stored map[string]Document, op int, ch *Change) {
					if ch != nil {
						checkChange(t, d, *ch)
					}
					if cf.opts.MaxFanout < 0 && (op%25 == 24 || op == c.ops-1) {
						below, missed := checkPairs(t, d)
						lsh.Add(int64(below), int64(missed))
					}
				}
				d, _ := c.run(t)
				tally(total, d.Stats())
				st := d.Stats()
				limits.Capped += st.Capped
				limits.StopKeys += st.StopKeys
			})
		}
	}
	if limits.Capped == 0 || limits.StopKeys == 0 {
		t.Errorf("limits never reached (%+v): the inputs do not test refills and stop keys", limits)
	}
	if lsh.pairs.Load() == 0 || 20*lsh.missed.Load() > lsh.pairs.Load() {
		t.Errorf("%d of %d similar pairs below the threshold (checked after every 25 changes) not held, want at most 5 %%", lsh.missed.Load(), lsh.pairs.Load())
	}
}

// belowThreshold counts, over checks run in parallel, the similar pairs
// below the Threshold and those of them not held.
type belowThreshold struct{ pairs, missed atomic.Int64 }

// Add counts one check's pairs.
func (b *belowThreshold) Add(pairs, missed int64) {
	b.pairs.Add(pairs)
	b.missed.Add(missed)
}

// checkChange checks a Change against the clusters right after it: the
// cluster's master, and the moved members still where they went when no
// later move took them elsewhere.
func checkChange(t *testing.T, d *Detector, ch Change) {
	t.Helper()
	c, ok := d.Cluster(ch.Cluster)
	switch {
	case ch.Cluster == "":
	case ch.Left && ch.Master == "" && ch.Result.Cluster == ch.Cluster:
		// The document was alone and founded a cluster again, which got
		// the id of the one it left.
	case ok && c.Master.ID != ch.Master && !ch.Result.NewMaster:
		t.Fatalf("change %+v: the cluster's master is %s", ch, c.Master.ID)
	case !ok && ch.Master != "":
		t.Fatalf("change %+v: the cluster is gone", ch)
	case ch.Elected && !ch.WasMaster:
		t.Fatalf("change %+v: elected, but the document was not the master", ch)
	}
	for _, m := range ch.Moved {
		if m.Pairs != nil || m.ID == ch.ID {
			t.Fatalf("moved %+v", m)
		}
		if m.Cluster == ch.Cluster && !m.Edited {
			t.Fatalf("moved %+v back into its cluster, not edited", m)
		}
	}
	if ch.Result.ID != "" {
		got, _ := d.clusters.Of(ch.ID)
		if got != ch.Result.Cluster {
			t.Fatalf("change %+v: the document is in %s", ch, got)
		}
	}
}

// checkPairs checks that the pairs held are similar pairs among the
// documents stored, and that they are every similar pair at the
// Threshold. Pairs below it (the edit allowance) are found when a
// signature is shared — by LSH with probability 1−(1−J⁸)¹⁶, 0.95 at 0.8 —
// so it returns how many there are and how many are not held.
func checkPairs(t *testing.T, d *Detector) (below, missed int) {
	t.Helper()
	d.mu.RLock()
	defer d.mu.RUnlock()
	for i, a := range d.docs {
		if a == nil {
			continue
		}
		for j := range i {
			b := d.docs[j]
			if b == nil {
				continue
			}
			score, similar := d.match(a, b)
			similar = similar && !a.unsignable && !b.unsignable
			held := slices.Contains(d.adj[i], int32(j))
			switch {
			case held && !similar:
				t.Fatalf("%s–%s: pair held, not similar (%.3f)", a.member.ID, b.member.ID, score)
			case similar && score < d.opts.Threshold:
				below++
				if !held {
					missed++
				}
			case similar && !held:
				t.Fatalf("%s–%s: similar (%.3f), pair not held", a.member.ID, b.member.ID, score)
			}
		}
	}
	return below, missed
}
