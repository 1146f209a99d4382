// Package crawlmetrics exposes a running crawl's counters as Prometheus
// metrics (doppel_crawl_…): URLs by outcome, the queue, revisits and
// their results, failed fetches by class, bytes read and the waits of
// per-host pacing. Its Collector reads crawler.Stats and crawler.Health
// once per scrape; register it on your own registry (web.Options.Metrics
// does for `doppel run` and `doppel crawl --serve`). Labels are fixed
// sets (outcomes, kinds of change, failure classes): no host and no URL
// is ever a label, so the series stay few however large the crawl.
package crawlmetrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/doppel-search/doppel/crawler"
)

// A Source is what the Collector reads: a *crawler.Crawler.
type Source interface {
	Stats() crawler.Stats
	Health() crawler.Health
}

var _ Source = (*crawler.Crawler)(nil)

// A Collector is a prometheus.Collector of a crawl's counters. It is safe
// for concurrent use if its Source is (a Crawler is, also while it runs).
type Collector struct {
	src Source
}

var _ prometheus.Collector = (*Collector)(nil)

// New returns a Collector reading src.
func New(src Source) *Collector { return &Collector{src: src} }

// The metrics, by name. Counters count what this process did; the gauges
// of URLs by outcome count the crawl's records, across restarts.
var (
	urls = prometheus.NewDesc("doppel_crawl_urls",
		"URLs the crawl has recorded, by outcome: fetched pages (less those found gone), skipped URLs (robots.txt, traps, redirects, canonical, binary…), failed URLs.",
		[]string{"outcome"}, nil)
	requests = prometheus.NewDesc("doppel_crawl_requests",
		"Requests for URLs not fetched before — pages kept, fetches skipped (noindex, canonical, listings, other types, redirects) or failed, retries included — across restarts: what --max-pages bounds (robots.txt, the soft-404 probe and sitemaps aside).",
		nil, nil)
	nearDuplicates = prometheus.NewDesc("doppel_crawl_near_duplicates",
		"Fetched pages that joined another page's near-duplicate cluster.", nil, nil)
	queued = prometheus.NewDesc("doppel_crawl_queue_depth",
		"URLs waiting in the frontier to be fetched.", nil, nil)
	scheduled = prometheus.NewDesc("doppel_crawl_revisits_scheduled",
		"Fetched pages with a revisit scheduled.", nil, nil)
	revisits = prometheus.NewDesc("doppel_crawl_revisits_total",
		"Fetches of pages fetched before.", nil, nil)
	notModified = prometheus.NewDesc("doppel_crawl_not_modified_total",
		"Revisits answered 304 Not Modified.", nil, nil)
	content = prometheus.NewDesc("doppel_crawl_revisit_content_total",
		"Revisits whose page was sent again (not 304), by what had changed: unchanged, trivial (SimHash within the trivial bits), changed.",
		[]string{"change"}, nil)
	gone = prometheus.NewDesc("doppel_crawl_gone_total",
		"Revisits that found the page gone (404, 410, a redirect…): taken out of the index.", nil, nil)
	retries = prometheus.NewDesc("doppel_crawl_retries_total",
		"Fetches put back in the queue after a transient failure.", nil, nil)
	fetchErrors = prometheus.NewDesc("doppel_crawl_fetch_errors_total",
		"Failed fetches by class (refused, dns, tls, timeout, reset, http_4xx, http_5xx, login, other): every attempt, retries included.",
		[]string{"class"}, nil)
	bytesRead = prometheus.NewDesc("doppel_crawl_downloaded_bytes_total",
		"Bytes of page response bodies read (after decompression, up to the body limit).", nil, nil)
	pacingWaits = prometheus.NewDesc("doppel_crawl_pacing_waits_total",
		"Requests that waited for their host's request slot (per-host parallelism, delay, Crawl-delay, Retry-After).", nil, nil)
	pacingWaited = prometheus.NewDesc("doppel_crawl_pacing_wait_seconds_total",
		"Time those requests waited for their host, from its first refusal to the slot.", nil, nil)
)

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{urls, requests, nearDuplicates, queued, scheduled, revisits, notModified, content, gone,
		retries, fetchErrors, bytesRead, pacingWaits, pacingWaited} {
		ch <- d
	}
}

// Collect implements prometheus.Collector: one reading of Stats and
// Health per scrape.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	st, h := c.src.Stats(), c.src.Health()
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	gauge(urls, float64(st.Fetched), "fetched")
	gauge(urls, float64(st.Skipped), "skipped")
	gauge(urls, float64(st.Errors), "failed")
	gauge(requests, float64(st.Requests))
	gauge(nearDuplicates, float64(st.Duplicates))
	gauge(queued, float64(st.Queued))
	gauge(scheduled, float64(st.Scheduled))
	counter(revisits, float64(st.Revisits))
	counter(notModified, float64(st.NotModified))
	counter(content, float64(st.Unchanged), "unchanged")
	counter(content, float64(st.Trivial), "trivial")
	counter(content, float64(st.Changed), "changed")
	counter(gone, float64(st.Gone))
	counter(retries, float64(st.Retries))
	for _, class := range crawler.FailureClasses() {
		counter(fetchErrors, float64(h.Failures[class]), class)
	}
	counter(bytesRead, float64(h.Bytes))
	counter(pacingWaits, float64(h.Pacing.Waits))
	counter(pacingWaited, h.Pacing.Waited.Seconds())
}
