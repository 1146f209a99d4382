package imatch

import (
	"errors"
	"fmt"
)

// A Mode selects how the lexicon of a [Signer] is chosen.
type Mode int

const (
	// Range selects the terms of the table whose normalized idf lies in
	// [Options.MinNIDF, Options.MaxNIDF]. It is the default.
	Range Mode = iota
	// IDFL10 is the paper's IDF-L-10: the terms of the table whose
	// normalized idf is at least 0.1 (Options.MinNIDF and MaxNIDF are
	// ignored).
	IDFL10
	// DocL90 is the paper's Doc-L-90: there is no collection lexicon; each
	// document keeps its 90% highest-idf unique terms (it drops the
	// ⌊n/10⌋ lowest-idf of its n unique terms). It cannot be combined
	// with extra lexicons.
	DocL90
)

// String returns "range", "idf-l-10" or "doc-l-90".
func (m Mode) String() string {
	switch m {
	case Range:
		return "range"
	case IDFL10:
		return "idf-l-10"
	case DocL90:
		return "doc-l-90"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// Defaults of [Options].
const (
	DefaultMinNIDF  = 0.2
	DefaultMaxNIDF  = 0.8
	DefaultMinTerms = 5
	DefaultSeed     = 1
)

// idfL10Min is the lower normalized-idf bound of IDFL10.
const idfL10Min = 0.1

// Options configures a [Signer]. The zero value is the default: Range mode
// with nidf in [0.2, 0.8], at least 5 terms per signature, no extra
// lexicons.
type Options struct {
	// Mode selects the lexicon. Default [Range].
	Mode Mode
	// MinNIDF and MaxNIDF bound the normalized idf (see
	// [stats.Table.NIDF]) of the lexicon terms in Range mode, inclusive.
	// Both must lie in [0, 1]. MaxNIDF 0 means the default 0.8; MinNIDF 0
	// means the default 0.2 only when MaxNIDF is 0 too, so {0, 0} is
	// [0.2, 0.8], {0.3, 0} is [0.3, 0.8] and {0, 0.5} is [0, 0.5]. Ignored
	// in the other modes.
	MinNIDF, MaxNIDF float64
	// MinTerms is the smallest number of terms a signature is computed
	// from; documents with fewer lexicon terms are topped up from the
	// secondary lexicon (see the package documentation). Default 5, the
	// minimum number of words the shared evaluation corpus (and Kołcz et
	// al.'s cosine) requires of a document; a signature of fewer terms is
	// too easily shared by unrelated short documents. Must be >= 0.
	MinTerms int
	// ExtraLexicons is K, the number of bootstrap-sampled extra lexicons;
	// Sign returns K+1 signatures. Default 0 (plain I-Match). Must be >= 0
	// and 0 in DocL90 mode, which has no collection lexicon to sample.
	ExtraLexicons int
	// Seed seeds the bootstrap sampling of the extra lexicons. Default 1
	// (so seed 0 cannot be chosen). Equal seeds give equal lexicons.
	Seed uint64
}

// Validate reports the first invalid field of o, if any.
func (o Options) Validate() error {
	if o.Mode < Range || o.Mode > DocL90 {
		return fmt.Errorf("imatch: unknown mode %d", int(o.Mode))
	}
	// The negated comparisons also reject NaN.
	if !(o.MinNIDF >= 0 && o.MinNIDF <= 1) {
		return fmt.Errorf("imatch: MinNIDF %v out of range [0, 1]", o.MinNIDF)
	}
	if !(o.MaxNIDF >= 0 && o.MaxNIDF <= 1) {
		return fmt.Errorf("imatch: MaxNIDF %v out of range [0, 1]", o.MaxNIDF)
	}
	if d := *o.EnsureDefaults(); d.MinNIDF > d.MaxNIDF {
		return fmt.Errorf("imatch: MinNIDF %v above MaxNIDF %v", d.MinNIDF, d.MaxNIDF)
	}
	if o.MinTerms < 0 {
		return fmt.Errorf("imatch: negative MinTerms %d", o.MinTerms)
	}
	if o.ExtraLexicons < 0 {
		return fmt.Errorf("imatch: negative ExtraLexicons %d", o.ExtraLexicons)
	}
	if o.Mode == DocL90 && o.ExtraLexicons > 0 {
		return errors.New("imatch: DocL90 has no collection lexicon to sample extra lexicons from")
	}
	return nil
}

// EnsureDefaults sets every zero field to its default (each field's doc
// says which) and returns o.
func (o *Options) EnsureDefaults() *Options {
	if o.MaxNIDF == 0 {
		if o.MinNIDF == 0 {
			o.MinNIDF = DefaultMinNIDF
		}
		o.MaxNIDF = DefaultMaxNIDF
	}
	if o.MinTerms == 0 {
		o.MinTerms = DefaultMinTerms
	}
	if o.Seed == 0 {
		o.Seed = DefaultSeed
	}
	return o
}
