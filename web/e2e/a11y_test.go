package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	// axe reads every element of 12 pages: 2–5 s a page on a loaded
	// 2-core machine.
	scenariosWithin(t, []scenario{
		{"axe", func(b *browser) { axePages(b, src) }},
	}, 4*time.Minute, 3*time.Minute)
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
