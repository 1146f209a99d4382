package indexer_test

import (
	"fmt"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/doppel-search/doppel/indexer"
)

// TestGuardShould: a document matching a boolean query's required and
// optional words, searched with a filter (a conjunction, as a user's
// access filter is), is scored with its optional words and has their
// locations, whatever the order of the documents around it. In bleve's
// in-memory index documents are in id order, which lays them out so that
// the conjunction advances the boolean searcher to d4 while its
// required clause is at d3 and its optional clause already holds d5:
// bleve then drops that match, d5 scores as if it held "apple" alone,
// and its "river" has no location (see GuardShould); guarded, d5
// scores as d7, which holds the same words.
func TestGuardShould(t *testing.T) {
	ix, err := bleve.NewMemOnly(bleve.NewIndexMapping())
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for _, d := range []struct{ id, body, group string }{
		{"d1", "apple", "g"}, {"d2", "apple", "x"}, {"d3", "apple", "x"}, {"d4", "pear", "g"}, {"d5", "apple river", "g"},
		{"d6", "apple river", "x"}, {"d7", "apple river", "g"},
	} {
		if err := ix.Index(d.id, map[string]string{"body": d.body, "group": d.group}); err != nil {
			t.Fatal(err)
		}
	}
	search := func(q query.Query) map[string]string {
		t.Helper()
		req := bleve.NewSearchRequest(q)
		req.IncludeLocations = true
		res, err := ix.Search(req)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, h := range res.Hits {
			out[h.ID] = fmt.Sprintf("%.6f river at %d places", h.Score, len(h.Locations["body"]["river"]))
		}
		return out
	}
	for _, qs := range []string{"+body:apple body:river", "+body:apple body:river body:rivers", "+body:apple body:river -body:pear"} {
		t.Run(qs, func(t *testing.T) {
			text, err := bleve.NewQueryStringQuery(qs).Parse()
			if err != nil {
				t.Fatal(err)
			}
			group := bleve.NewTermQuery("g")
			group.SetField("group")
			raw := search(query.NewConjunctionQuery([]query.Query{text, group}))
			got := search(indexer.GuardShould(query.NewConjunctionQuery([]query.Query{text, group})))
			if len(got) != 3 || got["d5"] != got["d7"] || got["d5"] == got["d1"] {
				t.Errorf("guarded: %v; want d1, d5 and d7, d5 scored as d7 with its river", got)
			}
			if raw["d5"] != got["d5"] {
				t.Logf("bleve alone loses d5's optional word: %v (guarded: %v)", raw, got)
			}
		})
	}
}
