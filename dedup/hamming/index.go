package hamming

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"
)

// maxSlots bounds the entries an Index holds: slots are uint32.
const maxSlots = math.MaxUint32

// Index is a Hamming-distance index over permuted block tables (see the
// package documentation). Below, T = C(m, K) is the number of tables and n
// the number of entries.
//
// Lifecycle. [New] returns an empty index. [Index.InsertBatch] bulk-loads
// (one radix sort per table, O(T·n)) and [Index.Insert] adds one entry at a
// time; both may be mixed with queries and deletes at any time. Each table
// keeps a main array of permuted keys, sorted and indexed by a directory on
// their top bits, and a small sorted delta. Insert adds to every delta; once
// the deltas hold more than [Options.MergeThreshold] entries they are merged
// into the main arrays in place, O(T·n) memory moves amortized over the
// inserts (LSM-style). [Index.Delete] turns the entry into a tombstone that
// queries skip at once; when tombstones outnumber both MergeThreshold and an
// eighth of the live entries, a purge, O(T·n), drops them from the tables
// and frees their slots for reuse.
//
// Memory. Every entry is stored once (16 bytes: ID and fingerprint), plus
// per table an 8-byte permuted key, a 4-byte slot number and at most one
// byte of directory: about 64 bytes per entry for the default layout, more
// while arrays have spare capacity after incremental inserts or hold
// tombstones. An Index holds at most 2³²−1 entries.
//
// Concurrency. An Index is safe for concurrent use: queries share a read
// lock and run in parallel; Insert, InsertBatch and Delete take the write
// lock, and hold it during any merge or purge they trigger.
type Index struct {
	lay layout // immutable after New

	mu      sync.RWMutex
	entries []Entry  // indexed by slot
	dead    bitset   // slots holding no live entry: deleted or free
	tomb    []uint32 // deleted slots still referenced by the tables
	free    []uint32 // slots referenced by no table, reused first
	live    int
	pending int   // entries in the deltas
	merges  int64 // delta merges so far
	purges  int64 // tombstone purges so far
	tables  []table
}

// Stats describes the state of an [Index].
type Stats struct {
	Len        int   // live entries
	Tables     int   // C(Blocks, MaxDistance)
	Pending    int   // inserted entries waiting in the deltas for a merge
	Tombstones int   // deleted entries still in the tables until a purge
	Merges     int64 // delta merges performed so far
	Purges     int64 // tombstone purges performed so far
	Bytes      int64 // memory held by the index's arrays
}

// New returns an empty index with the layout opts describes; zero fields of
// opts take their defaults. It fails with an error wrapping
// [ErrInvalidOptions] when opts.Validate does.
func New(opts Options) (*Index, error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	lay := newLayout(o)
	return &Index{lay: lay, tables: make([]table, len(lay.tables))}, nil
}

// Options returns the options of x with defaults filled in and BlockWidths
// explicit.
func (x *Index) Options() Options {
	o := x.lay.opts
	o.BlockWidths = slices.Clone(o.BlockWidths)
	return o
}

// Len returns the number of stored entries. O(1).
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.live
}

// Stats returns counters and the memory footprint of x. O(T).
func (x *Index) Stats() Stats {
	x.mu.RLock()
	defer x.mu.RUnlock()
	s := Stats{
		Len:        x.live,
		Tables:     len(x.tables),
		Pending:    x.pending,
		Tombstones: len(x.tomb),
		Merges:     x.merges,
		Purges:     x.purges,
		Bytes:      int64(cap(x.entries))*16 + int64(cap(x.dead))*8 + int64(cap(x.tomb)+cap(x.free))*4,
	}
	for i := range x.tables {
		s.Bytes += x.tables[i].bytes()
	}
	return s
}

// Insert stores the entry (id, fp). It fails with an error wrapping
// [ErrOutOfRange] if fp has bits set above Options.Bits, or [ErrExists] if
// the pair is already stored. Cost: O(T·D + r) for deltas of D ≤
// MergeThreshold entries (a sorted insert into each) and r entries sharing
// fp, plus an O(T·n) merge every MergeThreshold inserts.
func (x *Index) Insert(id, fp uint64) error {
	e := Entry{ID: id, Fingerprint: fp}
	if err := x.checkRange(e); err != nil {
		return err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, ok := x.find(e); ok {
		return existsError(e)
	}
	if err := x.checkRoom(1); err != nil {
		return err
	}
	x.add(e)
	x.maintain()
	return nil
}

// InsertBatch stores all entries, or none if it fails: with an error
// wrapping [ErrOutOfRange] for a fingerprint wider than Options.Bits, or
// [ErrExists] for a pair already stored or repeated in entries. A batch
// that fits in the deltas is inserted as by Insert; a larger one is radix
// sorted and merged into every table at once: O(b log b + T·(n + b)) for b
// entries (the b log b checks the batch for repeats).
func (x *Index) InsertBatch(entries []Entry) error {
	for _, e := range entries {
		if err := x.checkRange(e); err != nil {
			return err
		}
	}
	if err := checkDistinct(entries); err != nil {
		return err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.live > 0 {
		for _, e := range entries {
			if _, ok := x.find(e); ok {
				return existsError(e)
			}
		}
	}
	if err := x.checkRoom(len(entries)); err != nil {
		return err
	}
	if x.pending+len(entries) <= x.mergeThreshold() {
		for _, e := range entries {
			x.add(e)
		}
		return nil
	}
	batch := make([]uint32, len(entries))
	for i, e := range entries {
		batch[i] = x.alloc(e)
	}
	x.merge(batch)
	return nil
}

// Delete removes the entry (id, fp) and reports whether it was stored.
// Cost: O(log D + r), r the entries sharing fp, plus an O(T·n) purge once
// tombstones exceed max(MergeThreshold, n/8) for n live entries.
func (x *Index) Delete(id, fp uint64) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	slot, ok := x.find(Entry{ID: id, Fingerprint: fp})
	if !ok {
		return false
	}
	x.dead.set(slot)
	x.tomb = append(x.tomb, slot)
	x.live--
	x.maintain()
	return true
}

// Query returns every stored entry within Hamming distance k of fp, each
// once, sorted by (Distance, ID, Fingerprint); nil if there is none. k above
// Options.MaxDistance is clamped to it (the tables cannot answer wider
// queries: use [Linear]); k < 0 matches nothing. Bits of fp above
// Options.Bits count towards the distance like any other.
//
// Cost: O(T_k·(c + log D) + r log r), where T_k = C(m−K+k, k) ≤ T tables
// are probed, c is the number of keys per table sharing the query's m−K
// prefix blocks (about n/2^(prefix bits) for random fingerprints; each costs
// an XOR and a popcount), D ≤ MergeThreshold the delta size and r the number
// of results. A directory on the top key bits finds the candidates of a
// table with one lookup rather than a binary search over n keys.
func (x *Index) Query(fp uint64, k int) []Match {
	return x.AppendQuery(nil, fp, k)
}

// AppendQuery is [Index.Query] appending its results to dst; it does not
// allocate when dst has room. Only the appended part is sorted.
func (x *Index) AppendQuery(dst []Match, fp uint64, k int) []Match {
	k = min(k, x.lay.opts.MaxDistance) - bits.OnesCount64(fp&^x.lay.fpMask)
	if k < 0 {
		return dst
	}
	start := len(dst)
	x.mu.RLock()
	for t, tl := range x.lay.tables[:x.lay.probes[k]] {
		key := tl.perm.apply(fp)
		lo, hi := key&tl.prefix, key|^tl.prefix
		dst = x.scan(dst, x.tables[t].candidates(lo, hi, tl.prefixBits), t, fp, key, k)
		dst = x.scan(dst, x.tables[t].delta.between(lo, hi), t, fp, key, k)
	}
	x.mu.RUnlock()
	slices.SortFunc(dst[start:], compareMatches)
	return dst
}

// scan appends the live entries of r within distance k of the query fp
// (key, permuted for table t) for which t is the canonical table.
func (x *Index) scan(dst []Match, r run, t int, fp, key uint64, k int) []Match {
	slots := r.slots[:len(r.keys)]
	for i, c := range r.keys {
		if diff := c ^ key; bits.OnesCount64(diff) > k || !x.lay.canonical(t, diff) {
			continue
		}
		s := slots[i]
		if x.dead.has(s) {
			continue
		}
		e := x.entries[s]
		dst = append(dst, Match{ID: e.ID, Fingerprint: e.Fingerprint, Distance: bits.OnesCount64(e.Fingerprint ^ fp)})
	}
	return dst
}

func (x *Index) checkRange(e Entry) error {
	if e.Fingerprint&^x.lay.fpMask != 0 {
		return fmt.Errorf("hamming: id %d fingerprint %#x has more than %d bits: %w",
			e.ID, e.Fingerprint, x.lay.opts.Bits, ErrOutOfRange)
	}
	return nil
}

func (x *Index) checkRoom(n int) error {
	if int64(n) > int64(len(x.free))+maxSlots-int64(len(x.entries)) {
		return fmt.Errorf("hamming: index full: at most %d entries", maxSlots)
	}
	return nil
}

// find returns the slot of the live entry e, looked up by the permuted key
// of table 0, which is equal exactly for equal fingerprints.
func (x *Index) find(e Entry) (uint32, bool) {
	tl, tb := &x.lay.tables[0], &x.tables[0]
	key := tl.perm.apply(e.Fingerprint)
	for _, r := range [2]run{tb.candidates(key, key, tl.prefixBits), tb.delta} {
		r = r.between(key, key)
		for _, s := range r.slots {
			if !x.dead.has(s) && x.entries[s] == e {
				return s, true
			}
		}
	}
	return 0, false
}

// alloc stores e in a free slot, or a new one, and returns the slot. The
// caller has checked there is room.
func (x *Index) alloc(e Entry) uint32 {
	var s uint32
	if n := len(x.free); n > 0 {
		s = x.free[n-1]
		x.free = x.free[:n-1]
		x.entries[s] = e
	} else {
		s = uint32(len(x.entries))
		x.entries = append(x.entries, e)
		if int(s>>6) == len(x.dead) {
			x.dead = append(x.dead, 0)
		}
	}
	x.dead.clear(s)
	x.live++
	return s
}

// add stores e and inserts its keys into the deltas.
func (x *Index) add(e Entry) {
	s := x.alloc(e)
	for t, tl := range x.lay.tables {
		x.tables[t].delta.insert(tl.perm.apply(e.Fingerprint), s)
	}
	x.pending++
}

func (x *Index) mergeThreshold() int {
	if m := x.lay.opts.MergeThreshold; m > 0 {
		return m
	}
	return max(1024, int(4*math.Sqrt(float64(x.live))))
}

// maintain merges the deltas and purges tombstones when they have grown
// past their thresholds.
func (x *Index) maintain() {
	m := x.mergeThreshold()
	if x.pending > m {
		x.merge(nil)
	}
	if len(x.tomb) > max(m, x.live/8) {
		x.purge()
	}
}

// merge moves every delta, and the new slots in batch, into the main
// arrays.
func (x *Index) merge(batch []uint32) {
	var b, tmp run
	if len(batch) > 0 {
		b = run{keys: make([]uint64, len(batch)), slots: make([]uint32, len(batch))}
		tmp = run{keys: make([]uint64, len(batch)), slots: make([]uint32, len(batch))}
	}
	for t, tl := range x.lay.tables {
		tb := &x.tables[t]
		tb.absorb(tb.delta, tl.prefixBits)
		tb.delta.reset()
		if len(batch) > 0 {
			for i, s := range batch {
				b.keys[i], b.slots[i] = tl.perm.apply(x.entries[s].Fingerprint), s
			}
			radixSort(b, tmp)
			tb.absorb(b, tl.prefixBits)
		}
	}
	x.pending = 0
	x.merges++
}

// purge drops the tombstones from every table and frees their slots.
func (x *Index) purge() {
	for t, tl := range x.lay.tables {
		x.tables[t].filter(x.dead, tl.prefixBits)
	}
	x.free = append(x.free, x.tomb...)
	x.tomb = x.tomb[:0]
	x.purges++
}
