package userquery

import (
	"cmp"
	"context"
	"math"
	"slices"

	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"
)

// A phraseQuery is bleve's multi-phrase query of one field (every term
// of a slot is an alternative; an empty slot is a gap, any word) with
// the same matches and the same scores, and a cheaper check of the
// words' positions. Bleve's phrase searcher turns the positions of every
// candidate document — every document holding a term of each slot, in
// the field — into a map of term to locations and walks every path
// through them recursively, comparing each location of a word with
// each of the next word's: for a pasted title of common words ("Uses of
// Class java.lang.String (Java SE 17 & JDK 17)") in the body field,
// thousands of documents with those words hundreds of times each, and
// most of a slow query's time. phraseSearcher reads a candidate's
// positions only as far as the rarest words leave a place for the phrase
// (positions), or, when the search asks for the phrases' locations,
// checks those of the candidate in one pass and a sort (matchesAt).
type phraseQuery struct {
	terms [][]string // by position; an empty slot is a gap (never the first)
	field string
	boost float64
}

// Phrase returns the query as bleve's own: what a search in another
// process is sent (package indexer/shard), which answers the same.
func (q *phraseQuery) Phrase() *query.MultiPhraseQuery {
	ph := query.NewMultiPhraseQuery(q.terms, q.field)
	ph.SetBoost(q.boost)
	return ph
}

// Searcher returns the phrase's searcher: bleve's conjunction of the
// slots' term searchers, built as bleve's phrase searcher builds it (so
// that it scores alike), with the positions checked by phraseSearcher.
// Where a search expands terms to synonyms bleve's searcher is used.
func (q *phraseQuery) Searcher(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, options bsearch.SearcherOptions) (bsearch.Searcher, error) {
	if ctx != nil && ctx.Value(bsearch.FieldTermSynonymMapKey) != nil {
		return q.Phrase().Searcher(ctx, r, m, options)
	}
	// A search that asks for locations gets those of the phrases, read
	// from the candidates (bleve's way); one that does not reads the
	// positions of a candidate's words itself, rarest word first, and
	// only as far as they leave a place for the phrase (positions).
	locations := options.IncludeTermVectors
	must, err := q.conjunction(ctx, r, options)
	if err != nil {
		return nil, err
	}
	s := &phraseSearcher{must: must, slotsOf: map[string][]int{},
		filled: make([]bool, len(q.terms)), starts: make([][]start, len(q.terms))}
	for i, alts := range q.terms {
		for _, t := range alts {
			if t != "" && !slices.Contains(s.slotsOf[t], i) {
				s.slotsOf[t] = append(s.slotsOf[t], i)
				s.filled[i] = true
			}
		}
	}
	if !locations {
		if s.pos, err = newPositions(ctx, r, q.field, q.terms); err != nil {
			_ = must.Close()
			return nil, err
		}
	}
	// As bleve's phrase searcher: its own query norm first, the query's
	// later (SetQueryNorm).
	must.SetQueryNorm(1 / math.Sqrt(must.Weight()))
	return s, nil
}

// conjunction returns the conjunction of the slots' searchers, as
// bleve's phrase searcher makes it: a term searcher for a slot of one
// term, a disjunction of them for a slot of several, nothing for a gap.
func (q *phraseQuery) conjunction(ctx context.Context, r index.IndexReader, options bsearch.SearcherOptions) (bsearch.Searcher, error) {
	var slots []bsearch.Searcher
	closeAll := func(ss []bsearch.Searcher) {
		for _, s := range ss {
			_ = s.Close()
		}
	}
	for _, alts := range q.terms {
		var ts []bsearch.Searcher
		for _, t := range alts {
			if t == "" {
				continue
			}
			s, err := searcher.NewTermSearcher(ctx, r, t, q.field, q.boost, options)
			if err != nil {
				closeAll(slots)
				closeAll(ts)
				return nil, err
			}
			ts = append(ts, s)
		}
		switch {
		case len(alts) == 1 && len(ts) == 1:
			slots = append(slots, ts[0])
		case len(alts) > 1:
			d, err := searcher.NewDisjunctionSearcher(ctx, r, ts, 1, options)
			if err != nil {
				closeAll(slots)
				return nil, err
			}
			slots = append(slots, d)
		}
	}
	must, err := searcher.NewConjunctionSearcher(ctx, r, slots, options)
	if err != nil {
		closeAll(slots)
	}
	return must, err
}

// phraseSearcher is bleve's PhraseSearcher (search/searcher/
// search_phrase.go, v2.5.7) — the same candidates, the same Next and
// Advance, the same scores — with another check of a candidate's
// positions (positions.holds; matchesAt when the search asks for the
// phrases' locations).
type phraseSearcher struct {
	must        bsearch.Searcher
	curr        *bsearch.DocumentMatch
	initialized bool
	slotsOf     map[string][]int // the slots each term fills
	filled      []bool           // by slot: not a gap
	starts      [][]start        // per slot, where a phrase would start for each location of its terms (reused)
	pos         *positions       // the words' positions, read where needed (nil: the candidates carry them)
	err         error            // the first error reading positions
}

// A start is where a phrase would start (its first slot's position) for
// one location of a slot's term, with that location's array positions.
type start struct {
	ap  bsearch.ArrayPositions
	pos int64
}

func compareStarts(a, b start) int {
	return cmp.Or(a.ap.Compare(b.ap), cmp.Compare(a.pos, b.pos))
}

// Size is bleve's memory estimate of the searcher.
func (s *phraseSearcher) Size() int {
	n := 64 + len(s.slotsOf)*32 + len(s.filled)
	if s.pos != nil {
		n += s.pos.size()
	}
	if s.curr != nil {
		n += s.curr.Size()
	}
	return n + s.must.Size()
}

// Weight is the conjunction's.
func (s *phraseSearcher) Weight() float64 { return s.must.Weight() }

// SetQueryNorm sets the conjunction's.
func (s *phraseSearcher) SetQueryNorm(qnorm float64) { s.must.SetQueryNorm(qnorm) }

// Count is the conjunction's: an upper bound.
func (s *phraseSearcher) Count() uint64 { return s.must.Count() }

// Close closes the conjunction and the readers of positions.
func (s *phraseSearcher) Close() error {
	err := s.must.Close()
	if s.pos != nil {
		err = cmp.Or(err, s.pos.close())
	}
	return err
}

// Min is 0.
func (s *phraseSearcher) Min() int { return 0 }

// DocumentMatchPoolSize counts the candidate held.
func (s *phraseSearcher) DocumentMatchPoolSize() int { return s.must.DocumentMatchPoolSize() + 1 }

func (s *phraseSearcher) advance(ctx *bsearch.SearchContext) error {
	if s.curr != nil {
		ctx.DocumentMatchPool.Put(s.curr)
	}
	var err error
	s.curr, err = s.must.Next(ctx)
	return err
}

// Next returns the next candidate holding the phrase.
func (s *phraseSearcher) Next(ctx *bsearch.SearchContext) (*bsearch.DocumentMatch, error) {
	if !s.initialized {
		if err := s.advance(ctx); err != nil {
			return nil, err
		}
		s.initialized = true
	}
	for s.curr != nil {
		var rv *bsearch.DocumentMatch
		if s.matches(s.curr) {
			rv, s.curr = s.curr, nil
		}
		if err := s.advance(ctx); err != nil {
			return nil, err
		}
		if s.err != nil {
			return nil, s.err
		}
		if rv != nil {
			return rv, nil
		}
	}
	return nil, nil
}

// matches reports whether the candidate dm holds the phrase.
func (s *phraseSearcher) matches(dm *bsearch.DocumentMatch) bool {
	if s.pos == nil {
		return s.matchesAt(dm)
	}
	ok, err := s.pos.holds(dm.IndexInternalID)
	if err != nil && s.err == nil {
		s.err = err
	}
	return ok
}

// Advance returns the first candidate at or after id holding the phrase
// (bleve's, quirks and all: a held candidate at or after id is checked
// as Next checks it).
func (s *phraseSearcher) Advance(ctx *bsearch.SearchContext, id index.IndexInternalID) (*bsearch.DocumentMatch, error) {
	if !s.initialized {
		if err := s.advance(ctx); err != nil {
			return nil, err
		}
		s.initialized = true
	}
	if s.curr != nil {
		if s.curr.IndexInternalID.Compare(id) >= 0 {
			return s.Next(ctx)
		}
		ctx.DocumentMatchPool.Put(s.curr)
	}
	if s.curr == nil {
		return nil, nil
	}
	var err error
	if s.curr, err = s.must.Advance(ctx, id); err != nil {
		return nil, err
	}
	return s.Next(ctx)
}

// matchesAt reports whether the candidate dm holds the phrase: some
// position p (with some array positions) where every slot that is not a
// gap has one of its terms at p plus the slot's place — as bleve's
// findPhrasePaths decides with no slop. Each location of a slot's term
// names the start it would fill; a start every slot names is a phrase.
// A match keeps the locations of its phrases (the search asked for
// them). Cost: O(L log L) for the L locations of the phrase's terms in
// dm.
func (s *phraseSearcher) matchesAt(dm *bsearch.DocumentMatch) bool {
	for i := range s.starts {
		s.starts[i] = s.starts[i][:0]
	}
	for _, l := range dm.FieldTermLocations {
		for _, i := range s.slotsOf[l.Term] {
			if p := int64(l.Location.Pos) - int64(i); p >= 1 {
				s.starts[i] = append(s.starts[i], start{ap: l.Location.ArrayPositions, pos: p})
			}
		}
	}
	var fewest []start
	for i, st := range s.starts {
		if !s.filled[i] {
			continue
		}
		if len(st) == 0 {
			return false // a slot none of whose terms is in a place
		}
		slices.SortFunc(st, compareStarts)
		if fewest == nil || len(st) < len(fewest) {
			fewest = st
		}
	}
	if fewest == nil {
		return false
	}
	var found []start
	for _, c := range fewest {
		if len(found) > 0 && compareStarts(found[len(found)-1], c) == 0 {
			continue
		}
		if s.everySlot(c) {
			found = append(found, c)
		}
	}
	if len(found) == 0 {
		return false
	}
	s.keepLocations(dm, found)
	return true
}

// everySlot reports whether every slot that is not a gap names the
// start c.
func (s *phraseSearcher) everySlot(c start) bool {
	for i, st := range s.starts {
		if !s.filled[i] {
			continue
		}
		if _, ok := slices.BinarySearchFunc(st, c, compareStarts); !ok {
			return false
		}
	}
	return true
}

// keepLocations leaves dm the locations of its phrases (found, sorted).
func (s *phraseSearcher) keepLocations(dm *bsearch.DocumentMatch, found []start) {
	kept := dm.FieldTermLocations[:0]
	for _, l := range dm.FieldTermLocations {
		for _, i := range s.slotsOf[l.Term] {
			c := start{ap: l.Location.ArrayPositions, pos: int64(l.Location.Pos) - int64(i)}
			if _, ok := slices.BinarySearchFunc(found, c, compareStarts); ok {
				kept = append(kept, l)
				break
			}
		}
	}
	dm.FieldTermLocations = kept
}
