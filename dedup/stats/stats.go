package stats

import (
	"bytes"
	"encoding/binary"

	"fmt"
	"io"
	"iter"
	"maps"
	"math"
	"slices"

	"github.com/doppel-search/doppel/dedup/features"
	"github.com/doppel-search/doppel/internal/checkfile"
)

// ErrCorrupt is wrapped by errors from [Load] and [Decode] for damaged data.
var ErrCorrupt = checkfile.ErrCorrupt

// A Builder counts document frequencies. The zero value is ready to use. It
// is not safe for concurrent use.
type Builder struct {
	docs int
	df   map[uint64]uint32
	seen map[uint64]struct{} // scratch set, reused per document
}

// Add counts one document given its terms (duplicates within the document
// are counted once). Cost: O(len(terms)) expected.
func (b *Builder) Add(terms []string) {
	hashes := make([]uint64, len(terms))
	for i, t := range terms {
		hashes[i] = features.HashTerm(t)
	}
	b.AddHashes(hashes)
}

// AddHashes counts one document given the hashes of its features (for
// example shingle hashes); duplicates are counted once. Use it for tables of
// features that are not terms. Cost: O(len(hashes)) expected.
func (b *Builder) AddHashes(hashes []uint64) {
	if b.df == nil {
		b.df = map[uint64]uint32{}
		b.seen = map[uint64]struct{}{}
	}
	clear(b.seen)
	for _, h := range hashes {
		if _, dup := b.seen[h]; dup {
			continue
		}
		b.seen[h] = struct{}{}
		b.df[h]++
	}
	b.docs++
}

// Docs returns the number of documents added so far.
func (b *Builder) Docs() int { return b.docs }

// Merge adds the counts of o to b, as if b had been given o's documents
// too (builders filled in parallel, then merged). Cost: O(terms of o).
func (b *Builder) Merge(o *Builder) {
	if b.df == nil {
		b.df = map[uint64]uint32{}
		b.seen = map[uint64]struct{}{}
	}
	for h, n := range o.df {
		b.df[h] += n
	}
	b.docs += o.docs
}

// Table returns an immutable snapshot of the counts. The Builder stays
// usable; later Adds do not affect the returned Table.
func (b *Builder) Table() *Table {
	return &Table{docs: b.docs, df: maps.Clone(b.df)}
}

// A Table is a frozen document-frequency table. It is immutable and safe
// for concurrent use. A nil or empty Table knows no terms.
type Table struct {
	docs int
	df   map[uint64]uint32
}

// Docs returns the number of documents the table was built from.
func (t *Table) Docs() int {
	if t == nil {
		return 0
	}
	return t.docs
}

// Terms returns the number of distinct terms in the table.
func (t *Table) Terms() int {
	if t == nil {
		return 0
	}
	return len(t.df)
}

// DF returns the number of documents that contain the term with hash h
// (0 for unknown terms).
func (t *Table) DF(h uint64) int {
	if t == nil {
		return 0
	}
	return int(t.df[h])
}

// All returns an iterator over (term hash, document frequency) pairs in
// unspecified order. Sort the hashes if you need a deterministic order.
func (t *Table) All() iter.Seq2[uint64, int] {
	return func(yield func(uint64, int) bool) {
		if t == nil {
			return
		}
		for h, df := range t.df {
			if !yield(h, int(df)) {
				return
			}
		}
	}
}

// IDF returns log(N/df) for the term with hash h, where N is [Table.Docs].
// Unknown terms are treated as occurring in one document (the rarest
// possible), so they get the highest idf, log N. With fewer than two
// documents every idf is 0.
func (t *Table) IDF(h uint64) float64 { return t.IDFOf(t.DF(h)) }

// IDFOf returns the idf of a term that occurs in df documents: log(N/df),
// with df < 1 counted as 1, and 0 with fewer than two documents. Callers
// that cache idf by document frequency use it so that the formula lives in
// one place.
func (t *Table) IDFOf(df int) float64 {
	n := t.Docs()
	if n < 2 {
		return 0
	}
	return math.Log(float64(n) / float64(max(df, 1)))
}

// NIDF returns the normalized idf of the term with hash h: IDF(h) / log N,
// in [0, 1]; 1 for terms in a single document (or unknown), 0 for terms in
// every document.
func (t *Table) NIDF(h uint64) float64 {
	n := t.Docs()
	if n < 2 {
		return 0
	}
	return t.IDF(h) / math.Log(float64(n))
}

const magic = "DPLSTAT1"

// Save writes t to path atomically, with a checksum (see [Load]).
func (t *Table) Save(path string) error {
	return checkfile.Write(path, magic, t.encode)
}

// Load reads a Table written by [Table.Save]. A truncated or damaged file
// gives an error wrapping [ErrCorrupt].
func Load(path string) (*Table, error) {
	payload, err := checkfile.Read(path, magic)
	if err != nil {
		return nil, fmt.Errorf("stats: loading %s: %w", path, err)
	}
	return decode(payload)
}

// encode writes docs, the number of terms, then (hash, df) pairs sorted by
// hash, all little endian, so that equal tables encode identically.
func (t *Table) encode(w io.Writer) error {
	keys := make([]uint64, 0, t.Terms())
	for k := range t.df {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	buf := make([]byte, 0, 16+12*len(keys))
	buf = binary.LittleEndian.AppendUint64(buf, uint64(t.Docs()))
	buf = binary.LittleEndian.AppendUint64(buf, uint64(len(keys)))
	for _, k := range keys {
		buf = binary.LittleEndian.AppendUint64(buf, k)
		buf = binary.LittleEndian.AppendUint32(buf, t.df[k])
	}
	_, err := w.Write(buf)
	return err
}

func decode(p []byte) (*Table, error) {
	r := bytes.NewReader(p)
	var hdr [2]uint64
	if err := binary.Read(r, binary.LittleEndian, &hdr); err != nil {
		return nil, fmt.Errorf("%w: table payload too short", ErrCorrupt)
	}
	docs, n := hdr[0], hdr[1]
	if n > uint64(r.Len())/12 || uint64(r.Len()) != 12*n {
		return nil, fmt.Errorf("%w: %d terms do not fit in %d bytes", ErrCorrupt, n, r.Len())
	}
	t := &Table{docs: int(docs), df: make(map[uint64]uint32, n)}
	rest := p[16:]
	for i := uint64(0); i < n; i++ {
		k := binary.LittleEndian.Uint64(rest[12*i:])
		v := binary.LittleEndian.Uint32(rest[12*i+8:])
		if uint64(v) > docs {
			return nil, fmt.Errorf("%w: df %d exceeds %d documents", ErrCorrupt, v, docs)
		}
		t.df[k] = v
	}
	return t, nil
}

// MarshalBinary encodes t as Save does, without the file's magic and
// checksum (for a snapshot that has its own).
func (t *Table) MarshalBinary() ([]byte, error) {
	var b bytes.Buffer
	err := t.encode(&b)
	return b.Bytes(), err
}

// UnmarshalTable decodes what [Table.MarshalBinary] encoded; damaged
// bytes give an error wrapping [ErrCorrupt].
func UnmarshalTable(data []byte) (*Table, error) { return decode(data) }
