package ranking

import (
	"context"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/doppel-search/doppel/indexer"
)

// termStats are the term statistics of the documents one user may see,
// counted as a query asks for them and remembered for the query: every
// decision a query takes from how many documents hold a word — whether
// a word counts in a relaxed query (commonShare), which words a long
// query keeps (userquery.Parser.Reduce), which languages analyze a word
// (languages.forText), the estimate of the matches (Searcher.estimate) —
// reads these, never the index-wide counts, so that a word only pages
// the user may not see hold is a word no page holds. Safe for concurrent
// use.
type termStats struct {
	s       *Searcher
	ctx     context.Context
	visible query.Query // the user's records (member records included: they hold no text)
	total   uint64      // how many, for shares

	mu     sync.Mutex
	counts map[string]uint64
	err    error // the first failed count (the context's, mostly)
}

// visibleTTL is how long the number of records a set of groups may see
// is used before it is counted again.
const visibleTTL = 5 * time.Second

// visibleTotal is a count of the records one set of groups may see.
type visibleTotal struct {
	n  uint64
	at time.Time
}

// termStats returns the term statistics of the documents a user of
// groups may see, for one query under ctx. The number of their records
// (the denominator of a share) is counted at most every visibleTTL per
// set of groups; for a user who may see every record it is the index's,
// and the shares are the index-wide ones.
func (s *Searcher) termStats(ctx context.Context, groups []string) *termStats {
	st := &termStats{s: s, ctx: ctx, visible: indexer.VisibleTo(groups), counts: map[string]uint64{}}
	key := groupsKey(groups)
	s.totalsMu.Lock()
	t, ok := s.totals[key]
	s.totalsMu.Unlock()
	if ok && time.Since(t.at) < visibleTTL {
		st.total = t.n
		return st
	}
	n, err := st.search(st.visible)
	if err != nil {
		st.err = err
		return st
	}
	st.total = n
	s.totalsMu.Lock()
	if s.totals == nil || len(s.totals) >= 1024 {
		s.totals = map[string]visibleTotal{}
	}
	s.totals[key] = visibleTotal{n: n, at: time.Now()}
	s.totalsMu.Unlock()
	return st
}

// groupsKey is a set of groups as a map key.
func groupsKey(groups []string) string {
	key := ""
	for _, g := range groups {
		key += g + "\x00"
	}
	return key
}

// search counts the user's records matching q. Cost: the posting lists
// of q and of the user's groups, walked once.
func (st *termStats) search(q query.Query) (uint64, error) {
	req := bleve.NewSearchRequestOptions(query.NewConjunctionQuery([]query.Query{q, st.visible}), 0, 0, false)
	req.Score = "none"
	res, err := st.s.ix.Search(st.ctx, req)
	if err != nil {
		return 0, err
	}
	return res.Total, nil
}

// count returns how many documents the user may see hold term in any
// text field (bleve's composite _all field); 0 if it cannot say, and
// the error is kept in err. Cost: one count search per new term.
func (st *termStats) count(term string) uint64 {
	st.mu.Lock()
	defer st.mu.Unlock()
	if n, ok := st.counts[term]; ok {
		return n
	}
	t := bleve.NewTermQuery(term)
	t.SetField(indexer.FieldAll)
	n, err := st.search(t)
	if err != nil && st.err == nil {
		st.err = err
	}
	st.counts[term] = n
	return n
}

// share returns the share of the user's records holding term (see
// indexer.Searcher.TermShares, of which it is the user's view).
func (st *termStats) share(term string) float64 {
	n := st.count(term)
	if n == 0 || st.total == 0 {
		return 0
	}
	return float64(n) / float64(st.total)
}
