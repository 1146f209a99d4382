// Package crawler crawls an intranet with gocolly/colly, cleans each page
// (package clean), assigns it a near-duplicate cluster (package dedup,
// through package hook) and indexes it (package indexer), keeping
// everything under one data directory so that an interrupted crawl resumes
// where it stopped.
//
//	c, err := crawler.Open(dir, crawler.Options{Seeds: []string{"https://intranet.example/"}})
//	…
//	err = c.Run(ctx)   // one pass; Ctrl-C: returns ctx.Err(); Open and Run again to resume
//	err = c.Watch(ctx) // or: crawl, then keep the index fresh until ctx is done
//
// # State and crash safety
//
// The data directory holds crawl.json (the options, so that a resumed crawl
// needs no flags), frontier.db (package frontier: URLs pending and done,
// with priorities), pages.db (package pages: the record of every URL
// decided — fetched text and cluster, or the reason it was skipped or
// failed — and each cluster's current master) and index/ (the bleve
// index).
//
// # The write path
//
// Parallelism workers take URLs from the frontier in priority order, each
// with a request slot of its host (package polite: at most HostParallelism
// per host, each slot starting at most one request per Delay; one at a
// time, Crawl-delay apart, under a robots.txt Crawl-delay; none while a
// Retry-After lasts), fetch with one colly collector (Timeout,
// MaxBodyBytes, UserAgent), and, in parallel, check
// admission (package admit), parse and sign each page (package hook:
// Parse, Prepare). One committer takes their results in arrival order and
// processes up to 64 at a time: hook.Insert assigns clusters, records
// the pages into the group's page-store batch and adds them to the index
// batch; the group's links are decided and queued in one frontier
// transaction (which also marks done the URLs of earlier groups whose
// records are committed); the records are then committed in one
// page-store transaction by a background writer while the committer goes
// on; every 1,000 pages (or RefreshInterval) the index batch is written in
// the background, once the records it holds are committed, and the
// records it covers become the index watermark. So the index is never
// ahead of the records, and a crash between any two steps loses nothing:
// a page whose record is not committed is fetched again (its links are
// queued, or will be again), a recorded URL not yet marked done is marked
// done unfetched when the next run pops it. With Parallelism 1 the crawl
// is sequential — the next URL is popped once the page's links are
// queued; with more workers a worker goes on while its page is committed.
//
// On Open the detector is read from its snapshot (detector.snap: every
// document's signatures, the clusters and the candidate lists, written
// atomically at the end of every run and as the crawl grows, with the
// revision of the last record it reflects; the verification sets stay in
// detector.sets), and only the pages recorded after it are replayed in
// record order (hook.Replay: the same Insert → Index path; a page the
// snapshot holds gets its recorded version). Without a usable snapshot
// (none yet, other options, damaged) every recorded page is replayed —
// the order live processing assigned clusters in. The pages recorded
// after the watermark are indexed again (index updates are idempotent
// upserts), so a resumed crawl ends with the same clusters and the same
// index as an uninterrupted one (Crawler.Opened says how it resumed). The read side (View) opens the stores read-only and
// rebuilds nothing.
//
// # Fetching
//
// Redirects are not followed inside a request: the target is queued like
// a link (with a hop count bounded by MaxRedirects) and the source
// recorded as a redirect, so a redirect loop ends at the frontier's
// at-most-once rule and no page is fetched twice; a page that redirects by
// <meta http-equiv=refresh> is treated the same. Only text/html,
// application/xhtml+xml and text/plain bodies are processed; others,
// non-HTML bodies, pages marked noindex, soft 404s (pages resembling the
// host's answer for a URL that cannot exist) and pages whose <link
// rel=canonical> names another URL (which is queued instead) are recorded
// as skipped with the reason. Bodies over MaxBodyBytes are cut there and
// processed. A gzip, deflate, br or zstd body (or a stack of up to
// MaxCodings of them) is decoded by the crawler to at most the body
// limit, from at most twice the limit sent: one that expands past it
// beyond BombRatio is skipped as a decompression bomb, a zstd frame
// declaring a window over ZstdWindow, a stream that sends more than
// twice the limit for less, a malformed stream and one in another coding
// are skipped with the reason (DecodeError). Only a page's first MaxLinksPerPage links are
// considered, and its record's reason says so. Timeouts, connection errors, 5xx and 429 are transient: the
// URL is fetched again after RetryBackoff, doubled each time (or the
// Retry-After, if longer), up to MaxRetries times, then recorded as a
// transient error, which the next run retries. Other HTTP errors are
// recorded as errors.
//
// # Revisits
//
// Every fetched page has a revisit scheduled in the frontier
// (Frontier.Schedule), when its policy (package schedule; Options.Revisit)
// says: its change rate estimated from its history, the revisit budget
// divided for the most expected freshness; near-duplicates that are not
// masters CopyFactor times later. Due revisits (Frontier.Due) are fetched
// at PriorityRevisit with If-None-Match / If-Modified-Since. A 304 or the
// same content hash is unchanged; otherwise the page is signed and its
// fingerprint compared with the detector's (dedup.Fingerprint.Compare): a
// trivial change (within TrivialBits of SimHash) is re-indexed but does
// not count as a change in the history; a real change goes through
// hook.Update (detector, records, index), and re-checks the members of a
// master that changed. 404 and 410 remove the page (hook.Remove; its
// record says Gone). The links of a page's main content are kept as a
// hash (Record.LinkHash); a revisit that finds them changed counts as a
// change even if the text barely did, and from then on the page is a
// listing: its links are kept (Record.Links), it is revisited at least as
// often as the average page and as the listings' share of the budget
// allows (a fiftieth in all), and a page that leaves it is fetched at
// once (a page dropped from a listing is the commonest sign of a deletion
// when there is no sitemap). A page with pages.ListingLinks main-content
// links or more keeps them from its first fetch (Record.LinksOnly), so
// its first change is checked too; until then it may be a listing, and is
// revisited before other revisits and at least as often as such pages'
// own fiftieth of the budget allows (not the average: a manual's tables
// of contents need not change). Sitemaps (robots.txt's, else /sitemap.xml) are read
// at the start and every Revisit.Sitemaps for new URLs, lastmod hints and
// pages taken off them. On Open, replay also brings records and index in
// line with the rebuilt clusters where they differ from those revisits
// left.
//
// # Admission and priority
//
// A discovered link is normalized (package urlnorm) and followed only if it
// is in scope (AllowedHosts, AllowedPrefixes), within MaxDepth, allowed by
// robots.txt, and admitted by the trap rules (package traps): the URL-shape
// rules, and the statistics of what each path template's pages were — a
// template whose pages mostly repeat each other, are empty or are soft
// 404s is a trap, and none of its URLs is fetched any more, queued ones
// included. Refused links are recorded with the reason; out-of-scope ones
// are ignored. Seeds have priority PrioritySeed; links found on pages with
// unique content PriorityUnique, or PriorityListing if their path template
// is numbered and its pages fetched so far led to listingYield new URLs
// each (the further pages of a paginated listing: the crawl learns the
// site's extent first); links found on near-duplicate pages
// PriorityDuplicate; and once a path template (host and path with digit
// runs generalized, see urlnorm.Template) has produced a near-duplicate,
// its queued and future URLs drop to PriorityFamily. So when the page
// budget (MaxPages) runs out, unique content has been crawled first. Due
// revisits (PriorityRevisit; a listing's, PriorityListingRevisit, before
// the others) come after links found on unique pages and before those
// found on near-duplicates; retries (PriorityRetry) last.
//
// # Workers on a shared frontier
//
// With Options.Frontier set to a frontier that several workers share
// (frontier.Shared, package redisfrontier: a Redis Cluster), each worker
// is a Crawler with a directory of its own, and the frontier paces every
// host for all of them: a claim takes a URL of a host whose turn has
// come, and every request to a host — a page's, robots.txt's, the
// soft-404 probe's, a sitemap's — passes the frontier's gate, which lets
// it start once the host's last request was answered and the host's
// delay has passed since that one was sent, by the Redis server's clock
// (the gate tells the frontier how long after its start each request was
// written), as one machine's pacer spaces them. A host's robots.txt, its answer
// for a missing page and its sitemaps are learnt once among the workers,
// by the worker that claims a URL of the host first, and kept in the
// frontier for the others (admit.Options.Shared): each takes a turn of
// the host — the claimed URL goes back to the frontier at its position
// and is fetched at a later turn — so they are spaced like pages and a
// worker waits for none of them. A link to a host not learnt yet is
// queued, and robots.txt decides when its URL comes up. A worker ends
// when the frontier is empty and no other worker has a URL in flight.
//
// # Anchor text
//
// The anchor texts of links to a page are stored with the page and indexed
// in its anchors field, which indexer.TextQuery searches.
package crawler
