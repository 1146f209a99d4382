// Package storecheck checks the files of a crawl's stores when they are
// opened, so that a file cut short or garbled gives an error naming it
// instead of a panic or a silent empty store.
//
// bbolt trusts its file: a page number read from a garbled page is
// followed into the memory map, where it trips an assertion (a panic), a
// slice bound, or a fault past the end of a truncated file (a fatal
// signal unless the goroutine asked for a panic instead). [OpenBolt]
// refuses a file shorter than its high-water mark or whose free-list page
// is garbled (bbolt reads it when it opens a file for writing, and a panic
// there would leave the file locked; should another panic there, the file
// is unlocked and closed), walks every bucket,
// key and value with faults turned into panics and panics into errors,
// then runs bbolt's own [bolt.Tx.Check] (free pages, reachability).
// [Protect] does the same for any other reader (a bleve index). [Segment]
// verifies the CRC-32 a zap segment of a bleve index ends with, which
// bleve does not check when it opens one.
//
// Every damage is reported as an [*Error] naming the file; errors.Is(err,
// ErrDamaged) tells it from other failures (a lock held by another
// process, a permission).
package storecheck

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// ErrDamaged is wrapped by every [*Error].
var ErrDamaged = errors.New("damaged")

// An Error says that the file at Path is damaged and why.
type Error struct {
	Path string
	Err  error // what was found, on one line
}

func (e *Error) Error() string { return fmt.Sprintf("%s is damaged: %v", e.Path, e.Err) }

// Is reports ErrDamaged.
func (e *Error) Is(target error) bool { return target == ErrDamaged }

// Unwrap returns what was found.
func (e *Error) Unwrap() error { return e.Err }

// Damaged returns an *Error for path, its reason err shortened to its
// first line.
func Damaged(path string, err error) *Error {
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	return &Error{Path: path, Err: errors.New(msg)}
}

// Protect runs fn, turning a panic in it — and a memory fault, which
// would otherwise kill the process — into an *Error for path. A fault or
// panic in a goroutine fn starts is not caught.
func Protect(path string, fn func() error) (err error) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			err = Damaged(path, fmt.Errorf("%v", r))
		}
	}()
	return fn()
}

// OpenBolt opens the bbolt file at path as bolt.Open does and checks it
// whole (see the package doc): a damaged file gives an *Error and is left
// closed and unchanged. An existing empty file is damaged (bbolt would
// make it a new, empty store); a missing one is created unless
// opts.ReadOnly. Cost: one read of the file.
func OpenBolt(path string, mode os.FileMode, opts *bolt.Options) (*bolt.DB, error) {
	info, err := os.Stat(path)
	switch {
	case err == nil && info.Size() == 0:
		return nil, &Error{Path: path, Err: errors.New("the file is empty")}
	case err == nil && !info.Mode().IsRegular():
		return nil, fmt.Errorf("storecheck: %s is not a regular file", path)
	}
	if err == nil {
		// bbolt reads the pages its meta page names when it opens the
		// file, and a panic then leaves the file open and locked: check
		// the meta pages first.
		if err := preflight(path); err != nil {
			return nil, err
		}
	}
	// A panic in bolt.Open leaves its file open and locked: keep the file
	// to close it then.
	var o bolt.Options
	if opts != nil {
		o = *opts
	}
	var file *os.File
	openFile := o.OpenFile
	if openFile == nil {
		openFile = os.OpenFile
	}
	o.OpenFile = func(name string, flag int, perm os.FileMode) (*os.File, error) {
		f, err := openFile(name, flag, perm)
		file = f
		return f, err
	}
	var db *bolt.DB
	err = Protect(path, func() error {
		var err error
		db, err = bolt.Open(path, mode, &o)
		return err
	})
	if db == nil && file != nil && errors.Is(err, ErrDamaged) {
		release(file) // bolt.Open panicked: it returned no database to close
	}
	if err != nil {
		var d *Error
		if errors.As(err, &d) || !boltDamage(err) {
			return nil, err
		}
		return nil, Damaged(path, err)
	}
	if err := CheckBolt(db, path); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// bbolt's meta page: after a 16-byte page header, magic, version, page
// size, flags (4 bytes each), the root bucket (root page, sequence), the
// free list's page, the high-water mark and the transaction id (8 bytes
// each), then an FNV-64a checksum of the bytes before it.
const (
	pageHeader = 16
	metaLen    = 64
	boltMagic  = 0xED0CDAED
	noFreelist = 0xffffffffffffffff

	freelistPage = 0x10 // a page header's flags: a free-list page
)

// preflight checks the meta pages of the bbolt file at path: one must be
// sound, and the pages it names must lie within the file.
func preflight(path string) error {
	data, err := readPrefix(path, 1<<17+4096) // both meta pages under pages of up to 64 KiB
	if err != nil {
		return err
	}
	size := int64(0)
	if info, err := os.Stat(path); err == nil {
		size = info.Size()
	}
	meta := func(off int) (pageSize uint32, root, freelist, hwm, txid uint64, ok bool) {
		if off+pageHeader+metaLen > len(data) {
			return
		}
		m := data[off+pageHeader : off+pageHeader+metaLen]
		le := binary.LittleEndian
		h := fnv.New64a()
		h.Write(m[:56])
		if le.Uint32(m) != boltMagic || le.Uint32(m[4:]) != 2 || le.Uint64(m[56:]) != h.Sum64() {
			return
		}
		return le.Uint32(m[8:]), le.Uint64(m[16:]), le.Uint64(m[32:]), le.Uint64(m[40:]), le.Uint64(m[48:]), true
	}
	ps0, root, free, hwm, txid, ok0 := meta(0)
	ps := int(ps0)
	if !ok0 {
		ps = os.Getpagesize()
	}
	ps1, root1, free1, hwm1, txid1, ok1 := meta(ps)
	switch {
	case !ok0 && !ok1:
		return &Error{Path: path, Err: errors.New("not a bbolt file, or both its meta pages are garbled")}
	case ok1 && (!ok0 || txid1 > txid):
		ps0, root, free, hwm = ps1, root1, free1, hwm1
	}
	switch {
	case ps0 < 512 || ps0 > 1<<20:
		return &Error{Path: path, Err: fmt.Errorf("page size %d", ps0)}
	case hwm*uint64(ps0) > uint64(size):
		return &Error{Path: path, Err: fmt.Errorf("cut short: %d bytes of %d", size, hwm*uint64(ps0))}
	case root >= hwm || free != noFreelist && free >= hwm:
		return &Error{Path: path, Err: errors.New("its meta page names pages past its end")}
	case free != noFreelist:
		// bbolt reads the free list when it opens a file for writing, and
		// a garbled one panics there, leaving the file locked.
		return freelist(path, uint64(ps0), free, hwm)
	}
	return nil
}

// freelist checks the header of the free-list page free of the bbolt file
// at path (pages of ps bytes, hwm of them in use): a free-list page with
// its own number, lying within the pages in use, its count of page
// numbers fitting in it.
func freelist(path string, ps, free, hwm uint64) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("storecheck: %w", err)
	}
	defer f.Close()
	var h [pageHeader + 8]byte // the header and the first page number (a count, past 0xFFFF)
	if _, err := f.ReadAt(h[:], int64(free*ps)); err != nil {
		return &Error{Path: path, Err: fmt.Errorf("free-list page %d: %v", free, err)}
	}
	le := binary.LittleEndian
	id, flags, count, overflow := le.Uint64(h[:]), le.Uint16(h[8:]), uint64(le.Uint16(h[10:])), uint64(le.Uint32(h[12:]))
	first := uint64(0)
	if count == 0xFFFF {
		first, count = 1, le.Uint64(h[pageHeader:])
	}
	switch {
	case flags != freelistPage || id != free:
		return &Error{Path: path, Err: fmt.Errorf("page %d is not the free list its meta page names", free)}
	case free+overflow >= hwm || count > ((overflow+1)*ps-pageHeader)/8-first:
		return &Error{Path: path, Err: fmt.Errorf("free-list page %d runs past its pages", free)}
	}
	return nil
}

// readPrefix returns the first n bytes of the file at path (fewer if it
// is shorter).
func readPrefix(path string, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("storecheck: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, n))
	if err != nil {
		return nil, fmt.Errorf("storecheck: %w", err)
	}
	return data, nil
}

// boltDamage reports whether an error of bolt.Open says the file is
// damaged (and not locked by another process, absent or unreadable).
func boltDamage(err error) bool {
	var pe *fs.PathError
	return !errors.As(err, &pe) && !errors.Is(err, bolterrors.ErrTimeout) &&
		!errors.Is(err, fs.ErrPermission) && !errors.Is(err, fs.ErrNotExist)
}

// CheckBolt checks the open database db, whose file is path, as OpenBolt
// does.
func CheckBolt(db *bolt.DB, path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("storecheck: %w", err)
	}
	return Protect(path, func() error {
		return db.View(func(tx *bolt.Tx) error {
			if n := tx.Size(); n > info.Size() {
				return Damaged(path, fmt.Errorf("cut short: %d bytes of %d", info.Size(), n))
			}
			if err := tx.ForEach(func(name []byte, b *bolt.Bucket) error { return walk(b) }); err != nil {
				return Damaged(path, err)
			}
			// Every reachable page has been read without fault, so
			// bbolt's check (in a goroutine of its own) reads sane pages.
			var first error
			for err := range tx.Check() { // read to the end: the check's goroutine reads tx
				if first == nil {
					first = err
				}
			}
			if first != nil {
				return Damaged(path, first)
			}
			return nil
		})
	})
}

// walk reads every key and value of b and its nested buckets.
func walk(b *bolt.Bucket) error {
	var sum byte
	err := b.ForEach(func(k, v []byte) error {
		if v == nil {
			if nb := b.Bucket(k); nb != nil {
				return walk(nb)
			}
		}
		if len(v) > 0 {
			sum ^= v[0] ^ v[len(v)-1] // touch the value's pages
		}
		return nil
	})
	runtime.KeepAlive(sum)
	return err
}

// Segment verifies the zap segment (a bleve index's file) at path: the
// CRC-32 in its last 4 bytes (big endian) must be the checksum of the
// bytes before them. Cost: one read of the file.
func Segment(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Error{Path: path, Err: errors.New("the file is missing")}
	}
	if err != nil {
		return fmt.Errorf("storecheck: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("storecheck: %w", err)
	}
	const footer = 4 + 4 + 4 + 8 + 8 + 8 + 8 + 8 // zapx's FooterSize
	if info.Size() < footer {
		return &Error{Path: path, Err: fmt.Errorf("cut short: %d bytes", info.Size())}
	}
	h := crc32.NewIEEE()
	if _, err := io.CopyN(h, f, info.Size()-4); err != nil {
		return fmt.Errorf("storecheck: reading %s: %w", path, err)
	}
	var tail [4]byte
	if _, err := io.ReadFull(f, tail[:]); err != nil {
		return fmt.Errorf("storecheck: reading %s: %w", path, err)
	}
	if binary.BigEndian.Uint32(tail[:]) != h.Sum32() {
		return &Error{Path: path, Err: errors.New("checksum mismatch (cut short or garbled)")}
	}
	return nil
}
