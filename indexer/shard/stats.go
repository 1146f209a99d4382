package shard

import (
	"context"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	index "github.com/blevesearch/bleve_index_api"
)

// Stats are the statistics a search scores with: the documents of the
// index, and of each term it reads, how many documents hold it. A
// search across processes gathers them from every shard first (the
// terms its query reads there), adds them up, and gives them to every
// shard's search, which then scores as one index would.
type Stats struct {
	Docs  uint64                       `json:"docs"`
	Terms map[string]map[string]uint64 `json:"terms,omitempty"` // field → term → documents
}

// count returns the documents holding term in field, and whether the
// statistics have the term.
func (st *Stats) count(field, term string) (uint64, bool) {
	n, ok := st.Terms[field][term]
	return n, ok
}

// add adds o's counts to st's.
func (st *Stats) add(o *Stats) {
	st.Docs += o.Docs
	if st.Terms == nil {
		st.Terms = map[string]map[string]uint64{}
	}
	for f, ts := range o.Terms {
		m := st.Terms[f]
		if m == nil {
			m = map[string]uint64{}
			st.Terms[f] = m
		}
		for t, n := range ts {
			m[t] += n
		}
	}
}

// localStats returns the statistics of one snapshot for req: its
// documents, and the count of every term the searcher of req's query
// reads there (building the searcher reads the dictionary; no posting
// is read).
func localStats(ctx context.Context, snap *scorch.IndexSnapshot, m mapping.IndexMapping, req *bleve.SearchRequest) (*Stats, error) {
	rec := &recorder{IndexSnapshot: snap, st: &Stats{Terms: map[string]map[string]uint64{}}}
	s, err := req.Query.Searcher(ctx, rec, m, search.SearcherOptions{Explain: req.Explain,
		IncludeTermVectors: req.IncludeLocations || req.Highlight != nil, Score: req.Score})
	if err != nil {
		return nil, err
	}
	if err := s.Close(); err != nil {
		return nil, err
	}
	if rec.st.Docs, err = snap.DocCount(); err != nil {
		return nil, err
	}
	return rec.st, nil
}

// A recorder is a snapshot that notes the count of every term reader
// opened on it.
type recorder struct {
	*scorch.IndexSnapshot
	st *Stats
}

// TermFieldReader opens the snapshot's term reader and notes its count.
func (r *recorder) TermFieldReader(ctx context.Context, term []byte, field string, freq, norm, vectors bool) (index.TermFieldReader, error) {
	tfr, err := r.IndexSnapshot.TermFieldReader(ctx, term, field, freq, norm, vectors)
	if err != nil {
		return nil, err
	}
	m := r.st.Terms[field]
	if m == nil {
		m = map[string]uint64{}
		r.st.Terms[field] = m
	}
	m[string(term)] = tfr.Count()
	return tfr, nil
}
