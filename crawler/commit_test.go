package crawler

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler/frontier"
)

// slowFrontier is a frontier whose commits wait, at most wait, for the
// committer to count another fetched page, counting the commits during
// which it did.
type slowFrontier struct {
	frontier.Queue
	fetched    *atomic.Int64
	wait       time.Duration
	overlapped atomic.Int64
}

func (f *slowFrontier) Commit(b *frontier.Batch) ([]bool, error) {
	start := f.fetched.Load()
	for deadline := time.Now().Add(f.wait); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if f.fetched.Load() > start {
			f.overlapped.Add(1)
			break
		}
	}
	return f.Queue.Commit(b)
}

// TestFrontierCommitOverlaps checks that a group's frontier transaction
// runs while the committer takes the next group's pages (commit's
// pendingGroup), and that the crawl still fetches every page once and
// leaves nothing queued.
func TestFrontierCommitOverlaps(t *testing.T) {
	const n = 200
	s := newSite(t, newGenSite(n))
	dir := t.TempDir()
	opts := Options{Seeds: []string{s.URL + "/"}, Delay: -1, Parallelism: 4, NoSync: true, MaxPages: 10 * n, MaxDepth: 1000}
	c, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	slow := &slowFrontier{Queue: c.commit.front, fetched: &c.n.fetched, wait: 100 * time.Millisecond}
	c.commit.front = slow
	if err := c.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	st := c.Stats()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if slow.overlapped.Load() == 0 {
		t.Error("no frontier transaction ran while the committer took the next group's pages")
	}
	pagePath := func(p string) bool { return p != "/robots.txt" && p != "/sitemap.xml" } // sitemaps and robots.txt are read by every run
	paths, requests := s.hitsWhere(pagePath)
	if st.Fetched < n || st.Queued != 0 || requests != paths {
		t.Errorf("fetched %d, queued %d, %d requests for %d paths; want at least %d, none and one a path", st.Fetched, st.Queued, requests, paths, n)
	}
}
