package indexer

import (
	"context"
	"flag"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/doppel-search/doppel/internal/testrig/cputime"
)

var (
	crawlIndex = flag.String("crawl-index", "", "a crawl's index directory (DATA/index) whose documents BenchmarkIndexSite indexes again")
	crawlDocs  = flag.Int("crawl-docs", 0, "BenchmarkIndexSite: index only the first N documents of -crawl-index (0: all)")
	noPlain    = flag.Bool("no-plain", false, "BenchmarkIndexSite: leave out the plain reference's indexing")
)

// siteDocs reads every searchable document of the index in dir.
func siteDocs(b *testing.B, dir string) []Doc {
	x, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	var docs []Doc
	err = x.EachID(func(id string) error {
		d, err := x.Document(id)
		if d != nil {
			docs = append(docs, *d)
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return docs
}

// BenchmarkIndexSite indexes the documents of a real crawl's index
// (-args -crawl-index DIR) again as a crawl does — each with its member
// record, written every 1,000 documents in the background, the segments
// merged into one at the end — and, in the same run, the same pages as
// the plain reference pipeline indexes them (bleve's default mapping:
// url, title and body, batches of 500). It reports the CPU time a
// document of each (process CPU, user and system, over the whole write
// and the end merge; "cpu-ms/doc-compact" is the end merge's part) and
// x-plain-cpu, the reference's over Doppel's:
//
//	go test ./indexer/ -run - -bench IndexSite -benchtime 1x -args -crawl-index /tmp/crawl/index
func BenchmarkIndexSite(b *testing.B) {
	if *crawlIndex == "" {
		b.Skip("no -crawl-index DIR")
	}
	docs := siteDocs(b, *crawlIndex)
	if *crawlDocs > 0 && *crawlDocs < len(docs) {
		docs = docs[:*crawlDocs]
	}
	if len(docs) == 0 {
		b.Fatalf("%s holds no documents", *crawlIndex)
	}
	ctx := context.Background()
	var doppel, compact, plain time.Duration
	for range b.N {
		c0 := cputime.Process()
		x, err := Open(b.TempDir(), Options{NoAutoFlush: true})
		if err != nil {
			b.Fatal(err)
		}
		var wait func() error
		for i, d := range docs {
			if err := x.Add(ctx, d, Placement{ID: d.ID, Cluster: d.Cluster, Master: d.ID, Simhash: d.Simhash}); err != nil {
				b.Fatal(err)
			}
			if (i+1)%1000 == 0 {
				if wait != nil {
					if err := wait(); err != nil {
						b.Fatal(err)
					}
				}
				wait = x.FlushAsync()
			}
		}
		if err := x.Flush(ctx); err != nil {
			b.Fatal(err)
		}
		c1 := cputime.Process()
		if _, err := x.Compact(ctx, CompactOptions{}); err != nil {
			b.Fatal(err)
		}
		if err := x.Close(); err != nil {
			b.Fatal(err)
		}
		c2 := cputime.Process()
		doppel += c2 - c0
		compact += c2 - c1

		if *noPlain {
			continue
		}
		idx, err := bleve.New(b.TempDir(), bleve.NewIndexMapping())
		if err != nil {
			b.Fatal(err)
		}
		batch := idx.NewBatch()
		for _, d := range docs {
			if err := batch.Index(d.URL, map[string]any{"url": d.URL, "title": d.Title, "body": d.Body}); err != nil {
				b.Fatal(err)
			}
			if batch.Size() >= 500 {
				if err := idx.Batch(batch); err != nil {
					b.Fatal(err)
				}
				batch.Reset()
			}
		}
		if err := idx.Batch(batch); err != nil {
			b.Fatal(err)
		}
		if err := idx.Close(); err != nil {
			b.Fatal(err)
		}
		plain += cputime.Process() - c2
	}
	n := float64(b.N * len(docs))
	b.ReportMetric(float64(doppel.Milliseconds())/n, "cpu-ms/doc-doppel")
	b.ReportMetric(float64(compact.Milliseconds())/n, "cpu-ms/doc-compact")
	b.ReportMetric(float64(plain.Milliseconds())/n, "cpu-ms/doc-plain")
	b.ReportMetric(plain.Seconds()/doppel.Seconds(), "x-plain-cpu")
}
