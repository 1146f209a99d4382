package hamming

import (
	"fmt"
	"runtime/debug"
	"testing"
)

// benchFixture is a store of n random fingerprints loaded into an Index and
// a Linear, built once per size and shared by the benchmarks.
type benchFixture struct {
	entries []Entry
	index   *Index
	linear  *Linear
	queries []uint64 // half stored fingerprints with 0..3 bits flipped, half random
	indexNs float64  // ns/query of the index at k=3, once measured
}

var benchFixtures = map[int]*benchFixture{}

func fixture(b *testing.B, n int) *benchFixture {
	if f, ok := benchFixtures[n]; ok {
		return f
	}
	r := newRand(uint64(n))
	f := &benchFixture{entries: make([]Entry, n), queries: make([]uint64, 1<<16)}
	for i := range f.entries {
		f.entries[i] = Entry{ID: uint64(i), Fingerprint: r.Uint64()}
	}
	for i := range f.queries {
		f.queries[i] = r.Uint64()
		if i%2 == 0 {
			f.queries[i] = flip(r, f.entries[r.IntN(n)].Fingerprint, r.IntN(4), 64)
		}
	}
	f.index = mustNew(b, Options{})
	if err := f.index.InsertBatch(f.entries); err != nil {
		b.Fatal(err)
	}
	f.linear = new(Linear)
	if err := f.linear.InsertBatch(f.entries); err != nil {
		b.Fatal(err)
	}
	benchFixtures[n] = f
	// Collect the build's garbage and run every query once, so the timed
	// runs see a steady state rather than the aftermath of the build.
	debug.FreeOSMemory()
	var buf []Match
	for _, q := range f.queries {
		buf = f.index.AppendQuery(buf[:0], q, 3)
	}
	return f
}

func benchSizes() []int {
	if testing.Short() {
		return []int{100_000}
	}
	return []int{1_000_000, 10_000_000}
}

func sizeName(n int) string {
	switch {
	case n%1_000_000 == 0:
		return fmt.Sprintf("n=%dM", n/1_000_000)
	case n%1_000 == 0:
		return fmt.Sprintf("n=%dk", n/1_000)
	}
	return fmt.Sprintf("n=%d", n)
}

// BenchmarkQuery compares the index with a linear scan on the same stores
// and queries at k=3. The linear sub-benchmark reports the index's speedup
// when the index one ran first.
func BenchmarkQuery(b *testing.B) {
	for _, n := range benchSizes() {
		b.Run(sizeName(n), func(b *testing.B) {
			f := fixture(b, n)
			b.Run("k=3", func(b *testing.B) {
				b.Run("index", func(b *testing.B) {
					ns := benchQueries(b, f.index, f.queries, 3)
					f.indexNs = ns
					b.ReportMetric(float64(f.index.Stats().Bytes)/float64(n), "bytes/fp")
				})
				b.Run("linear", func(b *testing.B) {
					ns := benchQueries(b, f.linear, f.queries, 3)
					b.ReportMetric(float64(cap(f.linear.fps)*8+cap(f.linear.ids)*8)/float64(n), "bytes/fp")
					if f.indexNs > 0 {
						b.ReportMetric(ns/f.indexNs, "speedup")
					}
				})
			})
		})
	}
}

// benchQueries runs b.N queries and returns ns/query.
func benchQueries(b *testing.B, s Searcher, queries []uint64, k int) float64 {
	b.ReportAllocs()
	var buf []Match
	matches := 0
	for i := 0; b.Loop(); i++ {
		buf = s.AppendQuery(buf[:0], queries[i%len(queries)], k)
		matches += len(buf)
	}
	ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(ns, "ns/query")
	b.ReportMetric(float64(matches)/float64(b.N), "matches/query")
	return ns
}

// BenchmarkInsert measures inserts into an index already holding n entries:
// one at a time (delta inserts and amortized merges), and as one InsertBatch
// of b.N entries into an empty index (bulk load).
func BenchmarkInsert(b *testing.B) {
	n := benchSizes()[0]
	b.Run(sizeName(n), func(b *testing.B) {
		f := fixture(b, n)
		b.Run("incremental", func(b *testing.B) {
			b.ReportAllocs()
			x := mustNew(b, Options{})
			if err := x.InsertBatch(f.entries); err != nil {
				b.Fatal(err)
			}
			r := newRand(1)
			for i := 0; b.Loop(); i++ {
				if err := x.Insert(uint64(n+i), r.Uint64()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "inserts/s")
			b.ReportMetric(float64(x.Stats().Merges), "merges")
		})
	})
	b.Run("bulk", func(b *testing.B) {
		b.ReportAllocs()
		r := newRand(2)
		batch := make([]Entry, b.N)
		for i := range batch {
			batch[i] = Entry{ID: uint64(i), Fingerprint: r.Uint64()}
		}
		x := mustNew(b, Options{})
		b.ResetTimer()
		if err := x.InsertBatch(batch); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "inserts/s")
		b.ReportMetric(float64(x.Stats().Bytes)/float64(b.N), "bytes/fp")
	})
}
