package dedup

import (
	"slices"

	"github.com/doppel-search/doppel/dedup/features"
)

// hubSets keeps in memory the long verification sets written to the set
// file (hubMinLen values or more) as their differences from a few base
// sets, so that verifying a new document against them reads nothing.
//
// Long documents that are candidates of one another are most often
// near-copies (a page that embeds one long listing, a manual printed
// twice), and each new one is verified against its cluster's master and
// up to MaxFanout members: reading and counting sets of tens or hundreds
// of thousands of shingles, again and again (the set cache keeps no set
// of more than a quarter of its ring, and a cluster's members read in
// turn evict one another). Kept instead: the first long set that
// resembles no base becomes a base, kept whole; a later one that differs
// from a base by at most a quarter of its own size (near-copies at a
// resemblance of 0.9 differ by about a tenth of their union: two pages
// that share a listing and differ in the rest) is kept as the values of
// the base it lacks (minus, by their places in the base: 4 bytes a value)
// and those it adds (plus). The shingles a new
// document x shares with such a set s = base − minus + plus are
//
//	|x ∩ s| = |x ∩ base| − |x ∩ minus| + |x ∩ plus|
//
// (minus ⊆ base, plus disjoint from it): one count of x against the base
// a document (hubMemo), then a lookup of each value of minus and plus in
// x. The count is exact, so the scores and decisions are those of
// reading the set.
//
// Entries are found by the set's place in the set file, which no other
// set ever takes: a slot given a new set or renumbered finds its own. The
// memory is bounded (hubBudget, of which bases hubBaseBudget) whatever
// the number of documents; past it, sets are read from the file as
// before. Used under the Detector's lock: add under the write lock,
// lookups under the read lock.
type hubSets struct {
	bases     [][]uint64
	by        map[int64]hubDelta // by the set's place in the set file
	bytes     int64              // memory of bases and deltas
	baseBytes int64
}

// A hubDelta is a long set as its difference from bases[base].
type hubDelta struct {
	base  int32
	minus []uint32 // the places in the base of the values the set lacks, in order
	plus  []uint64 // the set's values the base lacks, sorted
}

const (
	// hubMinLen is the length from which a set is kept in hubSets:
	// 8 Ki shingles, a document of about 50 KB of text.
	hubMinLen = 8 << 10
	// hubBudget bounds the memory of hubSets: 48 MiB, 50 bytes a
	// document at 1M.
	hubBudget = 48 << 20
	// hubBaseBudget bounds the bases' part of it.
	hubBaseBudget = 24 << 20
	// hubEntryBytes is what an entry costs besides its values (the map
	// slot, the slice headers).
	hubEntryBytes = 80
	// hubMaxBases bounds the bases a new set is compared with.
	hubMaxBases = 64
)

// add keeps set, written at offset at of the set file, if it is long
// enough and the budget allows: as a delta from the first base it is
// near, or as a new base.
func (h *hubSets) add(at int64, set []uint64) {
	if len(set) < hubMinLen {
		return
	}
	if h.by == nil {
		h.by = map[int64]hubDelta{}
	}
	limit := len(set) / 4
	for i, b := range h.bases {
		if abs(len(b)-len(set)) > limit {
			continue
		}
		minus, plus, ok := setDiff(b, set, limit)
		if !ok {
			continue
		}
		cost := deltaBytes(minus, plus)
		if h.bytes+cost > hubBudget {
			return
		}
		h.by[at] = hubDelta{base: int32(i), minus: minus, plus: plus}
		h.bytes += cost
		return
	}
	cost := int64(8*len(set) + hubEntryBytes)
	if len(h.bases) == hubMaxBases || h.baseBytes+cost > hubBaseBudget || h.bytes+cost > hubBudget {
		return
	}
	h.bases = append(h.bases, slices.Clone(set))
	h.by[at] = hubDelta{base: int32(len(h.bases) - 1)}
	h.bytes += cost
	h.baseBytes += cost
}

// drop forgets the set at offset at (its slot was given a new one); a
// base stays, as other sets are kept against it.
func (h *hubSets) drop(at int64) {
	e, ok := h.by[at]
	if !ok {
		return
	}
	delete(h.by, at)
	if e.minus != nil || e.plus != nil {
		h.bytes -= deltaBytes(e.minus, e.plus)
	}
}

// deltaBytes is the memory hubSets counts for a delta.
func deltaBytes(minus []uint32, plus []uint64) int64 {
	return int64(4*len(minus) + 8*len(plus) + hubEntryBytes)
}

// get returns the entry of the set at offset at.
func (h *hubSets) get(at int64) (hubDelta, bool) {
	e, ok := h.by[at]
	return e, ok
}

// abs returns |v|.
func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// setDiff returns the places in base of its values not in set (minus)
// and the values of set not in base (plus), both sorted sets, if there are
// at most limit of them in all; false otherwise, found as soon as there
// are more.
func setDiff(base, set []uint64, limit int) (minus []uint32, plus []uint64, ok bool) {
	nm, np, ok := diffCounts(base, set, limit)
	if !ok {
		return nil, nil, false
	}
	minus, plus = make([]uint32, 0, nm), make([]uint64, 0, np)
	i, j := 0, 0
	for i < len(base) && j < len(set) {
		switch {
		case base[i] < set[j]:
			minus = append(minus, uint32(i))
			i++
		case base[i] > set[j]:
			plus = append(plus, set[j])
			j++
		default:
			i++
			j++
		}
	}
	for ; i < len(base); i++ {
		minus = append(minus, uint32(i))
	}
	plus = append(plus, set[j:]...)
	return minus, plus, true
}

// diffCounts counts the values of a not in b and of b not in a, both
// sorted sets, stopping with false once there are more than limit.
func diffCounts(a, b []uint64, limit int) (na, nb int, ok bool) {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			na++
			i++
		case a[i] > b[j]:
			nb++
			j++
		default:
			i++
			j++
			continue
		}
		if na+nb > limit {
			return 0, 0, false
		}
	}
	na, nb = na+len(a)-i, nb+len(b)-j
	return na, nb, na+nb <= limit
}

// countIn returns how many values of small, a sorted set, are in large, a
// sorted set: a galloping search from the last one found when small is
// much the shorter, a merge otherwise.
func countIn(small, large []uint64) int {
	if len(small)*16 > len(large) {
		return features.Intersection(small, large)
	}
	found, lo := 0, 0
	for _, v := range small {
		k, ok := gallop(large, lo, v)
		if lo = k; ok {
			found++
			lo++
		}
		if lo >= len(large) {
			break
		}
	}
	return found
}

// countPlaces is countIn for the values of base at places (in order).
func countPlaces(places []uint32, base, large []uint64) int {
	found, lo := 0, 0
	if len(places)*16 > len(large) { // a merge
		for _, p := range places {
			v := base[p]
			for lo < len(large) && large[lo] < v {
				lo++
			}
			if lo == len(large) {
				break
			}
			if large[lo] == v {
				found++
				lo++
			}
		}
		return found
	}
	for _, p := range places {
		k, ok := gallop(large, lo, base[p])
		if lo = k; ok {
			found++
			lo++
		}
		if lo >= len(large) {
			break
		}
	}
	return found
}

// gallop returns the first place from lo on where large, sorted, holds a
// value ≥ v, and whether it is v: steps of doubling length, then a
// binary search within the last.
func gallop(large []uint64, lo int, v uint64) (int, bool) {
	step, hi := 1, lo
	for hi < len(large) && large[hi] < v {
		lo = hi + 1
		hi += step
		step *= 2
	}
	hi = min(hi+1, len(large))
	k, ok := slices.BinarySearch(large[lo:hi], v)
	return lo + k, ok
}

// A hubMemo keeps, for one document being verified (rec, whose set is in
// memory), how many values it shares with each base of a hubSets: -1
// where not counted yet.
type hubMemo struct {
	rec   *record
	hubs  *hubSets
	inter []int
	hits  int // pairs counted from hubSets (tests read it)
}

// of returns |x ∩ bases[base]|, x being rec's set.
func (m *hubMemo) of(rec *record, x []uint64, h *hubSets, base int32) int {
	if m.rec != rec || m.hubs != h {
		m.rec, m.hubs, m.inter = rec, h, m.inter[:0]
	}
	for len(m.inter) <= int(base) {
		m.inter = append(m.inter, -1)
	}
	if m.inter[base] < 0 {
		m.inter[base] = features.Intersection(x, h.bases[base])
	}
	return m.inter[base]
}

// hubInter returns how many shingles a, whose set is in memory, shares
// with b, whose set is in the set file, if hubSets keeps b's; false if it
// does not (the caller reads the set).
func (d *Detector) hubInter(a, b *record, memo *hubMemo) (int, bool) {
	s := d.sets
	if s == nil || a.spilled || !b.spilled || len(s.hubs.by) == 0 || int(b.slot) >= len(s.at) {
		return 0, false
	}
	e, ok := s.hubs.get(s.at[b.slot])
	if !ok {
		return 0, false
	}
	x, base := a.set, s.hubs.bases[e.base]
	memo.hits++
	return memo.of(a, x, &s.hubs, e.base) - countPlaces(e.minus, base, x) + countIn(e.plus, x), true
}
