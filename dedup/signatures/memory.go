package signatures

import "github.com/doppel-search/doppel/dedup/internal/postings"

// A Memory is the embedded [Store]: one in-memory map per kind of key,
// from the key's sum to its list. It is what the Detector uses unless told
// otherwise. Cost: Get, Known and Lookup O(1) per key; Add O(list length)
// when Limits.PerGroup is set, else O(1) amortized; Remove O(list length).
// Memory: about 20 bytes per key of one entry (most keys); 8 bytes per
// entry and 60 per key of more, beside the lists' spare capacity. A Memory is not safe for concurrent use.
type Memory struct {
	lim   Limits
	kinds []*postings.Map[uint64, Entry] // by kind; nil for a kind never added
}

// NewMemory returns an empty Memory with the given limits.
func NewMemory(lim Limits) *Memory { return &Memory{lim: lim} }

var _ Store = (*Memory)(nil)

// Limits returns the limits m was opened with.
func (m *Memory) Limits() Limits { return m.lim }

// of returns the map of kind, nil if it has none.
func (m *Memory) of(kind Kind) *postings.Map[uint64, Entry] {
	if int(kind) < len(m.kinds) {
		return m.kinds[kind]
	}
	return nil
}

// Add appends e to the list of k within the limits (see [Store]).
func (m *Memory) Add(k Key, e Entry) Outcome {
	p := m.of(k.Kind)
	if p == nil {
		if int(k.Kind) >= len(m.kinds) {
			m.kinds = append(m.kinds, make([]*postings.Map[uint64, Entry], int(k.Kind)+1-len(m.kinds))...)
		}
		p = postings.New[uint64, Entry](m.lim)
		m.kinds[k.Kind] = p
	}
	return p.Add(k.Sum, e.ID, e.Group)
}

// Get returns the list of k (see [Store]).
func (m *Memory) Get(k Key) []Entry {
	if p := m.of(k.Kind); p != nil {
		return p.Get(k.Sum)
	}
	return nil
}

// Lookup calls fn with the list of each key, in order.
func (m *Memory) Lookup(keys []Key, fn func(k Key, list []Entry)) {
	for _, k := range keys {
		fn(k, m.Get(k))
	}
}

// Touch reads where the lists of keys are looked for first, all at
// once, before Gets or Adds of them (see postings.Map.Touch), and returns
// a number for the caller to keep. It changes nothing.
func (m *Memory) Touch(keys []Key) uint64 {
	var x uint64
	for _, k := range keys {
		if p := m.of(k.Kind); p != nil {
			x += p.Touch(k.Sum)
		}
	}
	return x
}

// Known reports whether k has a list or is a stop key.
func (m *Memory) Known(k Key) bool {
	p := m.of(k.Kind)
	return p != nil && p.Known(k.Sum)
}

// Remove takes document id out of the list of k (see [Store]).
func (m *Memory) Remove(k Key, id uint32) (removed, refill bool) {
	if p := m.of(k.Kind); p != nil {
		return p.Remove(k.Sum, id)
	}
	return false, false
}

// Stats returns the counters of kind.
func (m *Memory) Stats(kind Kind) Stats {
	if p := m.of(kind); p != nil {
		return p.Stats()
	}
	return Stats{}
}

// Reset forgets the keys of kinds.
func (m *Memory) Reset(kinds ...Kind) {
	for _, k := range kinds {
		if int(k) < len(m.kinds) {
			m.kinds[k] = nil
		}
	}
}
