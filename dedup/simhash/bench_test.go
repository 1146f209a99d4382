package simhash

import (
	"math/rand/v2"
	"testing"

	"github.com/doppel-search/doppel/dedup/features"
	"github.com/doppel-search/doppel/dedup/stats"
	"github.com/doppel-search/doppel/internal/testrig/testcorpus"
)

var sink uint64

// BenchmarkSign compares signing with a floor that only tokenizes and
// hashes tokens, on the shared corpus (the first 500 documents with
// -short). One op processes every document. The product target is
// simhash MB/s ≥ 0.5 × floor MB/s.
func BenchmarkSign(b *testing.B) {
	limit := 0
	if testing.Short() {
		limit = 500
	}
	docs := testcorpus.Texts(b, "book-revisions.jsonl.gz", limit)
	total := 0
	var sb stats.Builder
	for _, d := range docs {
		total += len(d)
		sb.Add(features.Tokens(d))
	}
	s, err := NewSigner(sb.Table(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	run := func(name string, f func(text string)) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(total))
			b.ReportAllocs()
			for b.Loop() {
				for _, d := range docs {
					f(d)
				}
			}
			b.ReportMetric(float64(b.N)*float64(len(docs))/b.Elapsed().Seconds(), "docs/s")
		})
	}
	run("floor", func(text string) {
		for _, t := range features.Tokens(text) {
			sink ^= features.HashTerm(t)
		}
	})
	run("simhash", func(text string) {
		sink ^= uint64(s.Sign(Doc{Terms: features.Tokens(text)}))
	})
}

// BenchmarkFromFeatures measures the 64-counter accumulation alone.
func BenchmarkFromFeatures(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	fs := make([]Feature, 1000)
	for i := range fs {
		fs[i] = Feature{Hash: r.Uint64(), Weight: r.Float64()}
	}
	b.ReportAllocs()
	for b.Loop() {
		sink ^= uint64(FromFeatures(fs))
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(fs)), "ns/feature")
}
