package crawler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/gocolly/colly/v2"

	"github.com/doppel-search/doppel/crawler/admit"
	"github.com/doppel-search/doppel/crawler/clean"
	"github.com/doppel-search/doppel/crawler/frontier"
	"github.com/doppel-search/doppel/crawler/hook"
	"github.com/doppel-search/doppel/crawler/login"
	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/crawler/polite"
	"github.com/doppel-search/doppel/crawler/share"
	"github.com/doppel-search/doppel/crawler/traps"
	"github.com/doppel-search/doppel/dedup/features"
	"github.com/doppel-search/doppel/page"
)

// task is the frontier payload of a queued URL.
type task struct {
	Depth int `json:"depth"`          // links followed from a seed
	Hops  int `json:"hops,omitempty"` // redirects followed to reach the URL
	// Revisit: fetch the URL although it has a record — a scheduled
	// revisit, a sitemap's newer lastmod, a transient failure of an
	// earlier run.
	Revisit bool `json:"revisit,omitempty"`
	Attempt int  `json:"attempt,omitempty"` // transient failures so far
	// After is the earliest time (Unix milliseconds) to fetch: a retry's
	// backoff, or the host's Retry-After.
	After int64 `json:"after,omitempty"`
	// Copy is the copy the crawl has of a page to revisit, when the
	// revisit is scheduled by a shared crawl's Follower: the worker that
	// claims it may have no record of the page.
	Copy *copyOf `json:"copy,omitempty"`
}

// copyOf is what a worker needs of the crawl's copy of a page to fetch it
// again: its validators for a conditional request and its content hash.
type copyOf struct {
	ETag     string `json:"etag,omitempty"`
	Modified string `json:"modified,omitempty"`
	Hash     uint64 `json:"hash,omitempty"`
}

// A result is what a fetch goroutine found out about one popped URL, for the
// committer: a page to insert, or a decision to record.
type result struct {
	url      string
	task     task
	priority int
	popped   bool // from the frontier (not a sitemap's list): counts as in flight
	// requested: a request for the URL was sent (it counts against
	// MaxPages unless a revisit, and tells its family's yield).
	requested bool

	status  pages.Status // Fetched, Skipped, Failed or Gone; "" for a URL recorded before (known)
	reason  string       // for Skipped, Failed and Gone; for Fetched, a bound the page hit (note)
	note    string       // a bound a fetched page hit: "links: the first N of M followed"
	verdict traps.Verdict
	prep    *hook.Prepared // Fetched, unless unchanged
	links   []link         // links to queue (or to record as refused)
	known   pages.Status   // the recorded status of a URL recorded before a crash

	// Revisits and failures.
	prev        *pages.Record // the page's record when a fetched page is fetched again
	etag        string        // the response's validators, for the next conditional request
	modified    string
	hash        uint64        // the content hash of a fetched page
	linkHash    uint64        // the hash of mainLinks
	mainLinks   []string      // the followed links of the page's main content, sorted, without repeats
	notModified bool          // 304: the copy is current
	transient   bool          // the failure may pass (timeout, refused connection, 5xx, 429)
	class       string        // the failure's class (ClassRefused, …), for a failed fetch
	redirectTo  string        // the target of a followed redirect
	retryAfter  time.Duration // the response's Retry-After, if any

	// A sitemap's findings (popped is false): links are its new URLs;
	// revisitNow, fetched pages whose lastmod is newer than the copy;
	// changeFreq, the <changefreq> of the URLs that give one.
	revisitNow []string
	changeFreq map[string]time.Duration

	// On a shared frontier (see sharedTurns.spend): the URL's turn went to
	// another request of its host (robots.txt, the probe, its sitemaps),
	// so the URL is given back to the frontier, not recorded (release);
	// found holds what the host's sitemaps said, if they were read.
	release bool
	found   *result

	queued chan struct{} // closed by the committer once the page's links are queued

	slot *hostSlot // the request slot of the URL's host, for a popped URL; nil for a sitemap's findings
}

// hostSlot is a popped URL's request slot of its host (polite.Pacer),
// released once: when the answer is in, before the page is processed,
// or when the fetch ends without one. Its release wakes the dispatcher,
// which may have another URL of the host waiting for the slot.
type hostSlot struct {
	once  sync.Once
	pacer *polite.Pacer
	host  string
	poke  func()
}

// release returns the slot to the pacer, the first time only. A nil
// slot does nothing.
func (s *hostSlot) release() {
	if s == nil {
		return
	}
	s.once.Do(func() {
		s.pacer.Release(s.host)
		if s.poke != nil {
			s.poke()
		}
	})
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

// failWith records a fetch that got no HTTP answer, by its class (see
// failure): a host that does not exist or a certificate not trusted is
// not retried.
func (r *result) failWith(err error) {
	reason, class, transient := failure(err)
	r.fail(reason)
	r.class, r.transient = class, transient
}

// failStatus records an HTTP error answer: 404 and 410 to a page fetched
// before mean it is gone, as does any other refusal (4xx) of it but 401
// and 407 — a login missing or refused says nothing of the page, which
// is kept; 429 and 5xx may pass.
func (r *result) failStatus(code int, header http.Header) {
	r.fail(fmt.Sprintf("HTTP %d", code))
	r.class = statusClass(code)
	switch {
	case code == http.StatusTooManyRequests || code >= 500:
		r.transient = true
		r.retryAfter = retryAfter(header.Get("Retry-After"), time.Now())
	case code == http.StatusUnauthorized || code == http.StatusProxyAuthRequired:
		r.class = ClassLogin
	case r.prev != nil && code >= 400:
		r.status = pages.Gone
	}
}

// retryAfter parses a Retry-After header: seconds or an HTTP date; 0 if
// absent or unreadable.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil {
		return time.Duration(max(n, 0)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return 0
}

// linkSet sorts urls, drops repeats and returns them with the hash of
// the set (never 0, which means unknown).
func linkSet(urls []string) ([]string, uint64) {
	slices.Sort(urls)
	urls = slices.Compact(urls)
	h := xxhash.New()
	for _, u := range urls {
		_, _ = h.WriteString(u)
		_, _ = h.WriteString("\n")
	}
	return urls, max(h.Sum64(), 1)
}

// contentHash is the exact hash of what a page says: its title and its
// main content as cleaned.
func contentHash(title string, blocks []string) uint64 {
	h := xxhash.New()
	_, _ = h.WriteString(title)
	for _, b := range blocks {
		_, _ = h.WriteString("\x00")
		_, _ = h.WriteString(b)
	}
	return h.Sum64()
}

// The fetcher fetches one URL at a time for a fetch goroutine (many call
// it at once): the request (conditional for a revisit), the answer's
// decision (redirect, error, not modified), and for a page the hook's
// Parse and Prepare, admission's checks (soft 404, canonical) and the
// links found. It reads the page records and writes nothing: what it
// finds goes to the committer as a result.
type fetcher struct {
	opts  *Options
	admit *admit.Admission
	hook  *hook.Hook
	pages pages.Records
	pacer *polite.Pacer // the fetch's host slot is released to it
	// turns: how requests take their host's turn (hostTurns); maps
	// reads a host's sitemaps at a turn of its own on a shared frontier.
	turns hostTurns
	maps  *sitemaps
	// files reads file URLs (the seeds' folders).
	files *share.Folders
	*fatal
}

const ctxResult = "doppel.result"

// collector builds the colly collector. It fetches one URL per Request
// call, follows no redirect itself (a redirect target is queued like a
// link, so redirect loops end at the frontier's at-most-once rule), and
// leaves robots.txt to admission, which records what it refuses, and
// pacing to the dispatcher (package polite).
func (f *fetcher) collector(ctx context.Context) *colly.Collector {
	col := colly.NewCollector(
		colly.UserAgent(f.opts.UserAgent),
		colly.MaxBodySize(max(f.opts.MaxBodyBytes, f.opts.MaxDocumentBytes)+1), // one byte more tells a cut body
		colly.AllowURLRevisit(),                                                // the frontier and the page store deduplicate
		colly.StdlibContext(ctx),
	)
	col.IgnoreRobotsTxt = true
	base := http.DefaultTransport
	if cl := f.opts.Client; cl != nil {
		if cl.Transport != nil {
			base = cl.Transport
		}
		if cl.Jar != nil {
			col.SetCookieJar(cl.Jar)
		}
	}
	base = polite.Transport{Base: base, Pacer: f.pacer} // the host's delay between requests as sent
	base = decoding{base: base, limit: int64(max(f.opts.MaxBodyBytes, f.opts.MaxDocumentBytes)), pageLimit: int64(f.opts.MaxBodyBytes)}
	base = f.turns.wrap(base, true)
	col.WithTransport(plain{base: withFiles(f.opts.Logins.Transport(base), f.files, f.opts.SMB), pageLimit: int64(f.opts.MaxBodyBytes)})
	col.SetRequestTimeout(f.opts.Timeout)
	col.SetRedirectHandler(func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse })
	col.OnResponse(func(resp *colly.Response) {
		r := resp.Ctx.GetAny(ctxResult).(*result)
		r.slot.release() // the answer is in: the host's next request need not wait for its processing
		r.etag, r.modified = resp.Headers.Get("ETag"), resp.Headers.Get("Last-Modified")
		if err := f.process(r, resp); err != nil {
			r.fail(err.Error())
		}
	})
	col.OnError(func(resp *colly.Response, err error) {
		r := resp.Ctx.GetAny(ctxResult).(*result)
		r.slot.release()
		if ctx.Err() != nil {
			return // interrupted: the URL stays in flight and is fetched again on resume
		}
		var decode *DecodeError
		if errors.As(err, &decode) {
			r.skip(decode.Error())
			return
		}
		var header http.Header
		if resp.Headers != nil {
			header = *resp.Headers
		}
		var refused *share.RefusedError
		switch code := resp.StatusCode; {
		case code == http.StatusNotModified && r.prev != nil:
			r.status, r.notModified = pages.Fetched, true
			r.etag, r.modified = header.Get("ETag"), header.Get("Last-Modified")
		case code >= 300 && code < 400 && header.Get("Location") != "":
			f.redirect(r, fmt.Sprintf("HTTP %d", code), header.Get("Location"))
		case code != 0:
			r.failStatus(code, header)
		case errors.Is(err, login.ErrLoginPage):
			r.skip("login page or logout link")
		case errors.As(err, &refused): // outside the folders: a symbolic link, a loop
			r.skip(refused.Reason)
		default: // no answer: refused, reset, timed out, no such host, TLS, a login refused
			r.failWith(err)
		}
	})
	return col
}

// withFiles returns base able to fetch file URLs (files: the crawl's
// local folders) and smb URLs (an SMB share, with smb's credentials) too:
// a folder is served as a listing of links, a file with the content type
// of its extension.
func withFiles(base http.RoundTripper, files *share.Folders, smb *share.Transport) http.RoundTripper {
	if t, ok := base.(*http.Transport); ok {
		t = t.Clone()
		t.RegisterProtocol("file", files)
		t.RegisterProtocol("smb", smb)
		return t
	}
	return schemes{base: base, file: files, smb: smb}
}

// schemes sends file and smb URLs to their transports, the others to
// base.
type schemes struct {
	base, file, smb http.RoundTripper
}

// RoundTrip sends r by its scheme.
func (s schemes) RoundTrip(r *http.Request) (*http.Response, error) {
	switch r.URL.Scheme {
	case "file":
		return s.file.RoundTrip(r)
	case "smb":
		return s.smb.RoundTrip(r)
	}
	return s.base.RoundTrip(r)
}

// loop is one fetch goroutine: it fetches the dispatcher's items until
// the crawl is over and hands each result to the committer.
func (f *fetcher) loop(ctx context.Context, col *colly.Collector, d *dispatcher, results chan<- *result) {
	for {
		item, ok := d.next()
		if !ok {
			return
		}
		slot := &hostSlot{pacer: f.pacer, host: hostOf(item.URL), poke: d.poke}
		r := f.work(ctx, col, item, slot)
		slot.release()
		fresh := 0
		var t task
		if _ = json.Unmarshal(item.Payload, &t); !t.Revisit {
			fresh = 1
		}
		if r == nil {
			d.settle(1, fresh) // interrupted mid-request: stays in flight
			continue
		}
		if r.release {
			// Its host's turn went to another request: the URL goes back
			// to the shared frontier (before it is settled, so that the
			// crawl does not end meanwhile), with what the host's
			// sitemaps said, if they were read, for the committer.
			if err := f.turns.giveBack(item.URL); err != nil {
				f.setFatal(err)
			}
			if r.found == nil {
				d.settle(1, fresh)
				continue
			}
			d.settle(0, fresh)
			results <- r.found // the committer settles it
			if f.opts.Parallelism == 1 {
				<-r.found.queued
			}
			continue
		}
		// With one fetch goroutine the crawl is sequential: the next URL
		// is popped once this page's links are queued, with the
		// priorities it changed. With more, a fetch goroutine goes on
		// while its page is committed (each pop already misses the pages
		// the others have in hand): waiting for the commit cost a third
		// of their time.
		results <- r
		if f.opts.Parallelism == 1 {
			<-r.queued
		}
	}
}

// work fetches one popped URL and prepares what the committer needs. It
// returns nil when ctx was cancelled mid-request: the URL then stays in
// flight and is fetched again on resume.
func (f *fetcher) work(ctx context.Context, col *colly.Collector, item frontier.Item, slot *hostSlot) *result {
	r := &result{url: item.URL, priority: item.Priority, popped: true, queued: make(chan struct{}), slot: slot}
	_ = json.Unmarshal(item.Payload, &r.task) // a missing or foreign payload means depth 0
	rec, known, err := f.pages.Get(item.URL)
	switch {
	case err != nil:
		f.setFatal(err)
		r.fail(err.Error())
		return r
	case known && !r.task.Revisit: // recorded before a crash, not yet marked done
		r.known = rec.Status
		return r
	case r.task.Revisit && r.task.Copy != nil: // the shared crawl's copy, perhaps not this worker's
		c := r.task.Copy
		r.prev = &pages.Record{Page: page.Page{URL: item.URL}, Status: pages.Fetched, ETag: c.ETag, Modified: c.Modified, Hash: c.Hash}
	case known && rec.Status == pages.Fetched:
		r.prev = &rec
	}
	if reason, trapped := f.admit.Trapped(item.URL); trapped && r.prev == nil { // queued before its template became a trap
		r.skip(reason)
		return r
	}
	if spent, interrupted := f.turns.spend(ctx, f, r); interrupted {
		return nil
	} else if spent {
		return r
	}
	var header http.Header
	if r.prev != nil { // ask for the page only if it changed (RFC 9110 §13.1)
		header = http.Header{}
		if r.prev.ETag != "" {
			header.Set("If-None-Match", r.prev.ETag)
		}
		if r.prev.Modified != "" {
			header.Set("If-Modified-Since", r.prev.Modified)
		}
	}
	rctx := colly.NewContext()
	rctx.Put(ctxResult, r)
	r.requested = true
	err = col.Request(http.MethodGet, item.URL, nil, rctx, header)
	if ctx.Err() != nil {
		return nil
	}
	if r.status == "" { // no callback decided
		if err == nil {
			err = errors.New("no response")
		}
		r.failWith(err)
	}
	return r
}

// process handles a 2xx response: parse, soft-404 and canonical checks,
// links, template stripping and signatures.
func (f *fetcher) process(r *result, resp *colly.Response) error {
	parsed, err := f.hook.Parse(r.url, *resp.Headers, resp.Body)
	var skipped *hook.SkipError
	switch {
	case errors.As(err, &skipped) && skipped.Location != "":
		f.redirect(r, "meta refresh", skipped.Location)
		return nil
	case errors.As(err, &skipped):
		r.skip(skipped.Reason)
		return nil
	case err != nil:
		return err
	}
	if listing(r.url, parsed.Title) {
		// A folder's list of files: its links are followed, it is not a
		// page of its own.
		if r.task.Depth+1 <= f.opts.MaxDepth {
			f.addLinks(r, parsed.Page)
		}
		r.skip("directory listing")
		return nil
	}
	if f.admit.SoftNotFound(resp.Request.URL.Host, parsed.Text) {
		r.skip(admit.ReasonSoft404)
		r.verdict = traps.NotFound
		return nil
	}
	if deferred, err := f.deferToCanonical(r, parsed.Canonical); err != nil || deferred {
		return err
	}
	f.maps.noteFeeds(parsed.Feeds)
	r.hash = contentHash(parsed.Title, parsed.Blocks)
	if !parsed.NoFollow && r.task.Depth+1 <= f.opts.MaxDepth {
		f.addLinks(r, parsed.Page)
	}
	r.mainLinks, r.linkHash = linkSet(r.mainLinks)
	r.status, r.reason = pages.Fetched, r.note
	if r.prev != nil && r.prev.Hash == r.hash {
		return nil // fetched again, unchanged: nothing to prepare
	}
	anchors, err := f.pages.Anchors(r.url)
	if err != nil {
		return err
	}
	if r.prep, err = f.hook.Prepare(r.url, *resp.Headers, parsed, anchors); err != nil {
		return err
	}
	if len(features.Tokens(parsed.Text)) == 0 {
		r.verdict = traps.Empty
	}
	return nil
}

// listing reports whether the page u titled title lists the files of a
// folder: a folder of a file URL crawl, or a web server's generated index
// ("Index of /reports/", as Apache and nginx title theirs).
func listing(u, title string) bool {
	return (strings.HasPrefix(u, "file://") || strings.HasPrefix(u, "smb://")) && strings.HasSuffix(u, "/") || strings.HasPrefix(title, "Index of /")
}

// deferToCanonical queues the canonical URL a page names instead of the
// page, and records the page as skipped (deferred) — unless the canonical
// URL may not be fetched (robots.txt, a trap), or failed or defers
// elsewhere: then this copy is kept.
func (f *fetcher) deferToCanonical(r *result, named string) (deferred bool, err error) {
	canon, ok := f.admit.Canonical(r.url, named)
	if !ok {
		return false, nil
	}
	d := f.admit.Link(canon)
	rec, known, err := f.pages.Get(canon)
	if err != nil {
		return false, err
	}
	if d.Verdict != admit.Follow || known && rec.Status != pages.Fetched {
		return false, nil
	}
	r.links = append(r.links, link{Decision: d, task: r.task, priority: max(r.priority, PrioritySeed), fixed: true})
	r.skip("canonical URL is " + canon)
	return true, nil
}

// addLinks adds a page's followed links to r with their anchor texts,
// one level deeper, and notes those of its main content (r.mainLinks).
// Only the first MaxLinksPerPage links are considered (r.note says so):
// the parse read no more (hook.Options.MaxLinks) and counted the others
// (clean.Page.LinkCount).
func (f *fetcher) addLinks(r *result, p *clean.Page) {
	links := p.Links
	if n := f.opts.MaxLinksPerPage; n > 0 && max(len(links), p.LinkCount) > n {
		r.note = fmt.Sprintf("links: the first %d of %d followed", n, max(len(links), p.LinkCount))
		links = links[:min(n, len(links))]
	}
	source := f.opts.groupsFor(r.url)
	for _, l := range links {
		if l.NoFollow {
			continue
		}
		d := f.admit.Link(l.URL)
		if d.Verdict == admit.Ignore || d.URL == r.url {
			continue
		}
		text := l.Text
		if len(source) > 0 && !hook.AnchorCarries(source, f.opts.groupsFor(d.URL)) {
			text = "" // a restricted page's words must not make a page of wider access findable
		}
		r.links = append(r.links, link{Decision: d, text: text, task: task{Depth: r.task.Depth + 1}})
		if l.Main && d.Verdict == admit.Follow {
			r.mainLinks = append(r.mainLinks, d.URL)
		}
	}
}

// redirect queues a redirect's target like a link and records the source
// as skipped; kind is "HTTP 301" or "meta refresh".
func (f *fetcher) redirect(r *result, kind, location string) {
	d, err := f.admit.Redirect(r.url, location, r.task.Hops)
	switch {
	case err != nil:
		r.fail(fmt.Sprintf("%s to an unusable location %q", kind, location))
	case d.Verdict == admit.Refuse:
		r.skip(d.Reason)
	default:
		r.links = append(r.links, link{Decision: f.admit.Link(d.URL), task: task{Depth: r.task.Depth, Hops: r.task.Hops + 1},
			priority: r.priority, fixed: true})
		r.skip(fmt.Sprintf("%s redirect to %s", kind, d.URL))
		r.redirectTo = d.URL
	}
}
