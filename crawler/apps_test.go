package crawler

import (
	"context"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/internal/testrig/appsite"
	"github.com/doppel-search/doppel/ranking"
)

// keptCurve returns, for the requests the site logged (its page
// requests, in order), the number of requests by which the crawl had
// made the request of each page it kept (sorted), and the pages kept.
func keptCurve(t *testing.T, c *Crawler, log *appsite.Log) (at []int, kept int) {
	t.Helper()
	first := map[string]int{}
	for i, u := range log.Pages() {
		if _, ok := first[u]; !ok {
			first[u] = i + 1
		}
	}
	for u, r := range records(t, c) {
		if r.Status != pages.Fetched {
			continue
		}
		pu, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		n, ok := first[pu.RequestURI()]
		if !ok {
			t.Errorf("kept %s, which the site never answered", u)
			continue
		}
		at = append(at, n)
	}
	slices.Sort(at)
	return at, len(at)
}

// TestWikiRequestsPerPage crawls a MediaWiki-like wiki whose every page
// links its edit, history, information, old revision, printable,
// section edit, login and Special: views (marked noindex, as MediaWiki
// marks them) and red links: the crawl keeps every article, copy and
// talk page, ≥ 90 % of them within twice as many requests as pages
// kept and all within four times; redirect pages are skipped for their
// canonical URL; the families it learnt yield nothing are demoted or
// stopped; Stats.Requests is what the site answered.
func TestWikiRequestsPerPage(t *testing.T) {
	w := appsite.NewWiki(appsite.WikiOptions{})
	s := httptest.NewServer(w)
	t.Cleanup(s.Close)
	opts := testOptions(s.URL + "/index.php/Main_Page")
	opts.Delay = -1
	// The wiki's articles link each other in long chains ("See also" the
	// next, the seventh and the thirteenth): with fetches in parallel, an
	// article may be fetched first along a path of ten links although a
	// shorter one exists, and its links then pass the default depth
	// bound, which keeps the depth a page had when it was fetched (1 run
	// in 14 to 80 on a busy machine lost up to 3 articles and talk pages).
	// Requests per page are what this test measures, not the bound.
	opts.MaxDepth = 100
	c := crawl(t, t.TempDir(), opts)
	recs := records(t, c)
	for _, p := range w.Kept() {
		if r, ok := recs[s.URL+p]; !ok || r.Status != pages.Fetched {
			t.Errorf("%s: %+v, want it kept", p, r.Status)
		}
	}
	// A redirect page (200, its target's text, a canonical link to the
	// target, as MediaWiki serves it) is skipped for its canonical URL,
	// never kept beside its target.
	for r, target := range w.Redirects {
		rec, ok := recs[s.URL+"/index.php/"+r]
		if !ok || rec.Status != pages.Skipped || !strings.HasPrefix(rec.Reason, "canonical URL") {
			t.Errorf("redirect %s → %s: %+v, want it skipped for its canonical URL", r, target, rec)
		}
	}
	// The skin's furniture is not text: the "[edit]" links beside
	// headings, the "Retrieved from" footer.
	for _, title := range w.Articles {
		r := recs[s.URL+"/index.php/"+title]
		if strings.Contains(strings.Join(r.Headings, "\n"), "edit") || strings.Contains(r.Text, "Retrieved from") {
			t.Errorf("%s: headings %q, text %q hold the furniture", title, r.Headings, r.Text)
		}
	}
	// A copy never stands for its original on the original's exact
	// title.
	search := ranking.New(c.Index(), ranking.Options{})
	for cp, orig := range w.Copies {
		name := strings.ReplaceAll(orig, "_", " ")
		for _, q := range []string{name, strings.ToLower(name)} {
			res, err := search.Search(context.Background(), ranking.Request{Query: q})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) == 0 || res.Hits[0].URL != s.URL+"/index.php/"+orig {
				var got []string
				for _, h := range res.Hits {
					got = append(got, strings.TrimPrefix(h.URL, s.URL))
				}
				t.Errorf("search %q: %v; want the article first, not %s", q, got, cp)
			}
		}
	}
	at, kept := keptCurve(t, c, w.Log)
	requests := len(w.Log.Pages())
	if kept < len(w.Kept()) {
		t.Fatalf("kept %d pages of the wiki's %d", kept, len(w.Kept()))
	}
	within := func(limit int) int {
		n, _ := slices.BinarySearch(at, limit+1)
		return n
	}
	t.Logf("%d requests for %d pages kept; %d kept within %d requests, the last at request %d",
		requests, kept, within(2*kept), 2*kept, at[len(at)-1])
	if n := within(2 * kept); 10*n < 9*kept {
		t.Errorf("%d of %d pages kept within %d requests; want ≥ 90 %%", n, kept, 2*kept)
	}
	if last := at[len(at)-1]; last > 4*kept {
		t.Errorf("the last page kept came at request %d, beyond 4× the %d pages kept", last, kept)
	}
	if st := c.Stats(); st.Requests != int64(requests) {
		t.Errorf("Stats.Requests = %d; the site answered %d page requests", st.Requests, requests)
	}
	fams := c.commit.admit.Families()
	for _, f := range []string{"?action=*&section=*&title=*", "?returnto=*&title=Special:*", "index.php/Special:WhatLinksHere/*"} {
		found := false
		for k := range fams {
			found = found || strings.HasSuffix(k, f)
		}
		if !found {
			t.Errorf("the family …%s was neither demoted nor stopped (families: %v)", f, fams)
		}
	}
	for k, v := range fams {
		if strings.HasSuffix(k, "/index.php/*") {
			t.Errorf("the articles' family %s was %s", k, v)
		}
	}
}

// TestWikiBudgetBoundsRequests: --max-pages N makes at most N page
// requests (robots.txt and the soft-404 probe aside), however many of
// them are skipped, and the crawl says it stopped at its budget.
func TestWikiBudgetBoundsRequests(t *testing.T) {
	for _, budget := range []int{1, 7, 40} {
		w := appsite.NewWiki(appsite.WikiOptions{})
		s := httptest.NewServer(w)
		opts := testOptions(s.URL + "/index.php/Main_Page")
		opts.Delay, opts.MaxPages = -1, budget
		c := crawl(t, t.TempDir(), opts)
		n := len(w.Log.Pages())
		if n > budget {
			t.Errorf("--max-pages %d: the wiki answered %d page requests", budget, n)
		}
		st := c.Stats()
		if st.Requests != int64(n) || n == 0 {
			t.Errorf("--max-pages %d: Stats.Requests %d, the wiki answered %d", budget, st.Requests, n)
		}
		if !st.BudgetSpent(budget) {
			t.Errorf("--max-pages %d: the crawl does not say it stopped at its budget (%+v)", budget, st)
		}
		s.Close()
	}
}

// TestAutoindexListings crawls an Apache-autoindex-like tree whose
// listings link their four sort orders ("?C=N;O=D"): by default a
// listing costs one request (its sort orders are recognised by their
// shape, recorded and not fetched) and every document is kept; with
// FetchViews the sort orders are requested exactly as linked, ";"
// included, never "%3B".
func TestAutoindexListings(t *testing.T) {
	f := appsite.NewFiles(appsite.FilesOptions{})
	s := httptest.NewServer(f)
	t.Cleanup(s.Close)
	opts := testOptions(s.URL + "/")
	opts.Delay = -1
	c := crawl(t, t.TempDir(), opts)
	listings := 0
	for _, u := range f.Log.Pages() {
		if p, _, _ := strings.Cut(u, "?"); strings.HasSuffix(p, "/") {
			listings++
		}
	}
	if listings > 2*len(f.Folders) {
		t.Errorf("%d listing requests for %d folders; want at most one beyond each listing", listings, len(f.Folders))
	}
	recs := records(t, c)
	for _, d := range f.Documents {
		if recs[s.URL+d].Status != pages.Fetched {
			t.Errorf("%s: %q, want it kept", d, recs[s.URL+d].Status)
		}
	}
	sortRec := recs[s.URL+"/?C=N;O=D"]
	if sortRec.Status != pages.Skipped || !strings.Contains(sortRec.Reason, "sort order") {
		t.Errorf("the root's sort order: %+v", sortRec)
	}
	t.Logf("%d page requests, %d of them listings, for %d folders and %d documents", len(f.Log.Pages()), listings, len(f.Folders), len(f.Documents))

	// Fetching the views: the query goes out as linked.
	g := appsite.NewFiles(appsite.FilesOptions{Depth: 1})
	gs := httptest.NewServer(g)
	t.Cleanup(gs.Close)
	opts = testOptions(gs.URL + "/")
	opts.Delay, opts.FetchViews = -1, true
	crawl(t, t.TempDir(), opts)
	uris := g.Log.Pages()
	if !slices.Contains(uris, "/?C=N;O=D") {
		t.Errorf("the root's ?C=N;O=D was not requested as linked: %v", uris)
	}
	for _, u := range uris {
		if strings.Contains(strings.ToUpper(u), "%3B") {
			t.Errorf("requested %s: the ; was encoded", u)
		}
	}
}
