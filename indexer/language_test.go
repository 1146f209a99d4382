package indexer

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	blevepl "github.com/blevesearch/bleve/v2/analysis/lang/pl"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/registry"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/doppel-search/doppel/internal/tokens"
)

func TestAnalyzerFor(t *testing.T) {
	for l, want := range map[string]string{
		"": AnalyzerName, "en": AnalyzerName, "xx": AnalyzerName, "el": AnalyzerName, // no stemmer in bleve: the default
		"de": "doppel-de", "fr": "doppel-fr", "nb": "doppel-no", "pt": "doppel-pt", "ru": "doppel-ru",
		"ja": "doppel-cjk", "ko": "doppel-cjk", "zh-hans": "doppel-cjk", "zh-hant": "doppel-cjk",
	} {
		if got := AnalyzerFor(l); got != want {
			t.Errorf("AnalyzerFor(%q) = %q, want %q", l, got, want)
		}
	}
	if got := Analyzers([]string{"de", "en", "at", "ja", "ko", "de"}); !slices.Equal(got, []string{AnalyzerName, "doppel-de", "doppel-cjk"}) {
		t.Errorf("Analyzers = %q", got)
	}
}

// TestLanguageAnalyzersKeepTheTokens: every language's analyzer starts
// from the detector's tokens — each term it makes stands at the position
// of a token of internal/tokens and comes from it — and only filters them
// (stop words out, stems, folded forms).
func TestLanguageAnalyzersKeepTheTokens(t *testing.T) {
	m := Mapping()
	text := "Die Häuser am See — les maisons de l'homme; the houses; Домов; 東京都の会議室, ｶﾀｶﾅ; x86_64"
	var want []string
	tokens.Scan(text, func(start, end int, _ bool) { want = append(want, text[start:end]) })
	for _, l := range append(allLanguages(), "en") {
		name := AnalyzerFor(l)
		an := m.AnalyzerNamed(name)
		if an == nil {
			t.Fatalf("%s: no analyzer %q", l, name)
		}
		toks := an.Analyze([]byte(text))
		if len(toks) == 0 {
			t.Errorf("%s: no tokens", l)
		}
		for _, tok := range toks {
			if tok.Position < 1 || tok.Position > len(want) || text[tok.Start:tok.End] != want[tok.Position-1] {
				t.Errorf("%s: token %q at %d (%q) is not the tokenizer's token there", l, tok.Term, tok.Position, text[tok.Start:tok.End])
			}
		}
	}
}

// TestPagesAnalyzedInTheirLanguage: a page is indexed by its language's
// analyzer — a German page's "Häuser" is found by "Haus", a French page's
// "maisons" by "maison" — and TextQuery, which analyzes the words as
// every language does, finds each page by its own words; an English page
// keeps the Porter stemmer.
func TestPagesAnalyzedInTheirLanguage(t *testing.T) {
	ix := memIndex(t, Mapping(), Options{Policy: All})
	ctx := context.Background()
	docs := []Doc{
		{ID: "de", Lang: "de", Title: "Ferienhäuser", Body: "Die Häuser am See werden im Sommer vermietet."},
		{ID: "fr", Lang: "fr", Title: "Location", Body: "Les maisons du lac sont louées en été."},
		{ID: "en", Lang: "en", Title: "Rentals", Body: "The houses by the lake are rented in summer."},
		{ID: "ja", Lang: "ja", Title: "別荘", Body: "湖畔の別荘は夏に貸し出されます。ＶＰＮ"},
	}
	for _, d := range docs {
		d.URL = "http://x/" + d.ID
		if err := ix.Add(ctx, d, Placement{ID: d.ID, Cluster: d.ID, Master: d.ID}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	find := func(q query.Query) []string { return hitIDs(t, ix, ix.Searchable(q)) }
	term := func(field, t string) query.Query {
		q := bleve.NewTermQuery(t)
		q.SetField(field)
		return q
	}
	for _, c := range []struct {
		name string
		q    query.Query
		want []string
	}{
		{"german stem in the index", term(FieldBody, "haus"), []string{"de"}},
		{"french stem in the index", term(FieldBody, "maison"), []string{"fr"}},
		{"english stem in the index", term(FieldBody, "hous"), []string{"en"}},
		{"width folded", term(FieldBody, "vpn"), []string{"ja"}},
		{"haus", TextQuery("Haus"), []string{"de"}},
		{"häuser", TextQuery("Häuser"), []string{"de"}},
		{"maison", TextQuery("maison"), []string{"fr"}},
		{"house", TextQuery("house"), []string{"en"}},
		{"別荘", TextQuery("別荘"), []string{"ja"}},
	} {
		if got := find(c.q); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	// The language is stored as before, and the German page reads back whole.
	d, err := ix.Document("de")
	if err != nil || d == nil || d.Lang != "de" || !strings.Contains(d.Body, "Häuser") {
		t.Errorf("Document(de) = %+v, %v", d, err)
	}
}

// TestOldMappingStillIndexesLanguages: an index made with a mapping
// without the language types (before they existed) indexes a German page
// by the default analyzer, as it did.
func TestOldMappingStillIndexesLanguages(t *testing.T) {
	m := Mapping()
	for name := range m.TypeMapping {
		if strings.HasPrefix(name, DocType+"/") {
			delete(m.TypeMapping, name)
		}
	}
	ix := memIndex(t, m, Options{Policy: All})
	ctx := context.Background()
	d := Doc{ID: "de", URL: "http://x/de", Lang: "de", Body: "Die Häuser am See"}
	if err := ix.Add(ctx, d, Placement{ID: "de", Cluster: "de", Master: "de"}); err != nil {
		t.Fatal(err)
	}
	if err := ix.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	q := bleve.NewTermQuery("häuser") // Porter leaves it; the German stemmer would not
	q.SetField(FieldBody)
	res, err := ix.Search(ctx, bleve.NewSearchRequest(ix.Searchable(q)))
	if err != nil || res.Total != 1 {
		t.Errorf("old mapping: %v hits, %v", res, err)
	}
}

// memIndex returns an empty index in memory with mapping m, closed when
// the test ends.
func memIndex(t *testing.T, m *mapping.IndexMappingImpl, opts Options) *Index {
	t.Helper()
	bi, err := bleve.NewMemOnly(m)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := Wrap(bi, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

// hitIDs returns the ids of the documents q finds in ix, sorted.
func hitIDs(t *testing.T, ix *Index, q query.Query) []string {
	t.Helper()
	res, err := ix.Search(context.Background(), bleve.NewSearchRequest(q))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range res.Hits {
		got = append(got, h.ID)
	}
	slices.Sort(got)
	return got
}

// TestLanguages lists the languages of the documents, most first, from
// the term dictionary: nothing for an empty index; none for documents of
// unknown language; after a removal, the language may stay listed, but
// never one no document had.
func TestLanguages(t *testing.T) {
	x, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if got, err := x.Languages(); err != nil || len(got) != 0 {
		t.Fatalf("empty index: %q, %v", got, err)
	}
	ctx := context.Background()
	for i, l := range []string{"de", "fr", "de", "", "ja", "de", "fr"} {
		id := string(rune('a' + i))
		if err := x.Add(ctx, Doc{ID: id, Title: "t " + id, Body: "b", Lang: l}, Placement{Cluster: "c" + id, Master: id}); err != nil {
			t.Fatal(err)
		}
	}
	if err := x.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := x.Languages()
	if err != nil || !slices.Equal(got, []string{"de", "fr", "ja"}) {
		t.Errorf("Languages = %q, %v; want de, fr, ja", got, err)
	}
	if err := x.Remove(ctx, Change{ID: "e", Cluster: "ce"}); err != nil {
		t.Fatal(err)
	}
	if err := x.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	got, err = x.Languages()
	if err != nil || len(got) < 2 || !slices.Equal(got[:2], []string{"de", "fr"}) || len(got) > 3 {
		t.Errorf("after removing the Japanese page: %q, %v", got, err)
	}
}

// TestPolishStemmerShared: the Polish analyzer of every index mapping
// holds one stemmer, built once a process (its table takes 131 ms to read at a load
// of 26), and stems as bleve's own Polish analyzer does: the same terms
// for the same words, some of them not the words as written.
func TestPolishStemmerShared(t *testing.T) {
	text := "najlepsze książki o programowaniu w językach funkcyjnych i ich kompilatorach"
	a, b := Mapping().AnalyzerNamed(AnalyzerFor("pl")), Mapping().AnalyzerNamed(AnalyzerFor("pl"))
	if a == nil || b == nil {
		t.Fatalf("no analyzer %q", AnalyzerFor("pl"))
	}
	last := func(an analysis.Analyzer) analysis.TokenFilter {
		fs := an.(*analysis.DefaultAnalyzer).TokenFilters
		return fs[len(fs)-1]
	}
	if last(a) != last(b) {
		t.Errorf("two mappings' Polish analyzers hold two stemmers: %p and %p", last(a), last(b))
	}
	theirs, err := registry.NewCache().AnalyzerNamed(blevepl.AnalyzerName)
	if err != nil {
		t.Fatal(err)
	}
	if last(theirs) == last(a) {
		t.Fatal("bleve's own Polish analyzer holds the shared stemmer: the comparison below compares it with itself")
	}
	terms := func(an analysis.Analyzer) []string {
		var out []string
		for _, tok := range an.Analyze([]byte(text)) {
			out = append(out, string(tok.Term))
		}
		return out
	}
	got, want := terms(a), terms(theirs)
	if !slices.Equal(got, want) {
		t.Errorf("Polish terms %q, bleve's Polish analyzer %q", got, want)
	}
	if stemmed := slices.DeleteFunc(slices.Clone(got), func(term string) bool { return slices.Contains(strings.Fields(text), term) }); len(stemmed) == 0 {
		t.Errorf("Polish terms %q: none stemmed", got)
	}
}
