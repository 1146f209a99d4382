package ranking

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/doppel-search/doppel/indexer"
)

// TestByDate: sorted by date, clusters come newest first (by their
// newest matching document), undated last; by relevance, the best match
// first.
func TestByDate(t *testing.T) {
	ix := memIndex(t, indexer.Options{Policy: indexer.All})
	ctx := context.Background()
	day := func(d int) time.Time { return time.Date(2026, 3, d, 0, 0, 0, 0, time.UTC) }
	for _, d := range []struct {
		id, cluster, master, body string
		at                        time.Time
	}{
		{"old", "c1", "old", "budget budget budget budget", day(1)},
		{"new", "c2", "new", "budget report", day(20)},
		{"undated", "c3", "undated", "budget", time.Time{}},
		{"mid", "c4", "mid", "budget plan", day(10)},
		{"mid-copy", "c4", "mid", "budget plan", day(25)}, // its copy is newest of all
	} {
		doc := indexer.Doc{ID: d.id, URL: "http://intra/" + d.id, Title: d.id, Body: d.body, LastModified: d.at}
		if err := ix.Add(ctx, doc, indexer.Placement{ID: d.id, Cluster: d.cluster, Master: d.master}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	s := New(ix, Options{})
	clusters := func(byDate bool) []string {
		res, err := s.Search(ctx, Request{Query: "budget", ByDate: byDate})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range res.Hits {
			out = append(out, h.Cluster)
		}
		return out
	}
	if got := clusters(true); !slices.Equal(got, []string{"c4", "c2", "c1", "c3"}) {
		t.Errorf("by date: %v, want c4 (its copy of the 25th), c2, c1, then the undated c3", got)
	}
	if got := clusters(false); got[0] != "c1" {
		t.Errorf("by relevance: %v, want c1 (budget four times) first", got)
	}
}

// memIndex returns an empty index in memory, closed when the test ends.
func memIndex(t *testing.T, opts indexer.Options) *indexer.Index {
	t.Helper()
	bi, err := bleve.NewMemOnly(indexer.Mapping())
	if err != nil {
		t.Fatal(err)
	}
	ix, err := indexer.Wrap(bi, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}
