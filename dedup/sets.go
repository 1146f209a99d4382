package dedup

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"slices"
	"unsafe"
)

// setFile keeps the documents' verification sets (Options.SetsDir) in an
// unlinked file, appended to, one place per slot; a slot given a new set
// (a new version) points at its new place. Only the offsets stay in
// memory: 12 bytes a document instead of its set (8 bytes a shingle).
// Sets are written a MiB at a time (a write per set cost a system call
// per document: 9 % of doppel dedup's time at 300k); sets not yet
// written are read from that buffer. Used under the Detector's write
// lock.
type setFile struct {
	f       *os.File
	end     int64       // the file's length once pending is written
	pending []byte      // the bytes from end−len(pending) on, not yet written
	at      []int64     // by slot: where its set starts
	n       []uint32    // by slot: its length
	buf     [2][]uint64 // get's buffers for sets the cache does not keep
	cache   setCache
	hubs    hubSets   // long sets kept in memory as differences (see hubSets)
	noHubs  bool      // keep none (tests: the reference)
	held    [2]cached // the cached sets get last returned for buffers 0 and 1
	err     error     // the first read or write error
	// sum is the CRC-32C of the bytes written, a snapshot's check of
	// the file (Options.SetsFile; not kept for an unlinked file).
	sum    uint32
	summed bool
}

// setWriteSize is how many bytes of sets setFile gathers before writing.
const setWriteSize = 1 << 20

// newSetFile creates the file in dir, unlinked at once: it goes when the
// process does.
func newSetFile(dir string) (*setFile, error) {
	f, err := os.CreateTemp(dir, "doppel-sets-*")
	if err != nil {
		return nil, fmt.Errorf("dedup: sets: %w", err)
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, fmt.Errorf("dedup: sets: %w", err)
	}
	return &setFile{f: f}, nil
}

// A setsCheck is what a snapshot says of its sets file: the bytes it
// covers and, when summed (snapshots written since the check was added),
// their CRC-32C.
type setsCheck struct {
	end    int64
	sum    uint32
	summed bool
}

// openSetFile opens (or creates) the file at path, keeping its first
// want.end bytes, which hold the sets of a snapshot at the offsets at and
// lengths n, and dropping the rest. Those bytes are read once and, when
// want.summed, checked against want.sum: a file cut short or garbled is
// an error wrapping ErrSnapshotCorrupt that names it.
func openSetFile(path string, want setsCheck, at []int64, n []uint32) (*setFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("dedup: sets: %w", err)
	}
	sum, err := checkSets(f, path, want)
	if err == nil {
		err = f.Truncate(want.end)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return &setFile{f: f, end: want.end, at: at, n: n, sum: sum, summed: true}, nil
}

// checkSets checks that the file f (at path) holds want.end bytes and,
// when want.summed, that they are the bytes want.sum was computed over;
// it returns their CRC-32C.
func checkSets(f *os.File, path string, want setsCheck) (uint32, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("dedup: sets: %w", err)
	}
	if fi.Size() < want.end {
		return 0, &SetsError{Path: path, Reason: fmt.Sprintf("cut short: it holds %d bytes, the snapshot covers %d", fi.Size(), want.end)}
	}
	sum := crc32.New(castagnoli)
	if _, err := io.Copy(sum, io.NewSectionReader(f, 0, want.end)); err != nil {
		return 0, fmt.Errorf("dedup: sets: %w", err)
	}
	if got := sum.Sum32(); want.summed && got != want.sum {
		return 0, &SetsError{Path: path, Reason: fmt.Sprintf("garbled: the CRC-32C of its first %d bytes is %08x, the snapshot says %08x", want.end, got, want.sum)}
	}
	return sum.Sum32(), nil
}

// A SetsError says that the verification sets file at Path does not
// hold what the snapshot read with it covers (ReadSnapshot,
// CheckSetsFile): Reason says how. It wraps [ErrSnapshotCorrupt].
type SetsError struct {
	Path   string
	Reason string // "cut short: …", "garbled: …", "missing"
}

func (e *SetsError) Error() string {
	return fmt.Sprintf("dedup: the verification sets file %s is %s", e.Path, e.Reason)
}

// Unwrap returns ErrSnapshotCorrupt.
func (e *SetsError) Unwrap() error { return ErrSnapshotCorrupt }

// castagnoli is the CRC-32C table of the sets file's check.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// sync flushes the file to disk, so that a snapshot never covers sets
// the disk may lose.
func (s *setFile) sync() error {
	s.flush()
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("dedup: sets: %w", err)
	}
	return s.err
}

// put writes the set of slot.
func (s *setFile) put(slot uint32, set []uint64) {
	if int(slot) < len(s.at) && s.n[slot] > 0 {
		s.hubs.drop(s.at[slot]) // a new version
	}
	for int(slot) >= len(s.at) {
		s.at, s.n = append(s.at, 0), append(s.n, 0)
	}
	if !s.noHubs {
		s.hubs.add(s.end, set)
	}
	s.at[slot], s.n[slot] = s.end, uint32(len(set))
	s.cache.drop(slot)
	if b, direct := bytesOf(set); direct {
		s.pending = append(s.pending, b...)
	} else {
		for _, v := range set {
			s.pending = binary.LittleEndian.AppendUint64(s.pending, v)
		}
	}
	s.end += int64(8 * len(set))
	if len(s.pending) >= setWriteSize {
		s.flush()
	}
}

// flush writes the pending bytes.
func (s *setFile) flush() {
	if len(s.pending) == 0 {
		return
	}
	if _, err := s.f.WriteAt(s.pending, s.end-int64(len(s.pending))); err != nil && s.err == nil {
		s.err = fmt.Errorf("dedup: sets: %w", err)
	}
	if s.summed {
		s.sum = crc32.Update(s.sum, castagnoli, s.pending)
	}
	s.pending = s.pending[:0]
}

// size returns the length of the set of slot, without reading it; 0 if
// there is none.
func (s *setFile) size(slot uint32) int {
	if int(slot) >= len(s.n) {
		return 0
	}
	return int(s.n[slot])
}

// get returns the set of slot, from the cache or read into the cache or,
// when the cache cannot keep it, into buffer i; the set stays valid
// until the next get with the same i (0 or 1, so that two sets can be
// compared). Nil if it cannot be read (s.err says why).
func (s *setFile) get(slot uint32, i int) []uint64 {
	if e, ok := s.cache.get(slot); ok {
		s.held[i] = e
		return s.cache.set(e)
	}
	s.held[i] = cached{}
	var set []uint64
	var err error
	if e, ok := s.cache.reserve(slot, s.size(slot), &s.held[1-i]); ok {
		if set, err = s.read(slot, s.cache.set(e)[:0]); err == nil {
			s.cache.add(e)
			s.held[i] = e
		}
	} else {
		s.buf[i], err = s.read(slot, s.buf[i][:0])
		set = s.buf[i]
	}
	if err != nil {
		if s.err == nil {
			s.err = err
		}
		return nil
	}
	return set
}

// read appends the set of slot to set and returns it: one read into the
// set's own memory on a little-endian machine, the byte order of the
// file. It changes nothing in s (a snapshot reads under the read lock).
func (s *setFile) read(slot uint32, set []uint64) ([]uint64, error) {
	if int(slot) >= len(s.at) {
		return set, fmt.Errorf("dedup: sets: no set in slot %d", slot)
	}
	n, at := int(s.n[slot]), s.at[slot]
	old := len(set)
	set = slices.Grow(set, n)[:old+n]
	dst := set[old:]
	b, direct := bytesOf(dst)
	if !direct {
		b = make([]byte, 8*n)
	}
	if written := s.end - int64(len(s.pending)); at >= written {
		copy(b, s.pending[at-written:])
	} else if _, err := s.f.ReadAt(b, at); err != nil {
		return set[:old], fmt.Errorf("dedup: sets: %w", err)
	}
	if !direct {
		for j := range dst {
			dst[j] = binary.LittleEndian.Uint64(b[8*j:])
		}
	}
	return set, nil
}

// littleEndian: this machine stores a uint64 as the set file does.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// bytesOf returns the memory of set as bytes, to read the set file into
// directly, on a little-endian machine; false on another.
func bytesOf(set []uint64) ([]byte, bool) {
	if !littleEndian || len(set) == 0 {
		return nil, littleEndian
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&set[0])), 8*len(set)), true
}

// renumber puts the sets of docs, a Recluster's new arrival order, under
// their new slots: the set of docs[i], spilled under its old slot, is now
// that of slot i. Without it a document inserted after a Recluster that
// followed removals would take a slot still read as another document's.
func (s *setFile) renumber(docs []*record) {
	at, n := make([]int64, len(docs)), make([]uint32, len(docs))
	for i, rec := range docs {
		if rec.spilled {
			at[i], n[i] = s.at[rec.slot], s.n[rec.slot]
			rec.slot = uint32(i)
		}
	}
	s.at, s.n = at, n
	s.cache.reset()
}
