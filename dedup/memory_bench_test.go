package dedup

import (
	"bufio"
	"encoding/json"
	"os"
	"runtime"
	"testing"
)

// BenchmarkDetectorMemory reports the detector's live heap per document
// after adding the documents of DOPPEL_SYNTH (a JSONL corpus, such as
// `ndd synth -from SITE.jsonl -n 100000 -lines 30` of ../shared/kit
// makes; skipped without it) with the default options, the verification
// sets in memory and on disk (Options.SetsDir): heap_B/doc, the bytes
// still in use after a collection, divided by the documents, next to
// text_B/doc, the documents' own text.
func BenchmarkDetectorMemory(b *testing.B) {
	path := os.Getenv("DOPPEL_SYNTH")
	if path == "" {
		b.Skip("DOPPEL_SYNTH (a JSONL corpus from ndd synth) is not set")
	}
	for _, c := range []struct {
		name string
		opts Options
	}{{"sets-in-memory", Options{}}, {"sets-on-disk", Options{SetsDir: b.TempDir()}}} {
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
		f.Close()
		var after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-base.HeapAlloc)/float64(n), "heap_B/doc")
		b.ReportMetric(float64(text)/float64(n), "text_B/doc")
		runtime.KeepAlive(d)
	}
}
