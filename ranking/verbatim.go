package ranking

import (
	"context"
	"slices"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
)

// maxVerbatim is how many hits of a cluster besides its master are
// checked for holding a pasted line (rep.members).
const maxVerbatim = 3

// representatives returns the id that stands for each cluster of page:
// its master unless a member matches distinctly better
// (rep.representative), or unless a member among the hits holds the
// query's plain words as typed (compiled.phrase: a pasted line) and the
// master does not — then the best such member. A master that matches a
// line nearly as well as, or better than, the member that has it (a
// signature differing in a word or two) would otherwise stand for the
// cluster without holding the line. Cost: one search over the ids of
// such clusters' hits, none when the page has none.
func (s *Searcher) representatives(ctx context.Context, page []string, best map[string]*rep, cq compiled) ([]string, error) {
	ids := make([]string, len(page))
	var check []string // the master and members of clusters the master stands for
	for i, c := range page {
		b := best[c]
		ids[i] = b.representative(s.opts.Promote)
		if cq.phrase != nil && ids[i] == b.master && len(b.members) > 0 {
			check = append(append(check, b.master), b.members...)
		}
	}
	if len(check) == 0 {
		return ids, nil
	}
	held, err := s.holding(ctx, cq.phrase, check)
	if err != nil {
		return nil, err
	}
	for i, c := range page {
		b := best[c]
		if ids[i] != b.master || held[b.master] {
			continue
		}
		if j := slices.IndexFunc(b.members, func(id string) bool { return held[id] }); j >= 0 {
			ids[i] = b.members[j]
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
