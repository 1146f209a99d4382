package crawler

import (
	"context"
	"maps"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/doppel-search/doppel/internal/demosite"
)

// A demoCrawl is the demo intranet crawled once with testOptions (and a
// two-minute timeout a request), shared by the tests that read a finished
// crawl of it (TestCrawlDemoSite) or compare their own crawl's outcome to
// it: the crawl is deterministic in its outcome, so one reference serves
// them all.
type demoCrawl struct {
	site     *site    // the demo intranet
	requests *site    // the requests the crawl made (no server: hits only)
	c        *Crawler // the finished crawl, open
	want     outcome  // its outcome, under site.URL
}

var (
	demoOnce sync.Once
	demo     *demoCrawl
	demoDir  string // the shared crawl's data directory
)

// crawledDemo returns the shared crawl of the demo intranet, crawling it
// on first use. It stays open until the package's tests end (closeDemo);
// a test may read it and run it again, not close it.
func crawledDemo(t *testing.T) *demoCrawl {
	t.Helper()
	demoOnce.Do(func() {
		d := &demoCrawl{site: startSite(demosite.Handler())}
		var err error
		if demoDir, err = os.MkdirTemp("", "doppel-demo-crawl-"); err != nil {
			t.Fatal(err)
		}
		opts := testOptions(d.site.URL + "/")
		// Each page is to be requested once (TestCrawlDemoSite): a
		// request that a starved test process does not answer within
		// the default 10 s would be retried.
		opts.Timeout = 2 * time.Minute
		if d.c, err = Open(demoDir, opts); err != nil {
			t.Fatal(err)
		}
		// A bound against a hang, not a speed check (as crawl's).
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		if err := d.c.Run(ctx); err != nil {
			t.Fatal(err)
		}
		d.site.mu.Lock()
		d.requests = &site{hits: maps.Clone(d.site.hits)}
		d.site.mu.Unlock()
		d.want = outcomeOf(t, d.c)
		demo = d
	})
	if demo == nil {
		t.Fatal("the shared crawl of the demo intranet failed (see the test that made it)")
	}
	return demo
}

// closeDemo closes the shared crawl, if one was made, and removes it.
func closeDemo() {
	if demo != nil {
		demo.c.Close()
		demo.site.Close()
	}
	if demoDir != "" {
		os.RemoveAll(demoDir)
	}
}
