// Package crawler crawls an intranet with gocolly/colly, cleans each page
// (package clean), assigns it a near-duplicate cluster (package dedup) and
// indexes it (package indexer), keeping everything under one data
// directory so that an interrupted crawl resumes where it stopped.
//
// State and crash safety. Three stores live in the data directory:
// frontier.db (the priority frontier: URLs pending, in flight and done),
// pages.db (the record of every URL decided: fetched text, cluster, skip or
// error reason) and index/ (the bleve index). A page is recorded in
// pages.db before it is marked done in the frontier, so after a crash a
// page is either recorded or still in the frontier, never lost; a URL in
// flight at the crash is fetched again unless it was recorded. The
// near-duplicate detector is rebuilt on open by replaying the recorded
// pages in crawl order, which is deterministic, so a resumed crawl ends
// with the same clusters as an uninterrupted one.
//
// Admission. A discovered link is followed only if it is in scope (the
// allowed hosts and prefixes), allowed by robots.txt, within the depth
// limit and admitted by the trap guard (package traps); refused links are
// recorded with the reason. Links found on near-duplicate pages, and links
// whose path template has produced near-duplicates, get lower priority, so
// unique content is crawled first when the page budget runs out.
package crawler
