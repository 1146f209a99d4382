package dedup

import (
	"encoding/binary"
	"fmt"
	"os"
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
	end     int64    // the file's length once pending is written
	pending []byte   // the bytes from end−len(pending) on, not yet written
	at      []int64  // by slot: where its set starts
	n       []uint32 // by slot: its length
	buf     [2][]uint64
	rd      []byte // get's read buffer
	err     error  // the first read or write error
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

// openSetFile opens (or creates) the file at path, keeping its first end
// bytes, which hold the sets of a snapshot at the offsets at and lengths
// n, and dropping the rest.
func openSetFile(path string, end int64, at []int64, n []uint32) (*setFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("dedup: sets: %w", err)
	}
	fi, err := f.Stat()
	if err == nil && fi.Size() < end {
		err = fmt.Errorf("%s holds %d bytes, the snapshot needs %d", path, fi.Size(), end)
	}
	if err == nil {
		err = f.Truncate(end)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("dedup: sets: %w", err)
	}
	return &setFile{f: f, end: end, at: at, n: n}, nil
}

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
	for int(slot) >= len(s.at) {
		s.at, s.n = append(s.at, 0), append(s.n, 0)
	}
	s.at[slot], s.n[slot] = s.end, uint32(len(set))
	for _, v := range set {
		s.pending = binary.LittleEndian.AppendUint64(s.pending, v)
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
	s.pending = s.pending[:0]
}

// get reads the set of slot into buffer i (0 or 1, so that two sets can
// be compared); nil if it cannot be read (s.err says why).
func (s *setFile) get(slot uint32, i int) []uint64 {
	var err error
	s.rd, s.buf[i], err = s.read(slot, s.rd, s.buf[i][:0])
	if err != nil {
		if s.err == nil {
			s.err = err
		}
		return nil
	}
	return s.buf[i]
}

// read appends the set of slot to set, reading through the buffer rd,
// and returns both; it changes nothing in s (a snapshot reads under the
// read lock).
func (s *setFile) read(slot uint32, rd []byte, set []uint64) ([]byte, []uint64, error) {
	if int(slot) >= len(s.at) {
		return rd, set, fmt.Errorf("dedup: sets: no set in slot %d", slot)
	}
	n := int(s.n[slot])
	var raw []byte
	if written := s.end - int64(len(s.pending)); s.at[slot] >= written {
		off := s.at[slot] - written
		raw = s.pending[off : off+int64(8*n)]
	} else {
		rd = append(rd[:0], make([]byte, 8*n)...)
		raw = rd
		if _, err := s.f.ReadAt(raw, s.at[slot]); err != nil {
			return rd, set, fmt.Errorf("dedup: sets: %w", err)
		}
	}
	for j := range n {
		set = append(set, binary.LittleEndian.Uint64(raw[8*j:]))
	}
	return rd, set, nil
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
}
