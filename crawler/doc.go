// Package crawler crawls an intranet with gocolly/colly, cleans each page
// (package clean), assigns it a near-duplicate cluster (package dedup,
// through package hook) and indexes it (package indexer), keeping
// everything under one data directory so that an interrupted crawl resumes
// where it stopped.
//
//	c, err := crawler.Open(dir, crawler.Options{Seeds: []string{"https://intranet.example/"}})
//	…
//	err = c.Run(ctx) // Ctrl-C: returns ctx.Err(); Open and Run again to resume
//
// # State and crash safety
//
// The data directory holds crawl.json (the options, so that a resumed crawl
// needs no flags), frontier.db (package frontier: URLs pending, in flight
// and done, with priorities), pages.db (package pages: the record of every
// URL decided — fetched text and cluster, or the reason it was skipped or
// failed) and index/ (the bleve index). Per page, the order is: links
// queued, page recorded, page indexed, URL marked done. A crash between any
// two steps leaves the page either recorded or still in the frontier, never
// lost: a URL in flight at the crash is fetched again unless it was
// recorded. On Open the detector is rebuilt by replaying the recorded pages
// in record order — the order live processing assigned clusters in — and
// the pages recorded after the index's last completed flush are indexed
// again (index updates are idempotent upserts), so a resumed crawl ends
// with the same clusters and the same index as an uninterrupted one.
//
// # Fetching
//
// Parallelism workers pop the frontier in priority order and fetch with one
// colly collector (politeness: Delay and Parallelism through a colly limit
// rule, Timeout, MaxBodyBytes, UserAgent). Redirects are not followed
// inside a request: the target is queued like a link (with a hop count
// bounded by MaxRedirects) and the source recorded as a redirect, so a
// redirect loop ends at the frontier's at-most-once rule and no page is
// fetched twice. Only text/html, application/xhtml+xml and text/plain
// bodies are processed; others, oversized or non-HTML bodies, pages marked
// noindex, soft 404s (pages resembling the host's answer for a URL that
// cannot exist) and pages whose <link rel=canonical> names another URL
// (which is queued instead) are recorded as skipped with the reason.
// HTTP errors and timeouts are recorded as errors.
//
// # Admission and priority
//
// A discovered link is normalized (package urlnorm) and followed only if it
// is in scope (AllowedHosts, AllowedPrefixes), within MaxDepth, allowed by
// robots.txt, and admitted by the trap rules: the URL-shape rules of
// package traps, and a budget of near-duplicates per path template
// (Traps.MaxDuplicatesPerTemplate), which stops infinite calendars and
// archives whose pages all look alike. Refused links are recorded with the
// reason; out-of-scope ones are ignored. Seeds have priority
// PrioritySeed; links found on pages with unique content PriorityUnique;
// links found on near-duplicate pages PriorityDuplicate; and once a path
// template (host and path with digit runs generalized, see
// urlnorm.Template) has produced a near-duplicate, its queued and future
// URLs drop to PriorityFamily. So when the page budget (MaxPages) runs
// out, unique content has been crawled first. The frontier's revisit
// schedule (Frontier.Schedule, Frontier.Due) is where recrawl scheduling
// plugs in.
//
// # Anchor text
//
// The anchor texts of links to a page are stored with the page and indexed
// in its anchors field, which indexer.TextQuery searches.
package crawler
