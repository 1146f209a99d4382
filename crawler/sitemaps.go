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
	"github.com/doppel-search/doppel/crawler/feed"
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
// names, else /sitemap.xml) and the RSS and Atom feeds the crawl's pages
// link (package feed: an item's date is its page's lastmod), with a
// request slot of their host, and hands the committer what they say: new
// URLs, and fetched pages whose lastmod is newer than the copy or that
// left the sitemaps (not the feeds, which list recent items only). It reads the page
// records and writes nothing. It holds what robots.txt said about each
// host's sitemaps, and the validators of each sitemap file read.
type sitemaps struct {
	opts  *Options
	admit *admit.Admission // set once admission exists (it calls onRobots)
	pages pages.Records
	pacer *polite.Pacer
	// turns: how requests take their host's turn (hostTurns); on a
	// shared frontier the workers take the reading of a host's sitemaps
	// in turn (take, step).
	turns hostTurns
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
	// stepped: on a shared frontier, the hosts whose sitemaps this worker
	// has read, or found taken by another (step reads each once).
	stepped map[string]bool
	// feeds are the RSS and Atom feeds the crawl's pages link, by host
	// (at most maxFeedsPerHost each): read with the sitemaps, their items'
	// dates as lastmod (see noteFeeds).
	feeds  map[string][]string
	isFeed map[string]bool
}

// maxFeedsPerHost bounds the feeds read per host.
const maxFeedsPerHost = 20

func newSitemaps(opts *Options, store pages.Records, pacer *polite.Pacer, turns hostTurns, n *counters, f *fatal) *sitemaps {
	return &sitemaps{opts: opts, pages: store, pacer: pacer, turns: turns, counters: n, fatal: f,
		byHost: map[string][]string{}, etags: map[string]string{}, index: map[string][]string{}, listed: map[string][]string{},
		stepped: map[string]bool{}, feeds: map[string][]string{}, isFeed: map[string]bool{}}
}

// noteFeeds records the feeds a fetched page links, to be read with the
// sitemaps from their next reading on: those admission would follow,
// at most maxFeedsPerHost per host.
func (s *sitemaps) noteFeeds(feeds []string) {
	for _, f := range feeds {
		d := s.admit.Link(f)
		if d.Verdict != admit.Follow {
			continue
		}
		u, err := url.Parse(d.URL)
		if err != nil {
			continue
		}
		s.mu.Lock()
		if !s.isFeed[d.URL] && len(s.feeds[u.Host]) < maxFeedsPerHost {
			s.isFeed[d.URL] = true
			s.feeds[u.Host] = append(s.feeds[u.Host], d.URL)
		}
		s.mu.Unlock()
	}
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
// nil if there is none. On a shared frontier it reads the hosts whose
// reading no other worker has taken (sitemaps.take).
func (s *sitemaps) readOnce(ctx context.Context) *result {
	for _, seed := range s.opts.Seeds {
		s.admit.Link(seed) // the seeds' hosts' robots.txt, which names their sitemaps, read if not yet (on a shared frontier: if known)
	}
	s.mu.Lock()
	hosts := slices.Sorted(maps.Keys(s.byHost))
	s.mu.Unlock()
	var files []string
	complete := true
	for _, host := range hosts {
		if !s.take(host) {
			complete = false // another worker reads them
			continue
		}
		s.mu.Lock()
		files = append(files, s.byHost[host]...)
		files = append(files, s.feeds[host]...)
		s.mu.Unlock()
	}
	r := &result{queued: make(chan struct{})}
	current := map[string]bool{}
	if !s.readFiles(ctx, files, s.fetch, r, current) {
		complete = false
	}
	if s.fatalErr() != nil {
		return nil
	}
	if complete && ctx.Err() == nil {
		if err := s.noteDropped(r, current); err != nil {
			s.setFatal(err)
			return nil
		}
	}
	if len(r.links) == 0 && len(r.revisitNow) == 0 && len(r.changeFreq) == 0 {
		return nil
	}
	s.sitemapHints.Add(int64(len(r.revisitNow)))
	return r
}

// readFiles reads the sitemap files, and those their indexes name, at
// most maxSitemapFiles, each with get, noting what they say in r and
// their URLs in current. It reports whether it read every one; a storage
// error is the crawl's (setFatal).
func (s *sitemaps) readFiles(ctx context.Context, files []string, get func(context.Context, string) (*sitemap.Sitemap, error), r *result, current map[string]bool) (complete bool) {
	complete = true
	seen := map[string]bool{}
	for read := 0; len(files) > 0 && ctx.Err() == nil; read++ {
		if read == maxSitemapFiles {
			return false
		}
		file := files[0]
		files = files[1:]
		seen[file] = true
		sm, err := get(ctx, file)
		if err != nil {
			slog.Debug("sitemap not read", "url", file, "err", err)
			complete = false
			continue
		}
		// An index names up to 50,000 files, each maybe an index again:
		// only as many are queued as may still be read, each once.
		for _, e := range sm.Sitemaps {
			if read+1+len(files) >= maxSitemapFiles {
				complete = false
				break
			}
			if seen[e.URL] {
				continue
			}
			if d := s.admit.Link(e.URL); d.Verdict != admit.Ignore {
				seen[e.URL] = true
				files = append(files, e.URL)
			}
		}
		listed := current
		s.mu.Lock()
		if s.isFeed[file] {
			// A feed lists recent items only: a page that leaves it has
			// not left the site.
			listed = map[string]bool{}
		}
		s.mu.Unlock()
		if err := s.noteURLs(r, sm.URLs, listed); err != nil {
			s.setFatal(err)
			return false
		}
	}
	return complete && ctx.Err() == nil
}

// take reports whether this worker reads host's sitemaps at this
// reading (hostTurns.readsSitemaps: on a shared frontier, whether no
// other has taken the reading since Revisit.Sitemaps, the host marked
// read for step; else always).
func (s *sitemaps) take(host string) bool { return s.turns.readsSitemaps(s, host) }

// step, on a shared frontier, reads the sitemaps of u's host (robots.txt's,
// else /sitemap.xml) at the turn of a claimed URL of the host, if this
// worker has not yet handled them and no other has taken their reading
// (take). It reports whether it made a request (the turn is spent) and
// returns what they say for the committer, nil if nothing.
func (s *sitemaps) step(ctx context.Context, u *url.URL) (*result, bool) {
	if s.opts.Revisit.Sitemaps < 0 {
		return nil, false
	}
	s.mu.Lock()
	done := s.stepped[u.Host]
	files := slices.Clone(s.byHost[u.Host])
	s.mu.Unlock()
	if done || !s.take(u.Host) {
		return nil, false
	}
	if len(files) == 0 {
		files = []string{u.Scheme + "://" + u.Host + "/sitemap.xml"}
	}
	r := &result{queued: make(chan struct{})}
	s.readFiles(ctx, files, func(ctx context.Context, file string) (*sitemap.Sitemap, error) { return s.get(ctx, file, true) }, r, map[string]bool{})
	if len(r.links) == 0 && len(r.revisitNow) == 0 && len(r.changeFreq) == 0 {
		return nil, true
	}
	s.sitemapHints.Add(int64(len(r.revisitNow)))
	return r, true
}

// noteSitemapURLs adds a sitemap's entries to r: URLs without record as
// links to queue, fetched ones whose lastmod is after their fetch as
// revisits due now, and every entry's changefreq.
func (s *sitemaps) noteURLs(r *result, entries []sitemap.Entry, current map[string]bool) error {
	for _, e := range entries {
		d := s.admit.Link(e.URL)
		if d.Verdict == admit.Ignore {
			continue
		}
		current[d.URL] = true
		if e.ChangeFreq > 0 {
			if r.changeFreq == nil {
				r.changeFreq = map[string]time.Duration{}
			}
			r.changeFreq[d.URL] = e.ChangeFreq
		}
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
	if err := s.pacer.Acquire(ctx, u.Host); err != nil {
		return nil, err
	}
	defer s.pacer.Release(u.Host)
	return s.get(ctx, file, false)
}

// get fetches and parses one sitemap file, conditionally if it was read
// before; on a shared frontier through its gate, claimed at the turn of
// a claimed URL (step).
func (s *sitemaps) get(ctx context.Context, file string, claimed bool) (*sitemap.Sitemap, error) {
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
	client := s.opts.client(s.opts.Timeout, nil, func(base http.RoundTripper) http.RoundTripper {
		return s.turns.wrap(polite.Transport{Base: base, Pacer: s.pacer}, claimed)
	})
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
	s.mu.Lock()
	isFeed := s.isFeed[file]
	s.mu.Unlock()
	var sm *sitemap.Sitemap
	if isFeed {
		sm = &sitemap.Sitemap{}
		sm.URLs, err = feed.Parse(resp.Body, resp.Request.URL, maxSitemapBytes)
	} else {
		sm, err = sitemap.Parse(resp.Body, resp.Request.URL, maxSitemapBytes)
	}
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
