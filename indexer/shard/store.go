package shard

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/registry"
	index "github.com/blevesearch/bleve_index_api"
)

// IndexType is the bleve index type of a shard: scorch, whose readers
// report the statistics of the whole index — its document count, and how
// many documents hold a term — so that a shard's search scores every
// document as one index of all the shards would. Bleve's TF-IDF scoring
// takes both from the reader it searches (an IndexAlias's GlobalScoring
// gathers statistics for BM25 only, and not a term's documents), so
// they must be given there. A shard directory records this type;
// importing this package registers it with bleve.
const IndexType = "doppel.shard"

func init() {
	if err := registry.RegisterIndexType(IndexType, newStore); err != nil {
		panic(err)
	}
}

// A store is a shard's bleve index: scorch, with readers that answer
// for the shards of its group (a local sharded index) or for the
// statistics a search's context carries (a shard served to another
// process).
type store struct {
	*scorch.Scorch
	group atomic.Pointer[group]
	pos   int // the store's place in its group
}

func newStore(storeName string, config map[string]any, q *index.AnalysisQueue) (index.Index, error) {
	ix, err := scorch.NewScorch(storeName, config, q)
	if err != nil {
		return nil, err
	}
	return &store{Scorch: ix.(*scorch.Scorch)}, nil
}

// snapshot returns the store's current snapshot, referenced (Close it);
// nil once the store is closed.
func (s *store) snapshot() *scorch.IndexSnapshot {
	r, err := s.Scorch.Reader()
	if err != nil {
		return nil
	}
	snap, _ := r.(*scorch.IndexSnapshot)
	return snap // nil (in an interface that is not) once closed
}

// Reader returns a reader of the current snapshot that scores as the
// whole index would.
func (s *store) Reader() (index.IndexReader, error) {
	snap := s.snapshot()
	if snap == nil {
		return nil, fmt.Errorf("shard: index closed")
	}
	return &reader{IndexSnapshot: snap, store: s}, nil
}

// statsKey is the context key of the Stats a search scores with.
type statsKey struct{}

// withStats returns ctx carrying st: a shard's search under it scores
// with st's counts instead of its group's.
func withStats(ctx context.Context, st *Stats) context.Context {
	return context.WithValue(ctx, statsKey{}, st)
}

// A reader is a store's snapshot that reports the index's statistics:
// DocCount and each term reader's Count are those of every shard —
// from the Stats of the search's context if it carries them, else from
// the shards of the store's group. Everything else is the snapshot's
// own (its methods are promoted, the optional interfaces of scorch's
// reader included).
type reader struct {
	*scorch.IndexSnapshot
	store *store

	mu    sync.Mutex
	view  *view  // the group's snapshots, once needed
	given *Stats // the statistics of the search, once a term reader saw them
}

// TermFieldReader returns the snapshot's term reader, counting the
// documents of every shard that hold the term.
func (r *reader) TermFieldReader(ctx context.Context, term []byte, field string, freq, norm, vectors bool) (index.TermFieldReader, error) {
	tfr, err := r.IndexSnapshot.TermFieldReader(ctx, term, field, freq, norm, vectors)
	if err != nil {
		return nil, err
	}
	own := tfr.Count()
	n, ok := own, false
	if st, _ := ctx.Value(statsKey{}).(*Stats); st != nil {
		r.mu.Lock()
		r.given = st
		r.mu.Unlock()
		n, ok = st.count(field, string(term))
	}
	if v := r.groupView(); !ok && v != nil {
		n, ok = own+v.others(r.store.pos, field, term), true
	}
	if !ok || n == own {
		return tfr, nil
	}
	if st, is := tfr.(*scorch.IndexSnapshotTermFieldReader); is {
		return &termReader{IndexSnapshotTermFieldReader: st, count: n}, nil
	}
	return &anyTermReader{TermFieldReader: tfr, count: n}, nil
}

// DocCount returns the documents of every shard: the search's Stats',
// or the group's.
func (r *reader) DocCount() (uint64, error) {
	r.mu.Lock()
	given := r.given
	r.mu.Unlock()
	if given != nil {
		return given.Docs, nil
	}
	own, err := r.IndexSnapshot.DocCount()
	if err != nil {
		return 0, err
	}
	if v := r.groupView(); v != nil {
		own += v.othersDocs(r.store.pos)
	}
	return own, nil
}

// groupView returns the view of the store's group the reader counts
// with, acquiring it on first use; nil for a store alone.
func (r *reader) groupView() *view {
	g := r.store.group.Load()
	if g == nil || len(g.stores) < 2 {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.view == nil {
		r.view = g.acquire()
	}
	return r.view
}

// Close releases the view and the snapshot.
func (r *reader) Close() error {
	r.mu.Lock()
	v := r.view
	r.view = nil
	r.mu.Unlock()
	if v != nil {
		v.release()
	}
	return r.IndexSnapshot.Close()
}

// A termReader is scorch's term reader with the count of every shard;
// its other methods (Optimize among them) are scorch's.
type termReader struct {
	*scorch.IndexSnapshotTermFieldReader
	count uint64
}

// Count returns the documents of every shard holding the term.
func (t *termReader) Count() uint64 { return t.count }

// anyTermReader is termReader for another term reader type.
type anyTermReader struct {
	index.TermFieldReader
	count uint64
}

// Count returns the documents of every shard holding the term.
func (t *anyTermReader) Count() uint64 { return t.count }

// A group is the stores of one local sharded index.
type group struct {
	stores []*store
	mu     sync.Mutex
	cur    *view // the latest view, referenced by the group
}

// newGroup makes stores one group, each knowing its place.
func newGroup(stores []*store) *group {
	g := &group{stores: stores}
	for i, s := range stores {
		s.pos = i
		s.group.Store(g)
	}
	return g
}

// acquire returns a view of the stores' current snapshots, referenced
// (release it): the latest one if no store has changed since.
func (g *group) acquire() *view {
	snaps := make([]*scorch.IndexSnapshot, len(g.stores))
	for i, s := range g.stores {
		snaps[i] = s.snapshot()
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cur != nil && g.cur.same(snaps) {
		for _, s := range snaps {
			if s != nil {
				s.Close()
			}
		}
		g.cur.refs.Add(1)
		return g.cur
	}
	v := newView(snaps)
	v.refs.Store(2) // the group's and the caller's
	if g.cur != nil {
		g.cur.release()
	}
	g.cur = v
	return v
}

// close drops the group's reference to its latest view.
func (g *group) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cur != nil {
		g.cur.release()
		g.cur = nil
	}
	for _, s := range g.stores {
		s.group.Store(nil)
	}
}

// A view is one snapshot of every store of a group, with the counts
// read from them so far: the readers of the searches that run while no
// store changes share it.
type view struct {
	snaps []*scorch.IndexSnapshot // nil for a closed store
	docs  []uint64
	refs  atomic.Int32

	mu     sync.Mutex
	counts map[termKey][]uint64 // a term's documents in each store
}

// termKey is a term of a field.
type termKey struct{ field, term string }

// maxCounts bounds the counts a view keeps.
const maxCounts = 1 << 16

func newView(snaps []*scorch.IndexSnapshot) *view {
	v := &view{snaps: snaps, docs: make([]uint64, len(snaps)), counts: map[termKey][]uint64{}}
	for i, s := range snaps {
		if s != nil {
			v.docs[i], _ = s.DocCount()
		}
	}
	return v
}

// same reports whether snaps are the view's snapshots.
func (v *view) same(snaps []*scorch.IndexSnapshot) bool {
	for i, s := range snaps {
		if s != v.snaps[i] {
			return false
		}
	}
	return true
}

// release drops a reference; the last one closes the snapshots.
func (v *view) release() {
	if v.refs.Add(-1) != 0 {
		return
	}
	for _, s := range v.snaps {
		if s != nil {
			s.Close()
		}
	}
}

// othersDocs returns the documents of the stores but pos.
func (v *view) othersDocs(pos int) uint64 {
	var n uint64
	for i, d := range v.docs {
		if i != pos {
			n += d
		}
	}
	return n
}

// others returns the documents of the stores but pos that hold term in
// field.
func (v *view) others(pos int, field string, term []byte) uint64 {
	k := termKey{field, string(term)}
	v.mu.Lock()
	per, ok := v.counts[k]
	v.mu.Unlock()
	if !ok {
		per = make([]uint64, len(v.snaps))
		for i, s := range v.snaps {
			if s == nil {
				continue
			}
			tfr, err := s.TermFieldReader(context.Background(), term, field, false, false, false)
			if err != nil {
				continue
			}
			per[i] = tfr.Count()
			tfr.Close()
		}
		v.mu.Lock()
		if len(v.counts) >= maxCounts {
			clear(v.counts)
		}
		v.counts[k] = per
		v.mu.Unlock()
	}
	var n uint64
	for i, c := range per {
		if i != pos {
			n += c
		}
	}
	return n
}
