package ranking

import (
	"bytes"
	"cmp"
	"context"
	"slices"
	"strconv"
	"sync"
	"weak"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/vellum"

	"github.com/doppel-search/doppel/indexer"
)

// A vocabulary is the words of the titles and headings
// (indexer.FieldWords) that the pages one set of groups may see hold,
// each with how many of those pages hold it, read from one snapshot of
// the index: a finite state transducer (vellum, what the index's own
// dictionaries are) from word to count. Completion ranks the words a
// prefix could become by their counts from it, and searches only the
// best few. Safe for concurrent use.
type vocabulary struct {
	fst  *vellum.FST
	size int // bytes
	snap weak.Pointer[scorch.IndexSnapshot]

	mu   sync.Mutex
	tops map[string][]wordCount // prefix → its best words, as top computed them
}

// A wordCount is a word of a vocabulary and how many visible pages hold
// it.
type wordCount struct {
	word  string
	count uint64
}

// maxTops bounds the prefixes a vocabulary remembers the best words of.
const maxTops = 4096

// top returns up to k words starting with prefix, most held first (then
// in byte order). Cost: the FST's words with that prefix walked once per
// prefix and k (remembered).
func (v *vocabulary) top(prefix string, k int) ([]wordCount, error) {
	key := prefix + "\x00" + strconv.Itoa(k)
	v.mu.Lock()
	if t, ok := v.tops[key]; ok {
		v.mu.Unlock()
		return t, nil
	}
	v.mu.Unlock()
	var best []wordCount
	it, err := v.fst.Iterator([]byte(prefix), prefixEnd([]byte(prefix)))
	for err == nil {
		w, c := it.Current()
		best = keepBest(best, wordCount{string(w), c}, k)
		err = it.Next()
	}
	if err != vellum.ErrIteratorDone {
		return nil, err
	}
	v.mu.Lock()
	if len(v.tops) >= maxTops {
		v.tops = map[string][]wordCount{}
	}
	v.tops[key] = best
	v.mu.Unlock()
	return best, nil
}

// keepBest adds w to best (at most k words, most held first, then in
// byte order) if it belongs there.
func keepBest(best []wordCount, w wordCount, k int) []wordCount {
	if len(best) == k && w.count <= best[k-1].count {
		return best // words come in byte order: a later one of equal count comes after
	}
	i, _ := slices.BinarySearchFunc(best, w, func(a, b wordCount) int {
		return cmp.Or(cmp.Compare(b.count, a.count), cmp.Compare(a.word, b.word))
	})
	if i >= k {
		return best
	}
	best = slices.Insert(best, i, w)
	return best[:min(len(best), k)]
}

// prefixEnd returns the first key after every key starting with prefix
// (nil: none).
func prefixEnd(prefix []byte) []byte {
	end := bytes.Clone(prefix)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i]++; end[i] != 0 {
			return end[:i+1]
		}
	}
	return nil
}

// buildVocabulary reads the vocabulary of the pages vs counts. Cost:
// FieldWords's whole dictionary walked once, with a posting-list
// cardinality per word and segment (indexer.VisibleStats.Terms).
func buildVocabulary(ctx context.Context, vs *indexer.VisibleStats) (*vocabulary, error) {
	var buf bytes.Buffer
	b, err := vellum.New(&buf, nil)
	if err != nil {
		return nil, err
	}
	err = vs.Terms(ctx, indexer.FieldWords, func(term string, n uint64) error { return b.Insert([]byte(term), n) })
	if err != nil {
		return nil, err
	}
	if err := b.Close(); err != nil {
		return nil, err
	}
	fst, err := vellum.Load(buf.Bytes())
	if err != nil {
		return nil, err
	}
	return &vocabulary{fst: fst, size: buf.Len(), snap: weak.Make(vs.Snapshot()), tops: map[string][]wordCount{}}, nil
}

// vocabularies keeps the latest vocabulary of each set of groups that
// asked for one, the least recently used dropped past maxBytes.
type vocabularies struct {
	maxBytes int

	mu      sync.Mutex
	entries map[string]*vocabEntry // by groupsKey
	order   []string               // least recently used first
	bytes   int
}

// A vocabEntry is the vocabulary of one set of groups: the latest built,
// and the build under way, if any.
type vocabEntry struct {
	latest   *vocabulary
	building chan struct{} // closed when the build under way is done
}

func newVocabularies(maxBytes int) *vocabularies {
	return &vocabularies{maxBytes: maxBytes, entries: map[string]*vocabEntry{}}
}

// visibleStatsFunc reads the statistics of the records a set of groups
// may see from the index as it stands.
type visibleStatsFunc func() (*indexer.VisibleStats, error)

// get returns a vocabulary of the pages a user of groups (key) may see:
// the one of st's snapshot if built, else the latest one built for these
// groups while a new one is built in the background (a word it ranks
// must be checked against st before it is shown), else it builds one and
// waits for it under ctx. It returns nil when it cannot (the index gives
// no statistics, the build failed, or ctx ended first).
func (vs *vocabularies) get(ctx context.Context, st *termStats, key string, read visibleStatsFunc) *vocabulary {
	if st.vs == nil || st.vs.Snapshot() == nil {
		return nil
	}
	vs.mu.Lock()
	e := vs.entries[key]
	if e == nil {
		e = &vocabEntry{}
		vs.entries[key] = e
	}
	vs.touch(key)
	latest := e.latest
	current := latest != nil && latest.snap.Value() == st.vs.Snapshot()
	if !current && e.building == nil {
		e.building = make(chan struct{})
		go vs.build(key, e, read)
	}
	wait := e.building
	vs.mu.Unlock()
	if latest != nil || wait == nil {
		return latest
	}
	select {
	case <-wait:
	case <-ctx.Done():
		return nil
	}
	vs.mu.Lock()
	defer vs.mu.Unlock()
	return e.latest
}

// build reads a vocabulary for e from the index as it stands and makes
// it e's latest.
func (vs *vocabularies) build(key string, e *vocabEntry, read visibleStatsFunc) {
	var voc *vocabulary
	stats, err := read()
	if err == nil && stats != nil {
		voc, err = buildVocabulary(context.Background(), stats)
		stats.Close()
	}
	vs.mu.Lock()
	defer vs.mu.Unlock()
	close(e.building)
	e.building = nil
	if err != nil || voc == nil {
		return
	}
	if e.latest != nil {
		vs.bytes -= e.latest.size
	}
	e.latest = voc
	if vs.entries[key] == e {
		vs.bytes += voc.size
		vs.evict(key)
	}
}

// touch makes key the most recently used.
func (vs *vocabularies) touch(key string) {
	if i := slices.Index(vs.order, key); i >= 0 {
		vs.order = slices.Delete(vs.order, i, i+1)
	}
	vs.order = append(vs.order, key)
}

// evict drops the least recently used vocabularies but keep while they
// hold more than maxBytes.
func (vs *vocabularies) evict(keep string) {
	for vs.bytes > vs.maxBytes && len(vs.order) > 1 {
		k := vs.order[0]
		if k == keep {
			k = vs.order[1]
		}
		if e := vs.entries[k]; e != nil && e.latest != nil {
			vs.bytes -= e.latest.size
		}
		delete(vs.entries, k)
		vs.order = slices.DeleteFunc(vs.order, func(o string) bool { return o == k })
	}
}

// latest returns the latest vocabulary built for the groups key, if any.
func (vs *vocabularies) latest(key string) *vocabulary {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	if e := vs.entries[key]; e != nil {
		return e.latest
	}
	return nil
}

// building reports whether a vocabulary is being built for the groups
// key.
func (vs *vocabularies) building(key string) bool {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	e := vs.entries[key]
	return e != nil && e.building != nil
}
