package ranking

import (
	"context"
	"testing"

	"github.com/blevesearch/bleve/v2"

	"github.com/doppel-search/doppel/crawler/hook"
	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/internal/testcorpus"
)

var benchQueries = []string{"ownership", "borrow checker", "trait objects", "closure", "iterator", "struct",
	"enum match", "lifetime", "macro", "async await", "error handling", "cargo", "vector", "string slice", "generic types"}

// BenchmarkSearch compares a collapsed, access-filtered result page with a
// plain bleve search of the same query on the same index (Searchable, 10
// hits, the same stored fields and body highlighting), on the first 2,000
// documents of book-perturb deduplicated with word-set cosine, in an
// on-disk (scorch) index.
func BenchmarkSearch(b *testing.B) {
	docs := testcorpus.Docs(b, "book-perturb.jsonl.gz", 2000)
	det, err := dedup.New(nil, dedup.Options{Similarity: dedup.Cosine})
	if err != nil {
		b.Fatal(err)
	}
	ix, err := indexer.Open(b.TempDir(), indexer.Options{}) // scorch, as doppel serve uses
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	ctx := context.Background()
	for _, d := range docs {
		res, err := det.Add(dedup.Document{ID: d.ID, Text: d.Text})
		if err != nil {
			b.Fatal(err)
		}
		if err := ix.Add(ctx, indexer.Doc{ID: d.ID, URL: "http://book/" + d.ID, Title: d.Title, Body: d.Text}, hook.Placement(res)); err != nil {
			b.Fatal(err)
		}
	}
	if err := ix.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	s := New(ix, Options{})
	b.Run("collapsed", func(b *testing.B) {
		i := 0
		for b.Loop() {
			if _, err := s.Search(ctx, Request{Query: benchQueries[i%len(benchQueries)]}); err != nil {
				b.Fatal(err)
			}
			i++
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/query")
	})
	b.Run("plain", func(b *testing.B) {
		i := 0
		for b.Loop() {
			q, err := bleve.NewQueryStringQuery(benchQueries[i%len(benchQueries)]).Parse()
			if err != nil {
				b.Fatal(err)
			}
			req := bleve.NewSearchRequestOptions(ix.Searchable(q), 10, 0, false)
			req.Fields = []string{indexer.FieldURL, indexer.FieldTitle, indexer.FieldCluster, indexer.FieldBody}
			req.Highlight = bleve.NewHighlightWithStyle(highlighterName)
			req.Highlight.AddField(indexer.FieldBody)
			if _, err := ix.Search(ctx, req); err != nil {
				b.Fatal(err)
			}
			i++
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/query")
	})
}
