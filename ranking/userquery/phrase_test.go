package userquery

import (
	"fmt"
	"slices"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/standard"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
)

// phraseIndex holds the shapes a phrase check meets: a phrase in
// order and out of it, twice in a document, a stop word's gap, a word
// that fills two slots ("17" of "Java SE 17 & JDK 17"), and a field
// whose values are an array (positions restart in each value: a phrase
// does not run from one value into the next).
// The index is bleve's in memory, or scorch's on disk (a segment a
// document, if the merger leaves them), if disk.
func phraseIndex(t testing.TB, disk bool) bleve.Index {
	t.Helper()
	text := bleve.NewTextFieldMapping()
	text.Analyzer = standard.Name
	text.IncludeTermVectors = true
	dm := bleve.NewDocumentStaticMapping()
	dm.AddFieldMappingsAt("body", text)
	dm.AddFieldMappingsAt("heads", text)
	dm.AddFieldMappingsAt("kind", bleve.NewKeywordFieldMapping())
	im := bleve.NewIndexMapping()
	im.DefaultMapping = dm
	ix, err := bleve.NewMemOnly(im)
	if disk {
		ix, err = bleve.New(t.TempDir()+"/index", im)
	}
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]map[string]any{
		"in-order":   {"body": "the quick brown fox jumps", "heads": []string{"alpha beta", "gamma delta"}},
		"reversed":   {"body": "the fox brown quick jumps", "heads": []string{"beta alpha"}},
		"twice":      {"body": "quick brown fox and again a quick brown fox, quick brown", "heads": []string{"gamma", "alpha beta gamma"}},
		"gap":        {"body": "quick the fox; quick red fox", "heads": []string{"delta"}},
		"fast":       {"body": "a fast brown fox", "heads": []string{"alpha", "beta"}},
		"java":       {"body": "uses of class string java se 17 jdk 17 java se 17", "heads": []string{"java se 17 jdk 17"}},
		"java-apart": {"body": "java se 17 and jdk 17, jdk 17 java se", "heads": []string{"java se 17", "jdk 17"}},
		"nothing":    {"body": "lorem ipsum dolor", "heads": []string{"sit amet"}},
		"across":     {"body": "alpha", "heads": []string{"alpha", "zeta beta"}}, // alpha and beta at positions 1 and 2 of two values
	}
	b := ix.NewBatch()
	for id, d := range docs {
		d["kind"] = "doc"
		if err := b.Index(id, d); err != nil {
			t.Fatal(err)
		}
		if disk { // a segment a document: positions read across segments
			if err := ix.Batch(b); err != nil {
				t.Fatal(err)
			}
			b.Reset()
		}
	}
	if err := ix.Batch(b); err != nil {
		t.Fatal(err)
	}
	return ix
}

// TestPhraseAsBleve: phraseQuery matches the documents bleve's
// multi-phrase query matches, with the same scores, alone and as the
// optional clause of a boolean query (whose searcher advances it to the
// required clause's matches), and keeps the locations of its phrases
// when a search asks for them.
func TestPhraseAsBleve(t *testing.T) {
	for _, disk := range []bool{false, true} {
		ix := phraseIndex(t, disk)
		t.Run(fmt.Sprint("disk=", disk), func(t *testing.T) { phraseAsBleve(t, ix) })
		if err := ix.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func phraseAsBleve(t *testing.T, ix bleve.Index) {
	for _, tc := range []struct {
		field string
		terms [][]string
		want  []string // the documents holding the phrase, by id
	}{
		{"body", [][]string{{"quick"}, {"brown"}, {"fox"}}, []string{"in-order", "twice"}},
		{"body", [][]string{{"quick", "fast"}, {"brown"}, {"fox"}}, []string{"fast", "in-order", "twice"}},
		{"body", [][]string{{"quick"}, nil, {"fox"}}, []string{"gap", "in-order", "twice"}},
		{"body", [][]string{{"quick"}, {"fox"}}, nil}, // the stop word's place stays
		{"body", [][]string{{"quick"}, nil, nil, {"fox"}}, nil},
		{"body", [][]string{{"quick"}, {"brown"}}, []string{"in-order", "twice"}},
		{"body", [][]string{{"brown"}, {"quick"}}, []string{"reversed"}},
		{"body", [][]string{{"java"}, {"se"}, {"17"}, {"jdk"}, {"17"}}, []string{"java"}},
		{"body", [][]string{{"17"}, {"jdk"}, {"17"}}, []string{"java", "java-apart"}},
		{"body", [][]string{{"17"}, {"jdk"}, {"17"}, {"java"}}, []string{"java", "java-apart"}},
		{"body", [][]string{{"17"}, {"jdk"}, {"17"}, {"java"}, {"17"}}, nil},
		{"body", [][]string{{"quick"}, {"unicorn"}}, nil},
		{"heads", [][]string{{"alpha"}, {"beta"}}, []string{"in-order", "twice"}},
		{"heads", [][]string{{"beta"}, {"gamma"}}, []string{"twice"}}, // not across in-order's two values
		{"heads", [][]string{{"alpha"}, nil, {"delta"}}, nil},
		{"heads", [][]string{{"se"}, {"17"}, {"jdk"}}, []string{"java"}},
		{"heads", [][]string{{"17"}, {"jdk"}}, []string{"java"}},
	} {
		name := fmt.Sprintf("%s:%q", tc.field, tc.terms)
		ours := &phraseQuery{terms: tc.terms, field: tc.field, boost: 2}
		theirs := ours.Phrase()
		ids, scores := scored(t, ix, ours)
		if !sameSet(ids, tc.want) {
			t.Errorf("%s matches %v, want %v", name, ids, tc.want)
		}
		bids, bscores := scored(t, ix, theirs)
		if !slices.Equal(ids, bids) || !slices.Equal(scores, bscores) {
			t.Errorf("%s: %v %v, bleve's phrase %v %v", name, ids, scores, bids, bscores)
		}
		all := func(ph query.Query) query.Query {
			kind := query.NewTermQuery("doc")
			kind.SetField("kind")
			return query.NewBooleanQuery([]query.Query{kind}, []query.Query{ph}, nil)
		}
		ids, scores = scored(t, ix, all(ours))
		bids, bscores = scored(t, ix, all(theirs))
		if len(ids) != 9 || !slices.Equal(ids, bids) || !slices.Equal(scores, bscores) {
			t.Errorf("%s, optional: %v %v, bleve's phrase %v %v", name, ids, scores, bids, bscores)
		}
		if got, want := locations(t, ix, ours, tc.field), locations(t, ix, theirs, tc.field); !slices.Equal(got, want) {
			t.Errorf("%s: locations %v, bleve's phrase %v", name, got, want)
		}
	}
}

// locations returns the locations in field of every hit of q, as
// "id term array-positions position", sorted.
func locations(t testing.TB, ix bleve.Index, q query.Query, field string) []string {
	t.Helper()
	req := bleve.NewSearchRequestOptions(q, 100, 0, false)
	req.IncludeLocations = true
	res, err := ix.Search(req)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range res.Hits {
		for term, locs := range h.Locations[field] {
			for _, l := range locs {
				out = append(out, fmt.Sprintf("%s %s %v %d", h.ID, term, l.ArrayPositions, l.Pos))
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestPhraseSearcherCounts: the searcher is bleve's in what its parent
// reads besides matches — minimum, count, pool size — and closes.
func TestPhraseSearcherCounts(t *testing.T) {
	ix := phraseIndex(t, true)
	defer ix.Close()
	r, err := ix.Advanced()
	if err != nil {
		t.Fatal(err)
	}
	reader, err := r.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	q := &phraseQuery{terms: [][]string{{"quick"}, {"brown"}}, field: "body", boost: 1}
	ours, err := q.Searcher(t.Context(), reader, ix.Mapping(), bsearch.SearcherOptions{})
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := q.Phrase().Searcher(t.Context(), reader, ix.Mapping(), bsearch.SearcherOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ours.Min() != theirs.Min() || ours.Count() != theirs.Count() || ours.DocumentMatchPoolSize() != theirs.DocumentMatchPoolSize() ||
		ours.Weight() != theirs.Weight() || ours.Size() <= 0 {
		t.Errorf("min %d count %d pool %d weight %v size %d; bleve's %d %d %d %v", ours.Min(), ours.Count(), ours.DocumentMatchPoolSize(),
			ours.Weight(), ours.Size(), theirs.Min(), theirs.Count(), theirs.DocumentMatchPoolSize(), theirs.Weight())
	}
	for _, s := range []bsearch.Searcher{ours, theirs} {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	}
}
