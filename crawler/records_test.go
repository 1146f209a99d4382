package crawler

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/internal/demosite"
	"github.com/doppel-search/doppel/internal/testrig/docsite"
	"github.com/doppel-search/doppel/internal/testrig/golden"
)

// recordSites are the generated sites TestRecordsGolden crawls, by the
// name its testdata files give as input.
var recordSites = map[string]func() http.Handler{
	"demosite": demosite.Handler,
	"docsite":  func() http.Handler { return docsite.Handler(docsite.Options{}) },
}

// TestRecordsGolden crawls each generated site of testdata/records (the
// file's input names it) with one fetch goroutine, so that results are
// committed in one order, opens the crawl again (restored from the
// detector's snapshot) and runs it once more, and compares what the crawl
// exports — every record in crawl order with its status, reason, cluster
// master and container, the counters, the pages indexed, how the reopened
// crawl was restored — with the file's expected output: a move of the
// crawler's code that changes any of it fails here. -update rewrites the
// files (read the diff before committing it).
func TestRecordsGolden(t *testing.T) {
	golden.Run(t, "testdata/records/*.txt", func(t *testing.T, input string) string {
		name := strings.TrimSpace(input)
		handler, ok := recordSites[name]
		if !ok {
			t.Fatalf("no site named %q", name)
		}
		s := newSite(t, handler())
		opts := testOptions(s.URL + "/")
		opts.Parallelism = 1
		dir := t.TempDir()
		var out strings.Builder
		c := crawl(t, dir, opts)
		exportCrawl(t, &out, "first run", c, s.URL)
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		c, err := Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		o := c.Opened()
		fmt.Fprintf(&out, "reopened: pages %d, replayed %d, from snapshot %v\n", o.Pages, o.Replayed, o.FromSnapshot)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := c.Run(ctx); err != nil {
			t.Fatal(err)
		}
		exportCrawl(t, &out, "second run", c, s.URL)
		return out.String()
	})
}

// exportCrawl writes what crawl c exports under heading: its counters,
// the pages its index holds and every record in crawl order, with base
// (the site's address, which changes from run to run) cut off the URLs.
func exportCrawl(t *testing.T, out *strings.Builder, heading string, c *Crawler, base string) {
	t.Helper()
	st := c.Stats()
	indexed, err := c.Store().Indexed()
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(out, "%s: requests %d, fetched %d, unique %d, duplicates %d, skipped %d, errors %d, queued %d, scheduled %d, indexed %d\n",
		heading, st.Requests, st.Fetched, st.Unique, st.Duplicates, st.Skipped, st.Errors, st.Queued, st.Scheduled, indexed)
	cut := func(u string) string { return strings.ReplaceAll(u, base, "") }
	err = c.View().EachRecord(func(r pages.Record, _, master string) error {
		fmt.Fprintf(out, "%s %s", cut(r.URL), r.Status)
		if master != "" && master != r.URL {
			fmt.Fprintf(out, " copy of %s", cut(master))
		}
		if r.ContainedIn != "" {
			fmt.Fprintf(out, " in %s", cut(r.ContainedIn))
		}
		if r.Reason != "" {
			fmt.Fprintf(out, " (%s)", cut(r.Reason))
		}
		out.WriteString("\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
