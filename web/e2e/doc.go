// Package e2e holds Doppel's end-to-end tests; it has no non-test code.
//
// The tests crawl the bundled demo intranet (internal/demosite) once into a
// temporary directory, serve the search UI over it (web.New over
// ranking.New, wired like `doppel demo`), and then
//
//   - drive the UI in headless Chromium through chromedp (TestBrowser):
//     searching, expanding a cluster, the "what differs" view, paging,
//     switching demo users and the status page's host table and crawl
//     chart (served as `doppel run` serves them), saving a PNG screenshot
//     of every step;
//   - check the layout in headless Chromium at 360, 768 and 1280 px (no
//     sideways scroll, the search box inside the window), the no-results
//     page's offers, the query syntax behind "advanced" and the status
//     page's search box (TestLayout), with screenshots too;
//   - check accessibility with axe-core in headless Chromium on the home,
//     search, no-results, cluster, what-differs and status pages at 360
//     and 1280 px, failing on a serious or critical violation
//     (TestAccessibility), and tab through the search page: skip link,
//     focus ring and order, every control reached, Enter on a page
//     number (TestKeyboard);
//   - load the collapsed search API and a plain bleve search over the same
//     index with concurrent clients and log throughput and latency
//     (TestLoad);
//   - attack the search server with 100 hostile clients from one address
//     while 4 ordinary users search, and check issue 10's bounds: every
//     hostile request answered within 5 s, the ordinary queries' p99 at most
//     250 ms during and after the attack, peak RSS at most 1 GB
//     (TestAbuse; on the demo crawl, or on any crawl's data directory).
//
// Environment:
//
//	DOPPEL_REQUIRE_BROWSER=1  fail, rather than skip, when Chromium is missing
//	DOPPEL_ARTIFACTS=DIR      where screenshots go (default: a new directory under os.TempDir())
//	DOPPEL_AXE=FILE           axe-core's axe.min.js (default: ../../.ci/cache/axe/node_modules/axe-core/axe.min.js, as .ci/run installs it)
//	DOPPEL_LOAD_SECONDS=N     how long each load phase runs (default 3)
//	DOPPEL_ABUSE_DATA=DIR     the crawl TestAbuse attacks, opened read-only (default: the demo crawl)
//	DOPPEL_ABUSE_SECONDS=N    how long the attack lasts (default 3)
package e2e
