package dedup

import (
	"cmp"
	"slices"

	"github.com/doppel-search/doppel/dedup/signatures"
)

// Insert's costly part — finding a document's candidates in the posting
// lists and verifying them against the sets of the documents they name —
// reads the Detector and changes nothing. AddSeq does it on the signing
// goroutines, under the read lock, against the Detector as it is then
// (a snapshot: the documents stored so far), and hands what it found to
// Insert with the prepared document (a preVerified). Insert, serial,
// then runs the very same decision as without it, and takes from the
// snapshot what is still true:
//
//   - the candidates, if no list the document's keys name has changed
//     since (no document inserted since shares a key with it: the
//     dirty table below says so) — otherwise it reads the lists again;
//   - the score of every pair verified then: a verification is a pure
//     function of the two stored sets, which an Insert never changes.
//     A candidate or a master new since the snapshot is verified then
//     and there.
//
// Anything else that changes the Detector (Remove, Update, Refresh,
// Recluster, Close) moves the epoch on, and a preVerified of an older
// epoch is dropped whole. So the results, the pairs, the clusters and the
// counters are those of the serial path, document for document.
type preVerified struct {
	epoch uint64 // d.epoch when it was made
	seq   uint32 // documents (slots) stored then, len(d.docs)
	// keys: the dirty-table hashes of the document's keys.
	keys []uint64
	// cands: the candidates then, as candidates returns them; reusable
	// unless the Detector finds SimHash neighbours too (the Hamming index
	// changes with every new fingerprint).
	cands    []candidate
	reusable bool
	// memo: the verifications done, by document.
	memo []premise
}

// A premise is one verification done ahead: the document verified
// against, the floor it was verified with (matchAbove) and the outcome.
type premise struct {
	doc   uint32
	ok    bool
	floor float64
	score float64
}

// lookup returns the verification of document o with floor, if it was
// done ahead.
func (pv *preVerified) lookup(o uint32, floor float64) (score float64, ok, done bool) {
	i, found := slices.BinarySearchFunc(pv.memo, o, func(p premise, o uint32) int { return cmp.Compare(p.doc, o) })
	for ; found && i < len(pv.memo) && pv.memo[i].doc == o; i++ {
		if p := pv.memo[i]; p.floor == floor {
			return p.score, p.ok, true
		}
	}
	return 0, false, false
}

// dirtyBits sizes the dirty table: 2²⁰ stamps, 4 MiB, whatever the
// number of documents.
const dirtyBits = 20

// dirtyHash returns the dirty-table hash of k: two slots of dirtyBits,
// from its top bits and from bits 8 on.
func dirtyHash(k signatures.Key) uint64 {
	h := k.Sum*0x9e3779b97f4a7c15 + uint64(k.Kind)
	h ^= h >> 31
	h *= 0xbf58476d1ce4e5b9
	return h ^ h>>29
}

// dirtySlots returns the two slots of a dirty-table hash.
func dirtySlots(h uint64) (uint32, uint32) {
	const mask = 1<<dirtyBits - 1
	return uint32(h >> (64 - dirtyBits)), uint32(h>>8) & mask
}

// markDirty notes that the list of the key of hash h changed when
// document idx was listed: both its slots get idx+1, the number of
// documents stored with it (slots only grow: later documents stamp
// higher).
func (d *Detector) markDirty(h uint64, idx uint32) {
	a, b := dirtySlots(h)
	d.dirty[a], d.dirty[b] = idx+1, idx+1
}

// changedSince reports whether the list of a key of hash h may have
// changed since seq documents were stored: both its slots are stamped
// later. Exact when it says no (a key listed since stamped both); a
// yes may come of two other keys sharing the slots (about 1 in 100,000
// keys with a few hundred documents in between).
func (d *Detector) changedSince(h uint64, seq uint32) bool {
	a, b := dirtySlots(h)
	return d.dirty[a] > seq && d.dirty[b] > seq
}

// preverifies reports whether preverify does anything: for the hybrid
// with exact verification (reading sets is what takes time), on a
// Detector of its own (not a Shared), unless turned off (serialVerify).
// The caller holds d.mu (read or write).
func (d *Detector) preverifies() bool {
	return d.remote == nil && !d.serialVerify && d.opts.Method == Hybrid && d.opts.Verify == Exact && d.dirty != nil
}

// enablePreverify makes room for the dirty table, once; AddSeq calls it.
func (d *Detector) enablePreverify() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dirty == nil && d.remote == nil && d.opts.Method == Hybrid && d.opts.Verify == Exact {
		d.dirty = make([]uint32, 1<<dirtyBits)
	}
}

// A preScratch is the reusable memory of one signing goroutine's
// preverify calls.
type preScratch struct {
	keys   []signatures.Key
	cands  []candidate
	groups []candidateGroup
	flat   []uint32
	of     map[uint32]int32
	reader preReader
	// touched keeps what the Store's Touch returned (see toucher).
	touched uint64
}

// preverify finds the candidates of p among the documents stored and
// verifies them as Insert's verify would, keeping what it found in p
// (see preVerified). It changes nothing in d: the caller holds d.mu's
// read lock.
func (d *Detector) preverify(p *Prepared, sc *preScratch) {
	rec := p.rec
	if !d.preverifies() || rec.unsignable || p.generation != d.generation {
		return
	}
	pv := &preVerified{epoch: d.epoch, seq: uint32(len(d.docs))}
	sc.keys = d.appendKeys(sc.keys[:0], rec)
	pv.keys = make([]uint64, len(sc.keys))
	for i, k := range sc.keys {
		pv.keys[i] = dirtyHash(k)
	}
	if t, ok := d.lists.(toucher); ok {
		sc.touched += t.Touch(sc.keys)
	}
	cands := sc.cands[:0]
	for _, k := range sc.keys {
		for _, e := range d.lists.Get(k) {
			cands = append(cands, candidate(e.ID)<<32|candidate(e.Group))
		}
	}
	// As candidates: each document once, with the group of its first
	// entry in key order, in arrival order.
	slices.SortStableFunc(cands, func(a, b candidate) int { return cmp.Compare(a.doc(), b.doc()) })
	cands = slices.CompactFunc(cands, func(a, b candidate) bool { return a.doc() == b.doc() })
	sc.cands = cands
	if pv.reusable = d.hamming == nil; pv.reusable {
		pv.cands = slices.Clone(cands)
	}
	pv.memo = d.preverifyGroups(rec, sc.group(cands), sc)
	p.pre = pv
}

// preverifyGroups verifies rec against the master and the candidate
// members of each group as verify would, and returns the verifications
// by document.
func (d *Detector) preverifyGroups(rec *record, groups []candidateGroup, sc *preScratch) []premise {
	floor, masterFloor := d.acceptFloor(), d.acceptFloor()
	if d.prefer != nil {
		masterFloor = min(masterFloor, d.opts.EditFloor)
	}
	sc.reader.d = d
	var memo []premise
	verify := func(o uint32, floor float64) {
		if d.docs[o] == nil {
			return
		}
		sc.reader.failed = false
		s, ok := d.matchHybrid(rec, d.docs[o], floor, &sc.reader)
		if !sc.reader.failed { // a read error is Insert's to meet and report
			memo = append(memo, premise{doc: o, ok: ok, floor: floor, score: s})
		}
	}
	for _, g := range groups {
		master := d.assigned.Master(g.cluster)
		verify(master, masterFloor)
		n := 0
		for _, m := range g.members {
			if m == master {
				continue
			}
			if d.limits.PerGroup > 0 && n == d.limits.PerGroup {
				break
			}
			n++
			verify(m, floor)
		}
	}
	slices.SortStableFunc(memo, func(a, b premise) int { return cmp.Compare(a.doc, b.doc) })
	return memo
}

// group groups cands (in arrival order) by cluster as byCluster does:
// clusters in order of their earliest candidate, members in arrival
// order. Valid until the next call.
func (sc *preScratch) group(cands []candidate) []candidateGroup {
	if sc.of == nil {
		sc.of = map[uint32]int32{}
	}
	clear(sc.of)
	groups := sc.groups[:0]
	for _, c := range cands {
		i, ok := sc.of[c.group()]
		if !ok {
			i = int32(len(groups))
			sc.of[c.group()] = i
			groups = append(groups, candidateGroup{cluster: c.group()})
		}
		groups[i].size++
	}
	sc.flat = fillGroups(groups, cands, sc.flat, func(cl uint32) int32 { return sc.of[cl] })
	sc.groups = groups
	return groups
}

// A preReader reads verification sets under the read lock, for
// preverify: from memory, from the set cache without touching it, or
// from the set file into buffers of its own.
type preReader struct {
	d      *Detector
	buf    [2][]uint64
	failed bool // a read failed since it was last cleared
	memo   hubMemo
}

// hubMemo returns the reader's memo of counts against the long sets'
// bases (see hubSets).
func (r *preReader) hubMemo() *hubMemo { return &r.memo }

// set returns rec's verification set, valid until the next call with the
// same i while the read lock is held.
func (r *preReader) set(rec *record, i int) []uint64 {
	if !rec.spilled {
		return rec.set
	}
	s := r.d.sets
	if s == nil { // closed
		r.failed = true
		return nil
	}
	if e, ok := s.cache.get(rec.slot); ok {
		return s.cache.set(e)
	}
	set, err := s.read(rec.slot, r.buf[i][:0])
	r.buf[i] = set
	if err != nil {
		r.failed = true
	}
	return set
}

// taken returns the preVerified Insert may take over for p, nil if none.
func (d *Detector) taken(p *Prepared) *preVerified {
	if pv := p.pre; pv != nil && pv.epoch == d.epoch && d.preverifies() {
		return pv
	}
	return nil
}

// preCandidates returns the candidates d.cur found ahead, if they are
// still what candidates would find: no list of the document's keys has
// changed since.
func (d *Detector) preCandidates() ([]candidate, bool) {
	pv := d.cur
	if pv == nil || !pv.reusable {
		return nil, false
	}
	for _, h := range pv.keys {
		if d.changedSince(h, pv.seq) {
			d.pre.relisted++
			return nil, false
		}
	}
	d.pre.kept++
	return pv.cands, true
}

// verifyPair is matchAbove(rec, other, floor) for the document being
// inserted, rec, and the stored document o (other), taken from the
// verifications done ahead when there is one.
func (d *Detector) verifyPair(rec *record, o uint32, other *record, floor float64) (float64, bool) {
	if d.cur != nil {
		if s, ok, done := d.cur.lookup(o, floor); done {
			d.pre.reused++
			return s, ok
		}
		d.pre.fresh++
	}
	return d.matchAbove(rec, other, floor)
}

// preStats counts what Insert took of the work done ahead (tests and
// benchmarks read it).
type preStats struct {
	kept     int // candidates taken over
	relisted int // candidates read again: a key's list changed
	reused   int // verifications taken over
	fresh    int // verifications done in Insert (new candidates or masters)
}
