package e2e

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// axeDefault is where .ci/run installs axe-core (npm install --prefix
// .ci/cache/axe axe-core), from this package's directory.
const axeDefault = "../../.ci/cache/axe/node_modules/axe-core/axe.min.js"

// axeScript returns axe-core's axe.min.js: the file $DOPPEL_AXE names, or
// the copy .ci/run installs. It skips t when there is none (fails it under
// DOPPEL_REQUIRE_BROWSER=1): axe-core is fetched from npm at test time,
// never kept in the repository.
func axeScript(t *testing.T) string {
	t.Helper()
	path := os.Getenv("DOPPEL_AXE")
	if path == "" {
		path = axeDefault
	}
	src, err := os.ReadFile(path)
	if err != nil {
		msg := fmt.Sprintf("axe-core not found (%v); install it with `npm install --prefix .ci/cache/axe axe-core` "+
			"(as .ci/run does) or set DOPPEL_AXE to an axe.min.js", err)
		if os.Getenv("DOPPEL_REQUIRE_BROWSER") == "1" {
			t.Fatal(msg + " (DOPPEL_REQUIRE_BROWSER=1: required)")
		}
		t.Skip(msg)
	}
	return string(src)
}

// TestAccessibility checks issue 39's accessibility in headless
// Chromium: axe-core finds no serious or critical violation on the home,
// search, no-results, cluster, what-differs and status pages at 360 and
// 1280 px (its results in $DOPPEL_ARTIFACTS/axe-PAGE-WIDTHpx.json).
func TestAccessibility(t *testing.T) {
	src := axeScript(t)
	scenarios(t, []scenario{
		{"axe", func(b *browser) { axePages(b, src) }},
	})
}

// axeResult is the part of axe.run's results the test reads.
type axeResult struct {
	TestEngine struct {
		Version string `json:"version"`
	} `json:"testEngine"`
	Passes     []axeRule `json:"passes"`
	Violations []axeRule `json:"violations"`
}

// axeRule is a rule's outcome: the rule, how bad a violation is, and the
// elements concerned.
type axeRule struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target         []any  `json:"target"`
		HTML           string `json:"html"`
		FailureSummary string `json:"failureSummary"`
	} `json:"nodes"`
}

// axeRunJS runs axe on the document, every WCAG 2.x A and AA rule and the
// best practices, and answers its results as JSON.
const axeRunJS = `axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice']}})
	.then(r => JSON.stringify(r))`

// axePages runs axe-core (src) on each of uiPages at 360 and 1280 px and
// fails on a violation of impact serious or critical; it writes each
// page's results to the artifacts directory.
func axePages(b *browser, src string) {
	t := b.t
	pages := uiPages(b)
	for _, w := range []int64{360, 1280} {
		viewport := chromedp.EmulateViewport(w, 800)
		if w < 1024 {
			viewport = chromedp.EmulateViewport(w, 800, chromedp.EmulateMobile)
		}
		b.do(fmt.Sprintf("emulating a %d px viewport", w), viewport)
		for _, p := range pages {
			name := fmt.Sprintf("%s-%dpx", p.name, w)
			b.do("opening "+name, chromedp.Navigate(p.url), chromedp.WaitVisible(chromedp.CSS(p.wait)))
			// Runtime.evaluate is not subject to the page's
			// Content-Security-Policy: the server needs no exception.
			b.do("injecting axe-core", chromedp.Evaluate[chromedp.Void](src))
			raw := run(b, "running axe on "+name, chromedp.Evaluate[string](axeRunJS, chromedp.EvalAwaitPromise))
			file := filepath.Join(b.dir, "axe-"+name+".json")
			if err := os.WriteFile(file, []byte(raw), 0o644); err != nil {
				t.Errorf("saving the axe results: %v", err)
			}
			var res axeResult
			if err := json.Unmarshal([]byte(raw), &res); err != nil {
				t.Fatalf("axe results of %s: %v", name, err)
			}
			if len(res.Passes) == 0 {
				t.Fatalf("axe %s passed no rule on %s: it did not run", res.TestEngine.Version, name)
			}
			var minor []string
			for _, v := range res.Violations {
				if v.Impact != "serious" && v.Impact != "critical" {
					minor = append(minor, v.ID+" ("+v.Impact+")")
					continue
				}
				for _, n := range v.Nodes {
					t.Errorf("%s: axe %s (%s): %s — %v %s: %s", name, v.ID, v.Impact, v.Help, n.Target, n.HTML,
						strings.ReplaceAll(n.FailureSummary, "\n", " "))
				}
			}
			t.Logf("%s: axe %s, %d rules passed, %d violated (minor or moderate: %v); results in %s",
				name, res.TestEngine.Version, len(res.Passes), len(res.Violations), minor, file)
		}
	}
}

// TestKeyboard checks issue 39's keyboard use of the search page in
// headless Chromium (see keyboard).
func TestKeyboard(t *testing.T) {
	scenarios(t, []scenario{{"tab-through", keyboard}})
}

// focused is the element that has the focus after a Tab.
type focused struct {
	Kind string `json:"kind"` // skip, box, facet, result, pager, header, main or other:TAG
	Key  int    `json:"key"`  // its number among the page's controls, -1 if none
	Ring bool   `json:"ring"` // it shows a focus outline
	Desc string `json:"desc"`
}

// markControlsJS numbers every visible control of the page (links,
// buttons, fields, disclosure summaries) and answers how many there are.
const markControlsJS = `(() => { const cs = [...document.querySelectorAll('a[href], button, input:not([type=hidden]), select, textarea, summary, [tabindex]:not([tabindex="-1"])')]
	.filter(e => e.checkVisibility()); cs.forEach((e, i) => e.dataset.k = i); return cs.length; })()`

const focusedJS = `(() => { const e = document.activeElement;
	if (!e || e === document.body) return {kind: 'body', key: -1, ring: false, desc: 'body'};
	const s = getComputedStyle(e), ring = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2;
	const kind = e.classList.contains('skip') ? 'skip' : e.id === 'q' ? 'box' : e.closest('#facets') ? 'facet' :
		e.closest('ol#results') ? 'result' : e.closest('nav.pager') ? 'pager' : e.closest('header') ? 'header' :
		e.id === 'main' ? 'main' : e.closest('main') ? 'main' : 'other:' + e.tagName;
	return {kind, key: e.dataset.k === undefined ? -1 : +e.dataset.k, ring,
		desc: e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + ' ' + (e.textContent || e.value || '').trim().slice(0, 30)}; })()`

// keyboard tabs through the search page of a query with facets and more
// than one page: the focus goes to the skip link first, then the search
// box, the filters, the results and the pages, in that order; every
// visible control is reached, each with a focus ring; the skip link
// moves the focus to the results; Enter on a page number opens it.
func keyboard(b *browser) {
	t := b.t
	tab := chromedp.KeyEvent("\t")
	b.do("searching", chromedp.Navigate(b.base+"/?q="+strings.ReplaceAll(pagingQuery, " ", "+")), chromedp.WaitVisible(chromedp.CSS("nav.pager")))
	controls := run(b, "numbering the controls", chromedp.Evaluate[int](markControlsJS))
	var order []focused
	reached := map[int]bool{}
	for range 3 * controls {
		b.do("pressing Tab", tab)
		f := run(b, "reading the focus", chromedp.Evaluate[focused](focusedJS))
		if f.Kind == "body" || (len(order) > 0 && f.Key == order[0].Key) {
			break // past the last control
		}
		order = append(order, f)
		reached[f.Key] = true
		if !f.Ring {
			t.Errorf("Tab %d: %s shows no focus ring", len(order), f.Desc)
		}
	}
	b.shot("tabbed")
	var kinds []string
	for _, f := range order {
		if len(kinds) == 0 || kinds[len(kinds)-1] != f.Kind {
			kinds = append(kinds, f.Kind)
		}
	}
	t.Logf("%d controls, %d Tabs: %v", controls, len(order), kinds)
	if len(reached) != controls {
		var missed []int
		for k := range controls {
			if !reached[k] {
				missed = append(missed, k)
			}
		}
		t.Errorf("Tab reached %d of the %d controls; not those numbered %v", len(reached), controls, missed)
	}
	// The first of each kind comes in reading order.
	want := []string{"skip", "box", "facet", "result", "pager"}
	first := map[string]int{}
	for i, f := range order {
		if _, ok := first[f.Kind]; !ok {
			first[f.Kind] = i
		}
	}
	for i, k := range want {
		if _, ok := first[k]; !ok {
			t.Errorf("Tab never reaches the %s (order %v)", k, kinds)
		} else if i > 0 && first[k] < first[want[i-1]] {
			t.Errorf("Tab reaches the %s before the %s (order %v)", k, want[i-1], kinds)
		}
	}
	if len(order) == 0 || order[0].Kind != "skip" {
		t.Fatalf("the first Tab does not reach the skip link")
	}

	// The skip link moves the focus to the results: the next Tab is in
	// the main part of the page, not the header.
	b.do("reloading", chromedp.Navigate(b.base+"/?q="+strings.ReplaceAll(pagingQuery, " ", "+")), chromedp.WaitVisible(chromedp.CSS("nav.pager")))
	b.do("following the skip link", tab, chromedp.KeyEvent("\r"))
	if f := run(b, "reading the focus", chromedp.Evaluate[focused](focusedJS)); f.Kind != "main" {
		t.Errorf("after the skip link the focus is on %s (%s), want the main part", f.Desc, f.Kind)
	}
	b.do("pressing Tab", tab)
	if f := run(b, "reading the focus", chromedp.Evaluate[focused](focusedJS)); f.Kind == "header" || f.Kind == "box" || f.Kind == "skip" {
		t.Errorf("Tab after the skip link goes to %s (%s), want a control of the results", f.Desc, f.Kind)
	}

	// Enter on page 2's number opens page 2.
	b.do("focusing page 2", chromedp.Focus(chromedp.CSS(`nav.pager a.page[aria-label="Page 2"]`)), chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(chromedp.CSS(`nav.pager a[aria-current="page"][aria-label^="Page 2"]`)))
	b.shot("page2-by-keyboard")
	loc := run(b, "location", chromedp.Location())
	if u, err := url.Parse(loc); err != nil || u.Query().Get("page") != "2" {
		t.Errorf("Enter on page 2's number went to %q", loc)
	}
}
