package dedup

import "sync"

// hotSets keeps in memory the verification sets the set file is read for
// again and again: a long page many documents are candidates of, or the
// master and members of a large cluster, read back for every new
// candidate wherever in the input it comes. On rust 300k (ndd synth) the
// verification ahead read the set file 267,623 times, 6.4 GB, for 6,600
// distinct sets; the 4 MiB ring of setCache, which keeps the sets read
// last, rarely holds them again by the time they are needed.
//
// A set is kept the second time it is read (its first read only marks
// it), while the sets kept stay within max bytes; past that, the set kept
// longest that was not read since the clock hand last passed goes
// (second chance). A set handed out stays valid after it is dropped: it
// is its own allocation, never written again. Safe for concurrent use:
// the signing goroutines read under the Detector's read lock, Insert
// under its write lock.
type hotSets struct {
	mu    sync.Mutex
	max   int64 // bytes of sets at most; 0: hotSetsMax
	bytes int64
	m     map[uint32]*hotSet
	queue []uint32 // slots kept, oldest first from head: the clock
	head  int
	seen  []uint64 // by slot, a bit: read once already
	hits  int      // sets given from memory (tests read it)
}

// A hotSet is one set kept, and whether it was read since the clock hand
// last passed it.
type hotSet struct {
	set []uint64
	ref bool
}

// hotSetsMax is how many bytes of sets hotSets keeps by default: 64 MiB,
// fixed whatever the number of documents.
const hotSetsMax = 64 << 20

// get returns the set of slot if it is kept.
func (h *hotSets) get(slot uint32) ([]uint64, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	e, ok := h.m[slot]
	if !ok {
		return nil, false
	}
	e.ref = true
	h.hits++
	return e.set, true
}

// wants reports whether a set of n values read for slot should be kept:
// it was read before and fits. A first read only marks the slot.
func (h *hotSets) wants(slot uint32, n int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	w, bit := slot/64, uint64(1)<<(slot%64)
	for int(w) >= len(h.seen) {
		h.seen = append(h.seen, 0)
	}
	if h.seen[w]&bit == 0 {
		h.seen[w] |= bit
		return false
	}
	return n > 0 && int64(8*n) <= h.limit()/4
}

// limit returns the most bytes kept.
func (h *hotSets) limit() int64 {
	if h.max > 0 {
		return h.max
	}
	return hotSetsMax
}

// add keeps set as slot's, making room by dropping the sets kept longest
// and not read since.
func (h *hotSets) add(slot uint32, set []uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m == nil {
		h.m = map[uint32]*hotSet{}
	}
	if _, ok := h.m[slot]; ok { // two readers at once: the first stays
		return
	}
	size := int64(8 * len(set))
	for h.bytes+size > h.limit() && h.head < len(h.queue) {
		h.evict()
	}
	h.m[slot] = &hotSet{set: set}
	h.queue = append(h.queue, slot)
	h.bytes += size
}

// evict takes the oldest slot off the clock: dropped unless read since
// it was last passed, else put back at the end, unmarked.
func (h *hotSets) evict() {
	slot := h.queue[h.head]
	if h.head++; h.head > 1024 && 2*h.head > len(h.queue) {
		h.queue = append(h.queue[:0], h.queue[h.head:]...)
		h.head = 0
	}
	e, ok := h.m[slot]
	switch {
	case !ok: // dropped already
	case e.ref:
		e.ref = false
		h.queue = append(h.queue, slot)
	default:
		delete(h.m, slot)
		h.bytes -= int64(8 * len(e.set))
	}
}

// drop forgets the set of slot (given a new one).
func (h *hotSets) drop(slot uint32) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if e, ok := h.m[slot]; ok {
		delete(h.m, slot)
		h.bytes -= int64(8 * len(e.set))
	}
}

// reset forgets every set and every first read (the slots were
// renumbered).
func (h *hotSets) reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.m, h.queue, h.head, h.seen, h.bytes = nil, nil, 0, nil, 0
}

// readHot returns the set of slot from the sets kept in memory (hot) or
// read from the file, keeping it when it is read a second time; buf is
// the caller's buffer for a set not kept, returned to keep (grown) for
// the next read. The caller must not modify the set. It changes nothing
// in s but hot: the signing goroutines call it under the read lock.
func (s *setFile) readHot(slot uint32, buf []uint64) (set, next []uint64, err error) {
	if set, ok := s.hot.get(slot); ok {
		return set, buf, nil
	}
	n := s.size(slot)
	if !s.hot.wants(slot, n) {
		set, err := s.read(slot, buf[:0])
		return set, set, err
	}
	if set, err = s.read(slot, make([]uint64, 0, n)); err == nil {
		s.hot.add(slot, set)
	}
	return set, buf, err
}
