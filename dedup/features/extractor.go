package features

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// Options configures an [Extractor]. The zero value is the default: plain
// lowercased tokens, no filters, unigrams.
type Options struct {
	// StopWords drops common English function words (see [IsStopWord]).
	// Default false.
	StopWords bool
	// Stem reduces every term with the Porter2 (Snowball English) stemmer.
	// Default false.
	Stem bool
	// StripNumbers drops number tokens, those made only of digits ("2026",
	// "03"), so that templated pages differing by counters, dates or
	// version numbers compare equal. Tokens that mix letters and digits
	// are identifiers ("x509crl", "f32", "utf8") and stay. Default false.
	StripNumbers bool
	// StripDates drops dates, so that templated pages that differ only by
	// a date look the same: a month name or abbreviation with the day and
	// year numbers written next to it ("2 March 2026", "March 2nd, 2026",
	// "Mar 2026"), with a weekday name before or after ("Monday 2 March"),
	// and numeric dates with a four-digit year ("2026-03-02",
	// "02/03/2026", "2026-03"). Words that only look like dates stay
	// ("may", "march", "sat" in "add_sat"), and so do other numbers
	// ("x86_64", "1.27.0", "page 3").
	// Default false.
	StripDates bool
	// NGrams lists the word n-gram sizes to produce, e.g. {1}, {3} or
	// {3, 5}. Default {1}. Each n must be in [1, 16].
	NGrams []int
}

// Validate reports the first invalid field of o, if any.
func (o Options) Validate() error {
	for _, n := range o.NGrams {
		if n < 1 || n > 16 {
			return fmt.Errorf("features: n-gram size %d out of range [1, 16]", n)
		}
	}
	return nil
}

// ErrNoTerms is returned by callers that cannot work with a document that
// has no terms left after filtering.
var ErrNoTerms = errors.New("features: document has no terms")

// An Extractor turns text into filtered terms and word n-grams. It is
// immutable and safe for concurrent use.
type Extractor struct {
	opts   Options
	ngrams []int
}

// New returns an Extractor for opts, or an error if opts is invalid.
func New(opts Options) (*Extractor, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	ng := opts.NGrams
	if len(ng) == 0 {
		ng = []int{1}
	}
	return &Extractor{opts: opts, ngrams: append([]int(nil), ng...)}, nil
}

// Options returns the options the Extractor was made with.
func (e *Extractor) Options() Options { return e.opts }

// Terms returns the filtered terms of text in order: its [Tokens] with stop
// words, numbers and dates dropped and stemming applied, as configured.
func (e *Extractor) Terms(text string) []string {
	return e.FilterTokens(Tokens(text))
}

// FilterTokens applies the configured filters to tokens, reusing its
// backing array; the caller must not use tokens afterwards.
func (e *Extractor) FilterTokens(tokens []string) []string {
	o := e.opts
	if !o.StopWords && !o.Stem && !o.StripNumbers && !o.StripDates {
		return tokens
	}
	var date []bool
	if o.StripDates {
		date = dateMask(tokens)
	}
	out := tokens[:0]
	for i, t := range tokens {
		if o.StripNumbers && isNumber(t) {
			continue
		}
		if o.StripDates && date[i] {
			continue
		}
		if o.StopWords && stopWords[t] {
			continue
		}
		if o.Stem {
			t = english.Stem(t, false)
		}
		out = append(out, t)
	}
	return out
}

// Features returns the configured word n-grams of terms: for each n in
// Options.NGrams, every run of n consecutive terms joined by a single space.
// A document shorter than n contributes no n-grams of that size, except
// that a document with no n-grams of any size at all yields its terms, so
// that no document with terms has an empty feature list.
func (e *Extractor) Features(terms []string) []string {
	if len(e.ngrams) == 1 && e.ngrams[0] == 1 {
		return terms
	}
	var out []string
	var b strings.Builder
	for _, n := range e.ngrams {
		for i := 0; i+n <= len(terms); i++ {
			if n == 1 {
				out = append(out, terms[i])
				continue
			}
			b.Reset()
			for j, t := range terms[i : i+n] {
				if j > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(t)
			}
			out = append(out, b.String())
		}
	}
	if len(out) == 0 {
		return terms
	}
	return out
}

// CosineWords returns the sorted set of hashed "cosine words" of tokens, the
// word-set definition of Kołcz et al. used by the shared corpus: unique
// tokens of at least 4 characters that hold at most one digit.
func CosineWords(tokens []string) []uint64 {
	out := make([]uint64, 0, len(tokens)/2)
	for _, t := range tokens {
		if len(t) < 4 || utf8.RuneCountInString(t) < 4 || digitCount(t) > 1 {
			continue
		}
		out = append(out, HashTerm(t))
	}
	return Set(out)
}

// MinCosineWords is the number of cosine words a document needs to take
// part in cosine comparisons, as in the shared corpus ground truth.
const MinCosineWords = 5

func sqrtProduct(a, b int) float64 { return math.Sqrt(float64(a) * float64(b)) }
