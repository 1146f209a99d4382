package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/doppel-search/doppel/internal/jsonl"
)

// A Definition says which similarity makes a labelled pair a
// near-duplicate. The zero value is Resemblance.
type Definition int

// Definitions of a near-duplicate pair at a threshold t.
const (
	Resemblance Definition = iota // Jaccard of the 5-shingle sets >= t (default)
	Cosine                        // cosine of the cosine-word sets >= t
	Either                        // either of the two >= t
)

var definitionNames = []string{"resemblance", "cosine", "either"}

// String returns the definition's flag name: resemblance, cosine or either.
func (d Definition) String() string {
	if d < 0 || int(d) >= len(definitionNames) {
		return fmt.Sprintf("Definition(%d)", int(d))
	}
	return definitionNames[d]
}

// ParseDefinition parses a flag name as returned by [Definition.String].
func ParseDefinition(s string) (Definition, error) {
	for i, n := range definitionNames {
		if s == n {
			return Definition(i), nil
		}
	}
	return 0, fmt.Errorf("eval: unknown definition %q (want one of %s)", s, strings.Join(definitionNames, ", "))
}

// A LabeledPair is one line of ground truth: two documents and their exact
// similarities. In a Truth from [ComputeTruth] or a corpus pair file, A is
// the document that comes first in the document collection.
type LabeledPair struct {
	A, B    string
	Jaccard float64 // resemblance of the word 5-shingle sets, in [0, 1]
	Cosine  float64 // cosine of the cosine-word sets, in [0, 1]; 0 when either document has too few cosine words
}

// Similarity returns the pair's similarity under def: its Jaccard, its
// Cosine, or for Either the larger of the two. An unknown def gives 0.
func (p LabeledPair) Similarity(def Definition) float64 {
	switch def {
	case Resemblance:
		return p.Jaccard
	case Cosine:
		return p.Cosine
	case Either:
		return max(p.Jaccard, p.Cosine)
	}
	return 0
}

// Errors returned when building a Truth, wrapped with the line number or
// pair index at fault.
var (
	ErrMalformed     = errors.New("eval: malformed pair")
	ErrDuplicatePair = errors.New("eval: pair listed twice")
)

// A Truth is a set of labelled pairs: every pair of a document collection
// whose similarity is at or above some minimum (0.8 for the shared corpus),
// each listed once with both similarities. Pairs not listed are below the
// minimum under both measures.
//
// A Truth is immutable once made and safe for concurrent use.
type Truth struct {
	pairs []LabeledPair
	index map[Pair]int // normalized pair → position in pairs
}

// NewTruth returns a Truth of the given pairs, in their order. Each pair
// must join two different non-empty ids with similarities in [0, 1]
// ([ErrMalformed]) and appear once in either order ([ErrDuplicatePair]).
// The slice is copied. Cost: O(len(pairs)).
func NewTruth(pairs []LabeledPair) (*Truth, error) {
	t := newTruth(len(pairs))
	for i, p := range pairs {
		if err := validate(p); err != nil {
			return nil, fmt.Errorf("eval: pair %d: %w", i, err)
		}
		if first, dup := t.index[NewPair(p.A, p.B)]; dup {
			return nil, fmt.Errorf("eval: pair %d: %w: %q and %q (first as pair %d)", i, ErrDuplicatePair, p.A, p.B, first)
		}
		t.add(p)
	}
	return t, nil
}

func newTruth(n int) *Truth {
	return &Truth{pairs: make([]LabeledPair, 0, n), index: make(map[Pair]int, n)}
}

// add appends p, which must be valid and new.
func (t *Truth) add(p LabeledPair) {
	t.index[NewPair(p.A, p.B)] = len(t.pairs)
	t.pairs = append(t.pairs, p)
}

// validate reports what makes p unfit for a Truth, wrapping ErrMalformed.
func validate(p LabeledPair) error {
	switch {
	case p.A == "" || p.B == "":
		return fmt.Errorf("%w: empty id", ErrMalformed)
	case p.A == p.B:
		return fmt.Errorf("%w: %q paired with itself", ErrMalformed, p.A)
	case !(p.Jaccard >= 0 && p.Jaccard <= 1):
		return fmt.Errorf("%w: jaccard %v not in [0, 1]", ErrMalformed, p.Jaccard)
	case !(p.Cosine >= 0 && p.Cosine <= 1):
		return fmt.Errorf("%w: cosine %v not in [0, 1]", ErrMalformed, p.Cosine)
	}
	return nil
}

// MaxLineBytes is the longest pair-file line [LoadPairs] accepts (1 MiB).
const MaxLineBytes = 1 << 20

// pairLine is the JSON form of a LabeledPair; pointers tell missing fields
// from zero ones.
type pairLine struct {
	A       *string  `json:"a"`
	B       *string  `json:"b"`
	Jaccard *float64 `json:"jaccard"`
	Cosine  *float64 `json:"cosine"`
}

// LoadPairs reads a pair file in the corpus format, one JSON object per
// line, and returns its pairs in file order:
//
//	{"a": ID, "b": ID, "jaccard": J, "cosine": C}
//
// gzip-compressed input is detected from its first two bytes and
// decompressed. Blank lines are skipped; other fields are ignored. A line
// that is not such an object, lacks a field, is longer than [MaxLineBytes]
// or breaks the rules of [NewTruth] gives an error naming its 1-based line
// number that wraps [ErrMalformed] or [ErrDuplicatePair]; read errors are
// wrapped as they are. Cost: O(size of the input).
func LoadPairs(r io.Reader) (*Truth, error) {
	src, err := jsonl.Decompress(r)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	sc := bufio.NewScanner(src)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLineBytes)
	t := newTruth(0)
	var lineOf []int // line of each pair, for duplicate reports
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var v pairLine
		if err := json.Unmarshal(b, &v); err != nil {
			return nil, fmt.Errorf("eval: line %d: %w: %v", line, ErrMalformed, err)
		}
		var missing []string
		for name, absent := range map[string]bool{`"a"`: v.A == nil, `"b"`: v.B == nil, `"jaccard"`: v.Jaccard == nil, `"cosine"`: v.Cosine == nil} {
			if absent {
				missing = append(missing, name)
			}
		}
		if len(missing) > 0 {
			slices.Sort(missing)
			return nil, fmt.Errorf("eval: line %d: %w: missing %s", line, ErrMalformed, strings.Join(missing, ", "))
		}
		p := LabeledPair{A: *v.A, B: *v.B, Jaccard: *v.Jaccard, Cosine: *v.Cosine}
		if err := validate(p); err != nil {
			return nil, fmt.Errorf("eval: line %d: %w", line, err)
		}
		if first, dup := t.index[NewPair(p.A, p.B)]; dup {
			return nil, fmt.Errorf("eval: line %d: %w: %q and %q (first on line %d)", line, ErrDuplicatePair, p.A, p.B, lineOf[first])
		}
		t.add(p)
		lineOf = append(lineOf, line)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("eval: line %d: %w: longer than %d bytes", line+1, ErrMalformed, MaxLineBytes)
		}
		return nil, fmt.Errorf("eval: after line %d: %w", line, err)
	}
	return t, nil
}

// WriteTo writes t in the pair-file format that [LoadPairs] reads, one line
// per pair in t's order, and returns the number of bytes written. Values
// are written in the shortest form that reads back to the same float64.
func (t *Truth) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriter(w)
	var n int64
	for _, p := range t.pairs {
		b, err := json.Marshal(struct {
			A       string  `json:"a"`
			B       string  `json:"b"`
			Jaccard float64 `json:"jaccard"`
			Cosine  float64 `json:"cosine"`
		}{p.A, p.B, p.Jaccard, p.Cosine})
		if err != nil {
			return n, fmt.Errorf("eval: %w", err)
		}
		b = append(b, '\n')
		m, err := bw.Write(b)
		n += int64(m)
		if err != nil {
			return n, fmt.Errorf("eval: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return n, fmt.Errorf("eval: %w", err)
	}
	return n, nil
}

// Len returns the number of pairs in t.
func (t *Truth) Len() int { return len(t.pairs) }

// Pairs returns the pairs of t in order. The slice is t's own: do not
// modify it.
func (t *Truth) Pairs() []LabeledPair { return t.pairs }

// Lookup returns the labelled pair of a and b (in either order) and whether
// t lists it. Cost: O(1) expected.
func (t *Truth) Lookup(a, b string) (LabeledPair, bool) {
	i, ok := t.index[NewPair(a, b)]
	if !ok {
		return LabeledPair{}, false
	}
	return t.pairs[i], true
}

// Positives returns the pairs of t that are near-duplicates under def at
// threshold: those with [LabeledPair.Similarity] >= threshold. Thresholds
// below the minimum similarity t was made with give an incomplete set,
// since pairs below that minimum are not listed. Cost: O(Len()).
func (t *Truth) Positives(def Definition, threshold float64) PairSet {
	s := PairSet{}
	for _, p := range t.pairs {
		if p.Similarity(def) >= threshold {
			s[NewPair(p.A, p.B)] = struct{}{}
		}
	}
	return s
}
