package e2e

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestLayout checks issue 39's reading of the result pages in headless
// Chromium: no sideways scroll from 360 px to a wide screen, the
// no-results page's offers, the query syntax behind "advanced" and the
// status page's search box (screenshots of each, as TestBrowser's).
func TestLayout(t *testing.T) {
	scenarios(t, []scenario{
		{"widths", layoutWidths},
		{"no-results", noResults},
		{"advanced-syntax", advancedSyntax},
		{"status-search", statusSearch},
		{"hit-details", hitDetails},
	})
}

// widths are the viewport widths the layout is checked at: a small phone,
// a tablet, a laptop.
var widths = []int64{360, 768, 1280}

// fit is how a page fits its viewport.
type fit struct {
	ScrollWidth int `json:"scrollWidth"` // document.documentElement.scrollWidth
	InnerWidth  int `json:"innerWidth"`  // window.innerWidth
	BoxRight    int `json:"boxRight"`    // the right edge of the search box, -1 if none
}

const fitJS = `(() => { const q = document.getElementById('q');
	return {scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth,
		boxRight: q ? Math.ceil(q.getBoundingClientRect().right) : -1}; })()`

// layoutWidths opens the search, no-results, cluster, what-differs and
// status pages at each of widths (as a phone at the narrow ones: the
// viewport meta tag counts) and checks that none scrolls sideways and the
// search box is inside the window, saving a screenshot of each.
func layoutWidths(b *browser) {
	t := b.t
	pages := uiPages(b)
	for _, w := range widths {
		viewport := chromedp.EmulateViewport(w, 800)
		if w < 1024 {
			viewport = chromedp.EmulateViewport(w, 800, chromedp.EmulateMobile)
		}
		b.do(fmt.Sprintf("emulating a %d px viewport", w), viewport)
		for _, p := range pages {
			b.do("opening "+p.name, chromedp.Navigate(p.url), chromedp.WaitVisible(chromedp.CSS(p.wait)))
			b.shot(fmt.Sprintf("%s-%dpx", p.name, w))
			f := run(b, "measuring "+p.name, chromedp.Evaluate[fit](fitJS))
			t.Logf("%s at %d px: scrollWidth %d, innerWidth %d, search box right edge %d", p.name, w, f.ScrollWidth, f.InnerWidth, f.BoxRight)
			// A phone widens its layout viewport (window.innerWidth) to
			// fit a page too wide for it, so both count.
			if f.InnerWidth != int(w) {
				t.Errorf("%s at %d px: window.innerWidth is %d (zoomed out to fit a page too wide)", p.name, w, f.InnerWidth)
			}
			if f.ScrollWidth > min(f.InnerWidth, int(w)) {
				t.Errorf("%s at %d px scrolls sideways: scrollWidth %d > innerWidth %d", p.name, w, f.ScrollWidth, f.InnerWidth)
			}
			if f.BoxRight < 0 || f.BoxRight > f.InnerWidth {
				t.Errorf("%s at %d px: the search box ends at %d px, outside the window (%d px)", p.name, w, f.BoxRight, f.InnerWidth)
			}
		}
	}
}

// A uiPage is one of the UI's pages as the layout and accessibility
// checks open it: its name, address and an element it shows once loaded.
type uiPage struct {
	name, url, wait string
}

// uiPages returns the home, search, no-results, cluster, what-differs and
// status pages, the cluster and what-differs pages those the vpn results
// link to.
func uiPages(b *browser) []uiPage {
	b.t.Helper()
	b.do("searching vpn", chromedp.Navigate(b.base+"/?q=vpn"), chromedp.WaitVisible(chromedp.CSS("ol#results > li.hit")))
	links := run(b, "reading a cluster and a what-differs link", chromedp.Evaluate[[]string](
		`[document.querySelector('a.cluster'), document.querySelector('a.diff')].map(a => a ? a.href : '')`))
	if len(links) != 2 || links[0] == "" || links[1] == "" {
		b.t.Fatalf("the vpn results have no cluster page or what-differs link: %q", links)
	}
	return []uiPage{
		{"home", b.base + "/", "#q"},
		{"search", b.base + "/?q=vpn", "ol#results > li.hit"},
		{"no-results", b.base + "/?q=vpn&host=nowhere.invalid", "#no-results"},
		{"cluster", links[0], "#members"},
		{"what-differs", links[1], "#diff"},
		{"status", b.admin + "/status", "#hosts"},
	}
}

// noResults searches with a filter that leaves nothing and follows the
// no-results page's offer to drop it.
func noResults(b *browser) {
	t := b.t
	b.do("searching with a filter that matches nothing", chromedp.Navigate(b.base+"/?q=vpn&host=nowhere.invalid"),
		chromedp.WaitVisible(chromedp.ID("no-results")))
	b.shot("no-results")
	if n := len(b.hits()); n != 0 {
		t.Fatalf("%d results with host=nowhere.invalid", n)
	}
	type offers struct {
		Drops      []string `json:"drops"`
		Suggestion string   `json:"suggestion"` // the "Did you mean" link, if any
		Try        string   `json:"try"`        // the no-results page's suggestion link, if any
	}
	o := run(b, "reading the offers", chromedp.Evaluate[offers](`({
		drops: [...document.querySelectorAll('#no-results li.drop-filter a')].map(a => a.textContent),
		suggestion: (document.querySelector('#suggestion a') || {textContent: ''}).textContent,
		try: (document.querySelector('#try-suggestion a') || {textContent: ''}).textContent})`))
	t.Logf("no-results offers: %+v", o)
	if len(o.Drops) != 1 || !strings.Contains(o.Drops[0], "host: nowhere.invalid") {
		t.Errorf("the no-results page offers to drop %q, want the host filter only", o.Drops)
	}
	if o.Try != o.Suggestion {
		t.Errorf("the no-results page suggests %q, the page's \"Did you mean\" %q", o.Try, o.Suggestion)
	}
	b.do("dropping the filter", chromedp.Click(chromedp.CSS("#no-results li.drop-filter a")),
		chromedp.WaitVisible(chromedp.CSS("ol#results > li.hit")))
	b.shot("filter-dropped")
	loc := run(b, "location", chromedp.Location())
	if u, err := url.Parse(loc); err != nil || u.Query().Get("q") != "vpn" || u.Query().Has("host") {
		t.Errorf("after dropping the filter, the location is %q, want q=vpn and no host", loc)
	}
	if _, rank := b.findHit(b.hits(), vpnPage); rank == 0 {
		t.Errorf("the VPN manual page is not among the results once the filter is dropped")
	}
	if n := run(b, "counting #no-results", chromedp.Evaluate[int](`document.querySelectorAll('#no-results').length`)); n != 0 {
		t.Errorf("a page with results shows the no-results offers")
	}
}

// advancedSyntax checks that the query-syntax switch is hidden behind
// "advanced" until asked for.
func advancedSyntax(b *browser) {
	t := b.t
	visible := func() bool {
		return run(b, "reading the syntax switch's visibility", chromedp.Evaluate[bool](`document.getElementById('syntax').checkVisibility()`))
	}
	b.do("opening the search page", chromedp.Navigate(b.base+"/"), chromedp.WaitVisible(chromedp.ID("q")))
	if visible() {
		t.Errorf("the query-syntax switch is visible on the first screen")
	}
	b.do("opening advanced", chromedp.Click(chromedp.CSS("#advanced > summary")), chromedp.WaitVisible(chromedp.ID("syntax")))
	b.shot("advanced")
	b.do("searching in bleve syntax", chromedp.Click(chromedp.ID("syntax")), chromedp.SendKeys(chromedp.ID("q"), "vpn AND service"),
		chromedp.Submit(chromedp.ID("q")), chromedp.WaitVisible(chromedp.CSS("ol#results > li.hit")))
	loc := run(b, "location", chromedp.Location())
	if u, err := url.Parse(loc); err != nil || u.Query().Get("syntax") != "bleve" {
		t.Errorf("after searching with the switch on, the location is %q, want syntax=bleve", loc)
	}
	if !visible() {
		t.Errorf("the query-syntax switch is hidden on a page searched in that syntax")
	}
}

// statusSearch searches from the status page's search box on the
// administrators' address: it answers with the search page, public
// documents only.
func statusSearch(b *browser) {
	t := b.t
	b.do("opening the status page", chromedp.Navigate(b.admin+"/status"), chromedp.WaitVisible(chromedp.ID("q")))
	b.do("searching from it", chromedp.SendKeys(chromedp.ID("q"), hrQuery), chromedp.Submit(chromedp.ID("q")),
		chromedp.WaitVisible(chromedp.CSS("ol#results > li.hit")))
	b.shot("results")
	loc := run(b, "location", chromedp.Location())
	if u, err := url.Parse(loc); err != nil || u.Path != "/" || u.Query().Get("q") != hrQuery {
		t.Errorf("the status page's search went to %q, want /?q=%s", loc, hrQuery)
	}
	hs := b.hits()
	t.Logf("from the status page: %v", b.paths(hs))
	if len(hs) == 0 {
		t.Errorf("the status page's search finds nothing for %q", hrQuery)
	}
	for _, p := range b.paths(hs) {
		if strings.HasPrefix(p, "/hr/") {
			t.Errorf("the status page's search shows the HR page %s to anybody on the administrators' address", p)
		}
	}
}

// hitLine is what a hit shows under its title: its breadcrumbs (those
// visible), and its date as written and as shown.
type hitLine struct {
	Crumbs   []string `json:"crumbs"`
	Datetime string   `json:"datetime"`
	Shown    string   `json:"shown"`
	Fetched  bool     `json:"fetched"`
}

const hitLinesJS = `[...document.querySelectorAll('ol#results > li.hit')].map(li => {
	const d = li.querySelector('time.date');
	return {crumbs: [...li.querySelectorAll('.crumbs .crumb')].filter(c => c.checkVisibility()).map(c => c.textContent),
		datetime: d ? d.getAttribute('datetime') : '', shown: d ? d.textContent : '', fetched: !!li.querySelector('.fetched')};
})`

// hitDetails checks each hit's breadcrumbs and date: the host and the
// folders of its URL (at 360 px the host and the last folder only), and
// the date it was fetched (the demo's pages carry none of their own),
// shown in the browser's locale.
func hitDetails(b *browser) {
	t := b.t
	host := strings.TrimPrefix(b.site, "http://")
	for _, w := range []int64{1280, 360} {
		viewport := chromedp.EmulateViewport(w, 800)
		if w < 1024 {
			viewport = chromedp.EmulateViewport(w, 800, chromedp.EmulateMobile)
		}
		b.do("searching vpn", viewport, chromedp.Navigate(b.base+"/?q=vpn&filter=0"), chromedp.WaitVisible(chromedp.CSS("ol#results > li.hit")))
		b.shot(fmt.Sprintf("hits-%dpx", w))
		lines := run(b, "reading the hits", chromedp.Evaluate[[]hitLine](hitLinesJS))
		hs := b.hits()
		if len(lines) == 0 || len(lines) != len(hs) {
			t.Fatalf("%d hits, %d hit lines", len(hs), len(lines))
		}
		for i, l := range lines {
			u, err := url.Parse(hs[i].URL)
			if err != nil {
				t.Fatal(err)
			}
			dirs := strings.Split(strings.Trim(u.Path, "/"), "/")
			want := append([]string{host}, dirs[:len(dirs)-1]...)
			if w < 1024 && len(want) > 2 {
				want = []string{want[0], want[len(want)-1]}
			}
			if strings.Join(l.Crumbs, " › ") != strings.Join(want, " › ") {
				t.Errorf("%d px: %s shows the breadcrumbs %q, want %q", w, u.Path, l.Crumbs, want)
			}
			if !l.Fetched || !regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`).MatchString(l.Datetime) {
				t.Errorf("%d px: %s has the date %q (fetched %v), want the fetch date", w, u.Path, l.Datetime, l.Fetched)
			} else if l.Shown == l.Datetime || !strings.Contains(l.Shown, l.Datetime[:4]) {
				t.Errorf("%d px: %s shows its date %q as %q, not in the reader's locale", w, u.Path, l.Datetime, l.Shown)
			}
		}
		t.Logf("%d px: first hit %q, fetched %s shown as %q", w, lines[0].Crumbs, lines[0].Datetime, lines[0].Shown)
	}
}
