package dedup_test

import (
	"context"
	"io"
	"iter"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/internal/jsonl"
)

// BenchmarkDetectorScale feeds the documents of DOPPEL_SYNTH (a JSONL
// corpus such as `ndd synth -from SITE.jsonl -n 1000000 -lines 30` of
// ../shared/kit makes; skipped without it) to a detector with the crawl's
// settings, as a crawl feeds it: dedup.Web (all three candidate
// sources, the edit allowance), the verification sets in a file, signed
// on every core and inserted in order, and re-clustered each time the
// count has doubled since the last re-clustering (from 1,000 on, as
// package crawler does). Each document gets a URL under one host, as a
// page has. It reports the rate of the first 100,000 documents
// (docs/s_100k: as a crawl of 100,000 pages would, with the
// re-clusterings until then) and of all of them (docs/s, MB/s of text),
// their ratio (all/100k: the crawl's detector is flat when that is near
// 1), and the live heap per document at the end; it logs the rate and
// the candidate pairs looked at every 100,000 documents.
func BenchmarkDetectorScale(b *testing.B) {
	path := os.Getenv("DOPPEL_SYNTH")
	if path == "" {
		b.Skip("DOPPEL_SYNTH (a JSONL corpus from ndd synth) is not set")
	}
	const window = 100_000
	for b.Loop() {
		opts := dedup.Web()
		opts.SetsFile = filepath.Join(b.TempDir(), "sets")
		det, err := dedup.New(nil, opts)
		if err != nil {
			b.Fatal(err)
		}
		var base runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&base)
		var (
			n, since, last, text int
			start                = time.Now()
			first                time.Duration
			reclusters           int
		)
		ctx := context.Background()
		err = det.AddSeq(ctx, synthDocs(path, &text), runtime.GOMAXPROCS(0), func(dedup.Result) error {
			n++
			if since++; since >= max(1000, last) {
				as, err := det.Recluster(ctx)
				if err != nil {
					return err
				}
				since, last = 0, len(as)
				reclusters++
			}
			if n == window {
				first = time.Since(start)
			}
			if n%window == 0 {
				el := time.Since(start)
				b.Logf("%d documents: %v, %.0f docs/s, %d re-clusterings, %d candidate pairs", n, el.Round(time.Millisecond), float64(n)/el.Seconds(), reclusters, det.Stats().Candidates)
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		elapsed := time.Since(start)
		if n < 2*window {
			b.Skipf("%d documents: the benchmark compares the first %d with all", n, window)
		}
		var after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&after)
		rate, rate100k := float64(n)/elapsed.Seconds(), window/first.Seconds()
		b.ReportMetric(rate100k, "docs/s_100k")
		b.ReportMetric(rate, "docs/s")
		b.ReportMetric(rate/rate100k, "all/100k")
		b.ReportMetric(float64(text)/1e6/elapsed.Seconds(), "MB/s")
		b.ReportMetric(float64(after.HeapAlloc-base.HeapAlloc)/float64(n), "heap_B/doc")
		b.Logf("%d documents in %v, %d re-clusterings, %d clusters", n, elapsed.Round(time.Millisecond), reclusters, det.Stats().Clusters)
		if err := det.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// synthDocs reads the documents of a JSONL corpus (internal/jsonl),
// adding each one's text length to *text.
func synthDocs(path string, text *int) iter.Seq2[dedup.Document, error] {
	return func(yield func(dedup.Document, error) bool) {
		f, err := os.Open(path)
		if err != nil {
			yield(dedup.Document{}, err)
			return
		}
		defer f.Close()
		r, err := jsonl.NewReader(f)
		if err != nil {
			yield(dedup.Document{}, err)
			return
		}
		for {
			rec, err := r.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				yield(dedup.Document{}, err)
				return
			}
			*text += len(rec.Text)
			if !yield(dedup.Document{ID: rec.ID, Text: rec.Text, URL: "http://intranet.example/" + rec.ID + ".html"}, nil) {
				return
			}
		}
	}
}

// BenchmarkDedupThroughput adds the documents of DOPPEL_SYNTH (a JSONL
// corpus from `ndd synth`; skipped without it) as doppel dedup does with
// its default flags — LSH candidates alone, exact resemblance at 0.9,
// signed, and candidates found and verified ahead, on every core, and
// inserted in order by AddSeq — with the verification sets where the
// default puts them (in memory up to DefaultSetsMemory, then in a
// temporary file), beside the serial path (the same with every
// candidate found and verified by Insert, one document at a time) and
// the reference with every set in memory (Options.SetsMemory −1). It
// reports MB/s of text and the near-duplicate pairs found (pairs: the
// same in all, or they did not verify alike).
func BenchmarkDedupThroughput(b *testing.B) {
	path := os.Getenv("DOPPEL_SYNTH")
	if path == "" {
		b.Skip("DOPPEL_SYNTH (a JSONL corpus from ndd synth) is not set")
	}
	for _, c := range []struct {
		name   string
		memory int64
		serial bool
	}{{"sets-in-memory", -1, false}, {"serial-path", 0, true}, {"default", 0, false}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				det, err := dedup.New(nil, dedup.Options{LSHOnly: true, SetsMemory: c.memory})
				if err != nil {
					b.Fatal(err)
				}
				if c.serial {
					dedup.VerifySerially(det)
				}
				text, pairs := 0, 0
				start := time.Now()
				err = det.AddSeq(context.Background(), synthDocs(path, &text), runtime.GOMAXPROCS(0), func(r dedup.Result) error {
					pairs += len(r.Pairs)
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(text)/1e6/time.Since(start).Seconds(), "MB/s")
				b.ReportMetric(float64(pairs), "pairs")
				if err := det.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
