// Package pages is the crawler's durable record of every URL it has
// decided about: fetched pages with their cleaned text and their cluster,
// and URLs skipped or failed with the reason. It is the source of truth
// from which the near-duplicate detector and the search index are rebuilt
// after a restart, and what `doppel export` prints.
//
// Records live in a bbolt database: every Put is one fsynced transaction,
// so after a crash (kill -9 included) the store holds exactly the records
// whose Put returned. Records are numbered in the order they were first
// stored, and [Store.Each] replays them in that order.
package pages

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Status says what became of a URL.
type Status string

// The statuses.
const (
	Fetched Status = "fetched" // fetched and processed
	Skipped Status = "skipped" // deliberately not processed; Reason says why
	Failed  Status = "error"   // fetching or processing failed; Reason says why
)

// A Record is what the crawler knows about one URL.
type Record struct {
	URL          string    `json:"url"`
	Seq          uint64    `json:"seq"` // order of first storage, from 1
	Status       Status    `json:"status"`
	Reason       string    `json:"reason,omitempty"`
	FetchedAt    time.Time `json:"fetched_at"`
	LastModified time.Time `json:"last_modified,omitzero"`
	Host         string    `json:"host,omitempty"`
	Title        string    `json:"title,omitempty"`
	Headings     []string  `json:"headings,omitempty"`
	Tagged       string    `json:"tagged,omitempty"`
	Blocks       []string  `json:"blocks,omitempty"` // main-content blocks as cleaned, before template removal
	Text         string    `json:"text,omitempty"`   // the blocks without site-template blocks: what dedup saw
	Groups       []string  `json:"groups,omitempty"`
	Anchors      []string  `json:"anchors,omitempty"` // anchor texts of links to the page, known when it was fetched
	Simhash      uint64    `json:"simhash,omitempty"`
	Cluster      string    `json:"cluster,omitempty"` // cluster when fetched; the detector has the current one
}

// ErrClosed is returned after Close.
var ErrClosed = errors.New("pages: store is closed")

var (
	bucketByURL = []byte("by-url")  // url → record JSON
	bucketBySeq = []byte("by-seq")  // seq (big endian) → url
	bucketAnch  = []byte("anchors") // url → JSON array of anchor texts
	bucketMeta  = []byte("meta")    // "indexed-through" → seq (big endian)
	keyIndexed  = []byte("indexed-through")
)

// MaxAnchors is how many distinct anchor texts are kept per URL.
const MaxAnchors = 32

// A Store holds Records. It is safe for concurrent use.
type Store struct {
	db *bolt.DB
}

// Options configures a Store.
type Options struct {
	// NoSync skips fsync on commit: faster, but a machine crash (not a
	// process crash) may lose recent records. For tests and benchmarks.
	// Default false.
	NoSync bool
}

// Open opens or creates the store at path.
func Open(path string, opts Options) (*Store, error) {
	db, err := bolt.Open(path, 0o644, &bolt.Options{Timeout: 5 * time.Second, NoSync: opts.NoSync})
	if err != nil {
		return nil, fmt.Errorf("pages: opening %s: %w", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketByURL, bucketBySeq, bucketAnch, bucketMeta} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("pages: initializing %s: %w", path, err)
	}
	return &Store{db: db}, nil
}

// Close closes the store.
func (s *Store) Close() error { return s.db.Close() }

// Put stores r under r.URL. A new URL gets the next sequence number; an
// existing one keeps its number and is replaced. It returns the record as
// stored. Cost: one transaction.
func (s *Store) Put(r Record) (Record, error) {
	if r.URL == "" {
		return Record{}, errors.New("pages: record without URL")
	}
	err := s.db.Update(func(tx *bolt.Tx) error {
		byURL, bySeq := tx.Bucket(bucketByURL), tx.Bucket(bucketBySeq)
		if old := byURL.Get([]byte(r.URL)); old != nil {
			var prev Record
			if err := json.Unmarshal(old, &prev); err != nil {
				return fmt.Errorf("pages: corrupt record for %s: %w", r.URL, err)
			}
			r.Seq = prev.Seq
		} else {
			seq, err := bySeq.NextSequence()
			if err != nil {
				return err
			}
			r.Seq = seq
			if err := bySeq.Put(seqKey(seq), []byte(r.URL)); err != nil {
				return err
			}
		}
		data, err := json.Marshal(r)
		if err != nil {
			return err
		}
		return byURL.Put([]byte(r.URL), data)
	})
	if err != nil {
		return Record{}, fmt.Errorf("pages: storing %s: %w", r.URL, err)
	}
	return r, nil
}

// Get returns the record of url and whether there is one.
func (s *Store) Get(url string) (Record, bool, error) {
	var r Record
	var found bool
	err := s.db.View(func(tx *bolt.Tx) error {
		data := tx.Bucket(bucketByURL).Get([]byte(url))
		if data == nil {
			return nil
		}
		found = true
		return json.Unmarshal(data, &r)
	})
	if err != nil {
		return Record{}, false, fmt.Errorf("pages: reading %s: %w", url, err)
	}
	return r, found, nil
}

// Update applies fn to the stored record of url in one transaction. It
// returns an error if there is none. fn must not change URL or Seq.
func (s *Store) Update(url string, fn func(*Record)) error {
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketByURL)
		data := b.Get([]byte(url))
		if data == nil {
			return fmt.Errorf("no record for %s", url)
		}
		var r Record
		if err := json.Unmarshal(data, &r); err != nil {
			return err
		}
		u, seq := r.URL, r.Seq
		fn(&r)
		r.URL, r.Seq = u, seq
		out, err := json.Marshal(r)
		if err != nil {
			return err
		}
		return b.Put([]byte(url), out)
	})
	if err != nil {
		return fmt.Errorf("pages: updating %s: %w", url, err)
	}
	return nil
}

// Len returns the number of records.
func (s *Store) Len() (int, error) {
	var n int
	err := s.db.View(func(tx *bolt.Tx) error {
		n = tx.Bucket(bucketByURL).Stats().KeyN
		return nil
	})
	return n, err
}

// Each calls fn for every record in sequence order, stopping at the first
// error fn returns. It reads one consistent snapshot; fn may not write to
// the store.
func (s *Store) Each(fn func(Record) error) error {
	return s.db.View(func(tx *bolt.Tx) error {
		byURL := tx.Bucket(bucketByURL)
		c := tx.Bucket(bucketBySeq).Cursor()
		for k, url := c.First(); k != nil; k, url = c.Next() {
			var r Record
			if err := json.Unmarshal(byURL.Get(url), &r); err != nil {
				return fmt.Errorf("pages: corrupt record for %s: %w", url, err)
			}
			if err := fn(r); err != nil {
				return err
			}
		}
		return nil
	})
}

// AddAnchors records anchor texts of links, keyed by target URL, in one
// transaction. Each URL keeps at most [MaxAnchors] distinct texts.
func (s *Store) AddAnchors(byURL map[string][]string) error {
	if len(byURL) == 0 {
		return nil
	}
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketAnch)
		for url, texts := range byURL {
			var have []string
			if data := b.Get([]byte(url)); data != nil {
				if err := json.Unmarshal(data, &have); err != nil {
					return fmt.Errorf("corrupt anchors of %s: %w", url, err)
				}
			}
			n := len(have)
			for _, t := range texts {
				if len(have) < MaxAnchors && t != "" && !slices.Contains(have, t) {
					have = append(have, t)
				}
			}
			if len(have) == n {
				continue
			}
			data, err := json.Marshal(have)
			if err != nil {
				return err
			}
			if err := b.Put([]byte(url), data); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("pages: storing anchors: %w", err)
	}
	return nil
}

// Anchors returns the anchor texts recorded for url.
func (s *Store) Anchors(url string) ([]string, error) {
	var out []string
	err := s.db.View(func(tx *bolt.Tx) error {
		if data := tx.Bucket(bucketAnch).Get([]byte(url)); data != nil {
			return json.Unmarshal(data, &out)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("pages: reading anchors of %s: %w", url, err)
	}
	return out, nil
}

// SetIndexedThrough records that every record with a sequence number up to
// seq is durably in the search index, so a restart need not re-index it.
func (s *Store) SetIndexedThrough(seq uint64) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketMeta).Put(keyIndexed, seqKey(seq))
	})
}

// IndexedThrough returns what SetIndexedThrough last recorded (0 if never).
func (s *Store) IndexedThrough() (uint64, error) {
	var seq uint64
	err := s.db.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket(bucketMeta).Get(keyIndexed); len(v) == 8 {
			seq = binary.BigEndian.Uint64(v)
		}
		return nil
	})
	return seq, err
}

func seqKey(seq uint64) []byte { return binary.BigEndian.AppendUint64(nil, seq) }
