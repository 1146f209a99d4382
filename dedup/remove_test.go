package dedup

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/doppel-search/doppel/dedup/cluster"
)

// words returns n distinct words.
func words(n int) []string { return slices.Clone(vocab[:n]) }

// edited returns text (as words) with the words at the positions given
// replaced by words of their own, so that documents edited at different
// positions differ there.
func edited(base []string, at ...int) string {
	w := slices.Clone(base)
	for _, i := range at {
		w[i] = fmt.Sprintf("edit%cx", 'a'+i%26) + strings.Repeat("q", i/26)
	}
	return strings.Join(w, " ")
}

func mustAdd(t *testing.T, d *Detector, doc Document) Result {
	t.Helper()
	r, err := d.Add(doc)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustRemove(t *testing.T, d *Detector, id string) Change {
	t.Helper()
	ch, err := d.Remove(id)
	if err != nil {
		t.Fatal(err)
	}
	checkStructures(t, d)
	return ch
}

func mustReplace(t *testing.T, d *Detector, doc Document) Change {
	t.Helper()
	ch, err := d.Replace(doc)
	if err != nil {
		t.Fatal(err)
	}
	checkStructures(t, d)
	return ch
}

// members returns the members of cluster id, master first (marked *),
// then in arrival order.
func members(d *Detector, id cluster.ID) string {
	c, ok := d.Cluster(id)
	if !ok {
		return "(gone)"
	}
	out := []string{c.Master.ID + "*"}
	for _, m := range c.Members {
		if m.ID != c.Master.ID {
			out = append(out, m.ID)
		}
	}
	return strings.Join(out, " ")
}

// TestRemoveElects: removing a member changes nothing else; removing the
// master elects the member the policy prefers; removing the last member
// ends the cluster; a removed id can come back.
func TestRemoveElects(t *testing.T) {
	text := strings.Join(words(80), " ")
	for _, p := range []cluster.Policy{cluster.FirstSeen, cluster.ShortestURL} {
		t.Run(p.String(), func(t *testing.T) {
			d, err := New(nil, Options{Master: p})
			if err != nil {
				t.Fatal(err)
			}
			urls := map[string]string{"a": "http://x/aaaa", "b": "http://x/bbbbbb", "c": "http://x/cc", "e": "http://x/e"}
			var cid cluster.ID
			for _, id := range []string{"a", "b", "c", "e"} {
				cid = mustAdd(t, d, Document{ID: id, URL: urls[id], Text: text}).Cluster
			}
			other := mustAdd(t, d, Document{ID: "z", Text: strings.Join(words(200)[100:], " ")})
			first := map[cluster.Policy]string{cluster.FirstSeen: "a", cluster.ShortestURL: "e"}[p]
			second := map[cluster.Policy]string{cluster.FirstSeen: "b", cluster.ShortestURL: "c"}[p]
			if got := members(d, cid); !strings.HasPrefix(got, first+"*") {
				t.Fatalf("cluster %s, want master %s", got, first)
			}
			// A member leaves.
			leaver := map[cluster.Policy]string{cluster.FirstSeen: "e", cluster.ShortestURL: "a"}[p]
			ch := mustRemove(t, d, leaver)
			if want := (Change{ID: leaver, Cluster: cid, Master: first}); !sameChange(ch, want) {
				t.Errorf("member removed: %+v, want %+v", ch, want)
			}
			// The master leaves: an election.
			ch = mustRemove(t, d, first)
			if want := (Change{ID: first, Cluster: cid, WasMaster: true, Master: second, Elected: true}); !sameChange(ch, want) {
				t.Errorf("master removed: %+v, want %+v", ch, want)
			}
			if st := d.Stats(); st.Documents != 3 || st.Clusters != 2 || st.Duplicates != 1 || st.Removed != 2 || st.Elections != 1 || st.Pairs != 1 {
				t.Errorf("Stats = %+v", st)
			}
			// The founder comes back: it joins the cluster it founded, which
			// kept its id.
			if r := mustAdd(t, d, Document{ID: first, URL: urls[first], Text: text}); r.Cluster != cid || !r.Duplicate {
				t.Errorf("founder back: %+v, want it in %s", r, cid)
			}
			for _, id := range []string{"a", "b", "c", "e"} {
				if id != leaver {
					mustRemove(t, d, id)
				}
			}
			if _, ok := d.Cluster(cid); ok {
				t.Error("the cluster outlived its members")
			}
			if st := d.Stats(); st.Documents != 1 || st.Clusters != 1 || st.Pairs != 0 || len(d.Assignments()) != 1 || d.Assignments()[0].Cluster != other.Cluster {
				t.Errorf("after removing all copies: Stats %+v, assignments %v", st, d.Assignments())
			}
			if _, err := d.Remove("a"); !errors.Is(err, ErrUnknownID) {
				t.Errorf("Remove of a removed id: %v, want ErrUnknownID", err)
			}
		})
	}
}

// sameChange compares changes without their Results.
func sameChange(a, b Change) bool {
	return a.ID == b.ID && a.Cluster == b.Cluster && a.WasMaster == b.WasMaster && a.Master == b.Master &&
		a.Elected == b.Elected && a.Left == b.Left && len(a.Moved) == len(b.Moved)
}

// TestRemoveElectsACopyOfAll: the policy prefers a, but b is not a copy
// of a; c, which both are copies of, is elected and the cluster stays
// whole.
func TestRemoveElectsACopyOfAll(t *testing.T) {
	base := words(300)
	d, err := New(nil, Options{Master: cluster.ShortestURL})
	if err != nil {
		t.Fatal(err)
	}
	m := mustAdd(t, d, Document{ID: "m", URL: "http://x/m", Text: strings.Join(base, " ")})
	mustAdd(t, d, Document{ID: "a", URL: "http://x/aa", Text: edited(base, 30, 60, 150)})
	mustAdd(t, d, Document{ID: "b", URL: "http://x/bbb", Text: edited(base, 150, 240, 270)})
	mustAdd(t, d, Document{ID: "c", URL: "http://x/cccc", Text: edited(base, 150)})
	if got := members(d, m.Cluster); got != "m* a b c" {
		t.Fatalf("cluster %s", got)
	}
	pa, _ := d.Prepare(Document{ID: "a", Text: edited(base, 30, 60, 150)})
	pb, _ := d.Prepare(Document{ID: "b", Text: edited(base, 150, 240, 270)})
	if s, _ := d.match(pa.rec, pb.rec); s >= 0.9 {
		t.Fatalf("a and b resemble each other at %.3f: the case needs them apart", s)
	}
	ch := mustRemove(t, d, "m")
	if ch.Master != "c" || !ch.Elected || len(ch.Moved) != 0 {
		t.Errorf("change %+v, want c elected, nothing moved", ch)
	}
	if got := members(d, m.Cluster); got != "c* a b" {
		t.Errorf("cluster %s, want c* a b", got)
	}
}

// TestRemoveSplits: a and b are copies of the master m but not of each
// other. When m leaves nobody qualifies: the member the policy prefers
// keeps the cluster and the other is inserted again — alone, or, under an
// edit allowance it meets, back in the cluster as an edited member.
func TestRemoveSplits(t *testing.T) {
	base := words(200)
	a, b := edited(base, 20), edited(base, 100, 150)
	for _, tc := range []struct {
		name  string
		allow int
		back  bool // b returns to the cluster, edited
	}{
		{"resemblance alone", 0, false},
		{"edit allowance", 3, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := New(nil, Options{EditAllowance: tc.allow})
			if err != nil {
				t.Fatal(err)
			}
			m := mustAdd(t, d, Document{ID: "m", Text: strings.Join(base, " ")})
			if ra, rb := mustAdd(t, d, Document{ID: "a", Text: a}), mustAdd(t, d, Document{ID: "b", Text: b}); ra.Cluster != m.Cluster || rb.Cluster != m.Cluster || ra.Edited || rb.Edited {
				t.Fatalf("a %+v, b %+v: want copies of m", ra, rb)
			}
			ch := mustRemove(t, d, "m")
			if ch.Master != "a" || !ch.Elected || len(ch.Moved) != 1 || ch.Moved[0].ID != "b" {
				t.Fatalf("change %+v, want a kept, b moved", ch)
			}
			mv := ch.Moved[0]
			if tc.back {
				if mv.Cluster != m.Cluster || mv.Master != "a" || !mv.Edited || !mv.Duplicate {
					t.Errorf("b moved to %+v, want back with a, edited", mv)
				}
				if got := members(d, m.Cluster); got != "a* b" {
					t.Errorf("cluster %s", got)
				}
			} else {
				if mv.Cluster == m.Cluster || mv.Master != "b" || mv.Duplicate || mv.Pairs != nil {
					t.Errorf("b moved to %+v, want a cluster of its own", mv)
				}
				if got := members(d, m.Cluster); got != "a*" {
					t.Errorf("cluster %s", got)
				}
			}
			// a and b are a pair only through the allowance; it is kept.
			if st := d.Stats(); st.Moved != 1 || st.Elections != 1 || st.Pairs != min(tc.allow, 1) {
				t.Errorf("Stats %+v: want 1 moved, 1 election, %d pairs", st, min(tc.allow, 1))
			}
		})
	}
}

// TestReplace covers each way Update goes.
func TestReplace(t *testing.T) {
	base, other := words(300), words(600)[300:]
	text, otherText := strings.Join(base, " "), strings.Join(other, " ")
	setup := func(t *testing.T, opts Options) *Detector {
		d, err := New(nil, opts)
		if err != nil {
			t.Fatal(err)
		}
		mustAdd(t, d, Document{ID: "m", URL: "http://x/m", Text: text})
		mustAdd(t, d, Document{ID: "a", URL: "http://x/aa", Text: edited(base, 10)})
		mustAdd(t, d, Document{ID: "b", URL: "http://x/bbb", Text: edited(base, 200)})
		mustAdd(t, d, Document{ID: "o", URL: "http://x/o", Text: otherText})
		return d
	}
	cid := cluster.IDFor("m")
	t.Run("unchanged", func(t *testing.T) {
		d := setup(t, Options{})
		ch := mustReplace(t, d, Document{ID: "a", URL: "http://x/aa", Text: strings.ToUpper(edited(base, 10)) + " !!!"})
		if ch.Left || ch.Master != "m" || ch.Result.Cluster != cid || !ch.Result.Duplicate || ch.Result.Pairs != nil {
			t.Errorf("change %+v", ch)
		}
		if st := d.Stats(); st.Replaced != 1 || st.Unchanged != 1 || st.Pairs != 3 {
			t.Errorf("Stats %+v", st)
		}
	})
	t.Run("member, trivial", func(t *testing.T) {
		d := setup(t, Options{})
		ch := mustReplace(t, d, Document{ID: "a", Text: edited(base, 10, 100)})
		if ch.Left || ch.Elected || ch.Master != "m" || ch.Result.Cluster != cid || ch.Result.NewMaster || len(ch.Result.Pairs) != 2 {
			t.Errorf("change %+v", ch)
		}
		if got := members(d, cid); got != "m* a b" || d.Assignments()[1].ID != "a" {
			t.Errorf("cluster %s, assignments %v: a should keep its place", got, d.Assignments())
		}
	})
	t.Run("member, trivial, edited", func(t *testing.T) {
		short := words(60)
		d, err := New(nil, Options{EditAllowance: 3})
		if err != nil {
			t.Fatal(err)
		}
		mustAdd(t, d, Document{ID: "m", Text: strings.Join(short, " ")})
		mustAdd(t, d, Document{ID: "a", Text: strings.Join(short, " ")})
		ch := mustReplace(t, d, Document{ID: "a", Text: edited(short, 30)})
		if ch.Left || !ch.Result.Edited || !d.Assignments()[1].Edited {
			t.Errorf("change %+v: want a kept, edited", ch)
		}
		ch = mustReplace(t, d, Document{ID: "a", Text: strings.Join(short, " ") + " more"})
		if ch.Left || ch.Result.Edited {
			t.Errorf("change %+v: want a kept, a copy again", ch)
		}
	})
	t.Run("member, away", func(t *testing.T) {
		d := setup(t, Options{})
		ch := mustReplace(t, d, Document{ID: "a", URL: "http://x/aa", Text: otherText + " extra"})
		if !ch.Left || ch.Elected || ch.Master != "m" || ch.Result.Cluster != cluster.IDFor("o") || ch.Result.Master != "o" {
			t.Errorf("change %+v: want a in o's cluster", ch)
		}
		if as := d.Assignments(); as[len(as)-1].ID != "a" {
			t.Errorf("a did not arrive anew: %v", as)
		}
		if st := d.Stats(); st.Left != 1 || st.Documents != 4 || st.Clusters != 2 {
			t.Errorf("Stats %+v", st)
		}
	})
	t.Run("master, trivial", func(t *testing.T) {
		d := setup(t, Options{})
		ch := mustReplace(t, d, Document{ID: "m", Text: edited(base, 100)})
		if ch.Left || ch.Elected || ch.Master != "m" || !ch.WasMaster || ch.Result.Master != "m" {
			t.Errorf("change %+v: want m kept as master", ch)
		}
	})
	t.Run("master, away", func(t *testing.T) {
		d := setup(t, Options{})
		ch := mustReplace(t, d, Document{ID: "m", Text: "something else entirely, about the canteen and its menu of the week"})
		if !ch.Left || !ch.Elected || ch.Master != "a" || ch.Result.Duplicate || ch.Result.Master != "m" {
			t.Errorf("change %+v: want a elected, m alone", ch)
		}
		if got := members(d, cid); got != "a* b" {
			t.Errorf("cluster %s", got)
		}
	})
	t.Run("master, members no longer copies", func(t *testing.T) {
		// m's new version is a near-duplicate of its old one, but b is
		// not a copy of it: m hands over to a and arrives anew, a copy of
		// a.
		d, err := New(nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		mustAdd(t, d, Document{ID: "m", Text: text})
		mustAdd(t, d, Document{ID: "a", Text: edited(base, 10)})
		mustAdd(t, d, Document{ID: "b", Text: edited(base, 100, 200)})
		ch := mustReplace(t, d, Document{ID: "m", Text: edited(base, 150, 250)})
		if !ch.Left || !ch.Elected || ch.Master != "a" || ch.Result.Cluster != cid || ch.Result.Master != "a" {
			t.Errorf("change %+v: want a elected, m back as a member", ch)
		}
	})
	t.Run("member takes over", func(t *testing.T) {
		t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		d, err := New(nil, Options{Master: cluster.MostRecent})
		if err != nil {
			t.Fatal(err)
		}
		mustAdd(t, d, Document{ID: "m", Time: t0.Add(time.Hour), Text: text})
		mustAdd(t, d, Document{ID: "a", Time: t0, Text: edited(base, 10)})
		ch := mustReplace(t, d, Document{ID: "a", Time: t0.Add(2 * time.Hour), Text: edited(base, 10, 20)})
		if ch.Left || !ch.Result.NewMaster || ch.Result.Demoted != "m" || ch.Master != "a" || ch.Result.Master != "a" {
			t.Errorf("change %+v: want a to take over from m", ch)
		}
	})
	t.Run("not stored", func(t *testing.T) {
		d := setup(t, Options{})
		ch := mustReplace(t, d, Document{ID: "new", Text: text})
		if ch.Cluster != "" || ch.Result.Cluster != cid || !ch.Result.Duplicate {
			t.Errorf("change %+v: want new added to m's cluster", ch)
		}
	})
	t.Run("empty", func(t *testing.T) {
		d := setup(t, Options{})
		ch := mustReplace(t, d, Document{ID: "b", Text: "   "})
		if !ch.Left || !ch.Result.Unsignable || ch.Result.Duplicate {
			t.Errorf("change %+v: want b alone, unsignable", ch)
		}
		if st := d.Stats(); st.Unsignable != 1 {
			t.Errorf("Stats %+v", st)
		}
		ch = mustReplace(t, d, Document{ID: "b", Text: edited(base, 200)})
		if !ch.Left || ch.Result.Cluster != cid {
			t.Errorf("change %+v: want b back", ch)
		}
		if st := d.Stats(); st.Unsignable != 0 {
			t.Errorf("Stats %+v", st)
		}
	})
	if _, err := (&Detector{}).Replace(Document{}); !errors.Is(err, ErrEmptyID) {
		t.Errorf("Replace without id: %v", err)
	}
}

// TestFingerprint: the content hash ignores what the Detector ignores;
// Compare tells unchanged, trivial and real changes apart.
func TestFingerprint(t *testing.T) {
	d, err := New(nil, Options{Terms: featuresStripDates()})
	if err != nil {
		t.Fatal(err)
	}
	base := words(120)
	fp := func(text string) Fingerprint {
		p, err := d.Prepare(Document{ID: "x", Text: text})
		if err != nil {
			t.Fatal(err)
		}
		return p.Fingerprint()
	}
	text := strings.Join(base, " ")
	old := fp(text + " updated 3 March 2026")
	k := d.Options().HammingK
	for _, tc := range []struct {
		name string
		text string
		want Difference
	}{
		{"markup and case", strings.ToUpper(text) + ", updated: 4 April 2026.", Unchanged},
		{"one word", edited(base, 50) + " updated 3 March 2026", Trivial},
		{"another page", strings.Join(words(240)[120:], " "), Changed},
	} {
		if got := fp(tc.text).Compare(old, k); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	if (Fingerprint{Content: 1}).Compare(Fingerprint{Content: 2}, 3) != Changed {
		t.Error("without SimHash a new content is not Changed")
	}
	mustAdd(t, d, Document{ID: "x", Text: text})
	if got, ok := d.Fingerprint("x"); !ok || got != fp(text) {
		t.Errorf("stored fingerprint %v, %v; want %v", got, ok, fp(text))
	}
	if _, ok := d.Fingerprint("y"); ok {
		t.Error("fingerprint of a document not stored")
	}
	if Trivial.String() != "trivial" || Difference(7).String() != "Difference(7)" {
		t.Error("Difference.String")
	}
}

// TestRefreshAfterChurn: Refresh after removals and replacements asks
// only for the documents stored, in their latest version, rebuilds lists
// that agree with the records, keeps the clusters, and later copies still
// find them.
func TestRefreshAfterChurn(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	texts, family := cliqueTexts(r, 3, 4, 4, false)
	c := &churn{opts: Options{MaxFanout: 1}, texts: texts, family: family, ids: 16, ops: 80, seed: 4}
	d, stored := c.run(t)
	before := partition(d)
	asked := map[string]bool{}
	err := d.Refresh(context.Background(), d.Table(), func(id string) (Document, error) {
		doc, ok := stored[id]
		if !ok || asked[id] {
			return Document{}, fmt.Errorf("asked for %s (stored %v, asked before %v)", id, ok, asked[id])
		}
		asked[id] = true
		return doc, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != len(stored) {
		t.Errorf("Refresh asked for %d documents, %d stored", len(asked), len(stored))
	}
	checkStructures(t, d)
	if got := partition(d); !maps.Equal(got, before) {
		t.Error("Refresh changed the clusters")
	}
	for id, doc := range stored {
		res := mustAdd(t, d, Document{ID: "copy-of-" + id, Text: doc.Text})
		if doc.Text != "" && !strings.HasPrefix(before[id], res.Master+"*") {
			t.Errorf("a copy of %s joined %s, want the cluster %q", id, res.Master, before[id])
		}
	}
	checkStructures(t, d)
}

// TestContentHashStream: contentHash hashes the stream a snapshot's
// fingerprints were made from (each token then 0, each part then 1), so
// fingerprints stay comparable across versions.
func TestContentHashStream(t *testing.T) {
	tests := [][3][]string{
		{nil, nil, nil},
		{{"a", "b"}, nil, nil},
		{{"a"}, {"b"}, {"c"}},
		{{"ab"}, nil, nil}, // not {"a", "b"}
		{nil, {"a", "b"}, {"title=x"}},
	}
	seen := map[uint64]int{}
	for i, tt := range tests {
		h := xxhash.New()
		for _, part := range tt {
			for _, tok := range part {
				h.WriteString(tok)
				h.Write([]byte{0})
			}
			h.Write([]byte{1})
		}
		got := contentHash(tt[0], tt[1], tt[2])
		if got != h.Sum64() {
			t.Errorf("case %d: contentHash = %x, want %x", i, got, h.Sum64())
		}
		if j, dup := seen[got]; dup {
			t.Errorf("cases %d and %d hash alike", j, i)
		}
		seen[got] = i
	}
}
