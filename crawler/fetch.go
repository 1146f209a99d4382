package crawler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/gocolly/colly/v2"

	"github.com/doppel-search/doppel/crawler/admit"
	"github.com/doppel-search/doppel/crawler/frontier"
	"github.com/doppel-search/doppel/crawler/hook"
	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/crawler/traps"
	"github.com/doppel-search/doppel/dedup/features"
)

// task is the frontier payload of a queued URL.
type task struct {
	Depth int `json:"depth"`          // links followed from a seed
	Hops  int `json:"hops,omitempty"` // redirects followed to reach the URL
}

// A result is what a worker found out about one popped URL, for the
// committer: a page to insert, or a decision to record.
type result struct {
	url      string
	task     task
	priority int

	status  pages.Status // Fetched, Skipped or Failed; "" for a URL recorded before (known)
	reason  string       // for Skipped and Failed
	verdict traps.Verdict
	prep    *hook.Prepared // Fetched
	links   []link         // links to queue (or to record as refused)
	known   pages.Status   // the recorded status of a URL recorded before a crash

	queued chan struct{} // closed by the committer once the page's links are queued
}

// A link is a URL to queue, decided by admission.
type link struct {
	admit.Decision
	text     string // anchor text
	task     task
	priority int  // with fixed
	fixed    bool // priority given; else the committer decides from the page
}

func (r *result) skip(reason string) { r.status, r.reason = pages.Skipped, reason }
func (r *result) fail(reason string) { r.status, r.reason = pages.Failed, reason }

const ctxResult = "doppel.result"

// collector builds the colly collector. It fetches one URL per Request
// call, follows no redirect itself (a redirect target is queued like a
// link, so redirect loops end at the frontier's at-most-once rule), and
// leaves robots.txt to admission, which records what it refuses.
func (c *Crawler) collector(ctx context.Context) *colly.Collector {
	col := colly.NewCollector(
		colly.UserAgent(c.opts.UserAgent),
		colly.MaxBodySize(c.opts.MaxBodyBytes+1), // one byte more tells a cut body
		colly.AllowURLRevisit(),                  // the frontier and the page store deduplicate
		colly.StdlibContext(ctx),
	)
	col.IgnoreRobotsTxt = true
	col.SetRequestTimeout(c.opts.Timeout)
	// Limit never fails for the glob "*".
	_ = col.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: c.opts.Parallelism, Delay: max(c.opts.Delay, 0)})
	col.SetRedirectHandler(func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse })
	col.OnResponse(func(resp *colly.Response) {
		r := resp.Ctx.GetAny(ctxResult).(*result)
		if err := c.process(r, resp); err != nil {
			r.fail(err.Error())
		}
	})
	col.OnError(func(resp *colly.Response, err error) {
		r := resp.Ctx.GetAny(ctxResult).(*result)
		if ctx.Err() != nil {
			return // interrupted: the URL stays in flight and is fetched again on resume
		}
		if resp.StatusCode >= 300 && resp.StatusCode < 400 && resp.Headers != nil && resp.Headers.Get("Location") != "" {
			c.redirect(r, fmt.Sprintf("HTTP %d", resp.StatusCode), resp.Headers.Get("Location"))
			return
		}
		reason := err.Error()
		if resp.StatusCode != 0 {
			reason = fmt.Sprintf("HTTP %d", resp.StatusCode)
		}
		r.fail(reason)
	})
	return col
}

// work fetches one popped URL and prepares what the committer needs. It
// returns nil when ctx was cancelled mid-request: the URL then stays in
// flight and is fetched again on resume.
func (c *Crawler) work(ctx context.Context, col *colly.Collector, item frontier.Item) *result {
	r := &result{url: item.URL, priority: item.Priority, queued: make(chan struct{})}
	_ = json.Unmarshal(item.Payload, &r.task) // a missing or foreign payload means depth 0
	if rec, known, err := c.pages.Get(item.URL); err != nil {
		c.setFatal(err)
		r.fail(err.Error())
		return r
	} else if known { // recorded before a crash, not yet marked done
		r.known = rec.Status
		return r
	}
	if reason, trapped := c.admit.Trapped(item.URL); trapped { // queued before its template became a trap
		r.skip(reason)
		return r
	}
	rctx := colly.NewContext()
	rctx.Put(ctxResult, r)
	err := col.Request(http.MethodGet, item.URL, nil, rctx, nil)
	if ctx.Err() != nil {
		return nil
	}
	if r.status == "" { // no callback decided
		reason := "no response"
		if err != nil {
			reason = err.Error()
		}
		r.fail(reason)
	}
	return r
}

// process handles a 2xx response: parse, soft-404 and canonical checks,
// links, template stripping and signatures.
func (c *Crawler) process(r *result, resp *colly.Response) error {
	parsed, err := c.hook.Parse(r.url, *resp.Headers, resp.Body)
	var skipped *hook.SkipError
	switch {
	case errors.As(err, &skipped) && skipped.Location != "":
		c.redirect(r, "meta refresh", skipped.Location)
		return nil
	case errors.As(err, &skipped):
		r.skip(skipped.Reason)
		return nil
	case err != nil:
		return err
	}
	if c.admit.SoftNotFound(resp.Request.URL.Host, parsed.Text) {
		r.skip(admit.ReasonSoft404)
		r.verdict = traps.NotFound
		return nil
	}
	if canon, ok := c.admit.Canonical(r.url, parsed.Canonical); ok {
		// The canonical URL is fetched instead — unless it may not be
		// (robots.txt, a trap), or failed or defers elsewhere: then this
		// copy is kept.
		d := c.admit.Link(canon)
		rec, known, err := c.pages.Get(canon)
		if err != nil {
			return err
		}
		if d.Verdict == admit.Follow && (!known || rec.Status == pages.Fetched) {
			r.links = append(r.links, link{Decision: d, task: r.task, priority: max(r.priority, PrioritySeed), fixed: true})
			r.skip("canonical URL is " + canon)
			return nil
		}
	}
	if !parsed.NoFollow && r.task.Depth+1 <= c.opts.MaxDepth {
		for _, l := range parsed.Links {
			if l.NoFollow {
				continue
			}
			d := c.admit.Link(l.URL)
			if d.Verdict == admit.Ignore || d.URL == r.url {
				continue
			}
			r.links = append(r.links, link{Decision: d, text: l.Text, task: task{Depth: r.task.Depth + 1}})
		}
	}
	anchors, err := c.pages.Anchors(r.url)
	if err != nil {
		return err
	}
	if r.prep, err = c.hook.Prepare(r.url, *resp.Headers, parsed, anchors); err != nil {
		return err
	}
	r.status = pages.Fetched
	if len(features.Tokens(parsed.Text)) == 0 {
		r.verdict = traps.Empty
	}
	return nil
}

// redirect queues a redirect's target like a link and records the source
// as skipped; kind is "HTTP 301" or "meta refresh".
func (c *Crawler) redirect(r *result, kind, location string) {
	d, err := c.admit.Redirect(r.url, location, r.task.Hops)
	switch {
	case err != nil:
		r.fail(fmt.Sprintf("%s to an unusable location %q", kind, location))
	case d.Verdict == admit.Refuse:
		r.skip(d.Reason)
	default:
		r.links = append(r.links, link{Decision: c.admit.Link(d.URL), task: task{Depth: r.task.Depth, Hops: r.task.Hops + 1},
			priority: r.priority, fixed: true})
		r.skip(fmt.Sprintf("%s redirect to %s", kind, d.URL))
	}
}
