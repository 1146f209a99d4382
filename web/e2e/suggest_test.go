package e2e

import (
	"slices"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
)

// completeAsYouType types the start of a word into the search box and
// reads the completions /suggest.js puts in its datalist: words and
// titles of the demo intranet that begin with it.
func completeAsYouType(b *browser) {
	t := b.t
	b.do("opening the search page", chromedp.Navigate(b.base+"/"), chromedp.WaitVisible(chromedp.ID("q")))
	b.do("typing the start of a word", chromedp.SendKeys(chromedp.ID("q"), "conn"))
	options := run(b, "waiting for completions", chromedp.Poll[[]string](
		`(() => { const o = [...document.querySelectorAll('#completions option')].map(o => o.value); return o.length ? o : null })()`,
		chromedp.WithPollingTimeout(10*time.Second)))
	b.shot("completions")
	t.Logf("completions of conn: %v", options)
	if !slices.Contains(options, "connecting") {
		t.Errorf("completions of conn %v lack the word connecting", options)
	}
	for _, o := range options {
		if !strings.Contains(strings.ToLower(o), "conn") {
			t.Errorf("completion %q of conn does not hold it", o)
		}
	}
}
