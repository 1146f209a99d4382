package dedup

import (
	"errors"
	"fmt"
	"strings"

	"github.com/doppel-search/doppel/dedup/cluster"
	"github.com/doppel-search/doppel/dedup/features"
	"github.com/doppel-search/doppel/dedup/imatch"
	"github.com/doppel-search/doppel/dedup/minhash"
	"github.com/doppel-search/doppel/dedup/signatures"
	"github.com/doppel-search/doppel/dedup/simhash"
	"github.com/doppel-search/doppel/dedup/stats"
)

// A Method is a near-duplicate detection algorithm.
type Method int

// The methods. Hybrid is the default.
const (
	// Hybrid takes candidates from SimHash, multi-lexicon I-Match and
	// MinHash LSH, and accepts a candidate only if its exact similarity
	// reaches the threshold.
	Hybrid Method = iota
	// SimHash: near-duplicates are within Hamming distance HammingK
	// (Charikar 2002; Manku et al. 2007).
	SimHash
	// IMatch: near-duplicates have the same I-Match signature
	// (Chowdhury et al. 2002).
	IMatch
	// IMatchMulti: near-duplicates share at least one of K+1 I-Match
	// signatures from randomized lexicons (Kołcz et al. 2004).
	IMatchMulti
	// MinHash: near-duplicates have an estimated resemblance of at least
	// the threshold, found through LSH bands (Broder et al. 1997).
	MinHash
	// DSCSS: near-duplicates share at least 2 of 6 super shingles of 84
	// MinHash values (Broder's DSC-SS; Fetterly et al. 2003).
	DSCSS
)

var methodNames = []string{"hybrid", "simhash", "imatch", "imatch-multi", "minhash", "dsc-ss"}

// Methods lists every method, Hybrid first.
func Methods() []Method { return []Method{Hybrid, SimHash, IMatch, IMatchMulti, MinHash, DSCSS} }

// String returns the method's flag name (hybrid, simhash, imatch,
// imatch-multi, minhash, dsc-ss).
func (m Method) String() string {
	if m < 0 || int(m) >= len(methodNames) {
		return fmt.Sprintf("Method(%d)", int(m))
	}
	return methodNames[m]
}

// ParseMethod parses a method's flag name.
func ParseMethod(s string) (Method, error) {
	for i, n := range methodNames {
		if s == n {
			return Method(i), nil
		}
	}
	return 0, fmt.Errorf("dedup: unknown method %q (want one of %s)", s, strings.Join(methodNames, ", "))
}

// A Similarity is the measure that decides whether two documents are near
// duplicates.
type Similarity int

// The similarities.
const (
	// Resemblance is the Jaccard coefficient of the sets of word
	// w-shingles (Broder). Default.
	Resemblance Similarity = iota
	// Cosine is the cosine of the sets of words of at least 4 characters
	// with at most one digit (Kołcz et al.); robust to scattered word edits.
	// Documents with fewer than features.MinCosineWords such words are
	// duplicates only of documents with exactly the same words.
	Cosine
)

// String returns "resemblance" or "cosine".
func (s Similarity) String() string {
	if s == Cosine {
		return "cosine"
	}
	return "resemblance"
}

// MarshalText implements encoding.TextMarshaler: "resemblance" or
// "cosine", so configuration files name the similarity.
func (s Similarity) MarshalText() ([]byte, error) {
	if s != Resemblance && s != Cosine {
		return nil, fmt.Errorf("dedup: unknown similarity %d", int(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler with ParseSimilarity.
func (s *Similarity) UnmarshalText(text []byte) error {
	v, err := ParseSimilarity(string(text))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// ParseSimilarity parses "resemblance" or "cosine".
func ParseSimilarity(s string) (Similarity, error) {
	switch s {
	case "resemblance":
		return Resemblance, nil
	case "cosine":
		return Cosine, nil
	}
	return 0, fmt.Errorf("dedup: unknown similarity %q (want resemblance or cosine)", s)
}

// Verification says how Hybrid checks a candidate pair.
type Verification int

// The verifications.
const (
	// Exact computes the similarity from the stored feature sets
	// (default; costs 8 bytes per distinct shingle of every stored
	// document).
	Exact Verification = iota
	// Estimate uses the MinHash estimate (stores only the sketch).
	Estimate
)

// Options configures a [Detector]. The zero value gives the defaults
// documented on each field.
type Options struct {
	// SetsDir, if set, keeps the documents' verification sets (exact
	// verification of the hybrid: a sorted shingle set, 8 bytes a
	// shingle) in an unlinked file in this directory instead of memory,
	// reading each only to verify a candidate: about 2 KB a document of
	// 1.5 KB of text less memory, for a read per candidate. Default "":
	// in memory.
	SetsDir string
	// SetsFile, if set, keeps the verification sets as SetsDir does but in
	// this file, kept after the process ends: a new Detector empties it,
	// one read from a snapshot ([ReadSnapshot]) reuses what the snapshot
	// covers. Not with SetsDir. Default "".
	SetsFile string
	// SetsMemory bounds the verification sets a Detector with neither
	// SetsDir nor SetsFile keeps in memory: once those it has kept pass
	// this many bytes, it moves them, and every later one, to an unlinked
	// file in os.TempDir() (as SetsDir does: the file goes with the
	// process, however it ends), so that a large collection costs no
	// more memory than a small one's sets. Default 0: DefaultSetsMemory;
	// negative: no bound, every set in memory.
	SetsMemory int64
	// Method is the algorithm. Default Hybrid.
	Method Method
	// LSHOnly makes the Hybrid take its candidates from MinHash LSH alone,
	// without SimHash and I-Match: no statistics table is needed (a
	// document is signed in one pass, about half the work) and a pair at
	// resemblance J is still a candidate with probability 1−(1−J^Rows)^Bands
	// (0.99987 at J = 0.9 with 16 × 8 bands), but pairs below the
	// Threshold that the edit allowance accepts are found less often and
	// Result.Simhash is 0. Default false: all three sources.
	LSHOnly bool
	// Similarity is the measure Hybrid verifies with and that MinHash
	// sketches approximate. Default Resemblance.
	Similarity Similarity
	// Threshold is the similarity at or above which two documents are near
	// duplicates (Hybrid and MinHash). Default 0.9.
	Threshold float64
	// EditAllowance, when positive, also accepts a Hybrid pair verified
	// by Resemblance whose resemblance is below Threshold, if its shingle
	// sets differ by at most EditAllowance small edits (one edit changes at
	// most ShingleWidth shingles on each side, so EditAllowance ·
	// 2 · ShingleWidth shingles in all) and its resemblance is still at
	// least EditFloor. On a page of 100 words a print banner and a changed
	// title cost a fifth of the shingles, while on a long page the same
	// edits are far below 1 − Threshold: this keeps short copies with a few
	// edits together without lowering the bar for long pages, where a
	// template filled with another name stays distinct. It needs Exact
	// verification. Default 0: resemblance alone.
	EditAllowance int
	// EditFloor is the lowest resemblance EditAllowance accepts. Default
	// 0.8.
	EditFloor float64
	// Containment, when positive, also accepts a Hybrid pair verified by
	// Resemblance whose resemblance is below Threshold if one of the two
	// is an extracted document (Document.Extracted) and the pair are
	// twins by Broder's containment: the share of each one's shingles
	// found in the other is at least Containment, and of one of them at
	// least Threshold. A PDF holds the text of the page it was made from
	// plus what its layout adds, and the page its navigation; what is
	// left of that after extraction (crawler/extract) costs a share of
	// the shingles each way. A document mostly contained in a larger one
	// whose rest it lacks (a chapter and the book that holds it) is not
	// accepted. The pair's score is then the larger containment. It needs
	// Exact verification. Pairs of two pages (neither Extracted) are
	// never judged by it. Default 0: resemblance alone.
	Containment float64
	// Verify is how Hybrid verifies candidates. Default Exact.
	Verify Verification
	// ShingleWidth is w for word w-shingles. Default 5.
	ShingleWidth int
	// Terms filters the tokens of every document (stop words, stemming,
	// numbers, dates) before anything is compared, and sets the word
	// n-grams that I-Match lexicons and SimHash weights are built from.
	// Default: plain tokens and unigrams, which is the similarity definition
	// of the shared evaluation corpus. The statistics table must be built
	// with the same options (see [NewTableBuilder]).
	Terms features.Options
	// IMatch configures I-Match. IMatch.ExtraLexicons defaults to 10
	// for IMatchMulti and to 2 for Hybrid, where LSH bands find the
	// candidates extra lexicons would (2 and 10 give the same clusters
	// and pairs on every corpus measured, docs/measurements.md) and each
	// lexicon costs a candidate key a document; for IMatch it is forced
	// to 0.
	IMatch imatch.Options
	// MinHash configures the MinHash sketches. Default size 128, seed 1;
	// DSCSS always uses 84 values.
	MinHash minhash.Options
	// Bands and Rows lay out LSH over the sketch: Bands × Rows values must
	// not exceed the sketch size. Defaults: 16 × 8 for Resemblance,
	// 32 × 4 for Cosine (word sets of cosine 0.9 have a lower Jaccard).
	Bands, Rows int
	// SimHash configures SimHash weighting.
	SimHash simhash.Options
	// HammingK is the largest Hamming distance between near-duplicate
	// SimHash fingerprints (SimHash method), or between candidates
	// (Hybrid). Default 3 (Manku et al.).
	HammingK int
	// Master chooses each cluster's master. Default cluster.FirstSeen.
	Master cluster.Policy
	// MaxShingleDocs, when positive, drops every shingle that occurs in
	// more than MaxShingleDocs documents of CommonShingles before
	// sketching and verifying (Broder et al.'s filter for shingles that
	// come from boilerplate, not content), so that pages sharing only a
	// big template are not near-duplicates. It applies to the Resemblance
	// similarity; a document made only of common shingles keeps them all.
	// Default 0: off.
	MaxShingleDocs int
	// CommonShingles holds the shingle document frequencies for
	// MaxShingleDocs (see [TableBuilder.ShingleTable]). Required when
	// MaxShingleDocs > 0.
	CommonShingles *stats.Table
	// MaxFanout bounds the work one document costs when many earlier
	// documents share its signatures — exact copies of one page, pages of
	// one template that differ only by numbers — so that detection time
	// stays linear in the number of documents:
	//
	//   - the candidate list of every signature (an I-Match signature, an
	//     LSH band, a super shingle, a SimHash fingerprint, the hash of a
	//     whole MinHash sketch) keeps at most MaxFanout documents of one
	//     cluster, the first to arrive;
	//   - a list that would hold more than 4·MaxFanout documents is dropped
	//     and its signature ignored from then on: shared by that many
	//     different clusters, it says little (the document's other
	//     signatures still find its real near-duplicates, and exact copies
	//     share the list of their whole sketch, which little else shares);
	//   - a SimHash query reads the lists of the nearest other fingerprints
	//     until they have shown documents of 4·MaxFanout clusters, and a new
	//     fingerprint with more than 4·MaxFanout others within HammingK
	//     stays out of the Hamming index (its copies still find it);
	//   - each cluster with a candidate has its master verified, then at
	//     most MaxFanout of its candidate members (for Result.Pairs).
	//
	// Default [DefaultMaxFanout] (256): no limit is reached on the shared
	// evaluation corpus, whose results are those of the unbounded search.
	// Negative: unbounded, every earlier document sharing a signature is
	// verified (quadratic time on many copies of one page).
	MaxFanout int
}

// Web returns the near-duplicate settings for web pages, the ones Doppel's
// crawler uses: a page is a copy of another when their main contents are
// the same up to small edits — resemblance of word 5-shingles of at least
// 0.9, or, on short pages where three small edits (a print banner, a
// changed title, an inserted word) already cost a fifth of the shingles,
// at least 0.8 with no more than three edits' worth of differing shingles
// (EditAllowance). Dates are dropped first — month and weekday names, the
// numbers written with them, numeric dates (features.Options.StripDates)
// — so templated pages that differ by a date are copies; other numbers
// stay (x86 and x86_64 builds of one API page are different pages). A
// document (PDF, DOCX, …: Document.Extracted) and a page, or two
// documents, are also copies when each holds at least 0.85 of the other's
// shingles and one at least 0.9 (Containment): the text and its format's
// furniture — but not a chapter and the book that holds it. The
// master is the newest document (cluster.Newest, on Document.Time): of a
// series — monthly notices that are copies but for their date — the issue
// whose title names the latest date; between documents of one date or
// none, as true copies are, the shortest URL (on Document.URL; among
// documents without a URL the first seen stays master).
//
// The zero Options are the definition of the shared evaluation corpus
// (plain tokens, resemblance 0.9 alone, first seen is master), which
// finds short copies with a few edits less often. On 1,000 texts of 150
// to 600 words with 252 planted copies of one to three small edits (a
// date, a banner, a word inserted or replaced; TestWebPlanted, three
// seeds) Web finds all 252 with no false pair, the zero Options 241 to
// 247; on texts of 80 to 400 words Web finds 247 to 249 and the zero
// Options 205 to 225. Below about 140 words, three edits in the middle
// of a text take it under EditFloor: Web does not call it a copy.
//
// Pages that share their vocabulary but not their text — API reference
// pages of one template, class pages with the same inherited-member lists
// — are not copies under this rule, which is why it does not use
// bag-of-words cosine: set Similarity to Cosine for sites whose copies
// carry spam-like scattered word edits, at the price of joining such
// pages.
func Web() Options {
	return Options{
		Terms:         features.Options{StripDates: true},
		Similarity:    Resemblance,
		EditAllowance: 3,
		Containment:   0.85,
		Master:        cluster.Newest,
	}
}

// DefaultMaxFanout is the default of Options.MaxFanout.
const DefaultMaxFanout = 256

// DefaultSetsMemory is the default of Options.SetsMemory: 64 MiB, the
// sets of about 30,000 documents of 1.5 KB of text.
const DefaultSetsMemory = 64 << 20

// SharedConfig returns what the shared signatures of Detectors made with
// NewShared under o must be opened with (redissig.Open's limits and
// HammingK), o's defaults filled in.
func (o Options) SharedConfig() signatures.SharedConfig {
	o.EnsureDefaults()
	return signatures.SharedConfig{Limits: o.fanoutLimits(), HammingK: o.HammingK}
}

// fanoutLimits returns the posting-list limits for o.MaxFanout (defaults
// filled in): none when it is negative.
func (o *Options) fanoutLimits() signatures.Limits {
	if o.MaxFanout < 0 {
		return signatures.Limits{}
	}
	return signatures.Limits{PerGroup: o.MaxFanout, MaxLen: 4 * o.MaxFanout}
}

// EnsureDefaults sets every zero field to its default (each field's doc
// says which) and returns o.
func (o *Options) EnsureDefaults() *Options {
	if o.Threshold == 0 {
		o.Threshold = 0.9
	}
	if o.ShingleWidth == 0 {
		o.ShingleWidth = features.DefaultShingleWidth
	}
	if o.MinHash.Size == 0 {
		o.MinHash.Size = 128
	}
	if o.Method == DSCSS {
		o.MinHash.Size = 84
	}
	if o.Bands == 0 && o.Rows == 0 {
		o.Bands, o.Rows = 16, 8
		if o.Similarity == Cosine {
			o.Bands, o.Rows = 32, 4
		}
	}
	if o.HammingK == 0 {
		o.HammingK = 3
	}
	if o.EditFloor == 0 {
		o.EditFloor = 0.8
	}
	if o.MaxFanout == 0 {
		o.MaxFanout = DefaultMaxFanout
	}
	if o.SetsMemory == 0 {
		o.SetsMemory = DefaultSetsMemory
	}
	switch o.Method {
	case IMatch:
		o.IMatch.ExtraLexicons = 0
	case IMatchMulti:
		if o.IMatch.ExtraLexicons == 0 {
			o.IMatch.ExtraLexicons = 10
		}
	case Hybrid:
		if o.IMatch.ExtraLexicons == 0 {
			o.IMatch.ExtraLexicons = 2
		}
	}
	return o
}

// Validate reports every invalid option of o with its defaults filled in
// (o itself is not changed).
func (o Options) Validate() error {
	c := *o.EnsureDefaults()
	errs := c.signingErrs()
	errs = append(errs, c.acceptanceErrs()...)
	errs = append(errs, c.indexErrs()...)
	if err := c.Terms.Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// signingErrs reports the invalid options of how documents are signed
// and paired: the method, the threshold, the shingle width and the LSH
// bands.
func (o Options) signingErrs() []error {
	var errs []error
	if o.Method < Hybrid || o.Method > DSCSS {
		errs = append(errs, fmt.Errorf("dedup: unknown method %d", o.Method))
	}
	if o.Threshold <= 0 || o.Threshold > 1 {
		errs = append(errs, fmt.Errorf("dedup: threshold %v not in (0, 1]", o.Threshold))
	}
	if o.ShingleWidth < 1 {
		errs = append(errs, fmt.Errorf("dedup: shingle width %d < 1", o.ShingleWidth))
	}
	if o.Method != DSCSS && (o.Bands < 1 || o.Rows < 1 || o.Bands*o.Rows > o.MinHash.Size) {
		errs = append(errs, fmt.Errorf("dedup: %d bands × %d rows do not fit a sketch of %d", o.Bands, o.Rows, o.MinHash.Size))
	}
	return errs
}

// acceptanceErrs reports the invalid options of which verified pairs
// are accepted below the threshold: the edit allowance, its floor and
// containment.
func (o Options) acceptanceErrs() []error {
	var errs []error
	if o.EditAllowance < 0 {
		errs = append(errs, fmt.Errorf("dedup: negative edit allowance %d", o.EditAllowance))
	}
	if o.Containment < 0 || o.Containment > 1 {
		errs = append(errs, fmt.Errorf("dedup: containment %v not in [0, 1]", o.Containment))
	}
	if o.EditFloor <= 0 || o.EditFloor > 1 {
		errs = append(errs, fmt.Errorf("dedup: edit floor %v not in (0, 1]", o.EditFloor))
	}
	return errs
}

// indexErrs reports the invalid options of the indexes and stores: the
// Hamming index's distance, common shingles dropped without their table,
// and verification sets both in a directory and in a file.
func (o Options) indexErrs() []error {
	var errs []error
	if o.HammingK < 0 || o.HammingK > 16 {
		errs = append(errs, fmt.Errorf("dedup: Hamming k %d not in [0, 16]", o.HammingK))
	}
	if o.MaxShingleDocs < 0 || o.MaxShingleDocs > 0 && o.CommonShingles == nil {
		errs = append(errs, fmt.Errorf("dedup: MaxShingleDocs %d needs a CommonShingles table", o.MaxShingleDocs))
	}
	if o.SetsDir != "" && o.SetsFile != "" {
		errs = append(errs, errors.New("dedup: SetsDir and SetsFile both set"))
	}
	return errs
}
