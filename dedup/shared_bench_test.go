package dedup

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/doppel-search/doppel/dedup/signatures/redissig"
	"github.com/doppel-search/doppel/internal/testrig/redistest"
	"github.com/doppel-search/doppel/internal/testrig/testcorpus"
)

// BenchmarkShared inserts the same documents into the embedded Detector
// and into Detectors on a Redis Cluster of three masters (NewShared) with
// one and two workers, in the same run: "insert" inserts documents
// signed before the timer (Detector.Insert: what the shared state
// changes), "add" signs them too (Detector.Add: a crawl's workers sign
// in parallel; the embedded Detector signs on two goroutines, AddAll). It reports docs/s over all workers and, on Redis, the
// memory the masters' data grew by per document (redis_B/doc) and checks
// that every document was committed. The corpora: "synth" (families of
// five 300-word pages with 1% of their words edited, 2,000 documents;
// 500 with -short) and book-revisions of the shared corpus (skipped
// without it).
func BenchmarkShared(b *testing.B) {
	n := 2000
	if testing.Short() {
		n = 500
	}
	r := rand.New(rand.NewPCG(5, 6))
	corpora := []struct {
		name string
		docs func(b *testing.B) []Document
	}{
		{"synth", func(*testing.B) []Document { return synthCorpus(r, "s", n/5, 4, 300, 0.01) }},
		{"book-revisions", func(b *testing.B) []Document {
			var docs []Document
			for _, rec := range testcorpus.Docs(b, "book-revisions.jsonl.gz", 0) {
				docs = append(docs, Document{ID: rec.ID, Text: rec.Text})
			}
			return docs
		}},
	}
	rdb := redistest.Start(b, 3, 0).Client()
	for _, corpus := range corpora {
		b.Run("corpus="+corpus.name, func(b *testing.B) {
			docs := corpus.docs(b)
			opts := Options{}
			table := tableOf(b, opts, docs)
			signer, err := New(table, opts)
			if err != nil {
				b.Fatal(err)
			}
			prepared := make([]*Prepared, len(docs))
			for i, doc := range docs {
				if prepared[i], err = signer.Prepare(doc); err != nil {
					b.Fatal(err)
				}
			}
			for _, mode := range []string{"insert", "add"} {
				b.Run("mode="+mode+"/store=embedded", func(b *testing.B) {
					for b.Loop() {
						d, err := New(table, opts)
						if err != nil {
							b.Fatal(err)
						}
						if mode == "insert" {
							runWorkers(b, []*Detector{d}, docs, prepared, mode)
						} else if err := d.AddAll(context.Background(), docs, 2, func(Result) error { return nil }); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(b.N*len(docs))/b.Elapsed().Seconds(), "docs/s")
				})
				for _, workers := range []int{1, 2} {
					b.Run(fmt.Sprintf("mode=%s/store=redis/workers=%d", mode, workers), func(b *testing.B) {
						var grew int64
						for b.Loop() {
							b.StopTimer()
							prefix := sharedPrefix()
							before := usedMemory(b, rdb)
							ds := make([]*Detector, workers)
							for i := range ds {
								ds[i] = openShared(b, rdb, prefix, sharedConfig{opts: opts}, table, 0)
							}
							b.StartTimer()
							runWorkers(b, ds, docs, prepared, mode)
							b.StopTimer()
							if got := len(ds[0].Assignments()); got != len(docs) {
								b.Fatalf("%d documents committed of %d", got, len(docs))
							}
							grew += usedMemory(b, rdb) - before
							drop(b, rdb, prefix)
							b.StartTimer()
						}
						b.ReportMetric(float64(b.N*len(docs))/b.Elapsed().Seconds(), "docs/s")
						b.ReportMetric(float64(grew)/float64(b.N*len(docs)), "redis_B/doc")
					})
				}
			}
		})
	}
}

// runWorkers has the detectors insert the documents at once, worker i
// those at i modulo the workers, prepared ("insert") or signing them
// ("add").
func runWorkers(b *testing.B, ds []*Detector, docs []Document, prepared []*Prepared, mode string) {
	var wg sync.WaitGroup
	for w, d := range ds {
		wg.Go(func() {
			for i := w; i < len(docs); i += len(ds) {
				var err error
				if mode == "insert" {
					_, err = d.Insert(fresh(prepared[i]))
				} else {
					_, err = d.Add(docs[i])
				}
				if err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// usedMemory returns the memory the masters use (INFO memory), summed.
func usedMemory(b *testing.B, rdb *redis.ClusterClient) int64 {
	var mu sync.Mutex
	var sum int64
	err := rdb.ForEachMaster(context.Background(), func(ctx context.Context, m *redis.Client) error {
		info, err := m.Info(ctx, "memory").Result()
		if err != nil {
			return err
		}
		for _, line := range strings.Split(info, "\r\n") {
			if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
				n, _ := strconv.ParseInt(v, 10, 64)
				mu.Lock()
				sum += n
				mu.Unlock()
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return sum
}

// drop deletes the keys under prefix.
func drop(b *testing.B, rdb *redis.ClusterClient, prefix string) {
	o := Options{}
	o.EnsureDefaults()
	sig, err := redissig.Open(context.Background(), rdb, o.fanoutLimits(), redissig.Options{Prefix: prefix, Shards: 32})
	if err != nil {
		b.Fatal(err)
	}
	if err := sig.Drop(context.Background()); err != nil {
		b.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond) // UNLINK frees in the background
}
