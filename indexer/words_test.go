package indexer

import (
	"context"
	"slices"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
)

// TestWordList: the words analyzer makes each space-separated word a
// term as it is, at positions from 1.
func TestWordList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"eventually", []string{"eventually"}},
		{"vec t new", []string{"vec", "t", "new"}},
		{"東京 京都 x86", []string{"東京", "京都", "x86"}},
		{" a  b ", []string{"a", "b"}},
	} {
		var got []string
		for i, tok := range (wordList{}).Tokenize([]byte(tc.in)) {
			got = append(got, string(tok.Term))
			if tok.Position != i+1 || tc.in[tok.Start:tok.End] != string(tok.Term) {
				t.Errorf("%q: token %d %q at position %d, bytes %d-%d", tc.in, i, tok.Term, tok.Position, tok.Start, tok.End)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Tokenize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// oldWordsMapping is Mapping as it was before word lists were joined:
// FieldWords and FieldSpell keyword fields.
func oldWordsMapping() *mapping.IndexMappingImpl {
	im := Mapping()
	for _, dm := range im.TypeMapping {
		for _, f := range []string{FieldWords, FieldSpell} {
			if p := dm.Properties[f]; p != nil {
				p.Fields[0].Analyzer = "keyword"
			}
		}
	}
	return im
}

// TestWordListsOldAndNew: a new index and one made with the mapping of
// before hold the same terms in FieldWords and FieldSpell.
func TestWordListsOldAndNew(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		im     *mapping.IndexMappingImpl
		joined bool
	}{
		{"new", Mapping(), true},
		{"old", oldWordsMapping(), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			idx, err := bleve.New(t.TempDir(), tc.im)
			if err != nil {
				t.Fatal(err)
			}
			x, err := Wrap(idx, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer idx.Close()
			if x.lists.joined != tc.joined {
				t.Fatalf("joined = %v, want %v", x.lists.joined, tc.joined)
			}
			d := mkDoc("a1", "Eventually the Vec grows, x86_64 too")
			if err := x.Add(ctx, d, Placement{ID: d.ID, Cluster: "c1", Master: d.ID}); err != nil {
				t.Fatal(err)
			}
			if err := x.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			for _, q := range []struct{ field, term string }{
				{FieldSpell, "eventually"}, {FieldSpell, "x86"}, {FieldSpell, "64"}, {FieldSpell, "vec"},
				{FieldWords, "title"}, {FieldWords, "a1"}, {FieldWords, "head"},
			} {
				tq := bleve.NewTermQuery(q.term)
				tq.SetField(q.field)
				res, err := idx.Search(bleve.NewSearchRequest(tq))
				if err != nil || res.Total != 1 {
					t.Errorf("%s:%s matched %v documents (%v), want 1", q.field, q.term, res.Total, err)
				}
			}
			tq := bleve.NewTermQuery("eventually the")
			tq.SetField(FieldSpell)
			if res, err := idx.Search(bleve.NewSearchRequest(tq)); err != nil || res.Total != 0 {
				t.Errorf("two words matched as one term (%v)", err)
			}
		})
	}
}
