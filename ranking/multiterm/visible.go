package multiterm

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync"
	"weak"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
	"github.com/blevesearch/vellum"
	"github.com/blevesearch/vellum/levenshtein"
)

// A Dictionaries keeps, for each index snapshot, set of visible
// documents (Options.VisibleKey) and field, the terms that a visible
// document holds, as a finite state transducer (package vellum, what the
// index's own dictionaries are). A bounded query given one in
// Options.Dictionaries expands over it instead of over the index's
// dictionary: what a user's wildcard, regular expression, prefix or fuzzy
// term costs then depends on the terms of the pages they may see, not on
// the terms only hidden pages hold, which the walk would otherwise read
// and test one by one (a guest timing "/sabb.*/" learned how many hidden
// words start with "sabb").
//
// Building a dictionary walks the field's whole dictionary once, hidden
// terms included, with one posting-list check per term against the
// visible documents: what it costs says how many terms the field holds in
// all, once per snapshot, whatever pattern asked for it. The build runs
// on its own (a caller that gives up leaves it to finish for the next),
// with the snapshot kept open until it is done. Snapshots are held
// weakly: a dictionary goes when its snapshot is gone. Only scorch
// snapshots (the index Doppel writes) are kept; other readers are walked
// as without Dictionaries.
//
// A Dictionaries is safe for concurrent use; the zero value is not: use
// [NewDictionaries].
type Dictionaries struct {
	maxBytes int

	mu      sync.Mutex
	entries map[dictKey]*dictEntry
	order   []dictKey // oldest first
	bytes   int
}

// NewDictionaries returns an empty Dictionaries holding at most maxBytes
// of dictionaries (default 64 MiB if maxBytes <= 0), the oldest dropped
// first; a dictionary larger than maxBytes alone is built for the query
// that asked and not kept.
func NewDictionaries(maxBytes int) *Dictionaries {
	if maxBytes <= 0 {
		maxBytes = 64 << 20
	}
	return &Dictionaries{maxBytes: maxBytes, entries: map[dictKey]*dictEntry{}}
}

// A WrappingReader is a reader that wraps another, whose dictionaries it
// lists as they are (package ranking's reader with a user's term
// counts): Dictionaries looks through it for the index's snapshot.
type WrappingReader interface {
	index.IndexReader
	Unwrap() index.IndexReader
}

type dictKey struct {
	snap    weak.Pointer[scorch.IndexSnapshot]
	visible string
	field   string
}

type dictEntry struct {
	done chan struct{} // closed when fst and err are set
	fst  *vellum.FST
	size int // bytes
	err  error
}

// Reader returns r narrowed to the terms of field that a document
// matching visible holds (visibleKey names visible, as
// Options.VisibleKey does), or nil if r is not a snapshot d keeps
// dictionaries for. It builds the dictionary on the first call for r's
// snapshot, visibleKey and field, and waits for it under ctx. The
// reader lists the terms of field only (FieldDict, FieldDictPrefix,
// FieldDictFuzzy; other fields fail), without their counts: a sharded
// index (package indexer/shard) answers a user's dictionary requests
// from it, each shard from its own snapshot.
func (d *Dictionaries) Reader(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, field, visibleKey string, visible query.Query) (index.IndexReader, error) {
	inner := r
	for {
		w, ok := inner.(WrappingReader)
		if !ok {
			break
		}
		inner = w.Unwrap()
	}
	snap, ok := inner.(*scorch.IndexSnapshot)
	if !ok {
		return nil, nil
	}
	key := dictKey{snap: weak.Make(snap), visible: visibleKey, field: field}
	d.mu.Lock()
	e, ok := d.entries[key]
	if !ok {
		e = &dictEntry{done: make(chan struct{})}
		d.entries[key] = e
		d.order = append(d.order, key)
		snap.AddRef() // kept open for the build, whatever the query does
		go func() {
			defer snap.DecRef()
			e.fst, e.size, e.err = buildVisible(context.WithoutCancel(ctx), snap, m, field, visible)
			close(e.done)
			d.keep(key, e)
		}()
	}
	d.mu.Unlock()
	select {
	case <-e.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if e.err != nil {
		return nil, e.err
	}
	return &visibleReader{IndexReader: r, field: field, fst: e.fst}, nil
}

// keep accounts for e once built: it drops e if it failed, and the
// oldest entries (and those whose snapshot is gone) while d holds more
// than maxBytes.
func (d *Dictionaries) keep(key dictKey, e *dictEntry) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.entries[key] != e { // dropped while it was built
		return
	}
	if e.err != nil {
		d.drop(key)
		return
	}
	d.bytes += dictSize(e)
	d.order = slices.DeleteFunc(d.order, func(k dictKey) bool {
		if k.snap.Value() == nil {
			d.dropEntry(k)
			return true
		}
		return false
	})
	for d.bytes > d.maxBytes && len(d.order) > 0 {
		k := d.order[0]
		d.order = d.order[1:]
		d.dropEntry(k)
	}
}

// drop forgets key.
func (d *Dictionaries) drop(key dictKey) {
	d.dropEntry(key)
	d.order = slices.DeleteFunc(d.order, func(k dictKey) bool { return k == key })
}

// dropEntry removes key's entry and its bytes, if built.
func (d *Dictionaries) dropEntry(key dictKey) {
	e, ok := d.entries[key]
	if !ok {
		return
	}
	delete(d.entries, key)
	select {
	case <-e.done:
		d.bytes -= dictSize(e)
	default: // still building: not counted yet, and keep will not find it
	}
}

func dictSize(e *dictEntry) int { return e.size }

// buildVisible returns the terms of field in snap that a document
// matching visible holds. Cost: the visible documents' ids collected
// once, then for each term of the field a posting list read from its
// start and advanced to the visible documents (leapfrog) until one holds
// it; ctx is checked every checkEvery terms.
func buildVisible(ctx context.Context, snap *scorch.IndexSnapshot, m mapping.IndexMapping, field string, visible query.Query) (*vellum.FST, int, error) {
	ids, err := visibleIDs(ctx, snap, m, visible)
	if err != nil {
		return nil, 0, err
	}
	fd, err := snap.FieldDict(field)
	if err != nil {
		return nil, 0, err
	}
	defer fd.Close()
	var buf bytes.Buffer
	b, err := vellum.New(&buf, nil)
	if err != nil {
		return nil, 0, err
	}
	var tfd index.TermFieldDoc
	for n := 1; ; n++ {
		if n%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, 0, err
			}
		}
		e, err := fd.Next()
		if err != nil {
			return nil, 0, err
		}
		if e == nil {
			break
		}
		held, err := heldBy(ctx, snap, field, e.Term, ids, &tfd)
		if err != nil {
			return nil, 0, err
		}
		if held {
			if err := b.Insert([]byte(e.Term), 0); err != nil {
				return nil, 0, err
			}
		}
	}
	if err := b.Close(); err != nil {
		return nil, 0, err
	}
	fst, err := vellum.Load(buf.Bytes())
	return fst, buf.Len(), err
}

// visibleIDs returns the internal ids of the documents of r matching
// visible, in order.
func visibleIDs(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, visible query.Query) ([]index.IndexInternalID, error) {
	s, err := visible.Searcher(ctx, r, m, search.SearcherOptions{Score: "none"})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	sctx := &search.SearchContext{DocumentMatchPool: search.NewDocumentMatchPool(s.DocumentMatchPoolSize(), 0)}
	var ids []index.IndexInternalID
	for {
		dm, err := s.Next(sctx)
		if err != nil {
			return nil, err
		}
		if dm == nil {
			return ids, nil
		}
		ids = append(ids, slices.Clone(dm.IndexInternalID))
		sctx.DocumentMatchPool.Put(dm)
	}
}

// heldBy reports whether one of ids (in order) holds term in field.
func heldBy(ctx context.Context, r index.IndexReader, field, term string, ids []index.IndexInternalID, tfd *index.TermFieldDoc) (bool, error) {
	if len(ids) == 0 {
		return false, nil
	}
	tfr, err := r.TermFieldReader(ctx, []byte(term), field, false, false, false)
	if err != nil {
		return false, err
	}
	defer tfr.Close()
	doc, err := tfr.Next(tfd)
	lo := 0
	for err == nil && doc != nil {
		i, found := slices.BinarySearchFunc(ids[lo:], doc.ID, func(id, target index.IndexInternalID) int { return bytes.Compare(id, target) })
		if found {
			return true, nil
		}
		if lo += i; lo >= len(ids) {
			return false, nil
		}
		doc, err = tfr.Advance(ids[lo], tfd)
	}
	return false, err
}

// A visibleReader is a reader whose dictionary of one field lists only
// the terms of fst: those a visible document holds.
type visibleReader struct {
	index.IndexReader
	field string
	fst   *vellum.FST
}

// FieldDict lists every visible term of field.
func (r *visibleReader) FieldDict(field string) (index.FieldDict, error) {
	return r.iterate(field, nil, nil, nil, nil)
}

// FieldDictPrefix lists the visible terms of field that start with prefix.
func (r *visibleReader) FieldDictPrefix(field string, prefix []byte) (index.FieldDict, error) {
	return r.iterate(field, nil, prefix, prefixEnd(prefix), nil)
}

// FieldDictFuzzy lists the visible terms of field within fuzziness edits
// of term that start with prefix, each with its edit distance.
func (r *visibleReader) FieldDictFuzzy(field, term string, fuzziness int, prefix string) (index.FieldDict, error) {
	d, _, err := r.FieldDictFuzzyAutomaton(field, term, fuzziness, prefix)
	return d, err
}

// FieldDictFuzzyAutomaton is FieldDictFuzzy, with its automaton (as the
// index's own).
func (r *visibleReader) FieldDictFuzzyAutomaton(field, term string, fuzziness int, prefix string) (index.FieldDict, index.FuzzyAutomaton, error) {
	b, err := levBuilder(fuzziness)
	if err != nil {
		return nil, nil, err
	}
	dfa, err := b.BuildDfa(term, uint8(fuzziness))
	if err != nil {
		return nil, nil, err
	}
	var start, end []byte
	if prefix != "" {
		start, end = []byte(prefix), prefixEnd([]byte(prefix))
	}
	d, err := r.iterate(field, dfa, start, end, dfa)
	return d, dfa, err
}

func (r *visibleReader) iterate(field string, aut vellum.Automaton, start, end []byte, fuzzy *levenshtein.DFA) (index.FieldDict, error) {
	if field != r.field {
		return nil, fmt.Errorf("multiterm: the visible dictionary of %s was asked for %s", r.field, field)
	}
	var it *vellum.FSTIterator
	var err error
	if aut != nil {
		it, err = r.fst.Search(aut, start, end)
	} else {
		it, err = r.fst.Iterator(start, end)
	}
	if err != nil && err != vellum.ErrIteratorDone {
		return nil, err
	}
	return &fstDict{it: it, done: err != nil, fuzzy: fuzzy}, nil
}

// prefixEnd returns the first key after every key starting with prefix
// (nil: none).
func prefixEnd(prefix []byte) []byte {
	end := slices.Clone(prefix)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i]++; end[i] != 0 {
			return end[:i+1]
		}
	}
	return nil
}

var levBuilders = sync.OnceValues(func() ([2]*levenshtein.LevenshteinAutomatonBuilder, error) {
	var bs [2]*levenshtein.LevenshteinAutomatonBuilder
	for i := range bs {
		b, err := levenshtein.NewLevenshteinAutomatonBuilder(uint8(i+1), true)
		if err != nil {
			return bs, err
		}
		bs[i] = b
	}
	return bs, nil
})

// levBuilder returns the automaton builder of fuzziness 1 or 2, as the
// index's own (scorch's) are made.
func levBuilder(fuzziness int) (*levenshtein.LevenshteinAutomatonBuilder, error) {
	bs, err := levBuilders()
	if err != nil {
		return nil, err
	}
	if fuzziness < 1 || fuzziness > len(bs) {
		return nil, fmt.Errorf("multiterm: fuzziness %d, at most %d", fuzziness, len(bs))
	}
	return bs[fuzziness-1], nil
}

// fstDict is a FieldDict over an FST iterator.
type fstDict struct {
	it    *vellum.FSTIterator
	done  bool
	fuzzy *levenshtein.DFA // not nil: the edit distance of each term
	entry index.DictEntry
}

// Next returns the next term, nil at the end.
func (d *fstDict) Next() (*index.DictEntry, error) {
	if d.done {
		return nil, nil
	}
	k, _ := d.it.Current()
	d.entry = index.DictEntry{Term: string(k)}
	if d.fuzzy != nil {
		_, d.entry.EditDistance = d.fuzzy.MatchAndDistance(d.entry.Term)
	}
	if err := d.it.Next(); err != nil {
		if err != vellum.ErrIteratorDone {
			return nil, err
		}
		d.done = true
	}
	return &d.entry, nil
}

// Close releases nothing: the FST is in memory.
func (d *fstDict) Close() error { return nil }

// Cardinality is not known.
func (d *fstDict) Cardinality() int { return 0 }

// BytesRead is not counted.
func (d *fstDict) BytesRead() uint64 { return 0 }
