package indexer

import (
	"context"
	"testing"

	"github.com/blevesearch/bleve/v2"
)

// TestAllFieldQueries: a plain bleve match query, which searches bleve's
// composite _all field, finds an English page by an inflected word of
// its text — the query is analyzed as the page was ([AnalyzerName]) —
// every time. Bleve picks the analyzer of a path no field names from
// the document types in map order, so a language type's default analyzer
// once answered for _all in some runs: "meetings" was cut to another
// stem than the page's and found nothing. Each round builds a fresh
// mapping, so that a round sees another map order.
func TestAllFieldQueries(t *testing.T) {
	ctx := context.Background()
	docs := []Doc{
		{ID: "en", Title: "Board", Body: "The meetings approved the budget for travelling.", Lang: "en"},
		{ID: "de", Title: "Vorstand", Body: "Die Sitzungen genehmigten die Häuser.", Lang: "de"},
	}
	for round := range 5 {
		m := Mapping()
		if got := m.AnalyzerNameForPath(FieldAll); got != AnalyzerName {
			t.Errorf("round %d: _all is analyzed by %q, want %q", round, got, AnalyzerName)
		}
		bi, err := bleve.NewMemOnly(m)
		if err != nil {
			t.Fatal(err)
		}
		ix, err := Wrap(bi, Options{Policy: All})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			if err := ix.Add(ctx, d, Placement{Cluster: d.ID, Master: d.ID}); err != nil {
				t.Fatal(err)
			}
		}
		if err := ix.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			text, want string
		}{{"meetings", "en"}, {"meeting", "en"}, {"budget", "en"}, {"travel", "en"}, {"Vorstand", "de"}} {
			res, err := bi.Search(bleve.NewSearchRequest(ix.Searchable(bleve.NewMatchQuery(c.text))))
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) != 1 || res.Hits[0].ID != c.want {
				var got []string
				for _, h := range res.Hits {
					got = append(got, h.ID)
				}
				t.Errorf("round %d: _all query %q found %q, want [%s]", round, c.text, got, c.want)
			}
		}
		// A German page's text is still analyzed as German: its field
		// holds the German stem.
		q := bleve.NewMatchQuery("Haus")
		q.SetField(FieldBody)
		q.Analyzer = AnalyzerFor("de")
		if res, err := bi.Search(bleve.NewSearchRequest(q)); err != nil || res.Total != 1 {
			t.Errorf("round %d: German stem query found %v (%v), want 1", round, res, err)
		}
		ix.Close()
	}
}

// TestAllFieldQueriesOldMapping: an index whose mapping was made when the
// language types named their analyzer as the type's default (as indexes
// made before this fix hold it) answers _all queries as a new one does
// once wrapped, and still indexes a German page as German.
func TestAllFieldQueriesOldMapping(t *testing.T) {
	ctx := context.Background()
	m := Mapping()
	for name, dm := range m.TypeMapping {
		if name == DocType || name == MemberType {
			continue
		}
		dm.DefaultAnalyzer = dm.Properties[FieldBody].DefaultAnalyzer
		for _, f := range textFields {
			dm.Properties[f].DefaultAnalyzer = ""
		}
	}
	bi, err := bleve.NewMemOnly(m)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := Wrap(bi, Options{Policy: All})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if got := bi.Mapping().AnalyzerNameForPath(FieldAll); got != AnalyzerName {
		t.Errorf("_all is analyzed by %q, want %q", got, AnalyzerName)
	}
	for _, d := range []Doc{
		{ID: "en", Body: "The meetings approved the budget.", Lang: "en"},
		{ID: "de", Body: "Die Häuser am See.", Lang: "de"},
	} {
		if err := ix.Add(ctx, d, Placement{Cluster: d.ID, Master: d.ID}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := bi.Search(bleve.NewSearchRequest(ix.Searchable(bleve.NewMatchQuery("meetings"))))
	if err != nil || res.Total != 1 {
		t.Errorf("_all query meetings: %v (%v), want 1 hit", res, err)
	}
	q := bleve.NewMatchQuery("Haus")
	q.SetField(FieldBody)
	q.Analyzer = AnalyzerFor("de")
	if res, err := bi.Search(bleve.NewSearchRequest(q)); err != nil || res.Total != 1 {
		t.Errorf("German stem query: %v (%v), want 1 hit", res, err)
	}
}
