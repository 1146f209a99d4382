package minhash

import (
	"slices"
	"sync"
)

// An LSH is a candidate index for locality-sensitive hashing by banding: it
// maps each band hash (see [Bands]) to the ids of the documents that have
// it. Two documents are candidates when they share a band hash; candidates
// still need verifying (for example with [Sketch.Jaccard]).
//
// All documents in one LSH must use bands made with the same Hasher options
// and the same b and r. The zero value is an empty index ready to use. An
// LSH is safe for concurrent use: Insert and Delete take a write lock,
// Candidates a read lock. An LSH must not be copied after first use.
type LSH struct {
	mu      sync.RWMutex
	buckets map[uint64][]uint64 // band hash → ids, in insertion order
}

// Insert records that document id has the given band hashes. A document
// inserted with no bands (the empty sketch) is never a candidate.
// Inserting the same id twice lists it twice in its buckets (Candidates
// still reports it once); Delete it first to update a document.
//
// Cost: O(len(bands)) expected, amortized.
func (l *LSH) Insert(id uint64, bands []uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.buckets == nil {
		l.buckets = make(map[uint64][]uint64)
	}
	for _, b := range bands {
		l.buckets[b] = append(l.buckets[b], id)
	}
}

// Delete removes document id from the buckets of the given band hashes,
// which must be the bands it was inserted with. It reports whether id was
// found under every one of them (true for no bands); bands or ids that are
// not in the index are ignored.
//
// Cost: O(Σ bucket sizes) over the bands.
func (l *LSH) Delete(id uint64, bands []uint64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	found := true
	for _, b := range bands {
		ids := l.buckets[b]
		i := slices.Index(ids, id)
		if i < 0 {
			found = false
			continue
		}
		ids = slices.Delete(ids, i, i+1)
		if len(ids) == 0 {
			delete(l.buckets, b)
		} else {
			l.buckets[b] = ids
		}
	}
	return found
}

// Candidates returns, sorted in increasing order and without duplicates,
// the ids of every stored document that shares at least one band hash with
// bands (a stored document is its own candidate). It returns nil when
// there is none.
//
// Cost: O(len(bands) + c·log c) where c is the total size of the matching
// buckets; one allocation for the result.
func (l *LSH) Candidates(bands []uint64) []uint64 {
	l.mu.RLock()
	defer l.mu.RUnlock()
	var out []uint64
	for _, b := range bands {
		out = append(out, l.buckets[b]...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
