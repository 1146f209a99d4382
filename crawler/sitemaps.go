package crawler

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/doppel-search/doppel/crawler/admit"
	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/crawler/sitemap"
)

// Sitemap limits: the protocol's 50 MB per file, and how many files one
// reading of a host's sitemaps follows (an index names others).
const (
	maxSitemapBytes = 50 << 20
	maxSitemapFiles = 100
)

// sitemaps holds what robots.txt said about each host's sitemaps, and the
// validators of each sitemap file read.
type sitemaps struct {
	mu     sync.Mutex
	byHost map[string][]string // host → sitemap URLs (robots.txt's, or /sitemap.xml)
	etags  map[string]string   // sitemap URL → ETag of the last reading
	index  map[string][]string // sitemap URL → the sitemaps it named, if an index
	listed map[string][]string // sitemap URL → the pages it listed at its last reading
	// previous holds the pages of the last complete reading (every file
	// read): a fetched page that has left the sitemaps since is fetched
	// again at once — a page taken off a sitemap has often been deleted.
	previous map[string]bool
}

// onRobots is admission's OnRobots hook: the host's Crawl-delay goes to
// the pacer, its sitemaps (robots.txt's, else /sitemap.xml) to the list
// readSitemaps reads.
func (c *Crawler) onRobots(u *url.URL, r admit.Robots) {
	c.pacer.SetCrawlDelay(u.Host, r.CrawlDelay)
	files := r.Sitemaps
	if len(files) == 0 {
		files = []string{u.Scheme + "://" + u.Host + "/sitemap.xml"}
	}
	c.maps.mu.Lock()
	c.maps.byHost[u.Host] = files
	c.maps.mu.Unlock()
}

// readSitemaps reads every known host's sitemaps once (Run), or every
// Revisit.Sitemaps (Watch), and hands the committer what they say: pages
// not seen yet, to queue, and fetched pages whose lastmod is newer than
// the copy, to fetch again now. A negative Revisit.Sitemaps turns it off.
// Each reading counts as in flight (dispatcher.begin; run begins the
// first) until the committer has its findings, so a Run does not end
// before they are queued.
func (c *Crawler) readSitemaps(ctx context.Context, d *dispatcher, results chan<- *result, keep bool) {
	for first := true; ; first = false {
		if !first {
			select {
			case <-ctx.Done():
				return
			case <-time.After(c.opts.Revisit.Sitemaps):
			}
			d.begin()
		}
		var r *result
		if c.opts.Revisit.Sitemaps >= 0 {
			r = c.readSitemapsOnce(ctx)
		}
		if r != nil && ctx.Err() == nil {
			results <- r // the committer settles it
		} else {
			d.settle(1, 0)
		}
		if !keep || c.opts.Revisit.Sitemaps < 0 {
			return
		}
	}
}

// readSitemapsOnce reads the sitemaps and returns the committer's work,
// nil if there is none.
func (c *Crawler) readSitemapsOnce(ctx context.Context) *result {
	for _, seed := range c.opts.Seeds {
		c.admit.Link(seed) // the seeds' hosts' robots.txt, which names their sitemaps, read if not yet
	}
	c.maps.mu.Lock()
	var files []string
	for _, host := range slices.Sorted(maps.Keys(c.maps.byHost)) {
		files = append(files, c.maps.byHost[host]...)
	}
	c.maps.mu.Unlock()
	r := &result{queued: make(chan struct{})}
	seen := map[string]bool{}
	current, complete := map[string]bool{}, true
	for read := 0; len(files) > 0 && ctx.Err() == nil; read++ {
		if read == maxSitemapFiles {
			complete = false
			break
		}
		file := files[0]
		files = files[1:]
		if seen[file] {
			continue
		}
		seen[file] = true
		sm, err := c.fetchSitemap(ctx, file)
		if err != nil {
			slog.Debug("sitemap not read", "url", file, "err", err)
			complete = false
			continue
		}
		for _, e := range sm.Sitemaps {
			if d := c.admit.Link(e.URL); d.Verdict != admit.Ignore {
				files = append(files, e.URL)
			}
		}
		if err := c.noteSitemapURLs(r, sm.URLs, current); err != nil {
			c.setFatal(err)
			return nil
		}
	}
	if complete && ctx.Err() == nil {
		if err := c.noteDropped(r, current); err != nil {
			c.setFatal(err)
			return nil
		}
	}
	if len(r.links) == 0 && len(r.revisitNow) == 0 {
		return nil
	}
	c.sitemapHints.Add(int64(len(r.revisitNow)))
	return r
}

// noteSitemapURLs adds a sitemap's entries to r: URLs without record as
// links to queue, fetched ones whose lastmod is after their fetch as
// revisits due now.
func (c *Crawler) noteSitemapURLs(r *result, entries []sitemap.Entry, current map[string]bool) error {
	for _, e := range entries {
		d := c.admit.Link(e.URL)
		if d.Verdict == admit.Ignore {
			continue
		}
		current[d.URL] = true
		rec, known, err := c.pages.Get(d.URL)
		if err != nil {
			return err
		}
		switch {
		case !known:
			r.links = append(r.links, link{Decision: d, task: task{Depth: 1}, priority: PriorityUnique, fixed: true})
		case rec.Status == pages.Fetched && !e.LastMod.IsZero() && e.LastMod.After(rec.FetchedAt):
			r.revisitNow = append(r.revisitNow, d.URL)
		}
	}
	return nil
}

// noteDropped adds to r, as revisits due now, the fetched pages that a
// complete reading of the sitemaps no longer lists but the previous one
// did, and keeps current for the next reading.
func (c *Crawler) noteDropped(r *result, current map[string]bool) error {
	c.maps.mu.Lock()
	previous := c.maps.previous
	c.maps.previous = current
	c.maps.mu.Unlock()
	due := map[string]bool{}
	for _, u := range r.revisitNow {
		due[u] = true
	}
	for _, u := range slices.Sorted(maps.Keys(previous)) {
		if current[u] || due[u] {
			continue
		}
		rec, ok, err := c.pages.Get(u)
		if err != nil {
			return err
		}
		if ok && rec.Status == pages.Fetched {
			r.revisitNow = append(r.revisitNow, u)
		}
	}
	return nil
}

// fetchSitemap fetches and parses one sitemap file with a request slot of
// its host, conditionally if it was read before.
func (c *Crawler) fetchSitemap(ctx context.Context, file string) (*sitemap.Sitemap, error) {
	u, err := url.Parse(file)
	if err != nil {
		return nil, err
	}
	for !c.pacer.TryAcquire(u.Host) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	defer c.pacer.Release(u.Host)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, file, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", c.opts.UserAgent)
	c.maps.mu.Lock()
	if etag := c.maps.etags[file]; etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	c.maps.mu.Unlock()
	client := &http.Client{Timeout: c.opts.Timeout}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusNotModified: // every lastmod in it was seen: its files and pages as they were
		c.maps.mu.Lock()
		defer c.maps.mu.Unlock()
		sm := &sitemap.Sitemap{}
		for _, f := range c.maps.index[file] {
			sm.Sitemaps = append(sm.Sitemaps, sitemap.Entry{URL: f})
		}
		for _, u := range c.maps.listed[file] {
			sm.URLs = append(sm.URLs, sitemap.Entry{URL: u})
		}
		return sm, nil
	default:
		return nil, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	sm, err := sitemap.Parse(resp.Body, resp.Request.URL, maxSitemapBytes)
	if err != nil {
		return nil, err
	}
	c.maps.mu.Lock()
	c.maps.etags[file] = resp.Header.Get("ETag")
	c.maps.index[file], c.maps.listed[file] = nil, nil
	for _, e := range sm.Sitemaps {
		c.maps.index[file] = append(c.maps.index[file], e.URL)
	}
	for _, e := range sm.URLs {
		c.maps.listed[file] = append(c.maps.listed[file], e.URL)
	}
	c.maps.mu.Unlock()
	return sm, nil
}
