package indexer

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/dedup/cluster"
	"github.com/doppel-search/doppel/internal/testrig/long"
)

// The tests of Remove and Update drive a dedup.Detector and an Index
// together (a world) and check after every step that the Index says what
// the detector's clusters and the policy dictate: the oracle is computed
// from the detector's current clusters, not from a rebuild of the
// detector, whose elections may differ from those made incrementally.

// letters writes n in base 26 with the letters a–z: words the "en"
// analyzer keeps as they are (no digits, no stemmable ending when a
// letter such as q follows).
func letters(n int) string {
	var b []byte
	for {
		b = append(b, byte('a'+n%26))
		n /= 26
		if n == 0 {
			break
		}
	}
	slices.Reverse(b)
	return string(b)
}

// family returns the 100 words of page family f: families share no word.
func family(f int) []string {
	r := rand.New(rand.NewPCG(uint64(f), 7))
	w := make([]string, 100)
	for i := range w {
		w[i] = "w" + letters(f) + "x" + letters(r.IntN(2000))
	}
	return w
}

// editPositions are where versions of a family differ. A page has 97
// 5-shingles, the last one with its token. One edit in the middle changes
// 5 shingles on each side (resemblance ≈ 0.88 to the unedited page, 0.80
// to a page edited elsewhere); an edit at 3 changes 4 shingles, at 96 the
// 5 last (with the token's: ≈ 0.90 to the unedited page, 0.83 to each
// other).
var editPositions = []int{3, 10, 30, 50, 70, 90, 96}

// body returns a version of family f with the words at the positions
// edits replaced (the same replacement at a position in every version),
// ending in token, a word of its own.
func body(f int, edits []int, token string) string {
	w := family(f)
	for _, p := range edits {
		w[p] = "ed" + letters(f) + "x" + letters(p) + "q"
	}
	return strings.Join(w, " ") + " " + token
}

// world is a Detector and an Index driven together, with the current
// documents, which back Options.Source.
type world struct {
	t      testing.TB
	ctx    context.Context
	policy Policy
	det    *dedup.Detector
	x      *Index
	docs   map[string]Doc // the current version of every stored document
	// hidden are ids the Source pretends not to have.
	hidden map[string]bool
	// tokens maps every body token ever used to the document whose current
	// version holds it ("" once no document does).
	tokens   map[string]string
	clusters map[string]bool // every cluster id seen
	ids      map[string]bool // every document id used
	waits    []func() error  // FlushAsync writes not waited for yet
	ntoken   int
	searched int // search checks made
	refused  int // Remove and Update calls refused for a document hidden from the Source
}

func newWorld(t testing.TB, p Policy, dopts dedup.Options, iopts Options, mem bool) *world {
	t.Helper()
	det, err := dedup.New(nil, dopts)
	if err != nil {
		t.Fatal(err)
	}
	w := &world{t: t, ctx: context.Background(), policy: p, det: det, docs: map[string]Doc{}, hidden: map[string]bool{},
		tokens: map[string]string{}, clusters: map[string]bool{}, ids: map[string]bool{}}
	iopts.Policy = p
	iopts.Source = SourceFunc(w.source)
	if mem {
		bi, err := bleve.NewMemOnly(Mapping())
		if err != nil {
			t.Fatal(err)
		}
		w.x, err = Wrap(bi, iopts)
		if err != nil {
			t.Fatal(err)
		}
	} else {
		w.x, err = Open(t.TempDir(), iopts)
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		w.wait()
		if err := w.x.Close(); err != nil {
			t.Error(err)
		}
	})
	return w
}

func (w *world) source(_ context.Context, id string) (*Doc, error) {
	d, ok := w.docs[id]
	if !ok || w.hidden[id] {
		return nil, nil
	}
	d.Groups = slices.Clone(d.Groups)
	return &d, nil
}

// token returns a body token never used before.
func (w *world) token() string {
	w.ntoken++
	return "zz" + letters(w.ntoken) + "q"
}

// doc returns a document of family f.
func (w *world) doc(id string, f int, edits []int, url string, groups []string, at time.Time) Doc {
	tok := w.token()
	return Doc{ID: id, URL: url, Host: "h", Title: "Title " + id, Body: body(f, edits, tok), Groups: groups, LastModified: at}
}

func toDedup(d Doc) dedup.Document {
	return dedup.Document{ID: d.ID, Text: d.Body, URL: d.URL, Title: d.Title, Time: d.LastModified}
}

// lastWord returns the token a body ends in.
func lastWord(s string) string { return s[strings.LastIndexByte(s, ' ')+1:] }

func (w *world) add(d Doc) dedup.Result {
	w.t.Helper()
	res, err := w.det.Add(toDedup(d))
	if err != nil {
		w.t.Fatal(err)
	}
	if err := w.x.Add(w.ctx, d, pl(res)); err != nil {
		w.t.Fatalf("Add %s: %v", d.ID, err)
	}
	w.docs[d.ID] = d
	w.ids[d.ID] = true
	w.tokens[lastWord(d.Body)] = d.ID
	w.clusters[string(res.Cluster)] = true
	return res
}

// needed returns the documents an Index must find to follow ch: the
// master elected and the members moved.
func needed(ch dedup.Change) []string {
	var ids []string
	if ch.Elected && ch.Master != "" {
		ids = append(ids, ch.Master)
	}
	for _, r := range ch.Moved {
		ids = append(ids, r.ID)
	}
	return ids
}

// unavailable hides from the Source, one at a time, each document ch
// needs that the Index does not hold, and checks that apply then fails
// with ErrUnavailable and changes nothing.
func (w *world) unavailable(ch dedup.Change, apply func() error) {
	w.t.Helper()
	for _, id := range needed(ch) {
		if d, err := w.x.Document(id); err != nil {
			w.t.Fatal(err)
		} else if d != nil {
			continue
		}
		// The background writes end first: one ending between the two
		// snapshots counts a batch written (Stats.Batches), which the
		// refused change did not do (a flaky failure in CI).
		w.wait()
		before := w.snapshot()
		w.hidden[id] = true
		err := apply()
		delete(w.hidden, id)
		if !errors.Is(err, ErrUnavailable) {
			w.t.Fatalf("%s hidden from the Source: %v, want ErrUnavailable", id, err)
		}
		if !strings.Contains(err.Error(), fmt.Sprintf("%q", id)) {
			w.t.Errorf("error %q does not name %s", err, id)
		}
		if after := w.snapshot(); !reflect.DeepEqual(before, after) {
			w.t.Fatalf("failed %s changed the index:\nbefore %+v\nafter  %+v", ch.ID, before, after)
		}
		w.refused++
	}
}

// snapshot is what an Index shows of its state without a search.
type snapshot struct {
	Members map[string][]Member
	Docs    map[string]*Doc
	Stats   Stats
	Batch   int
}

func (w *world) snapshot() snapshot {
	w.t.Helper()
	ms, err := w.x.MembersOf(slices.Sorted(maps.Keys(w.clusters)))
	if err != nil {
		w.t.Fatal(err)
	}
	s := snapshot{Members: ms, Docs: map[string]*Doc{}, Stats: w.x.Stats()}
	for id := range w.ids {
		if s.Docs[id], err = w.x.Document(id); err != nil {
			w.t.Fatal(err)
		}
	}
	w.x.mu.Lock()
	s.Batch = w.x.batch.Size()
	w.x.mu.Unlock()
	return s
}

// remove removes id from both; with unavailable it first checks that the
// Index refuses when the Source lacks a document it needs.
func (w *world) remove(id string, unavailable bool) dedup.Change {
	w.t.Helper()
	ch, err := w.det.Remove(id)
	if err != nil {
		w.t.Fatal(err)
	}
	apply := func() error { return w.x.Remove(w.ctx, chg(ch)) }
	if unavailable {
		w.unavailable(ch, apply)
	}
	if err := apply(); err != nil {
		w.t.Fatalf("Remove %s (%+v): %v", id, ch, err)
	}
	w.tokens[lastWord(w.docs[id].Body)] = ""
	delete(w.docs, id)
	for _, r := range ch.Moved {
		w.clusters[string(r.Cluster)] = true
	}
	return ch
}

// update gives d.ID the new version d in both.
func (w *world) update(d Doc, unavailable bool) dedup.Change {
	w.t.Helper()
	ch, err := w.det.Replace(toDedup(d))
	if err != nil {
		w.t.Fatal(err)
	}
	apply := func() error { return w.x.Update(w.ctx, d, chg(ch)) }
	if unavailable && ch.Left {
		w.unavailable(ch, apply)
	}
	if err := apply(); err != nil {
		w.t.Fatalf("Update %s (%+v): %v", d.ID, ch, err)
	}
	if old, ok := w.docs[d.ID]; ok {
		w.tokens[lastWord(old.Body)] = ""
	}
	w.docs[d.ID] = d
	w.ids[d.ID] = true
	w.tokens[lastWord(d.Body)] = d.ID
	w.clusters[string(ch.Result.Cluster)] = true
	for _, r := range ch.Moved {
		w.clusters[string(r.Cluster)] = true
	}
	return ch
}

// flushAsync starts a background write without waiting for it.
func (w *world) flushAsync() { w.waits = append(w.waits, w.x.FlushAsync()) }

// wait waits for the background writes.
func (w *world) wait() {
	for _, wait := range w.waits {
		if err := wait(); err != nil {
			w.t.Error(err)
		}
	}
	w.waits = nil
}

// flush waits for the background writes and writes the batch.
func (w *world) flush() {
	w.t.Helper()
	w.wait()
	if err := w.x.Flush(w.ctx); err != nil {
		w.t.Fatal(err)
	}
}

// expected is what the Index must hold: the detector's clusters under the
// policy.
type expected struct {
	members map[string][]Member // cluster → members, master first, then by id
	cluster map[string]string   // document → cluster
	master  map[string]string   // cluster → master
	indexed map[string]bool     // documents that must be searchable
}

// expect computes what the Index must hold from the detector's clusters:
// every master is indexed; under Hidden and All every member; under Skip
// a member that joined through the edit allowance or whose access groups
// the master's do not cover.
func (w *world) expect() expected {
	w.t.Helper()
	e := expected{members: map[string][]Member{}, cluster: map[string]string{}, master: map[string]string{}, indexed: map[string]bool{}}
	edited := map[string]bool{}
	as := w.det.Assignments()
	for _, a := range as {
		edited[a.ID] = a.Edited
	}
	if len(as) != len(w.docs) {
		w.t.Fatalf("detector holds %d documents, the world %d", len(as), len(w.docs))
	}
	for _, c := range w.det.Clusters() {
		cid := string(c.ID)
		e.master[cid] = c.Master.ID
		master := w.docs[c.Master.ID]
		var ms []Member
		for _, cm := range c.Members {
			d, ok := w.docs[cm.ID]
			if !ok {
				w.t.Fatalf("detector holds %s, the world does not", cm.ID)
			}
			isMaster := cm.ID == c.Master.ID
			in := isMaster || w.policy != Skip || edited[cm.ID] || !Covers(master.Groups, d.Groups)
			e.cluster[cm.ID] = cid
			e.indexed[cm.ID] = in
			ms = append(ms, Member{ID: d.ID, URL: d.URL, Title: d.Title, Indexed: in, Master: isMaster, Groups: d.Groups,
				LastModified: d.LastModified, Length: len(d.Body), Edited: edited[cm.ID] && !isMaster})
		}
		slices.SortFunc(ms, func(a, b Member) int {
			switch {
			case a.Master:
				return -1
			case b.Master:
				return 1
			}
			return strings.Compare(a.ID, b.ID)
		})
		e.members[cid] = ms
	}
	return e
}

func equalMember(a, b Member) bool {
	return a.ID == b.ID && a.URL == b.URL && a.Title == b.Title && a.Indexed == b.Indexed && a.Master == b.Master &&
		slices.Equal(a.Groups, b.Groups) && a.LastModified.Equal(b.LastModified) && a.Length == b.Length && a.Edited == b.Edited
}

func memberList(ms []Member) string {
	var out []string
	for _, m := range ms {
		s := m.ID
		if m.Master {
			s += "*"
		}
		if m.Indexed {
			s += "+"
		}
		if m.Edited {
			s += "~"
		}
		out = append(out, fmt.Sprintf("%s%v", s, m.Groups))
	}
	return strings.Join(out, " ")
}

// check compares the Index with what the detector's clusters dictate,
// through Members and Document (which see the pending batch and the one
// being written); with search, it also flushes and checks what searches
// find, and compares with an Index built afresh from the same clusters.
func (w *world) check(search bool) {
	w.t.Helper()
	e := w.expect()
	// (b) Member records: exactly the detector's members, with the right
	// master; clusters gone have none.
	got, err := w.x.MembersOf(slices.Sorted(maps.Keys(w.clusters)))
	if err != nil {
		w.t.Fatal(err)
	}
	for c := range w.clusters {
		if !slices.EqualFunc(got[c], e.members[c], equalMember) {
			w.t.Fatalf("Members(%s) = %s\nwant         %s\n%+v\n%+v", c, memberList(got[c]), memberList(e.members[c]), got[c], e.members[c])
		}
	}
	// (a) The documents the policy dictates, in their current version.
	for id := range w.ids {
		d, err := w.x.Document(id)
		if err != nil {
			w.t.Fatal(err)
		}
		if !e.indexed[id] {
			if d != nil {
				w.t.Fatalf("Document(%s) = %+v, want none", id, d)
			}
			continue
		}
		cur := w.docs[id]
		switch {
		case d == nil:
			w.t.Fatalf("Document(%s) missing", id)
		case d.Cluster != e.cluster[id] || d.Master != (e.master[d.Cluster] == id):
			w.t.Fatalf("Document(%s): cluster %s master %v, want %s %v", id, d.Cluster, d.Master, e.cluster[id], e.master[e.cluster[id]] == id)
		case d.Body != cur.Body || d.URL != cur.URL || d.Title != cur.Title || !slices.Equal(d.Groups, cur.Groups) || !d.LastModified.Equal(cur.LastModified):
			w.t.Fatalf("Document(%s) is not the current version:\n%+v\nwant\n%+v", id, d, cur)
		}
	}
	if st := w.x.Stats(); st.Unavailable != 0 {
		w.t.Fatalf("Stats.Unavailable = %d with every document in the Source", st.Unavailable)
	}
	if !search {
		return
	}
	w.flush()
	w.searches(w.x, e)
	if w.searched%3 == 0 {
		w.fresh(e)
	}
	w.searched++
}

// searches checks what searches of x find against e.
func (w *world) searches(x *Index, e expected) {
	w.t.Helper()
	var indexed, masters []string
	for id, in := range e.indexed {
		if in {
			indexed = append(indexed, id)
		}
	}
	for _, m := range e.master {
		masters = append(masters, m)
	}
	slices.Sort(indexed)
	slices.Sort(masters)
	if ids := search(w.t, x, docsOnly()); !slices.Equal(ids, indexed) {
		w.t.Fatalf("indexed documents %v, want %v", ids, indexed)
	}
	// Difference records only for documents held and not indexed.
	for _, id := range search(w.t, x, diffsOnly()) {
		if in, held := e.indexed[id]; !held || in {
			w.t.Fatalf("difference record for %s (held %v, indexed %v)", id, held, in)
		}
	}
	visible := masters
	if w.policy == All {
		visible = indexed
	}
	if ids := search(w.t, x, x.Searchable(bleve.NewMatchAllQuery())); !slices.Equal(ids, visible) {
		w.t.Fatalf("searchable %v, want %v", ids, visible)
	}
	isMaster := bleve.NewBoolFieldQuery(true)
	isMaster.SetField(FieldMaster)
	if ids := search(w.t, x, isMaster); !slices.Equal(ids, masters) {
		w.t.Fatalf("documents with master=true %v, want %v", ids, masters)
	}
	for c, m := range e.master {
		if ids := search(w.t, x, mastersOf(c)); len(ids) != 1 || ids[0] != m {
			w.t.Fatalf("masters of %s: %v, want [%s]", c, ids, m)
		}
	}
	kind := bleve.NewTermQuery(MemberType)
	kind.SetField(fieldKind)
	if ids := search(w.t, x, kind); len(ids) != len(e.cluster) {
		w.t.Fatalf("%d member records, want %d", len(ids), len(e.cluster))
	}
	// (c) A removed document's text, or an old version's, matches
	// nothing; a current version's matches where it is held: indexed,
	// or in the difference record of a near-duplicate left out (a token
	// of its own, which no master holds).
	for tok, id := range w.tokens {
		q := bleve.NewMatchQuery(tok)
		q.SetField(FieldBody)
		var want []string
		if _, held := e.indexed[id]; id != "" && held {
			want = []string{id}
		}
		if ids := search(w.t, x, q); !slices.Equal(ids, want) {
			w.t.Fatalf("body:%s finds %v, want %v", tok, ids, want)
		}
	}
}

// fresh builds an Index from scratch from the detector's clusters (the
// surviving documents, masters first) and compares it with w's.
func (w *world) fresh(e expected) {
	w.t.Helper()
	x := w.rebuild()
	defer x.Close()
	w.searches(x, e)
	w.sameMembers(x)
	w.sameDocuments(x)
}

// rebuild returns a new in-memory Index holding the detector's clusters,
// masters added first, flushed.
func (w *world) rebuild() *Index {
	w.t.Helper()
	bi, err := bleve.NewMemOnly(Mapping())
	if err != nil {
		w.t.Fatal(err)
	}
	x, err := Wrap(bi, Options{Policy: w.policy})
	if err != nil {
		w.t.Fatal(err)
	}
	edited := map[string]bool{}
	for _, a := range w.det.Assignments() {
		edited[a.ID] = a.Edited
	}
	cs := w.det.Clusters()
	for _, masters := range []bool{true, false} {
		for _, c := range cs {
			for _, m := range c.Members {
				if (m.ID == c.Master.ID) != masters {
					continue
				}
				r := dedup.Result{ID: m.ID, Cluster: c.ID, Master: c.Master.ID, Duplicate: !masters, Edited: edited[m.ID]}
				if err := x.Add(w.ctx, w.docs[m.ID], pl(r)); err != nil {
					x.Close()
					w.t.Fatal(err)
				}
			}
		}
	}
	if err := x.Flush(w.ctx); err != nil {
		x.Close()
		w.t.Fatal(err)
	}
	return x
}

// sameMembers compares the members of every cluster seen in w's Index
// and in x.
func (w *world) sameMembers(x *Index) {
	w.t.Helper()
	for c := range w.clusters {
		a, err := w.x.Members(c)
		if err != nil {
			w.t.Fatal(err)
		}
		b, err := x.Members(c)
		if err != nil {
			w.t.Fatal(err)
		}
		if !slices.EqualFunc(a, b, equalMember) {
			w.t.Fatalf("Members(%s) = %s, rebuilt %s", c, memberList(a), memberList(b))
		}
	}
}

// sameDocuments compares every document id used in w's Index and in x
// (their SimHashes aside: the Source's documents carry none).
func (w *world) sameDocuments(x *Index) {
	w.t.Helper()
	for id := range w.ids {
		a, err := w.x.Document(id)
		if err != nil {
			w.t.Fatal(err)
		}
		b, err := x.Document(id)
		if err != nil {
			w.t.Fatal(err)
		}
		if a != nil && b != nil {
			a.Simhash, b.Simhash = 0, 0
		}
		if !reflect.DeepEqual(a, b) && (a == nil || b == nil || fmt.Sprint(*a) != fmt.Sprint(*b)) {
			w.t.Fatalf("Document(%s) = %+v, rebuilt %+v", id, a, b)
		}
	}
}

// search returns the ids of every document q matches, sorted.
func search(t testing.TB, x *Index, q query.Query) []string {
	t.Helper()
	req := bleve.NewSearchRequestOptions(q, 300, 0, false)
	req.SortBy([]string{"_id"})
	res, err := x.Bleve().Search(req)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, h := range res.Hits {
		ids = append(ids, h.ID)
	}
	if int(res.Total) != len(ids) {
		t.Fatalf("%d hits of %d", len(ids), res.Total)
	}
	return ids
}

var (
	day0 = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	hr   = []string{"hr"}
	hrIT = []string{"hr", "it"}
)

// An op is a step of a TestRemoveUpdate scenario.
type op struct {
	remove string // remove this id, or
	doc    *Doc   // add or update (when the id is stored) this document
	update bool   // update doc even if its id is not stored
	// what the detector must have done: the scenario is about it
	elected bool
	moved   int
	left    bool
	how     string // where the moved member went: "back edited" or "took over"
}

// apply takes step i, o, of a scenario and checks that the detector did
// what o says.
func (w *world) apply(i int, o op) {
	w.t.Helper()
	var ch dedup.Change
	switch {
	case o.remove != "":
		ch = w.remove(o.remove, true)
	case o.update || w.docs[o.doc.ID].ID != "":
		ch = w.update(*o.doc, true)
	default:
		w.add(*o.doc)
	}
	if ch.Elected != o.elected || len(ch.Moved) != o.moved || ch.Left != o.left {
		w.t.Fatalf("step %d: detector change %+v, want elected %v, %d moved, left %v", i, ch, o.elected, o.moved, o.left)
	}
	for _, m := range ch.Moved {
		if how := map[bool]string{true: "back edited"}[m.Cluster == ch.Cluster && m.Edited] +
			map[bool]string{true: "took over"}[m.NewMaster]; how != o.how {
			w.t.Fatalf("step %d: moved %+v (%q), want %q", i, m, how, o.how)
		}
	}
}

// skipEnd checks, under Skip, the searchable documents (sees, if not
// nil) and the stats ("removed updated promoted reviewed demoted", if
// not empty) a scenario ends with.
func (w *world) skipEnd(sees []string, stats string) {
	w.t.Helper()
	if w.policy != Skip {
		return
	}
	if sees != nil {
		var got []string
		for id, in := range w.expect().indexed {
			if in {
				got = append(got, id)
			}
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(sees))
		if !slices.Equal(got, want) {
			w.t.Errorf("searchable under Skip: %v, want %v", got, want)
		}
	}
	if st := w.x.Stats(); stats != "" {
		if got := fmt.Sprint(st.Removed, st.Updated, st.Promoted, st.Reviewed, st.Demoted); got != stats {
			w.t.Errorf("removed updated promoted reviewed demoted = %s, want %s (%+v)", got, stats, st)
		}
	}
}

// TestRemoveUpdate: scenarios of removals and new versions under every
// policy, each step checked against the detector's clusters.
func TestRemoveUpdate(t *testing.T) {
	url := func(id string) string { return "http://x/page/" + id }
	mk := func(id string, f int, edits []int, groups []string) *Doc {
		return &Doc{ID: id, URL: url(id), Title: "Title " + id, Body: body(f, edits, "zz"+id+"q"), Groups: groups, LastModified: day0}
	}
	v2 := func(d *Doc, f int, edits []int) *Doc { // a new version with a token of its own
		c := *d
		c.Body = body(f, edits, "zz"+d.ID+"vq")
		return &c
	}
	regroup := func(d *Doc, groups []string) *Doc { c := *d; c.Groups = groups; return &c }
	relink := func(d *Doc, url string) *Doc { c := *d; c.URL = url; return &c }
	short := func(d *Doc) *Doc { c := *d; c.URL = "http://x/" + d.ID; return &c }
	a, b, c := mk("a", 0, nil, nil), mk("b", 0, nil, nil), mk("c", 0, nil, nil)
	b1, c3 := mk("b", 0, []int{10}, nil), mk("c", 0, []int{90}, nil)
	other := mk("o", 1, nil, nil)
	for _, tc := range []struct {
		name     string
		opts     dedup.Options
		ops      []op
		skipSees []string // the searchable documents under Skip at the end
		// skipStats, if set, is Stats under Skip at the end:
		// "removed updated promoted reviewed demoted"
		skipStats string
	}{
		{name: "member removed", ops: []op{{doc: a}, {doc: b}, {doc: c}, {remove: "b"}}, skipSees: []string{"a"}},
		{name: "last member removed", ops: []op{{doc: a}, {doc: other}, {remove: "a"}}, skipSees: []string{"o"}},
		{name: "master removed, copy elected", ops: []op{{doc: a}, {doc: b}, {doc: c}, {remove: "a", elected: true}}, skipSees: []string{"b"},
			skipStats: "1 0 1 0 0"},
		{name: "master removed, then the new master", ops: []op{{doc: a}, {doc: b}, {doc: c}, {remove: "a", elected: true}, {remove: "b", elected: true}, {remove: "c"}}},
		{name: "master removed, the elected one's groups do not cover a copy's",
			ops:      []op{{doc: a}, {doc: regroup(b, hr)}, {doc: c}, {remove: "a", elected: true}},
			skipSees: []string{"b", "c"}, skipStats: "1 0 1 1 0"},
		{name: "master removed, the elected one's groups cover a copy the old master's did not",
			ops:      []op{{doc: regroup(a, hr)}, {doc: b}, {doc: regroup(c, hrIT)}, {remove: "a", elected: true}},
			skipSees: []string{"b"}, skipStats: "1 0 1 1 0"},
		{name: "master removed, members moved",
			opts:     dedup.Options{Threshold: 0.85},
			ops:      []op{{doc: a}, {doc: b1}, {doc: c3}, {remove: "a", elected: true, moved: 1}},
			skipSees: []string{"b", "c"}},
		{name: "master removed, a member moved back through the edit allowance",
			opts:     dedup.Options{EditAllowance: 2},
			ops:      []op{{doc: a}, {doc: mk("b", 0, []int{3}, nil)}, {doc: mk("c", 0, []int{96}, nil)}, {remove: "a", elected: true, moved: 1, how: "back edited"}},
			skipSees: []string{"b", "c"}},
		{name: "master removed, a member moved takes another cluster over",
			opts: dedup.Options{Master: cluster.ShortestURL, Threshold: 0.85},
			ops: []op{{doc: relink(a, "http://x/a")}, {doc: relink(b1, "http://x/bb")}, {doc: relink(c3, "http://x/ccc")},
				{doc: relink(mk("d", 0, []int{3, 90}, nil), "http://x/dddd")}, {remove: "a", elected: true, moved: 1, how: "took over"}},
			skipSees: []string{"b", "c"}},
		{name: "master removed, edited members stay",
			opts:     dedup.Options{EditAllowance: 2},
			ops:      []op{{doc: a}, {doc: b}, {doc: c3}, {remove: "a", elected: true}},
			skipSees: []string{"b", "c"}},
		{name: "copy changed, stays",
			ops:      []op{{doc: a}, {doc: b}, {doc: v2(b, 0, nil)}},
			skipSees: []string{"a"}},
		{name: "copy changed, stays edited",
			opts:     dedup.Options{EditAllowance: 2},
			ops:      []op{{doc: a}, {doc: b}, {doc: v2(b, 0, []int{50})}},
			skipSees: []string{"a", "b"}},
		{name: "copy changed, leaves",
			ops:      []op{{doc: a}, {doc: b}, {doc: v2(b, 2, nil), left: true}},
			skipSees: []string{"a", "b"}},
		{name: "copy's groups changed",
			ops:      []op{{doc: a}, {doc: b}, {doc: regroup(b, hr)}, {doc: regroup(a, hrIT)}, {doc: regroup(b, []string{"it"})}},
			skipSees: []string{"a"}},
		{name: "master changed, stays",
			ops:      []op{{doc: a}, {doc: b}, {doc: v2(a, 0, nil)}},
			skipSees: []string{"a"}},
		{name: "master's groups changed",
			ops:      []op{{doc: a}, {doc: b}, {doc: regroup(c, hr)}, {doc: regroup(a, hr)}, {doc: regroup(a, []string{"it"})}},
			skipSees: []string{"a", "b", "c"}},
		{name: "master changes away",
			ops:      []op{{doc: a}, {doc: b}, {doc: c}, {doc: v2(a, 1, nil), left: true, elected: true}},
			skipSees: []string{"a", "b"}, skipStats: "0 1 1 0 0"},
		{name: "master changes away, members moved",
			opts:     dedup.Options{Threshold: 0.85},
			ops:      []op{{doc: a}, {doc: b1}, {doc: c3}, {doc: v2(a, 1, nil), left: true, elected: true, moved: 1}},
			skipSees: []string{"a", "b", "c"}},
		{name: "master changes away and takes another cluster over",
			opts:     dedup.Options{Master: cluster.ShortestURL},
			ops:      []op{{doc: short(a)}, {doc: b}, {doc: c}, {doc: other}, {doc: v2(short(a), 1, nil), left: true, elected: true}},
			skipSees: []string{"a", "b"}},
		{name: "copy changed takes over",
			opts:     dedup.Options{Master: cluster.ShortestURL},
			ops:      []op{{doc: a}, {doc: regroup(b, hr)}, {doc: c}, {doc: short(v2(regroup(b, hr), 0, nil))}},
			skipSees: []string{"b", "a", "c"}, skipStats: "0 1 0 1 1"},
		{name: "unchanged version",
			ops:      []op{{doc: a}, {doc: b}, {doc: a}, {doc: b}},
			skipSees: []string{"a"}},
		{name: "removed id comes back",
			ops:      []op{{doc: a}, {doc: b}, {remove: "a", elected: true}, {doc: a}},
			skipSees: []string{"b"}},
		{name: "update of an id not stored",
			ops:      []op{{doc: a}, {remove: "a"}, {doc: a, update: true}},
			skipSees: []string{"a"}},
	} {
		for _, p := range []Policy{Skip, Hidden, All} {
			for _, batch := range []int{1, 200} {
				t.Run(fmt.Sprintf("%s/%s/batch=%d", tc.name, p, batch), func(t *testing.T) {
					t.Parallel()
					w := newWorld(t, p, tc.opts, Options{BatchSize: batch}, batch == 1)
					for i, o := range tc.ops {
						w.apply(i, o)
						w.check(batch == 1)
					}
					w.check(true)
					w.skipEnd(tc.skipSees, tc.skipStats)
				})
			}
		}
	}
}

// TestRemoveUpdateRandom: random sequences of adds, removals and new
// versions (unchanged, changed within the cluster, changed away; access
// groups, URLs and dates changed) under every policy, master policy and
// way of flushing (every step, by batches, only now and then, in the
// background with FlushAsync while changes go on), checked after every
// step against the detector's clusters; now and then a document the Index
// needs is hidden from the Source, which must fail and change nothing.
// Each sequence is 20 steps long, 40 with DOPPEL_LONG=1.
func TestRemoveUpdateRandom(t *testing.T) {
	detectors := []struct {
		name string
		opts dedup.Options
	}{
		{"first-seen", dedup.Options{Threshold: 0.85}},
		{"shortest-url/edits", dedup.Options{Master: cluster.ShortestURL, EditAllowance: 2}},
		{"recent", dedup.Options{Master: cluster.MostRecent, Threshold: 0.85}},
	}
	type mode struct {
		name   string
		opts   Options
		mem    bool
		async  float64 // chance of a FlushAsync after a step
		search int     // search checks every search steps
	}
	modes := []mode{
		{"sync", Options{BatchSize: 1}, true, 0, 1},
		{"batched", Options{BatchSize: 4}, false, 0, 5},
		{"pending", Options{NoAutoFlush: true}, true, 0, 9},
		{"async", Options{NoAutoFlush: true}, false, 0.4, 6},
		{"async-auto", Options{BatchSize: 3}, false, 0.4, 6},
	}
	steps := *randomSteps
	if steps <= 0 {
		steps = long.N(20, 40)
	}
	if testing.Short() {
		steps = min(steps, 20)
	}
	var mu sync.Mutex
	events := map[string]int{}
	t.Cleanup(func() {
		t.Logf("events: %v", events)
		if testing.Short() || t.Failed() {
			return
		}
		for _, e := range []string{"election", "moved", "left", "master left",
			"took over on update", "took over on add", "edited", "unavailable", "unchanged"} {
			if events[e] == 0 {
				t.Errorf("no %s in any sequence", e)
			}
		}
	})
	groups := [][]string{nil, nil, hr, hrIT, {"it"}}
	for _, p := range []Policy{Skip, Hidden, All} {
		for di, dc := range detectors {
			for mi, m := range modes {
				t.Run(fmt.Sprintf("%s/%s/%s", p, dc.name, m.name), func(t *testing.T) {
					t.Parallel()
					seed := uint64(100*int(p)+10*di+mi) + *seedBase
					r := rand.New(rand.NewPCG(seed, 1))
					w := newWorld(t, p, dc.opts, m.opts, m.mem)
					seen := map[string]int{}
					defer func() {
						mu.Lock()
						defer mu.Unlock()
						for e, n := range seen {
							events[e] += n
						}
					}()
					now := day0
					pick := func(masters bool) string {
						ids := slices.Sorted(maps.Keys(w.docs))
						if masters {
							var ms []string
							for _, c := range w.det.Clusters() {
								if len(c.Members) > 1 {
									ms = append(ms, c.Master.ID)
								}
							}
							if len(ms) > 0 {
								slices.Sort(ms)
								ids = ms
							}
						}
						return ids[r.IntN(len(ids))]
					}
					// Single edits at different positions make members
					// that are not copies of each other.
					variant := func(id string, f int) Doc {
						var edits []int
						switch x := r.Float64(); {
						case x < 0.55:
							edits = []int{editPositions[r.IntN(len(editPositions))]}
						case x < 0.65:
							edits = []int{editPositions[r.IntN(3)], editPositions[3+r.IntN(4)]}
						}
						now = now.Add(time.Duration(1+r.IntN(3)) * time.Hour)
						url := "http://x/" + strings.Repeat("p", r.IntN(4)) + "/" + id
						return w.doc(id, f, edits, url, groups[r.IntN(len(groups))], now)
					}
					family := func() int { return []int{0, 0, 0, 0, 1, 1, 2}[r.IntN(7)] }
					moved := func(ch dedup.Change) {
						for _, m := range ch.Moved {
							seen["moved"]++
							if m.NewMaster {
								seen["moved and took over"]++
							}
							if m.Cluster == ch.Cluster && m.Edited {
								seen["moved back edited"]++
							}
						}
						if ch.Elected {
							seen["election"]++
						}
					}
					var removed []string
					for step := range steps {
						var what string
						refused := w.refused
						switch x := r.Float64(); {
						case len(w.docs) < 4 || x < 0.35:
							id := fmt.Sprintf("d%02d", step)
							if len(removed) > 0 && r.IntN(5) == 0 {
								id = removed[r.IntN(len(removed))]
								removed = slices.DeleteFunc(removed, func(s string) bool { return s == id })
							}
							res := w.add(variant(id, family()))
							if res.NewMaster {
								seen["took over on add"]++
							}
							if res.Edited {
								seen["edited"]++
							}
							what = fmt.Sprintf("add %s: %+v", id, res)
						case x < 0.55:
							id := pick(r.IntN(3) > 0)
							ch := w.remove(id, r.IntN(2) == 0)
							moved(ch)
							removed = append(removed, id)
							what = fmt.Sprintf("remove %s: %+v", id, ch)
						default:
							id := pick(r.IntN(2) == 0)
							old := w.docs[id]
							var d Doc
							switch y := r.Float64(); {
							case y < 0.2: // the same content, other attributes
								d = variant(id, 0)
								d.Body = old.Body
								if r.IntN(2) == 0 {
									d.URL = old.URL
								}
							case y < 0.65: // another version of its family
								f := int(old.Body[1] - 'a') // its words are "w" + letters(f) + ...
								d = variant(id, f)
							default:
								d = variant(id, family())
							}
							ch := w.update(d, r.IntN(2) == 0)
							moved(ch)
							switch {
							case d.Body == old.Body:
								seen["unchanged"]++
							case ch.Left && ch.WasMaster:
								seen["master left"]++
							case ch.Left:
								seen["left"]++
							case ch.Result.NewMaster:
								seen["took over on update"]++
							}
							if ch.Result.Edited {
								seen["edited"]++
							}
							what = fmt.Sprintf("update %s: %+v", id, ch)
						}
						seen["unavailable"] += w.refused - refused
						t.Logf("step %d: %s", step, what)
						if r.Float64() < m.async {
							w.flushAsync()
						}
						w.check((step+1)%m.search == 0)
					}
					w.check(true)
					t.Logf("detector %+v", w.det.Stats())
					t.Logf("index %+v", w.x.Stats())
				})
			}
		}
	}
}

// Flags for longer runs of TestRemoveUpdateRandom, with other seeds:
// go test ./indexer -run RemoveUpdateRandom -remove.seed=N -remove.steps=M.
var (
	seedBase    = flag.Uint64("remove.seed", 0, "added to the seeds of TestRemoveUpdateRandom")
	randomSteps = flag.Int("remove.steps", 0, "steps of each TestRemoveUpdateRandom sequence (0: 20, 40 with DOPPEL_LONG=1)")
)

// TestRemoveUpdateErrors: the checks of Remove and Update, and a Source
// that fails or is not set.
func TestRemoveUpdateErrors(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, Skip, dedup.Options{}, Options{}, true)
	a := w.doc("a", 0, nil, "http://x/a", nil, day0)
	b := w.doc("b", 0, nil, "http://x/b", nil, day0)
	w.add(a)
	w.add(b)
	d := w.doc("b", 1, nil, "http://x/b", nil, day0)
	left := dedup.Change{ID: "b", Cluster: "c", Master: "a", Left: true, Result: dedup.Result{ID: "b", Cluster: "n", Master: "b"}}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"remove: empty id", w.x.Remove(ctx, chg(dedup.Change{})), ErrEmptyID},
		{"remove: reserved id", w.x.Remove(ctx, chg(dedup.Change{ID: memberPrefix + "a"})), ErrReserved},
		{"remove: canceled", w.x.Remove(canceled, chg(dedup.Change{ID: "a"})), context.Canceled},
		{"update: canceled", w.x.Update(canceled, d, chg(left)), context.Canceled},
		{"update: empty id", w.x.Update(ctx, Doc{}, chg(left)), ErrEmptyID},
		{"update: result for another document", w.x.Update(ctx, d, chg(dedup.Change{ID: "b", Result: dedup.Result{ID: "a", Cluster: "c"}})), ErrMismatch},
		{"update: change for another document", w.x.Update(ctx, d, chg(dedup.Change{ID: "a", Result: dedup.Result{Cluster: "c"}})), ErrMismatch},
		{"update: no cluster", w.x.Update(ctx, d, chg(dedup.Change{ID: "b", Result: dedup.Result{ID: "b"}})), ErrCluster},
	} {
		if !errors.Is(tc.err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, tc.err, tc.want)
		}
	}
	w.check(true)

	// A Source that fails: the error comes back, nothing changes.
	boom := errors.New("boom")
	bi, err := bleve.NewMemOnly(Mapping())
	if err != nil {
		t.Fatal(err)
	}
	x, err := Wrap(bi, Options{Source: SourceFunc(func(context.Context, string) (*Doc, error) { return nil, boom })})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if err := x.Add(ctx, a, pl(dedup.Result{ID: "a", Cluster: "c", Master: "a"})); err != nil {
		t.Fatal(err)
	}
	if err := x.Add(ctx, b, pl(dedup.Result{ID: "b", Cluster: "c", Master: "a", Duplicate: true})); err != nil {
		t.Fatal(err)
	}
	before := x.Stats()
	if err := x.Remove(ctx, chg(dedup.Change{ID: "a", Cluster: "c", WasMaster: true, Master: "b", Elected: true})); !errors.Is(err, boom) {
		t.Errorf("Remove with a failing Source: %v", err)
	}
	a2 := w.doc("a", 1, nil, "http://x/a", nil, day0)
	if err := x.Update(ctx, a2, chg(dedup.Change{ID: "a", Cluster: "c", WasMaster: true, Master: "b", Elected: true, Left: true,
		Result: dedup.Result{ID: "a", Cluster: "n", Master: "a"}})); !errors.Is(err, boom) {
		t.Errorf("Update with a failing Source: %v", err)
	}
	if ms, err := x.Members("c"); err != nil || memberList(ms) != "a*+[] b[]" || x.Stats() != before {
		t.Errorf("after the failures: members %s (%v), stats %+v, want %+v", memberList(ms), err, x.Stats(), before)
	}

	// Closed and read-only.
	dir := t.TempDir()
	x, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	if err := x.Remove(ctx, chg(dedup.Change{ID: "a"})); !errors.Is(err, ErrClosed) {
		t.Errorf("Remove after Close: %v", err)
	}
	if err := x.Update(ctx, a, chg(dedup.Change{ID: "a", Result: dedup.Result{ID: "a", Cluster: "c", Master: "a"}})); !errors.Is(err, ErrClosed) {
		t.Errorf("Update after Close: %v", err)
	}
	ro, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if err := ro.Remove(ctx, chg(dedup.Change{ID: "a"})); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Remove read-only: %v", err)
	}
	if err := ro.Update(ctx, a, chg(dedup.Change{ID: "a", Result: dedup.Result{ID: "a", Cluster: "c", Master: "a"}})); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Update read-only: %v", err)
	}
}

// TestNoSource: without Options.Source, Remove fails with ErrUnavailable
// when the master elected was left out, and a member a take-over's master
// does not cover stays out, counted in Stats.Unavailable.
func TestNoSource(t *testing.T) {
	ctx := context.Background()
	bi, err := bleve.NewMemOnly(Mapping())
	if err != nil {
		t.Fatal(err)
	}
	x, err := Wrap(bi, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	add := func(id string, groups []string, r dedup.Result) {
		t.Helper()
		d := mkDoc(id, "travel policy "+id)
		d.Groups = groups
		if err := x.Add(ctx, d, pl(r)); err != nil {
			t.Fatal(err)
		}
	}
	add("a", nil, dedup.Result{ID: "a", Cluster: "c", Master: "a"})
	add("b", hr, dedup.Result{ID: "b", Cluster: "c", Master: "a", Duplicate: true})
	err = x.Remove(ctx, chg(dedup.Change{ID: "a", Cluster: "c", WasMaster: true, Master: "b", Elected: true}))
	if !errors.Is(err, ErrUnavailable) {
		t.Errorf("Remove without a Source: %v, want ErrUnavailable", err)
	}
	// d, of group it, takes over: b (hr) should be indexed now, but there
	// is no document for it.
	add("d", []string{"it"}, dedup.Result{ID: "d", Cluster: "c", Master: "d", Duplicate: true, NewMaster: true})
	ms, err := x.Members("c")
	if err != nil {
		t.Fatal(err)
	}
	if got := memberList(ms); got != "d*+[it] a+[] b[hr]" {
		t.Errorf("members %s", got)
	}
	if st := x.Stats(); st.Unavailable != 1 || st.Demoted != 1 {
		t.Errorf("stats %+v, want 1 unavailable, 1 demoted", st)
	}
}

// TestRemoveOldMapping: in an index whose mapping does not store
// Member.Edited, a hand-over keeps an indexed member indexed under Skip
// (it may have joined through the edit allowance).
func TestRemoveOldMapping(t *testing.T) {
	ctx := context.Background()
	m := Mapping()
	delete(m.TypeMapping[MemberType].Properties, fieldMemberEdited)
	bi, err := bleve.NewMemOnly(m)
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]Doc{}
	x, err := Wrap(bi, Options{Source: SourceFunc(func(_ context.Context, id string) (*Doc, error) {
		if d, ok := docs[id]; ok {
			return &d, nil
		}
		return nil, nil
	})})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	for _, s := range []struct {
		id string
		r  dedup.Result
	}{
		{"a", dedup.Result{ID: "a", Cluster: "c", Master: "a"}},
		{"b", dedup.Result{ID: "b", Cluster: "c", Master: "a", Duplicate: true}},
		{"e", dedup.Result{ID: "e", Cluster: "c", Master: "a", Duplicate: true, Edited: true}},
	} {
		d := mkDoc(s.id, "travel policy "+s.id)
		docs[s.id] = d
		if err := x.Add(ctx, d, pl(s.r)); err != nil {
			t.Fatal(err)
		}
	}
	if err := x.Flush(ctx); err != nil { // Edited is read back from the index: lost
		t.Fatal(err)
	}
	if err := x.Remove(ctx, chg(dedup.Change{ID: "a", Cluster: "c", WasMaster: true, Master: "b", Elected: true})); err != nil {
		t.Fatal(err)
	}
	ms, err := x.Members("c")
	if err != nil {
		t.Fatal(err)
	}
	if got := memberList(ms); got != "b*+[staff g-b] e+[staff g-e]" {
		t.Errorf("members %s, want e still indexed", got)
	}
}

// bleveIndex names bleve.Index for embedding (its method Index would
// clash with a field of that name).
type bleveIndex = bleve.Index

// heldIndex holds its first batch until release is closed.
type heldIndex struct {
	bleveIndex
	held    chan struct{} // closed when the first batch arrives
	release chan struct{}
	batches atomic.Int32
}

func (h *heldIndex) Batch(b *bleve.Batch) error {
	if h.batches.Add(1) == 1 {
		close(h.held)
		<-h.release
	}
	return h.bleveIndex.Batch(b)
}

// TestRemoveWhileWriting: removals and a hand-over while FlushAsync
// writes the batch that added the documents, and a removal of a document
// only in the pending batch. Nothing is written until the background
// write is done (a batch written meanwhile could land first, and the older
// one would bring the removed documents back).
func TestRemoveWhileWriting(t *testing.T) {
	for _, p := range []Policy{Skip, Hidden, All} {
		t.Run(p.String(), func(t *testing.T) {
			ctx := context.Background()
			bi, err := bleve.NewMemOnly(Mapping())
			if err != nil {
				t.Fatal(err)
			}
			h := &heldIndex{bleveIndex: bi, held: make(chan struct{}), release: make(chan struct{})}
			w := &world{t: t, ctx: ctx, policy: p, docs: map[string]Doc{}, hidden: map[string]bool{},
				tokens: map[string]string{}, clusters: map[string]bool{}, ids: map[string]bool{}}
			if w.det, err = dedup.New(nil, dedup.Options{}); err != nil {
				t.Fatal(err)
			}
			if w.x, err = Wrap(h, Options{Policy: p, BatchSize: 10, Source: SourceFunc(w.source)}); err != nil {
				t.Fatal(err)
			}
			defer w.x.Close()
			release := sync.OnceFunc(func() { close(h.release) })
			defer release() // before Close, which waits for the write, if the test fails
			for _, id := range []string{"a", "b", "c"} {
				w.add(w.doc(id, 0, nil, "http://x/"+id, nil, day0))
			}
			// From now on every change fills the batch: Remove would write
			// it at once, but for the write in progress.
			w.x.opts.BatchSize = 1
			wait := w.x.FlushAsync()
			<-h.held
			w.remove("a", true) // b elected: under Skip from the Source, its removal being written
			w.check(false)
			w.add(w.doc("e", 1, nil, "http://x/e", nil, day0))
			w.remove("e", false) // only in the pending batch
			w.remove("c", false) // added by the batch being written
			w.check(false)
			if st := w.x.Stats(); st.Batches != 0 || st.Pending != 5 {
				t.Errorf("while writing: %+v, want nothing written, 5 pending (3 removals, a promotion, an add)", st)
			}
			release()
			if err := wait(); err != nil {
				t.Fatal(err)
			}
			w.check(true)
			if st := w.x.Stats(); st.Batches != 2 || st.Removed != 3 || st.Promoted != 1 {
				t.Errorf("stats %+v", st)
			}
		})
	}
}
