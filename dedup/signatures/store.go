package signatures

import (
	"encoding/binary"
	"fmt"

	"github.com/doppel-search/doppel/dedup/internal/postings"
)

// A Kind is the kind of signature a [Key] holds. Keys of different kinds
// never share a list, even with equal sums.
type Kind uint16

// The kinds of signature the Detector lists. The I-Match signature of
// lexicon i (0 the main lexicon, 1… the extra ones) is of kind IMatch+i:
// see [IMatchKey].
const (
	Fingerprint Kind = iota // a SimHash fingerprint
	Band                    // a MinHash LSH band hash
	Sketch                  // the hash of a whole MinHash sketch (exact copies share it)
	Super                   // a super shingle
	IMatch                  // an I-Match signature of the main lexicon; IMatch+i of extra lexicon i
)

// MaxLexicons is the most I-Match lexicons keys can tell apart.
const MaxLexicons = 1<<16 - int(IMatch)

var kindNames = [...]string{"fingerprint", "band", "sketch", "super", "i-match"}

// String returns "fingerprint", "band", "sketch", "super", "i-match" or,
// for an extra lexicon i, "i-match/i".
func (k Kind) String() string {
	if k > IMatch {
		return fmt.Sprintf("i-match/%d", int(k-IMatch))
	}
	return kindNames[k]
}

// A Key is one signature of a document: its kind and a 64-bit sum.
// SimHash fingerprints, band, sketch and super shingle hashes are 64 bits
// and are their own sums.
type Key struct {
	Kind Kind
	Sum  uint64
}

// IMatchKey returns the key of the I-Match signature sig (a SHA-1 digest)
// of lexicon i (< [MaxLexicons]): its first 8 bytes as the sum. Two
// different signatures of one lexicon share a key with probability 2⁻⁶⁴,
// so among n distinct signatures some two do with probability about
// n²/2⁶⁵: 3·10⁻⁸ for a million, 3·10⁻⁴ for 10⁸ pages. A shared key costs a
// candidate that fails verification (which compares whole signatures) and
// a place in a bounded list, never a false pair.
func IMatchKey(i int, sig [20]byte) Key {
	return Key{Kind: IMatch + Kind(i), Sum: binary.BigEndian.Uint64(sig[:8])}
}

// An Entry is one document in a list: its number in the Detector's
// arrival order (ID) and its group, the number of the cluster it was in
// when it was added.
type Entry struct {
	ID, Group uint32
}

// Limits bounds the lists of a [Store]: PerGroup, the most entries of
// one group a list keeps (later entries of that group are not stored),
// and MaxLen, the most entries a list holds (the entry that would exceed
// it turns the key into a stop key, and the list is dropped); ≤ 0: no
// limit. The zero value means no bounds. (One definition with the
// embedded lists of package postings.)
type Limits = postings.Limits

// An Outcome says what [Store.Add] did: [Added], [Capped], [Stopped] or
// [Ignored].
type Outcome = postings.Outcome

// The outcomes of Add.
const (
	Added   = postings.Added   // the entry is in the list
	Capped  = postings.Capped  // not stored: its group already has PerGroup entries in the list
	Stopped = postings.Stopped // not stored: the list was full; the key is now a stop key
	Ignored = postings.Ignored // not stored: the key was already a stop key
)

// Stats counts what a [Store] holds and refused, for one kind of key:
// Keys with a list, Entries stored, Stops (stop keys), entries Capped
// (their group was full) and Ignored (their key was a stop key), and
// entries Removed.
type Stats = postings.Stats

// A Store keeps the candidate lists of a Detector: for each [Key], the
// documents that have it, as a bounded list of entries (see the package
// documentation).
//
// Contract, which package sigtest checks:
//
//   - Lists are in order of Add: an entry added is after every entry
//     added before it under the same key and still in the list.
//   - Add stores an entry unless its group already has Limits.PerGroup
//     entries in the list (Capped), or the list already holds
//     Limits.MaxLen entries (Stopped: the list is dropped and the key is
//     a stop key from then on), or the key is a stop key (Ignored). So a
//     list holds the first PerGroup entries of each group still there,
//     and never more than MaxLen entries.
//   - A stop key has no list (Get returns nil) but is Known, and stays
//     a stop key until Reset, whatever is removed.
//   - Keys of different kinds are different keys, whatever their sums.
//   - Remove(k, id) takes the entry of document id out of the list of k
//     and reports whether it was there, and refill: the group of that
//     entry had PerGroup entries in the list before, so later entries of
//     the group may have been refused. The caller then adds the earliest
//     refused document still stored, if any: the list is then the one
//     adding the remaining documents in order would have made. A list
//     left empty is gone: its key is no longer Known.
//   - Lookup(keys, fn) calls fn once for each key, in the order of keys,
//     with what Get would return for it: an implementation on a server
//     reads all of a document's keys in one round trip.
//   - Slices given to fn or returned by Get are valid until the next
//     Add, Remove or Reset; the caller does not modify them.
//
// The Detector is the single writer: it calls no method while another
// runs (it serializes them under its own lock). An implementation shared
// by several Detectors (workers) must make each method atomic, and the
// cluster assignment contract of the package documentation says what
// workers need of it beyond that.
type Store interface {
	// Limits returns the limits the Store was opened with.
	Limits() Limits
	// Add appends the entry e to the list of k, within the limits, and
	// reports what it did.
	Add(k Key, e Entry) Outcome
	// Get returns the list of k in order of Add: nil for a key never
	// added, or whose list was emptied, and for a stop key.
	Get(k Key) []Entry
	// Lookup calls fn(k, Get(k)) for each k of keys, in order.
	Lookup(keys []Key, fn func(k Key, list []Entry))
	// Known reports whether k has a list or is a stop key.
	Known(k Key) bool
	// Remove takes the entry of document id out of the list of k; it
	// reports whether it was there, and whether the caller should add the
	// earliest entry of its group that the list refused (refill).
	Remove(k Key, id uint32) (removed, refill bool)
	// Stats returns the counters of the keys of one kind.
	Stats(kind Kind) Stats
	// Reset forgets every key of the given kinds, stop keys included, and
	// zeroes their counters (the Detector's Refresh and Recluster start
	// lists afresh). Keys of other kinds stay.
	Reset(kinds ...Kind)
}
