package dedup

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/cespare/xxhash/v2"

	"github.com/doppel-search/doppel/dedup/cluster"
	"github.com/doppel-search/doppel/dedup/signatures"
)

// ErrUnknownID is returned by [Detector.Remove] for an id that is not
// stored.
var ErrUnknownID = errors.New("dedup: unknown document id")

// A Change is what [Detector.Remove] or [Detector.Update] did to the
// clusters: enough for an index to follow (package indexer applies it with
// Index.Remove and Index.Update).
type Change struct {
	ID string // the document removed or given a new version
	// Cluster is the cluster the document was in; "" when Update added a
	// document that was not stored (Result says where it went).
	Cluster cluster.ID
	// WasMaster says the document was Cluster's master.
	WasMaster bool
	// Master is Cluster's master after the change; "" when the cluster is
	// gone (the document was its only member).
	Master string
	// Elected says Master was elected because the master left: it was
	// removed, or its new version is not a near-duplicate of its old one,
	// or a member (other than through the edit allowance) is not a copy of
	// it. An index makes Master the searchable master and applies its
	// policy to the other members again, as on a hand-over.
	Elected bool
	// Moved lists the members that left Cluster on an election that found
	// no member of which all the others are copies: the member the policy
	// prefers became master, and every member that is not its copy (and
	// did not join through the edit allowance) was inserted again as a new
	// document would be, in arrival order, keeping its arrival place. Each
	// Result says where it went: a cluster of its own, another cluster
	// (NewMaster when it took that one over), or back into Cluster through
	// the edit allowance (Edited). Its Pairs are nil: its near-duplicates
	// have not changed.
	Moved []Result
	// Left (Update only) says the document left Cluster: its new version
	// is not a near-duplicate of the master (for a member), or not one of
	// its old version or not one every member is a copy of (for a
	// master). It was inserted as a new document, last in arrival order,
	// and Cluster was handed over as on a removal.
	Left bool
	// Result (Update only) is the document's place after the change as
	// Insert reports it — Cluster, Master, Duplicate (it shares its
	// cluster), NewMaster (it took the cluster over) and Demoted, Edited, Simhash —
	// with Pairs listing the near-duplicates found of the new version,
	// earlier or later, each pair ordered by arrival (nil when the content
	// is unchanged: its near-duplicates are those it had).
	Result Result
}

// A Fingerprint identifies the content of a document as the Detector
// compares it: what a crawler stores to tell, on a revisit, a page that
// did not change from one that changed a little or a lot.
type Fingerprint struct {
	// Content is a 64-bit hash of everything the Detector signs: the
	// tokens of Text after the Options.Terms filters, those of Tagged, and
	// Meta. Equal Content means the same document to the Detector:
	// markup, case, punctuation and spacing do not count, nor dates under
	// StripDates.
	Content uint64
	// Simhash is the SimHash signature; 0 when the method computes none
	// (IMatch, IMatchMulti, MinHash, DSCSS). It depends on the statistics
	// table: compare fingerprints signed with the same one.
	Simhash uint64
}

// A Difference says how a new version of a document differs from the old
// one.
type Difference int

// The differences, from [Fingerprint.Compare].
const (
	Unchanged Difference = iota // the same Content
	Trivial                     // other Content, SimHash within k bits: most likely a near-duplicate of the old version
	Changed                     // SimHash more than k bits apart, or no SimHash to tell
)

var differenceNames = [...]string{"unchanged", "trivial", "changed"}

// String returns "unchanged", "trivial" or "changed".
func (d Difference) String() string {
	if d < 0 || int(d) >= len(differenceNames) {
		return fmt.Sprintf("Difference(%d)", int(d))
	}
	return differenceNames[d]
}

// Compare classifies f, a new version, against old, with k the largest
// Hamming distance between near-duplicate SimHash signatures
// (Options.HammingK). Trivial is an estimate from 64 bits: Update decides
// by the configured similarity whether a new version stays in its
// cluster. Without SimHash signatures (both 0), a new Content is Changed.
// Cost: O(1).
func (f Fingerprint) Compare(old Fingerprint, k int) Difference {
	switch {
	case f.Content == old.Content:
		return Unchanged
	case f.Simhash == 0 && old.Simhash == 0:
		return Changed
	case distance(f.Simhash, old.Simhash) <= k:
		return Trivial
	}
	return Changed
}

func distance(a, b uint64) int {
	n := 0
	for x := a ^ b; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// contentHash is Fingerprint.Content of a document with the (filtered)
// tokens of its text and tagged text, and its metadata.
// It hashes the bytes in one call: each token followed by 0, each part
// by 1.
func contentHash(tokens, tagged, meta []string) uint64 {
	parts := [...][]string{tokens, tagged, meta}
	bp := hashBufs.Get().(*[]byte)
	buf := (*bp)[:0]
	for _, part := range parts {
		for _, t := range part {
			buf = append(append(buf, t...), 0)
		}
		buf = append(buf, 1)
	}
	h := xxhash.Sum64(buf)
	if cap(buf) <= maxPooled {
		*bp = buf
		hashBufs.Put(bp)
	}
	return h
}

// hashBufs are contentHash's buffers, reused: signing allocates less.
var hashBufs = sync.Pool{New: func() any { return new([]byte) }}

// maxPooled is the largest buffer (in elements) signing keeps for reuse;
// a larger one, of an unusually long document, is left to the collector.
const maxPooled = 1 << 20

// Fingerprint returns the fingerprint of the stored document id (its
// latest version), and false if it is not stored. Cost: O(1).
func (d *Detector) Fingerprint(id string) (Fingerprint, bool) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	idx, ok := d.byID[id]
	if !ok {
		return Fingerprint{}, false
	}
	rec := d.docs[idx]
	return Fingerprint{Content: rec.content, Simhash: uint64(rec.change)}, true
}

// Remove takes the document id out of the Detector: out of every candidate
// list (the Hamming index, the I-Match, LSH, whole-sketch and super
// shingle lists), of the pairs StarAssignments reads, of its cluster and
// of the counters. The id may be added again later, as a new document.
//
// A cluster left empty is gone. A cluster that loses its master elects a
// new one, keeping its id: the member the master policy prefers (ties to
// the earliest) among those of which every other member is a copy — at
// the Threshold under the edit allowance; members that joined through the
// allowance (Result.Edited) do not count, as for a take-over on Insert.
// If no member qualifies, the member the policy prefers becomes master
// anyway and the members that are not its copies (edited ones stay) are
// inserted again, in arrival order, as new documents would be; they keep
// their arrival places. Change reports the new master and where the moved
// members went.
//
// A list that held MaxFanout documents of the cluster is refilled with the
// earliest member it refused, so later copies still find the cluster as
// they would after a rebuild (stop signatures stay stopped, and a SimHash
// fingerprint kept out of the Hamming index as dense stays out).
//
// Cost: O(signatures × list length) to unlist, O(members) to refill
// (less when the first members have the signatures, as copies do),
// O(pairs of its near-duplicates) for the pairs. When it was the master:
// about one verification per member for an election — at most
// min(members, MaxFanout) candidates are tried, each against every
// member, so O(members × MaxFanout) verifications when nobody qualifies —
// and an Insert per moved member.
func (d *Detector) Remove(id string) (Change, error) {
	if d.remote != nil {
		return Change{}, ErrShared
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.epoch++ // what was verified ahead no longer holds (see preVerified)
	idx, ok := d.byID[id]
	if !ok {
		return Change{}, fmt.Errorf("%w: %q", ErrUnknownID, id)
	}
	ch := d.remove(idx)
	d.stats.Removed++
	d.count()
	return ch, nil
}

// Replace gives the stored document doc.ID a new version: Update(Prepare(doc)).
func (d *Detector) Replace(doc Document) (Change, error) {
	p, err := d.Prepare(doc)
	if err != nil {
		return Change{}, err
	}
	return d.Update(p)
}

// Update puts the prepared new version of a stored document in place of
// the old one, as Remove then Insert would, except that the document keeps
// its cluster, its arrival place and its role when the change is trivial:
//
//   - The same content (Fingerprint.Content): only the attributes (URL,
//     Time, Quality) are updated; the document keeps its role whatever
//     the master policy says of them.
//   - A member whose new version is a near-duplicate of its master stays;
//     Edited is decided again, and it takes the cluster over if the policy
//     prefers it and it may lead, as on Insert.
//   - A master whose new version is a near-duplicate of its old one and of
//     which every member (but edited ones) is still a copy stays master.
//   - Otherwise the document leaves (Change.Left): its cluster is handed
//     over as by Remove, and the new version is inserted as a new
//     document, last in arrival order.
//
// A document that is not stored is inserted (Change.Cluster is ""). Update
// is the same as Replace with the signing done beforehand, outside the
// lock (see Prepare). Cost: that of Remove and Insert when the document
// leaves; when it stays, an Insert's candidates and verifications plus,
// for a master, one verification per member.
func (d *Detector) Update(p *Prepared) (Change, error) {
	if d.remote != nil {
		return Change{}, ErrShared
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.epoch++ // what was verified ahead no longer holds (see preVerified)
	if p.generation != d.generation {
		p = d.prepare(p.doc)
	}
	rec := p.rec
	id := rec.member.ID
	idx, ok := d.byID[id]
	if !ok {
		res := d.insert(rec)
		d.count()
		return Change{ID: id, Result: res}, nil
	}
	d.stats.Replaced++
	old := d.docs[idx]
	g := d.assigned.Of(idx)
	ref := d.ref(g)
	isMaster := ref.master == idx
	ch := Change{ID: id, Cluster: d.clusters.id(g), WasMaster: isMaster}
	if rec.content == old.content && rec.unsignable == old.unsignable {
		d.stats.Unchanged++
		old.member = rec.member
		ch.Master = d.docs[ref.master].member.ID
		ch.Result = d.resultOf(idx)
		return ch, nil
	}
	stays, score := false, 0.0
	switch {
	case rec.unsignable || old.unsignable:
	case isMaster:
		_, ok := d.match(rec, old)
		stays = ok && d.leads(idx, rec, d.memberSlots(g, idx), nil)
	default:
		score, stays = d.match(rec, d.docs[ref.master])
	}
	if !stays {
		d.leave(idx, &ch)
		d.free(idx)
		ch.Left = true
		ch.Result = d.insert(rec)
		d.stats.Left++
		d.count()
		return ch, nil
	}

	// The document stays in its place with its new version.
	d.unindex(idx, old)
	d.unlink(idx)
	rec.edited = !isMaster && d.opts.EditAllowance > 0 && score < d.opts.Threshold
	d.docs[idx] = rec
	d.dropParts(id)
	found, _, _, dense := d.verify(idx, rec, true)
	defer d.spill(idx, rec)
	demoted := ""
	if !isMaster && d.mayLead(rec, score, g) {
		demoted = d.docs[ref.master].member.ID
		d.assigned.SetMaster(g, idx)
		d.stats.NewMasters++
	}
	d.index(idx, rec, dense)
	pairs := d.link(idx, found)
	ch.Result = d.resultOf(idx)
	ch.Result.NewMaster, ch.Result.Demoted = demoted != "", demoted
	ch.Result.Pairs = pairs
	ch.Result.ContainedIn, ch.Result.Parts = d.keepParts(id)
	ch.Master = ch.Result.Master
	return ch, nil
}

// resultOf describes document idx where it is now, without pairs.
func (d *Detector) resultOf(idx uint32) Result {
	rec := d.docs[idx]
	g := d.assigned.Of(idx)
	master := d.docs[d.assigned.Master(g)].member.ID
	return Result{ID: rec.member.ID, Cluster: d.clusters.id(g), Master: master, Duplicate: d.clusters.size[g] > 1,
		Unsignable: rec.unsignable, Edited: rec.edited && master != rec.member.ID, Simhash: uint64(rec.change),
		ContainedIn: d.parts[rec.member.ID].ID}
}

// remove takes document idx out of everything and frees its slot.
func (d *Detector) remove(idx uint32) Change {
	rec := d.docs[idx]
	g := d.assigned.Of(idx)
	ch := Change{ID: rec.member.ID, Cluster: d.clusters.id(g), WasMaster: d.assigned.Master(g) == idx}
	d.leave(idx, &ch)
	d.free(idx)
	return ch
}

// free empties the slot of document idx, which is in no list and no
// cluster: the slot is never used again.
func (d *Detector) free(idx uint32) {
	rec := d.docs[idx]
	d.docs[idx] = nil
	delete(d.byID, rec.member.ID)
	d.dropParts(rec.member.ID)
	d.stats.Documents--
	if rec.unsignable {
		d.stats.Unsignable--
	}
}

// leave takes document idx out of the candidate lists, its pairs and its
// cluster, and hands the cluster over if it was the master: ch gets the
// cluster's master after it, whether it was elected and the members
// moved.
func (d *Detector) leave(idx uint32, ch *Change) {
	rec := d.docs[idx]
	g := d.assigned.Of(idx)
	d.unindex(idx, rec)
	d.unlink(idx)
	rest := d.memberSlots(g, idx)
	d.clusters.leave(g, idx)
	if len(rest) == 0 {
		return // it was alone
	}
	if master := d.assigned.Master(g); master != idx {
		ch.Master = d.docs[master].member.ID
		return
	}
	keeper, qualified := d.elect(rest)
	d.assigned.SetMaster(g, keeper)
	ch.Master = d.docs[keeper].member.ID
	d.docs[keeper].edited = false
	ch.Elected = true
	d.stats.Elections++
	if qualified {
		return
	}
	var moving []uint32
	for _, m := range d.memberSlots(g, keeper) {
		if other := d.docs[m]; !other.edited && !d.copyOf(other, d.docs[keeper]) {
			moving = append(moving, m)
		}
	}
	for _, m := range moving {
		other := d.docs[m]
		d.unindex(m, other)
		d.clusters.leave(g, m) // a member: no election
		other.edited = false
		ch.Moved = append(ch.Moved, d.assign(m, other, false))
		d.stats.Moved++
	}
}

// memberSlots returns the slots of the members of cluster number g other
// than except, in arrival order.
func (d *Detector) memberSlots(g, except uint32) []uint32 {
	ms := d.clusters.members(g)
	out := make([]uint32, 0, len(ms))
	for _, m := range ms {
		if m != except {
			out = append(out, m)
		}
	}
	slices.Sort(out)
	return out
}

// elect chooses the new master among members (slots in arrival order) of
// a cluster whose master has left: the first member, in the policy's order (ties to the earliest), of which
// every other member but the edited ones is a copy, trying at most
// MaxFanout of them. If none qualifies it returns the first in that order
// and false.
func (d *Detector) elect(members []uint32) (uint32, bool) {
	order, tries := d.byPolicy(members)
	var witnesses []uint32 // members that kept earlier candidates out: tried first
	for _, x := range tries {
		if d.leads(x, d.docs[x], order, &witnesses) {
			return x, true
		}
	}
	return order[0], false
}

// byPolicy returns members (slots in arrival order) in the master
// policy's order (ties in arrival order), and the first MaxFanout of them:
// the candidates an election tries.
func (d *Detector) byPolicy(members []uint32) (order, tries []uint32) {
	order = slices.Clone(members)
	slices.SortStableFunc(order, func(a, b uint32) int {
		switch ma, mb := d.docs[a].member.full(), d.docs[b].member.full(); {
		case d.opts.Master.Better(ma, mb):
			return -1
		case d.opts.Master.Better(mb, ma):
			return 1
		}
		return 0
	})
	tries = order
	if d.limits.PerGroup > 0 && len(tries) > d.limits.PerGroup {
		tries = tries[:d.limits.PerGroup]
	}
	return order, tries
}

// leads reports whether every member of members (slots) other than x and
// the edited ones is a copy of rec, which would be document x. witnesses,
// if not nil, lists members to check first and gets the member that fails.
func (d *Detector) leads(x uint32, rec *record, members []uint32, witnesses *[]uint32) bool {
	check := func(m uint32) bool {
		other := d.docs[m]
		return m == x || other.edited || d.copyOf(other, rec)
	}
	if witnesses != nil {
		for _, w := range *witnesses {
			if !check(w) {
				return false
			}
		}
	}
	for _, m := range members {
		if !check(m) {
			if witnesses != nil {
				*witnesses = append(*witnesses, m)
			}
			return false
		}
	}
	return true
}

// copyOf reports whether a is a copy of b: a near-duplicate, and at the
// Threshold under the edit allowance (a document that would not join b's
// cluster through the allowance).
func (d *Detector) copyOf(a, b *record) bool {
	s, ok := d.match(a, b)
	return ok && !(d.opts.EditAllowance > 0 && s < d.opts.Threshold)
}

// unlink drops the pairs of document idx. Cost: O(sum of its
// near-duplicates' pair counts).
func (d *Detector) unlink(idx uint32) {
	for _, j := range d.adj[idx] {
		l := d.adj[j]
		i := slices.Index(l, int32(idx))
		l[i] = l[len(l)-1]
		d.adj[j] = l[:len(l)-1]
	}
	d.stats.Pairs -= len(d.adj[idx])
	d.adj[idx] = nil
}

// A refill is a list that dropped a document while it held MaxFanout
// documents of its cluster: the earliest member that has the list's key
// and is not in it takes the free place.
type refill struct {
	has  func(*record) bool // the record has the key; nil for a band key, which refill checks
	band uint64             // the band key, when has is nil
	held func(uint32) bool  // the list holds the document
	add  func(uint32)
	done bool
}

// unlist takes document idx out of the list of k and notes a refill if
// the list asks for one; has says whether a record has k (nil for a band
// key).
func (d *Detector) unlist(k signatures.Key, idx, group uint32, has func(*record) bool, refills *[]refill) {
	removed, full := d.lists.Remove(k, idx)
	if !removed || !full {
		return
	}
	*refills = append(*refills, refill{
		has:  has,
		band: k.Sum,
		held: func(id uint32) bool {
			return slices.ContainsFunc(d.lists.Get(k), func(e signatures.Entry) bool { return e.ID == id })
		},
		add: func(id uint32) { d.lists.Add(k, signatures.Entry{ID: id, Group: group}) },
	})
}

// unindex takes document idx, with the signatures of rec, out of every
// candidate list and refills the lists that ask for it from the other
// members of its cluster. A fingerprint no document has any more leaves
// the Hamming index.
func (d *Detector) unindex(idx uint32, rec *record) {
	g := d.assigned.Of(idx)
	var refills []refill
	fp := signatures.Key{Kind: signatures.Fingerprint, Sum: uint64(rec.fp)}
	if d.hamming != nil && !rec.unsignable {
		d.unlist(fp, idx, g, func(r *record) bool { return !r.unsignable && r.fp == rec.fp }, &refills)
	}
	for i, sig := range rec.sigs {
		if i < d.lexicons && !sig.IsZero() {
			d.unlist(signatures.IMatchKey(i, sig), idx, g, func(r *record) bool { return i < len(r.sigs) && r.sigs[i] == sig }, &refills)
		}
	}
	if rec.banded {
		for _, b := range d.bandsOf(rec) {
			d.unlist(signatures.Key{Kind: signatures.Band, Sum: b}, idx, g, nil, &refills)
		}
		whole := rec.whole
		d.unlist(signatures.Key{Kind: signatures.Sketch, Sum: whole}, idx, g, func(r *record) bool { return r.banded && r.whole == whole }, &refills)
	}
	for _, s := range rec.supers() {
		d.unlist(signatures.Key{Kind: signatures.Super, Sum: s}, idx, g, func(r *record) bool { return slices.Contains(r.supers(), s) }, &refills)
	}
	if len(refills) > 0 {
		d.refill(idx, g, refills)
	}
	if d.hamming != nil && !rec.unsignable && !d.lists.Known(fp) {
		for _, m := range d.hamming.Query(fp.Sum, 0) {
			d.hamming.Delete(m.ID, m.Fingerprint)
		}
	}
}

// refill gives each list of refills the earliest member of cluster
// number g, other than idx, that has its key and is not in it: the list a
// rebuild from the documents left would hold. Cost: O(members) records
// looked at, fewer when early members have the keys (copies of one page
// fill every list from the first one looked at).
func (d *Detector) refill(idx, g uint32, refills []refill) {
	if d.clusters.size[g] == 0 {
		return
	}
	left := len(refills)
	for _, m := range d.memberSlots(g, idx) {
		rec := d.docs[m]
		var bands []uint64 // rec's band keys, once a band refill asks
		banded := false
		has := func(f *refill) bool {
			if f.has != nil {
				return f.has(rec)
			}
			if !banded {
				bands, banded = d.bandsOf(rec), true
			}
			return slices.Contains(bands, f.band)
		}
		for i := range refills {
			f := &refills[i]
			if !f.done && has(f) && !f.held(m) {
				f.add(m)
				f.done = true
				left--
			}
		}
		if left == 0 {
			return
		}
	}
}
