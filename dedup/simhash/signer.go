package simhash

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/doppel-search/doppel/dedup/features"
	"github.com/doppel-search/doppel/dedup/stats"
)

// Defaults of [Options] fields left zero.
const (
	DefaultHighWeight = 1
	DefaultTagBoost   = 2
	DefaultMetaWeight = 0.5
)

// maxFactor bounds TagBoost and MetaWeight so that weights stay finite.
const maxFactor = 1e6

// ErrOptions is wrapped by the error [NewSigner] returns for invalid
// Options.
var ErrOptions = errors.New("simhash: invalid options")

// Options configures a [Signer]. The zero value is the default: keep every
// term, count tagged occurrences twice, weigh metadata at half the heaviest
// term.
type Options struct {
	// LowWeight drops terms whose weight is below LowWeight × the largest
	// term weight of the document (Seshasai's low threshold): rare noise
	// such as typos and one-off numbers stops moving the signature. In
	// [0, 1]; default 0, which keeps every term.
	LowWeight float64
	// HighWeight drops terms whose weight is above HighWeight × the largest
	// term weight of the document (Seshasai's high threshold): a handful of
	// very heavy terms (a rare name repeated throughout) otherwise fixes
	// most bits by itself, so documents that share only those terms look
	// alike. Any value below 1 drops at least the heaviest term. In (0, 1];
	// default 1, which keeps every term. Must not be below LowWeight.
	HighWeight float64
	// TagBoost is how many ordinary occurrences one occurrence in tagged
	// text (title, headings, bold; see [Doc]) counts as. In (0, 1e6];
	// default 2. 1 turns boosting off.
	TagBoost float64
	// MetaWeight sets the weight of each metadata feature (see [Doc]) to
	// MetaWeight × the largest kept term weight of the document. In
	// (0, 1e6]; default 0.5. (Leave Doc.Meta empty to ignore metadata.)
	MetaWeight float64
}

// EnsureDefaults sets every zero field to its default (each field's doc
// says which) and returns o.
func (o *Options) EnsureDefaults() *Options {
	if o.HighWeight == 0 {
		o.HighWeight = DefaultHighWeight
	}
	if o.TagBoost == 0 {
		o.TagBoost = DefaultTagBoost
	}
	if o.MetaWeight == 0 {
		o.MetaWeight = DefaultMetaWeight
	}
	return o
}

// Validate reports the first invalid field of o (after defaults), if any,
// wrapping [ErrOptions].
func (o Options) Validate() error {
	o.EnsureDefaults()
	switch {
	case !(o.LowWeight >= 0 && o.LowWeight <= 1):
		return fmt.Errorf("%w: LowWeight %v not in [0, 1]", ErrOptions, o.LowWeight)
	case !(o.HighWeight > 0 && o.HighWeight <= 1):
		return fmt.Errorf("%w: HighWeight %v not in (0, 1]", ErrOptions, o.HighWeight)
	case o.LowWeight > o.HighWeight:
		return fmt.Errorf("%w: LowWeight %v above HighWeight %v drops every term", ErrOptions, o.LowWeight, o.HighWeight)
	case !(o.TagBoost > 0 && o.TagBoost <= maxFactor):
		return fmt.Errorf("%w: TagBoost %v not in (0, %g]", ErrOptions, o.TagBoost, maxFactor)
	case !(o.MetaWeight > 0 && o.MetaWeight <= maxFactor):
		return fmt.Errorf("%w: MetaWeight %v not in (0, %g]", ErrOptions, o.MetaWeight, maxFactor)
	}
	return nil
}

// A Doc is the input of [Signer.Sign]: a document's terms, already
// tokenized and filtered (stop words, stemming) by the caller.
type Doc struct {
	// Terms are the terms of the body text, in any order, repeated as often
	// as they occur.
	Terms []string
	// Tagged are the terms of the tagged text: title, headings, bold. Terms
	// and Tagged split the document's text between them; a tagged
	// occurrence belongs in Tagged only, not also in Terms. Each tagged
	// occurrence counts as Options.TagBoost occurrences of the term.
	Tagged []string
	// Meta are metadata features such as "author:jane" or "type:pdf", each
	// taken once however often it is listed. They are hashed like terms,
	// so give them a prefix that no term can have.
	Meta []string
}

// A Signer computes the SimHash of documents with tf·idf weights from a
// frozen document-frequency table. It is immutable and safe for concurrent
// use.
type Signer struct {
	table *stats.Table // nil when it has no statistics
	opts  Options
	idf   []float64 // idf[df] = log(docs/df) for small df, saving a log per term
	pool  sync.Pool // of *scratch
}

// idfCacheSize bounds the document frequencies whose idf is precomputed.
const idfCacheSize = 1 << 12

// NewSigner returns a Signer weighing terms by tf·idf with the idf of t
// ([stats.Table.IDF] of the term's [features.HashTerm]), or an error
// wrapping [ErrOptions] if opts is invalid. A nil table, or one built from
// fewer than two documents (which knows no idf), weighs terms by tf alone.
//
// The Signer keeps t; tables are immutable, so signatures never change
// until a new Signer is made with a new table.
func NewSigner(t *stats.Table, opts Options) (*Signer, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if t.Docs() < 2 {
		t = nil
	}
	s := &Signer{table: t, opts: *opts.EnsureDefaults()}
	s.pool.New = func() any { return new(scratch) }
	if t != nil {
		s.idf = make([]float64, min(t.Docs(), idfCacheSize)+1)
		for df := 1; df < len(s.idf); df++ {
			s.idf[df] = t.IDFOf(df)
		}
	}
	return s, nil
}

// termIDF returns table.IDF(h), from the cache when possible.
func (s *Signer) termIDF(h uint64) float64 {
	df := max(s.table.DF(h), 1) // unknown terms count as in one document
	if df < len(s.idf) {
		return s.idf[df]
	}
	return s.table.IDFOf(df)
}

// Options returns the options of s with defaults filled in.
func (s *Signer) Options() Options { return s.opts }

// Sign returns the SimHash of d. Each distinct term gets weight
// (occurrences in Terms + TagBoost × occurrences in Tagged) × idf; terms
// with weight 0 (an idf of 0: the term occurs in every document of the
// table) are ignored, and so are terms outside [LowWeight, HighWeight] ×
// the largest term weight. Each distinct metadata string then gets weight
// MetaWeight × the largest kept term weight (MetaWeight alone when no term
// is kept). The result is [FromFeatures] of those features, in the order
// [Signer.Features] lists them. A Doc without terms or metadata gives 0.
//
// Cost: O(len(Terms) + len(Tagged) + len(Meta)·log len(Meta)) term hashes
// and table probes, plus 64 additions per distinct kept feature. It does
// not allocate once its scratch space has grown to the document size.
func (s *Signer) Sign(d Doc) Simhash {
	var v [64]float64
	s.features(d, func(f Feature) { accumulate(&v, f.Hash, f.Weight) })
	return signs(&v)
}

// Features returns the weighted features [Signer.Sign] uses for d: the
// distinct kept terms in order of first occurrence (Terms before Tagged),
// then the distinct metadata features in increasing hash order. Sign(d)
// equals FromFeatures(Features(d)). It is meant for inspecting and
// explaining signatures; it allocates the result.
func (s *Signer) Features(d Doc) []Feature {
	var out []Feature
	s.features(d, func(f Feature) { out = append(out, f) })
	return out
}

// features calls emit for each weighted feature of d in the documented
// order.
func (s *Signer) features(d Doc, emit func(Feature)) {
	sc := s.pool.Get().(*scratch)
	defer s.putScratch(sc)

	sc.reset(len(d.Terms) + len(d.Tagged))
	for _, t := range d.Terms {
		sc.add(features.HashTerm(t), 1)
	}
	for _, t := range d.Tagged {
		sc.add(features.HashTerm(t), s.opts.TagBoost)
	}

	// Turn tf into tf·idf and find the largest weight.
	maxW := 0.0
	for _, i := range sc.order {
		e := &sc.slots[i]
		if s.table != nil {
			e.w *= s.termIDF(e.key)
		}
		maxW = max(maxW, e.w)
	}
	lo, hi := s.opts.LowWeight*maxW, s.opts.HighWeight*maxW
	keptMax := 0.0
	for _, i := range sc.order {
		e := sc.slots[i]
		if e.w > 0 && e.w >= lo && e.w <= hi {
			emit(Feature{Hash: e.key, Weight: e.w})
			keptMax = max(keptMax, e.w)
		}
	}

	if len(d.Meta) == 0 {
		return
	}
	metaW := s.opts.MetaWeight
	if keptMax > 0 {
		metaW *= keptMax
	}
	sc.meta = sc.meta[:0]
	for _, m := range d.Meta {
		sc.meta = append(sc.meta, features.HashTerm(m))
	}
	slices.Sort(sc.meta)
	for _, h := range slices.Compact(sc.meta) {
		emit(Feature{Hash: h, Weight: metaW})
	}
}

// maxPooledSlots bounds the scratch tables kept for reuse (about 16 MB).
const maxPooledSlots = 1 << 20

func (s *Signer) putScratch(sc *scratch) {
	if len(sc.slots) <= maxPooledSlots {
		s.pool.Put(sc)
	}
}

// scratch is an open-addressing hash table from term hash to accumulated
// weight, reused across calls. A slot is empty when its weight is 0: every
// add is positive.
type scratch struct {
	slots []slot
	mask  uint64
	order []int32 // occupied slots in order of first insertion
	meta  []uint64
}

type slot struct {
	key uint64
	w   float64
}

// reset empties the table and sizes it for n keys at a load factor of at
// most 1/2, up to maxInitialSlots; add grows it beyond. Only the slots
// used by the previous call are cleared, so the cost is proportional to
// that call's distinct keys.
func (sc *scratch) reset(n int) {
	for _, i := range sc.order {
		sc.slots[i] = slot{}
	}
	sc.order = sc.order[:0]
	size := 16
	for size < 2*n && size < maxInitialSlots {
		size *= 2
	}
	if size > len(sc.slots) {
		sc.slots = make([]slot, size)
	}
	sc.mask = uint64(size - 1)
}

// maxInitialSlots caps the table size reset picks from the number of
// terms, which overestimates the number of distinct terms of long
// documents.
const maxInitialSlots = 1 << 15

// add adds w to the weight of key, growing the table when it is half full.
// Keys are xxHash values, so their low bits index the table directly.
func (sc *scratch) add(key uint64, w float64) {
	i := key & sc.mask
	for {
		e := &sc.slots[i]
		if e.w == 0 {
			*e = slot{key: key, w: w}
			sc.order = append(sc.order, int32(i))
			if uint64(len(sc.order)) > (sc.mask+1)/2 {
				sc.grow()
			}
			return
		}
		if e.key == key {
			e.w += w
			return
		}
		i = (i + 1) & sc.mask
	}
}

// grow moves the entries to a table of twice the size, keeping their
// order.
func (sc *scratch) grow() {
	old, order := sc.slots, sc.order
	sc.slots = make([]slot, 2*(sc.mask+1))
	sc.mask = uint64(len(sc.slots) - 1)
	sc.order = make([]int32, 0, 2*len(order))
	for _, j := range order {
		e := old[j]
		i := e.key & sc.mask
		for sc.slots[i].w != 0 {
			i = (i + 1) & sc.mask
		}
		sc.slots[i] = e
		sc.order = append(sc.order, int32(i))
	}
}
