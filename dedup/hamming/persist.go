package hamming

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
)

// The format, all integers little endian:
//
//	magic           6 bytes "DPHAMM"
//	version         uint16 (formatVersion)
//	bits            uint8
//	max distance    uint8
//	blocks          uint8
//	block widths    blocks × uint8
//	merge threshold uint64
//	count           uint64
//	entries         count × (id uint64, fingerprint uint64)
//	checksum        uint32, CRC-32C (Castagnoli) of all the bytes before it
//
// The tables are not stored: Read rebuilds them, O(T·n).
const (
	magic         = "DPHAMM"
	formatVersion = 1
	chunkEntries  = 4096 // entries encoded or decoded per buffer
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// WriteTo writes x to w in the package's binary format (see [Read]) and
// returns the number of bytes written: 16 per entry plus a header of less
// than 100 bytes. It holds x's read lock while writing, so it sees one
// consistent state and delays writers. O(n).
func (x *Index) WriteTo(w io.Writer) (int64, error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	o := x.lay.opts
	cw := &crcWriter{w: w, crc: crc32.New(castagnoli)}
	buf := make([]byte, 0, 16*chunkEntries)
	buf = append(buf, magic...)
	buf = binary.LittleEndian.AppendUint16(buf, formatVersion)
	buf = append(buf, byte(o.Bits), byte(o.MaxDistance), byte(o.Blocks))
	for _, w := range o.BlockWidths {
		buf = append(buf, byte(w))
	}
	buf = binary.LittleEndian.AppendUint64(buf, uint64(o.MergeThreshold))
	buf = binary.LittleEndian.AppendUint64(buf, uint64(x.live))
	for s, e := range x.entries {
		if x.dead.has(uint32(s)) {
			continue
		}
		if len(buf)+16 > cap(buf) {
			cw.write(buf)
			buf = buf[:0]
		}
		buf = binary.LittleEndian.AppendUint64(buf, e.ID)
		buf = binary.LittleEndian.AppendUint64(buf, e.Fingerprint)
	}
	cw.write(buf)
	cw.write(binary.LittleEndian.AppendUint32(nil, cw.crc.Sum32()))
	if cw.err != nil {
		return cw.n, fmt.Errorf("hamming: write index: %w", cw.err)
	}
	return cw.n, nil
}

// crcWriter writes to w and checksums what it writes; after an error it
// writes nothing more and keeps the error.
type crcWriter struct {
	w   io.Writer
	crc hash.Hash32
	n   int64
	err error
}

func (c *crcWriter) write(p []byte) {
	if c.err != nil {
		return
	}
	c.crc.Write(p)
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
}

// Read reads an index written by [Index.WriteTo] from r, consuming exactly
// its bytes. Data that is truncated, has a wrong magic, version or
// checksum, or decodes to invalid options or entries gives an error
// wrapping [ErrCorrupt]; other errors from r are returned wrapped as they
// are. Nothing is built before the checksum is verified, and memory grows
// with the bytes actually read, not with the count the header claims.
// Cost: O(n log n) (checking entries are distinct) plus O(T·n).
func Read(r io.Reader) (*Index, error) {
	cr := &crcReader{r: r, crc: crc32.New(castagnoli)}
	var hdr [len(magic) + 2 + 3]byte
	if err := cr.full(hdr[:]); err != nil {
		return nil, err
	}
	if string(hdr[:len(magic)]) != magic {
		return nil, fmt.Errorf("%w: bad magic %q", ErrCorrupt, hdr[:len(magic)])
	}
	if v := binary.LittleEndian.Uint16(hdr[len(magic):]); v != formatVersion {
		return nil, fmt.Errorf("%w: unsupported format version %d", ErrCorrupt, v)
	}
	b := hdr[len(magic)+2:]
	o := Options{Bits: int(b[0]), MaxDistance: int(b[1]), Blocks: int(b[2])}
	widths := make([]byte, o.Blocks)
	if err := cr.full(widths); err != nil {
		return nil, err
	}
	for _, w := range widths {
		o.BlockWidths = append(o.BlockWidths, int(w))
	}
	var counts [16]byte
	if err := cr.full(counts[:]); err != nil {
		return nil, err
	}
	threshold := binary.LittleEndian.Uint64(counts[:8])
	count := binary.LittleEndian.Uint64(counts[8:])
	if threshold > maxSlots {
		return nil, fmt.Errorf("%w: merge threshold %d", ErrCorrupt, threshold)
	}
	o.MergeThreshold = int(threshold)
	// Every field is explicit, so resolve only checks: a zero that would
	// select a default is itself corrupt.
	if o.Bits == 0 || o.MaxDistance == 0 || o.Blocks == 0 {
		return nil, fmt.Errorf("%w: options %+v", ErrCorrupt, o)
	}
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if count > maxSlots {
		return nil, fmt.Errorf("%w: entry count %d", ErrCorrupt, count)
	}
	entries := make([]Entry, 0, min(count, chunkEntries))
	buf := make([]byte, 16*chunkEntries)
	for left := count; left > 0; {
		n := min(left, chunkEntries)
		p := buf[:16*n]
		if err := cr.full(p); err != nil {
			return nil, err
		}
		for ; len(p) > 0; p = p[16:] {
			entries = append(entries, Entry{
				ID:          binary.LittleEndian.Uint64(p),
				Fingerprint: binary.LittleEndian.Uint64(p[8:]),
			})
		}
		left -= n
	}
	sum := cr.crc.Sum32()
	var trailer [4]byte
	if err := cr.full(trailer[:]); err != nil {
		return nil, err
	}
	if got := binary.LittleEndian.Uint32(trailer[:]); got != sum {
		return nil, fmt.Errorf("%w: checksum %#08x, want %#08x", ErrCorrupt, got, sum)
	}
	x, err := New(o)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if err := x.InsertBatch(entries); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return x, nil
}

// crcReader reads whole buffers from r and checksums them.
type crcReader struct {
	r   io.Reader
	crc hash.Hash32
}

func (c *crcReader) full(p []byte) error {
	if _, err := io.ReadFull(c.r, p); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("%w: truncated", ErrCorrupt)
		}
		return fmt.Errorf("hamming: read index: %w", err)
	}
	c.crc.Write(p)
	return nil
}

// Save writes x to the file path (mode 0644) atomically: it writes a
// temporary file in the same directory, fsyncs it, renames it over path and
// fsyncs the directory, so a crash leaves either the old file or the new
// one, never a mix. On error the temporary file is removed. It holds x's
// read lock while writing. O(n).
func (x *Index) Save(path string) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("hamming: save: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()           // may already be closed; the first error matters
			os.Remove(f.Name()) // gone already if the rename succeeded
			err = fmt.Errorf("hamming: save %s: %w", path, err)
		}
	}()
	if err := f.Chmod(0o644); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	if _, err := x.WriteTo(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	return syncDir(dir)
}

// syncDir fsyncs a directory so that a rename in it is durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	if err := d.Sync(); err != nil {
		d.Close()
		return err
	}
	return d.Close()
}

// Load reads the index saved at path by [Index.Save]. A damaged file,
// including one with bytes after the checksum, gives an error wrapping
// [ErrCorrupt]; a missing one an error satisfying
// errors.Is(err, fs.ErrNotExist). Cost as [Read].
func Load(path string) (*Index, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("hamming: load: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	x, err := Read(br)
	if err != nil {
		return nil, fmt.Errorf("hamming: load %s: %w", path, err)
	}
	switch _, err := br.ReadByte(); {
	case err == nil:
		return nil, fmt.Errorf("hamming: load %s: %w: data after the checksum", path, ErrCorrupt)
	case !errors.Is(err, io.EOF):
		return nil, fmt.Errorf("hamming: load %s: %w", path, err)
	}
	return x, nil
}
