package pages

import (
	"fmt"
	"maps"
)

// Records is the page store as the crawler uses it: the durable record of
// every URL decided about, anchor texts per URL, the master per cluster
// and the search index's watermark. [Store], a bbolt file, is the embedded
// implementation; another (a store shared by the workers of a distributed
// crawl) implements the same contract, which the suite in
// crawler/pages/pagestest checks.
//
// Contract:
//
//   - One record per URL: Get returns the one committed last. Every write
//     is a [Batch] given to Commit.
//   - Numbering. Record.Seq is the order of first storage: a new URL
//     takes the next sequence number (from 1), a URL stored again keeps
//     its number, and a record put with [Batch.Move] takes the next one
//     as if first stored now. Record.Rev is the order of the last
//     storage: every record stored takes the next revision (from 1),
//     within a batch in the order put. Numbers the caller sets are
//     ignored; numbers are never reused, reopen or not, and a batch that
//     stores no record, or fails, takes none.
//   - Each replays the records in sequence order, from one consistent
//     state: what the detector and the index are rebuilt from.
//   - Commit is atomic and durable: it validates the whole batch first
//     ([Batch.Validate]: a record without URL is ErrNoURL), then stores all
//     of it (records, anchors, masters, watermark, and the numbers it
//     takes) or, after an error, none; once it returns the batch survives
//     a crash, so after one the store holds exactly the batches whose
//     Commit returned. A distributed implementation applies a batch in
//     one transaction (or one server-side script) with its counters.
//     Commit is where writes are batched: a crawler commits a group of
//     pages at once.
//   - Anchors. Anchor texts accumulate per URL, whether it has a record
//     or not: distinct, non-empty, the first [MaxAnchors] kept, in the
//     order first added.
//   - Masters. SetMaster records a cluster's current master; the last one
//     committed wins. Masters returns them all.
//   - Watermark. IndexedThrough returns the revision last set by
//     SetIndexedThrough (in a Batch or alone; 0 sets nothing), 0 if never.
//   - Concurrency. A Records is safe for concurrent use; Each's fn must not
//     call the store.
type Records interface {
	// Get returns the record of url and whether there is one.
	Get(url string) (Record, bool, error)

	// Known reports for each of urls whether it has a record, from one
	// consistent state.
	Known(urls []string) ([]bool, error)

	// Placements returns the placement (status, cluster, simhash) of each
	// of urls that has a record, from one consistent state, without
	// reading their text.
	Placements(urls []string) (map[string]Placement, error)

	// Anchors returns the anchor texts recorded for url, nil if none.
	Anchors(url string) ([]string, error)

	// Masters returns every cluster's current master (cluster → URL).
	Masters() (map[string]string, error)

	// Each calls fn for every record in sequence order, stopping at the
	// first error fn returns and returning it.
	Each(fn func(Record) error) error

	// IndexedThrough returns the index watermark, 0 if never set.
	IndexedThrough() (uint64, error)

	// SetIndexedThrough records the index watermark alone, as a batch of
	// only Batch.SetIndexedThrough.
	SetIndexedThrough(rev uint64) error

	// Commit applies the batch atomically and durably and returns its
	// records as stored (with their Seq and Rev), in the order put. An
	// invalid batch returns ErrNoURL and stores nothing; an empty one
	// changes nothing. The batch is left unchanged.
	Commit(b *Batch) ([]Record, error)

	// Close closes the store.
	Close() error
}

var _ Records = (*Store)(nil)

// A Write is one record of a [Batch], as an implementation of [Records]
// reads it to store it.
type Write struct {
	Record Record
	Move   bool // put with Batch.Move: takes the next sequence number
}

// Writes returns the records of the batch in the order put, for an
// implementation of [Records] to store.
func (b *Batch) Writes() []Write {
	out := make([]Write, len(b.records))
	for i, r := range b.records {
		out[i] = Write{Record: r, Move: b.moved[i]}
	}
	return out
}

// AllAnchors returns the anchor texts added to the batch per URL, as
// added (empty and repeated ones included: Commit filters them).
func (b *Batch) AllAnchors() map[string][]string { return maps.Clone(b.anchors) }

// Masters returns the masters set in the batch (cluster → URL).
func (b *Batch) Masters() map[string]string { return maps.Clone(b.masters) }

// IndexedThrough returns the watermark set in the batch, 0 if none.
func (b *Batch) IndexedThrough() uint64 { return b.indexed }

// Validate reports whether the batch may be committed: every record needs
// a URL (else ErrNoURL). An implementation calls it before storing
// anything.
func (b *Batch) Validate() error {
	for i, r := range b.records {
		if r.URL == "" {
			return fmt.Errorf("%w (record %d of the batch)", ErrNoURL, i)
		}
	}
	return nil
}
