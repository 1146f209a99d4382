package findcheck_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler"
	"github.com/doppel-search/doppel/dedup/eval"
	"github.com/doppel-search/doppel/internal/testrig/docsite"
	"github.com/doppel-search/doppel/internal/testrig/findcheck"
	"github.com/doppel-search/doppel/ranking"
	"github.com/doppel-search/doppel/web"
)

var (
	large = flag.Bool("large", false, "TestDocSite: crawl and measure the large documentation site (docs/findability.md) instead of the small one")
	nQ    = flag.Int("n", 300, "TestDocSite: titles asked per measure (search-check.py's N)")
	seedQ = flag.Uint64("seed", 1, "TestDocSite: the draw of the titles (search-check.py's SEED)")
	out   = flag.String("out", "", "TestDocSite: also write site.jsonl, site.pairs.jsonl and export.jsonl of the crawl to this `directory`, for the kit's scripts")
)

// docCrawl is a crawl of the documentation site and what measuring it
// needs: its ground truth, the crawl's export and its search.
type docCrawl struct {
	docs   []findcheck.Doc
	truth  *eval.Truth
	export []findcheck.Entry
	// served is the search as `doppel serve` answers it (ranking's
	// defaults); scaled is the same with the scan bound scaled to the
	// site's size (see scaledScan).
	served, scaled findcheck.Searcher
	near           map[string]map[string]bool // copies at resemblance ≥ 0.9
	title          map[string]string
	searchable     int // documents a result page may show
}

// intranetSearchable is how many documents a result page could show on the
// intranet where titles stopped finding their pages (issue 35: Rust's
// documentation, the Apache manual in 11 languages, the Python and
// PostgreSQL manuals; 25,823 pages fetched, 20,837 searchable).
const intranetSearchable = 20837

// scaledScan is ranking.Options.MaxScan scaled from that intranet to a
// crawl with n searchable documents: the default bound, 10,000 scored
// matches, is 0.48 of the intranet's documents, and no search of the small
// site (a few hundred pages) reaches it. It is what broke there: a pasted
// identifier title is held whole by fewer pages than a result page, so the
// relaxed query runs (most of the words, its common words only scoring),
// and when a common English word of the title ("core") has a rare stem in
// another language of the index ("cor", from German pages naming the core
// module) it counts among the words a page needs, the query matches most
// of the API reference and stops after MaxScan matches in index order —
// before the page, often. A model of the intranet must be searched with the
// bound in the same proportion.
func scaledScan(n int) int { return max(1, (10000*n+intranetSearchable/2)/intranetSearchable) }

// crawlDocSite serves the documentation site on loopback, crawls it as
// `doppel crawl --once --seed URL --max-pages 100000 --max-depth 100
// --delay 0 --parallelism 4` does, and serves the crawl's search as
// `doppel serve` does (the web JSON API, asked in the same process).
func crawlDocSite(t *testing.T, opts docsite.Options) *docCrawl {
	t.Helper()
	start := time.Now()
	site := httptest.NewServer(docsite.Handler(opts))
	t.Cleanup(site.Close)
	c, err := crawler.Open(t.TempDir(), crawler.Options{Seeds: []string{site.URL + "/"}, MaxPages: 100000, MaxDepth: 100,
		Delay: -1, Parallelism: 4, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if err := c.Run(ctx); err != nil {
		t.Fatal(err)
	}
	crawled := time.Since(start)

	pages := docsite.Pages(opts)
	truth, err := eval.ComputeTruth(docsite.Docs(pages), 0.8, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := &docCrawl{truth: truth, near: map[string]map[string]bool{}, title: map[string]string{}}
	for _, p := range pages {
		d.docs = append(d.docs, findcheck.Doc{ID: p.Path, Title: p.Title, Text: p.Text})
		d.title[p.Path] = p.Title
	}
	for _, p := range truth.Pairs() {
		if p.Jaccard >= 0.9 {
			for _, ab := range [][2]string{{p.A, p.B}, {p.B, p.A}} {
				if d.near[ab[0]] == nil {
					d.near[ab[0]] = map[string]bool{}
				}
				d.near[ab[0]][ab[1]] = true
			}
		}
	}
	sum, err := c.View().Summary()
	if err != nil {
		t.Fatal(err)
	}
	d.searchable = sum.Searchable
	var entries []crawler.Entry
	err = c.View().Entries(func(e crawler.Entry) error {
		entries = append(entries, e)
		d.export = append(d.export, findcheck.Entry{URL: e.URL, Status: e.Status, Master: e.Master, Indexed: e.Indexed})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct {
		to   *findcheck.Searcher
		opts ranking.Options
	}{{&d.served, ranking.Options{}}, {&d.scaled, ranking.Options{MaxScan: scaledScan(d.searchable)}}} {
		srv, err := web.New(ranking.New(c.Store(), s.opts), web.Options{Text: c.View().Text})
		if err != nil {
			t.Fatal(err)
		}
		*s.to = findcheck.Handler{H: srv}
	}
	st := c.Stats()
	t.Logf("site: %d pages (%d oracle pairs at resemblance or cosine ≥ 0.8); crawl: %d fetched, %d unique, %d near-duplicates, %d errors in %.1f s",
		len(pages), truth.Len(), st.Fetched, st.Unique, st.Duplicates, st.Errors, crawled.Seconds())
	if *out != "" {
		writeFiles(t, *out, pages, site.URL, truth, entries)
	}
	return d
}

// writeFiles writes the site, its pairs and the crawl's export where the
// kit's scripts read them.
func writeFiles(t *testing.T, dir string, pages []docsite.Page, base string, truth *eval.Truth, entries []crawler.Entry) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name string, fn func(f *os.File) error) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := fn(f); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	write("site.jsonl", func(f *os.File) error { return docsite.WriteJSONL(f, pages, base) })
	write("site.pairs.jsonl", func(f *os.File) error { _, err := truth.WriteTo(f); return err })
	write("export.jsonl", func(f *os.File) error { // as doppel export writes it
		enc := json.NewEncoder(f)
		enc.SetEscapeHTML(false)
		for _, e := range entries {
			if err := enc.Encode(e); err != nil {
				return err
			}
		}
		return nil
	})
	t.Logf("wrote %s/site.jsonl, site.pairs.jsonl, export.jsonl", dir)
}

// TestDocSite crawls the documentation site of package docsite and
// measures it with the kit's search-check definitions, against the
// acceptance thresholds of issue 35: pasted titles find their page
// (known_item and known_item_self ≥ 0.98, no redundant list), pages the
// crawl kept out of the index are found by their own title (hidden_self ≥
// 0.95) and by a line of their own (hidden_diff ≥ 0.9), each language's
// titles asked in that language find the page itself (exact ≥ 0.98), and
// identifiers find their pages however much of the title is pasted.
//
// Each is measured twice: "served", with the search `doppel serve` runs
// (ranking's defaults), and "scaled", the same with its scan bound scaled
// from the intranet of issue 35 to the site (scaledScan): the small site is
// a model of that intranet, and on it only the scaled search meets the
// bound the intranet's searches met.
//
// The small site takes seconds; -large measures the full one of
// docs/findability.md:
//
//	go test ./internal/testrig/findcheck -run TestDocSite -v -timeout 30m -args -large
func TestDocSite(t *testing.T) {
	opts := docsite.Options{Large: *large}
	d := crawlDocSite(t, opts)
	t.Run("served", func(t *testing.T) { d.measure(t, d.served) })
	t.Run("scaled", func(t *testing.T) {
		t.Logf("ranking.Options.MaxScan = %d (10,000 × %d searchable documents / %d)", scaledScan(d.searchable), d.searchable, intranetSearchable)
		d.measure(t, d.scaled)
	})
}

// measure asks search for the site's titles, each language's titles and
// the identifier probes, and checks the thresholds of issue 35.
func (d *docCrawl) measure(t *testing.T, search findcheck.Searcher) {
	ctx := context.Background()
	check := func(t *testing.T, o findcheck.Options) findcheck.Result {
		t.Helper()
		o.N, o.Seed = *nQ, *seedQ
		r, err := findcheck.Check(ctx, search, d.docs, d.truth, o)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}

	t.Run("titles", func(t *testing.T) {
		r := check(t, findcheck.Options{Export: d.export})
		t.Log(r)
		atLeast(t, "known_item", r.KnownItem, 0.98, nil)
		atLeast(t, "known_item_self", r.KnownItemSelf, 0.98, r.MissedSelf)
		if r.Errors > 0 || r.Redundant > 0 {
			t.Errorf("errors=%d redundant=%d, want 0:%s", r.Errors, r.Redundant, missList(r.RedundantLists))
		}
		if r.Hidden == 0 {
			t.Errorf("hidden=0: the crawl kept no page whose title names it out of the index")
		}
		atLeast(t, "hidden_self", r.HiddenSelf, 0.95, r.MissedHidden)
		atLeast(t, "hidden_diff", r.HiddenDiff, 0.9, r.MissedHiddenLines)
	})

	t.Run("languages", func(t *testing.T) {
		for _, l := range docsite.Languages {
			t.Run(l, func(t *testing.T) {
				r := check(t, findcheck.Options{Prefix: "/manual/" + l + "/", AcceptLanguage: l})
				t.Logf("PREFIX=/manual/%s/ ACCEPT_LANGUAGE=%s %s", l, l, r)
				if r.Queries == 0 {
					t.Fatal("no titles asked")
				}
				atLeast(t, "exact", r.Exact, 0.98, r.MissedExact)
			})
		}
	})

	t.Run("identifiers", func(t *testing.T) {
		found, asked := 0, 0
		for _, p := range identifierProbes {
			for _, q := range []struct{ kind, query string }{
				{"title", d.title[p.path]},
				{"identifier", p.ident},
				{"identifier+word", p.ident + " " + p.word},
			} {
				if q.query == "" {
					t.Fatalf("%s: no such page", p.path)
				}
				hits, err := search.Search(ctx, q.query, "")
				if err != nil {
					t.Fatal(err)
				}
				asked++
				if d.finds(p.path, q.kind == "title", hits) {
					found++
					continue
				}
				t.Errorf("%s %q does not find %s in the top 10: %s", q.kind, q.query, p.path, shortList(hits))
			}
		}
		t.Logf("identifier probes: %d of %d found", found, asked)
	})
}

// identifierProbes are pages whose titles are identifiers, with the
// identifier and one more word of the title.
var identifierProbes = []struct{ path, ident, word string }{
	{"/rust/core/arch/x86_64/fn._mm512_slli_epi16.html", "_mm512_slli_epi16", "core"},
	{"/rust/core/arch/x86/fn._mm512_slli_epi16.html", "_mm512_slli_epi16", "x86"},
	{"/rust/core/arch/x86_64/fn._mm256_maskz_slli_epi16.html", "_mm256_maskz_slli_epi16", "core"},
	{"/rust/core/arch/x86_64/fn._mm_add_epi32.html", "_mm_add_epi32", "arch"},
	{"/rust/core/arch/x86_64/fn._blsic_u32.html", "_blsic_u32", "core"},
	{"/rust/core/arch/aarch64/fn.vcreate_f64.html", "vcreate_f64", "aarch64"},
	{"/rust/core/arch/aarch64/fn.vzip1_s16.html", "vzip1_s16", "core"},
	{"/rust/core/iter/index.html", "core::iter", "Rust"},
	{"/rust/std/iter/trait.Iterator.html", "Iterator", "std::iter"},
	{"/rust/core/iter/struct.FilterMap.html", "FilterMap", "core"},
	{"/rust/core/char/struct.EscapeUnicode.html", "EscapeUnicode", "char"},
	{"/rust/std/iter/fn.successors.html", "successors", "std"},
}

// finds says whether hits hold the page of path or a copy of it: a copy
// with the very same title if sameTitle (the title was asked: a copy of
// another name is another page), any copy otherwise (the identifier names
// both).
func (d *docCrawl) finds(path string, sameTitle bool, hits []string) bool {
	return slices.ContainsFunc(hits, func(h string) bool {
		h = findcheck.Path(h)
		return h == path || d.near[path][h] && (!sameTitle || d.title[h] == d.title[path])
	})
}

// atLeast fails t if a measure is below its threshold, listing the
// queries missed.
func atLeast(t *testing.T, name string, got, want float64, missed []findcheck.Miss) {
	t.Helper()
	if got >= want {
		return
	}
	t.Errorf("%s=%.3f, want ≥ %.2f; missed %d:%s", name, got, want, len(missed), missList(missed))
}

// missList is one line per query missed: what was asked, the page, the
// top hits.
func missList(missed []findcheck.Miss) string {
	var b strings.Builder
	for _, m := range missed {
		fmt.Fprintf(&b, "\n\t%q (%s): %s", m.Query, m.ID, shortList(m.Hits))
	}
	return b.String()
}

// shortList is the top hits as paths, the first five.
func shortList(hits []string) string {
	var ps []string
	for i, h := range hits {
		if i == 5 {
			ps = append(ps, fmt.Sprintf("… (%d in all)", len(hits)))
			break
		}
		ps = append(ps, findcheck.Path(h))
	}
	if len(ps) == 0 {
		return "no hits"
	}
	return strings.Join(ps, " ")
}
