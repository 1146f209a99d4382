package ranking

import (
	"bufio"
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/url"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/doppel-search/doppel/crawler/hook"
	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/internal/testrig/testcorpus"
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

// BenchmarkSiteFacets times result pages over a site of the kit
// (DOPPEL_SITE: a site.jsonl of ../shared/kit, such as the tuning
// intranet's; skipped without it), each page its own cluster, asked for
// 300 of its titles as people paste them: collapsed with facets (what
// /api/search and the UI run), collapsed without, and the plain bleve
// search of the same words — p50 and p99 per query.
func BenchmarkSiteFacets(b *testing.B) {
	path := os.Getenv("DOPPEL_SITE")
	if path == "" {
		b.Skip("DOPPEL_SITE (a site.jsonl of ../shared/kit) is not set")
	}
	f, err := os.Open(path)
	if err != nil {
		b.Skip(err)
	}
	defer f.Close()
	ix, err := indexer.Open(b.TempDir(), indexer.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	ctx := context.Background()
	var titles []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var d struct{ ID, URL, Title, Text string }
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			b.Fatal(err)
		}
		u, _ := url.Parse(d.URL)
		if err := ix.Add(ctx, indexer.Doc{ID: d.URL, URL: d.URL, Host: u.Host, Title: d.Title, Body: d.Text},
			indexer.Placement{ID: d.URL, Cluster: d.URL, Master: d.URL}); err != nil {
			b.Fatal(err)
		}
		if d.Title != "" {
			titles = append(titles, d.Title)
		}
	}
	if err := ix.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	rand.New(rand.NewPCG(1, 1)).Shuffle(len(titles), func(i, j int) { titles[i], titles[j] = titles[j], titles[i] })
	titles = titles[:min(300, len(titles))]
	s := New(ix, Options{})
	run := func(b *testing.B, search func(q string) error) {
		var lat []time.Duration
		i := 0
		for b.Loop() {
			start := time.Now()
			if err := search(titles[i%len(titles)]); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(start))
			i++
		}
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50_ms")
		b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Microseconds())/1000, "p99_ms")
	}
	b.Run("facets", func(b *testing.B) {
		run(b, func(q string) error { _, err := s.Search(ctx, Request{Query: q, Facets: true}); return err })
	})
	b.Run("collapsed", func(b *testing.B) {
		run(b, func(q string) error { _, err := s.Search(ctx, Request{Query: q}); return err })
	})
	b.Run("plain", func(b *testing.B) {
		run(b, func(q string) error {
			mq := bleve.NewMatchQuery(q)
			req := bleve.NewSearchRequestOptions(ix.Searchable(mq), 10, 0, false)
			req.Fields = []string{indexer.FieldURL, indexer.FieldTitle, indexer.FieldBody}
			_, err := ix.Search(ctx, req)
			return err
		})
	})
}
