package detect

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"runtime"
	"testing"

	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/detect/api"
	"github.com/doppel-search/doppel/detect/client"
	"github.com/doppel-search/doppel/internal/jsonl"
	"github.com/doppel-search/doppel/internal/testrig/testcorpus"
)

// corpus returns the documents of $DOPPEL_DETECT_CORPUS (a JSONL file,
// such as ndd synth writes) or else of the shared corpus's
// book-revisions (at most limit; 0: all), as the service's and the
// detector's documents.
func corpus(tb testing.TB, limit int) ([]api.Document, []dedup.Document) {
	var recs []jsonl.Record
	if path := os.Getenv("DOPPEL_DETECT_CORPUS"); path != "" {
		f, err := os.Open(path)
		if err != nil {
			tb.Fatal(err)
		}
		defer f.Close()
		r, err := jsonl.NewReader(f)
		if err != nil {
			tb.Fatal(err)
		}
		for limit == 0 || len(recs) < limit {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				tb.Fatal(err)
			}
			recs = append(recs, rec)
		}
	} else {
		recs = testcorpus.Docs(tb, "book-revisions.jsonl.gz", limit)
	}
	docs := make([]api.Document, len(recs))
	plain := make([]dedup.Document, len(recs))
	for i, r := range recs {
		docs[i] = api.Document{ID: r.ID, Text: r.Text, Title: r.Title}
		plain[i], _ = toDedup(docs[i])
	}
	return docs, plain
}

// TestSameAsDetector: the service places the shared corpus's documents,
// sent in batches, exactly as the crawl's detector (dedup.Web) given them
// one by one does — so its precision and recall are the detector's.
func TestSameAsDetector(t *testing.T) {
	docs, plain := corpus(t, 400)
	d, err := dedup.New(nil, dedup.Web())
	if err != nil {
		t.Fatal(err)
	}
	if err := d.AddAll(context.Background(), plain, runtime.GOMAXPROCS(0), func(dedup.Result) error { return nil }); err != nil {
		t.Fatal(err)
	}
	s := open(t, t.TempDir())
	defer s.Close()
	for i := 0; i < len(docs); i += 250 {
		put(t, s, docs[i:min(i+250, len(docs))]...)
	}
	shared := 0
	for _, a := range d.Assignments() {
		got, err := s.Get(a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Cluster != string(a.Cluster) || got.Master != a.Master {
			t.Errorf("%s: the service puts it in %s under %s; the detector in %s under %s", a.ID, got.Cluster, got.Master, a.Cluster, a.Master)
		}
		if got.Members > 1 {
			shared++
		}
	}
	if shared == 0 {
		t.Error("no document shares a cluster: the corpus tests nothing")
	}
}

// BenchmarkThroughput measures documents a second on $DOPPEL_DETECT_CORPUS
// or else the shared corpus (book-revisions: 5,702 revisions of a few
// hundred files, 2 KB to 60 KB, 148,029 near-duplicate pairs) through the service
// — over HTTP with the Go client in requests of 1,000 documents, and
// Service.Put directly — beside the batch path (the crawl's detector,
// Detector.AddAll on every core, as doppel dedup adds), in the same run.
// Each iteration starts from an empty service in a new directory; the
// service's numbers include logging every batch to disk (synced).
func BenchmarkThroughput(b *testing.B) {
	limit := 0
	if testing.Short() {
		limit = 1000
	}
	docs, plain := corpus(b, limit)
	var bytes int64
	for _, d := range docs {
		bytes += int64(len(d.Text))
	}
	report := func(b *testing.B) {
		b.SetBytes(bytes)
		b.ReportMetric(float64(b.N*len(docs))/b.Elapsed().Seconds(), "docs/s")
	}
	b.Run("path=batch", func(b *testing.B) {
		for range b.N {
			d, err := dedup.New(nil, dedup.Web())
			if err != nil {
				b.Fatal(err)
			}
			if err := d.AddAll(context.Background(), plain, runtime.GOMAXPROCS(0), func(dedup.Result) error { return nil }); err != nil {
				b.Fatal(err)
			}
		}
		report(b)
	})
	for _, path := range []string{"service", "http"} {
		b.Run("path="+path, func(b *testing.B) {
			for i := range b.N {
				b.StopTimer()
				s, err := Open(b.TempDir()+fmt.Sprint("/", i), Options{})
				if err != nil {
					b.Fatal(err)
				}
				srv := httptest.NewServer(s.Handler(nil))
				c, _ := client.New(srv.URL, nil)
				b.StartTimer()
				if path == "http" {
					_, err = c.Put(context.Background(), docs)
				} else {
					for j := 0; j < len(docs) && err == nil; j += api.MaxBatch {
						_, err = s.Put(context.Background(), docs[j:min(j+api.MaxBatch, len(docs))])
					}
				}
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				srv.Close()
				s.Close()
				b.StartTimer()
			}
			report(b)
		})
	}
}
