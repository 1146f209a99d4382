package ranking

import (
	"context"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
)

// representatives returns the id that stands for each cluster of page:
// its master unless a member matches distinctly better
// (rep.representative), or unless the best hit is a member that holds
// the query's plain words as typed (compiled.phrase: a pasted line) and
// the master does not. A master that matches a line nearly as well as
// the member that has it — a signature differing in a word or two —
// would otherwise stand for the cluster without holding the line. Cost:
// one search over the ids of such pairs, none when the page has none.
func (s *Searcher) representatives(ctx context.Context, page []string, best map[string]*rep, cq compiled) ([]string, error) {
	ids := make([]string, len(page))
	var pairs []string // the best hit and master of clusters the master stands for by score
	for i, c := range page {
		b := best[c]
		ids[i] = b.representative(s.opts.Promote)
		if cq.phrase != nil && ids[i] != b.id {
			pairs = append(pairs, b.id, b.master)
		}
	}
	if len(pairs) == 0 {
		return ids, nil
	}
	held, err := s.holding(ctx, cq.phrase, pairs)
	if err != nil {
		return nil, err
	}
	for i, c := range page {
		if b := best[c]; ids[i] != b.id && held[b.id] && !held[b.master] {
			ids[i] = b.id
		}
	}
	return ids, nil
}

// holding returns which documents of ids match q.
func (s *Searcher) holding(ctx context.Context, q query.Query, ids []string) (map[string]bool, error) {
	req := bleve.NewSearchRequestOptions(query.NewConjunctionQuery([]query.Query{bleve.NewDocIDQuery(ids), q}), len(ids), 0, false)
	res, err := s.ix.Search(ctx, req)
	if err != nil {
		return nil, s.searchError(ctx, err, false)
	}
	out := make(map[string]bool, len(res.Hits))
	for _, h := range res.Hits {
		out[h.ID] = true
	}
	return out, nil
}
