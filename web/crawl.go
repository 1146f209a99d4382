package web

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Crawl is the status page's live crawl section (Status.Crawl): the
// busiest hosts, failed fetches by class and the crawl over time. A
// crawl running in this process fills it (`doppel run`, `doppel crawl
// --serve`: package web/crawlstatus); over a finished crawl it is
// nil and the section is not shown.
type Crawl struct {
	// Requests are the requests for URLs not fetched before (pages kept,
	// fetches skipped or failed), what the page budget (Budget,
	// --max-pages) bounds; Skipped the URLs recorded as skipped.
	Requests int64 `json:"requests"`
	Budget   int   `json:"budget"`
	Skipped  int64 `json:"skipped"`
	// Families are the URL families the crawl learnt yield nothing
	// (always noindex, copies, errors…), by family: "demoted" or
	// "stopped".
	Families  map[string]string `json:"families,omitempty"`
	Hosts     []CrawlHost       `json:"hosts"`      // the busiest hosts, busiest first (the caller bounds them)
	MoreHosts int               `json:"more_hosts"` // hosts not listed
	Failures  map[string]int64  `json:"failures"`   // failed fetches by class (refused, dns, tls, …): every attempt
	History   []CrawlSample     `json:"history"`    // the crawl over time, oldest first
}

// A CrawlHost is one row of the status page's host table.
type CrawlHost struct {
	Host    string `json:"host"`
	Fetched int64  `json:"fetched"` // pages fetched
	Errors  int64  `json:"errors"`  // failed fetches
	Queued  int    `json:"queued"`  // URLs waiting
	// NextVisit is when the crawl will next ask the host (its queued URLs
	// as its pacing allows, or its next scheduled revisit); zero if
	// nothing is planned.
	NextVisit time.Time `json:"next_visit,omitzero"`
}

// A CrawlSample is the crawl at one moment, a point of the status page's
// crawl chart.
type CrawlSample struct {
	At      time.Time `json:"at"`
	Fetched int64     `json:"fetched"` // pages fetched so far
	Errors  int64     `json:"errors"`  // failed fetches so far
	Queued  int       `json:"queued"`  // URLs waiting
}

// A timelineChart is the crawl chart: one panel per series, each scaled
// to its own largest value, over the time the samples span.
type timelineChart struct {
	Series []timelineSeries
	Height int    // in SVG units
	Span   string // the time the chart spans: "12m30s", "4.2s"
}

// A timelineSeries is one panel of the crawl chart.
type timelineSeries struct {
	ID        string // the polyline's id
	Label     string
	Last, Max int64
	Top       int    // the panel's top, in SVG units
	Points    string // the polyline's points, "x,y x,y …"
}

// Chart geometry, in SVG units: a panel's caption, then its plot.
const (
	chartLeft    = 10
	chartWidth   = 400
	chartCaption = 16
	chartPlot    = 44
	chartPanel   = chartCaption + chartPlot + 10
)

// timeline turns samples (oldest first) into the crawl chart: pages
// fetched, failed fetches and URLs queued; no series without samples.
func timeline(samples []CrawlSample) timelineChart {
	if len(samples) == 0 {
		return timelineChart{}
	}
	first, last := samples[0].At, samples[len(samples)-1].At
	span := last.Sub(first)
	x := func(at time.Time) float64 {
		if span <= 0 {
			return chartLeft
		}
		return chartLeft + chartWidth*float64(at.Sub(first))/float64(span)
	}
	var ch timelineChart
	for i, s := range []struct {
		id, label string
		value     func(CrawlSample) int64
	}{
		{"chart-fetched", "pages fetched", func(c CrawlSample) int64 { return c.Fetched }},
		{"chart-errors", "failed fetches", func(c CrawlSample) int64 { return c.Errors }},
		{"chart-queued", "URLs queued", func(c CrawlSample) int64 { return int64(c.Queued) }},
	} {
		ts := timelineSeries{ID: s.id, Label: s.label, Last: s.value(samples[len(samples)-1]), Top: i * chartPanel}
		for _, c := range samples {
			ts.Max = max(ts.Max, s.value(c))
		}
		points := make([]string, 0, len(samples))
		for _, c := range samples {
			y := float64(ts.Top + chartCaption + chartPlot)
			if ts.Max > 0 {
				y -= chartPlot * float64(s.value(c)) / float64(ts.Max)
			}
			points = append(points, strconv.FormatFloat(x(c.At), 'f', 1, 64)+","+strconv.FormatFloat(y, 'f', 1, 64))
		}
		ts.Points = strings.Join(points, " ")
		ch.Series = append(ch.Series, ts)
	}
	ch.Height = len(ch.Series) * chartPanel
	if span < time.Minute {
		ch.Span = span.Round(100 * time.Millisecond).String()
	} else {
		ch.Span = span.Round(time.Second).String()
	}
	return ch
}

// visit says when a host is visited next, seen at now: "now", "in 42s
// (14:05:07)", or "—" when nothing is planned.
func visit(at, now time.Time) string {
	switch {
	case at.IsZero():
		return "—"
	case !at.After(now):
		return "now"
	}
	return fmt.Sprintf("in %s (%s)", max(at.Sub(now).Round(time.Second), time.Second), at.Local().Format(time.DateTime))
}
