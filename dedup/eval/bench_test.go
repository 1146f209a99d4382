package eval

import (
	"bytes"
	"fmt"
	"os"
	"testing"
)

// BenchmarkComputeTruth computes the ground truth of book-revisions (its
// first 1,000 documents under -short) at two thresholds.
func BenchmarkComputeTruth(b *testing.B) {
	limit := 0
	if testing.Short() {
		limit = 1000
	}
	docs, _ := corpusDocs(b, "book-revisions.jsonl.gz", limit)
	var size int64
	for _, d := range docs {
		size += int64(len(d.Text))
	}
	for _, minSim := range []float64{0.8, 0.9} {
		b.Run(fmt.Sprintf("docs=%d/min=%v", len(docs), minSim), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(size)
			var pairs int
			for b.Loop() {
				truth, err := ComputeTruth(docs, minSim, nil)
				if err != nil {
					b.Fatal(err)
				}
				pairs = truth.Len()
			}
			b.ReportMetric(float64(len(docs))*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
			b.ReportMetric(float64(pairs), "pairs")
		})
	}
}

// BenchmarkLoadPairs reads the gzip-compressed pair file of book-revisions.
func BenchmarkLoadPairs(b *testing.B) {
	data, err := os.ReadFile(corpusPath(b, "book-revisions.pairs.jsonl.gz"))
	if err != nil {
		b.Fatal(err)
	}
	b.Run(fmt.Sprintf("bytes=%d", len(data)), func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		var n int
		for b.Loop() {
			truth, err := LoadPairs(bytes.NewReader(data))
			if err != nil {
				b.Fatal(err)
			}
			n = truth.Len()
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
	})
}
