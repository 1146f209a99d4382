package crawler

import (
	"context"
	"flag"
	"fmt"
	"html"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/blevesearch/bleve/v2"
	"github.com/gocolly/colly/v2"

	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/internal/testrig/cputime"
)

// genSite is a generated documentation intranet for benchmarks: docs
// pages of 300 to 1,500 words drawn from a Zipf vocabulary, each in a site
// template (header, navigation, footer) with links to ten other pages,
// index pages of 50 links chained together, and a printer-friendly copy
// of every tenth page. It is deterministic and needs no files.
type genSite struct {
	docs  []genDoc
	bytes int64 // main text of all docs
}

type genDoc struct {
	title string
	paras []string
	links []int
}

func newGenSite(n int) *genSite {
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	syll := []string{"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "da", "fe", "gi", "ho", "ju", "pe", "qua", "ri", "so", "tu", "wy"}
	vocab := make([]string, 6000)
	for i := range vocab {
		var b strings.Builder
		for range 2 + rng.IntN(3) {
			b.WriteString(syll[rng.IntN(len(syll))])
		}
		vocab[i] = b.String()
	}
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1))
	s := &genSite{docs: make([]genDoc, n)}
	for i := range s.docs {
		d := &s.docs[i]
		d.title = fmt.Sprintf("%s %s reference %d", vocab[zipf.Uint64()], vocab[zipf.Uint64()], i)
		words := 300 + rng.IntN(1200)
		for words > 0 {
			k := min(words, 40+rng.IntN(80))
			ws := make([]string, k)
			for j := range ws {
				ws[j] = vocab[zipf.Uint64()]
			}
			p := strings.Join(ws, " ") + "."
			d.paras = append(d.paras, p)
			s.bytes += int64(len(p))
			words -= k
		}
		for range 10 {
			d.links = append(d.links, rng.IntN(n))
		}
	}
	return s
}

func (s *genSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	page := func(title, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!DOCTYPE html><html><head><title>%s</title></head><body>
<header><a href="/">Intranet</a> <a href="/index/0">All pages</a> <a href="/help">Help</a></header>
<nav><ul><li><a href="/index/0">Index</a></li><li><a href="/doc/0">Start here</a></li></ul></nav>
<main>%s</main><footer>Intranet documentation. Ask the service desk about anything on these pages.</footer></body></html>`,
			html.EscapeString(title), body)
	}
	doc := func(i int, print bool) {
		d := s.docs[i]
		var b strings.Builder
		fmt.Fprintf(&b, "<h1>%s</h1>", html.EscapeString(d.title))
		for _, p := range d.paras {
			fmt.Fprintf(&b, "<p>%s</p>", p)
		}
		b.WriteString("<p>See also:")
		for _, l := range d.links {
			if print { // the same text, without links
				fmt.Fprintf(&b, ` %s`, html.EscapeString(s.docs[l].title))
			} else {
				fmt.Fprintf(&b, ` <a href="/doc/%d">%s</a>`, l, html.EscapeString(s.docs[l].title))
			}
		}
		b.WriteString("</p>")
		switch {
		case print:
			b.WriteString("<p>Printed from the intranet.</p>")
		case i%10 == 0:
			fmt.Fprintf(&b, `<p><a href="/print/doc/%d">Printer-friendly version</a></p>`, i)
		}
		page(d.title, b.String())
	}
	const perIndex = 50
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	n, err := strconv.Atoi(parts[len(parts)-1])
	switch {
	case r.URL.Path == "/":
		page("Intranet", `<p>Welcome to the documentation intranet.</p><a href="/index/0">All pages</a>`)
	case len(parts) == 2 && parts[0] == "index" && err == nil && n*perIndex < len(s.docs):
		var b strings.Builder
		fmt.Fprintf(&b, "<h1>All pages, part %d</h1><ul>", n+1)
		for i := n * perIndex; i < min((n+1)*perIndex, len(s.docs)); i++ {
			fmt.Fprintf(&b, `<li><a href="/doc/%d">%s</a></li>`, i, html.EscapeString(s.docs[i].title))
		}
		fmt.Fprintf(&b, `</ul><a href="/index/%d">Next</a>`, n+1)
		page("All pages", b.String())
	case len(parts) == 2 && parts[0] == "doc" && err == nil && n >= 0 && n < len(s.docs):
		doc(n, false)
	case len(parts) == 3 && parts[0] == "print" && err == nil && n >= 0 && n < len(s.docs) && n%10 == 0:
		doc(n, true)
	default:
		http.NotFound(w, r)
	}
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

// plainCrawl is the reference pipeline a crawl with Doppel is compared
// with: colly (asynchronous, the same parallelism) following every link on
// the host, goquery extracting title and body text, and a bleve index of
// the pages written in batches of 500 — no cleaning beyond that, no
// deduplication, no persistent frontier. It returns the pages indexed.
func plainCrawl(b *testing.B, seed string, parallelism int, dir string) int64 {
	u, _ := url.Parse(seed)
	index, err := bleve.New(dir, bleve.NewIndexMapping())
	if err != nil {
		b.Fatal(err)
	}
	col := colly.NewCollector(colly.Async(true), colly.AllowedDomains(u.Hostname()), colly.MaxDepth(1000))
	col.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: parallelism})
	type page struct{ Title, Body string }
	pages := make(chan struct {
		id string
		p  page
	}, 64)
	col.OnResponse(func(r *colly.Response) {
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(r.Body)))
		if err != nil {
			return
		}
		doc.Find("a[href]").Each(func(_ int, a *goquery.Selection) {
			href, _ := a.Attr("href")
			r.Request.Visit(href)
		})
		doc.Find("script, style").Remove()
		pages <- struct {
			id string
			p  page
		}{r.Request.URL.String(), page{doc.Find("title").Text(), doc.Find("body").Text()}}
	})
	var indexed atomic.Int64
	done := make(chan error)
	go func() {
		batch := index.NewBatch()
		var err error
		for p := range pages {
			if e := batch.Index(p.id, p.p); e != nil && err == nil {
				err = e
			}
			indexed.Add(1)
			if batch.Size() >= 500 {
				err = errorsJoin(err, index.Batch(batch))
				batch = index.NewBatch()
			}
		}
		done <- errorsJoin(err, index.Batch(batch), index.Close())
	}()
	if err := col.Visit(seed); err != nil {
		b.Fatal(err)
	}
	col.Wait()
	close(pages)
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	return indexed.Load()
}

func errorsJoin(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// BenchmarkCrawl crawls one generated intranet (a few thousand pages, a
// tenth of them with a printer-friendly copy) served on loopback, in the
// same run: with the plain reference pipeline (plainCrawl) and with
// Doppel — detection off (every page its own cluster), on with policy All
// (every page indexed: the difference is what detection costs) and on
// with the default policy Skip. Each crawl fetches every page with
// parallelism 4 and no delay. It reports pages/s of each, Doppel (Skip)
// over the reference, detection's cost, and the index sizes.
func BenchmarkCrawl(b *testing.B) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	site := newGenSite(n)
	s := newSite(b, site)
	doppel := func(opts Options) (time.Duration, Stats, int64) {
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
		return elapsed, st, dirSize(filepath.Join(dir, indexDir))
	}
	off := Options{Seeds: []string{s.URL + "/"}, Delay: -1, Parallelism: 4, MaxPages: 10 * n, MaxDepth: 1000, NoDedup: true}
	all := off
	all.NoDedup, all.Policy = false, indexer.All
	skip := all
	skip.Policy = indexer.Skip
	var tPlain, tOff, tAll, tSkip, cpuPlain, cpuSkip time.Duration
	var plainPages, pages, dups, sizeSkip, sizeAll, sizePlain int64
	for b.Loop() {
		dir := filepath.Join(b.TempDir(), "plain")
		start, cpu := time.Now(), cputime.Process()
		plainPages += plainCrawl(b, s.URL+"/", 4, dir)
		tPlain += time.Since(start)
		cpuPlain += cputime.Process() - cpu
		sizePlain = dirSize(dir)
		d0, st0, _ := doppel(off)
		d1, st1, size1 := doppel(all)
		cpu = cputime.Process()
		d2, st2, size2 := doppel(skip)
		cpuSkip += cputime.Process() - cpu
		if st0.Fetched != st1.Fetched || st1.Fetched != st2.Fetched || st0.Duplicates != 0 || st2.Duplicates != int64((n+9)/10) {
			b.Fatalf("off %+v, all %+v, skip %+v; want %d near-duplicates", st0, st1, st2, (n+9)/10)
		}
		tOff, tAll, tSkip = tOff+d0, tAll+d1, tSkip+d2
		pages += st2.Fetched
		dups += st2.Duplicates
		sizeSkip, sizeAll = size2, size1
	}
	nn := float64(b.N)
	plain, skipRate := float64(plainPages)/tPlain.Seconds(), float64(pages)/tSkip.Seconds()
	b.ReportMetric(plain, "pages/s-plain")
	b.ReportMetric(float64(pages)/tOff.Seconds(), "pages/s-nodedup")
	b.ReportMetric(float64(pages)/tAll.Seconds(), "pages/s-dedup-all")
	b.ReportMetric(skipRate, "pages/s-dedup-skip")
	b.ReportMetric(skipRate/plain, "x-plain")
	reportCPU(b, crawlCost{cpuPlain, tPlain, plainPages}, crawlCost{cpuSkip, tSkip, pages})
	b.ReportMetric(100*(tAll.Seconds()-tOff.Seconds())/tOff.Seconds(), "%detection-cost")
	b.ReportMetric(float64(site.bytes)*nn/tSkip.Seconds()/1e6, "MB/s-dedup-skip")
	b.ReportMetric(float64(pages)/nn, "pages")
	b.ReportMetric(float64(dups)/nn, "near-dups")
	b.ReportMetric(float64(sizePlain)/1e6, "MB-index-plain")
	b.ReportMetric(float64(sizeSkip)/1e6, "MB-index-skip")
	b.ReportMetric(float64(sizeAll)/1e6, "MB-index-all")
}

// siteDir is a real site's directory for BenchmarkCrawlSite, e.g. the
// tuning intranet's (../shared/kit: tuning-site.sh builds /tmp/tuning/site).
var siteDir = flag.String("site", "", "directory of a real site for BenchmarkCrawlSite (e.g. /tmp/tuning/site)")

// siteFiles serves a site's directory as the kit's server does: a path
// ending in / answers its index.html, and …/index.html answers 200, not
// a redirect (http.FileServer's).
func siteFiles(dir string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := filepath.Join(dir, filepath.FromSlash(path.Clean("/"+r.URL.Path)))
		if strings.HasSuffix(r.URL.Path, "/") {
			name = filepath.Join(name, "index.html")
		}
		f, err := os.Open(name)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		defer f.Close()
		info, err := f.Stat()
		if err != nil || info.IsDir() {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, name, info.ModTime(), f)
	})
}

// BenchmarkCrawlSite crawls a real site's directory (-site DIR; skipped
// without it), served on loopback, with the plain reference pipeline and
// with Doppel (default policy) in the same run, alternating which goes
// first, with parallelism 4 and no delay, as docs/findability.md's site
// check does: pages/s of each and their ratio. A generated site
// (BenchmarkCrawl) has neither a real site's templates nor its links, so
// its ratio need not be a real site's (docs/measurements.md).
//
//	go test ./crawler/ -run - -bench CrawlSite -benchtime 2x -args -site /tmp/tuning/site
func BenchmarkCrawlSite(b *testing.B) {
	if *siteDir == "" {
		b.Skip("no -site DIR given (a real site's directory, e.g. /tmp/tuning/site from ../shared/kit/tuning-site.sh)")
	}
	if _, err := os.Stat(filepath.Join(*siteDir, "index.html")); err != nil {
		b.Skipf("-site %s: %v", *siteDir, err)
	}
	s := newSite(b, siteFiles(*siteDir))
	var tPlain, tDoppel, cpuPlain, cpuDoppel time.Duration
	var plainPages, pages int64
	round := 0
	for b.Loop() {
		plain := func() {
			start, cpu := time.Now(), cputime.Process()
			plainPages += plainCrawl(b, s.URL+"/", 4, filepath.Join(b.TempDir(), "plain"))
			tPlain += time.Since(start)
			cpuPlain += cputime.Process() - cpu
		}
		doppel := func() {
			c, err := Open(b.TempDir(), Options{Seeds: []string{s.URL + "/"}, Delay: -1, Parallelism: 4, MaxPages: 100000, MaxDepth: 100})
			if err != nil {
				b.Fatal(err)
			}
			start, cpu := time.Now(), cputime.Process()
			if err := c.Run(context.Background()); err != nil {
				b.Fatal(err)
			}
			pages += c.Stats().Fetched
			c.Close()
			tDoppel += time.Since(start)
			cpuDoppel += cputime.Process() - cpu
		}
		if round++; round%2 == 1 {
			plain()
			doppel()
		} else {
			doppel()
			plain()
		}
	}
	plain, doppel := float64(plainPages)/tPlain.Seconds(), float64(pages)/tDoppel.Seconds()
	b.ReportMetric(plain, "pages/s-plain")
	b.ReportMetric(doppel, "pages/s-doppel")
	b.ReportMetric(doppel/plain, "x-plain")
	reportCPU(b, crawlCost{cpuPlain, tPlain, plainPages}, crawlCost{cpuDoppel, tDoppel, pages})
	b.ReportMetric(float64(pages)/float64(round), "pages")
}

// A crawlCost is what a pipeline's crawls took: CPU time (user and
// system), wall time and pages fetched.
type crawlCost struct {
	cpu, wall time.Duration
	pages     int64
}

// reportCPU reports the CPU time a page of each pipeline took (the
// process's user and system time over its crawls: on a shared machine a
// steadier figure than pages/s, which waits on whatever else runs) and
// the plain reference's over Doppel's, the CPU counterpart of x-plain;
// and the cores each kept busy (CPU time over wall time) and Doppel's
// over the reference's: below 1, Doppel waits on a stage of its own
// (the committer, an index write) while the reference's work goes on in
// parallel. The test server's own work is in both, as it serves the same
// pages.
func reportCPU(b *testing.B, plain, doppel crawlCost) {
	if plain.cpu <= 0 || doppel.cpu <= 0 || plain.pages == 0 || doppel.pages == 0 || plain.wall <= 0 || doppel.wall <= 0 {
		return // no CPU time on this system
	}
	perPlain := plain.cpu.Seconds() * 1000 / float64(plain.pages)
	perDoppel := doppel.cpu.Seconds() * 1000 / float64(doppel.pages)
	b.ReportMetric(perPlain, "cpu-ms/page-plain")
	b.ReportMetric(perDoppel, "cpu-ms/page-doppel")
	b.ReportMetric(perPlain/perDoppel, "x-plain-cpu")
	coresPlain, coresDoppel := plain.cpu.Seconds()/plain.wall.Seconds(), doppel.cpu.Seconds()/doppel.wall.Seconds()
	b.ReportMetric(coresPlain, "cores-plain")
	b.ReportMetric(coresDoppel, "cores-doppel")
	b.ReportMetric(coresDoppel/coresPlain, "x-plain-cores")
}
