package shard

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/ranking/multiterm"
)

// An Index is a Doppel index in shards: N bleve indexes, each holding
// whole clusters (every record of a cluster on the shard Route gives
// it), searched through one bleve IndexAlias. It implements
// [indexer.Searcher] and — over local shards ([Open]) — [indexer.Writer];
// over shards served by other processes ([Dial]) it is read-only.
//
// Searches score as one index of all the shards would: a shard's reader
// reports the whole index's statistics (see [IndexType]; shards in other
// processes are given them with the search), and multi-term queries are
// expanded against every shard's terms ([Expandable]). Package ranking's
// collapsing, facets, suggestions and access filtering then answer as
// over one index.
//
// Writes are routed by cluster. A change within one cluster is written
// by its shard's batch, atomically; a document that moves to a cluster
// of another shard (a new version that left its cluster, a member moved
// by an election, a document added again elsewhere) is added on the new
// shard and removed from the old one — two batches, which Flush writes
// together. A crash between them leaves the document on both shards or
// on the new one only; replaying the writes since the last successful
// Flush (the [indexer.Writer] contract) converges, as adding a document
// removes any copy another shard holds.
type Index struct {
	parts   []part
	local   []*indexer.Index // the shards, when local
	group   *group           // their stores
	alias   bleve.IndexAlias
	names   map[string]int // a part's bleve index name → its place
	remote  bool           // some part is in another process
	mapping mapping.IndexMapping
	opts    indexer.Options
	mu      sync.Mutex // serializes writes
	closed  atomic.Bool
}

// The sharded index implements both sides.
var (
	_ indexer.Searcher = (*Index)(nil)
	_ indexer.Writer   = (*Index)(nil)
)

// Open opens the sharded index in dir, or creates it with shards shards
// if dir holds none (dir is created if needed): a manifest
// (shards.json) recording the number of shards and the routing, and a
// bleve index of [IndexType] per shard (shard-000, shard-001, …). With
// shards 0 the index must exist; with another number than it was
// created with, Open fails with an error wrapping [ErrShardCount] —
// documents are never routed again silently. opts configure every shard
// as [indexer.Options] says (Options.ReadOnly: the index must exist;
// Options.IndexType is set to IndexType). The caller must Close the
// Index.
func Open(dir string, shards int, opts indexer.Options) (*Index, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if shards < 0 {
		return nil, fmt.Errorf("shard: %d shards", shards)
	}
	m, err := readManifest(dir)
	switch {
	case err == nil && shards != 0 && shards != m.Shards:
		return nil, fmt.Errorf("%w: %s holds %d shards, not %d (a document's shard is its cluster's hash modulo the count: rebuild the index to change it)",
			ErrShardCount, dir, m.Shards, shards)
	case err == nil:
		shards = m.Shards
	case !errors.Is(err, ErrNotSharded):
		return nil, err
	case opts.ReadOnly || shards == 0:
		return nil, err
	default:
		if _, serr := os.Stat(filepath.Join(dir, "index_meta.json")); serr == nil {
			return nil, fmt.Errorf("%w: %s holds an index that is not sharded", ErrNotSharded, dir)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		if err := writeManifest(dir, shards); err != nil {
			return nil, err
		}
	}
	opts.IndexType = IndexType
	local := make([]*indexer.Index, 0, shards)
	fail := func(err error) (*Index, error) {
		for _, x := range local {
			x.Close()
		}
		return nil, err
	}
	for i := range shards {
		x, err := indexer.Open(shardDir(dir, i), opts)
		if err != nil {
			return fail(err)
		}
		local = append(local, x)
		if err := checkIdentity(x, i, shards, opts.Policy, !opts.ReadOnly); err != nil {
			return fail(fmt.Errorf("shard: %s: %w", shardDir(dir, i), err))
		}
	}
	s, err := fromLocal(local, opts)
	if err != nil {
		return fail(err)
	}
	return s, nil
}

// checkIdentity checks that x records itself as shard i of n, recording
// it — and the policy x is written under — if write is set.
func checkIdentity(x *indexer.Index, i, n int, policy indexer.Policy, write bool) error {
	id, found, err := readIdentity(x)
	switch {
	case err != nil:
		return err
	case found && (id.Shard != i || id.Of != n):
		return fmt.Errorf("%w: the directory holds shard %d of %d, expected shard %d of %d", ErrShardCount, id.Shard, id.Of, i, n)
	case !write || found && id.Policy == policy.String():
		return nil
	}
	data, err := json.Marshal(identity{Shard: i, Of: n, Policy: policy.String()})
	if err != nil {
		return err
	}
	return x.Bleve().SetInternal(identityKey, data)
}

// readIdentity returns what x records of itself, if anything.
func readIdentity(x *indexer.Index) (identity, bool, error) {
	var id identity
	data, err := x.Bleve().GetInternal(identityKey)
	if err != nil || data == nil {
		return id, false, err
	}
	if err := json.Unmarshal(data, &id); err != nil {
		return id, false, fmt.Errorf("shard: %w", err)
	}
	return id, true, nil
}

// OpenShard opens one shard directory of a sharded index (shard-002 in
// the index's directory, or a copy of it on another machine) read-only,
// under the policy its writer recorded: what a process serving the shard
// ([NewServer]) opens. The caller must Close it.
func OpenShard(dir string) (*indexer.Index, error) {
	opts := indexer.Options{ReadOnly: true}
	for {
		x, err := indexer.Open(dir, opts)
		if err != nil {
			return nil, err
		}
		id, found, err := readIdentity(x)
		if err == nil && !found {
			err = fmt.Errorf("%w: %s is not a shard of one", ErrNotSharded, dir)
		}
		if err != nil {
			x.Close()
			return nil, err
		}
		p, err := indexer.ParsePolicy(id.Policy)
		if err != nil || p == opts.Policy {
			return x, nil // an unknown policy: the default
		}
		x.Close()
		opts.Policy = p
	}
}

// fromLocal makes an Index of the shards local, opened with opts.
func fromLocal(local []*indexer.Index, opts indexer.Options) (*Index, error) {
	stores := make([]*store, len(local))
	s := &Index{local: local, opts: opts, names: map[string]int{}, mapping: local[0].Mapping()}
	dicts := multiterm.NewDictionaries(0) // one budget for every shard's dictionaries of visible terms
	children := make([]bleve.Index, len(local))
	for i, x := range local {
		adv, err := x.Bleve().Advanced()
		if err != nil {
			return nil, err
		}
		st, ok := adv.(*store)
		if !ok {
			return nil, fmt.Errorf("shard: shard %d is a bleve index of type %T, not %s", i, adv, IndexType)
		}
		stores[i] = st
		children[i] = x.Bleve()
		s.parts = append(s.parts, &localPart{ix: x, st: st, m: s.mapping, dicts: dicts})
		s.names[x.Bleve().Name()] = i
	}
	s.group = newGroup(stores)
	s.alias = bleve.NewIndexAlias(children...)
	return s, nil
}

// Shards returns the number of shards.
func (s *Index) Shards() int { return len(s.parts) }

// Shard returns the local shard i (nil for a shard in another process):
// for tests and tools; writing to it directly bypasses the routing.
func (s *Index) Shard(i int) *indexer.Index {
	if s.local == nil {
		return nil
	}
	return s.local[i]
}

// writable returns why the index may not be written, if it may not.
func (s *Index) writable(ctx context.Context) error {
	switch {
	case s.closed.Load():
		return indexer.ErrClosed
	case s.local == nil || s.opts.ReadOnly:
		return indexer.ErrReadOnly
	}
	return ctx.Err()
}

// Add indexes d at the placement r on the shard of r's cluster (see
// [indexer.Index.Add]), and removes d from any other shard that holds it.
// Cost: an Add, and a lookup of d's id on every other shard.
func (s *Index) Add(ctx context.Context, d indexer.Doc, r indexer.Placement) error {
	if err := s.writable(ctx); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := Route(r.Cluster, len(s.local))
	if err := s.local[k].Add(ctx, d, r); err != nil {
		return err
	}
	return s.dropElsewhere(ctx, d.ID, k)
}

// dropElsewhere removes id from every shard but keep that holds it.
func (s *Index) dropElsewhere(ctx context.Context, id string, keep int) error {
	for j, x := range s.local {
		if j == keep {
			continue
		}
		held, err := x.Holds(id)
		if err != nil {
			return err
		}
		if held {
			if err := x.Remove(ctx, indexer.Change{ID: id}); err != nil {
				return err
			}
		}
	}
	return nil
}

// A move is a member an election moved to a cluster of another shard.
type move struct {
	doc *indexer.Doc
	to  indexer.Placement
}

// moves returns the members of moved that go to a cluster of another
// shard than j, with their documents as shard j (or Options.Source)
// has them; one it has not is left to shard j's change to report.
func (s *Index) moves(ctx context.Context, j int, moved []indexer.Placement) ([]move, error) {
	var out []move
	for _, r := range moved {
		if Route(r.Cluster, len(s.local)) == j {
			continue
		}
		d, err := s.local[j].Document(r.ID)
		if err != nil {
			return nil, err
		}
		if d == nil && s.opts.Source != nil {
			if d, err = s.opts.Source.Doc(ctx, r.ID); err != nil {
				return nil, fmt.Errorf("shard: source: document %q: %w", r.ID, err)
			}
			if d != nil {
				c := *d
				c.ID = r.ID
				d = &c
			}
		}
		if d != nil {
			out = append(out, move{d, r})
		}
	}
	return out, nil
}

// place adds the moved members on their clusters' shards (and so takes
// them off the shard they left).
func (s *Index) place(ctx context.Context, ms []move) error {
	for _, m := range ms {
		k := Route(m.to.Cluster, len(s.local))
		if err := s.local[k].Add(ctx, *m.doc, m.to); err != nil {
			return err
		}
		if err := s.dropElsewhere(ctx, m.doc.ID, k); err != nil {
			return err
		}
	}
	return nil
}

// Remove takes the document ch.ID out as [indexer.Index.Remove] does,
// on the shard of ch.Cluster (every shard that holds it if ch.Cluster is
// empty); members the change moves to clusters of other shards are added
// there.
func (s *Index) Remove(ctx context.Context, ch indexer.Change) error {
	if err := s.writable(ctx); err != nil {
		return err
	}
	if err := indexer.CheckID(ch.ID); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ch.Cluster == "" {
		return s.dropElsewhere(ctx, ch.ID, -1)
	}
	j := Route(ch.Cluster, len(s.local))
	ms, err := s.moves(ctx, j, ch.Moved)
	if err != nil {
		return err
	}
	if err := s.local[j].Remove(ctx, ch); err != nil {
		return err
	}
	if err := s.dropElsewhere(ctx, ch.ID, j); err != nil {
		return err
	}
	return s.place(ctx, ms)
}

// Update re-indexes d as [indexer.Index.Update] does: on the shard of
// its cluster, and if it left a cluster of another shard, that cluster is
// handed over there and d removed from it.
func (s *Index) Update(ctx context.Context, d indexer.Doc, ch indexer.Change) error {
	if err := s.writable(ctx); err != nil {
		return err
	}
	if err := indexer.CheckPlacement(d.ID, ch.Placement); err != nil {
		return err
	}
	if ch.ID != d.ID {
		return fmt.Errorf("%w: doc %q, change %q", indexer.ErrMismatch, d.ID, ch.ID)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := Route(ch.Placement.Cluster, len(s.local))
	j := k
	var ms []move
	if ch.Left && ch.Cluster != "" {
		j = Route(ch.Cluster, len(s.local))
		var err error
		if ms, err = s.moves(ctx, j, ch.Moved); err != nil {
			return err
		}
	}
	if j == k {
		if err := s.local[k].Update(ctx, d, ch); err != nil {
			return err
		}
	} else {
		rm := ch
		rm.Left, rm.Placement = false, indexer.Placement{}
		if err := s.local[j].Remove(ctx, rm); err != nil {
			return err
		}
		if err := s.local[k].Add(ctx, d, ch.Placement); err != nil {
			return err
		}
	}
	if err := s.dropElsewhere(ctx, d.ID, k); err != nil {
		return err
	}
	return s.place(ctx, ms)
}

// Flush writes every shard's pending batch, the shards in parallel.
func (s *Index) Flush(ctx context.Context) error {
	if err := s.writable(ctx); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.each(func(x *indexer.Index) error { return x.Flush(ctx) })
}

// each calls fn for every local shard in parallel and joins the errors.
func (s *Index) each(fn func(x *indexer.Index) error) error {
	errs := make([]error, len(s.local))
	var wg sync.WaitGroup
	for i, x := range s.local {
		wg.Go(func() { errs[i] = fn(x) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// FlushAsync starts writing every shard's pending batch and returns a
// function waiting for all of them.
func (s *Index) FlushAsync() (wait func() error) {
	if err := s.writable(context.Background()); err != nil {
		return func() error { return err }
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	waits := make([]func() error, len(s.local))
	for i, x := range s.local {
		waits[i] = x.FlushAsync()
	}
	return func() error {
		errs := make([]error, len(waits))
		for i, w := range waits {
			errs[i] = w()
		}
		return errors.Join(errs...)
	}
}

// Close flushes and closes every shard (or, over remote shards, their
// connections). Later calls return ErrClosed.
func (s *Index) Close() error {
	if !s.closed.CompareAndSwap(false, true) {
		return indexer.ErrClosed
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.group != nil {
		s.group.close()
	}
	var errs []error
	for _, p := range s.parts {
		errs = append(errs, p.close())
	}
	return errors.Join(errs...)
}

// Stats adds up the shards' counters (zero over remote shards).
func (s *Index) Stats() indexer.Stats {
	var t indexer.Stats
	for _, x := range s.local {
		st := x.Stats()
		t.Docs += st.Docs
		t.Masters += st.Masters
		t.Indexed += st.Indexed
		t.Skipped += st.Skipped
		t.Diffs += st.Diffs
		t.Demoted += st.Demoted
		t.Batches += st.Batches
		t.Pending += st.Pending
		t.Removed += st.Removed
		t.Updated += st.Updated
		t.Promoted += st.Promoted
		t.Reviewed += st.Reviewed
		t.Unavailable += st.Unavailable
	}
	return t
}

// Search runs req over every shard through the alias, scoring as one
// index would: Expandable queries are expanded against every shard's
// terms first, and shards in other processes are given the statistics
// of all shards (gathered first, for the terms the query reads). Package
// ranking's collector (search.MakeDocumentMatchHandlerKey) is run on
// local shards; when a shard is remote it is not run at all, and ranking
// falls back to bleve's sort. A shard's error fails the search.
func (s *Index) Search(ctx context.Context, req *bleve.SearchRequest) (*bleve.SearchResult, error) {
	if s.closed.Load() {
		return nil, fmt.Errorf("shard: search: %w", indexer.ErrClosed)
	}
	if req.Query != nil {
		q, changed, err := expand(ctx, req.Query, &union{ctx: ctx, parts: s.parts}, s.mapping)
		if err != nil {
			return nil, err
		}
		if changed {
			c := *req
			c.Query = q
			req = &c
		}
	}
	if s.remote {
		st := &Stats{}
		if req.Score != "none" { // nothing scored, no statistics needed
			var err error
			if st, err = s.gather(ctx, req); err != nil {
				return nil, err
			}
			// A query scored with one user's statistics (package
			// ranking) is scored with them on every shard: the terms
			// gathered, their counts the user's.
			if sq := findScored(req.Query); sq != nil {
				docs, count := sq.Statistics()
				st.Docs = docs
				for f, ts := range st.Terms {
					for t := range ts {
						ts[t] = count(f, t)
					}
				}
			}
		}
		ctx = context.WithValue(withStats(ctx, st), search.MakeDocumentMatchHandlerKey, nil)
	} else if req.Query != nil {
		// Local shards are searched as bleve indexes, not through
		// indexer.Index.Search, which guards (a shard in another
		// process is sent the query as it is, and guards it there).
		c := *req
		c.Query = indexer.GuardShould(req.Query)
		req = &c
	}
	res, err := s.searchAlias(ctx, req)
	if err != nil {
		return nil, err
	}
	if res.Status != nil && len(res.Status.Errors) > 0 {
		return nil, s.firstError(res.Status.Errors)
	}
	return res, nil
}

// searchAlias runs req through an IndexAlias of the shards whose results
// are merged in shard order and sorted stably: hits of equal sort keys
// (equal scores, under bleve's default sort) come in shard order, then
// in each shard's index order, the same on every search — bleve's alias
// would merge them in the order the shards answered.
func (s *Index) searchAlias(ctx context.Context, req *bleve.SearchRequest) (*bleve.SearchResult, error) {
	if len(s.parts) == 1 {
		return s.alias.SearchInContext(ctx, req)
	}
	children := make([]bleve.Index, len(s.parts))
	var prev chan struct{}
	for i, p := range s.parts {
		done := make(chan struct{})
		children[i] = &inTurn{child: p.bleve(), prev: prev, done: done}
		prev = done
	}
	c := *req
	c.SetSortFunc(sort.Stable)
	return bleve.NewIndexAlias(children...).SearchInContext(ctx, &c)
}

// inTurn is a shard that answers an alias's search after the shard
// before it (prev; nil for the first) has: the alias merges results in
// the order they come.
type inTurn struct {
	child
	prev <-chan struct{}
	done chan struct{}
}

// SearchInContext searches the shard, then waits for its turn to answer.
func (t *inTurn) SearchInContext(ctx context.Context, req *bleve.SearchRequest) (*bleve.SearchResult, error) {
	res, err := t.child.SearchInContext(ctx, req)
	if t.prev != nil {
		<-t.prev
	}
	close(t.done)
	return res, err
}

// child is a bleve index embedded under another name than its method
// Index.
type child = bleve.Index

// firstError returns the error of the first shard among errs.
func (s *Index) firstError(errs map[string]error) error {
	names := make([]string, 0, len(errs))
	for n := range errs {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Compare(s.names[a], s.names[b]) })
	return errs[names[0]]
}

// gather returns the statistics of every shard for req, added up.
func (s *Index) gather(ctx context.Context, req *bleve.SearchRequest) (*Stats, error) {
	all := make([]*Stats, len(s.parts))
	errs := make([]error, len(s.parts))
	var wg sync.WaitGroup
	for i, p := range s.parts {
		wg.Go(func() { all[i], errs[i] = p.stats(ctx, req) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	st := &Stats{Terms: map[string]map[string]uint64{}}
	for _, a := range all {
		st.add(a)
	}
	return st, nil
}

// Searchable restricts q to what a result page may show when nobody's
// access groups matter, under the index's policy (see
// [indexer.Index.Searchable]).
func (s *Index) Searchable(q query.Query) query.Query {
	return indexer.SearchableUnder(s.opts.Policy, q)
}

// Mapping returns the index mapping.
func (s *Index) Mapping() mapping.IndexMapping { return s.mapping }

// Document returns the document id from the shard that holds it (every
// shard is asked, until one has it), or nil.
func (s *Index) Document(id string) (*indexer.Doc, error) {
	if s.closed.Load() {
		return nil, indexer.ErrClosed
	}
	for _, p := range s.parts {
		d, err := p.document(id)
		if err != nil || d != nil {
			return d, err
		}
	}
	return nil, nil
}

// MembersOfContext returns the members of each of clusters, each asked
// of its cluster's shard.
func (s *Index) MembersOfContext(ctx context.Context, clusters []string) (map[string][]indexer.Member, error) {
	if s.closed.Load() {
		return nil, indexer.ErrClosed
	}
	by := make([][]string, len(s.parts))
	for _, c := range clusters {
		i := Route(c, len(s.parts))
		by[i] = append(by[i], c)
	}
	out := map[string][]indexer.Member{}
	for i, cs := range by {
		if len(cs) == 0 {
			continue
		}
		ms, err := s.parts[i].members(ctx, cs)
		if err != nil {
			return nil, err
		}
		for c, m := range ms {
			out[c] = m
		}
	}
	return out, nil
}

// TermShares returns the share of all the shards' records whose text
// holds a term: the shards' counts added up, over the shards' records.
func (s *Index) TermShares() (share func(term string) float64, release func(), err error) {
	if s.closed.Load() {
		return nil, nil, indexer.ErrClosed
	}
	counters := make([]termCounter, 0, len(s.parts))
	release = func() {
		for _, c := range counters {
			c.release()
		}
	}
	var total uint64
	for _, p := range s.parts {
		c, err := p.terms()
		if err != nil {
			release()
			return nil, nil, err
		}
		counters = append(counters, c)
		total += c.docs()
	}
	if total == 0 {
		release()
		return func(string) float64 { return 0 }, func() {}, nil
	}
	return func(term string) float64 {
		var n uint64
		for _, c := range counters {
			n += c.count(term)
		}
		return float64(n) / float64(total)
	}, release, nil
}

// SearchableCount adds up the shards' searchable documents.
func (s *Index) SearchableCount() (int, error) {
	return s.sum(func(p part) (int, error) { return p.searchable() })
}

// Indexed adds up the shards' documents (see [indexer.Index.Indexed]).
func (s *Index) Indexed() (int, error) {
	return s.sum(func(p part) (int, error) { return p.indexed() })
}

// DocCount adds up the shards' records (see [indexer.Index.DocCount]).
func (s *Index) DocCount() (uint64, error) {
	n, err := s.sum(func(p part) (int, error) {
		d, err := p.docCount()
		return int(d), err
	})
	return uint64(n), err
}

func (s *Index) sum(fn func(p part) (int, error)) (int, error) {
	if s.closed.Load() {
		return 0, indexer.ErrClosed
	}
	n := 0
	for _, p := range s.parts {
		k, err := fn(p)
		if err != nil {
			return 0, err
		}
		n += k
	}
	return n, nil
}

// Languages returns the languages of the shards' documents, most
// documents first, ties by name (see [indexer.Index.Languages]).
func (s *Index) Languages() ([]string, error) {
	if s.closed.Load() {
		return nil, indexer.ErrClosed
	}
	counts := map[string]uint64{}
	for _, p := range s.parts {
		ls, err := p.languages()
		if err != nil {
			return nil, err
		}
		for l, n := range ls {
			counts[l] += n
		}
	}
	out := make([]string, 0, len(counts))
	for l, n := range counts {
		if n > 0 {
			out = append(out, l)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return cmp.Or(cmp.Compare(counts[b], counts[a]), cmp.Compare(a, b)) })
	return out, nil
}

// EachID calls fn with the id of every document of every shard (see
// [indexer.Index.EachID]), in id order. Cost: the ids are read into
// memory first.
func (s *Index) EachID(fn func(id string) error) error {
	if s.closed.Load() {
		return indexer.ErrClosed
	}
	var ids []string
	for _, p := range s.parts {
		if err := p.eachID(func(id string) error { ids = append(ids, id); return nil }); err != nil {
			return err
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		if err := fn(id); err != nil {
			return err
		}
	}
	return nil
}
