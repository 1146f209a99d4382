package detect

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/google/renameio/v2"
	bolt "go.etcd.io/bbolt"

	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/detect/api"
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

// openStore opens (or creates) the store of directory dir.
func openStore(dir string) (*store, error) {
	db, err := bolt.Open(filepath.Join(dir, dbFile), 0o600, &bolt.Options{Timeout: 5 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("detect: opening %s: %w", filepath.Join(dir, dbFile), err)
	}
	s := &store{db: db, next: 1}
	err = db.Update(func(tx *bolt.Tx) error {
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
		return tx.Bucket(bucketDocs).ForEach(func(_, v []byte) error {
			var o op
			if err := json.Unmarshal(v, &o); err != nil {
				return err
			}
			s.next = max(s.next, o.Seq+1)
			return nil
		})
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("detect: %s: %w", filepath.Join(dir, dbFile), err)
	}
	return s, nil
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
				return fmt.Errorf("detect: log entry %d: %w", binary.BigEndian.Uint64(k), err)
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
				return fmt.Errorf("detect: document %q: %w", k, err)
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

// writeSnapshot replaces the snapshot of dir, atomically, with d's
// state after op number seq.
func writeSnapshot(dir string, d *dedup.Detector, seq uint64) error {
	f, err := renameio.NewPendingFile(filepath.Join(dir, snapshotFile), renameio.WithPermissions(0o600))
	if err != nil {
		return err
	}
	defer f.Cleanup()
	if _, err := f.Write(binary.BigEndian.AppendUint64(nil, seq)); err != nil {
		return err
	}
	if err := d.WriteSnapshot(f); err != nil {
		return err
	}
	return f.CloseAtomicallyReplace()
}

// readSnapshot returns the detector of dir's snapshot and the number of
// the last op it covers; os.ErrNotExist without one.
func readSnapshot(dir string, opts dedup.Options) (*dedup.Detector, uint64, error) {
	f, err := os.Open(filepath.Join(dir, snapshotFile))
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	var head [8]byte
	if _, err := io.ReadFull(f, head[:]); err != nil {
		return nil, 0, fmt.Errorf("%w: %v", dedup.ErrSnapshotCorrupt, err)
	}
	d, err := dedup.ReadSnapshot(f, opts)
	if err != nil {
		return nil, 0, err
	}
	return d, binary.BigEndian.Uint64(head[:]), nil
}

// errBroken wraps the error that stopped a service from applying what
// it had logged: it answers no more changes until restarted (the
// restart applies the log).
var errBroken = errors.New("detect: the service stopped applying changes; restart it")
