package ranking

import (
	"context"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/ranking/multiterm"
)

// termStats are the term statistics of the documents one user may see,
// counted as a query asks for them and remembered for the query: every
// decision a query takes from how many documents hold a word — whether
// a word counts in a relaxed query (commonShare), which words a long
// query keeps (userquery.Parser.Reduce), which languages analyze a word
// (languages.forText), the estimate of the matches (Searcher.estimate) —
// reads these, never the index-wide counts, so that a word only pages
// the user may not see hold is a word no page holds. On an index that
// gives them (indexer.Index.VisibleStats: a scorch index) they are read
// from the posting lists of one snapshot, else counted with searches.
// Safe for concurrent use; close releases them.
type termStats struct {
	s       *Searcher
	ctx     context.Context
	visible query.Query           // the user's records (member records included: they hold no text)
	total   uint64                // how many, for shares
	all     bool                  // the user may see every record: the index's statistics are theirs
	vs      *indexer.VisibleStats // the counts from posting lists, if the index gives them

	mu     sync.Mutex
	counts map[string]uint64
	err    error // the first failed count (the context's, mostly)
}

// A visibleStatser is an index that reads a user's term statistics from
// its posting lists ([*indexer.Index]); nil statistics mean it cannot.
type visibleStatser interface {
	VisibleStats(groups []string) (*indexer.VisibleStats, error)
}

// visibleTTL is how long the number of records a set of groups may see
// is used before it is counted again, on an index that does not give
// its statistics (visibleStatser).
const visibleTTL = 5 * time.Second

// visibleTotal is a count of the records one set of groups may see.
type visibleTotal struct {
	n   uint64
	all bool // n is every record of the index
	at  time.Time
}

// termStats returns the term statistics of the documents a user of
// groups may see, for one query under ctx; close them when it is done.
// From an index's posting lists they are those of one snapshot of it.
// Counted with searches, the number of their records (the denominator
// of a share) is counted at most every visibleTTL per set of groups. For
// a user who may see every record it is the index's, and the shares are
// the index-wide ones.
func (s *Searcher) termStats(ctx context.Context, groups []string) *termStats {
	st := &termStats{s: s, ctx: ctx, visible: indexer.VisibleTo(groups), counts: map[string]uint64{}}
	if vi, ok := s.ix.(visibleStatser); ok {
		vs, err := vi.VisibleStats(groups)
		switch {
		case err != nil:
			st.err = err
			return st
		case vs != nil:
			st.vs, st.total, st.all = vs, vs.Total(), vs.All()
			return st
		}
	}
	key := groupsKey(groups)
	s.totalsMu.Lock()
	t, ok := s.totals[key]
	s.totalsMu.Unlock()
	if ok && time.Since(t.at) < visibleTTL {
		st.total, st.all = t.n, t.all
		return st
	}
	n, err := st.search(st.visible)
	if err != nil {
		st.err = err
		return st
	}
	st.total = n
	if dc, ok := s.ix.(interface{ DocCount() (uint64, error) }); ok {
		all, err := dc.DocCount()
		st.all = err == nil && all == n
	}
	s.totalsMu.Lock()
	if s.totals == nil || len(s.totals) >= 1024 {
		s.totals = map[string]visibleTotal{}
	}
	s.totals[key] = visibleTotal{n: n, all: st.all, at: time.Now()}
	s.totalsMu.Unlock()
	return st
}

// close releases the snapshot the statistics read, if any.
func (st *termStats) close() {
	if st != nil && st.vs != nil {
		st.vs.Close()
	}
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
// the error is kept in err. Cost: one posting list per index segment (or
// one count search) per new term.
func (st *termStats) count(term string) uint64 {
	return st.fieldCount(indexer.FieldAll, term)
}

// fieldCount returns how many documents the user may see hold term in
// field; 0 if it cannot say (the error is kept in err). Cost: one
// posting list per index segment (or one count search) per new field
// and term.
func (st *termStats) fieldCount(field, term string) uint64 {
	key := field + "\x00" + term
	st.mu.Lock()
	defer st.mu.Unlock()
	if n, ok := st.counts[key]; ok {
		return n
	}
	var n uint64
	var err error
	if st.vs != nil {
		n, err = st.vs.Count(field, term)
	} else {
		t := bleve.NewTermQuery(term)
		t.SetField(field)
		n, err = st.search(t)
	}
	if err != nil && st.err == nil {
		st.err = err
	}
	st.counts[key] = n
	return n
}

// scored returns q with each query it combines scored with the user's
// statistics (see userScored), or q itself when the user may see every
// record (the index's statistics are then theirs).
func (st *termStats) scored(q query.Query) query.Query {
	if q == nil || st.all || st.err != nil {
		return q
	}
	return multiterm.Rewrite(q, func(q query.Query) query.Query { return userScored{Query: q, st: st} })
}

// userScored is a query scored as if the index held only the documents
// one user may see: its searcher reads the index through a userReader,
// whose document count and term counts are the user's (termStats).
// Bleve's tf-idf takes both from the reader it searches — the document
// count, and of each term how many documents hold it — for the idf and
// for the query norm, which sums every term's weight: with the whole
// index's, a visible word that hidden pages also hold weighs less, and
// the relative scores and the order of hits told how many hidden pages
// hold it. Cost: one count per field and term the query scores
// (termStats.fieldCount), up to Options.MaxTerms for a wildcard. It is
// skipped only when the user may see every record, member records
// (which the access filter does not count) included: in practice it is
// paid by every search of an index that holds clusters.
type userScored struct {
	query.Query
	st *termStats
}

// Searcher returns the query's searcher over r read with the user's
// statistics.
func (q userScored) Searcher(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, o search.SearcherOptions) (search.Searcher, error) {
	ur := &userReader{IndexReader: r, st: q.st}
	if f, ok := r.(index.IndexReaderFuzzy); ok {
		return q.Query.Searcher(ctx, &userFuzzyReader{userReader: ur, fuzzy: f}, m, o)
	}
	return q.Query.Searcher(ctx, ur, m, o)
}

// Expand expands the query it scores, if it expands (a bounded multi-
// term query, for indexer/shard's Expandable), and scores the result.
func (q userScored) Expand(ctx context.Context, r index.IndexReader, m mapping.IndexMapping) (query.Query, error) {
	e, ok := q.Query.(interface {
		Expand(context.Context, index.IndexReader, mapping.IndexMapping) (query.Query, error)
	})
	if !ok {
		return q, nil
	}
	x, err := e.Expand(ctx, r, m)
	if err != nil {
		return nil, err
	}
	return q.st.scored(x), nil
}

// Scored returns the query scored: a shard in another process is sent
// it, with Statistics.
func (q userScored) Scored() query.Query { return q.Query }

// Statistics returns the user's document count and term counter.
func (q userScored) Statistics() (docs uint64, count func(field, term string) uint64) {
	return q.st.total, q.st.fieldCount
}

// A userReader is an index reader whose document count and term counts
// are those of the documents one user may see; the rest is the reader's.
type userReader struct {
	index.IndexReader
	st *termStats
}

// DocCount returns the documents the user may see.
func (r *userReader) DocCount() (uint64, error) { return r.st.total, nil }

// Unwrap returns the reader r wraps (multiterm.WrappingReader: its
// dictionaries of visible terms are kept per index snapshot).
func (r *userReader) Unwrap() index.IndexReader { return r.IndexReader }

// TermFieldReader returns the reader's term reader, counting the
// documents the user may see that hold the term, when the search scores
// (frequencies or norms read).
func (r *userReader) TermFieldReader(ctx context.Context, term []byte, field string, freq, norm, vectors bool) (index.TermFieldReader, error) {
	tfr, err := r.IndexReader.TermFieldReader(ctx, term, field, freq, norm, vectors)
	if err != nil || !freq && !norm {
		return tfr, err
	}
	return &userTermReader{TermFieldReader: tfr, count: r.st.fieldCount(field, string(term))}, nil
}

// A userFuzzyReader is a userReader of a reader with fuzzy
// dictionaries, which it keeps (multiterm reads them).
type userFuzzyReader struct {
	*userReader
	fuzzy index.IndexReaderFuzzy
}

// FieldDictFuzzy is the reader's.
func (r *userFuzzyReader) FieldDictFuzzy(field, term string, fuzziness int, prefix string) (index.FieldDict, error) {
	return r.fuzzy.FieldDictFuzzy(field, term, fuzziness, prefix)
}

// FieldDictFuzzyAutomaton is the reader's.
func (r *userFuzzyReader) FieldDictFuzzyAutomaton(field, term string, fuzziness int, prefix string) (index.FieldDict, index.FuzzyAutomaton, error) {
	return r.fuzzy.FieldDictFuzzyAutomaton(field, term, fuzziness, prefix)
}

// A userTermReader is a term reader with the user's count.
type userTermReader struct {
	index.TermFieldReader
	count uint64
}

// Count returns the documents the user may see holding the term.
func (t *userTermReader) Count() uint64 { return t.count }

// share returns the share of the user's records holding term (see
// indexer.Searcher.TermShares, of which it is the user's view).
func (st *termStats) share(term string) float64 {
	n := st.count(term)
	if n == 0 || st.total == 0 {
		return 0
	}
	return float64(n) / float64(st.total)
}
