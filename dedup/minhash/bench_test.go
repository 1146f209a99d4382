package minhash

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/doppel-search/doppel/dedup/features"
	"github.com/doppel-search/doppel/internal/testrig/testcorpus"
)

var sink uint64

// BenchmarkSketch measures the whole MinHash path on the shared corpus:
// tokenize, word 5-shingles, sketch, and for size=84/super=6 the super
// shingles. One op processes every document (the first 500 with -short).
func BenchmarkSketch(b *testing.B) {
	limit := 0
	if testing.Short() {
		limit = 500
	}
	docs := testcorpus.Texts(b, "book-revisions.jsonl.gz", limit)
	total := 0
	for _, d := range docs {
		total += len(d)
	}
	for _, bc := range []struct {
		name        string
		size, super int
	}{
		{"size=128", 128, 0},
		{"size=84/super=6", DSCSSSize, DSCSSSuperShingles},
	} {
		b.Run(bc.name, func(b *testing.B) {
			h := mustNew(b, Options{Size: bc.size})
			b.SetBytes(int64(total))
			b.ReportAllocs()
			for b.Loop() {
				for _, d := range docs {
					s := h.Sketch(features.Shingles(features.Tokens(d), features.DefaultShingleWidth))
					sink ^= s[0]
					if bc.super > 0 {
						sink ^= SuperShingles(s, bc.super)[0]
					}
				}
			}
			b.ReportMetric(float64(b.N)*float64(len(docs))/b.Elapsed().Seconds(), "docs/s")
		})
	}
}

// BenchmarkHasherSketch measures Sketch alone on random features.
func BenchmarkHasherSketch(b *testing.B) {
	for _, n := range []int{100, 2000} {
		for _, size := range []int{84, 128} {
			b.Run(fmt.Sprintf("features=%d/size=%d", n, size), func(b *testing.B) {
				r := rand.New(rand.NewPCG(1, 2))
				set := make([]uint64, n)
				for i := range set {
					set[i] = r.Uint64()
				}
				h := mustNew(b, Options{Size: size})
				b.ReportAllocs()
				for b.Loop() {
					sink ^= h.Sketch(set)[0]
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n*size), "ns/coord")
			})
		}
	}
}

func BenchmarkBands(b *testing.B) {
	h := mustNew(b, Options{})
	s := h.Sketch([]uint64{1, 2, 3})
	b.ReportAllocs()
	for b.Loop() {
		sink ^= Bands(s, 16, 8)[0]
	}
}
