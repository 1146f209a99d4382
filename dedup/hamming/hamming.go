package hamming

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
)

var (
	// ErrCorrupt is wrapped by every error [Read] and [Load] return for data
	// that is truncated, has a wrong magic, version or checksum, or decodes
	// to an invalid index.
	ErrCorrupt = errors.New("hamming: corrupt index data")

	// ErrExists is wrapped by the error Insert and InsertBatch return when
	// an (ID, fingerprint) pair is already stored or repeated in a batch.
	ErrExists = errors.New("hamming: entry already stored")

	// ErrOutOfRange is wrapped by the error Insert and InsertBatch return
	// for a fingerprint with bits set above [Options.Bits].
	ErrOutOfRange = errors.New("hamming: fingerprint wider than Options.Bits")

	// ErrInvalidOptions is wrapped by every error [Options.Validate] returns.
	ErrInvalidOptions = errors.New("hamming: invalid options")
)

// Entry is one stored item: a caller-chosen ID and its fingerprint.
type Entry struct {
	ID          uint64
	Fingerprint uint64
}

// Match is a stored entry found by a query, with its Hamming distance to the
// query fingerprint.
type Match struct {
	ID          uint64
	Fingerprint uint64
	Distance    int
}

// Searcher finds stored fingerprints near a query. [Index] and [Linear]
// implement it.
type Searcher interface {
	// Query returns every stored entry within Hamming distance k of fp,
	// each once, sorted by (Distance, ID, Fingerprint). It returns nil when
	// nothing is within k or k < 0. An implementation may bound k; see
	// [Index.Query].
	Query(fp uint64, k int) []Match

	// AppendQuery is Query appending to dst, so that a caller reusing dst
	// does not allocate. Only the appended part is sorted; dst[:len(dst)]
	// is left as it was.
	AppendQuery(dst []Match, fp uint64, k int) []Match

	// Len returns the number of stored entries.
	Len() int
}

var (
	_ Searcher = (*Index)(nil)
	_ Searcher = (*Linear)(nil)
)

// compareMatches orders matches by (Distance, ID, Fingerprint).
func compareMatches(a, b Match) int {
	if c := cmp.Compare(a.Distance, b.Distance); c != 0 {
		return c
	}
	if c := cmp.Compare(a.ID, b.ID); c != 0 {
		return c
	}
	return cmp.Compare(a.Fingerprint, b.Fingerprint)
}

// compareEntries orders entries by (Fingerprint, ID).
func compareEntries(a, b Entry) int {
	if c := cmp.Compare(a.Fingerprint, b.Fingerprint); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// checkDistinct returns an error wrapping ErrExists if entries holds the same
// pair twice. It sorts a copy: O(n log n) time, O(n) extra space.
func checkDistinct(entries []Entry) error {
	s := slices.Clone(entries)
	slices.SortFunc(s, compareEntries)
	for i := 1; i < len(s); i++ {
		if s[i] == s[i-1] {
			return existsError(s[i])
		}
	}
	return nil
}

func existsError(e Entry) error {
	return fmt.Errorf("hamming: id %d fingerprint %#x: %w", e.ID, e.Fingerprint, ErrExists)
}
