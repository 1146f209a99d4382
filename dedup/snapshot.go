package dedup

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/doppel-search/doppel/dedup/cluster"
	"github.com/doppel-search/doppel/dedup/hamming"
	"github.com/doppel-search/doppel/dedup/imatch"
	"github.com/doppel-search/doppel/dedup/signatures"
	"github.com/doppel-search/doppel/dedup/simhash"
	"github.com/doppel-search/doppel/dedup/stats"
)

// snapshotVersion changes whenever what a snapshot holds, or how
// documents are signed, changes: a snapshot of another version is not
// read (ErrSnapshotMismatch), and its owner rebuilds the Detector.
const snapshotVersion = 5

// Errors of [ReadSnapshot].
var (
	// ErrSnapshotMismatch: the snapshot was written with other options or
	// by another version of the signing code.
	ErrSnapshotMismatch = errors.New("dedup: snapshot does not match")
	// ErrSnapshotCorrupt: the snapshot cannot be decoded.
	ErrSnapshotCorrupt = errors.New("dedup: snapshot is damaged")
)

// snapshot is the state of a Detector, as gob encodes it.
type snapshot struct {
	Version    int
	Options    string // optionsKey
	Table      []byte // nil: no table
	Generation int
	Lexicons   int
	Docs       []snapRecord // by slot
	Adj        [][]int32
	// The clusters by number: the bits of their ids, their sizes, the
	// members of those of two or more (clusterTable).
	ClusterIDs     []uint64
	ClusterSizes   []uint32
	ClusterMembers map[uint32][]uint32
	Assigned       []byte // signatures.MemoryClusters
	Stats          Stats
	Lists          []byte // signatures.Memory
	Hamming        []byte // hamming.Index; nil without SimHash
	SetsEnd        int64  // bytes of the sets file the snapshot covers
	SetsAt         []int64
	SetsN          []uint32
	// SetsSum is the CRC-32C of those bytes, if SetsSummed: snapshots
	// written before the check have neither, and their sets file is read
	// unchecked.
	SetsSum    uint32
	SetsSummed bool
	Parts      map[string]container // Detector.parts
}

// snapRecord is a record; Live false for a removed document's slot.
type snapRecord struct {
	Live                bool
	Member              cluster.Member
	Set, Sketch, Supers []uint64
	Banded              bool // its band keys are computed again (bandsOf)
	Whole, FP, Content  uint64
	Change              uint64
	Sigs                []imatch.Signature
	Unsignable, Edited  bool
	Extracted           bool
	Spilled             bool
	Slot                uint32
}

// snapOf returns the snapshot form of the record r (of a listed
// document: without its band keys).
func snapOf(r *record) snapRecord {
	return snapRecord{Live: true, Member: r.member.full(), Set: r.set, Sketch: r.sketch(), Banded: r.banded, Supers: r.supers(),
		Whole: r.whole, FP: uint64(r.fp), Change: uint64(r.change), Content: r.content, Sigs: r.sigs, Unsignable: r.unsignable, Edited: r.edited,
		Extracted: r.extracted, Spilled: r.spilled, Slot: r.slot}
}

// recordOf returns the record of the snapshot form r.
func recordOf(r *snapRecord) *record {
	var more *recordMore
	if r.Sketch != nil || r.Supers != nil {
		more = &recordMore{sketch: r.Sketch, supers: r.Supers}
	}
	return &record{member: refOf(r.Member), set: r.Set, more: more, banded: r.Banded, whole: r.Whole,
		fp: simhash.Simhash(r.FP), change: simhash.Simhash(r.Change), content: r.Content, sigs: r.Sigs, unsignable: r.Unsignable, edited: r.Edited,
		extracted: r.Extracted, spilled: r.Spilled, slot: r.Slot}
}

// optionsKey names what in o decides signatures and clusters: not where
// the sets are kept.
func optionsKey(o Options) string {
	common := o.CommonShingles
	o.SetsDir, o.SetsFile, o.SetsMemory, o.CommonShingles = "", "", 0, nil
	key := fmt.Sprintf("%#v", o)
	if common != nil {
		key += fmt.Sprintf(" common shingles: %d docs, %d shingles", common.Docs(), common.Terms())
	}
	return key
}

// WriteSnapshot writes the Detector's whole state to w — every
// document's signatures (not its text), the clusters, the candidate
// lists, the Hamming index, the statistics table and the counters — so
// that [ReadSnapshot] gives a Detector that goes on exactly as this one
// would, without signing any document again. Verification sets kept in a
// file (Options.SetsFile) stay there: the file is synced and the snapshot
// records how much of it it covers. Verification sets kept in an unlinked
// file (Options.SetsDir) cannot be: it returns an error; those moved to a
// temporary file (Options.SetsMemory) are read into the snapshot. It holds the
// read lock (Prepare goes on, Insert waits). Cost: O(state): about 330
// bytes a document with the sets in a file (290 with Options.LSHOnly;
// 20,000 ndd synth documents).
func (d *Detector) WriteSnapshot(w io.Writer) error {
	if d.remote != nil {
		return ErrShared
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	lists, assigned, err := d.snapshotStores()
	if err != nil {
		return err
	}
	s := snapshot{Version: snapshotVersion, Options: optionsKey(d.opts), Generation: d.generation, Lexicons: d.lexicons,
		Adj: d.adj, ClusterIDs: d.clusters.hash, ClusterSizes: d.clusters.size, ClusterMembers: d.clusters.multi, Stats: d.stats,
		Parts: d.parts}
	if d.table != nil {
		if s.Table, err = d.table.MarshalBinary(); err != nil {
			return err
		}
	}
	if s.Docs, err = d.snapDocs(); err != nil {
		return err
	}
	if err := d.snapIndexes(&s, lists, assigned); err != nil {
		return err
	}
	if d.sets != nil && !d.tempSets {
		if err := d.sets.sync(); err != nil {
			return err
		}
		s.SetsEnd, s.SetsAt, s.SetsN, s.SetsSum, s.SetsSummed = d.sets.end, d.sets.at, d.sets.n, d.sets.sum, true
	}
	return gob.NewEncoder(w).Encode(&s)
}

// snapshotStores returns the embedded signature stores a snapshot is
// written from, or an error saying why the Detector's state cannot be
// written: its sets are in an unlinked file, or its stores are not the
// embedded ones.
func (d *Detector) snapshotStores() (*signatures.Memory, *signatures.MemoryClusters, error) {
	if d.sets != nil && d.opts.SetsFile == "" && !d.tempSets {
		return nil, nil, errors.New("dedup: a snapshot cannot hold sets in an unlinked file (Options.SetsDir): use Options.SetsFile")
	}
	lists, ok1 := d.lists.(*signatures.Memory)
	assigned, ok2 := d.assigned.(*signatures.MemoryClusters)
	if !ok1 || !ok2 {
		return nil, nil, errors.New("dedup: a snapshot needs the embedded signature store")
	}
	return lists, assigned, nil
}

// snapDocs returns the snapshot's record of every document (a zero one
// where a document was removed), with the sets of a temporary file read
// in, as those kept in memory are.
func (d *Detector) snapDocs() ([]snapRecord, error) {
	docs := make([]snapRecord, len(d.docs))
	for i, r := range d.docs {
		if r == nil {
			continue
		}
		docs[i] = snapOf(r)
		if d.tempSets && r.spilled {
			set, err := d.sets.read(r.slot, nil)
			if err != nil {
				return nil, err
			}
			docs[i].Set, docs[i].Spilled, docs[i].Slot = set, false, 0
		}
	}
	return docs, nil
}

// snapIndexes encodes into s the cluster assignments, the candidate
// lists and the Hamming index (if any).
func (d *Detector) snapIndexes(s *snapshot, lists *signatures.Memory, assigned *signatures.MemoryClusters) error {
	var err error
	if s.Assigned, err = assigned.MarshalBinary(); err != nil {
		return err
	}
	if s.Lists, err = lists.MarshalBinary(); err != nil {
		return err
	}
	if d.hamming != nil {
		var b bytes.Buffer
		if _, err := d.hamming.WriteTo(&b); err != nil {
			return err
		}
		s.Hamming = b.Bytes()
	}
	return nil
}

// ReadSnapshot returns the Detector whose state [Detector.WriteSnapshot]
// wrote to r. opts must be the options the snapshot was written with
// (Options.SetsFile names the file its sets are in, which keeps what the
// snapshot covers and loses what was written after it); otherwise, or if
// another version of this package wrote it, the error wraps
// [ErrSnapshotMismatch]. A snapshot that cannot be decoded gives an error
// wrapping [ErrSnapshotCorrupt]; a sets file that does not hold what it
// covers — cut short, or garbled: its bytes are checked against the
// CRC-32C the snapshot records — a [*SetsError], which wraps it too (a
// snapshot written before that checksum was added reads its file
// unchecked). Cost: O(state) and one read of the sets file; no document
// is signed or verified.
func ReadSnapshot(r io.Reader, opts Options) (*Detector, error) {
	var s snapshot
	if err := gob.NewDecoder(r).Decode(&s); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSnapshotCorrupt, err)
	}
	setsFile := opts.SetsFile
	opts.SetsFile = ""
	want := *opts.EnsureDefaults()
	want.SetsFile = setsFile
	if s.Version != snapshotVersion || s.Options != optionsKey(want) {
		return nil, fmt.Errorf("%w: written by version %d with options %s; this is version %d with %s",
			ErrSnapshotMismatch, s.Version, s.Options, snapshotVersion, optionsKey(want))
	}
	if s.SetsEnd > 0 && setsFile == "" {
		return nil, fmt.Errorf("%w: the snapshot's verification sets are in a file; Options.SetsFile names none", ErrSnapshotMismatch)
	}
	var table *stats.Table
	if s.Table != nil {
		var err error
		if table, err = stats.UnmarshalTable(s.Table); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrSnapshotCorrupt, err)
		}
	}
	d, err := New(table, opts)
	if err != nil {
		return nil, err
	}
	if err := d.restore(&s); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSnapshotCorrupt, err)
	}
	if setsFile != "" && d.opts.Method == Hybrid && d.opts.Verify == Exact {
		if d.sets, err = openSetFile(setsFile, s.setsCheck(), s.SetsAt, s.SetsN); err != nil {
			return nil, err
		}
		d.opts.SetsFile = setsFile
	}
	return d, nil
}

// setsCheck returns what s says of its sets file.
func (s *snapshot) setsCheck() setsCheck {
	return setsCheck{end: s.SetsEnd, sum: s.SetsSum, summed: s.SetsSummed}
}

// CheckSetsFile checks the verification sets file at path (Options.
// SetsFile) against the snapshot r holds, as WriteSnapshot wrote it: that
// it holds the bytes the snapshot covers and, for a snapshot that
// records their checksum (every one written since it was added), that
// they are the bytes written. It reads the file and changes nothing. A
// file cut short, garbled or missing gives a [*SetsError] (ReadSnapshot
// refuses the snapshot with it), a snapshot that cannot be decoded an
// error wrapping ErrSnapshotCorrupt too; nil for a snapshot that keeps no
// sets in a file.
func CheckSetsFile(r io.Reader, path string) error {
	var s struct { // of the snapshot, only what concerns the sets file
		SetsEnd    int64
		SetsSum    uint32
		SetsSummed bool
	}
	if err := gob.NewDecoder(r).Decode(&s); err != nil {
		return fmt.Errorf("%w: %v", ErrSnapshotCorrupt, err)
	}
	f, err := os.Open(path)
	switch {
	case errors.Is(err, os.ErrNotExist) && s.SetsEnd == 0:
		return nil // no set was written to it (ReadSnapshot makes it)
	case errors.Is(err, os.ErrNotExist):
		return &SetsError{Path: path, Reason: "missing"}
	}
	if err != nil {
		return fmt.Errorf("dedup: sets: %w", err)
	}
	defer f.Close()
	_, err = checkSets(f, path, setsCheck{end: s.SetsEnd, sum: s.SetsSum, summed: s.SetsSummed})
	return err
}

// restore fills the new Detector d with the state of s.
func (d *Detector) restore(s *snapshot) error {
	d.generation, d.lexicons, d.stats = s.Generation, s.Lexicons, s.Stats
	d.docs = make([]*record, len(s.Docs))
	d.stamp = make([]uint32, len(s.Docs))
	d.adj = s.Adj
	if d.parts = s.Parts; d.parts == nil {
		d.parts = map[string]container{}
	}
	if len(d.adj) != len(d.docs) {
		return fmt.Errorf("%d adjacency lists for %d documents", len(d.adj), len(d.docs))
	}
	for i, r := range s.Docs {
		if !r.Live {
			continue
		}
		d.docs[i] = recordOf(&r)
		d.byID[r.Member.ID] = uint32(i)
		d.setsKept += 8 * int64(len(r.Set))
	}
	assigned := &signatures.MemoryClusters{}
	if err := assigned.UnmarshalBinary(s.Assigned); err != nil {
		return err
	}
	d.assigned = assigned
	if err := d.clusters.restore(s.ClusterIDs, s.ClusterSizes, s.ClusterMembers); err != nil {
		return err
	}
	if d.clusters.Docs() != len(d.byID) {
		return fmt.Errorf("%d documents in clusters, %d stored", d.clusters.Docs(), len(d.byID))
	}
	n := len(s.ClusterIDs)
	d.groupOf, d.groupGen, d.seenGen = make([]int32, n), make([]uint32, n), make([]uint32, n)
	lists := &signatures.Memory{}
	if err := lists.UnmarshalBinary(s.Lists); err != nil {
		return err
	}
	d.lists = lists
	if (s.Hamming == nil) != (d.hamming == nil) {
		return errors.New("the Hamming index does not match the method")
	}
	if s.Hamming != nil {
		var err error
		if d.hamming, err = hamming.Read(bytes.NewReader(s.Hamming)); err != nil {
			return err
		}
	}
	return nil
}

// Close releases the file the verification sets are kept in, if any
// (Options.SetsDir, Options.SetsFile); a Detector on a Shared (NewShared)
// applies its last commits to the shared lists, if its Shared has a
// Flush method (redissig's has), rather than leaving them to the next
// worker. The Detector must not be used after.
func (d *Detector) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.epoch++ // what was verified ahead no longer holds (see preVerified)
	if d.remote != nil {
		if f, ok := d.remote.sh.(interface{ Flush(context.Context) error }); ok {
			return f.Flush(d.remote.ctx)
		}
		return nil
	}
	if d.sets == nil {
		return nil
	}
	err := d.sets.f.Close()
	d.sets = nil
	return err
}
