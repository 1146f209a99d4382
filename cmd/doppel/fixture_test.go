package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/doppel-search/doppel/internal/demosite"
)

// A sharedCrawl is one crawl of the demo intranet made once for the
// package and read by every test that needs a finished crawl and does not
// watch how it ran: each test works on a copy of its data directory, so a
// test that damages, repairs or crawls again changes its copy only.
type sharedCrawl struct {
	name   string   // the fixture's folder
	args   []string // the crawl's flags after --seed and --data
	budget bool     // the crawl may stop at its page budget (exit 3)
	once   sync.Once
	dir    string // the data directory, never written after the crawl
	out    string // the crawl's summary (stdout)
	err    error
}

var (
	// fullCrawl is the whole demo intranet, as `doppel crawl --once
	// --seed SITE/ --delay 0` crawls it.
	fullCrawl = &sharedCrawl{name: "full", args: []string{"--delay", "0"}}
	// smallCrawl stops at 15 pages: a small data directory.
	smallCrawl = &sharedCrawl{name: "small", args: []string{"--delay", "0", "--max-pages", "15"}, budget: true}

	sharedOnce sync.Once
	sharedSite *httptest.Server // the demo intranet the shared crawls read, up until the package's tests end
	sharedDir  string           // the shared crawls' folders
	sharedErr  error
)

func TestMain(m *testing.M) {
	if os.Getenv(asDoppel) == "1" { // the test binary run as the doppel command
		main()
	}
	code := m.Run()
	if sharedSite != nil {
		sharedSite.Close()
	}
	if sharedDir != "" {
		os.RemoveAll(sharedDir)
	}
	os.Exit(code)
}

// sharedDemo returns the URL of the demo intranet the shared crawls read
// (no trailing slash). It serves until the package's tests end, so a
// test's `crawl --once` on a copy of a shared crawl finds its seed.
func sharedDemo(t *testing.T) string {
	t.Helper()
	sharedOnce.Do(func() {
		sharedSite = httptest.NewServer(demosite.Handler())
		sharedDir, sharedErr = os.MkdirTemp("", "doppel-shared-crawls-")
	})
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return sharedSite.URL
}

// crawled returns the demo intranet's URL, a copy of the data directory
// of the shared crawl s (made on first use) and that crawl's summary.
func crawled(t *testing.T, s *sharedCrawl) (site, dir, summary string) {
	t.Helper()
	site = sharedDemo(t)
	s.once.Do(func() {
		s.dir = filepath.Join(sharedDir, s.name)
		args := append([]string{"crawl", "--once", "--seed", site + "/", "--data", s.dir}, s.args...)
		var stdout, stderr strings.Builder
		if code := run(context.Background(), args, &stdout, &stderr); code != 0 && (code != 3 || !s.budget) {
			s.err = fmt.Errorf("doppel %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
		}
		s.out = stdout.String()
	})
	if s.err != nil {
		t.Fatal(s.err)
	}
	dir = filepath.Join(t.TempDir(), "data")
	copyDir(t, s.dir, dir)
	return site, dir, s.out
}
