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
	"github.com/doppel-search/doppel/crawler/polite"
	"github.com/doppel-search/doppel/crawler/sitemap"
)

// Sitemap limits: the protocol's 50 MB per file, and how many files one
// reading of a host's sitemaps follows (an index names others).
const (
	maxSitemapBytes = 50 << 20
	maxSitemapFiles = 100
)

// The sitemap reader reads the hosts' sitemaps (the ones robots.txt
// names, else /sitemap.xml), with a request slot of their host, and hands
// the committer what they say: new URLs, and fetched pages whose lastmod
// is newer than the copy or that left the sitemaps. It reads the page
// records and writes nothing. It holds what robots.txt said about each
// host's sitemaps, and the validators of each sitemap file read.
type sitemaps struct {
	opts  *Options
	admit *admit.Admission // set once admission exists (it calls onRobots)
	pages pages.Records
	pacer *polite.Pacer
	*counters
	*fatal

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

func newSitemaps(opts *Options, store pages.Records, pacer *polite.Pacer, n *counters, f *fatal) *sitemaps {
	return &sitemaps{opts: opts, pages: store, pacer: pacer, counters: n, fatal: f,
		byHost: map[string][]string{}, etags: map[string]string{}, index: map[string][]string{}, listed: map[string][]string{}}
}

// onRobots is admission's OnRobots hook: the host's Crawl-delay goes to
// the pacer, its sitemaps (robots.txt's, else /sitemap.xml) to the list
// readSitemaps reads.
func (s *sitemaps) onRobots(u *url.URL, r admit.Robots) {
	s.pacer.SetCrawlDelay(u.Host, r.CrawlDelay)
	files := r.Sitemaps
	if len(files) == 0 {
		files = []string{u.Scheme + "://" + u.Host + "/sitemap.xml"}
	}
	s.mu.Lock()
	s.byHost[u.Host] = files
	s.mu.Unlock()
}

// readSitemaps reads every known host's sitemaps once (Run), or every
// Revisit.Sitemaps (Watch), and hands the committer what they say: pages
// not seen yet, to queue, and fetched pages whose lastmod is newer than
// the copy, to fetch again now. A negative Revisit.Sitemaps turns it off.
// Each reading counts as in flight (dispatcher.begin; run begins the
// first) until the committer has its findings, so a Run does not end
// before they are queued.
func (s *sitemaps) read(ctx context.Context, d *dispatcher, results chan<- *result, keep bool) {
	for first := true; ; first = false {
		if !first {
			select {
			case <-ctx.Done():
				return
			case <-time.After(s.opts.Revisit.Sitemaps):
			}
			d.begin()
		}
		var r *result
		if s.opts.Revisit.Sitemaps >= 0 {
			r = s.readOnce(ctx)
		}
		if r != nil && ctx.Err() == nil {
			results <- r // the committer settles it
		} else {
			d.settle(1, 0)
		}
		if !keep || s.opts.Revisit.Sitemaps < 0 {
			return
		}
	}
}

// readSitemapsOnce reads the sitemaps and returns the committer's work,
// nil if there is none.
func (s *sitemaps) readOnce(ctx context.Context) *result {
	for _, seed := range s.opts.Seeds {
		s.admit.Link(seed) // the seeds' hosts' robots.txt, which names their sitemaps, read if not yet
	}
	s.mu.Lock()
	var files []string
	for _, host := range slices.Sorted(maps.Keys(s.byHost)) {
		files = append(files, s.byHost[host]...)
	}
	s.mu.Unlock()
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
		sm, err := s.fetch(ctx, file)
		if err != nil {
			slog.Debug("sitemap not read", "url", file, "err", err)
			complete = false
			continue
		}
		for _, e := range sm.Sitemaps {
			if d := s.admit.Link(e.URL); d.Verdict != admit.Ignore {
				files = append(files, e.URL)
			}
		}
		if err := s.noteURLs(r, sm.URLs, current); err != nil {
			s.setFatal(err)
			return nil
		}
	}
	if complete && ctx.Err() == nil {
		if err := s.noteDropped(r, current); err != nil {
			s.setFatal(err)
			return nil
		}
	}
	if len(r.links) == 0 && len(r.revisitNow) == 0 {
		return nil
	}
	s.sitemapHints.Add(int64(len(r.revisitNow)))
	return r
}

// noteSitemapURLs adds a sitemap's entries to r: URLs without record as
// links to queue, fetched ones whose lastmod is after their fetch as
// revisits due now.
func (s *sitemaps) noteURLs(r *result, entries []sitemap.Entry, current map[string]bool) error {
	for _, e := range entries {
		d := s.admit.Link(e.URL)
		if d.Verdict == admit.Ignore {
			continue
		}
		current[d.URL] = true
		rec, known, err := s.pages.Get(d.URL)
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
func (s *sitemaps) noteDropped(r *result, current map[string]bool) error {
	s.mu.Lock()
	previous := s.previous
	s.previous = current
	s.mu.Unlock()
	due := map[string]bool{}
	for _, u := range r.revisitNow {
		due[u] = true
	}
	for _, u := range slices.Sorted(maps.Keys(previous)) {
		if current[u] || due[u] {
			continue
		}
		rec, ok, err := s.pages.Get(u)
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
func (s *sitemaps) fetch(ctx context.Context, file string) (*sitemap.Sitemap, error) {
	u, err := url.Parse(file)
	if err != nil {
		return nil, err
	}
	for !s.pacer.TryAcquire(u.Host) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	defer s.pacer.Release(u.Host)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, file, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", s.opts.UserAgent)
	s.mu.Lock()
	if etag := s.etags[file]; etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	s.mu.Unlock()
	client := s.opts.client(s.opts.Timeout, nil)
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusNotModified: // every lastmod in it was seen: its files and pages as they were
		s.mu.Lock()
		defer s.mu.Unlock()
		sm := &sitemap.Sitemap{}
		for _, f := range s.index[file] {
			sm.Sitemaps = append(sm.Sitemaps, sitemap.Entry{URL: f})
		}
		for _, u := range s.listed[file] {
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
	s.mu.Lock()
	s.etags[file] = resp.Header.Get("ETag")
	s.index[file], s.listed[file] = nil, nil
	for _, e := range sm.Sitemaps {
		s.index[file] = append(s.index[file], e.URL)
	}
	for _, e := range sm.URLs {
		s.listed[file] = append(s.listed[file], e.URL)
	}
	s.mu.Unlock()
	return sm, nil
}
