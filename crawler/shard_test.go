package crawler

import (
	"context"
	"errors"
	"testing"

	"github.com/doppel-search/doppel/indexer/shard"
	"github.com/doppel-search/doppel/internal/demosite"
	"github.com/doppel-search/doppel/ranking"
)

// TestShardedCrawl crawls the demo site into one index and into four
// shards: the same records, clusters and searchable pages; the sharded
// crawl is searched, resumes with its shards, refuses another count, and
// its View counts and lists what the shards hold.
func TestShardedCrawl(t *testing.T) {
	s := newSite(t, demosite.Handler())
	plain := crawledDemo(t) // the same site crawled into one index
	dir := t.TempDir()
	opts := testOptions(s.URL + "/")
	opts.Shards = 4
	sharded := crawl(t, dir, opts)
	if sharded.Index() != nil {
		t.Fatal("Index() of a sharded crawl is not nil")
	}
	if _, ok := sharded.Store().(*shard.Index); !ok {
		t.Fatalf("Store() is a %T", sharded.Store())
	}
	want, got := plain.want, outcomeOf(t, sharded).withHost(s.URL, plain.site.URL)
	if d := want.diff(got); d != "" {
		t.Errorf("the sharded crawl differs:\n%s", d)
	}
	// The pages' texts may differ between two crawls (a site template
	// is stripped once enough pages are seen to share it, in the order
	// the crawl happens to take): package indexer/shard's tests show
	// the same documents searched alike; here, the sharded crawl is
	// searched through ranking.
	ctx := context.Background()
	for _, q := range []string{"vacation policy", "printer", "vpn"} {
		res, err := ranking.New(sharded.Store(), ranking.Options{}).Search(ctx, ranking.Request{Query: q, Facets: true, Members: 2})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 || res.Facets == nil {
			t.Errorf("%q: %d hits, facets %v", q, len(res.Hits), res.Facets)
		}
	}
	sharded.Close()

	resume := testOptions("")
	resume.Seeds = nil
	resume.Shards = 2
	if _, err := Open(dir, resume); !errors.Is(err, shard.ErrShardCount) {
		t.Errorf("resuming with 2 shards: %v, want ErrShardCount", err)
	}
	resume.Shards = 0
	c, err := Open(dir, resume)
	if err != nil {
		t.Fatal(err)
	}
	if st, ok := c.Store().(*shard.Index); !ok || st.Shards() != 4 {
		t.Errorf("resumed Store() %T", c.Store())
	}
	c.Close()

	v, err := OpenView(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	sum, err := v.Summary()
	if err != nil {
		t.Fatal(err)
	}
	if n, err := v.Store().SearchableCount(); err != nil || sum.Searchable != n || n == 0 || sum.Indexed < n {
		t.Errorf("Summary: %d searchable, %d indexed; the store says %d (%v)", sum.Searchable, sum.Indexed, n, err)
	}
	entries := 0
	if err := v.Entries(func(e Entry) error {
		if e.Status == "fetched" && e.Indexed {
			entries++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if entries != sum.Indexed {
		t.Errorf("%d entries indexed, %d documents", entries, sum.Indexed)
	}
}
