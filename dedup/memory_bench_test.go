package dedup

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/doppel-search/doppel/dedup/imatch"
	"github.com/doppel-search/doppel/dedup/simhash"
)

// BenchmarkDetectorMemory reports the detector's live heap per document
// after adding the documents of DOPPEL_SYNTH (a JSONL corpus, such as
// `ndd synth -from SITE.jsonl -n 100000 -lines 30` of ../shared/kit
// makes; skipped without it) with the default options, the verification
// sets all in memory (Options.SetsMemory −1: the reference), on disk
// from the first document (Options.SetsDir) and where the default puts
// them (in memory up to DefaultSetsMemory, then in a temporary file):
// heap_B/doc, the bytes still in use after a collection, divided by the
// documents, next to text_B/doc, the documents' own text, and MB/s, the
// text read, decoded and added a second (one goroutine).
func BenchmarkDetectorMemory(b *testing.B) {
	path := os.Getenv("DOPPEL_SYNTH")
	if path == "" {
		b.Skip("DOPPEL_SYNTH (a JSONL corpus from ndd synth) is not set")
	}
	for _, c := range []struct {
		name string
		opts Options
	}{{"sets-in-memory", Options{SetsMemory: -1}}, {"sets-on-disk", Options{SetsDir: b.TempDir()}}, {"default", Options{}}} {
		b.Run(c.name, func(b *testing.B) { detectorMemory(b, path, c.opts) })
	}
}

func detectorMemory(b *testing.B, path string, opts Options) {
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Skip(err)
		}
		var base runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&base)
		d, err := New(nil, opts)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		n, text := 0, 0
		for sc.Scan() {
			var doc struct{ ID, Text string }
			if err := json.Unmarshal(sc.Bytes(), &doc); err != nil {
				b.Fatal(err)
			}
			if _, err := d.Add(Document{ID: doc.ID, Text: doc.Text}); err != nil {
				b.Fatal(err)
			}
			n, text = n+1, text+len(doc.Text)
		}
		elapsed := time.Since(start)
		f.Close()
		var after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-base.HeapAlloc)/float64(n), "heap_B/doc")
		b.ReportMetric(float64(text)/float64(n), "text_B/doc")
		b.ReportMetric(float64(text)/1e6/elapsed.Seconds(), "MB/s")
		runtime.KeepAlive(d)
		if err := d.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSignatureMemory inserts DOPPEL_SIGNATURES (e.g. 10000000;
// skipped when unset) documents' signatures into a detector with the
// hybrid's options, the verification sets on disk — random band keys,
// whole-sketch hash and, with all three candidate sources, a SimHash
// fingerprint and one I-Match signature per lexicon (3), as a collection
// without copies gives, with a one-shingle set — without signing any
// text, and reports the live heap per document after a collection at
// each tenth (heap_B/doc at the end) and the insertion time (ns/doc). It
// measures the in-memory state a detector of that many documents needs:
// "lsh-only" as doppel dedup runs by default, "all-sources" the most
// keys a document gets.
func BenchmarkSignatureMemory(b *testing.B) {
	n, _ := strconv.Atoi(os.Getenv("DOPPEL_SIGNATURES"))
	if n <= 0 {
		b.Skip("DOPPEL_SIGNATURES (how many documents' signatures to insert) is not set")
	}
	for _, lshOnly := range []bool{true, false} {
		name := map[bool]string{true: "lsh-only", false: "all-sources"}[lshOnly]
		b.Run(name, func(b *testing.B) { signatureMemory(b, n, lshOnly) })
	}
}

func signatureMemory(b *testing.B, n int, lshOnly bool) {
	for b.Loop() {
		d, err := New(nil, Options{SetsDir: b.TempDir(), LSHOnly: lshOnly})
		if err != nil {
			b.Fatal(err)
		}
		r := rand.New(rand.NewPCG(1, 1))
		var base, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&base)
		start := time.Now()
		for i := range n {
			rec := &record{member: memberRef{ID: fmt.Sprintf("doc%09d", i)}, set: []uint64{r.Uint64()},
				more: &recordMore{bands: make([]uint64, d.opts.Bands)}, banded: true, whole: r.Uint64(), content: r.Uint64()}
			for j := range rec.more.bands {
				rec.more.bands[j] = r.Uint64()
			}
			if !lshOnly {
				rec.fp = simhash.Simhash(r.Uint64())
				rec.sigs = make([]imatch.Signature, d.opts.IMatch.ExtraLexicons+1)
				for j := range rec.sigs {
					binary.LittleEndian.PutUint64(rec.sigs[j][:], r.Uint64())
				}
			}
			d.mu.Lock()
			d.insert(rec)
			d.count()
			d.mu.Unlock()
			if (i+1)%max(n/10, 1) == 0 {
				runtime.GC()
				runtime.ReadMemStats(&after)
				b.Logf("%d documents: %.0f B/doc live heap, %.0f ns/doc", i+1, float64(after.HeapAlloc-base.HeapAlloc)/float64(i+1),
					float64(time.Since(start).Nanoseconds())/float64(i+1))
			}
		}
		elapsed := time.Since(start)
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-base.HeapAlloc)/float64(n), "heap_B/doc")
		b.ReportMetric(float64(elapsed.Nanoseconds())/float64(n), "ns/doc")
		if d.Stats().Documents != n || d.Stats().Clusters != n {
			b.Fatalf("stats %+v: want %d documents, each its own cluster", d.Stats(), n)
		}
		runtime.KeepAlive(d)
	}
}
