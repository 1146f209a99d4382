package crawler

import (
	"context"
	"fmt"
	"html"
	"io/fs"
	"net/http"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/internal/testcorpus"
)

// corpusSite serves the first n documents of the perturbation corpus (base
// documents with their perturbed copies, interleaved with unrelated ones)
// as an intranet: index pages of 50 links each, chained, and one page per
// document.
func corpusSite(b *testing.B, n int) (http.Handler, int64) {
	docs := testcorpus.Docs(b, "book-perturb.jsonl.gz", n)
	var bytes int64
	for _, d := range docs {
		bytes += int64(len(d.Text))
	}
	const perIndex = 50
	mux := http.NewServeMux()
	mux.HandleFunc("/index/{k}", func(w http.ResponseWriter, r *http.Request) {
		k, err := strconv.Atoi(r.PathValue("k"))
		if err != nil || k*perIndex >= len(docs) {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><head><title>Index %d</title></head><body><main><ul>", k)
		for i := k * perIndex; i < min((k+1)*perIndex, len(docs)); i++ {
			fmt.Fprintf(w, `<li><a href="/doc/%d">%s</a></li>`, i, html.EscapeString(docs[i].Title))
		}
		fmt.Fprintf(w, `</ul><a href="/index/%d">Next</a></main></body></html>`, k+1)
	})
	mux.HandleFunc("/doc/{i}", func(w http.ResponseWriter, r *http.Request) {
		i, err := strconv.Atoi(r.PathValue("i"))
		if err != nil || i < 0 || i >= len(docs) {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><head><title>%s</title></head><body><main><pre>%s</pre></main></body></html>",
			html.EscapeString(docs[i].Title), html.EscapeString(docs[i].Text))
	})
	return mux, bytes
}

func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// BenchmarkCrawl crawls and indexes a loopback site of corpus documents
// three ways in the same run: near-duplicate detection off (every page
// indexed), on with the All policy (every page indexed: the difference is
// what detection costs) and on with the default Skip policy (near-duplicates
// not indexed). It reports pages/s of each, detection's share of crawl
// time, and the index sizes under Skip and All.
func BenchmarkCrawl(b *testing.B) {
	const docs = 1000
	h, textBytes := corpusSite(b, docs)
	s := newSite(b, h)
	run := func(opts Options) (time.Duration, Stats, int64) {
		dir := b.TempDir()
		c, err := Open(dir, opts)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if err := c.Run(context.Background()); err != nil {
			b.Fatal(err)
		}
		elapsed := time.Since(start)
		st := c.Stats()
		c.Close()
		return elapsed, st, dirSize(filepath.Join(dir, "index"))
	}
	off := Options{Seeds: []string{s.URL + "/index/0"}, Delay: -1, Parallelism: 2, MaxPages: 10 * docs, MaxDepth: 1000, NoDedup: true}
	all := off
	all.NoDedup, all.Policy = false, indexer.All
	skip := all
	skip.Policy = indexer.Skip
	var tOff, tAll, tSkip time.Duration
	var pages, dups, sizeSkip, sizeAll int64
	for b.Loop() {
		d0, st0, _ := run(off)
		d1, st1, size1 := run(all)
		d2, st2, size2 := run(skip)
		if st0.Fetched != st1.Fetched || st1.Fetched != st2.Fetched || st0.Duplicates != 0 || st2.Duplicates == 0 {
			b.Fatalf("off %+v, all %+v, skip %+v", st0, st1, st2)
		}
		tOff, tAll, tSkip = tOff+d0, tAll+d1, tSkip+d2
		pages += st2.Fetched
		dups += st2.Duplicates
		sizeSkip, sizeAll = size2, size1
	}
	n := float64(b.N)
	b.ReportMetric(float64(pages)/tOff.Seconds(), "pages/s-nodedup")
	b.ReportMetric(float64(pages)/tAll.Seconds(), "pages/s-dedup-all")
	b.ReportMetric(float64(pages)/tSkip.Seconds(), "pages/s-dedup-skip")
	b.ReportMetric(100*(tAll.Seconds()-tOff.Seconds())/tOff.Seconds(), "%detection-cost")
	b.ReportMetric(float64(textBytes)*n/tSkip.Seconds()/1e6, "MB/s-dedup-skip")
	b.ReportMetric(float64(pages)/n, "pages")
	b.ReportMetric(float64(dups)/n, "near-dups")
	b.ReportMetric(float64(sizeSkip)/1e6, "MB-index-skip")
	b.ReportMetric(float64(sizeAll)/1e6, "MB-index-all")
}
