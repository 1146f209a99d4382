package dedup

import (
	"testing"

	"github.com/doppel-search/doppel/dedup/features"
	"github.com/doppel-search/doppel/internal/testcorpus"
)

var sink uint64

// BenchmarkSign measures signing throughput of every method on the shared
// corpus next to a floor that only tokenizes and hashes tokens, in the same
// run: compare their MB/s. Signing is Detector.Prepare (the parallel part
// of detection); the statistics table is built outside the timer.
func BenchmarkSign(b *testing.B) {
	limit := 0
	if testing.Short() {
		limit = 500
	}
	recs := testcorpus.Docs(b, "book-revisions.jsonl.gz", limit)
	docs := make([]Document, len(recs))
	var bytes int64
	for i, r := range recs {
		docs[i] = Document{ID: r.ID, Text: r.Text}
		bytes += int64(len(r.Text))
	}
	report := func(b *testing.B) {
		b.SetBytes(bytes)
		b.ReportMetric(float64(b.N*len(docs))/b.Elapsed().Seconds(), "docs/s")
	}
	b.Run("method=floor", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, d := range docs {
				for _, t := range features.Tokens(d.Text) {
					sink ^= features.HashTerm(t)
				}
			}
		}
		report(b)
	})
	for _, m := range Methods() {
		opts := Options{Method: m}
		det, err := New(tableOf(b, opts, docs), opts)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("method="+m.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, d := range docs {
					if _, err := det.Prepare(d); err != nil {
						b.Fatal(err)
					}
				}
			}
			report(b)
		})
	}
}
