package main

import (
	"time"

	"github.com/doppel-search/doppel/crawler"
	"github.com/doppel-search/doppel/crawler/crawlmetrics"
	"github.com/doppel-search/doppel/internal/crawlstatus"
	"github.com/doppel-search/doppel/web"
)

// withLiveCrawl adds the crawl c, running in this process, to the web
// options: its section of the status page and /api/stats (the busiest
// hosts, failed fetches by class, the crawl over time; read at most every
// 5 seconds) and its counters on /metrics (doppel_crawl_…). `doppel
// serve`, over a crawl that is not running, has neither.
func withLiveCrawl(opts *web.Options, c *crawler.Crawler) {
	status, live := opts.Status, crawlstatus.Live(c, 5*time.Second)
	opts.Status = func() web.Status {
		st := status()
		st.Crawl = live()
		return st
	}
	opts.Metrics = append(opts.Metrics, crawlmetrics.New(c))
}
