package dedup

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"maps"
	"math"
	"math/bits"
	"slices"

	"github.com/cespare/xxhash/v2"

	"github.com/doppel-search/doppel/dedup/cluster"
	"github.com/doppel-search/doppel/dedup/hamming"
	"github.com/doppel-search/doppel/dedup/imatch"
	"github.com/doppel-search/doppel/dedup/signatures"
	"github.com/doppel-search/doppel/dedup/stats"
)

// ErrShared is returned by the methods a Detector made with [NewShared]
// does not support.
var ErrShared = errors.New("dedup: not supported on shared signatures (NewShared)")

// NewShared returns a Detector that keeps its state in sh, shared with
// every other Detector made on it — workers, in this process or on other
// machines: the candidate lists, the clusters, each document's record
// (its signatures and verification set, what verifying it as another
// document's candidate needs) and the SimHash neighbours (the tables of
// sh, in place of the in-memory Hamming index). The workers must be made
// with the same table and options (sh refuses other list limits and
// Hamming distances). Each Insert takes the next number of the shared
// sequence and is committed at its turn (see [signatures.Shared]): the
// clusters, masters and Result.Pairs are exactly those of one Detector
// made with New inserting the committed documents in number order.
//
// Its verification sets are in the records, not in memory
// (Options.SetsDir and SetsFile are refused), and its memory is a few
// bytes of bookkeeping per document and cluster of the whole collection
// (its candidate stamps: 4 bytes a document, 12 a cluster) and what one
// insert reads. It supports Prepare, Insert, Add, AddAll, AddSeq,
// Assignments, AllAssignments, Clusters and Cluster (which read the
// whole assignment), and Stats (see there); Remove, Replace, Update,
// Refresh, Recluster and WriteSnapshot return [ErrShared],
// StarAssignments returns nil (the pairs are not kept) and Fingerprint
// finds nothing.
//
// Cost of an Insert, in round trips to sh: one to take a number; one to
// three to read its lists and neighbours, its candidates' clusters and
// records (the first also adds this worker's last commit to its lists);
// one to commit; and, unless every document before it was committed when
// it took its number, one that waits for its turn and reads again (and
// more if that changed its candidates).
func NewShared(table *stats.Table, opts Options, sh signatures.Shared) (*Detector, error) {
	if opts.SetsDir != "" || opts.SetsFile != "" {
		return nil, errors.New("dedup: a Detector on shared signatures keeps its verification sets in its records, not Options.SetsDir or SetsFile")
	}
	d, err := New(table, opts)
	if err != nil {
		return nil, err
	}
	cfg := sh.Config()
	if cfg.Limits != d.limits {
		return nil, fmt.Errorf("dedup: the shared lists have limits %+v, the options %+v", cfg.Limits, d.limits)
	}
	if d.uses(SimHash) && cfg.HammingK != d.opts.HammingK {
		return nil, fmt.Errorf("dedup: the shared neighbour tables answer Hamming distance %d, the options ask %d", cfg.HammingK, d.opts.HammingK)
	}
	d.hamming = nil
	d.remote = &remote{d: d, sh: sh, ctx: context.Background(), signers: d.signersNow(), placeholder: &record{}}
	return d, nil
}

// remote is what a Detector on a Shared reads of it for the insert under
// way (document self), and what the decision missed: decide runs on what
// was read, a record or cluster not read yet standing for nothing, and
// runs again once what it missed is read, until it misses nothing.
type remote struct {
	d           *Detector
	sh          signatures.Shared
	ctx         context.Context
	signers     signers // Refresh is not supported: they never change
	placeholder *record // a record not read yet

	self   uint32
	put    []byte // self's record, until stored
	near   map[uint64][]signatures.Neighbour
	lists  map[signatures.Key]signatures.List
	refs   map[uint32]signatures.Ref
	docs   map[uint32]*record
	edited map[uint32]bool // from the members read

	missNear   map[uint64]bool
	missKeys   map[signatures.Key]bool
	missGroups map[uint32]bool
	missDocs   map[uint32]bool
}

// start forgets what was read for the last insert and begins document
// self (rec).
func (r *remote) start(self uint32, rec *record) {
	r.self, r.put = self, encodeRecord(snapOf(rec))
	if r.near == nil {
		r.near, r.lists, r.refs = map[uint64][]signatures.Neighbour{}, map[signatures.Key]signatures.List{}, map[uint32]signatures.Ref{}
		r.docs, r.edited = map[uint32]*record{}, map[uint32]bool{}
		r.missNear, r.missKeys, r.missGroups, r.missDocs = map[uint64]bool{}, map[signatures.Key]bool{}, map[uint32]bool{}, map[uint32]bool{}
	}
	clear(r.near)
	clear(r.lists)
	clear(r.refs)
	clear(r.docs)
	clear(r.edited)
	r.docs[self] = rec
	r.clearMisses()
}

func (r *remote) clearMisses() {
	clear(r.missNear)
	clear(r.missKeys)
	clear(r.missGroups)
	clear(r.missDocs)
}

func (r *remote) missed() bool {
	return len(r.missNear)+len(r.missKeys)+len(r.missGroups)+len(r.missDocs) > 0
}

// lookup is signatures.Store.Lookup on the lists read.
func (r *remote) lookup(keys []signatures.Key, fn func(signatures.Key, []signatures.Entry)) {
	for _, k := range keys {
		l, ok := r.lists[k]
		if !ok {
			r.missKeys[k] = true
		}
		fn(k, l.Entries)
	}
}

// appendQuery is hamming.Index.AppendQuery on the neighbours read.
func (r *remote) appendQuery(dst []hamming.Match, fp uint64, k int) []hamming.Match {
	near, ok := r.near[fp]
	if !ok {
		r.missNear[fp] = true
		return dst
	}
	start := len(dst)
	for _, n := range near {
		if dist := bits.OnesCount64(fp ^ n.Fingerprint); dist <= k {
			dst = append(dst, hamming.Match{ID: uint64(n.Doc), Fingerprint: n.Fingerprint, Distance: dist})
		}
	}
	slices.SortFunc(dst[start:], func(a, b hamming.Match) int {
		return cmp.Or(cmp.Compare(a.Distance, b.Distance), cmp.Compare(a.ID, b.ID), cmp.Compare(a.Fingerprint, b.Fingerprint))
	})
	return dst
}

// ref returns the cluster g as read; self as its master when it was not
// read yet, so that verify skips it.
func (r *remote) ref(g uint32) clusterRef {
	ref, ok := r.refs[g]
	if !ok {
		r.missGroups[g] = true
		return clusterRef{master: r.self}
	}
	return clusterRef{hash: ref.Hash, master: ref.Master}
}

// members returns the members of cluster g as read.
func (r *remote) members(g uint32) []uint32 {
	ref, ok := r.refs[g]
	if !ok {
		r.missGroups[g] = true
		return nil
	}
	out := make([]uint32, len(ref.Members))
	for i, m := range ref.Members {
		out[i] = m.Doc
	}
	return out
}

// doc returns the record of document idx as read; an empty one when it
// was not read yet.
func (r *remote) doc(idx uint32) *record {
	rec, ok := r.docs[idx]
	if !ok {
		r.missDocs[idx] = true
		return r.placeholder
	}
	return rec
}

// fetch reads what the last decision missed, with self's record the
// first time, in one round trip.
func (r *remote) fetch() error {
	q := &signatures.Read{Doc: r.self, Record: r.put, Members: r.d.opts.EditAllowance > 0,
		Near: slices.Sorted(maps.Keys(r.missNear)), Keys: slices.SortedFunc(maps.Keys(r.missKeys), compareKeys),
		Groups: slices.Sorted(maps.Keys(r.missGroups)), Docs: slices.Sorted(maps.Keys(r.missDocs))}
	if err := r.sh.Read(r.ctx, q); err != nil {
		return err
	}
	r.put = nil
	r.clearMisses()
	r.take(q)
	for i, doc := range q.Docs {
		if q.Records[i] == nil {
			return fmt.Errorf("dedup: shared signatures: the record of document %d is missing", doc)
		}
		s, err := decodeRecord(q.Records[i])
		if err != nil {
			return fmt.Errorf("dedup: shared signatures: document %d: %w", doc, err)
		}
		rec := recordOf(&s)
		rec.edited = r.edited[doc]
		r.docs[doc] = rec
	}
	return nil
}

// take keeps the neighbours, lists and clusters q read, and reports
// whether any differs from what was read before.
func (r *remote) take(q *signatures.Read) (changed bool) {
	for i, fp := range q.Near {
		near := q.Neighbours[i]
		slices.SortFunc(near, func(a, b signatures.Neighbour) int { return cmp.Compare(a.Fingerprint, b.Fingerprint) })
		if old, ok := r.near[fp]; ok && !slices.Equal(old, near) {
			changed = true
		}
		r.near[fp] = near
		for _, n := range near {
			r.d.growDocs(n.Doc)
		}
	}
	for i, k := range q.Keys {
		l := q.Lists[i]
		if old, ok := r.lists[k]; ok && (old.Stopped != l.Stopped || !slices.Equal(old.Entries, l.Entries)) {
			changed = true
		}
		r.lists[k] = l
		for _, e := range l.Entries {
			r.d.growDocs(e.ID)
			r.d.growClusters(e.Group)
		}
	}
	for i, g := range q.Groups {
		ref := q.Refs[i]
		if old, ok := r.refs[g]; ok && (old.Master != ref.Master || old.Hash != ref.Hash || !slices.Equal(old.Members, ref.Members)) {
			changed = true
		}
		r.refs[g] = ref
		for _, m := range ref.Members {
			r.edited[m.Doc] = m.Edited
			if rec, ok := r.docs[m.Doc]; ok && m.Doc != r.self {
				rec.edited = m.Edited
			}
		}
	}
	return changed
}

// compareKeys orders keys by kind, then sum.
func compareKeys(a, b signatures.Key) int {
	return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Sum, b.Sum))
}

// growDocs makes room for document number doc in the candidate stamps.
func (d *Detector) growDocs(doc uint32) {
	if n := int(doc) + 1; n > len(d.stamp) {
		d.stamp = slices.Grow(d.stamp, n-len(d.stamp))[:n]
	}
}

// growClusters makes room for cluster number g in the per-cluster
// scratch of candidates and byCluster.
func (d *Detector) growClusters(g uint32) {
	if n := int(g) + 1; n > len(d.groupOf) {
		d.groupOf = slices.Grow(d.groupOf, n-len(d.groupOf))[:n]
		d.groupGen = slices.Grow(d.groupGen, n-len(d.groupGen))[:n]
		d.seenGen = slices.Grow(d.seenGen, n-len(d.seenGen))[:n]
	}
}

// decide runs d.decide on what was read until it misses nothing,
// reading what it missed, and keeps the Detector's counters of the last
// run only (from st).
func (r *remote) decide(rec *record, st Stats) (decision, error) {
	for {
		r.d.stats = st
		r.clearMisses()
		dec := r.d.decide(r.self, rec, true)
		if !r.missed() && r.put == nil {
			return dec, nil
		}
		if err := r.fetch(); err != nil {
			return decision{}, err
		}
	}
}

// ErrNotShared is returned by [Detector.InsertTurn] on a Detector not
// made with [NewShared].
var ErrNotShared = errors.New("dedup: InsertTurn needs a Detector on shared signatures (NewShared)")

// InsertTurn is Insert on a Detector made with [NewShared] that calls
// atTurn(n, res) at the document's turn, once its decision is final and
// before it is committed: n is its number in the shared sequence and res
// exactly the Result the commit makes (its cluster, master, Pairs). A
// worker appends the document's entry to a log ordered by number there
// (crawler/pagelog), before the commit makes n visible to the log's
// readers.
//
// If atTurn returns an error, number n is given up (a reader of the log
// skips it; the document was not inserted and may be inserted again) and
// InsertTurn returns the error, wrapped. If the commit then finds n lost
// (its lease ran out while atTurn ran: signatures.ErrLost), the document
// is inserted again under a new number and atTurn called again with it;
// n, given up, is skipped by the log's readers. Whenever the commit
// fails after atTurn returned (ErrDuplicateID, an error of the Shared),
// n is given up likewise and its entry skipped. A document founding a
// cluster offers only the first id it may take (not every candidate, as
// Insert does): the commit then makes that id or fails, which happens
// only if another cluster has it, two document ids' 64-bit hashes
// colliding. atTurn holds the turn of every worker: it should be short
// (one append), and shorter than the lease.
//
// On a Detector made with New it returns [ErrNotShared].
func (d *Detector) InsertTurn(p *Prepared, atTurn func(n uint32, res Result) error) (Result, error) {
	if d.remote == nil {
		return Result{}, ErrNotShared
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.remote.insert(p.rec, atTurn)
}

// Aside takes the next number of the shared order for something that is
// not a document, calls fn with it and gives the number up: a place in
// the order, between the documents inserted before and after, for what a
// worker hands on beside its documents (a crawl's decisions, which its
// page log carries as notes that readers deliver though the number is
// given up). fn should be short, like InsertTurn's atTurn: until the
// number is given up, the workers after it wait. If the number's lease
// ran out before it was given up (fn took too long: a reader may have
// passed it), fn is called again with a new number: what it hands on
// must bear being delivered twice. Aside returns fn's error, or an error
// of the Shared.
//
// On a Detector made with New it returns [ErrNotShared].
func (d *Detector) Aside(fn func(n uint32) error) error {
	if d.remote == nil {
		return ErrNotShared
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	r := d.remote
	for {
		n, _, err := r.sh.Begin(r.ctx)
		if err != nil {
			return fmt.Errorf("dedup: %w", err)
		}
		ferr := fn(n)
		err = r.sh.Abandon(r.ctx, n)
		switch {
		case ferr != nil:
			return ferr
		case errors.Is(err, signatures.ErrLost):
			continue
		case err != nil:
			return fmt.Errorf("dedup: %w", err)
		}
		return nil
	}
}

// insert inserts rec under the next number of the shared sequence,
// again under a new one if the number is lost, calling atTurn (if not
// nil) at each number's turn before its commit.
func (r *remote) insert(rec *record, atTurn func(uint32, Result) error) (Result, error) {
	for {
		n, settled, err := r.sh.Begin(r.ctx)
		if err != nil {
			return Result{}, fmt.Errorf("dedup: %w", err)
		}
		res, err := r.insertAs(n, settled, rec, atTurn)
		var hook hookError
		switch {
		case errors.Is(err, signatures.ErrLost):
			continue
		case errors.Is(err, signatures.ErrDuplicate):
			return Result{}, fmt.Errorf("%w: %q", ErrDuplicateID, rec.member.ID)
		case errors.As(err, &hook):
			_ = r.sh.Abandon(r.ctx, n)
			return Result{}, fmt.Errorf("dedup: at the turn of document %d: %w", n, hook.err)
		case err != nil:
			// Give the number up now rather than after its lease (a
			// number committed already is not given up).
			_ = r.sh.Abandon(r.ctx, n)
			return Result{}, fmt.Errorf("dedup: %w", err)
		}
		return res, nil
	}
}

// hookError is an error of InsertTurn's atTurn, told apart from the
// Shared's.
type hookError struct{ err error }

func (e hookError) Error() string { return e.err.Error() }

// insertAs decides where document n (rec) goes on what it reads, reads
// again at its turn unless settled (and decides again if that changed),
// calls atTurn (if not nil) with the Result, and commits it.
func (r *remote) insertAs(n uint32, settled bool, rec *record, atTurn func(uint32, Result) error) (Result, error) {
	r.start(n, rec)
	r.d.growDocs(n)
	dec, err := r.decideAtTurn(n, settled, rec)
	if err != nil {
		return Result{}, err
	}
	// The decision is final: the Result is what the commit makes.
	c, res := r.commitOf(n, rec, dec, atTurn != nil)
	if atTurn != nil {
		if err := atTurn(n, res); err != nil {
			return Result{}, hookError{err}
		}
	}
	_, h, err := r.sh.Commit(r.ctx, c)
	if err != nil {
		return Result{}, err
	}
	res.Cluster = idOf(h) // as offered, but for a founder without atTurn, which may take another candidate
	r.d.countInsert(rec, dec, len(res.Pairs))
	return res, nil
}

// decideAtTurn decides where document n (rec) goes on what was read
// (an unsignable document goes into a cluster of its own, and only
// stores its record), then, unless settled, waits for n's turn, reads
// again what the decision rests on and, if that changed, decides again.
func (r *remote) decideAtTurn(n uint32, settled bool, rec *record) (decision, error) {
	st := r.d.stats
	dec := decision{best: -1}
	var err error
	if !rec.unsignable {
		if dec, err = r.decide(rec, st); err != nil {
			return decision{}, err
		}
	} else if err = r.fetch(); err != nil { // stores the record
		return decision{}, err
	}
	if settled {
		return dec, nil
	}
	again := &signatures.Read{Keys: slices.SortedFunc(maps.Keys(r.lists), compareKeys), Groups: slices.Sorted(maps.Keys(r.refs)),
		Near: slices.Sorted(maps.Keys(r.near)), Members: r.d.opts.EditAllowance > 0}
	if err := r.sh.Wait(r.ctx, n, again); err != nil {
		return decision{}, err
	}
	if r.take(again) {
		if dec, err = r.decide(rec, st); err != nil {
			return decision{}, err
		}
	}
	return dec, nil
}

// commitOf returns the commit of document n (rec) where dec puts it,
// and the Result that commit makes: joining dec.best (perhaps as its
// new master), or founding a cluster, offered the candidate ids
// foundHashes chooses (only the first with oneID, the id an atTurn hook
// is told); with its candidate-list keys unless unsignable.
func (r *remote) commitOf(n uint32, rec *record, dec decision, oneID bool) (*signatures.Commit, Result) {
	d := r.d
	c := &signatures.Commit{Doc: n, ID: rec.member.ID, Join: signatures.NoCluster, Master: dec.newMaster, Edited: dec.edited}
	res := Result{ID: rec.member.ID, Simhash: uint64(rec.change), Unsignable: rec.unsignable, Master: rec.member.ID,
		Duplicate: dec.best >= 0, Edited: dec.edited, NewMaster: dec.newMaster}
	if dec.best >= 0 {
		ref := r.refs[uint32(dec.best)]
		c.Join, c.Expect = uint32(dec.best), ref.Master
		res.Cluster = idOf(ref.Hash)
		if dec.newMaster {
			res.Demoted = d.doc(ref.Master).member.ID
		} else {
			res.Master = d.doc(ref.Master).member.ID
		}
	} else {
		c.Hashes = foundHashes(rec.member.ID)
		if oneID {
			c.Hashes = c.Hashes[:1]
		}
		res.Cluster = idOf(c.Hashes[0])
	}
	if !rec.unsignable {
		if d.uses(SimHash) {
			k := signatures.Key{Kind: signatures.Fingerprint, Sum: uint64(rec.fp)}
			c.Keys = append(c.Keys, k)
			c.Table, c.Fingerprint = !r.lists[k].Known() && !dec.dense, uint64(rec.fp)
		}
		c.Keys = d.appendKeys(c.Keys, rec)
	}
	res.Pairs = d.pairsOf(n, dec.found)
	return c, res
}

// countInsert adds a committed document (rec, put where dec says, with
// pairs pairs) to the Detector's counters.
func (d *Detector) countInsert(rec *record, dec decision, pairs int) {
	d.stats.Documents++
	switch {
	case rec.unsignable:
		d.stats.Unsignable++
	case dec.best < 0:
	case dec.newMaster:
		d.stats.NewMasters++
	}
	if dec.best < 0 {
		d.stats.Clusters++
	}
	d.stats.Duplicates = d.stats.Documents - d.stats.Clusters
	d.stats.Pairs += pairs
}

// foundHashes returns the id bits a document founding a cluster takes:
// the first not taken by a cluster of these (as clusterTable.found
// chooses them).
func foundHashes(docID string) []uint64 {
	h := xxhash.Sum64String(docID)
	out := []uint64{h}
	for range 3 {
		h = xxhash.Sum64String(string(idOf(h)) + "/" + docID)
		out = append(out, h)
	}
	return out
}

// sharedAssignments yields the assignments of a Detector on a Shared.
func (d *Detector) sharedAssignments() iter.Seq[Assignment] {
	return func(yield func(Assignment) bool) {
		stop := errors.New("stop")
		_ = d.remote.sh.Assignments(d.remote.ctx, func(a signatures.Assigned) error {
			if !yield(Assignment{ID: a.ID, Cluster: idOf(a.Hash), Master: a.MasterID, Edited: a.Edited && a.MasterID != a.ID}) {
				return stop
			}
			return nil
		})
	}
}

// sharedClusters returns the clusters of a Detector on a Shared, in order
// of creation, their members' attributes read from their records. Cost:
// the whole assignment and every record.
func (d *Detector) sharedClusters() ([]cluster.Cluster, error) {
	sh, ctx := d.remote.sh, d.remote.ctx
	var all []signatures.Assigned
	if err := sh.Assignments(ctx, func(a signatures.Assigned) error { all = append(all, a); return nil }); err != nil {
		return nil, err
	}
	members := map[uint32]cluster.Member{}
	for start := 0; start < len(all); start += 1000 {
		q := &signatures.Read{}
		for _, a := range all[start:min(start+1000, len(all))] {
			q.Docs = append(q.Docs, a.Doc)
		}
		if err := sh.Read(ctx, q); err != nil {
			return nil, err
		}
		for i, raw := range q.Records {
			s, err := decodeRecord(raw)
			if err != nil {
				return nil, fmt.Errorf("dedup: shared signatures: document %d: %w", q.Docs[i], err)
			}
			members[q.Docs[i]] = s.Member
		}
	}
	byGroup := map[uint32]int{}
	var out []cluster.Cluster
	for _, a := range all {
		i, ok := byGroup[a.Group]
		if !ok {
			i = len(out)
			byGroup[a.Group] = i
			out = append(out, cluster.Cluster{ID: idOf(a.Hash), Master: members[a.Master]})
		}
		out[i].Members = append(out[i].Members, members[a.Doc])
	}
	groups := slices.Sorted(maps.Keys(byGroup))
	sorted := make([]cluster.Cluster, len(groups))
	for i, g := range groups {
		sorted[i] = out[byGroup[g]]
	}
	return sorted, nil
}

// recordVersion is the first byte of an encoded record.
const recordVersion = 1

// encodeRecord encodes a record for a Shared: a version byte, flags
// (banded, unsignable, extracted), the member's attributes, the 64-bit signatures,
// then the I-Match signatures, the verification set, the sketch and the
// super shingles, each a count and its values (8 bytes a value). The
// band keys are computed again from the set or sketch (bandsOf).
func encodeRecord(s snapRecord) []byte {
	b := make([]byte, 0, 64+len(s.Member.ID)+len(s.Member.URL)+20*len(s.Sigs)+8*(len(s.Set)+len(s.Sketch)+len(s.Supers)))
	var flags byte
	if s.Banded {
		flags |= 1
	}
	if s.Unsignable {
		flags |= 2
	}
	if s.Extracted {
		flags |= 4
	}
	b = append(b, recordVersion, flags)
	str := func(v string) { b = binary.AppendUvarint(b, uint64(len(v))); b = append(b, v...) }
	str(s.Member.ID)
	str(s.Member.URL)
	var t []byte
	if !s.Member.Time.IsZero() {
		t, _ = s.Member.Time.MarshalBinary()
	}
	str(string(t))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(s.Member.Quality))
	b = binary.AppendVarint(b, int64(s.Member.Preference))
	for _, v := range []uint64{s.Whole, s.FP, s.Change, s.Content} {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	b = binary.AppendUvarint(b, uint64(len(s.Sigs)))
	for _, sig := range s.Sigs {
		b = append(b, sig[:]...)
	}
	for _, vs := range [][]uint64{s.Set, s.Sketch, s.Supers} {
		b = binary.AppendUvarint(b, uint64(len(vs)))
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint64(b, v)
		}
	}
	return b
}

// decodeRecord decodes what encodeRecord encoded.
func decodeRecord(raw []byte) (snapRecord, error) {
	d := recordDecoder{b: raw}
	if v := d.byte(); v != recordVersion {
		return snapRecord{}, fmt.Errorf("record version %d, not %d", v, recordVersion)
	}
	flags := d.byte()
	s := snapRecord{Live: true, Banded: flags&1 != 0, Unsignable: flags&2 != 0, Extracted: flags&4 != 0}
	s.Member.ID, s.Member.URL = d.str(), d.str()
	if t := d.str(); t != "" && d.err == nil {
		if err := s.Member.Time.UnmarshalBinary([]byte(t)); err != nil {
			return snapRecord{}, err
		}
	}
	s.Member.Quality = math.Float64frombits(d.u64())
	s.Member.Preference = int(d.varint())
	s.Whole, s.FP, s.Change, s.Content = d.u64(), d.u64(), d.u64(), d.u64()
	if n := d.count(20); n > 0 {
		s.Sigs = make([]imatch.Signature, n)
		for i := range s.Sigs {
			copy(s.Sigs[i][:], d.take(20))
		}
	}
	for _, vs := range []*[]uint64{&s.Set, &s.Sketch, &s.Supers} {
		if n := d.count(8); n > 0 {
			*vs = make([]uint64, n)
			for i := range *vs {
				(*vs)[i] = d.u64()
			}
		}
	}
	if d.err == nil && len(d.b) > 0 {
		d.err = errors.New("trailing bytes")
	}
	return s, d.err
}

// recordDecoder reads what encodeRecord appends, keeping the first error.
type recordDecoder struct {
	b   []byte
	err error
}

func (d *recordDecoder) take(n int) []byte {
	if d.err != nil || len(d.b) < n {
		if d.err == nil {
			d.err = errors.New("truncated record")
		}
		return make([]byte, n)
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}

func (d *recordDecoder) byte() byte  { return d.take(1)[0] }
func (d *recordDecoder) u64() uint64 { return binary.LittleEndian.Uint64(d.take(8)) }

func (d *recordDecoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.take(len(d.b) + 1) // records the error
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *recordDecoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.take(len(d.b) + 1)
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count reads a count of items of size bytes each, no more than the
// bytes left hold.
func (d *recordDecoder) count(size int) int {
	n := d.uvarint()
	if n > uint64(len(d.b)/size) {
		d.take(len(d.b) + 1)
		return 0
	}
	return int(n)
}

func (d *recordDecoder) str() string { return string(d.take(int(d.count(1)))) }

// sharedStats is Stats for a Detector on a Shared: this Detector's
// counters, with the shared lists' Capped and StopKeys (its last commit
// applied first, when the Shared can: see Close).
func (d *Detector) sharedStats() Stats {
	if f, ok := d.remote.sh.(interface{ Flush(context.Context) error }); ok {
		_ = f.Flush(d.remote.ctx) // the counters then lag by one document
	}
	s := d.stats
	for _, kind := range d.kinds() {
		if ls, err := d.remote.sh.Stats(d.remote.ctx, kind); err == nil {
			s.Capped += ls.Capped
			s.StopKeys += ls.Stops
		}
	}
	return s
}
