package crawler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/temoto/robotstxt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/doppel-search/doppel/crawler/clean"
	"github.com/doppel-search/doppel/crawler/frontier"
	"github.com/doppel-search/doppel/crawler/hook"
	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/crawler/traps"
	"github.com/doppel-search/doppel/crawler/urlnorm"
	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/indexer"
)

// Priorities of queued URLs (higher is crawled first).
const (
	PrioritySeed      = 100 // seeds, and canonical URLs named by a page
	PriorityUnique    = 10  // a link found on a page with unique content
	PriorityDuplicate = 0   // a link found on a near-duplicate page
	PriorityFamily    = -5  // a link whose host and path template has produced near-duplicates
)

// flushEvery is how many fetched pages go between index flushes (each
// flush lets a restart skip re-indexing what it wrote).
const flushEvery = 100

// Keys of the colly request context.
const (
	ctxURL      = "doppel.url"
	ctxTask     = "doppel.task"
	ctxPriority = frontier.PriorityKey
)

// task is the frontier payload of a queued URL.
type task struct {
	Depth int `json:"depth"`          // links followed from a seed
	Hops  int `json:"hops,omitempty"` // redirects followed to reach the URL
}

// Stats counts what a crawl has done, across restarts.
type Stats struct {
	Fetched    int64 // pages fetched and processed
	Unique     int64 // fetched pages that founded a cluster
	Duplicates int64 // fetched pages that joined a cluster
	Skipped    int64 // URLs recorded as skipped (robots, traps, redirects, binary, canonical…)
	Errors     int64 // URLs whose fetch failed
	Queued     int   // URLs waiting in the frontier
}

// A Crawler crawls into a data directory: Open, Run (again after a
// restart to resume), Close. Run must not be called concurrently; Stats
// may be called at any time.
type Crawler struct {
	opts  Options
	dir   string
	front *frontier.Frontier
	pages *pages.Store
	index *indexer.Index
	hook  *hook.Hook
	guard *traps.Guard
	soft  *traps.SoftNotFound
	norm  urlnorm.Options

	mu         sync.Mutex // serializes page processing: the detector sees pages in record order
	sinceFlush int        // fetched pages since the last flush; under mu
	lastSeq    uint64     // sequence number of the last fetched record; under mu

	familyMu sync.Mutex
	families map[string]int      // host+path template → near-duplicates fetched
	queued   map[string][]string // template without near-duplicates yet → its URLs queued at normal priority

	robotsMu sync.Mutex
	robots   map[string]*robotstxt.RobotsData

	fetched, unique, dups, skipped, errs atomic.Int64

	fatalMu sync.Mutex
	fatal   error // a storage error that stops the crawl
}

// Open opens (or creates) the crawl state in dir. Options are saved in dir
// (crawl.json) on the first Open; a later Open with no Seeds uses the saved
// options, so a crawl resumes with the settings it started with. Open
// rebuilds the near-duplicate detector by replaying the recorded pages in
// crawl order and brings the index up to date with them.
func Open(dir string, opts Options) (*Crawler, error) {
	opts, err := resolveOptions(dir, opts)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("crawler: %w", err)
	}
	c := &Crawler{
		opts:     opts,
		dir:      dir,
		soft:     traps.NewSoftNotFound(0),
		families: map[string]int{},
		queued:   map[string][]string{},
		robots:   map[string]*robotstxt.RobotsData{},
		norm:     urlnorm.Options{DropParams: opts.DropParams},
	}
	c.guard = traps.NewGuard(opts.Traps, urlnorm.Template)
	if c.front, err = frontier.Open(filepath.Join(dir, "frontier.db"), frontier.Options{NoSync: opts.NoSync, LockTimeout: 2 * time.Second}); err != nil {
		return nil, inUse(dir, err)
	}
	if c.pages, err = pages.Open(filepath.Join(dir, "pages.db"), pages.Options{NoSync: opts.NoSync}); err != nil {
		c.front.Close()
		return nil, inUse(dir, err)
	}
	if c.index, err = indexer.Open(filepath.Join(dir, "index"), indexer.Options{Policy: opts.Policy}); err != nil {
		c.front.Close()
		c.pages.Close()
		return nil, err
	}
	if err := saveOptions(dir, opts); err != nil {
		c.Close()
		return nil, err
	}
	if err := c.replay(); err != nil {
		c.Close()
		return nil, err
	}
	err = c.front.All(func(u string, st frontier.State, _ string) error {
		if t := urlnorm.Template(u); st == frontier.Pending && c.families[t] == 0 {
			c.queued[t] = append(c.queued[t], u)
		}
		return nil
	})
	if err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func inUse(dir string, err error) error {
	if errors.Is(err, bolterrors.ErrTimeout) {
		return fmt.Errorf("crawler: data directory %s is in use by another process: %w", dir, err)
	}
	return err
}

// replay rebuilds the detector, site-template statistics and trap counts
// from the recorded pages, in crawl order, and re-indexes the pages the
// index may lack: those recorded after its last completed flush. Index
// updates are idempotent upserts, so re-applying them makes the index agree
// with the records whatever a crash interrupted.
func (c *Crawler) replay() error {
	det, err := dedup.New(nil, hook.DetectorOptions())
	if err != nil {
		return err
	}
	if c.hook, err = hook.New(hook.Options{Detector: det, MaxBodyBytes: c.opts.MaxBodyBytes, Groups: c.opts.groupsFor, NoDedup: c.opts.NoDedup}); err != nil {
		return err
	}
	through, err := c.pages.IndexedThrough()
	if err != nil {
		return err
	}
	ctx := context.Background()
	templates := c.hook.Templates()
	err = c.pages.Each(func(r pages.Record) error {
		c.guard.Admit(r.URL) // restore the per-template counts
		switch r.Status {
		case pages.Skipped:
			c.skipped.Add(1)
			return nil
		case pages.Failed:
			c.errs.Add(1)
			return nil
		}
		templates.Observe(r.Host, r.Blocks)
		res, err := c.hook.Assign(dedup.Document{ID: r.URL, URL: r.URL, Text: r.Text, Tagged: r.Tagged})
		if err != nil {
			return err
		}
		c.count(r.URL, res)
		c.lastSeq = r.Seq
		if r.Seq <= through {
			return nil
		}
		return c.index.Add(ctx, indexDoc(r, res), res)
	})
	if err != nil {
		return fmt.Errorf("crawler: replaying recorded pages: %w", err)
	}
	return c.flush(ctx)
}

// flush writes the index batch and records how far the index is complete.
// Callers hold c.mu or have Run's exclusive access.
func (c *Crawler) flush(ctx context.Context) error {
	if err := c.index.Flush(ctx); err != nil {
		return err
	}
	c.sinceFlush = 0
	return c.pages.SetIndexedThrough(c.lastSeq)
}

func (c *Crawler) count(pageURL string, res dedup.Result) {
	c.fetched.Add(1)
	if !res.Duplicate {
		c.unique.Add(1)
		return
	}
	c.dups.Add(1)
	t := urlnorm.Template(pageURL)
	c.familyMu.Lock()
	defer c.familyMu.Unlock()
	c.families[t]++
	// The family has produced a near-duplicate: its URLs still queued are
	// probably more of them, so they go after everything else.
	for _, u := range c.queued[t] {
		if _, err := c.front.Reprioritize(u, PriorityFamily); err != nil {
			c.setFatal(err)
		}
	}
	delete(c.queued, t)
}

// Close closes the stores. In-flight URLs are fetched again by the next
// Run.
func (c *Crawler) Close() error {
	return errors.Join(c.index.Close(), c.pages.Close(), c.front.Close())
}

// Stats returns the counters so far.
func (c *Crawler) Stats() Stats {
	st := Stats{Fetched: c.fetched.Load(), Unique: c.unique.Load(), Duplicates: c.dups.Load(),
		Skipped: c.skipped.Load(), Errors: c.errs.Load()}
	if fs, err := c.front.Stats(); err == nil {
		st.Queued = fs.Pending
	}
	return st
}

// Options returns the options in effect (defaults filled in).
func (c *Crawler) Options() Options { return c.opts }

// Index returns the crawl's search index.
func (c *Crawler) Index() *indexer.Index { return c.index }

// Detector returns the crawl's near-duplicate detector.
func (c *Crawler) Detector() *dedup.Detector { return c.hook.Detector() }

// Run crawls until the frontier is empty, the page budget is spent or ctx
// is done, and flushes the index. Interrupted, it returns ctx.Err() and
// leaves the state resumable: call Run again (after Open, in a new
// process) to go on.
func (c *Crawler) Run(ctx context.Context) error {
	col := c.collector(ctx)
	for _, s := range c.opts.Seeds {
		if err := c.enqueue(s, task{}, PrioritySeed, ""); err != nil {
			return err
		}
	}
	runErr := c.dispatch(ctx, col)
	c.mu.Lock()
	flushErr := c.flush(context.Background())
	c.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	return errors.Join(runErr, c.fatalErr(), flushErr)
}

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
	col.OnResponse(func(r *colly.Response) {
		if err := c.process(r); err != nil {
			c.fail(r.Ctx.Get(ctxURL), err.Error())
		}
	})
	col.OnError(func(r *colly.Response, err error) {
		if ctx.Err() != nil {
			return // interrupted: the URL stays in flight and is fetched again on resume
		}
		u := r.Ctx.Get(ctxURL)
		if r.StatusCode >= 300 && r.StatusCode < 400 && r.Headers != nil && r.Headers.Get("Location") != "" {
			c.redirect(r, u, r.Headers.Get("Location"))
			return
		}
		reason := err.Error()
		if r.StatusCode != 0 {
			reason = fmt.Sprintf("HTTP %d", r.StatusCode)
		}
		c.fail(u, reason)
	})
	return col
}

// dispatch runs Parallelism workers that pop the frontier and fetch until
// it is empty (with no fetch in flight that could add to it), the budget
// is spent, ctx is done or storage fails.
func (c *Crawler) dispatch(ctx context.Context, col *colly.Collector) error {
	var (
		mu       sync.Mutex
		cond     = sync.NewCond(&mu)
		active   int
		storeErr error
	)
	stop := context.AfterFunc(ctx, func() { mu.Lock(); cond.Broadcast(); mu.Unlock() })
	defer stop()
	next := func() (frontier.Item, bool) {
		mu.Lock()
		defer mu.Unlock()
		for {
			switch {
			case ctx.Err() != nil || storeErr != nil || c.fatalErr() != nil:
				return frontier.Item{}, false
			case c.fetched.Load()+int64(active) >= int64(c.opts.MaxPages):
				if active == 0 {
					cond.Broadcast()
					return frontier.Item{}, false
				}
				cond.Wait()
				continue
			}
			item, err := c.front.Next()
			if err == nil {
				active++
				return item, true
			}
			if !errors.Is(err, frontier.ErrEmpty) {
				storeErr = err
				cond.Broadcast()
				return frontier.Item{}, false
			}
			if active == 0 {
				cond.Broadcast()
				return frontier.Item{}, false
			}
			cond.Wait()
		}
	}
	var wg sync.WaitGroup
	for range c.opts.Parallelism {
		wg.Go(func() {
			for {
				item, ok := next()
				if !ok {
					return
				}
				c.fetch(ctx, col, item)
				mu.Lock()
				active--
				cond.Broadcast()
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return storeErr
}

// fetch requests one popped URL. Whatever happens, the URL ends recorded
// and done, except when ctx is cancelled mid-request: then it stays in
// flight and is fetched again on resume.
func (c *Crawler) fetch(ctx context.Context, col *colly.Collector, item frontier.Item) {
	if rec, known, err := c.pages.Get(item.URL); err != nil {
		c.setFatal(err)
		return
	} else if known { // recorded before a crash, not yet marked done
		c.done(item.URL, string(rec.Status))
		return
	}
	var t task
	_ = json.Unmarshal(item.Payload, &t) // a missing or foreign payload means depth 0
	rctx := colly.NewContext()
	rctx.Put(ctxURL, item.URL)
	rctx.Put(ctxTask, string(item.Payload))
	rctx.Put(ctxPriority, strconv.Itoa(item.Priority))
	err := col.Request(http.MethodGet, item.URL, nil, rctx, nil)
	if ctx.Err() != nil {
		return
	}
	if _, known, _ := c.pages.Get(item.URL); !known { // no callback recorded it
		reason := "no response"
		if err != nil {
			reason = err.Error()
		}
		c.fail(item.URL, reason)
	}
}

func taskOf(r *colly.Response) (task, int) {
	var t task
	_ = json.Unmarshal([]byte(r.Ctx.Get(ctxTask)), &t)
	prio, _ := strconv.Atoi(r.Ctx.Get(ctxPriority))
	return t, prio
}

// process handles a 2xx response.
func (c *Crawler) process(r *colly.Response) error {
	u := r.Ctx.Get(ctxURL)
	t, prio := taskOf(r)
	page, err := c.hook.Parse(u, *r.Headers, r.Body)
	if err != nil {
		if errors.Is(err, hook.ErrSkipped) {
			c.skip(u, strings.TrimPrefix(err.Error(), hook.ErrSkipped.Error()+": "))
			return nil
		}
		return err
	}
	host := r.Request.URL.Host
	if c.soft.Is(host, page.Text) {
		c.skip(u, "soft 404: the page is the host's answer for missing pages")
		return nil
	}
	if canon := c.canonical(u, page); canon != "" {
		if err := c.enqueue(canon, t, max(prio, PrioritySeed), ""); err != nil {
			return err
		}
		c.skip(u, "canonical URL is "+canon)
		return nil
	}

	anchors, err := c.pages.Anchors(u)
	if err != nil {
		return err
	}
	// Template stripping and signing run in parallel; cluster assignment,
	// recording and indexing one page at a time, in record order, which
	// is the order a restart replays.
	prep, err := c.hook.Prepare(u, *r.Headers, page, anchors)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, known, _ := c.pages.Get(u); known {
		return nil
	}
	p, err := c.hook.Insert(context.Background(), prep)
	if err != nil {
		return err
	}
	// Links are queued before the page is recorded: a crash in between
	// fetches the page again, and queuing is idempotent.
	if err := c.enqueueLinks(u, page, t, p.Result.Duplicate); err != nil {
		return err
	}
	rec, err := c.pages.Put(pages.Record{
		URL: u, Status: pages.Fetched, FetchedAt: time.Now().UTC(), LastModified: p.LastModified,
		Host: host, Title: page.Title, Headings: page.Headings, Tagged: page.Tagged,
		Blocks: page.Blocks, Text: p.Text, Groups: p.Groups, Anchors: anchors,
		Simhash: p.Result.Simhash, Cluster: string(p.Result.Cluster),
	})
	if err != nil {
		return err
	}
	c.count(u, p.Result)
	c.lastSeq = rec.Seq
	if err := c.index.Add(context.Background(), indexDoc(rec, p.Result), p.Result); err != nil {
		return err
	}
	if c.sinceFlush++; c.sinceFlush >= flushEvery {
		if err := c.flush(context.Background()); err != nil {
			return err
		}
	}
	c.done(u, string(pages.Fetched))
	return nil
}

// canonical returns the page's canonical URL if it names another
// in-scope URL that is not itself deferring to a canonical.
func (c *Crawler) canonical(u string, page *clean.Page) string {
	if page.Canonical == "" {
		return ""
	}
	canon, err := urlnorm.Normalize(page.Canonical, c.norm)
	if err != nil || canon == u {
		return ""
	}
	if cu, err := url.Parse(canon); err != nil || !c.opts.inScope(cu) {
		return ""
	}
	if rec, known, _ := c.pages.Get(canon); known && rec.Status != pages.Fetched {
		return "" // the canonical URL failed or defers elsewhere: keep this copy
	}
	return canon
}

// enqueueLinks queues the page's links and records their anchor texts.
func (c *Crawler) enqueueLinks(from string, page *clean.Page, t task, duplicate bool) error {
	if page.NoFollow || t.Depth+1 > c.opts.MaxDepth {
		return nil
	}
	priority := PriorityUnique
	if duplicate {
		priority = PriorityDuplicate
	}
	anchors := map[string][]string{}
	for _, l := range page.Links {
		if l.NoFollow {
			continue
		}
		u, err := urlnorm.Normalize(l.URL, c.norm)
		if err != nil || u == from {
			continue
		}
		if l.Text != "" {
			anchors[u] = append(anchors[u], l.Text)
		}
		if err := c.enqueue(u, task{Depth: t.Depth + 1}, priority, from); err != nil {
			return err
		}
	}
	return c.pages.AddAnchors(anchors)
}

// redirect queues a redirect's target like a link and records the source
// as skipped.
func (c *Crawler) redirect(r *colly.Response, from, location string) {
	t, prio := taskOf(r)
	base, _ := url.Parse(from)
	target, err := urlnorm.Resolve(base, location, c.norm)
	switch {
	case err != nil:
		c.fail(from, fmt.Sprintf("HTTP %d to an unusable location %q", r.StatusCode, location))
		return
	case t.Hops+1 > c.opts.MaxRedirects:
		c.skip(from, fmt.Sprintf("redirect chain longer than %d", c.opts.MaxRedirects))
		return
	}
	if tu, err := url.Parse(target); err != nil || !c.opts.inScope(tu) {
		c.skip(from, "redirect out of scope to "+target)
		return
	}
	if err := c.enqueue(target, task{Depth: t.Depth, Hops: t.Hops + 1}, prio, from); err != nil {
		c.setFatal(err)
		return
	}
	c.skip(from, fmt.Sprintf("HTTP %d redirect to %s", r.StatusCode, target))
}

// enqueue admits a URL (normalized, or normalizes it) or records why not.
// Out-of-scope URLs are neither recorded nor fetched.
func (c *Crawler) enqueue(raw string, t task, priority int, from string) error {
	u, err := urlnorm.Normalize(raw, c.norm)
	if err != nil {
		if from == "" {
			return fmt.Errorf("crawler: seed %q: %w", raw, err)
		}
		return nil // not an http(s) URL
	}
	parsed, err := url.Parse(u)
	if err != nil || !c.opts.inScope(parsed) {
		if from == "" && t.Hops == 0 && priority == PrioritySeed {
			return fmt.Errorf("crawler: seed %s is outside the allowed hosts and prefixes", u)
		}
		return nil
	}
	if seen, err := c.front.Seen(u); err != nil || seen {
		return err
	}
	if !c.opts.IgnoreRobots && !c.robotsAllow(parsed) {
		return c.skipNew(u, "disallowed by robots.txt")
	}
	tmpl := urlnorm.Template(u)
	c.familyMu.Lock()
	dups := c.families[tmpl]
	c.familyMu.Unlock()
	if limit := c.opts.Traps.MaxDuplicatesPerTemplate; dups >= limit {
		return c.skipNew(u, fmt.Sprintf("trap: its path template has produced %d near-duplicates", limit))
	}
	if ok, reason := c.guard.Admit(u); !ok {
		return c.skipNew(u, reason)
	}
	payload, err := json.Marshal(t)
	if err != nil {
		return err
	}
	c.familyMu.Lock()
	defer c.familyMu.Unlock()
	if c.families[tmpl] > 0 {
		priority = min(priority, PriorityFamily)
	}
	added, err := c.front.Add(u, priority, payload)
	if added && priority > PriorityFamily {
		c.queued[tmpl] = append(c.queued[tmpl], u)
	}
	return err
}

// skipNew records a URL refused at admission; the frontier then knows it
// as done, so it is not considered again.
func (c *Crawler) skipNew(u, reason string) error {
	if _, err := c.front.Add(u, 0, nil); err != nil {
		return err
	}
	c.skip(u, reason)
	return nil
}

func (c *Crawler) skip(u, reason string) {
	c.skipped.Add(1)
	c.record(pages.Record{URL: u, Status: pages.Skipped, Reason: reason})
}

func (c *Crawler) fail(u, reason string) {
	c.errs.Add(1)
	c.record(pages.Record{URL: u, Status: pages.Failed, Reason: reason})
}

// record stores a decision about a URL, then marks it done in the
// frontier.
func (c *Crawler) record(r pages.Record) {
	r.FetchedAt = time.Now().UTC()
	if _, err := c.pages.Put(r); err != nil {
		c.setFatal(err)
		return
	}
	c.done(r.URL, string(r.Status)+": "+r.Reason)
}

func (c *Crawler) done(u, outcome string) {
	if err := c.front.Done(u, outcome); err != nil {
		c.setFatal(err)
	}
}

func (c *Crawler) setFatal(err error) {
	c.fatalMu.Lock()
	defer c.fatalMu.Unlock()
	if c.fatal == nil {
		c.fatal = fmt.Errorf("crawler: storage failed: %w", err)
	}
}

func (c *Crawler) fatalErr() error {
	c.fatalMu.Lock()
	defer c.fatalMu.Unlock()
	return c.fatal
}

// robotsAllow fetches and caches robots.txt per host, and learns the
// host's soft-404 answer at the same time.
func (c *Crawler) robotsAllow(u *url.URL) bool {
	c.robotsMu.Lock()
	defer c.robotsMu.Unlock()
	data, ok := c.robots[u.Host]
	if !ok {
		client := &http.Client{Timeout: c.opts.Timeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		data = fetchRobots(client, u, c.opts.UserAgent)
		c.learnSoft404(client, u)
		c.robots[u.Host] = data
	}
	return data == nil || data.TestAgent(u.EscapedPath(), c.opts.UserAgent)
}

func fetchRobots(client *http.Client, u *url.URL, agent string) *robotstxt.RobotsData {
	req, err := http.NewRequest(http.MethodGet, u.Scheme+"://"+u.Host+"/robots.txt", nil)
	if err != nil {
		return nil
	}
	req.Header.Set("User-Agent", agent)
	resp, err := client.Do(req)
	if err != nil {
		return nil // unreachable robots.txt: everything allowed
	}
	defer resp.Body.Close()
	data, err := robotstxt.FromResponse(resp)
	if err != nil {
		return nil
	}
	return data
}

// learnSoft404 asks the host for a page that cannot exist; if it answers
// 200, that answer is the host's soft-404 page.
func (c *Crawler) learnSoft404(client *http.Client, u *url.URL) {
	probe := u.Scheme + "://" + u.Host + "/doppel-probe-" + strconv.FormatInt(time.Now().UnixNano(), 36) + ".html"
	req, err := http.NewRequest(http.MethodGet, probe, nil)
	if err != nil {
		return
	}
	req.Header.Set("User-Agent", c.opts.UserAgent)
	resp, err := client.Do(req)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return
	}
	page, err := clean.Parse(io.LimitReader(resp.Body, int64(c.opts.MaxBodyBytes)), u, clean.Options{})
	if err == nil {
		c.soft.Learn(u.Host, page.Text)
	}
}

// indexDoc is the index document of a fetched record.
func indexDoc(r pages.Record, res dedup.Result) indexer.Doc {
	return indexer.Doc{ID: r.URL, URL: r.URL, Host: r.Host, Title: r.Title, Headings: r.Headings,
		Body: r.Text, Anchors: r.Anchors, LastModified: r.LastModified, Groups: r.Groups, Simhash: res.Simhash}
}
