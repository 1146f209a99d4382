package shard_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/ranking"
)

// benchCorpus writes clusters of one to four near-duplicates of 120
// words each, drawn from a vocabulary of 5,000 words by a Zipf law (as
// words are in text): some words in most pages, most in a few.
func benchCorpus(clusters int) *corpus {
	r := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(r, 1.1, 2, 4999)
	word := func() string { return fmt.Sprintf("w%d", zipf.Uint64()) }
	c := &corpus{docs: map[string]indexer.Doc{}}
	for k := range clusters {
		cid := fmt.Sprintf("c%06d", k)
		base := make([]string, 120)
		for i := range base {
			base[i] = word()
		}
		master := ""
		for m := range 1 + r.IntN(4) {
			words := slices.Clone(base)
			for range 3 {
				words[r.IntN(len(words))] = word()
			}
			id := fmt.Sprintf("d%06d-%d", k, m)
			d := indexer.Doc{ID: id, URL: fmt.Sprintf("http://host%d.example/s%d/%s", k%10, k%7, id), Host: fmt.Sprintf("host%d.example", k%10),
				Title: strings.Join(words[:5], " "), Body: strings.Join(words, " "), Lang: "en",
				LastModified: now.AddDate(0, 0, -r.IntN(1000))}
			if k%5 == 0 {
				d.Groups = []string{"staff"}
			}
			p := indexer.Placement{Cluster: cid, Master: master, Duplicate: m > 0}
			if m == 0 {
				master, p.Master = id, id
			}
			c.docs[id] = d
			c.ops = append(c.ops, func(ctx context.Context, w indexer.Writer) error { return w.Add(ctx, d, p) })
		}
	}
	return c
}

// BenchmarkSearch measures a result page of package ranking — collapsed,
// with facets on one query in four — over one index, over four local
// shards, and over four shards served on loopback (HTTP), holding the
// same 10,000 clusters (about 25,000 pages). Queries are one to three
// words, frequent and rare. Reported: the median and 99th percentile
// latency.
//
//	go test ./indexer/shard -run '^$' -bench Search -benchtime 400x
func BenchmarkSearch(b *testing.B) {
	c := benchCorpus(10000)
	start := time.Now()
	p := newPair(b, indexer.Skip, c, 4)
	b.Logf("built one index and four shards of %d pages in %v", len(c.docs), time.Since(start).Round(time.Second))
	r := rand.New(rand.NewPCG(3, 4))
	zipf := rand.NewZipf(r, 1.1, 2, 4999)
	var reqs []ranking.Request
	for i := range 200 {
		words := make([]string, 1+r.IntN(3))
		for j := range words {
			words[j] = fmt.Sprintf("w%d", zipf.Uint64())
		}
		reqs = append(reqs, ranking.Request{Query: strings.Join(words, " "), Facets: i%4 == 0, Groups: []string{"staff"}[:i%2]})
	}
	for _, layout := range []struct {
		name string
		ix   indexer.Searcher
	}{{"one", p.one}, {"4shards", p.shards}, {"4remote", serve(b, p.shards)}} {
		b.Run(layout.name, func(b *testing.B) {
			s := ranking.New(layout.ix, ranking.Options{})
			ctx := context.Background()
			for _, req := range reqs[:20] { // warm the caches
				if _, err := s.Search(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
			took := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				t0 := time.Now()
				if _, err := s.Search(ctx, reqs[i%len(reqs)]); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(t0))
			}
			slices.Sort(took)
			ms := func(q float64) float64 { return float64(took[int(q*float64(len(took)-1))].Microseconds()) / 1000 }
			b.ReportMetric(ms(0.5), "p50-ms")
			b.ReportMetric(ms(0.99), "p99-ms")
		})
	}
}
