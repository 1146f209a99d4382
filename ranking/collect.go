package ranking

import (
	"cmp"
	"container/heap"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/doppel-search/doppel/indexer"
)

// A collector keeps the best hits of one search by score, and reads the
// sort keys — the document id, and the doc values a result page groups
// and counts by — of those it keeps only, once the search is done. Bleve's
// own collector, asked to sort by score, id and doc values, reads them
// for every matching document: on an index of a million pages a query
// matching most of them spends seconds there, for the few thousand hits
// collapsing reads. It plugs into the search through bleve's
// search.MakeDocumentMatchHandlerKey, so it sees the index snapshot the
// search reads.
type collector struct {
	limit int              // hits kept
	scan  uint64           // matches scored before the search stops (0: all)
	order search.SortOrder // the keys read for them: score, id, then doc values
	// clusters, if above 0: the clusters of the first this many matches
	// are read as they come (doc values, in index order), so that a
	// search matching no more has their exact number (ranked.clusters).
	clusters uint64

	mu     sync.Mutex
	shards []*shardHits // one per index searched (an alias searches several)
}

// shardHits are the hits one index's search kept.
type shardHits struct {
	hits     []*search.DocumentMatch
	total    uint64
	err      error
	capped   bool                // stopped after scan matches
	clusters map[string]struct{} // of the first collector.clusters matches
}

// A hitHeap holds the kept hits, the worst on top: lower score, or the
// same score and later in the index (as bleve breaks ties of score).
type hitHeap []*search.DocumentMatch

func (h hitHeap) Len() int { return len(h) }
func (h hitHeap) Less(i, j int) bool {
	if h[i].Score != h[j].Score {
		return h[i].Score < h[j].Score
	}
	return h[i].HitNumber > h[j].HitNumber
}
func (h hitHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)   { *h = append(*h, x.(*search.DocumentMatch)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// worse reports whether a is worse than b, as hitHeap orders them.
func worse(a, b *search.DocumentMatch) bool {
	return a.Score < b.Score || a.Score == b.Score && a.HitNumber > b.HitNumber
}

// make is a search.MakeDocumentMatchHandler: a handler for one index's
// search, keeping its best c.limit hits and reading their keys at the end
// (a nil hit), while the reader is open.
func (c *collector) make(sctx *search.SearchContext) (search.DocumentMatchHandler, bool, error) {
	sh := &shardHits{}
	c.mu.Lock()
	c.shards = append(c.shards, sh)
	c.mu.Unlock()
	kept := hitHeap{}
	var count func(d *search.DocumentMatch) error
	if c.clusters > 0 {
		dvr, err := sctx.IndexReader.DocValueReader([]string{indexer.FieldCluster})
		if err != nil {
			return nil, false, err
		}
		sh.clusters = map[string]struct{}{}
		var cluster string
		visit := func(_ string, term []byte) { cluster = string(term) }
		count = func(d *search.DocumentMatch) error {
			cluster = ""
			if err := dvr.VisitDocValues(d.IndexInternalID, visit); err != nil {
				return err
			}
			if cluster == "" {
				cluster = "doc:" + string(d.IndexInternalID) // a document outside clusters counts alone
			}
			sh.clusters[cluster] = struct{}{}
			return nil
		}
	}
	return func(d *search.DocumentMatch) error {
		if d == nil {
			sh.hits, sh.err = c.keys(sctx.IndexReader, kept)
			return sh.err
		}
		sh.total++
		if count != nil && sh.total <= c.clusters {
			if err := count(d); err != nil {
				return err
			}
		}
		switch {
		case len(kept) < c.limit:
			heap.Push(&kept, d)
		case c.limit > 0 && worse(kept[0], d):
			sctx.DocumentMatchPool.Put(kept[0])
			kept[0] = d
			heap.Fix(&kept, 0)
		default:
			sctx.DocumentMatchPool.Put(d)
		}
		if c.scan > 0 && sh.total >= c.scan {
			sh.hits, sh.err = c.keys(sctx.IndexReader, kept)
			sh.capped = true
			return errScanned
		}
		return nil
	}, false, nil
}

// keys reads the id and sort keys of the hits kept, from reader: from
// doc values, unless the keys are many (the facet values) and the hits
// many (at least minStored) but sparse in the index (fewer than one in
// sparseHits documents, so that they share no compressed chunk of
// values) and the index is scorch's: then from their stored fields (one
// decompression a document, where each of the seven values would cost a
// chunk; on an index of a million pages, a faceted page's 2,000
// candidates take 10 ms instead of 60).
func (c *collector) keys(reader index.IndexReader, kept hitHeap) ([]*search.DocumentMatch, error) {
	if len(kept) == 0 {
		return nil, nil
	}
	docs, err := reader.DocCount()
	if err != nil {
		return nil, err
	}
	order := c.order.Copy()
	// In index order: stored fields and doc values are read from
	// compressed blocks, which the reader keeps while the next document
	// is in the same one.
	out := slices.Clone(kept)
	slices.SortFunc(out, func(a, b *search.DocumentMatch) int { return a.IndexInternalID.Compare(b.IndexInternalID) })
	if sr := indexer.NewStoredReader(reader); sr != nil && len(order) > 4 && len(out) >= minStored && uint64(len(out))*sparseHits < docs {
		need := map[string]bool{}
		for _, f := range order.RequiredFields() {
			need[f] = true
		}
		for _, d := range out {
			found, err := sr.Visit(d.IndexInternalID, func(field string, value []byte) {
				switch {
				case field == "_id":
					d.ID = string(value)
				case need[field]:
					order.UpdateVisitor(field, value)
				}
			})
			if err != nil {
				return nil, err
			}
			if !found {
				return nil, fmt.Errorf("ranking: document %v vanished during its search", d.IndexInternalID)
			}
			d.Sort, d.DecodedSort = d.Sort[:0], d.DecodedSort[:0]
			order.Value(d)
		}
		return out, nil
	}
	dvr, err := reader.DocValueReader(order.RequiredFields())
	if err != nil {
		return nil, err
	}
	for _, d := range out {
		if d.ID, err = reader.ExternalID(d.IndexInternalID); err != nil {
			return nil, err
		}
		if err := dvr.VisitDocValues(d.IndexInternalID, order.UpdateVisitor); err != nil {
			return nil, err
		}
		d.Sort, d.DecodedSort = d.Sort[:0], d.DecodedSort[:0]
		order.Value(d)
	}
	return out, nil
}

// sparseHits: hits kept fewer than one in this many documents of the
// index have their keys read from their stored fields (a variable for
// the tests).
var sparseHits uint64 = 512

// minStored is the fewest hits whose keys are read from stored fields (a
// variable for the tests).
var minStored = 256

// ranked are the best hits of a search, by score and id, and how many
// documents matched — or, if capped, were scored before the search
// stopped at Options.MaxScan; clusters is the number of distinct
// clusters among the matches when they were counted (top's clusters
// argument) and no more documents matched, else -1.
type ranked struct {
	hits     []*search.DocumentMatch
	total    uint64
	capped   bool
	clusters int
	// set holds the distinct clusters when clusters is not -1.
	set map[string]struct{}
	// counted is the number of distinct clusters of the first matches
	// counted (top's clusters argument), all of them or not.
	counted int
}

// errScanned stops a search at Options.MaxScan matches.
var errScanned = errors.New("ranking: scanned enough matches")

// errNoCollector: the index searched did not take the collector (an
// implementation that is not bleve's).
var errNoCollector = errors.New("ranking: the index ignored the collector")

// top runs q and returns its best limit hits by score (ties by id), each
// with the sort keys of candidates (score, id, cluster, master flag, and,
// if withValues, the facet values), reading the keys of those hits only;
// it stops after Options.MaxScan matches, with the best of them. With
// clusters above 0 it counts the distinct clusters of the matches, if
// there are at most that many (ranked.clusters). It returns
// errNoCollector when the index does not take the collector.
func (s *Searcher) top(ctx context.Context, q query.Query, limit int, withValues bool, clusters int) (ranked, error) {
	order := search.SortOrder{&search.SortScore{Desc: true}, &search.SortDocID{},
		&search.SortField{Field: indexer.FieldCluster}, &search.SortField{Field: indexer.FieldMaster}}
	if withValues {
		order = append(order, facetKeys()...)
	}
	c := &collector{limit: limit, order: order, scan: uint64(max(s.opts.MaxScan, 0)), clusters: uint64(max(clusters, 0))}
	req := bleve.NewSearchRequestOptions(q, limit, 0, false) // sorted by score alone: no doc values read per hit
	res, err := s.ix.Search(context.WithValue(ctx, search.MakeDocumentMatchHandlerKey, search.MakeDocumentMatchHandler(c.make)), req)
	if err != nil && !errors.Is(err, errScanned) {
		return ranked{}, s.searchError(ctx, err, true)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.shards) == 0 && res != nil && res.Total > 0 {
		return ranked{}, errNoCollector
	}
	out := ranked{clusters: -1}
	distinct := map[string]struct{}{}
	for _, sh := range c.shards {
		if sh.err != nil {
			return ranked{}, s.searchError(ctx, sh.err, false)
		}
		out.hits = append(out.hits, sh.hits...)
		out.total += sh.total
		out.capped = out.capped || sh.capped
		for k := range sh.clusters {
			distinct[k] = struct{}{}
		}
	}
	out.counted = len(distinct)
	if c.clusters > 0 && out.total <= c.clusters && !out.capped {
		out.clusters, out.set = len(distinct), distinct
	}
	slices.SortFunc(out.hits, func(a, b *search.DocumentMatch) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), strings.Compare(a.ID, b.ID))
	})
	out.hits = out.hits[:min(len(out.hits), limit)]
	return out, nil
}

// exists reports whether q matches a document, stopping at the first
// match (a search counts every match otherwise).
func (s *Searcher) exists(ctx context.Context, q query.Query) (bool, error) {
	found := false
	first := search.MakeDocumentMatchHandler(func(sctx *search.SearchContext) (search.DocumentMatchHandler, bool, error) {
		return func(d *search.DocumentMatch) error {
			if d == nil {
				return nil
			}
			found = true
			return errScanned
		}, false, nil
	})
	res, err := s.ix.Search(context.WithValue(ctx, search.MakeDocumentMatchHandlerKey, first), bleve.NewSearchRequestOptions(q, 1, 0, false))
	switch {
	case errors.Is(err, errScanned):
		return true, nil
	case err != nil:
		return false, s.searchError(ctx, err, false)
	}
	return found || res.Total > 0, nil
}

// clustersUpTo counts the distinct clusters of q's matches, stopping once
// it has found limit of them, and returns that count (at most limit) and
// the matches read. An index that does not take the collector is counted
// with a facet over the cluster field.
func (s *Searcher) clustersUpTo(ctx context.Context, q query.Query, limit int) (clusters, docs int, err error) {
	var mu sync.Mutex
	distinct := map[string]struct{}{}
	called := false
	count := search.MakeDocumentMatchHandler(func(sctx *search.SearchContext) (search.DocumentMatchHandler, bool, error) {
		dvr, err := sctx.IndexReader.DocValueReader([]string{indexer.FieldCluster})
		if err != nil {
			return nil, false, err
		}
		var cluster string
		visit := func(_ string, term []byte) { cluster = string(term) }
		mu.Lock()
		called = true
		mu.Unlock()
		return func(d *search.DocumentMatch) error {
			if d == nil {
				return nil
			}
			cluster = ""
			if err := dvr.VisitDocValues(d.IndexInternalID, visit); err != nil {
				return err
			}
			if cluster == "" {
				cluster = "doc:" + string(d.IndexInternalID)
			}
			sctx.DocumentMatchPool.Put(d)
			mu.Lock()
			defer mu.Unlock()
			docs++
			distinct[cluster] = struct{}{}
			if len(distinct) >= limit {
				return errScanned
			}
			return nil
		}, false, nil
	})
	res, err := s.ix.Search(context.WithValue(ctx, search.MakeDocumentMatchHandlerKey, count), bleve.NewSearchRequestOptions(q, 0, 0, false))
	switch {
	case errors.Is(err, errScanned):
		return limit, docs, nil
	case err != nil:
		return 0, 0, s.searchError(ctx, err, false)
	case called || res.Total == 0:
		return len(distinct), docs, nil
	}
	// An index that ignored the collector.
	req := bleve.NewSearchRequestOptions(q, 0, 0, false)
	req.AddFacet("clusters", bleve.NewFacetRequest(indexer.FieldCluster, s.opts.MaxCandidates))
	if res, err = s.ix.Search(ctx, req); err != nil {
		return 0, 0, s.searchError(ctx, err, false)
	}
	n, _ := total(res)
	return min(n, limit), int(res.Total), nil
}
