package userquery

import (
	"context"
	"slices"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/de"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
)

// TestWordsInLanguages: with a further analyzer, each position's word
// has the terms of both, and a stop word of either is optional; Holds
// drops the further analyzer's terms the index lacks, never the
// mapping's.
func TestWordsInLanguages(t *testing.T) {
	p := testParser()
	for _, tc := range []struct {
		text string
		l    Languages
		want []word
	}{
		{"die Häuser", Languages{}, []word{{[]string{"die"}, true}, {[]string{"häuser"}, true}}},
		{"die Häuser", Languages{Analyzers: []string{de.AnalyzerName}}, []word{{[]string{"die"}, false}, {[]string{"häuser", "haus"}, true}}},
		{"the houses", Languages{Analyzers: []string{de.AnalyzerName}}, []word{{[]string{"the"}, false}, {[]string{"hous"}, true}}}, // both stem it alike
		{"die Häuser", Languages{Analyzers: []string{de.AnalyzerName}, Holds: func(t string) bool { return t != "haus" && t != "die" }},
			[]word{{[]string{"die"}, false}, {[]string{"häuser"}, true}}},
		{"Häuser", Languages{Analyzers: []string{"no such analyzer"}}, []word{{[]string{"häuser"}, true}}},
	} {
		got := p.With(tc.l).wordsIn("body", tc.text)
		if !slices.EqualFunc(got, tc.want, func(a, b word) bool { return a.required == b.required && slices.Equal(a.terms, b.terms) }) {
			t.Errorf("%q with %v: %+v, want %+v", tc.text, tc.l.Analyzers, got, tc.want)
		}
	}
}

// TestSearchInLanguages: over pages indexed in English and in German, a
// query analyzed in both finds each page by its own forms; a word that is
// a stop word of one language does not keep that language's pages out.
func TestSearchInLanguages(t *testing.T) {
	im := testMapping()
	dm := bleve.NewDocumentStaticMapping()
	dm.DefaultAnalyzer = de.AnalyzerName
	for _, n := range []string{"title", "headings", "body"} {
		f := bleve.NewTextFieldMapping()
		f.IncludeTermVectors = true
		dm.AddFieldMappingsAt(n, f)
	}
	im.AddDocumentMapping("de", dm)
	im.TypeField = "type"
	idx, err := bleve.NewMemOnly(im)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	for id, d := range map[string]map[string]string{
		"en": {"type": "en", "title": "Holiday homes", "body": "The houses by the lake are rented in summer."},
		"de": {"type": "de", "title": "Ferienwohnungen", "body": "Die Häuser am See werden im Sommer vermietet."},
	} {
		if err := idx.Index(id, d); err != nil {
			t.Fatal(err)
		}
	}
	p := New(Options{Fields: fields, Mapping: im}).With(Languages{Analyzers: []string{en.AnalyzerName, de.AnalyzerName}})
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"Haus", []string{"de"}},
		{"die Häuser", []string{"de"}},
		{`"Häuser am See"`, []string{"de"}},
		{"house lake", []string{"en"}},
		{"summer", []string{"en"}},
		{"sommer", []string{"de"}},
		{"title:ferienwohnung", []string{"de"}},
		{"Häuser -see", []string{}},
	} {
		res, err := idx.SearchInContext(context.Background(), bleve.NewSearchRequest(p.Query(tc.q)))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range res.Hits {
			got = append(got, h.ID)
		}
		if !sameSet(got, tc.want) {
			t.Errorf("%q: %v, want %v", tc.q, got, tc.want)
		}
	}
}

// TestRelaxedJudgesWords: a relaxed query asks the caller about a word
// with every term its languages make of it, at once — the German stem
// of "Häuser" cannot make the word rare on its own.
func TestRelaxedJudgesWords(t *testing.T) {
	p := testParser().With(Languages{Analyzers: []string{de.AnalyzerName}})
	var asked [][]string
	p.Relaxed(p.Parse("Häuser lake"), func(terms []string) bool {
		asked = append(asked, slices.Clone(terms))
		return false
	})
	want := [][]string{{"häuser", "haus"}, {"lake", "lak"}}
	if !slices.EqualFunc(asked, want, slices.Equal) {
		t.Errorf("asked about %v, want %v", asked, want)
	}
}
