package imatch

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"

	"github.com/doppel-search/doppel/dedup/features"
	"github.com/doppel-search/doppel/dedup/stats"
)

// ErrUnsignable is wrapped by the error [Signer.Sign] returns for a
// document with fewer than MinTerms terms even after top-up.
var ErrUnsignable = errors.New("imatch: too few lexicon terms")

// ErrNoStats is wrapped by the error [NewSigner] returns for a table of
// fewer than two documents, in which every normalized idf is 0 and no
// lexicon can be chosen.
var ErrNoStats = errors.New("imatch: table has fewer than 2 documents")

// A Signature is the SHA-1 digest of a document's sorted unique lexicon
// terms. It is a comparable value; the zero Signature stands for "no
// signature" and never matches (see [Match]).
type Signature [sha1.Size]byte

// String returns s in lowercase hexadecimal (40 digits).
func (s Signature) String() string { return hex.EncodeToString(s[:]) }

// IsZero reports whether s is the zero Signature.
func (s Signature) IsZero() bool { return s == Signature{} }

// Match reports whether a and b, the signatures of two documents made by
// the same [Signer], agree in any coordinate i with a non-zero signature.
// Cost: O(min(len(a), len(b))).
func Match(a, b []Signature) bool {
	for i := range min(len(a), len(b)) {
		if a[i] == b[i] && !a[i].IsZero() {
			return true
		}
	}
	return false
}

// A Signer computes I-Match signatures against lexicons chosen once, in
// [NewSigner], from a frozen [stats.Table]. It is immutable and safe for
// concurrent use.
type Signer struct {
	opts  Options // with defaults applied
	table *stats.Table
	lo    float64 // lower nidf bound of the collection lexicon (Range, IDFL10)
	// main holds the term hashes of the main lexicon; the other lexicons
	// and the per-call scratch refer to its terms by slot.
	main hashSet
	// extra[k] is the bitset over main's slots of lexicon k+1.
	extra [][]uint64
	sizes []int // sizes[i] = number of terms of lexicon i
	pool  sync.Pool
}

// scratch holds the per-call buffers of Sign, recycled through a pool.
type scratch struct {
	// seen[slot] == gen marks a main-lexicon term as already in lex.
	seen   []uint32
	gen    uint32
	lex    []lexTerm
	sel    []string
	hashed []hashedTerm
	table  []int32 // open-addressing set over hashed, for uniqueIDF
	below  []idfTerm
	buf    []byte
}

type hashedTerm struct {
	hash uint64
	term string
}

type lexTerm struct {
	term string
	slot int32
}

type idfTerm struct {
	term string
	nidf float64
}

// NewSigner returns a Signer whose lexicons are chosen from t as opts say.
// It returns an error if opts is invalid, or one wrapping [ErrNoStats] if t
// has fewer than 2 documents.
//
// Cost: O(T + L log L + K·L) time for T terms in t and a main lexicon of L
// terms; O(L) bytes kept, plus L/2 to L/4 bytes per extra lexicon.
func NewSigner(t *stats.Table, opts Options) (*Signer, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if t.Docs() < 2 {
		return nil, fmt.Errorf("%w (it has %d)", ErrNoStats, t.Docs())
	}
	o := *opts.EnsureDefaults()
	s := &Signer{opts: o, table: t}
	s.pool.New = func() any { return new(scratch) }
	if o.Mode == DocL90 {
		s.sizes = []int{0}
		return s, nil
	}
	hi := 1.0
	s.lo = idfL10Min
	if o.Mode == Range {
		s.lo, hi = o.MinNIDF, o.MaxNIDF
	}
	var main []uint64
	for h := range t.All() {
		if n := t.NIDF(h); n >= s.lo && n <= hi {
			main = append(main, h)
		}
	}
	slices.Sort(main) // the bootstrap draws from this deterministic order
	var slots []int32
	s.main, slots = newHashSet(main)
	s.sizes = append(s.sizes, len(main))
	for k := 1; k <= o.ExtraLexicons; k++ {
		set := make([]uint64, (s.main.slots()+63)/64)
		rng := rand.New(rand.NewPCG(o.Seed, uint64(k)))
		for range main {
			p := slots[rng.IntN(len(main))]
			set[p/64] |= 1 << (p % 64)
		}
		n := 0
		for _, w := range set {
			n += bits.OnesCount64(w)
		}
		s.extra = append(s.extra, set)
		s.sizes = append(s.sizes, n)
	}
	return s, nil
}

// Options returns the options of s with defaults applied.
func (s *Signer) Options() Options { return s.opts }

// Lexicons returns the number of lexicons of s, K+1, which is also the
// number of signatures [Signer.Sign] returns.
func (s *Signer) Lexicons() int { return len(s.sizes) }

// LexiconSize returns the number of terms of lexicon i: 0 is the main
// lexicon, 1..K the extra ones. It is 0 in DocL90 mode, which has no
// collection lexicon. It panics if i is not in [0, Lexicons()).
func (s *Signer) LexiconSize(i int) int { return s.sizes[i] }

// Sign returns the K+1 signatures of the document with the given terms
// (typically its [features.Tokens]); their order and repetitions do not
// matter. Coordinate 0 is the main-lexicon signature, coordinate k the
// signature of extra lexicon k, or the zero Signature if that lexicon
// cannot sign the document even after top-up.
//
// If the main lexicon cannot sign the document (then neither can any
// extra lexicon, which is a subset of it), Sign returns a nil slice and an
// error wrapping [ErrUnsignable] that gives the counts. Terms must not
// contain the byte 0x00, which separates terms in the digest (tokens never
// do).
//
// Cost: O(n) term hashes and hash-table look-ups for n terms, plus
// O(m log m) string comparisons and O(K·m) bit tests for the m unique
// lexicon terms, plus hashing about (K+1)·m·(average term length + 1)
// bytes with SHA-1. A top-up adds O(n) hashes and O(u) idf look-ups and an
// O(u log u) sort for the u unique terms; DocL90 mode always costs that.
// Allocates only the result (scratch buffers are pooled).
func (s *Signer) Sign(terms []string) ([]Signature, error) {
	sc := s.pool.Get().(*scratch)
	defer s.pool.Put(sc)
	if s.opts.Mode == DocL90 {
		return s.signDoc(sc, terms)
	}

	// Collect the unique lexicon terms, deduplicated by lexicon position
	// (cheaper than sorting the repeats away), then sort them bytewise.
	if len(sc.seen) != s.main.slots() {
		sc.seen = make([]uint32, s.main.slots())
	}
	if sc.gen++; sc.gen == 0 {
		clear(sc.seen)
		sc.gen = 1
	}
	lex := sc.lex[:0]
	for _, t := range terms {
		if p := s.main.find(features.HashTerm(t)); p >= 0 && sc.seen[p] != sc.gen {
			sc.seen[p] = sc.gen
			lex = append(lex, lexTerm{t, p})
		}
	}
	slices.SortFunc(lex, func(a, b lexTerm) int { return strings.Compare(a.term, b.term) })
	sc.lex = lex

	need := s.opts.MinTerms
	var below []idfTerm // computed on first need
	belowDone := false
	if len(lex) < need {
		below, belowDone = s.belowRange(sc, terms), true
		if len(lex)+len(below) < need {
			return nil, fmt.Errorf("%w: %d lexicon and %d secondary terms, need %d",
				ErrUnsignable, len(lex), len(below), need)
		}
	}

	sigs := make([]Signature, len(s.sizes))
	for i := range sigs {
		sel := sc.sel[:0]
		if i == 0 {
			for _, l := range lex {
				sel = append(sel, l.term)
			}
		} else {
			set := s.extra[i-1]
			for _, l := range lex {
				if set[l.slot/64]&(1<<(l.slot%64)) != 0 {
					sel = append(sel, l.term)
				}
			}
		}
		if len(sel) < need {
			if !belowDone {
				below, belowDone = s.belowRange(sc, terms), true
			}
			if len(sel)+len(below) < need {
				sc.sel = sel
				continue // zero signature
			}
			for _, b := range below[:need-len(sel)] {
				sel = append(sel, b.term)
			}
			slices.Sort(sel)
		}
		sc.sel = sel
		sigs[i] = s.digest(sc, sel)
	}
	return sigs, nil
}

// belowRange returns the secondary lexicon of a document: its unique terms
// with normalized idf below the collection lexicon's range, by increasing
// idf, ties broken bytewise.
func (s *Signer) belowRange(sc *scratch, terms []string) []idfTerm {
	return s.uniqueIDF(sc, terms, s.lo)
}

// uniqueIDF returns the unique terms with normalized idf below limit, by
// increasing idf, ties broken bytewise. Terms are deduplicated (by hash, in
// a scratch open-addressing table) before their idf is looked up.
func (s *Signer) uniqueIDF(sc *scratch, terms []string, limit float64) []idfTerm {
	size := 2 << bits.Len(uint(len(terms)))
	if cap(sc.table) < size {
		sc.table = make([]int32, size)
	}
	table := sc.table[:size] // index+1 into hashed, 0 = empty
	clear(table)
	mask := uint64(size - 1)
	hashed := sc.hashed[:0]
outer:
	for _, t := range terms {
		h := features.HashTerm(t)
		j := h & mask
		for ; table[j] != 0; j = (j + 1) & mask {
			if u := hashed[table[j]-1]; u.hash == h && u.term == t {
				continue outer
			}
		}
		hashed = append(hashed, hashedTerm{h, t})
		table[j] = int32(len(hashed))
	}
	sc.hashed = hashed
	out := sc.below[:0]
	for _, h := range hashed {
		if n := s.table.NIDF(h.hash); n < limit {
			out = append(out, idfTerm{h.term, n})
		}
	}
	slices.SortFunc(out, func(a, b idfTerm) int {
		switch {
		case a.nidf < b.nidf:
			return -1
		case a.nidf > b.nidf:
			return 1
		}
		return strings.Compare(a.term, b.term)
	})
	sc.below = out
	return out
}

// signDoc signs in DocL90 mode: the document's unique terms minus its
// ⌊n/10⌋ lowest-idf ones, topped up from those by increasing idf.
func (s *Signer) signDoc(sc *scratch, terms []string) ([]Signature, error) {
	all := s.uniqueIDF(sc, terms, math.Inf(1)) // the dropped terms come first
	n, need := len(all), s.opts.MinTerms
	if n < need {
		return nil, fmt.Errorf("%w: %d unique terms, need %d", ErrUnsignable, n, need)
	}
	// Keep the n - ⌊n/10⌋ highest-idf terms, or the need highest if more.
	keep := max(n-n/10, need)
	sel := sc.sel[:0]
	// The top-up takes the most common dropped terms first.
	for _, t := range all[:keep-(n-n/10)] {
		sel = append(sel, t.term)
	}
	for _, t := range all[n/10:] {
		sel = append(sel, t.term)
	}
	slices.Sort(sel)
	sc.sel = sel
	return []Signature{s.digest(sc, sel)}, nil
}

// digest returns the SHA-1 of the sorted terms, each followed by 0x00.
func (s *Signer) digest(sc *scratch, sorted []string) Signature {
	buf := sc.buf[:0]
	for _, t := range sorted {
		buf = append(buf, t...)
		buf = append(buf, 0)
	}
	sc.buf = buf
	return sha1.Sum(buf)
}

// A hashSet is a set of term hashes in open addressing with linear
// probing, indexed by the low bits of the hash (term hashes are already
// well mixed). Each member has a slot in [0, slots()). Here, where most
// look-ups miss, it is about twice as fast as a Go map.
type hashSet struct {
	keys    []uint64 // len a power of two, at most half full; 0 = empty
	hasZero bool     // the hash 0 is a member; its slot is len(keys)
}

// newHashSet returns the set of hashes and the slot of each hashes[i].
func newHashSet(hashes []uint64) (hashSet, []int32) {
	s := hashSet{keys: make([]uint64, 2<<bits.Len(uint(len(hashes))))}
	slots := make([]int32, len(hashes))
	mask := uint64(len(s.keys) - 1)
	for i, h := range hashes {
		if h == 0 {
			s.hasZero, slots[i] = true, int32(len(s.keys))
			continue
		}
		j := h & mask
		for s.keys[j] != 0 {
			j = (j + 1) & mask
		}
		s.keys[j], slots[i] = h, int32(j)
	}
	return s, slots
}

// slots returns the number of slots: members' slots are below it.
func (s *hashSet) slots() int { return len(s.keys) + 1 }

// find returns the slot of h, or -1 if h is not a member.
func (s *hashSet) find(h uint64) int32 {
	if h == 0 {
		if s.hasZero {
			return int32(len(s.keys))
		}
		return -1
	}
	mask := uint64(len(s.keys) - 1)
	for j := h & mask; ; j = (j + 1) & mask {
		switch s.keys[j] {
		case h:
			return int32(j)
		case 0:
			return -1
		}
	}
}
