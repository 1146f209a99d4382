package ranking

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/doppel-search/doppel/indexer"
)

// TestTopIsBleveSort: the collector keeps the hits bleve's sort by
// score, id and doc values keeps, in its order, with the same keys, for
// any window — on random corpora under every policy, for random users and
// words, and for match-all queries, whose scores all tie.
func TestTopIsBleveSort(t *testing.T) {
	for _, stored := range []bool{false, true} {
		if stored {
			defer func(v uint64, n int) { sparseHits, minStored = v, n }(sparseHits, minStored)
			sparseHits, minStored = 1<<40, 1 // every hit is sparse: facet values from stored fields
		}
		for _, policy := range []indexer.Policy{indexer.Skip, indexer.Hidden, indexer.All} {
			t.Run(fmt.Sprintf("%v/stored=%v", policy, stored), func(t *testing.T) { testTopIsBleveSort(t, policy) })
		}
	}
}

// testTopIsBleveSort is TestTopIsBleveSort on one policy's random
// corpus; it also checks the clusters counted as the matches come.
func testTopIsBleveSort(t *testing.T, policy indexer.Policy) {
	r := rand.New(rand.NewPCG(11, uint64(policy)))
	c := newCorpus(t, r, policy, 60)
	s := New(c.ix, Options{})
	ctx := context.Background()
	for i := range 60 {
		user := randomGroups(r)
		q := vocab[r.IntN(len(vocab))]
		if i%5 == 0 {
			q = ""
		}
		cq, err := s.compile(context.Background(), q, Plain, nil)
		if err != nil {
			t.Fatal(err)
		}
		fq := s.filtered(cq.text, Request{Groups: user})
		window := 1 + r.IntN(40)
		withValues := r.IntN(2) == 0
		got, err := s.top(ctx, fq, window, withValues, 0)
		if err != nil {
			t.Fatal(err)
		}
		want, err := s.candidates(ctx, fq, window, false, false, withValues)
		if err != nil {
			t.Fatal(err)
		}
		if got.total != want.Total || len(got.hits) != len(want.Hits) {
			t.Fatalf("q=%q window %d: %d hits of %d, bleve %d of %d", q, window, len(got.hits), got.total, len(want.Hits), want.Total)
		}
		for j := range got.hits {
			g, w := got.hits[j], want.Hits[j]
			if g.ID != w.ID || g.Score != w.Score || !slices.Equal(g.Sort[1:], w.Sort[1:]) {
				t.Fatalf("q=%q window %d, hit %d: %s %v %q, bleve %s %v %q", q, window, j, g.ID, g.Score, g.Sort, w.ID, w.Score, w.Sort)
			}
		}
		// The clusters of every match, counted as they come.
		all, err := s.candidates(ctx, fq, 1000, false, false, false)
		if err != nil {
			t.Fatal(err)
		}
		distinct := map[string]bool{}
		for _, h := range all.Hits {
			distinct[h.Sort[2]] = true
		}
		for _, n := range []int{int(all.Total), int(all.Total) + 5, int(all.Total) - 1} {
			counted, err := s.top(ctx, fq, window, false, n)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case n >= int(all.Total) && n > 0 && counted.clusters != len(distinct):
				t.Fatalf("q=%q, counting %d of %d matches: %d clusters, want %d", q, n, all.Total, counted.clusters, len(distinct))
			case n < int(all.Total) && counted.clusters != -1:
				t.Fatalf("q=%q, counting %d of %d matches: %d clusters, want -1", q, n, all.Total, counted.clusters)
			}
		}
	}
}

// TestTopWithoutCollector: an index that ignores the collector (not
// bleve's) gives errNoCollector, and searches fall back to bleve's sort.
func TestTopWithoutCollector(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 1))
	c := newCorpus(t, r, indexer.Skip, 20)
	s := New(ignoring{c.ix}, Options{})
	if _, err := s.top(context.Background(), s.filtered(s.mustCompile(t, vocab[0]), Request{}), 10, false, 0); !errors.Is(err, errNoCollector) {
		t.Fatalf("top: %v, want errNoCollector", err)
	}
	for _, facets := range []bool{false, true} {
		want, err := New(c.ix, Options{}).Search(context.Background(), Request{Query: vocab[0], Facets: facets})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Search(context.Background(), Request{Query: vocab[0], Facets: facets})
		if err != nil {
			t.Fatal(err)
		}
		if got.Total != want.Total || got.Exact != want.Exact || len(got.Hits) != len(want.Hits) {
			t.Fatalf("facets %v: %d (%v) %d hits, want %d (%v) %d", facets, got.Total, got.Exact, len(got.Hits), want.Total, want.Exact, len(want.Hits))
		}
		for i := range got.Hits {
			if got.Hits[i].ID != want.Hits[i].ID {
				t.Errorf("facets %v, hit %d: %s, want %s", facets, i, got.Hits[i].ID, want.Hits[i].ID)
			}
		}
	}
}

// ignoring searches without the collector, as an index that is not
// bleve's would.
type ignoring struct{ *indexer.Index }

func (x ignoring) Search(ctx context.Context, req *bleve.SearchRequest) (*bleve.SearchResult, error) {
	return x.Index.Search(context.WithValue(ctx, search.MakeDocumentMatchHandlerKey, nil), req)
}

func (s *Searcher) mustCompile(t *testing.T, q string) query.Query {
	t.Helper()
	cq, err := s.compile(context.Background(), q, Plain, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cq.text
}

// TestExists stops at the first match, and works on an index that
// ignores the collector.
func TestExists(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 1))
	c := newCorpus(t, r, indexer.Skip, 20)
	ctx := context.Background()
	for _, s := range []*Searcher{New(c.ix, Options{}), New(ignoring{c.ix}, Options{})} {
		for q, want := range map[string]bool{vocab[0]: true, "nowhere": false} {
			got, err := s.exists(ctx, s.filtered(s.mustCompile(t, q), Request{Groups: allGroups}))
			if err != nil || got != want {
				t.Errorf("exists(%q) = %v, %v; want %v", q, got, err, want)
			}
		}
	}
}
