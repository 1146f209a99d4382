package indexer

import (
	"context"
	"maps"
	"slices"

	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"
)

// GuardShould returns q with the optional clause (Should) of every
// boolean query in it that also has required clauses (Must) guarded
// against a defect of bleve's boolean searcher, which loses matches of
// that clause; q itself if it has none. The boolean, conjunction and
// disjunction queries on the way are copied, never changed. [Index.Search]
// applies it to every search, and so does a sharded index (package
// indexer/shard) to the searches of its shards.
//
// The defect (bleve v2.5.7, search/searcher/search_boolean.go,
// BooleanSearcher.Advance: "s.currShould, err =
// s.shouldSearcher.Advance(ctx, ID)",
// https://github.com/blevesearch/bleve/blob/v2.5.7/search/searcher/search_boolean.go#L366):
// when a boolean searcher is advanced — by a conjunction it is part of,
// such as a query and the user's access filter — to an id past its
// current candidate, it advances its Should searcher to that id even
// when that searcher's current match lies beyond the id. The match
// the Should searcher holds is dropped, and a disjunction (what a query
// string's optional words are) has already moved past it, so it
// answers with its next match: the document at the dropped match
// matches without its optional words — scored as if it held none of
// them, its locations (the snippet's marked words) missing. Which
// documents lose their optional words depends on the order of the
// documents in the index, which differs from one build of the same
// documents to the next (the order of a batch's documents is a map's):
// a hit of "+apple river^2 -zebra" fell off the first page of one
// index in about one build in seven, where four shards of the same
// documents kept it (the equivalence test of package indexer/shard).
// Bleve guards the prohibited clause (MustNot) so, not the optional
// one. A guarded Should clause's searcher is never moved back past a
// match it returned: advanced to an id at or before that match, it
// answers that match again, which is the first at or after the id.
func GuardShould(q query.Query) query.Query {
	g, _ := guard(q)
	return g
}

// guard returns GuardShould(q) and whether it differs from q.
func guard(q query.Query) (query.Query, bool) {
	switch q := q.(type) {
	case *query.BooleanQuery:
		c, changed := *q, false
		for _, p := range []*query.Query{&c.Must, &c.Should, &c.MustNot, &c.Filter} {
			if *p == nil {
				continue
			}
			if g, ch := guard(*p); ch {
				*p, changed = g, true
			}
		}
		if c.Must != nil && c.Should != nil {
			c.Should, changed = shouldGuard{c.Should}, true
		}
		if changed {
			return &c, true
		}
	case *query.ConjunctionQuery:
		if qs, ok := guardAll(q.Conjuncts); ok {
			c := *q
			c.Conjuncts = qs
			return &c, true
		}
	case *query.DisjunctionQuery:
		if qs, ok := guardAll(q.Disjuncts); ok {
			c := *q
			c.Disjuncts = qs
			return &c, true
		}
	}
	return q, false
}

// guardAll is guard for each of qs, into a new slice if one changed.
func guardAll(qs []query.Query) ([]query.Query, bool) {
	var out []query.Query
	for i, q := range qs {
		g, ch := guard(q)
		if ch && out == nil {
			out = slices.Clone(qs)
		}
		if out != nil {
			out[i] = g
		}
	}
	return out, out != nil
}

// shouldGuard is the Should clause of a boolean query, searched by a
// guardedSearcher.
type shouldGuard struct{ query.Query }

// Searcher returns the clause's searcher, guarded (a searcher matching
// nothing as it is: bleve's boolean query drops it).
func (g shouldGuard) Searcher(ctx context.Context, i index.IndexReader, m mapping.IndexMapping, options bsearch.SearcherOptions) (bsearch.Searcher, error) {
	s, err := g.Query.Searcher(ctx, i, m, options)
	if err != nil {
		return nil, err
	}
	if _, none := s.(*searcher.MatchNoneSearcher); none {
		return s, nil
	}
	return &guardedSearcher{Searcher: s}, nil
}

// A guardedSearcher is a searcher that keeps a copy of the match it
// returned last, and answers an Advance to an id at or before that
// match with the copy, instead of moving past it.
type guardedSearcher struct {
	bsearch.Searcher
	last *bsearch.DocumentMatch // a copy of the last match returned; nil if none
}

// Next returns the searcher's next match.
func (g *guardedSearcher) Next(ctx *bsearch.SearchContext) (*bsearch.DocumentMatch, error) {
	dm, err := g.Searcher.Next(ctx)
	g.keep(dm)
	return dm, err
}

// Advance returns the first match at or after id: the last one returned
// if it is (the searcher has moved past it), else the searcher's.
func (g *guardedSearcher) Advance(ctx *bsearch.SearchContext, id index.IndexInternalID) (*bsearch.DocumentMatch, error) {
	if g.last != nil && g.last.IndexInternalID.Compare(id) >= 0 {
		dm := ctx.DocumentMatchPool.Get()
		copyMatch(dm, g.last)
		return dm, nil
	}
	dm, err := g.Searcher.Advance(ctx, id)
	g.keep(dm)
	return dm, err
}

// DocumentMatchPoolSize counts the copy returned.
func (g *guardedSearcher) DocumentMatchPoolSize() int { return g.Searcher.DocumentMatchPoolSize() + 1 }

// keep copies dm (nil: forgets the last match).
func (g *guardedSearcher) keep(dm *bsearch.DocumentMatch) {
	if dm == nil {
		g.last = nil
		return
	}
	if g.last == nil {
		g.last = &bsearch.DocumentMatch{}
	}
	copyMatch(g.last.Reset(), dm)
}

// copyMatch copies what a searcher sets of a match — its document, score,
// explanation, term locations and score breakdown — from src into dst
// (reset), sharing no slice or map that src's reuse would change.
func copyMatch(dst, src *bsearch.DocumentMatch) {
	dst.IndexInternalID = append(dst.IndexInternalID[:0], src.IndexInternalID...)
	dst.ID = src.ID
	dst.Score = src.Score
	dst.Expl = src.Expl
	dst.FieldTermLocations = append(dst.FieldTermLocations[:0], src.FieldTermLocations...)
	for i := range dst.FieldTermLocations {
		l := &dst.FieldTermLocations[i].Location
		l.ArrayPositions = slices.Clone(l.ArrayPositions)
	}
	if src.ScoreBreakdown != nil {
		dst.ScoreBreakdown = maps.Clone(src.ScoreBreakdown)
	}
}
