// Package indextest is the conformance suite of the Doppel index's two
// sides, [indexer.Writer] and [indexer.Searcher]: [Run] checks one
// implementation against the contract their doc comments state, as
// package indexer's tests do for the bleve index (in a directory and in
// memory). A second implementation — shards of bleve behind an
// IndexAlias, an index over HTTP — runs the same suite:
//
//	func TestConformance(t *testing.T) {
//		indextest.Run(t, func(t *testing.T, opts indexer.Options) indextest.Subject {
//			return openMyIndex(t, opts)
//		})
//	}
//
// The suite drives the index with plain placements and changes, as
// package hook converts a detector's decisions, and checks what searches,
// stored documents, member records and counts then say.
package indextest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/doppel-search/doppel/indexer"
)

// A Subject is one implementation of both sides of a Doppel index, on
// one store: what it writes, it searches.
type Subject interface {
	indexer.Writer
	indexer.Searcher
}

// Open returns a new, empty Subject configured by opts. The suite sets
// opts.Policy, opts.NoAutoFlush, opts.BatchSize and opts.Source as each
// test needs; the implementation must honour them as [indexer.Options]
// documents. The suite closes the Subject (a second Close may return
// [indexer.ErrClosed]); Open registers any other cleanup with t.
type Open func(t *testing.T, opts indexer.Options) Subject

// A test is one check of the suite.
type test struct {
	name string
	run  func(t *testing.T, open Open)
}

// tests is the suite, in the order Run runs it.
var tests = []test{
	{"Empty", testEmpty},
	{"VisibleAfterFlush", testVisibleAfterFlush},
	{"FlushAsync", testFlushAsync},
	{"RemoveVisibleAfterFlush", testRemoveVisibleAfterFlush},
	{"AddTwice", testAddTwice},
	{"RemoveTwice", testRemoveTwice},
	{"StoredDocument", testStoredDocument},
	{"StoredFieldsAndSortKeys", testStoredFields},
	{"FindByField", testFindByField},
	{"Policies", testPolicies},
	{"DifferenceRecords", testDifferenceRecords},
	{"Edited", testEdited},
	{"AccessGroups", testAccessGroups},
	{"Update", testUpdate},
	{"RemoveElects", testRemoveElects},
	{"RemoveUnavailable", testRemoveUnavailable},
	{"InvalidWrites", testInvalid},
	{"TermShares", testTermShares},
	{"Counts", testCounts},
	{"Concurrent", testConcurrent},
	{"Closed", testClosed},
}

// Names returns the names of the suite's subtests, in the order Run
// runs them.
func Names() []string {
	out := make([]string, len(tests))
	for i, tc := range tests {
		out[i] = tc.name
	}
	return out
}

// Run runs the suite against the implementation open opens, each check as
// a subtest of t with a Subject of its own.
func Run(t *testing.T, open Open) {
	closing := func(t *testing.T, opts indexer.Options) Subject {
		t.Helper()
		s := open(t, opts)
		if s == nil {
			t.Fatal("indextest: Open returned nil")
		}
		t.Cleanup(func() {
			if err := s.Close(); err != nil && !errors.Is(err, indexer.ErrClosed) {
				t.Errorf("Close: %v", err)
			}
		})
		return s
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, closing) })
	}
}

// everyone holds every access group the suite uses.
var everyone = []string{"hr", "finance", "staff"}

// when is the documents' last modification.
var when = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

// doc returns a public document id with body.
func doc(id, body string) indexer.Doc {
	return indexer.Doc{ID: id, URL: "http://intra.example/" + id, Host: "intra.example", Title: "Title " + id,
		Body: body, LastModified: when, Lang: "en"}
}

// master places id as the master of cluster; a master that takes over a
// cluster with other members is a Duplicate.
func master(id, cluster string, takeover bool) indexer.Placement {
	return indexer.Placement{ID: id, Cluster: cluster, Master: id, Duplicate: takeover}
}

// copyOf places id as a near-duplicate of m in cluster.
func copyOf(id, cluster, m string) indexer.Placement {
	return indexer.Placement{ID: id, Cluster: cluster, Master: m, Duplicate: true}
}

// removal is the change of removing id from cluster, where it was alone
// or not the master.
func removal(id, cluster, m string) indexer.Change {
	return indexer.Change{ID: id, Cluster: cluster, Master: m}
}

func add(t *testing.T, w indexer.Writer, d indexer.Doc, p indexer.Placement) {
	t.Helper()
	if err := w.Add(context.Background(), d, p); err != nil {
		t.Fatalf("Add %s: %v", d.ID, err)
	}
}

func flush(t *testing.T, w indexer.Writer) {
	t.Helper()
	if err := w.Flush(context.Background()); err != nil {
		t.Fatalf("Flush: %v", err)
	}
}

func remove(t *testing.T, w indexer.Writer, ch indexer.Change) {
	t.Helper()
	if err := w.Remove(context.Background(), ch); err != nil {
		t.Fatalf("Remove %s: %v", ch.ID, err)
	}
}

// visible restricts q to records a user in every group may see: documents
// and difference records, not member records (which have no groups).
func visible(q query.Query) query.Query {
	return query.NewConjunctionQuery([]query.Query{q, indexer.VisibleTo(everyone)})
}

// search returns the ids of the records q matches (at most 1000), in id
// order.
func search(t *testing.T, s indexer.Searcher, q query.Query) []string {
	t.Helper()
	req := bleve.NewSearchRequestOptions(q, 1000, 0, false)
	req.SortBy([]string{"_id"})
	res, err := s.Search(context.Background(), req)
	if err != nil {
		t.Fatalf("Search: %v", err)
	}
	ids := []string{}
	for _, h := range res.Hits {
		ids = append(ids, h.ID)
	}
	if int(res.Total) != len(ids) {
		t.Errorf("Search: total %d, %d hits %v", res.Total, len(ids), ids)
	}
	return ids
}

// find returns the ids of the visible records q matches.
func find(t *testing.T, s indexer.Searcher, q query.Query) []string {
	t.Helper()
	return search(t, s, visible(q))
}

// match is a match query for text in field.
func match(field, text string) query.Query {
	q := bleve.NewMatchQuery(text)
	q.SetField(field)
	return q
}

// term is a term query for the keyword v in field.
func term(field, v string) query.Query {
	q := bleve.NewTermQuery(v)
	q.SetField(field)
	return q
}

// mastersOf matches the records of cluster that say they are its master.
func mastersOf(cluster string) query.Query {
	m := bleve.NewBoolFieldQuery(true)
	m.SetField(indexer.FieldMaster)
	return query.NewConjunctionQuery([]query.Query{m, term(indexer.FieldCluster, cluster)})
}

// all matches every visible record.
func all() query.Query { return bleve.NewMatchAllQuery() }

func want(t *testing.T, what string, got []string, exp ...string) {
	t.Helper()
	if exp == nil {
		exp = []string{}
	}
	if !slices.Equal(got, exp) {
		t.Errorf("%s = %v, want %v", what, got, exp)
	}
}

func searchable(t *testing.T, s indexer.Searcher) int {
	t.Helper()
	n, err := s.SearchableCount()
	if err != nil {
		t.Fatalf("SearchableCount: %v", err)
	}
	return n
}

func document(t *testing.T, s indexer.Searcher, id string) *indexer.Doc {
	t.Helper()
	d, err := s.Document(id)
	if err != nil {
		t.Fatalf("Document(%s): %v", id, err)
	}
	return d
}

func members(t *testing.T, s indexer.Searcher, cluster string) []indexer.Member {
	t.Helper()
	ms, err := s.MembersOfContext(context.Background(), []string{cluster})
	if err != nil {
		t.Fatalf("MembersOfContext(%s): %v", cluster, err)
	}
	return ms[cluster]
}

// roster writes members as "id*" for the master and "id+" for an indexed
// non-master, "id" for one left out, in their order.
func roster(ms []indexer.Member) []string {
	out := []string{}
	for _, m := range ms {
		s := m.ID
		switch {
		case m.Master:
			s += "*"
		case m.Indexed:
			s += "+"
		}
		out = append(out, s)
	}
	return out
}

// testEmpty: a new store holds nothing.
func testEmpty(t *testing.T, open Open) {
	s := open(t, indexer.Options{})
	want(t, "match all", find(t, s, all()))
	if n := searchable(t, s); n != 0 {
		t.Errorf("SearchableCount = %d, want 0", n)
	}
	if d := document(t, s, "x"); d != nil {
		t.Errorf("Document(x) = %+v, want nil", d)
	}
	if ms := members(t, s, "c"); len(ms) != 0 {
		t.Errorf("members of an unknown cluster: %+v", ms)
	}
	if s.Mapping() == nil {
		t.Error("Mapping() = nil")
	}
}

// testVisibleAfterFlush: with NoAutoFlush, searches see an added
// document only after Flush; Document and members see it at once.
func testVisibleAfterFlush(t *testing.T, open Open) {
	s := open(t, indexer.Options{NoAutoFlush: true, BatchSize: 1})
	add(t, s, doc("a", "printer toner"), master("a", "ca", false))
	add(t, s, doc("b", "holiday calendar"), master("b", "cb", false))
	want(t, "before Flush: body:toner", find(t, s, match(indexer.FieldBody, "toner")))
	want(t, "before Flush: match all", find(t, s, all()))
	if n := searchable(t, s); n != 0 {
		t.Errorf("before Flush: SearchableCount = %d, want 0", n)
	}
	if d := document(t, s, "a"); d == nil || d.Body != "printer toner" {
		t.Errorf("before Flush: Document(a) = %+v, want the document", d)
	}
	want(t, "before Flush: members of ca", roster(members(t, s, "ca")), "a*")
	flush(t, s)
	want(t, "body:toner", find(t, s, match(indexer.FieldBody, "toner")), "a")
	want(t, "match all", find(t, s, all()), "a", "b")
	if n := searchable(t, s); n != 2 {
		t.Errorf("SearchableCount = %d, want 2", n)
	}
	want(t, "members of ca", roster(members(t, s, "ca")), "a*")
}

// testFlushAsync: FlushAsync writes the batch it takes; what is added
// meanwhile waits for the next write.
func testFlushAsync(t *testing.T, open Open) {
	s := open(t, indexer.Options{NoAutoFlush: true})
	add(t, s, doc("a", "printer toner"), master("a", "ca", false))
	wait := s.FlushAsync()
	add(t, s, doc("b", "holiday calendar"), master("b", "cb", false))
	for _, id := range []string{"a", "b"} {
		if d := document(t, s, id); d == nil {
			t.Errorf("during FlushAsync: Document(%s) = nil", id)
		}
	}
	if err := wait(); err != nil {
		t.Fatalf("FlushAsync: %v", err)
	}
	want(t, "after FlushAsync: match all", find(t, s, all()), "a")
	flush(t, s)
	want(t, "after Flush: match all", find(t, s, all()), "a", "b")
	if err := s.FlushAsync()(); err != nil {
		t.Errorf("FlushAsync with nothing pending: %v", err)
	}
}

// testRemoveVisibleAfterFlush: a removal reaches searches with the
// Flush; Document and members follow it at once.
func testRemoveVisibleAfterFlush(t *testing.T, open Open) {
	s := open(t, indexer.Options{NoAutoFlush: true})
	add(t, s, doc("a", "printer toner"), master("a", "ca", false))
	add(t, s, doc("b", "holiday calendar"), master("b", "cb", false))
	flush(t, s)
	remove(t, s, removal("a", "ca", ""))
	want(t, "before Flush: body:toner", find(t, s, match(indexer.FieldBody, "toner")), "a")
	if d := document(t, s, "a"); d != nil {
		t.Errorf("after Remove: Document(a) = %+v, want nil", d)
	}
	want(t, "after Remove: members of ca", roster(members(t, s, "ca")))
	flush(t, s)
	want(t, "after Flush: body:toner", find(t, s, match(indexer.FieldBody, "toner")))
	want(t, "after Flush: match all", find(t, s, all()), "b")
	if n := searchable(t, s); n != 1 {
		t.Errorf("SearchableCount = %d, want 1", n)
	}
}

// testAddTwice: adding a document again, flushed or not, replaces it.
func testAddTwice(t *testing.T, open Open) {
	s := open(t, indexer.Options{NoAutoFlush: true})
	d := doc("a", "printer toner")
	add(t, s, d, master("a", "ca", false))
	add(t, s, d, master("a", "ca", false))
	flush(t, s)
	d.Title = "Printer handbook"
	add(t, s, d, master("a", "ca", false))
	flush(t, s)
	want(t, "body:toner", find(t, s, match(indexer.FieldBody, "toner")), "a")
	want(t, "match all", find(t, s, all()), "a")
	want(t, "title:handbook", find(t, s, match(indexer.FieldTitle, "handbook")), "a")
	if n := searchable(t, s); n != 1 {
		t.Errorf("SearchableCount = %d, want 1", n)
	}
	want(t, "members of ca", roster(members(t, s, "ca")), "a*")
	if got := document(t, s, "a"); got == nil || got.Title != d.Title {
		t.Errorf("Document(a) = %+v, want title %q", got, d.Title)
	}
}

// testRemoveTwice: removing a removed document changes nothing.
func testRemoveTwice(t *testing.T, open Open) {
	s := open(t, indexer.Options{})
	add(t, s, doc("a", "printer toner"), master("a", "ca", false))
	add(t, s, doc("b", "holiday calendar"), master("b", "cb", false))
	flush(t, s)
	remove(t, s, removal("a", "ca", ""))
	flush(t, s)
	remove(t, s, removal("a", "ca", ""))
	remove(t, s, removal("never", "cn", ""))
	flush(t, s)
	want(t, "match all", find(t, s, all()), "b")
	want(t, "members of ca", roster(members(t, s, "ca")))
	want(t, "members of cb", roster(members(t, s, "cb")), "b*")
}

// full is a document with every field set.
func full() indexer.Doc {
	return indexer.Doc{ID: "full", URL: "http://intra.example/full", Host: "intra.example", Title: "Travel policy",
		Headings: []string{"Hotels", "Meals"}, Body: "Book hotels early.\n\nKeep receipts.",
		Template: []string{"Intranet footer", "Contact HR"}, Anchors: []string{"travel", "policy page"},
		LastModified: when, Groups: []string{"hr", "staff"}, Lang: "en", Simhash: 0xdeadbeef00000001}
}

// testStoredDocument: Document returns what was added, with the
// placement's cluster and master flag, before and after Flush.
func testStoredDocument(t *testing.T, open Open) {
	s := open(t, indexer.Options{NoAutoFlush: true})
	d := full()
	add(t, s, d, master("full", "cf", false))
	exp := d
	exp.Cluster, exp.Master = "cf", true
	for _, stage := range []string{"before Flush", "after Flush"} {
		if stage == "after Flush" {
			flush(t, s)
		}
		got := document(t, s, "full")
		if got == nil {
			t.Fatalf("%s: Document(full) = nil", stage)
		}
		if !got.LastModified.Equal(exp.LastModified) {
			t.Errorf("%s: LastModified %v, want %v", stage, got.LastModified, exp.LastModified)
		}
		g := *got
		g.LastModified = exp.LastModified
		if !reflect.DeepEqual(g, exp) {
			t.Errorf("%s: Document(full) =\n%+v\nwant\n%+v", stage, g, exp)
		}
	}
	ms := members(t, s, "cf")
	if len(ms) != 1 {
		t.Fatalf("members of cf: %+v", ms)
	}
	m := ms[0]
	if m.ID != d.ID || m.URL != d.URL || m.Title != d.Title || !m.Indexed || !m.Master || !slices.Equal(m.Groups, d.Groups) ||
		!m.LastModified.Equal(d.LastModified) || m.Length != len(d.Body) || m.Lang != d.Lang || m.Edited {
		t.Errorf("member %+v does not match %+v", m, d)
	}
}

// testStoredFields: hits carry the stored fields package ranking reads,
// with their types, highlights, and the cluster and master flag as sort
// keys.
func testStoredFields(t *testing.T, open Open) {
	s := open(t, indexer.Options{Policy: indexer.Hidden})
	add(t, s, doc("m", "printer toner cartridges"), master("m", "c", false))
	add(t, s, doc("n", "printer toner refills"), copyOf("n", "c", "m"))
	flush(t, s)

	req := bleve.NewSearchRequestOptions(visible(match(indexer.FieldBody, "toner")), 10, 0, false)
	req.SortBy([]string{"-_score", "_id", indexer.FieldCluster, indexer.FieldMaster})
	req.Fields = []string{indexer.FieldURL, indexer.FieldTitle, indexer.FieldHost, indexer.FieldCluster,
		indexer.FieldMaster, indexer.FieldLastModified, indexer.FieldBody, indexer.FieldLang}
	req.Highlight = bleve.NewHighlight()
	req.Highlight.AddField(indexer.FieldBody)
	res, err := s.Search(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 2 {
		t.Fatalf("hits %v, want m and n", res.Hits)
	}
	for _, h := range res.Hits {
		isMaster := h.ID == "m"
		flag := map[bool]string{true: "T", false: "F"}[isMaster]
		if len(h.Sort) != 4 || h.Sort[1] != h.ID || h.Sort[2] != "c" || h.Sort[3] != flag {
			t.Errorf("%s: sort keys %q, want [score %s c %s]", h.ID, h.Sort, h.ID, flag)
		}
		f := h.Fields
		lm, _ := f[indexer.FieldLastModified].(string)
		at, err := time.Parse(time.RFC3339, lm)
		if f[indexer.FieldURL] != "http://intra.example/"+h.ID || f[indexer.FieldTitle] != "Title "+h.ID ||
			f[indexer.FieldHost] != "intra.example" || f[indexer.FieldCluster] != "c" || f[indexer.FieldMaster] != isMaster ||
			f[indexer.FieldLang] != "en" || err != nil || !at.Equal(when) {
			t.Errorf("%s: fields %v", h.ID, f)
		}
		if body, _ := f[indexer.FieldBody].(string); body != "printer toner "+map[bool]string{true: "cartridges", false: "refills"}[isMaster] {
			t.Errorf("%s: stored body %q", h.ID, body)
		}
		if len(h.Fragments[indexer.FieldBody]) == 0 {
			t.Errorf("%s: no body highlight", h.ID)
		}
	}
}

// testFindByField: each searchable field finds the documents that hold
// the value.
func testFindByField(t *testing.T, open Open) {
	s := open(t, indexer.Options{})
	f1 := doc("f1", "numbers for the quarter")
	f1.Host, f1.URL, f1.Title, f1.Simhash = "one.example", "http://one.example/f1", "Quarterly budget", 0x1
	f1.LastModified = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	f2 := doc("f2", "dates to remember")
	f2.Host, f2.Lang, f2.Simhash, f2.Anchors, f2.Headings = "two.example", "de", 0xabc, []string{"holiday calendar"}, []string{"Travel rules"}
	f2.LastModified = time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	f3 := doc("f3", "salary bands")
	f3.Host, f3.Lang, f3.Groups, f3.LastModified = "one.example", "", []string{"hr"}, time.Time{}
	for i, d := range []indexer.Doc{f1, f2, f3} {
		add(t, s, d, master(d.ID, fmt.Sprint("c", i+1), false))
	}
	flush(t, s)
	since := bleve.NewDateRangeQuery(time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), time.Time{})
	since.SetField(indexer.FieldLastModified)
	masters := bleve.NewBoolFieldQuery(true)
	masters.SetField(indexer.FieldMaster)
	for _, tc := range []struct {
		name string
		q    query.Query
		want []string
	}{
		{"host", term(indexer.FieldHost, "one.example"), []string{"f1", "f3"}},
		{"url", term(indexer.FieldURL, "http://one.example/f1"), []string{"f1"}},
		{"lang", term(indexer.FieldLang, "de"), []string{"f2"}},
		{"cluster", term(indexer.FieldCluster, "c2"), []string{"f2"}},
		{"simhash", term(indexer.FieldSimhash, "0000000000000abc"), []string{"f2"}},
		{"groups", term(indexer.FieldGroups, "hr"), []string{"f3"}},
		{"public", term(indexer.FieldGroups, indexer.PublicGroup), []string{"f1", "f2"}},
		{"last_modified", since, []string{"f2"}},
		{"master", masters, []string{"f1", "f2", "f3"}},
		{"title", indexer.TextQuery("budgets"), []string{"f1"}},
		{"anchors", indexer.TextQuery("calendar"), []string{"f2"}},
		{"headings", indexer.TextQuery("rules"), []string{"f2"}},
		{"body", indexer.TextQuery("salary"), []string{"f3"}},
		{"nothing", indexer.TextQuery("zeppelin"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) { want(t, tc.name, find(t, s, tc.q), tc.want...) })
	}
}

// sequence adds two clusters of three public documents; in cluster a the
// third takes over as master.
func sequence(t *testing.T, w indexer.Writer) {
	t.Helper()
	add(t, w, doc("a1", "printer manual chapter one toner"), master("a1", "a", false))
	add(t, w, doc("b1", "holiday calendar vacation policy"), master("b1", "b", false))
	add(t, w, doc("a2", "printer manual chapter one toner copy"), copyOf("a2", "a", "a1"))
	add(t, w, doc("b2", "holiday calendar vacation policy print"), copyOf("b2", "b", "b1"))
	add(t, w, doc("a3", "printer manual chapter one toner newest"), master("a3", "a", true))
	add(t, w, doc("b3", "holiday calendar vacation policy old"), copyOf("b3", "b", "b1"))
	flush(t, w)
}

// testPolicies: under each policy a cluster has exactly one searchable
// master, its members say which are indexed, and near-duplicates are
// left out (Skip) or kept as non-masters (Hidden, All).
func testPolicies(t *testing.T, open Open) {
	for _, tc := range []struct {
		policy     indexer.Policy
		searchable int
		whole      []string // whole documents in the index
	}{
		{indexer.Skip, 2, []string{"a3", "b1"}},
		{indexer.Hidden, 2, []string{"a1", "a2", "a3", "b1", "b2", "b3"}},
		{indexer.All, 6, []string{"a1", "a2", "a3", "b1", "b2", "b3"}},
	} {
		t.Run(tc.policy.String(), func(t *testing.T) {
			for _, batch := range []int{1, 200} { // a master demoted from the index, or from the batch
				s := open(t, indexer.Options{Policy: tc.policy, BatchSize: batch})
				sequence(t, s)
				want(t, "masters of a", find(t, s, mastersOf("a")), "a3")
				want(t, "masters of b", find(t, s, mastersOf("b")), "b1")
				if n := searchable(t, s); n != tc.searchable {
					t.Errorf("batch %d: SearchableCount = %d, want %d", batch, n, tc.searchable)
				}
				in := map[bool]string{true: "+", false: ""}[tc.policy != indexer.Skip]
				want(t, "members of a", roster(members(t, s, "a")), "a3*", "a1"+in, "a2"+in)
				want(t, "members of b", roster(members(t, s, "b")), "b1*", "b2"+in, "b3"+in)
				var whole []string
				for _, id := range []string{"a1", "a2", "a3", "b1", "b2", "b3"} {
					d := document(t, s, id)
					if d == nil {
						continue
					}
					whole = append(whole, id)
					if d.Master != (id == "a3" || id == "b1") || d.Cluster != id[:1] || d.Diff {
						t.Errorf("Document(%s): cluster %q master %v diff %v", id, d.Cluster, d.Master, d.Diff)
					}
				}
				want(t, "whole documents", whole, tc.whole...)
				if tc.policy != indexer.Skip {
					// The demoted master keeps its text and is found as a non-master.
					want(t, "body:toner", find(t, s, match(indexer.FieldBody, "toner")), "a1", "a2", "a3")
				}
			}
		})
	}
}

// testDifferenceRecords: under Skip a near-duplicate left out is found by
// what its master lacks, as a difference record (diff=true,
// master=false), never as a document; an exact copy keeps none.
func testDifferenceRecords(t *testing.T, open Open) {
	s := open(t, indexer.Options{})
	sequence(t, s)
	e1 := doc("e1", "the same text")
	e2 := e1
	e2.ID, e2.URL = "e2", "http://intra.example/e2"
	add(t, s, e1, master("e1", "e", false))
	add(t, s, e2, copyOf("e2", "e", "e1"))
	flush(t, s)

	want(t, "body:copy (a2's own word)", find(t, s, match(indexer.FieldBody, "copy")), "a2")
	want(t, "title:a2", find(t, s, match(indexer.FieldTitle, "a2")), "a2")
	want(t, "records of cluster a", find(t, s, term(indexer.FieldCluster, "a")), "a1", "a2", "a3")
	want(t, "records of cluster e", find(t, s, term(indexer.FieldCluster, "e")), "e1")
	diff := bleve.NewBoolFieldQuery(true)
	diff.SetField(indexer.FieldDiff)
	want(t, "difference records", find(t, s, diff), "a1", "a2", "b2", "b3")
	want(t, "masters of a", find(t, s, mastersOf("a")), "a3")
	for _, id := range []string{"a1", "a2", "e2"} {
		if d := document(t, s, id); d != nil {
			t.Errorf("Document(%s) = %+v, want nil (a difference record is not the document)", id, d)
		}
	}
	if n := searchable(t, s); n != 3 {
		t.Errorf("SearchableCount = %d, want 3 (a3, b1, e1)", n)
	}
}

// testEdited: under Skip a near-duplicate that joined through the edit
// allowance is indexed as a non-master.
func testEdited(t *testing.T, open Open) {
	s := open(t, indexer.Options{})
	add(t, s, doc("m", "travel policy hotels meals"), master("m", "c", false))
	p := copyOf("e", "c", "m")
	p.Edited = true
	add(t, s, doc("e", "travel policy hotels meals taxis"), p)
	add(t, s, doc("k", "travel policy hotels meals"), copyOf("k", "c", "m"))
	flush(t, s)
	ms := members(t, s, "c")
	want(t, "members of c", roster(ms), "m*", "e+", "k")
	for _, m := range ms {
		if m.Edited != (m.ID == "e") {
			t.Errorf("member %s: Edited %v", m.ID, m.Edited)
		}
	}
	if d := document(t, s, "e"); d == nil || d.Master || d.Diff {
		t.Errorf("Document(e) = %+v, want the whole document, not master", d)
	}
	want(t, "body:taxis", find(t, s, match(indexer.FieldBody, "taxis")), "e")
	if n := searchable(t, s); n != 1 {
		t.Errorf("SearchableCount = %d, want 1", n)
	}
}

// testAccessGroups: documents keep their access groups; a query filtered
// by a user's groups finds what they may see; under Skip a copy some users
// may see without its master is indexed as a non-master.
func testAccessGroups(t *testing.T, open Open) {
	s := open(t, indexer.Options{})
	m := doc("m", "salary bands and grades")
	m.Groups = []string{"hr"}
	add(t, s, m, master("m", "c", false))
	same := doc("same", "salary bands and grades")
	same.Groups = []string{"hr"}
	add(t, s, same, copyOf("same", "c", "m"))
	fin := doc("fin", "salary bands and grades")
	fin.Groups = []string{"finance"}
	add(t, s, fin, copyOf("fin", "c", "m"))
	add(t, s, doc("pub", "canteen menu"), master("pub", "p", false))
	flush(t, s)

	mine := func(groups ...string) []string {
		t.Helper()
		return search(t, s, query.NewConjunctionQuery([]query.Query{indexer.TextQuery("salary canteen"), indexer.VisibleTo(groups)}))
	}
	want(t, "public user", mine(), "pub")
	want(t, "hr user", mine("hr"), "m", "pub")
	want(t, "finance user", mine("finance"), "fin", "pub")
	want(t, "members of c", roster(members(t, s, "c")), "m*", "fin+", "same")
	for _, tc := range []struct {
		id     string
		groups []string
	}{{"m", []string{"hr"}}, {"fin", []string{"finance"}}, {"pub", nil}} {
		d := document(t, s, tc.id)
		if d == nil || !slices.Equal(d.Groups, tc.groups) {
			t.Errorf("Document(%s) = %+v, want groups %v", tc.id, d, tc.groups)
		}
	}
	for _, mb := range members(t, s, "c") {
		if exp := map[string]string{"m": "hr", "same": "hr", "fin": "finance"}[mb.ID]; !slices.Equal(mb.Groups, []string{exp}) {
			t.Errorf("member %s: groups %v, want [%s]", mb.ID, mb.Groups, exp)
		}
	}
}

// testUpdate: a new version replaces the old one in searches, documents
// and members.
func testUpdate(t *testing.T, open Open) {
	s := open(t, indexer.Options{})
	add(t, s, doc("u", "alpha bravo"), master("u", "cu", false))
	flush(t, s)
	d := doc("u", "charlie delta")
	d.Title = "Renamed"
	ch := indexer.Change{ID: "u", Cluster: "cu", Master: "u", Placement: master("u", "cu", false)}
	if err := s.Update(context.Background(), d, ch); err != nil {
		t.Fatal(err)
	}
	want(t, "before Flush: body:bravo", find(t, s, match(indexer.FieldBody, "bravo")), "u")
	flush(t, s)
	want(t, "body:bravo", find(t, s, match(indexer.FieldBody, "bravo")))
	want(t, "body:charlie", find(t, s, match(indexer.FieldBody, "charlie")), "u")
	if got := document(t, s, "u"); got == nil || got.Body != d.Body || !got.Master {
		t.Errorf("Document(u) = %+v, want the new version as master", got)
	}
	ms := members(t, s, "cu")
	if len(ms) != 1 || ms[0].Title != "Renamed" || !ms[0].Master {
		t.Errorf("members of cu = %+v, want the new version alone", ms)
	}
	if n := searchable(t, s); n != 1 {
		t.Errorf("SearchableCount = %d, want 1", n)
	}
}

// docs is a Source over a map.
type docs map[string]indexer.Doc

func (m docs) Doc(_ context.Context, id string) (*indexer.Doc, error) {
	d, ok := m[id]
	if !ok {
		return nil, nil
	}
	return &d, nil
}

// testRemoveElects: removing a master makes the member elected in its
// place the searchable master, its document from the Source when the
// index left it out.
func testRemoveElects(t *testing.T, open Open) {
	for _, p := range []indexer.Policy{indexer.Skip, indexer.Hidden, indexer.All} {
		t.Run(p.String(), func(t *testing.T) {
			src := docs{"m": doc("m", "travel policy hotels"), "c1": doc("c1", "travel policy hotels meals"),
				"c2": doc("c2", "travel policy hotels taxis")}
			s := open(t, indexer.Options{Policy: p, Source: src})
			add(t, s, src["m"], master("m", "c", false))
			add(t, s, src["c1"], copyOf("c1", "c", "m"))
			add(t, s, src["c2"], copyOf("c2", "c", "m"))
			flush(t, s)
			remove(t, s, indexer.Change{ID: "m", Cluster: "c", Master: "c1", Elected: true})
			flush(t, s)
			want(t, "masters of c", find(t, s, mastersOf("c")), "c1")
			in := map[bool]string{true: "+", false: ""}[p != indexer.Skip]
			want(t, "members of c", roster(members(t, s, "c")), "c1*", "c2"+in)
			if d := document(t, s, "m"); d != nil {
				t.Errorf("Document(m) = %+v, want nil", d)
			}
			if d := document(t, s, "c1"); d == nil || !d.Master || d.Body != src["c1"].Body {
				t.Errorf("Document(c1) = %+v, want the master", d)
			}
			want(t, "body:meals", find(t, s, match(indexer.FieldBody, "meals")), "c1")
		})
	}
}

// testRemoveUnavailable: a removal that needs a document neither the
// index nor the Source has fails with ErrUnavailable and changes nothing.
func testRemoveUnavailable(t *testing.T, open Open) {
	s := open(t, indexer.Options{})
	add(t, s, doc("m", "travel policy hotels"), master("m", "c", false))
	add(t, s, doc("c1", "travel policy hotels"), copyOf("c1", "c", "m"))
	flush(t, s)
	err := s.Remove(context.Background(), indexer.Change{ID: "m", Cluster: "c", Master: "c1", Elected: true})
	if !errors.Is(err, indexer.ErrUnavailable) {
		t.Errorf("Remove = %v, want ErrUnavailable", err)
	}
	flush(t, s)
	want(t, "masters of c", find(t, s, mastersOf("c")), "m")
	want(t, "members of c", roster(members(t, s, "c")), "m*", "c1")
	if d := document(t, s, "m"); d == nil {
		t.Error("Document(m) = nil after a failed Remove")
	}
}

// testInvalid: writes that fail their checks change nothing.
func testInvalid(t *testing.T, open Open) {
	s := open(t, indexer.Options{BatchSize: 1})
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	ok := master("x", "c", false)
	for _, tc := range []struct {
		name string
		ctx  context.Context
		doc  indexer.Doc
		p    indexer.Placement
		want error
	}{
		{"empty id", context.Background(), indexer.Doc{}, indexer.Placement{Cluster: "c"}, indexer.ErrEmptyID},
		{"reserved", context.Background(), doc("doppel.member/x", "t"), indexer.Placement{Cluster: "c"}, indexer.ErrReserved},
		{"mismatch", context.Background(), doc("y", "t"), ok, indexer.ErrMismatch},
		{"no cluster", context.Background(), doc("x", "t"), indexer.Placement{ID: "x", Master: "x"}, indexer.ErrCluster},
		{"canceled", canceled, doc("x", "t"), ok, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := s.Add(tc.ctx, tc.doc, tc.p); !errors.Is(err, tc.want) {
				t.Errorf("Add = %v, want %v", err, tc.want)
			}
		})
	}
	if err := s.Remove(context.Background(), indexer.Change{}); !errors.Is(err, indexer.ErrEmptyID) {
		t.Errorf("Remove of no id = %v, want ErrEmptyID", err)
	}
	if err := s.Update(context.Background(), doc("x", "t"), indexer.Change{ID: "y", Placement: ok}); !errors.Is(err, indexer.ErrMismatch) {
		t.Errorf("Update of another id = %v, want ErrMismatch", err)
	}
	flush(t, s)
	want(t, "match all", find(t, s, all()))
	if ms := members(t, s, "c"); len(ms) != 0 {
		t.Errorf("members of c: %+v", ms)
	}
}

// testTermShares: a term's share grows with the documents holding it,
// is 0 for a term in none, and counts written documents only.
func testTermShares(t *testing.T, open Open) {
	s := open(t, indexer.Options{NoAutoFlush: true})
	shares := func(terms ...string) []float64 {
		t.Helper()
		share, release, err := s.TermShares()
		if err != nil {
			t.Fatalf("TermShares: %v", err)
		}
		defer release()
		out := make([]float64, len(terms))
		for i, w := range terms {
			out[i] = share(w)
		}
		return out
	}
	add(t, s, doc("t1", "kiwi mango"), master("t1", "c1", false))
	add(t, s, doc("t2", "kiwi"), master("t2", "c2", false))
	add(t, s, doc("t3", "kiwi"), master("t3", "c3", false))
	flush(t, s)
	add(t, s, doc("t4", "papaya"), master("t4", "c4", false))
	got := shares("kiwi", "mango", "papaya", "zeppelin")
	if !(got[0] > got[1] && got[1] > 0 && got[0] <= 1) || got[2] != 0 || got[3] != 0 {
		t.Errorf("shares of kiwi (3 documents), mango (1), papaya (not flushed), zeppelin (none) = %v", got)
	}
	flush(t, s)
	if got := shares("papaya"); got[0] <= 0 {
		t.Errorf("share of papaya after Flush = %v, want > 0", got[0])
	}
}

// testCounts: SearchableCount agrees with what was added under each
// policy.
func testCounts(t *testing.T, open Open) {
	for _, p := range []indexer.Policy{indexer.Skip, indexer.Hidden, indexer.All} {
		t.Run(p.String(), func(t *testing.T) {
			s := open(t, indexer.Options{Policy: p, BatchSize: 7})
			clusters, copies := 20, 0
			for i := range clusters {
				c := fmt.Sprint("c", i)
				add(t, s, doc(c+"m", "report number "+c), master(c+"m", c, false))
				for j := range i % 3 {
					id := fmt.Sprint(c, "d", j)
					add(t, s, doc(id, "report number "+c), copyOf(id, c, c+"m"))
					copies++
				}
			}
			flush(t, s)
			exp := clusters
			if p == indexer.All {
				exp += copies
			}
			if n := searchable(t, s); n != exp {
				t.Errorf("SearchableCount = %d, want %d", n, exp)
			}
			masters := bleve.NewBoolFieldQuery(true)
			masters.SetField(indexer.FieldMaster)
			if got := find(t, s, masters); len(got) != clusters {
				t.Errorf("%d masters, want %d", len(got), clusters)
			}
			n := 0
			for i := range clusters {
				n += len(members(t, s, fmt.Sprint("c", i)))
			}
			if n != clusters+copies {
				t.Errorf("%d members, want %d", n, clusters+copies)
			}
		})
	}
}

// testConcurrent: searches, counts and reads run while a writer adds,
// takes clusters over and flushes; none fails, counts never go back, and
// a cluster taken over never shows two masters or none.
func testConcurrent(t *testing.T, open Open) {
	s := open(t, indexer.Options{BatchSize: 5})
	ctx := context.Background()
	add(t, s, doc("t0", "rotating master"), master("t0", "t", false))
	flush(t, s)
	const rounds = 30
	done := make(chan struct{})
	var wg sync.WaitGroup
	for r := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := 0
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				n, err := s.SearchableCount()
				if err != nil {
					t.Errorf("reader %d: SearchableCount: %v", r, err)
					return
				}
				if n < last {
					t.Errorf("reader %d: SearchableCount went from %d to %d", r, last, n)
				}
				last = n
				req := bleve.NewSearchRequest(visible(mastersOf("t")))
				res, err := s.Search(ctx, req)
				if err != nil {
					t.Errorf("reader %d: Search: %v", r, err)
					return
				}
				if res.Total != 1 {
					t.Errorf("reader %d: cluster t shows %d masters", r, res.Total)
				}
				if _, err := s.Document(fmt.Sprint("d", i%rounds)); err != nil {
					t.Errorf("reader %d: Document: %v", r, err)
					return
				}
				if _, err := s.MembersOfContext(ctx, []string{"t", fmt.Sprint("c", i%rounds)}); err != nil {
					t.Errorf("reader %d: MembersOfContext: %v", r, err)
					return
				}
			}
		}()
	}
	for i := range rounds {
		add(t, s, doc(fmt.Sprint("d", i), "some page"), master(fmt.Sprint("d", i), fmt.Sprint("c", i), false))
		add(t, s, doc(fmt.Sprint("t", i+1), "rotating master"), master(fmt.Sprint("t", i+1), "t", true))
		if i%10 == 9 {
			flush(t, s)
		}
	}
	flush(t, s)
	close(done)
	wg.Wait()
	if n := searchable(t, s); n != rounds+1 {
		t.Errorf("SearchableCount = %d, want %d", n, rounds+1)
	}
	want(t, "masters of t", find(t, s, mastersOf("t")), fmt.Sprint("t", rounds))
	if ms := members(t, s, "t"); len(ms) != rounds+1 || ms[0].ID != fmt.Sprint("t", rounds) || !ms[0].Master {
		t.Errorf("members of t: %v, want %d with t%d the master", roster(ms), rounds+1, rounds)
	}
}

// testClosed: after Close every method fails, the Writer's and
// Document's and MembersOfContext's with ErrClosed.
func testClosed(t *testing.T, open Open) {
	s := open(t, indexer.Options{NoAutoFlush: true})
	add(t, s, doc("a", "printer toner"), master("a", "ca", false))
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	ctx := context.Background()
	errs := map[string]error{
		"Add":        s.Add(ctx, doc("b", "x"), master("b", "cb", false)),
		"Remove":     s.Remove(ctx, removal("a", "ca", "")),
		"Update":     s.Update(ctx, doc("a", "x"), indexer.Change{ID: "a", Cluster: "ca", Master: "a", Placement: master("a", "ca", false)}),
		"Flush":      s.Flush(ctx),
		"FlushAsync": s.FlushAsync()(),
		"Close":      s.Close(),
	}
	_, errs["Document"] = s.Document("a")
	_, errs["MembersOfContext"] = s.MembersOfContext(ctx, []string{"ca"})
	names := make([]string, 0, len(errs))
	for name := range errs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !errors.Is(errs[name], indexer.ErrClosed) {
			t.Errorf("%s after Close = %v, want ErrClosed", name, errs[name])
		}
	}
	if _, err := s.Search(ctx, bleve.NewSearchRequest(all())); err == nil {
		t.Error("Search after Close succeeded")
	}
}
