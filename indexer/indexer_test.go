package indexer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/dedup/cluster"
)

type step struct {
	doc Doc
	res dedup.Result
}

func mkDoc(id, body string) Doc {
	return Doc{
		ID: id, URL: "http://intra.example/" + id, Host: "intra.example",
		Title: "Title " + id, Headings: []string{"head " + id, "sub " + id},
		Body:         body,
		LastModified: time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC),
		Groups:       []string{"staff", "g-" + id[:1]}, Simhash: 0xdeadbeef00000001,
	}
}

// sequence: two clusters of three documents; in cluster "a" the third
// document takes over as master (NewMaster).
func sequence() []step {
	res := func(id, cl, master string, dup, newMaster bool) dedup.Result {
		return dedup.Result{ID: id, Cluster: cluster.ID(cl), Master: master, Duplicate: dup, NewMaster: newMaster}
	}
	return []step{
		{mkDoc("a1", "printer manual chapter one toner"), res("a1", "a", "a1", false, false)},
		{mkDoc("b1", "holiday calendar vacation policy"), res("b1", "b", "b1", false, false)},
		{mkDoc("a2", "printer manual chapter one toner copy"), res("a2", "a", "a1", true, false)},
		{mkDoc("b2", "holiday calendar vacation policy print"), res("b2", "b", "b1", true, false)},
		{mkDoc("a3", "printer manual chapter one toner newest"), res("a3", "a", "a3", true, true)},
		{mkDoc("b3", "holiday calendar vacation policy old"), res("b3", "b", "b1", true, false)},
	}
}

func count(t *testing.T, x *Index, q query.Query) (int, []string) {
	t.Helper()
	req := bleve.NewSearchRequestOptions(q, 100, 0, false)
	req.SortBy([]string{"_id"})
	res, err := x.Bleve().Search(req)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, h := range res.Hits {
		ids = append(ids, h.ID)
	}
	return int(res.Total), ids
}

// docsOnly matches every searchable document (not member records).
func docsOnly() query.Query { return documents() }

func diffsOnly() query.Query {
	q := bleve.NewBoolFieldQuery(true)
	q.SetField(FieldDiff)
	return q
}

func mastersOf(cl string) query.Query {
	m := bleve.NewBoolFieldQuery(true)
	m.SetField(FieldMaster)
	c := bleve.NewTermQuery(cl)
	c.SetField(FieldCluster)
	return bleve.NewConjunctionQuery(m, c)
}

type want struct {
	indexed, visible int
	members          map[string][]Member // by cluster, in Members order
}

func wantFor(p Policy) want {
	in := p != Skip
	w := want{indexed: 6, visible: 6}
	switch p {
	case Skip:
		w.indexed, w.visible = 2, 2
	case Hidden:
		w.visible = 2
	}
	m := func(id string, indexed, master bool) Member {
		return Member{ID: id, URL: "http://intra.example/" + id, Title: "Title " + id, Indexed: indexed, Master: master}
	}
	w.members = map[string][]Member{
		"a": {m("a3", true, true), m("a1", in, false), m("a2", in, false)},
		"b": {m("b1", true, true), m("b2", in, false), m("b3", in, false)},
	}
	return w
}

func check(t *testing.T, x *Index, p Policy) {
	t.Helper()
	w := wantFor(p)
	if n, ids := count(t, x, docsOnly()); n != w.indexed {
		t.Errorf("indexed docs = %d %v, want %d", n, ids, w.indexed)
	}
	if n, ids := count(t, x, x.Searchable(bleve.NewMatchAllQuery())); n != w.visible {
		t.Errorf("visible docs = %d %v, want %d", n, ids, w.visible)
	}
	for cl, wantMaster := range map[string]string{"a": "a3", "b": "b1"} {
		if n, ids := count(t, x, mastersOf(cl)); n != 1 || ids[0] != wantMaster {
			t.Errorf("cluster %s: searchable masters %v, want [%s]", cl, ids, wantMaster)
		}
		got, err := x.Members(cl)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(got, w.members[cl], sameMember) {
			t.Errorf("Members(%s) =\n%+v\nwant\n%+v", cl, got, w.members[cl])
		}
	}
	if p != Skip {
		// The demoted master keeps its content and is found as non-master.
		d, err := x.load("a1")
		if err != nil || d == nil {
			t.Fatalf("load a1: %v, %v", d, err)
		}
		exp := mkDoc("a1", "printer manual chapter one toner")
		exp.Cluster, exp.Master = "a", false
		if fmt.Sprint(*d) != fmt.Sprint(exp) {
			t.Errorf("stored a1 =\n%+v\nwant\n%+v", *d, exp)
		}
	}
}

func run(t *testing.T, x *Index, steps []step) {
	t.Helper()
	for _, s := range steps {
		if err := x.Add(context.Background(), s.doc, pl(s.res)); err != nil {
			t.Fatal(err)
		}
	}
	if err := x.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestPolicies(t *testing.T) {
	for _, p := range []Policy{Skip, Hidden, All} {
		// batch=1 demotes a master loaded from the index, batch=200 one
		// still in the pending batch.
		for _, bs := range []int{1, 200} {
			t.Run(fmt.Sprintf("policy=%s/batch=%d", p, bs), func(t *testing.T) {
				x, err := Open(t.TempDir(), Options{Policy: p, BatchSize: bs})
				if err != nil {
					t.Fatal(err)
				}
				defer x.Close()
				run(t, x, sequence())
				check(t, x, p)
				st := x.Stats()
				wantSkipped := 0
				if p == Skip {
					wantSkipped = 3 // a2, b2, b3; the demoted a1 counts in Demoted
				}
				if st.Docs != 6 || st.Masters != 3 || st.Demoted != 1 || st.Skipped != wantSkipped || st.Indexed != 6-wantSkipped || st.Pending != 0 {
					t.Errorf("stats %+v", st)
				}
			})
		}
	}
}

func TestReopen(t *testing.T) {
	for _, p := range []Policy{Skip, Hidden, All} {
		t.Run("policy="+p.String(), func(t *testing.T) {
			dir := t.TempDir()
			x, err := Open(dir, Options{Policy: p})
			if err != nil {
				t.Fatal(err)
			}
			steps := sequence()
			run(t, x, steps[:5])
			// b3 is added but not flushed: Close must flush it.
			if err := x.Add(context.Background(), steps[5].doc, pl(steps[5].res)); err != nil {
				t.Fatal(err)
			}
			if err := x.Close(); err != nil {
				t.Fatal(err)
			}
			if err := x.Close(); !errors.Is(err, ErrClosed) {
				t.Errorf("second Close: %v, want ErrClosed", err)
			}
			x, err = Open(dir, Options{Policy: p})
			if err != nil {
				t.Fatal(err)
			}
			defer x.Close()
			check(t, x, p)

			// A master switch after the restart demotes a master that
			// exists only on disk.
			d := mkDoc("b4", "holiday calendar vacation policy 2025")
			if err := x.Add(context.Background(), d, pl(dedup.Result{ID: "b4", Cluster: "b", Master: "b4", Duplicate: true, NewMaster: true})); err != nil {
				t.Fatal(err)
			}
			run(t, x, nil)
			if n, ids := count(t, x, mastersOf("b")); n != 1 || ids[0] != "b4" {
				t.Errorf("masters of b after switch: %v", ids)
			}
			ms, err := x.Members("b")
			if err != nil {
				t.Fatal(err)
			}
			if len(ms) != 4 || ms[0].ID != "b4" || !ms[0].Master || ms[1].ID != "b1" || ms[1].Master || ms[1].Indexed != (p != Skip) {
				t.Errorf("members of b after switch: %+v", ms)
			}
		})
	}
}

func TestBatches(t *testing.T) {
	x, err := Open(t.TempDir(), Options{Policy: Skip, BatchSize: 50})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	const n = 1000
	for i := range n {
		id := fmt.Sprintf("d%04d", i)
		d := mkDoc(id, fmt.Sprintf("document number %d about topic%d", i, i%7))
		if err := x.Add(context.Background(), d, pl(dedup.Result{ID: id, Cluster: cluster.ID(id), Master: id})); err != nil {
			t.Fatal(err)
		}
		if got := x.Stats().Pending; got != (i+1)%50 {
			t.Fatalf("after %d adds: pending %d", i+1, got)
		}
	}
	if err := x.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := x.Stats(); st.Batches != n/50 || st.Indexed != n {
		t.Errorf("stats %+v", st)
	}
	if got, _ := count(t, x, x.Searchable(bleve.NewMatchAllQuery())); got != n {
		t.Errorf("searchable %d, want %d", got, n)
	}
	q := bleve.NewMatchQuery("topic3")
	q.SetField(FieldBody)
	if got, _ := count(t, x, x.Searchable(q)); got != 143 { // i%7 == 3 for i < 1000
		t.Errorf("topic3 hits %d, want 143", got)
	}
}

func TestSearchSkipsCopy(t *testing.T) {
	x, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	run(t, x, sequence())
	q := bleve.NewMatchQuery("toner")
	q.SetField(FieldBody)
	if n, ids := count(t, x, x.Searchable(q)); n != 1 || ids[0] != "a3" {
		t.Errorf("body:toner = %v, want [a3]", ids)
	}
	// Member records do not match field queries even without Searchable;
	// the copies left out match as difference records only.
	c := bleve.NewTermQuery("a")
	c.SetField(FieldCluster)
	if n, ids := count(t, x, query.NewConjunctionQuery([]query.Query{c, documents()})); n != 1 {
		t.Errorf("cluster:a = %v, want only a3", ids)
	}
	if n, ids := count(t, x, query.NewConjunctionQuery([]query.Query{c, diffsOnly()})); n != 2 {
		t.Errorf("cluster:a difference records = %v, want a1 and a2", ids)
	}
}

func TestTextQueryBoostsTitle(t *testing.T) {
	x, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	body := mkDoc("body", "the quarterly budget report for the finance team")
	title := mkDoc("title", "numbers for the finance team this quarter")
	title.Title = "Budget"
	run(t, x, []step{
		{body, dedup.Result{ID: "body", Cluster: "1", Master: "body"}},
		{title, dedup.Result{ID: "title", Cluster: "2", Master: "title"}},
	})
	req := bleve.NewSearchRequest(x.Searchable(TextQuery("budgets")))
	res, err := x.Bleve().Search(req)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 2 || res.Hits[0].ID != "title" {
		t.Errorf("hits %v, want title first", res.Hits)
	}
}

func TestErrors(t *testing.T) {
	x, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ok := dedup.Result{ID: "x", Cluster: "c", Master: "x"}
	for _, tc := range []struct {
		name string
		doc  Doc
		res  dedup.Result
		want error
	}{
		{"empty id", Doc{}, ok, ErrEmptyID},
		{"reserved", Doc{ID: memberPrefix + "x"}, ok, ErrReserved},
		{"mismatch", Doc{ID: "y"}, ok, ErrMismatch},
		{"no cluster", Doc{ID: "x"}, dedup.Result{ID: "x"}, ErrCluster},
	} {
		if err := x.Add(context.Background(), tc.doc, pl(tc.res)); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := x.Add(ctx, Doc{ID: "x"}, pl(ok)); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled Add: %v", err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	if err := x.Add(context.Background(), Doc{ID: "x"}, pl(ok)); !errors.Is(err, ErrClosed) {
		t.Errorf("Add after Close: %v", err)
	}
	if _, err := Open(t.TempDir(), Options{Policy: 7}); !errors.Is(err, ErrPolicy) {
		t.Errorf("bad policy: %v", err)
	}
	if _, err := Open(t.TempDir(), Options{BatchSize: -1}); err == nil {
		t.Error("negative batch size accepted")
	}
	plain, err := bleve.NewMemOnly(bleve.NewIndexMapping())
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if _, err := Wrap(plain, Options{}); !errors.Is(err, ErrMapping) {
		t.Errorf("Wrap foreign mapping: %v", err)
	}
}

func TestParsePolicy(t *testing.T) {
	for _, p := range []Policy{Skip, Hidden, All} {
		if got, err := ParsePolicy(p.String()); err != nil || got != p {
			t.Errorf("ParsePolicy(%q) = %v, %v", p.String(), got, err)
		}
	}
	if _, err := ParsePolicy("none"); !errors.Is(err, ErrPolicy) {
		t.Errorf("ParsePolicy(none): %v", err)
	}
	if s := Policy(9).String(); s != "Policy(9)" {
		t.Errorf("String = %q", s)
	}
}

func TestPolicyJSON(t *testing.T) {
	type cfg struct {
		Policy Policy `json:"policy"`
	}
	for _, p := range []Policy{Skip, Hidden, All} {
		data, err := json.Marshal(cfg{p})
		if err != nil || string(data) != `{"policy":"`+p.String()+`"}` {
			t.Fatalf("Marshal(%v) = %s, %v", p, data, err)
		}
		var back cfg
		if err := json.Unmarshal(data, &back); err != nil || back.Policy != p {
			t.Errorf("round trip of %v: %v, %v", p, back.Policy, err)
		}
	}
	var c cfg
	if err := json.Unmarshal([]byte(`{"policy":"drop"}`), &c); !errors.Is(err, ErrPolicy) {
		t.Errorf("unknown policy: %v, want ErrPolicy", err)
	}
	if _, err := json.Marshal(cfg{Policy(7)}); err == nil {
		t.Error("Marshal of an invalid policy succeeded")
	}
}

// sameMember compares the membership fields of two members (not their
// groups, dates and lengths, which TestMemberDetails checks).
func sameMember(a, b Member) bool {
	return a.ID == b.ID && a.URL == b.URL && a.Title == b.Title && a.Indexed == b.Indexed && a.Master == b.Master
}

func TestMemberDetails(t *testing.T) {
	x, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	d := mkDoc("a1", "printer manual chapter one toner")
	if err := x.Add(context.Background(), d, pl(dedup.Result{ID: "a1", Cluster: "a", Master: "a1"})); err != nil {
		t.Fatal(err)
	}
	for _, flush := range []bool{false, true} {
		if flush {
			if err := x.Flush(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		ms, err := x.Members("a")
		if err != nil || len(ms) != 1 {
			t.Fatalf("Members: %v, %v", ms, err)
		}
		m := ms[0]
		if !slices.Equal(m.Groups, d.Groups) || !m.LastModified.Equal(d.LastModified) || m.Length != len(d.Body) {
			t.Errorf("flushed=%v: member %+v, want groups %v, date %v, length %d", flush, m, d.Groups, d.LastModified, len(d.Body))
		}
	}
}

// TestSkipKeepsCopiesOthersMaySee: under Skip, a near-duplicate is left
// out only if everybody who may see it may see the master; otherwise it is
// indexed as a non-master, so it can represent the cluster for them.
// TestSkipKeepsCopiesOthersMaySee: under Skip a near-duplicate stays out of
// the index only if it is a copy at the threshold and everybody who may
// see it may see the master.
func TestSkipKeepsCopiesOthersMaySee(t *testing.T) {
	x, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	add := func(id string, groups []string, master string) {
		t.Helper()
		d := mkDoc(id, "travel policy hotels meals taxis")
		d.Groups = groups
		res := dedup.Result{ID: id, Cluster: "c", Master: master, Duplicate: id != "m", Edited: id == "edited"}
		if err := x.Add(context.Background(), d, pl(res)); err != nil {
			t.Fatal(err)
		}
	}
	add("m", []string{"hr"}, "m")
	add("same", []string{"hr"}, "m")            // covered: skipped
	add("narrower", nil, "m")                   // public copy of an hr page: everybody else needs it
	add("other", []string{"finance"}, "m")      // finance may not see the master
	add("both", []string{"hr", "finance"}, "m") // finance again
	add("edited", []string{"hr"}, "m")          // close, not a copy: stays findable
	indexed := map[string]bool{}
	ms, err := x.Members("c")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		indexed[m.ID] = m.Indexed
	}
	if err := x.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"m": true, "same": false, "narrower": true, "other": true, "both": true, "edited": true}
	if !maps.Equal(indexed, want) {
		t.Errorf("indexed = %v, want %v", indexed, want)
	}
	if n, ids := count(t, x, x.Searchable(bleve.NewMatchAllQuery())); n != 1 || ids[0] != "m" {
		t.Errorf("Searchable = %v, want only the master", ids)
	}
}

func TestVisibility(t *testing.T) {
	for _, tc := range []struct {
		doc, user []string
		visible   bool
	}{
		{nil, nil, true},
		{nil, []string{"hr"}, true},
		{[]string{"hr"}, nil, false},
		{[]string{"hr"}, []string{"finance"}, false},
		{[]string{"hr", "finance"}, []string{"finance"}, true},
	} {
		if got := Visible(tc.doc, tc.user); got != tc.visible {
			t.Errorf("Visible(%v, %v) = %v", tc.doc, tc.user, got)
		}
	}
	for _, tc := range []struct {
		a, b   []string
		covers bool
	}{
		{nil, []string{"hr"}, true},
		{[]string{"hr"}, nil, false},
		{[]string{"hr"}, []string{"hr"}, true},
		{[]string{"hr", "it"}, []string{"hr"}, true},
		{[]string{"hr"}, []string{"hr", "it"}, false},
	} {
		if got := Covers(tc.a, tc.b); got != tc.covers {
			t.Errorf("Covers(%v, %v) = %v", tc.a, tc.b, got)
		}
	}
}

func TestMembersOfAgreesWithMembers(t *testing.T) {
	x, err := Open(t.TempDir(), Options{Policy: Hidden})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	run(t, x, sequence())
	both, err := x.MembersOf([]string{"a", "b", "none"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"a", "b"} {
		one, err := x.Members(c)
		if err != nil || len(one) == 0 || !slices.EqualFunc(one, both[c], sameMember) {
			t.Errorf("MembersOf[%s] = %v, Members = %v (%v)", c, both[c], one, err)
		}
	}
	if len(both["none"]) != 0 {
		t.Errorf("members of an unknown cluster: %v", both["none"])
	}
}

// TestMemberCacheFollowsWrites reads a cluster's members (filling the
// cache), adds, demotes and moves members, and checks every read sees the
// writes.
func TestMemberCacheFollowsWrites(t *testing.T) {
	x, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	ctx := context.Background()
	ids := func(c string) string {
		ms, err := x.Members(c)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range ms {
			s := m.ID
			if m.Master {
				s += "*"
			}
			out = append(out, s)
		}
		return strings.Join(out, " ")
	}
	add := func(id, clusterID, master string, dup bool) {
		t.Helper()
		if err := x.Add(ctx, mkDoc(id, "text "+id), pl(dedup.Result{ID: id, Cluster: cluster.ID(clusterID), Master: master, Duplicate: dup})); err != nil {
			t.Fatal(err)
		}
	}
	add("a1", "a", "a1", false)
	if got := ids("a"); got != "a1*" {
		t.Fatalf("members = %q", got)
	}
	add("a2", "a", "a1", true)
	if got := ids("a"); got != "a1* a2" {
		t.Errorf("after adding a2: %q", got)
	}
	if err := x.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if got := ids("a"); got != "a1* a2" {
		t.Errorf("after flush: %q", got)
	}
	add("a0", "a", "a0", true) // takes over
	if got := ids("a"); got != "a0* a1 a2" {
		t.Errorf("after a master change: %q", got)
	}
	add("a2", "b", "a2", false) // a2 moves to its own cluster
	if got, gotB := ids("a"), ids("b"); got != "a0* a1" || gotB != "a2*" {
		t.Errorf("after a move: a = %q, b = %q", got, gotB)
	}
}

// TestFlushAsync: while a batch is written in the background, Add goes on
// into a new one, and Members and Document see both; afterwards both are
// searchable, the later writes last.
func TestFlushAsync(t *testing.T) {
	x, err := Open(t.TempDir(), Options{NoAutoFlush: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	ctx := context.Background()
	add := func(id string, res dedup.Result) {
		t.Helper()
		if err := x.Add(ctx, mkDoc(id, "travel policy hotels meals taxis "+id), pl(res)); err != nil {
			t.Fatal(err)
		}
	}
	add("a", dedup.Result{ID: "a", Cluster: "c", Master: "a"})
	wait := x.FlushAsync()
	// The copy b takes over as master while a's batch is being written:
	// a is demoted from what the writing batch holds.
	add("b", dedup.Result{ID: "b", Cluster: "c", Master: "b", Duplicate: true, NewMaster: true})
	ms, err := x.Members("c")
	if err != nil || len(ms) != 2 || ms[0].ID != "b" || !ms[0].Master || ms[1].Master {
		t.Errorf("members during the write: %+v, %v", ms, err)
	}
	if d, err := x.Document("b"); err != nil || d == nil || !d.Master {
		t.Errorf("Document(b) = %+v, %v", d, err)
	}
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	if err := x.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if n, ids := count(t, x, x.Searchable(bleve.NewMatchAllQuery())); n != 1 || ids[0] != "b" {
		t.Errorf("Searchable = %v, want only the new master b", ids)
	}
	if st := x.Stats(); st.Batches != 2 || st.Demoted != 1 {
		t.Errorf("stats %+v, want 2 batches and 1 demotion", st)
	}
	// Nothing to write: nothing happens.
	if err := x.FlushAsync()(); err != nil {
		t.Error(err)
	}
}
