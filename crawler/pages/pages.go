// Package pages is the crawler's durable record of every URL it has
// decided about: fetched pages with their cleaned text and their cluster,
// and URLs skipped or failed with the reason; and, per cluster, its current
// master. It is the source of truth from which the near-duplicate detector
// and the search index are rebuilt after a restart, and what the read side
// (`doppel export`, `doppel serve`) reads without rebuilding anything.
//
// Records live in a bbolt database. Writes go in a [Batch] that
// [Store.Commit] applies in one fsynced transaction, so a crawler pays one
// commit for a group of pages; after a crash (kill -9 included) the store
// holds exactly the batches whose Commit returned. Records are numbered in
// the order they were first stored, and [Store.Each] replays them in that
// order.
//
// [Records] is the store as the crawler uses it, with its contract
// (numbering, atomic and durable batches, anchors, masters, the index
// watermark); [Store] is its embedded implementation, and the suite in
// crawler/pages/pagestest checks any implementation against the contract.
package pages

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/golang/snappy"
	bolt "go.etcd.io/bbolt"

	"github.com/doppel-search/doppel/crawler/schedule"
	"github.com/doppel-search/doppel/internal/storecheck"
	"github.com/doppel-search/doppel/page"
)

// Status says what became of a URL.
type Status string

// The statuses.
const (
	Fetched Status = "fetched" // fetched and processed
	Skipped Status = "skipped" // deliberately not processed; Reason says why
	Failed  Status = "error"   // fetching or processing failed; Reason says why
	Gone    Status = "gone"    // fetched once, then answered 404 or 410: removed from the index
)

// A Record is what the crawler knows about one URL.
type Record struct {
	page.Page           // what the page says (fetched pages); URL for every record
	Seq       uint64    `json:"seq"` // order of first storage, from 1
	Rev       uint64    `json:"rev"` // order of the last storage: every Put of any record takes the next
	Status    Status    `json:"status"`
	Reason    string    `json:"reason,omitempty"` // why skipped, failed or gone; for a fetched page, a bound it hit ("links: the first …")
	FetchedAt time.Time `json:"fetched_at"`
	Simhash   uint64    `json:"simhash,omitempty"`
	Cluster   string    `json:"cluster,omitempty"` // the cluster the page joined (or founded); see Store.Master
	// Validators of the copy, sent back in conditional requests
	// (If-None-Match, If-Modified-Since): the ETag and the raw
	// Last-Modified header.
	ETag     string `json:"etag,omitempty"`
	Modified string `json:"modified,omitempty"`
	// Hash is the exact hash of the page's title and main content: an
	// equal hash on a revisit means nothing changed.
	Hash uint64 `json:"hash,omitempty"`
	// Schedule is the page's fetch history for the revisit schedule.
	Schedule schedule.State `json:"schedule,omitzero"`
	// LinkHash is the hash of the set of links in the page's main content
	// that the crawl follows (0: not known); Links is that set, sorted, at
	// most MaxLinks of it, kept once a revisit found it changed: the page
	// is a listing, and a link that leaves it may be a page deleted.
	LinkHash uint64   `json:"link_hash,omitempty"`
	Links    []string `json:"links,omitempty"`
	// LinksOnly marks Links kept from a page's first fetch, before they
	// ever changed: a page with ListingLinks links or more may be a
	// listing, and its first change is then a diff too (a page that left
	// it is checked at once), but it is not a listing until it changes.
	LinksOnly bool `json:"links_only,omitempty"`
	// Transient marks a Failed record whose failure may pass (a timeout,
	// a refused connection, HTTP 5xx or 429): a later run tries again.
	Transient bool `json:"transient,omitempty"`
	// Requested marks a Skipped or Failed record made after a request for
	// the URL (a page marked noindex, another type, an HTTP error), not
	// decided from its link alone (robots.txt, a trap, an exclude
	// pattern): such a request counts against the crawl's page budget.
	// A Fetched or Gone record was always requested.
	Requested bool `json:"requested,omitempty"`
	// ContainedIn is, for a fetched page or document that is a part of a
	// larger one (a chapter of the book that holds it: most of its text
	// is in the other, which holds much more), the other's URL: the
	// detector kept them apart, and the cluster and what-differs pages
	// and the duplicates report name it (dedup.Detector.ContainedIn).
	ContainedIn string `json:"contained_in,omitempty"`
}

// MaxLinks bounds Record.Links.
const MaxLinks = 1000

// ListingLinks is how many main-content links a page needs to have its
// links kept from its first fetch (Record.LinksOnly).
const ListingLinks = 50

// Listing reports whether the record is a listing's: its links are kept
// and have changed since its first fetch.
func (r Record) Listing() bool { return len(r.Links) > 0 && !r.LinksOnly }

// ErrCorrupt is wrapped by every error for stored data that does not
// decode: the file is damaged (see Store.Verify).
var ErrCorrupt = errors.New("pages: corrupt store")

// ErrNoURL is returned for a record without URL.
var ErrNoURL = errors.New("pages: record without URL")

var (
	bucketByURL   = []byte("by-url")  // url → record JSON
	bucketBySeq   = []byte("by-seq")  // seq (big endian) → url
	bucketAnch    = []byte("anchors") // url → JSON array of anchor texts
	bucketMasters = []byte("masters") // cluster → url of its current master
	bucketMeta    = []byte("meta")    // "indexed-through" → revision (big endian); the bucket sequence numbers revisions
	keyIndexed    = []byte("indexed-through")
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
	// ReadOnly opens an existing store for reading only, beside other
	// readers; writes fail. Default false.
	ReadOnly bool
	// Timeout is how long Open waits for another process's lock (a
	// writer excludes everybody, readers exclude writers). Default 5s.
	Timeout time.Duration
}

// EnsureDefaults sets every zero field to its default (each field's doc
// says which) and returns o.
func (o *Options) EnsureDefaults() *Options {
	if o.Timeout == 0 {
		o.Timeout = 5 * time.Second
	}
	return o
}

// Open opens or creates the store at path. With ReadOnly the store must
// exist.
func Open(path string, opts Options) (*Store, error) {
	opts.EnsureDefaults()
	db, err := storecheck.OpenBolt(path, 0o644, &bolt.Options{Timeout: opts.Timeout, NoSync: opts.NoSync, ReadOnly: opts.ReadOnly})
	if err != nil {
		return nil, fmt.Errorf("pages: opening %s: %w", path, err)
	}
	if opts.ReadOnly {
		err = db.View(func(tx *bolt.Tx) error {
			if tx.Bucket(bucketByURL) == nil {
				return errors.New("not a page store")
			}
			return nil
		})
	} else {
		err = db.Update(func(tx *bolt.Tx) error {
			for _, b := range [][]byte{bucketByURL, bucketBySeq, bucketAnch, bucketMasters, bucketMeta} {
				if _, err := tx.CreateBucketIfNotExists(b); err != nil {
					return err
				}
			}
			// Stores written before revisions existed: their records
			// read Rev = Seq (decode), and the index watermark they
			// hold is a sequence number, so revisions go on from the
			// last sequence number.
			meta, bySeq := tx.Bucket(bucketMeta), tx.Bucket(bucketBySeq)
			if meta.Sequence() < bySeq.Sequence() {
				return meta.SetSequence(bySeq.Sequence())
			}
			return nil
		})
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("pages: initializing %s: %w", path, err)
	}
	return &Store{db: db}, nil
}

// Close closes the store.
func (s *Store) Close() error { return s.db.Close() }

// A Batch collects writes for [Records.Commit] ([Store.Commit]), which
// applies them all or none. The zero value is empty and ready to use. A
// Batch is not safe for concurrent use.
type Batch struct {
	records []Record
	moved   map[int]bool // indexes into records put with Move
	anchors map[string][]string
	masters map[string]string
	indexed uint64
}

// Put stores r under r.URL when the batch is committed. A new URL gets the
// next sequence number; an existing one keeps its number and is replaced.
func (b *Batch) Put(r Record) { b.records = append(b.records, r) }

// Move stores r like Put, but gives it the next sequence number even if
// its URL has one: Each then meets it after the records stored before,
// as if it had been first stored now. The crawler moves a page whose
// content changed, because its detector takes it out and inserts it
// again, and a restart replays pages in sequence order.
func (b *Batch) Move(r Record) {
	if b.moved == nil {
		b.moved = map[int]bool{}
	}
	b.moved[len(b.records)] = true
	b.records = append(b.records, r)
}

// AddAnchors adds anchor texts of links to url (empty ones are dropped;
// each URL keeps at most [MaxAnchors] distinct texts).
func (b *Batch) AddAnchors(url string, texts ...string) {
	if b.anchors == nil {
		b.anchors = map[string][]string{}
	}
	b.anchors[url] = append(b.anchors[url], texts...)
}

// PendingAnchors returns the anchor texts of url added to the batch.
func (b *Batch) PendingAnchors(url string) []string { return b.anchors[url] }

// SetMaster records url as the current master of cluster.
func (b *Batch) SetMaster(cluster, url string) {
	if b.masters == nil {
		b.masters = map[string]string{}
	}
	b.masters[cluster] = url
}

// SetIndexedThrough records that every record stored at revision rev or
// before (Record.Rev) is durably in the search index as stored, so a
// restart need not index it again.
func (b *Batch) SetIndexedThrough(rev uint64) { b.indexed = rev }

// Append adds o's writes to b after b's own, so that committing b does
// what committing b and then o did: records put (or moved) in order,
// anchor texts added in order, o's masters over b's, o's watermark if it
// sets one. o is left unchanged and shares nothing with b afterwards
// but the records' contents.
func (b *Batch) Append(o *Batch) {
	for i, r := range o.records {
		if o.moved[i] {
			b.Move(r)
		} else {
			b.Put(r)
		}
	}
	for _, url := range slices.Sorted(maps.Keys(o.anchors)) {
		b.AddAnchors(url, o.anchors[url]...)
	}
	for c, url := range o.masters {
		b.SetMaster(c, url)
	}
	if o.indexed > 0 {
		b.indexed = o.indexed
	}
}

// Pending returns the record of url put last in the batch, if any.
func (b *Batch) Pending(url string) (Record, bool) {
	if r := b.Latest(url); r != nil {
		return *r, true
	}
	return Record{}, false
}

// Latest returns the record of url put last in the batch, for the caller
// to complete before the commit; nil if there is none.
func (b *Batch) Latest(url string) *Record {
	for i := len(b.records) - 1; i >= 0; i-- {
		if b.records[i].URL == url {
			return &b.records[i]
		}
	}
	return nil
}

// URLs returns the URLs of the records in the batch, in the order put.
func (b *Batch) URLs() []string {
	out := make([]string, len(b.records))
	for i, r := range b.records {
		out[i] = r.URL
	}
	return out
}

// Len returns the number of records in the batch.
func (b *Batch) Len() int { return len(b.records) }

// Empty reports whether committing the batch would change nothing.
func (b *Batch) Empty() bool {
	return len(b.records) == 0 && len(b.anchors) == 0 && len(b.masters) == 0 && b.indexed == 0
}

// Commit applies the batch in one transaction and returns the records as
// stored (with their sequence and revision numbers), in the order they
// were put. After
// an error nothing of the batch is stored. The batch is left unchanged;
// reset it with *b = Batch{}. Cost: one transaction, O(log n) per write.
func (s *Store) Commit(b *Batch) ([]Record, error) {
	if err := b.Validate(); err != nil {
		return nil, err
	}
	if b.Empty() {
		return nil, nil
	}
	stored := make([]Record, len(b.records))
	err := s.db.Update(func(tx *bolt.Tx) error {
		if err := putAll(tx, b.records, stored, b.moved); err != nil {
			return err
		}
		if err := addAnchors(tx, b.anchors); err != nil {
			return err
		}
		for _, c := range slices.Sorted(maps.Keys(b.masters)) {
			if err := tx.Bucket(bucketMasters).Put([]byte(c), []byte(b.masters[c])); err != nil {
				return err
			}
		}
		if b.indexed > 0 {
			return tx.Bucket(bucketMeta).Put(keyIndexed, seqKey(b.indexed))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("pages: commit: %w", err)
	}
	return stored, nil
}

// putAll stores records, numbering new URLs in the order given, and
// writes the by-URL entries in key order: bbolt inserts keys into a page
// by shifting the ones after them, so a transaction of many keys in random
// order costs quadratic time.
func putAll(tx *bolt.Tx, records, stored []Record, moved map[int]bool) error {
	order := make([]int, len(records))
	assigned := map[string]uint64{}
	for i, r := range records {
		var err error
		if stored[i], err = number(tx, r, assigned, moved[i]); err != nil {
			return err
		}
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(stored[a].URL, stored[b].URL) })
	meta := tx.Bucket(bucketMeta)
	for i := range stored {
		rev, err := meta.NextSequence()
		if err != nil {
			return err
		}
		stored[i].Rev = rev
	}
	byURL := tx.Bucket(bucketByURL)
	for _, i := range order {
		data, err := encode(stored[i])
		if err != nil {
			return err
		}
		if err := byURL.Put([]byte(stored[i].URL), data); err != nil {
			return err
		}
	}
	return nil
}

// number gives r its sequence number: the stored one for a known URL (or
// one numbered earlier in the batch, in assigned), the next one for a new
// URL or a moved one.
func number(tx *bolt.Tx, r Record, assigned map[string]uint64, move bool) (Record, error) {
	byURL, bySeq := tx.Bucket(bucketByURL), tx.Bucket(bucketBySeq)
	var old uint64
	if seq, ok := assigned[r.URL]; ok {
		old = seq
	} else if data := byURL.Get([]byte(r.URL)); data != nil {
		var prev Record
		if err := decode(data, &prev); err != nil {
			return Record{}, fmt.Errorf("record for %s: %w", r.URL, err)
		}
		old = prev.Seq
	}
	if old != 0 && !move {
		r.Seq = old
		return r, nil
	}
	if old != 0 {
		if err := bySeq.Delete(seqKey(old)); err != nil {
			return Record{}, err
		}
	}
	seq, err := bySeq.NextSequence()
	if err != nil {
		return Record{}, err
	}
	r.Seq = seq
	assigned[r.URL] = seq
	return r, bySeq.Put(seqKey(seq), []byte(r.URL))
}

func addAnchors(tx *bolt.Tx, byURL map[string][]string) error {
	b := tx.Bucket(bucketAnch)
	for _, url := range slices.Sorted(maps.Keys(byURL)) {
		texts := byURL[url]
		var have []string
		if data := b.Get([]byte(url)); data != nil {
			if err := json.Unmarshal(data, &have); err != nil {
				return fmt.Errorf("%w: anchors of %s: %v", ErrCorrupt, url, err)
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
}

// Put stores one record in its own transaction (a Batch of one) and
// returns it as stored.
func (s *Store) Put(r Record) (Record, error) {
	var b Batch
	b.Put(r)
	stored, err := s.Commit(&b)
	if err != nil {
		return Record{}, err
	}
	return stored[0], nil
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
		return decode(data, &r)
	})
	if err != nil {
		return Record{}, false, fmt.Errorf("pages: reading %s: %w", url, err)
	}
	return r, found, nil
}

// A Placement is where a record puts its page: the fields of a Record
// that say which cluster it is in, without its text (Store.Placements,
// Store.EachPlacement read only these).
type Placement struct {
	URL     string `json:"url"`
	Status  Status `json:"status"`
	Cluster string `json:"cluster,omitempty"`
	Simhash uint64 `json:"simhash,omitempty"`
}

// Placements returns the placement of each of urls that has a record, in
// one read transaction: cheaper than a Get each, whose Record holds the
// page's text.
func (s *Store) Placements(urls []string) (map[string]Placement, error) {
	out := make(map[string]Placement, len(urls))
	err := s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketByURL)
		for _, u := range urls {
			data := b.Get([]byte(u))
			if data == nil {
				continue
			}
			var p Placement
			if err := decode(data, &p); err != nil {
				return fmt.Errorf("pages: record for %.200s: %w", u, err)
			}
			out[u] = p
		}
		return nil
	})
	return out, err
}

// EachPlacement calls fn with the placement of every record, in order of
// first storage, as Each does with the records.
func (s *Store) EachPlacement(fn func(Placement) error) error {
	return s.db.View(func(tx *bolt.Tx) error {
		byURL := tx.Bucket(bucketByURL)
		c := tx.Bucket(bucketBySeq).Cursor()
		for k, url := c.First(); k != nil; k, url = c.Next() {
			var p Placement
			if err := decode(byURL.Get(url), &p); err != nil {
				return fmt.Errorf("pages: record for %.200s: %w", url, err)
			}
			if err := fn(p); err != nil {
				return err
			}
		}
		return nil
	})
}

// Known reports, for each of urls, whether it has a record, in one read
// transaction.
func (s *Store) Known(urls []string) ([]bool, error) {
	out := make([]bool, len(urls))
	err := s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketByURL)
		var key []byte // one buffer for the keys: Get keeps none
		for i, u := range urls {
			key = append(key[:0], u...)
			out[i] = b.Get(key) != nil
		}
		return nil
	})
	return out, err
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
			if err := decode(byURL.Get(url), &r); err != nil {
				return fmt.Errorf("pages: record for %.200s: %w", url, err)
			}
			if err := fn(r); err != nil {
				return err
			}
		}
		return nil
	})
}

// Verify decodes every record, anchor list and master, and checks that
// the records' two indexes (by URL, by sequence number) agree. An error
// wrapping ErrCorrupt says the file is damaged. Cost: one read and decode
// of the whole store.
func (s *Store) Verify() error {
	return s.db.View(func(tx *bolt.Tx) error {
		byURL, bySeq := tx.Bucket(bucketByURL), tx.Bucket(bucketBySeq)
		n := 0
		err := bySeq.ForEach(func(k, url []byte) error {
			var r Record
			if err := decode(byURL.Get(url), &r); err != nil {
				return fmt.Errorf("pages: record for %.200s: %w", url, err)
			}
			if len(k) != 8 || r.URL != string(url) || r.Seq != binary.BigEndian.Uint64(k) {
				return fmt.Errorf("%w: sequence entry %x does not match its record %.200q", ErrCorrupt, k, url)
			}
			n++
			return nil
		})
		if err != nil {
			return err
		}
		if m := byURL.Stats().KeyN; m != n {
			return fmt.Errorf("%w: %d records by URL, %d by sequence number", ErrCorrupt, m, n)
		}
		return tx.Bucket(bucketAnch).ForEach(func(url, data []byte) error {
			var have []string
			if err := json.Unmarshal(data, &have); err != nil {
				return fmt.Errorf("%w: anchors of %.200s: %v", ErrCorrupt, url, err)
			}
			return nil
		})
	})
}

// AddAnchors records anchor texts of links, keyed by target URL, in one
// transaction. Each URL keeps at most [MaxAnchors] distinct texts.
func (s *Store) AddAnchors(byURL map[string][]string) error {
	var b Batch
	for u, texts := range byURL {
		b.AddAnchors(u, texts...)
	}
	_, err := s.Commit(&b)
	return err
}

// Anchors returns the anchor texts recorded for url.
func (s *Store) Anchors(url string) ([]string, error) {
	var out []string
	err := s.db.View(func(tx *bolt.Tx) error {
		if data := tx.Bucket(bucketAnch).Get([]byte(url)); data != nil {
			if err := json.Unmarshal(data, &out); err != nil {
				return fmt.Errorf("%w: %v", ErrCorrupt, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("pages: reading anchors of %s: %w", url, err)
	}
	return out, nil
}

// Masters returns every cluster's current master (cluster → URL), as
// recorded with SetMaster.
func (s *Store) Masters() (map[string]string, error) {
	out := map[string]string{}
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketMasters).ForEach(func(k, v []byte) error {
			out[string(k)] = string(v)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("pages: reading masters: %w", err)
	}
	return out, nil
}

// SetIndexedThrough records the index watermark (see Batch.SetIndexedThrough)
// in its own transaction.
func (s *Store) SetIndexedThrough(rev uint64) error {
	b := Batch{indexed: rev}
	_, err := s.Commit(&b)
	return err
}

// ResetIndexedThrough forgets the index watermark (IndexedThrough
// returns 0): for an index rebuilt empty, which lacks every record.
func (s *Store) ResetIndexedThrough() error {
	return s.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Delete(keyIndexed) })
}

// IndexedThrough returns the revision SetIndexedThrough last recorded (0
// if never).
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

// encode stores a record as Snappy-compressed JSON: a page's text is in
// it twice (the blocks, and the indexed text made of most of them), which
// Snappy's 64 KiB window folds, and text compresses about threefold.
func encode(r Record) ([]byte, error) {
	data, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	return snappy.Encode(nil, data), nil
}

// decode reads what encode wrote (or plain JSON, as earlier versions
// stored records) into a Record, or only its placement.
func decode[T Record | Placement](data []byte, r *T) error {
	if len(data) > 0 && data[0] != '{' {
		var err error
		if data, err = snappy.Decode(nil, data); err != nil {
			return fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
	}
	var err error
	switch r := any(r).(type) {
	case *Placement:
		err = jsonv2.Unmarshal(data, r, placementOptions)
	case *Record:
		if err = json.Unmarshal(data, r); err == nil && r.Rev == 0 { // stored before revisions existed
			r.Rev = r.Seq
		}
	}
	if err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return nil
}

// placementOptions read a placement as encoding/json reads it (names
// matched without regard to case, a repeated name's last value, invalid
// UTF-8 replaced) with the decoder of github.com/go-json-experiment/json,
// which skips the record's text, before the placement's fields, some
// eighty times faster than encoding/json's scanner: re-clustering reads
// every page's placement (docs/measurements.md, "The crawl's speed
// (session 9)").
var placementOptions = jsonv2.JoinOptions(jsonv2.MatchCaseInsensitiveNames(true),
	jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))

func seqKey(seq uint64) []byte { return binary.BigEndian.AppendUint64(nil, seq) }
