package hamming

import (
	"math/bits"
	"slices"
	"sync"
)

// Linear is a brute-force [Searcher]: a query compares every stored
// fingerprint, O(n). It answers any distance k and is the oracle for
// [Index] in tests and its baseline in benchmarks. It takes 16 bytes per
// entry (fingerprints and IDs in two arrays).
//
// The zero Linear is empty and ready to use. A Linear is safe for
// concurrent use: queries share a read lock, writes take the write lock.
type Linear struct {
	mu  sync.RWMutex
	fps []uint64
	ids []uint64
}

// Len returns the number of stored entries. O(1).
func (l *Linear) Len() int {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return len(l.fps)
}

// Insert stores the entry (id, fp). It fails with an error wrapping
// [ErrExists] if the pair is already stored. O(n).
func (l *Linear) Insert(id, fp uint64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.index(id, fp) >= 0 {
		return existsError(Entry{ID: id, Fingerprint: fp})
	}
	l.fps = append(l.fps, fp)
	l.ids = append(l.ids, id)
	return nil
}

// InsertBatch stores all entries, or none if a pair is already stored or
// repeated in entries (an error wrapping [ErrExists]). O((n+b) log(n+b)).
func (l *Linear) InsertBatch(entries []Entry) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	all := make([]Entry, len(l.fps), len(l.fps)+len(entries))
	for i := range l.fps {
		all[i] = Entry{ID: l.ids[i], Fingerprint: l.fps[i]}
	}
	if err := checkDistinct(append(all, entries...)); err != nil {
		return err
	}
	for _, e := range entries {
		l.fps = append(l.fps, e.Fingerprint)
		l.ids = append(l.ids, e.ID)
	}
	return nil
}

// Delete removes the entry (id, fp) and reports whether it was stored. O(n).
func (l *Linear) Delete(id, fp uint64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	i := l.index(id, fp)
	if i < 0 {
		return false
	}
	last := len(l.fps) - 1
	l.fps[i], l.ids[i] = l.fps[last], l.ids[last]
	l.fps, l.ids = l.fps[:last], l.ids[:last]
	return true
}

func (l *Linear) index(id, fp uint64) int {
	for i, f := range l.fps {
		if f == fp && l.ids[i] == id {
			return i
		}
	}
	return -1
}

// Query returns every stored entry within Hamming distance k of fp, each
// once, sorted by (Distance, ID, Fingerprint); nil if there is none or
// k < 0. O(n + r log r) for r results.
func (l *Linear) Query(fp uint64, k int) []Match {
	return l.AppendQuery(nil, fp, k)
}

// AppendQuery is [Linear.Query] appending its results to dst; it does not
// allocate when dst has room. Only the appended part is sorted.
func (l *Linear) AppendQuery(dst []Match, fp uint64, k int) []Match {
	if k < 0 {
		return dst
	}
	start := len(dst)
	l.mu.RLock()
	ids := l.ids[:len(l.fps)]
	for i, f := range l.fps {
		if d := bits.OnesCount64(f ^ fp); d <= k {
			dst = append(dst, Match{ID: ids[i], Fingerprint: f, Distance: d})
		}
	}
	l.mu.RUnlock()
	slices.SortFunc(dst[start:], compareMatches)
	return dst
}
