package indexer_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/en" // registers "en", the user's analyzer
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/doppel-search/doppel/indexer"
)

// userMapping is a user's own mapping, as they had it before Doppel:
// untyped documents mapped dynamically and analyzed in English, and a
// "note" type whose content is analyzed by the standard analyzer.
func userMapping() *mapping.IndexMappingImpl {
	m := bleve.NewIndexMapping()
	m.DefaultAnalyzer = "en"
	note := bleve.NewDocumentMapping()
	content := bleve.NewTextFieldMapping()
	content.Analyzer = "standard"
	note.AddFieldMappingsAt("content", content)
	m.AddDocumentMapping("note", note)
	return m
}

// userDocs are the user's own documents: untyped ones and notes.
var userDocs = map[string]map[string]any{
	"u1": {"content": "The budget meetings moved to Tuesday.", "category": "finance"},
	"u2": {"content": "Printer toner is ordered by the office manager.", "category": "office"},
	"u3": {"content": "Budget for the summer party.", "category": "finance", "summary": "party budget"},
	"u4": {"_type": "note", "content": "Meetings: bring the budget sheets.", "category": "notes"},
	"u5": {"_type": "note", "content": "Call the printer repair service.", "category": "notes"},
}

// doppelDocs are pages a crawl adds through Doppel, with their
// placements in order: p2 a near-duplicate of p1 (left out under Skip,
// with a difference record), p4 taking cluster c3 over from p3.
var doppelDocs = []struct {
	doc indexer.Doc
	at  indexer.Placement
}{
	{indexer.Doc{ID: "http://intranet/budget", Title: "Budget", Body: "The budget meetings are held monthly in room 4."},
		indexer.Placement{Cluster: "c1", Master: "http://intranet/budget"}},
	{indexer.Doc{ID: "http://intranet/budget?print=1", Title: "Budget (print)", Body: "The budget meetings are held monthly in room 4. Printed copy."},
		indexer.Placement{Cluster: "c1", Master: "http://intranet/budget", Duplicate: true}},
	{indexer.Doc{ID: "http://intranet/toner", Title: "Toner", Body: "Printer toner cartridges for every floor."},
		indexer.Placement{Cluster: "c3", Master: "http://intranet/toner"}},
	{indexer.Doc{ID: "http://intranet/toner-new", Title: "Toner", Body: "Printer toner cartridges for every floor, and paper."},
		indexer.Placement{Cluster: "c3", Master: "http://intranet/toner-new", Duplicate: true}},
}

// userResults is what the user's own search code reads from their index.
type userResults struct {
	queries map[string]*bleve.SearchResult // by the query's name
	docs    uint64                         // DocCount
}

// userSearch is the user's own search code, plain bleve: match queries
// on _all, a field query, a match-all listing with its count, a facet,
// and the document count.
func userSearch(t *testing.T, idx bleve.Index) userResults {
	t.Helper()
	qs := map[string]query.Query{"all": bleve.NewMatchAllQuery()}
	for _, w := range []string{"budget", "meetings", "printer", "sheet"} {
		qs["_all "+w] = bleve.NewMatchQuery(w)
	}
	for _, w := range []string{"budget", "meetings"} {
		q := bleve.NewMatchQuery(w)
		q.SetField("content")
		qs["content "+w] = q
	}
	out := userResults{queries: map[string]*bleve.SearchResult{}}
	for name, q := range qs {
		req := bleve.NewSearchRequestOptions(q, 100, 0, false)
		req.SortBy([]string{"-_score", "_id"})
		req.AddFacet("category", bleve.NewFacetRequest("category", 10))
		res, err := idx.Search(req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out.queries[name] = res
	}
	n, err := idx.DocCount()
	if err != nil {
		t.Fatal(err)
	}
	out.docs = n
	return out
}

// indexUserDocs makes an index with mapping m holding the user's
// documents.
func indexUserDocs(t *testing.T, m mapping.IndexMapping) bleve.Index {
	t.Helper()
	idx, err := bleve.NewMemOnly(m)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idx.Close() })
	for _, id := range slices.Sorted(maps.Keys(userDocs)) {
		if err := idx.Index(id, userDocs[id]); err != nil {
			t.Fatal(err)
		}
	}
	return idx
}

// hitIDs returns the ids of res's hits that keep says to keep.
func hitIDs(res *bleve.SearchResult, keep func(string) bool) []string {
	var out []string
	for _, h := range res.Hits {
		if keep(h.ID) {
			out = append(out, h.ID)
		}
	}
	return out
}

func isUsers(id string) bool { return userDocs[id] != nil }

// facetTerms returns a result's category facet as "term=count" strings.
func facetTerms(res *bleve.SearchResult) []string {
	var out []string
	f := res.Facets["category"]
	if f == nil || f.Terms == nil {
		return nil
	}
	for _, tf := range f.Terms.Terms() {
		out = append(out, fmt.Sprintf("%s=%d", tf.Term, tf.Count))
	}
	return out
}

// TestUserSearchUnchanged is the conformance test of a user's own
// mapping: the user's search code, run on their index without Doppel,
// with Doppel's types added (AddTo) and then with Doppel's documents
// written through Wrap (near-duplicates, a difference record, a
// hand-over), gives the same results for their documents — the same
// hits in the same order, the same field-query counts and facets. Doppel
// adds its whole documents to the index and nothing else: DocCount and
// the match-all count grow by Index.Indexed, the match-all listing holds
// no member or difference record, and Close leaves the user's indexes
// open.
func TestUserSearchUnchanged(t *testing.T) {
	ctx := context.Background()
	before := userSearch(t, indexUserDocs(t, userMapping()))

	m := userMapping()
	if err := indexer.AddTo(m); err != nil {
		t.Fatal(err)
	}
	idx := indexUserDocs(t, m)
	added := userSearch(t, idx)
	// Doppel's types alone change nothing at all, scores included.
	for name, res := range before.queries {
		got := added.queries[name]
		if got.Total != res.Total || !slices.Equal(scores(got), scores(res)) || !slices.Equal(hitIDs(got, isUsers), hitIDs(res, isUsers)) ||
			!slices.Equal(facetTerms(got), facetTerms(res)) {
			t.Errorf("%s after AddTo: %d hits %v %v, want %d %v %v", name, got.Total, hitIDs(got, isUsers), scores(got), res.Total, hitIDs(res, isUsers), scores(res))
		}
	}

	records, err := bleve.NewMemOnly(indexer.RecordsMapping())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { records.Close() })
	ix, err := indexer.Wrap(idx, indexer.Options{Records: records})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range doppelDocs {
		if err := ix.Add(ctx, d.doc, d.at); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	var doppel []string
	if err := ix.EachID(func(id string) error { doppel = append(doppel, id); return nil }); err != nil {
		t.Fatal(err)
	}
	if want := []string{"http://intranet/budget", "http://intranet/toner-new"}; !slices.Equal(doppel, want) {
		t.Fatalf("Doppel's documents = %q, want %q", doppel, want)
	}
	if n, err := records.DocCount(); err != nil || n < uint64(len(doppelDocs)) {
		t.Fatalf("records index holds %d records (%v), want a member record per page at least", n, err)
	}
	after := userSearch(t, idx)

	for name, res := range before.queries {
		got := after.queries[name]
		if g, w := hitIDs(got, isUsers), hitIDs(res, isUsers); !slices.Equal(g, w) {
			t.Errorf("%s: the user's hits are %q, want %q", name, g, w)
		}
		if g, w := facetTerms(got), facetTerms(res); !slices.Equal(g, w) {
			t.Errorf("%s: facet %q, want %q", name, g, w)
		}
		// Every other hit is one of Doppel's documents: no member or
		// difference record.
		for _, id := range hitIDs(got, func(id string) bool { return !isUsers(id) }) {
			if !slices.Contains(doppel, id) {
				t.Errorf("%s: hit %q is neither the user's nor one of Doppel's documents", name, id)
			}
		}
	}
	for _, name := range []string{"content budget", "content meetings"} {
		if g, w := after.queries[name].Total, before.queries[name].Total; g != w {
			t.Errorf("%s: %d hits, want %d", name, g, w)
		}
	}
	if g, w := after.queries["all"].Total, before.queries["all"].Total+uint64(len(doppel)); g != w {
		t.Errorf("match-all counts %d, want %d (the user's documents and Doppel's)", g, w)
	}
	if g, w := after.docs, before.docs+uint64(len(doppel)); g != w {
		t.Errorf("DocCount = %d, want %d (the user's documents and Doppel's)", g, w)
	}
	// Doppel's documents are found by the user's _all queries too (their
	// text is in _all), and by Doppel's own.
	if ids := hitIDs(after.queries["_all budget"], func(id string) bool { return !isUsers(id) }); !slices.Equal(ids, []string{"http://intranet/budget"}) {
		t.Errorf("_all budget found Doppel's %q, want the budget page", ids)
	}
	res, err := ix.Search(ctx, bleve.NewSearchRequest(ix.Searchable(indexer.TextQuery("cartridge"))))
	if err != nil || len(res.Hits) != 1 || res.Hits[0].ID != "http://intranet/toner-new" {
		t.Errorf("Doppel's search for cartridge: %v (%v), want the new toner page", res, err)
	}
	if members, err := ix.Members("c1"); err != nil || len(members) != 2 {
		t.Errorf("members of c1: %v (%v), want 2", members, err)
	}

	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := idx.DocCount(); err != nil {
		t.Errorf("the user's index after Close: %v", err)
	}
	if _, err := records.DocCount(); err != nil {
		t.Errorf("the records index after Close: %v", err)
	}
	if again := userSearch(t, idx); again.docs != after.docs {
		t.Errorf("DocCount after Close = %d, want %d", again.docs, after.docs)
	}
}

func scores(res *bleve.SearchResult) []float64 {
	var out []float64
	for _, h := range res.Hits {
		out = append(out, h.Score)
	}
	return out
}

// TestAddToKeepsTheDefaults: AddTo changes neither the default type,
// mapping, analyzer or field of the user's mapping, nor the analyzer a
// query on _all or on one of the user's fields is analyzed with —
// checked on fresh mappings, as bleve walks types in map order.
func TestAddToKeepsTheDefaults(t *testing.T) {
	paths := []string{"_all", "content", "category", "summary"}
	for round := range 5 {
		m := userMapping()
		want := []string{m.DefaultType, m.DefaultAnalyzer, m.DefaultField, m.TypeField}
		dm := m.DefaultMapping
		for _, p := range paths {
			want = append(want, m.AnalyzerNameForPath(p))
		}
		if err := indexer.AddTo(m); err != nil {
			t.Fatal(err)
		}
		got := []string{m.DefaultType, m.DefaultAnalyzer, m.DefaultField, m.TypeField}
		for _, p := range paths {
			got = append(got, m.AnalyzerNameForPath(p))
		}
		if !slices.Equal(got, want) || m.DefaultMapping != dm {
			t.Errorf("round %d: after AddTo %q (same default mapping: %v), want %q", round, got, m.DefaultMapping == dm, want)
		}
		if m.TypeMapping[indexer.DocType] == nil || m.TypeMapping[indexer.MemberType] != nil {
			t.Errorf("round %d: AddTo added types %q, want Doppel's document types and no member type", round, slices.Sorted(maps.Keys(m.TypeMapping)))
		}
		if got := m.AnalyzerNameForPath(indexer.FieldBody); got != indexer.AnalyzerName {
			t.Errorf("round %d: body is analyzed by %q, want %q", round, got, indexer.AnalyzerName)
		}
	}
}

// TestAddToClash: a mapping that already maps one of Doppel's fields or
// types is refused, unchanged.
func TestAddToClash(t *testing.T) {
	for name, m := range map[string]func() *mapping.IndexMappingImpl{
		"default field": func() *mapping.IndexMappingImpl {
			m := userMapping()
			m.DefaultMapping.AddFieldMappingsAt(indexer.FieldTitle, bleve.NewTextFieldMapping())
			return m
		},
		"typed field": func() *mapping.IndexMappingImpl {
			m := userMapping()
			m.TypeMapping["note"].AddFieldMappingsAt(indexer.FieldURL, bleve.NewKeywordFieldMapping())
			return m
		},
		"type": func() *mapping.IndexMappingImpl {
			m := userMapping()
			m.AddDocumentMapping(indexer.DocType, bleve.NewDocumentMapping())
			return m
		},
		"twice": func() *mapping.IndexMappingImpl {
			m := userMapping()
			if err := indexer.AddTo(m); err != nil {
				t.Fatal(err)
			}
			return m
		},
	} {
		m := m()
		types := len(m.TypeMapping)
		err := indexer.AddTo(m)
		if !errors.Is(err, indexer.ErrMapping) || len(m.TypeMapping) != types {
			t.Errorf("%s: AddTo = %v with %d types, want ErrMapping with %d", name, err, len(m.TypeMapping), types)
		}
	}
}

// TestWrapUserIndex: Wrap refuses a user's index without Doppel's types,
// or without (or with a wrong) records index, and a Doppel index with
// one.
func TestWrapUserIndex(t *testing.T) {
	withTypes := userMapping()
	if err := indexer.AddTo(withTypes); err != nil {
		t.Fatal(err)
	}
	mem := func(m mapping.IndexMapping) bleve.Index {
		idx, err := bleve.NewMemOnly(m)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { idx.Close() })
		return idx
	}
	for _, c := range []struct {
		name    string
		idx     bleve.Index
		records bleve.Index
		want    error
	}{
		{"user's mapping", mem(userMapping()), mem(indexer.RecordsMapping()), indexer.ErrMapping},
		{"no records", mem(withTypes), nil, indexer.ErrRecords},
		{"records without Doppel's types", mem(withTypes), mem(userMapping()), indexer.ErrRecords},
		{"Doppel's index with records", mem(indexer.Mapping()), mem(indexer.RecordsMapping()), indexer.ErrRecords},
	} {
		if _, err := indexer.Wrap(c.idx, indexer.Options{Records: c.records}); !errors.Is(err, c.want) {
			t.Errorf("%s: Wrap = %v, want %v", c.name, err, c.want)
		}
	}
	if !strings.Contains(indexer.ErrRecords.Error(), "indexer:") {
		t.Errorf("ErrRecords %q lacks the package prefix", indexer.ErrRecords)
	}
}

// failingIndex fails its next Batch while fail is set.
type failingIndex struct {
	bleveIndex
	fail bool
}

// bleveIndex names the embedded index (bleve.Index has a method Index).
type bleveIndex = bleve.Index

func (f *failingIndex) Batch(b *bleve.Batch) error {
	if f.fail {
		f.fail = false
		return errors.New("disk full")
	}
	return f.bleveIndex.Batch(b)
}

// TestUserIndexReplay: with a user's own index, a document and its
// member record are written by two batches, the user index's first. When
// the records' write fails after the user index's (a crash between
// them), adding again what was added since the last successful Flush,
// through a new Index, leaves both indexes as a run without the failure
// does.
func TestUserIndexReplay(t *testing.T) {
	ctx := context.Background()
	run := func(failOnce bool) (bleve.Index, *indexer.Index) {
		m := userMapping()
		if err := indexer.AddTo(m); err != nil {
			t.Fatal(err)
		}
		idx := indexUserDocs(t, m)
		mem, err := bleve.NewMemOnly(indexer.RecordsMapping())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { mem.Close() })
		records := &failingIndex{bleveIndex: mem, fail: failOnce}
		add := func() *indexer.Index {
			ix, err := indexer.Wrap(idx, indexer.Options{Records: records, NoAutoFlush: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range doppelDocs {
				if err := ix.Add(ctx, d.doc, d.at); err != nil {
					t.Fatal(err)
				}
			}
			return ix
		}
		ix := add()
		if err := ix.Flush(ctx); failOnce != (err != nil) {
			t.Fatalf("Flush with a failing records index: %v", err)
		}
		if failOnce { // the process dies; a new one adds again
			if n, _ := idx.DocCount(); n != uint64(len(userDocs)+2) {
				t.Fatalf("the user's index holds %d documents after the failed flush, want the user's and Doppel's two", n)
			}
			if n, _ := mem.DocCount(); n != 0 {
				t.Fatalf("the records index holds %d records after its failed write, want none", n)
			}
			ix = add()
			if err := ix.Flush(ctx); err != nil {
				t.Fatal(err)
			}
		}
		return mem, ix
	}
	state := func(records bleve.Index, ix *indexer.Index) string {
		var b strings.Builder
		ix.EachID(func(id string) error {
			d, err := ix.Document(id)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "doc %s master=%v\n", id, d.Master)
			return nil
		})
		for _, c := range []string{"c1", "c3"} {
			ms, err := ix.Members(c)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range ms {
				fmt.Fprintf(&b, "%s: %s indexed=%v master=%v\n", c, m.ID, m.Indexed, m.Master)
			}
		}
		n, _ := ix.DocCount()
		r, _ := records.DocCount()
		fmt.Fprintf(&b, "records %d, user index %d\n", r, n)
		return b.String()
	}
	clean, replayed := state(run(false)), state(run(true))
	if clean != replayed {
		t.Errorf("after the replay:\n%s\nwithout the failure:\n%s", replayed, clean)
	}
	if !strings.Contains(clean, "c1: http://intranet/budget?print=1 indexed=false") {
		t.Errorf("the state compared lacks the skipped copy:\n%s", clean)
	}
}

// TestUserDocumentsKept: Add, Update and Remove refuse the id of one of
// the user's own documents, which stays as it was; Doppel's own
// documents are added again (a recrawl) and removed as usual.
func TestUserDocumentsKept(t *testing.T) {
	ctx := context.Background()
	m := userMapping()
	if err := indexer.AddTo(m); err != nil {
		t.Fatal(err)
	}
	idx := indexUserDocs(t, m)
	records, err := bleve.NewMemOnly(indexer.RecordsMapping())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { records.Close() })
	ix, err := indexer.Wrap(idx, indexer.Options{Records: records})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	at := indexer.Placement{Cluster: "c", Master: "u1"}
	errs := map[string]error{
		"Add":    ix.Add(ctx, indexer.Doc{ID: "u1", Body: "replaced"}, at),
		"Update": ix.Update(ctx, indexer.Doc{ID: "u1", Body: "replaced"}, indexer.Change{ID: "u1", Cluster: "c", Master: "u1", Placement: at}),
		"Remove": ix.Remove(ctx, indexer.Change{ID: "u1", Cluster: "c"}),
	}
	for name, err := range errs {
		if !errors.Is(err, indexer.ErrUserDocument) {
			t.Errorf("%s of the user's document = %v, want ErrUserDocument", name, err)
		}
	}
	if err := ix.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	q := bleve.NewMatchQuery("Tuesday") // on _all, analyzed as u1 was
	if res, err := idx.Search(bleve.NewSearchRequest(q)); err != nil || len(res.Hits) != 1 || res.Hits[0].ID != "u1" {
		t.Errorf("the user's document after the refused writes: %v (%v)", res, err)
	}
	page := indexer.Doc{ID: "http://intranet/a", Body: "A page."}
	for range 2 {
		if err := ix.Add(ctx, page, indexer.Placement{Cluster: "ca", Master: page.ID}); err != nil {
			t.Fatalf("adding Doppel's page: %v", err)
		}
		if err := ix.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.Remove(ctx, indexer.Change{ID: page.ID, Cluster: "ca"}); err != nil {
		t.Fatalf("removing Doppel's page: %v", err)
	}
	if err := ix.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := idx.DocCount(); err != nil || n != uint64(len(userDocs)) {
		t.Errorf("DocCount after the page left = %d (%v), want the user's %d", n, err, len(userDocs))
	}
}
