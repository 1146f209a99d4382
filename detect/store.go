package detect

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/google/renameio/v2"
	bolt "go.etcd.io/bbolt"

	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/detect/api"
	"github.com/doppel-search/doppel/internal/storecheck"
)

// The files of a service's data directory.
const (
	dbFile       = "detect.db"     // bbolt: the log of accepted changes and every stored document
	snapshotFile = "detector.snap" // the detector's snapshot, after the log number it covers
	setsFile     = "sets"          // the detector's verification sets (dedup.Options.SetsFile)
)

var (
	bucketLog  = []byte("log")  // log number (8 bytes, big endian) → an op (JSON)
	bucketDocs = []byte("docs") // document id → its latest op (JSON)
)

// An op is one accepted change, as logged: a new version of a document
// (Doc) or its removal (Delete).
type op struct {
	Seq    uint64       `json:"seq"`
	Delete string       `json:"delete,omitempty"`
	Doc    api.Document `json:"doc,omitzero"`
	Sum    uint64       `json:"sum,omitempty"`
}

// id returns the id of the document op changes.
func (o *op) id() string {
	if o.Delete != "" {
		return o.Delete
	}
	return o.Doc.ID
}

// store keeps what a service accepted in a bbolt file, committed (and
// synced) before it is applied: a log of ops in order, trimmed up to the
// detector's last snapshot, and the latest version of every stored
// document (to rebuild the detector when its snapshot cannot be read).
type store struct {
	db   *bolt.DB
	next uint64 // the number the next op gets
}

// openStore opens (or creates) the store of directory dir. A damaged
// file (cut short, garbled, emptied) is checked whole when it is opened
// (storecheck.OpenBolt) and refused with an error wrapping ErrDamaged
// that names it and says what to do; it is never replaced by an empty
// store.
func openStore(dir string) (*store, error) {
	path := filepath.Join(dir, dbFile)
	db, err := storecheck.OpenBolt(path, 0o600, &bolt.Options{Timeout: 5 * time.Second})
	if err != nil {
		if errors.Is(err, storecheck.ErrDamaged) {
			return nil, damaged(err)
		}
		return nil, fmt.Errorf("detect: opening %s: %w", path, err)
	}
	s := &store{db: db, next: 1}
	err = storecheck.Protect(path, func() error { return s.init() })
	if err != nil {
		db.Close()
		if errors.Is(err, storecheck.ErrDamaged) || errors.Is(err, errBadRecord) {
			return nil, damaged(storecheck.Damaged(path, err))
		}
		return nil, fmt.Errorf("detect: %s: %w", path, err)
	}
	return s, nil
}

// errBadRecord: a record of the store does not decode.
var errBadRecord = errors.New("a record does not decode")

// ErrDamaged is wrapped by the error Open returns for a data directory
// whose store (detect.db) is damaged: cut short, garbled or emptied.
var ErrDamaged = storecheck.ErrDamaged

// damaged returns the damage d (a *storecheck.Error) as the one line a
// user reads: the file, what is wrong, and what to do.
func damaged(d error) error {
	return fmt.Errorf("detect: %w: move it aside (it is kept as it is) and send the documents again, "+
		"or restore it from a copy", d)
}

// init makes the store's buckets and finds the next op's number.
func (s *store) init() error {
	return s.db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketLog, bucketDocs} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		if k, _ := tx.Bucket(bucketLog).Cursor().Last(); k != nil {
			s.next = binary.BigEndian.Uint64(k) + 1
		}
		// The documents' ops carry numbers too: the log may be empty
		// after a trim.
		return tx.Bucket(bucketDocs).ForEach(func(k, v []byte) error {
			var o op
			if err := json.Unmarshal(v, &o); err != nil || o.id() != string(k) {
				return fmt.Errorf("%w: document %q: %v", errBadRecord, k, err)
			}
			s.next = max(s.next, o.Seq+1)
			return nil
		})
	})
}

// append numbers ops and commits them in one transaction: in the log,
// and as each document's latest version (a removal deletes it).
func (s *store) append(ops []*op) error {
	next := s.next
	err := s.db.Update(func(tx *bolt.Tx) error {
		log, docs := tx.Bucket(bucketLog), tx.Bucket(bucketDocs)
		for _, o := range ops {
			o.Seq = next
			next++
			raw, err := json.Marshal(o)
			if err != nil {
				return err
			}
			if err := log.Put(binary.BigEndian.AppendUint64(nil, o.Seq), raw); err != nil {
				return err
			}
			if o.Delete != "" {
				err = docs.Delete([]byte(o.Delete))
			} else {
				err = docs.Put([]byte(o.Doc.ID), raw)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("detect: logging: %w", err)
	}
	s.next = next
	return nil
}

// replay calls fn with every logged op after number after, in order.
func (s *store) replay(after uint64, fn func(*op) error) error {
	return s.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketLog).Cursor()
		for k, v := c.Seek(binary.BigEndian.AppendUint64(nil, after+1)); k != nil; k, v = c.Next() {
			var o op
			if err := json.Unmarshal(v, &o); err != nil {
				return fmt.Errorf("%w: log entry %d: %v", errBadRecord, binary.BigEndian.Uint64(k), err)
			}
			if err := fn(&o); err != nil {
				return err
			}
		}
		return nil
	})
}

// docs calls fn with every stored document's latest op, in no order.
func (s *store) docs(fn func(*op) error) error {
	return s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketDocs).ForEach(func(k, v []byte) error {
			var o op
			if err := json.Unmarshal(v, &o); err != nil {
				return fmt.Errorf("%w: document %q: %v", errBadRecord, k, err)
			}
			return fn(&o)
		})
	})
}

// trim deletes the log up to number upto (a snapshot covers it).
func (s *store) trim(upto uint64) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketLog).Cursor()
		for k, _ := c.First(); k != nil && binary.BigEndian.Uint64(k) <= upto; k, _ = c.First() {
			if err := c.Delete(); err != nil {
				return err
			}
		}
		return nil
	})
}

// complete reports whether the log holds every op since the first (no
// snapshot has trimmed it).
func (s *store) complete() bool {
	complete := false
	s.db.View(func(tx *bolt.Tx) error {
		k, _ := tx.Bucket(bucketLog).Cursor().First()
		complete = k == nil && s.next == 1 || k != nil && binary.BigEndian.Uint64(k) == 1
		return nil
	})
	return complete
}

// last returns the number of the last op logged.
func (s *store) last() uint64 { return s.next - 1 }

func (s *store) close() error { return s.db.Close() }

// The snapshot file: the number of the last op it covers (8 bytes, big
// endian), the detector's snapshot (dedup.Detector.WriteSnapshot), then
// a trailer: the length of what precedes it (8 bytes, little endian) and
// its CRC-32C (4 bytes), so that a file cut short or garbled is detected
// (the detector is then rebuilt from the stored documents) rather than
// decoded.
const snapTrailer = 8 + 4

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// writeSnapshot replaces the snapshot of dir, atomically, with d's
// state after op number seq.
func writeSnapshot(dir string, d *dedup.Detector, seq uint64) error {
	f, err := renameio.NewPendingFile(filepath.Join(dir, snapshotFile), renameio.WithPermissions(0o600))
	if err != nil {
		return err
	}
	defer f.Cleanup()
	sum := crc32.New(castagnoli)
	n := &countWriter{}
	bw := bufio.NewWriterSize(io.MultiWriter(f, sum, n), 1<<16)
	if _, err := bw.Write(binary.BigEndian.AppendUint64(nil, seq)); err != nil {
		return err
	}
	if err := d.WriteSnapshot(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	trailer := binary.LittleEndian.AppendUint64(nil, uint64(n.n))
	if _, err := f.Write(binary.LittleEndian.AppendUint32(trailer, sum.Sum32())); err != nil {
		return err
	}
	return f.CloseAtomicallyReplace()
}

// A countWriter counts the bytes written to it.
type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// readSnapshot returns the detector of dir's snapshot and the number of
// the last op it covers; os.ErrNotExist without one, and an error
// wrapping dedup.ErrSnapshotCorrupt for a file whose length or checksum
// is wrong (checked before anything is decoded: one more read of the
// file).
func readSnapshot(dir string, opts dedup.Options) (*dedup.Detector, uint64, error) {
	f, err := os.Open(filepath.Join(dir, snapshotFile))
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	size, err := verifySnapshot(f)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %s: %v", dedup.ErrSnapshotCorrupt, snapshotFile, err)
	}
	r := bufio.NewReaderSize(io.NewSectionReader(f, 0, size), 1<<16)
	var head [8]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, 0, fmt.Errorf("%w: %v", dedup.ErrSnapshotCorrupt, err)
	}
	var d *dedup.Detector
	err = storecheck.Protect(filepath.Join(dir, snapshotFile), func() error {
		var err error
		d, err = dedup.ReadSnapshot(r, opts)
		return err
	})
	if err != nil && !errors.Is(err, dedup.ErrSnapshotMismatch) && !errors.Is(err, dedup.ErrSnapshotCorrupt) {
		// A panic decoding it, or its sets file cut short: rebuilt.
		err = fmt.Errorf("%w: %v", dedup.ErrSnapshotCorrupt, err)
	}
	if err != nil {
		return nil, 0, err
	}
	return d, binary.BigEndian.Uint64(head[:]), nil
}

// verifySnapshot checks the trailer of the snapshot f and returns the
// length of what it covers.
func verifySnapshot(f *os.File) (int64, error) {
	info, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := info.Size() - snapTrailer
	if size < 8 {
		return 0, fmt.Errorf("cut short: %d bytes", info.Size())
	}
	var trailer [snapTrailer]byte
	if _, err := f.ReadAt(trailer[:], size); err != nil {
		return 0, err
	}
	if n := binary.LittleEndian.Uint64(trailer[:]); n != uint64(size) {
		return 0, fmt.Errorf("%d bytes, its trailer says %d", size, n)
	}
	sum := crc32.New(castagnoli)
	if _, err := io.Copy(sum, io.NewSectionReader(f, 0, size)); err != nil {
		return 0, err
	}
	if sum.Sum32() != binary.LittleEndian.Uint32(trailer[8:]) {
		return 0, errors.New("checksum mismatch")
	}
	return size, nil
}

// errBroken wraps the error that stopped a service from applying what
// it had logged: it answers no more changes until restarted (the
// restart applies the log).
var errBroken = errors.New("detect: the service stopped applying changes; restart it")
