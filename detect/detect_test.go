package detect

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/detect/api"
)

// words is the vocabulary of the test texts.
var words = strings.Fields(`budget meeting office leave travel policy report annual staff holiday
	request manager approve form review quarter project team member account invoice payment
	schedule training course safety building access card parking desk printer network laptop
	password support ticket contract supplier order delivery stock warehouse customer service`)

// text returns a text of n words drawn with seed.
func text(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]string, n)
	for i := range out {
		out[i] = words[r.IntN(len(words))]
	}
	return strings.Join(out, " ")
}

// edit returns t with its word i replaced: a near-duplicate of t.
func edit(t string, i int) string {
	w := strings.Fields(t)
	w[i%len(w)] = fmt.Sprintf("edit%d", i)
	return strings.Join(w, " ")
}

func open(t *testing.T, dir string) *Service {
	t.Helper()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func put(t *testing.T, s *Service, docs ...api.Document) []api.Answer {
	t.Helper()
	a, err := s.Put(context.Background(), docs)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestPlaces: copies share a cluster and a master, the newest copy takes
// the cluster over and the old master is reported demoted; the same
// document again changes nothing; a removed master hands the cluster on.
func TestPlaces(t *testing.T) {
	s := open(t, t.TempDir())
	defer s.Close()
	base, other := text(1, 200), text(2, 200)
	got := put(t, s,
		api.Document{ID: "a", Text: base, Date: "2024-01-01"},
		api.Document{ID: "b", Text: edit(base, 7), Date: "2023-01-01"},
		api.Document{ID: "c", Text: other},
	)
	if got[0].Status != api.Added || !got[0].Canonical || got[0].Members != 1 {
		t.Errorf("a: %+v; want added, alone, canonical", got[0])
	}
	if got[1].Cluster != got[0].Cluster || got[1].Master != "a" || got[1].Members != 2 || got[1].Canonical || len(got[1].Changes) != 0 {
		t.Errorf("b (an older copy of a): %+v; want a's cluster, master a, 2 members, no changes", got[1])
	}
	if got[2].Cluster == got[0].Cluster || got[2].Members != 1 {
		t.Errorf("c (another text): %+v; want a cluster of its own", got[2])
	}

	// A newer copy takes over: a is demoted, b re-pointed.
	d := put(t, s, api.Document{ID: "d", Text: edit(base, 11), Date: "2025-01-01"})[0]
	wantChanges := []api.Change{
		{ID: "a", Kind: api.Demoted, Cluster: got[0].Cluster, Master: "d"},
		{ID: "b", Kind: api.Repointed, Cluster: got[0].Cluster, Master: "d"},
	}
	if !d.Canonical || d.Members != 3 || fmt.Sprint(d.Changes) != fmt.Sprint(wantChanges) {
		t.Errorf("d (newest copy): %+v\nwant canonical, 3 members, changes %+v", d, wantChanges)
	}

	// The same fields again: unchanged, nothing logged.
	last := s.store.last()
	again := put(t, s, api.Document{ID: "b", Text: edit(base, 7), Date: "2023-01-01"})[0]
	if again.Status != api.Unchanged || again.Master != "d" || len(again.Changes) != 0 || s.store.last() != last {
		t.Errorf("b again: %+v, log %d → %d; want unchanged under d, nothing logged", again, last, s.store.last())
	}

	// The master leaves: the newest remaining copy, a, is elected.
	rm, err := s.Delete(context.Background(), "d")
	if err != nil {
		t.Fatal(err)
	}
	if rm.Status != api.Removed || len(rm.Changes) != 2 || rm.Changes[0] != (api.Change{ID: "a", Kind: api.Promoted, Cluster: got[0].Cluster, Master: "a", Canonical: true}) {
		t.Errorf("removing d: %+v; want a promoted, b re-pointed", rm)
	}
	if _, err := s.Get("d"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get(d) after removal: %v; want ErrNotFound", err)
	}
	if _, err := s.Delete(context.Background(), "d"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Delete(d) twice: %v; want ErrNotFound", err)
	}

	// b gets another text: it leaves a's cluster.
	up := put(t, s, api.Document{ID: "b", Text: text(3, 200)})[0]
	if up.Status != api.Updated || up.Cluster == got[0].Cluster || up.Members != 1 {
		t.Errorf("b with a new text: %+v; want updated, alone", up)
	}
	if a, _ := s.Get("a"); a.Members != 1 || !a.Canonical {
		t.Errorf("a after b left: %+v; want alone", a)
	}
	if st := s.Stats(); st.Documents != 3 || st.Clusters != 3 {
		t.Errorf("stats %+v; want 3 documents in 3 clusters", st)
	}
}

// index is an external index kept in step only by what the service
// answers: each answer's document and its changes.
type index map[string]api.Change

func (ix index) apply(a api.Answer) {
	if a.Status == api.Removed {
		delete(ix, a.ID)
	} else {
		ix[a.ID] = api.Change{ID: a.ID, Cluster: a.Cluster, Master: a.Master, Canonical: a.Canonical}
	}
	for _, c := range a.Changes {
		c.Kind = ""
		ix[c.ID] = c
	}
}

// TestChangesKeepIndexInStep: an index that applies only the answers and
// their changes holds, after every request of a random run of additions,
// updates (new dates, new texts) and removals among copies, every
// document's place as Get tells it.
func TestChangesKeepIndexInStep(t *testing.T) {
	s := open(t, t.TempDir())
	defer s.Close()
	r := rand.New(rand.NewPCG(7, 7))
	bases := []string{text(10, 120), text(11, 120), text(12, 120)}
	ix := index{}
	ids := map[string]bool{}
	for step := range 400 {
		id := fmt.Sprintf("doc%d", r.IntN(40))
		var answers []api.Answer
		if ids[id] && r.IntN(4) == 0 {
			a, err := s.Delete(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			delete(ids, id)
			answers = []api.Answer{a}
		} else {
			doc := api.Document{ID: id, Text: edit(bases[r.IntN(len(bases))], r.IntN(120))}
			if r.IntN(2) == 0 {
				doc.Date = fmt.Sprintf("20%02d-01-01", r.IntN(30))
			}
			if r.IntN(8) == 0 {
				doc.Text = text(uint64(1000+step), 120)
			}
			answers = put(t, s, doc)
			ids[id] = true
		}
		for _, a := range answers {
			ix.apply(a)
		}
		if len(ix) != len(ids) {
			t.Fatalf("step %d: the index holds %d documents, the service %d", step, len(ix), len(ids))
		}
		for id := range ids {
			want, err := s.Get(id)
			if err != nil {
				t.Fatal(err)
			}
			if got := ix[id]; got.Cluster != want.Cluster || got.Master != want.Master || got.Canonical != want.Canonical {
				t.Fatalf("step %d: the index has %s in %s under %s (canonical %v); the service says %s under %s (canonical %v)",
					step, id, got.Cluster, got.Master, got.Canonical, want.Cluster, want.Master, want.Canonical)
			}
		}
	}
	if st := s.Stats(); st.Clusters >= st.Documents {
		t.Errorf("stats %+v: no document shares a cluster; the run tested nothing", st)
	}
}

// TestRestart: a service closed and opened again, or opened after a
// snapshot and more changes, answers as before.
func TestRestart(t *testing.T) {
	for _, every := range []int{1_000_000, 7} {
		t.Run(fmt.Sprint("snapshot every ", every), func(t *testing.T) {
			dir := t.TempDir()
			s, err := Open(dir, Options{SnapshotEvery: every})
			if err != nil {
				t.Fatal(err)
			}
			var docs []api.Document
			for i := range 30 {
				docs = append(docs, api.Document{ID: fmt.Sprint("d", i), Text: edit(text(uint64(i%4), 100), i), Date: fmt.Sprintf("2020-01-%02d", i+1)})
			}
			put(t, s, docs[:20]...)
			if _, err := s.Delete(context.Background(), "d3"); err != nil {
				t.Fatal(err)
			}
			put(t, s, docs[20:]...)
			want := places(t, s, docs)
			// Not closed: the process stops without a last snapshot.
			s.store.close()
			s.d.Close()

			s2, err := Open(dir, Options{SnapshotEvery: every})
			if err != nil {
				t.Fatal(err)
			}
			defer s2.Close()
			if got := places(t, s2, docs); got != want {
				t.Errorf("after a restart:\n%s\nbefore:\n%s", got, want)
			}
			if a := put(t, s2, docs[5])[0]; a.Status != api.Unchanged {
				t.Errorf("d5 again after the restart: %s; want unchanged", a.Status)
			}
		})
	}
}

// places returns where each of docs is, one line each.
func places(t *testing.T, s *Service, docs []api.Document) string {
	t.Helper()
	var b strings.Builder
	for _, d := range docs {
		a, err := s.Get(d.ID)
		if errors.Is(err, ErrNotFound) {
			fmt.Fprintf(&b, "%s: gone\n", d.ID)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s: %s master %s members %d\n", d.ID, a.Cluster, a.Master, a.Members)
	}
	return b.String()
}
