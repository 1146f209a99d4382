package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/doppel-search/doppel/crawler"
	"github.com/doppel-search/doppel/crawler/crawlmetrics"
	"github.com/doppel-search/doppel/web"
	"github.com/doppel-search/doppel/web/crawlstatus"
)

// withLiveCrawl adds the crawl c, running in this process, to the web
// options: its section of the status page and /api/stats (the busiest
// hosts, failed fetches by class, the crawl over time; read at most every
// 5 seconds), its counters on /metrics (doppel_crawl_…) and change
// notifications (POST /api/changed: Crawler.Changed). `doppel serve`,
// over a crawl that is not running, has none of them.
func withLiveCrawl(opts *web.Options, c *crawler.Crawler) {
	status, live := opts.Status, crawlstatus.Live(c, 5*time.Second)
	opts.Status = func() web.Status {
		st := status()
		st.Crawl = live()
		return st
	}
	opts.Metrics = append(opts.Metrics, crawlmetrics.New(c))
	opts.Changed = func(urls []string) ([]web.ChangedURL, error) {
		res, err := c.Changed(urls)
		if errors.Is(err, crawler.ErrTooManyChanged) {
			return nil, fmt.Errorf("%w: %w", web.ErrBadNotification, err)
		}
		out := make([]web.ChangedURL, len(res))
		for i, r := range res {
			out[i] = web.ChangedURL(r)
		}
		return out, err
	}
}
