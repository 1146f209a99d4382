package crawler

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/ranking"
)

// traitSite is an API reference like rustdoc's: groups of types that
// share a long list of trait implementations, each with a name and a
// one-line description of its own — copies by resemblance of their main
// content, distinct pages to whoever searches — and print and mirror
// copies of every fifth type.
func traitSite(groups, perGroup int) http.Handler {
	name := func(g, k int) string {
		return fmt.Sprintf("Escape%s%d", []string{"Default", "Unicode", "Debug", "Ascii"}[k%4], g)
	}
	traits := func(g int) string {
		var b strings.Builder
		for i := range 60 {
			fmt.Fprintf(&b, "<p>impl Trait%d%d for the iterator: fn method%d(&amp;mut self) -> Option of the item, provided by the blanket implementation of group %d.</p>", g, i, i, g)
		}
		return b.String()
	}
	page := func(g, k int) string {
		n := name(g, k)
		return fmt.Sprintf("<h1>Struct core::char::%s</h1><p>Returns an iterator that yields the %s form of a char (variant %d).</p>%s", n, n, k, traits(g))
	}
	html := func(w http.ResponseWriter, title, body string) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><head><title>%s</title></head><body><nav><a href=\"/\">Home</a></nav><main>%s</main></body></html>", title, body)
	}
	parse := func(r *http.Request) (g, k int) {
		fmt.Sscanf(r.PathValue("type"), "%d-%d.html", &g, &k)
		return g, k
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		b.WriteString("<ul>")
		for g := range groups {
			for k := range perGroup {
				fmt.Fprintf(&b, `<li><a href="/std/%d-%d.html">%s</a>`, g, k, name(g, k))
				if (g*perGroup+k)%5 == 0 {
					fmt.Fprintf(&b, ` <a href="/print/std/%d-%d.html">Printer-friendly version</a> <a href="/mirror/std/%d-%d.html">mirror</a>`, g, k, g, k)
				}
				b.WriteString("</li>")
			}
		}
		html(w, "Standard library", b.String()+"</ul>")
	})
	mux.HandleFunc("/std/{type}", func(w http.ResponseWriter, r *http.Request) {
		g, k := parse(r)
		html(w, name(g, k), page(g, k))
	})
	mux.HandleFunc("/print/std/{type}", func(w http.ResponseWriter, r *http.Request) {
		g, k := parse(r)
		html(w, name(g, k)+" (print)", page(g, k)+"<p>Printed from the developer portal.</p>")
	})
	mux.HandleFunc("/mirror/std/{type}", func(w http.ResponseWriter, r *http.Request) {
		g, k := parse(r)
		html(w, name(g, k), page(g, k))
	})
	return mux
}

// TestHiddenPagesFoundByName: types whose pages are copies by
// resemblance (a long shared trait list) are joined, and each is still
// the first hit for its own name; print and mirror copies are joined to
// their page and never stand beside it.
func TestHiddenPagesFoundByName(t *testing.T) {
	const groups, perGroup = 12, 4
	s := newSite(t, traitSite(groups, perGroup))
	c := crawl(t, t.TempDir(), testOptions(s.URL+"/"))
	recs := records(t, c)
	hidden := 0
	for _, r := range recs {
		if r.Status == pages.Fetched && strings.Contains(r.URL, "/std/") && r.Cluster != "" {
			if m, _ := c.pages.Masters(); m[r.Cluster] != r.URL {
				hidden++
			}
		}
	}
	if hidden < groups*(perGroup-1) {
		t.Fatalf("%d pages are near-duplicates, want at least %d: the site no longer tests hidden pages", hidden, groups*(perGroup-1))
	}
	search := ranking.New(c.Index(), ranking.Options{})
	for g := range groups {
		for k := range perGroup {
			path := fmt.Sprintf("/std/%d-%d.html", g, k)
			u := s.URL + path
			if (g*perGroup+k)%5 == 0 {
				for _, cp := range []string{"/print", "/mirror"} {
					if rc, r := recs[s.URL+cp+path], recs[u]; rc.Cluster != r.Cluster {
						t.Errorf("%s is not in the cluster of %s", cp+path, path)
					}
				}
			}
			n := []string{"Default", "Unicode", "Debug", "Ascii"}[k%4]
			q := fmt.Sprintf("Escape%s%d", n, g)
			res, err := search.Search(context.Background(), ranking.Request{Query: q})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) == 0 || !strings.HasSuffix(res.Hits[0].URL, path) {
				var got []string
				for _, h := range res.Hits {
					got = append(got, strings.TrimPrefix(h.URL, s.URL))
				}
				t.Errorf("search %s: %v, want %s (or a copy of it) first", q, got, path)
			}
		}
	}
}

// languageSite is a manual in English and Danish: the Danish section
// keeps the English text of the pages not translated yet — the even ones
// with lang="da", as a section template declares, the odd ones with
// lang="en", as the Apache manual's /da/ has them — and links to both
// sections come from an English start page.
func languageSite(pages int) http.Handler {
	text := func(i int) string {
		return fmt.Sprintf("<h1>Module mod_%d</h1><p>The module mod_%d configures directive number %d of the server. "+
			"It is loaded at start-up and reads its settings from the main configuration file, where each directive "+
			"takes one argument and may appear in any virtual host section.</p>", i, i, i)
	}
	mux := http.NewServeMux()
	html := func(w http.ResponseWriter, lang, title, body string) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<html lang="%s"><head><title>%s</title></head><body><main>%s</main></body></html>`, lang, title, body)
	}
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		for i := range pages {
			fmt.Fprintf(&b, `<p><a href="/manual/da/mod_%d.html">mod_%d (dansk)</a> <a href="/manual/en/mod_%d.html">mod_%d</a></p>`, i, i, i, i)
		}
		html(w, "en", "Server manual", b.String())
	})
	page := func(l string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			var i int
			fmt.Sscanf(r.PathValue("page"), "mod_%d.html", &i)
			markup := l
			if i%2 == 1 {
				markup = "en" // untranslated: the English page's markup, as the Apache manual's /da/ has it
			}
			html(w, markup, fmt.Sprintf("mod_%d - Server manual", i), text(i))
		}
	}
	mux.HandleFunc("/manual/da/{page}", page("da"))
	mux.HandleFunc("/manual/en/{page}", page("en"))
	return mux
}

// TestLanguageOfMasters: of a page and its copy in another language
// section, the page in the language the crawl started in is master
// (though the Danish URL sorts first and is met first) — also where the
// copy, untranslated, says it is English: then both are English, and the
// page whose section is English is master. A reader of Danish is shown
// the Danish section's copy, a reader of English the English page.
func TestLanguageOfMasters(t *testing.T) {
	const n = 8
	s := newSite(t, languageSite(n))
	c := crawl(t, t.TempDir(), testOptions(s.URL+"/"))
	masters, err := c.pages.Masters()
	if err != nil {
		t.Fatal(err)
	}
	recs := records(t, c)
	search := ranking.New(c.Index(), ranking.Options{})
	for i := range n {
		en, da := fmt.Sprintf("%s/manual/en/mod_%d.html", s.URL, i), fmt.Sprintf("%s/manual/da/mod_%d.html", s.URL, i)
		if recs[en].Cluster != recs[da].Cluster {
			t.Fatalf("mod_%d: the language copies are not joined", i)
		}
		if m := masters[recs[en].Cluster]; m != en {
			t.Errorf("mod_%d: master %s, want the English page", i, m)
		}
		wantDa := "da"
		if i%2 == 1 {
			wantDa = "en" // its markup's, not its section's
		}
		if recs[da].Lang != wantDa || recs[en].Lang != "en" {
			t.Errorf("mod_%d: languages %q, %q, want %q, en", i, recs[da].Lang, recs[en].Lang, wantDa)
		}
		for _, tc := range []struct {
			langs []string
			want  string
		}{{nil, en}, {[]string{"en"}, en}, {[]string{"da", "en"}, da}, {[]string{"fr", "da"}, da}, {[]string{"fr"}, en}} {
			res, err := search.Search(context.Background(), ranking.Request{Query: fmt.Sprintf("mod_%d - Server manual", i), Languages: tc.langs})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) == 0 || res.Hits[0].URL != tc.want || res.Hits[0].Similar != 1 {
				t.Errorf("mod_%d for %v: %+v, want %s first with 1 similar", i, tc.langs, res.Hits, tc.want)
			}
		}
	}
}

// chainSite serves families of three pages in a chain — b is a with three
// words edited, c is b with three more, so a ≈ b ≈ c and a ≉ c — linked
// from the start page in the order given (0, 1, 2 for a, b, c).
func chainSite(families int, order []int) http.Handler {
	text := func(f, k int) string {
		words := make([]string, 400)
		for i := range words {
			words[i] = fmt.Sprintf("w%dx%d", f, (i*7919+f*31)%100003)
		}
		for j := 1; j <= k; j++ {
			for e := range 3 {
				words[(j*3+e)*30%400] = fmt.Sprintf("edit%dx%dx%d", f, j, e)
			}
		}
		return strings.Join(words, " ")
	}
	mux := http.NewServeMux()
	html := func(w http.ResponseWriter, title, body string) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><head><title>%s</title></head><body><main>%s</main></body></html>", title, body)
	}
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		for f := range families {
			for _, k := range order {
				fmt.Fprintf(&b, `<p><a href="/f%d/%c.html">page</a></p>`, f, 'a'+k)
			}
		}
		html(w, "Families", b.String())
	})
	mux.HandleFunc("/{family}/{page}", func(w http.ResponseWriter, r *http.Request) {
		var f int
		var k rune
		fmt.Sscanf(r.PathValue("family"), "f%d", &f)
		fmt.Sscanf(r.PathValue("page"), "%c.html", &k)
		html(w, fmt.Sprintf("Family %d", f), "<p>"+text(f, int(k-'a'))+"</p>")
	})
	return mux
}

// TestChainsWhole: whatever order a chain's pages are crawled in, a crawl
// ends with each chain one cluster around its middle page, in the
// records, the index ("2 similar") and after a restart.
func TestChainsWhole(t *testing.T) {
	const families = 5
	for _, order := range [][]int{{0, 1, 2}, {0, 2, 1}, {2, 0, 1}, {1, 2, 0}} {
		t.Run(fmt.Sprint(order), func(t *testing.T) {
			s := newSite(t, chainSite(families, order))
			opts := testOptions(s.URL + "/")
			opts.Parallelism = 1
			dir := t.TempDir()
			c := crawl(t, dir, opts)
			check := func(c *Crawler) {
				t.Helper()
				recs := records(t, c)
				masters, err := c.pages.Masters()
				if err != nil {
					t.Fatal(err)
				}
				search := ranking.New(c.Index(), ranking.Options{})
				for f := range families {
					u := func(k rune) string { return fmt.Sprintf("%s/f%d/%c.html", s.URL, f, k) }
					cl := recs[u('b')].Cluster
					if recs[u('a')].Cluster != cl || recs[u('c')].Cluster != cl || masters[cl] != u('b') {
						t.Fatalf("family %d: clusters %s %s %s, master %s", f, recs[u('a')].Cluster, cl, recs[u('c')].Cluster, masters[cl])
					}
					res, err := search.Search(context.Background(), ranking.Request{Query: fmt.Sprintf("Family %d", f)})
					if err != nil {
						t.Fatal(err)
					}
					if len(res.Hits) == 0 || res.Hits[0].URL != u('b') || res.Hits[0].Similar != 2 {
						t.Fatalf("family %d: %+v, want b with 2 similar", f, res.Hits)
					}
				}
			}
			check(c)
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			c2, err := Open(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer c2.Close()
			check(c2)
		})
	}
}
