package e2e

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler"
	"github.com/doppel-search/doppel/internal/demosite"
	"github.com/doppel-search/doppel/ranking"
	"github.com/doppel-search/doppel/web"
	"github.com/doppel-search/doppel/web/crawlstatus"
)

// fixture is the crawled demo intranet and the search UI over it, shared by
// every test of the package.
type fixture struct {
	site    *httptest.Server // the demo intranet
	search  *httptest.Server // web.New over the crawl
	admin   *httptest.Server // its administrators' handler: the status page with the crawl's hosts
	crawler *crawler.Crawler
	siteURL string // site.URL, the prefix of every crawled page's URL
	summary string // what the crawl did
}

var (
	fixOnce sync.Once
	fix     *fixture
	fixErr  error
	dataDir string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if fix != nil {
		fix.search.Close()
		fix.admin.Close()
		fix.crawler.Close()
		fix.site.Close()
	}
	if dataDir != "" {
		os.RemoveAll(dataDir)
	}
	os.Exit(code)
}

// demo returns the shared fixture, crawling the demo intranet on first use.
func demo(t testing.TB) *fixture {
	t.Helper()
	did := false
	fixOnce.Do(func() { did = true; fix, fixErr = setUp() })
	if fixErr != nil {
		t.Fatalf("setting up the demo: %v", fixErr)
	}
	if did {
		t.Log(fix.summary)
	}
	return fix
}

// setUp serves the demo intranet, crawls it the way `doppel demo` does
// (HR pages under /hr/ get the group "hr") and serves the search UI with
// the demo's guest and hr-staff users, and the status page with the
// crawl's live section as `doppel run` shows it.
func setUp() (*fixture, error) {
	start := time.Now()
	site := httptest.NewServer(demosite.Handler())
	var err error
	dataDir, err = os.MkdirTemp("", "doppel-e2e-data-")
	if err != nil {
		site.Close()
		return nil, err
	}
	c, err := crawler.Open(dataDir, crawler.Options{
		Seeds:  []string{site.URL + "/"},
		Delay:  -1,
		Groups: []crawler.GroupRule{{Prefix: site.URL + "/hr/", Groups: []string{"hr"}}},
		NoSync: true, // a throw-away crawl: no fsync
	})
	if err != nil {
		site.Close()
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.Run(ctx); err != nil {
		c.Close()
		site.Close()
		return nil, fmt.Errorf("crawling the demo intranet: %w", err)
	}
	live := crawlstatus.Live(c, time.Second)
	srv, err := web.New(ranking.New(c.Index(), ranking.Options{}), web.Options{
		DemoUsers: []web.DemoUser{{Name: "guest"}, {Name: "hr-staff", Groups: []string{"hr"}}},
		Text:      c.View().Text,
		Fetched:   c.View().FetchedAt,
		Status:    func() web.Status { return demoStatus(c.View(), live()) },
	})
	if err != nil {
		c.Close()
		site.Close()
		return nil, err
	}
	st := c.Stats()
	summary := fmt.Sprintf("crawled the demo intranet %s in %v: %d pages fetched, %d unique, %d near-duplicates, %d skipped, %d errors",
		site.URL, time.Since(start).Round(time.Millisecond), st.Fetched, st.Unique, st.Duplicates, st.Skipped, st.Errors)
	return &fixture{site: site, search: httptest.NewServer(srv), admin: httptest.NewServer(srv.AdminHandler()), crawler: c,
		siteURL: site.URL, summary: summary}, nil
}

// demoStatus is the status page's data as doppel serve makes it from the
// crawl's records (its cachedStatus), with the running crawl's section:
// the screenshots show the counts and charts an administrator sees, not
// zeros.
func demoStatus(v *crawler.View, live *web.Crawl) web.Status {
	st := web.Status{Crawl: live}
	if s, err := v.Summary(); err == nil {
		st.Documents, st.Clusters, st.Duplicates, st.Queued = s.Fetched, s.Clusters, s.Duplicates, s.Queued
		st.Errors, st.Gone, st.Searchable = s.Errors, s.Gone, s.Searchable
		st.Skipped = max(0, min(s.Duplicates, s.Fetched-s.Indexed))
		st.ClusterSizes, st.Hamming = s.ClusterSizes, s.Hamming
	}
	return st
}
