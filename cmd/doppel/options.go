package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/dedup/cluster"
	"github.com/doppel-search/doppel/dedup/imatch"
	"github.com/doppel-search/doppel/dedup/stats"
)

// detectorSettings are the settings of a dedup.Detector that doppel
// dedup's flags and configuration file give (detector converts them).
type detectorSettings struct {
	Method         string           `json:"method" flag:"method" help:"algorithm: hybrid, simhash, imatch, imatch-multi, minhash or dsc-ss"`
	Similarity     dedup.Similarity `json:"similarity" choices:"resemblance cosine" flag:"similarity" help:"similarity that hybrid verifies: resemblance (word shingles) or cosine (word sets)"`
	Threshold      float64          `json:"threshold" flag:"threshold" help:"similarity at or above which documents are near-duplicates (hybrid, minhash)"`
	Shingle        int              `json:"shingle" flag:"shingle" help:"shingle width in words"`
	EditAllowance  int              `json:"edit_allowance" flag:"edit-allowance" help:"hybrid with resemblance: also accept pairs below --threshold that differ by at most this many small edits (short pages); the crawl uses 3"`
	EditFloor      float64          `json:"edit_floor" flag:"edit-floor" help:"the lowest resemblance --edit-allowance accepts"`
	HammingK       int              `json:"hamming_k" flag:"hamming-k" help:"largest Hamming distance between SimHash near-duplicates (simhash) or candidates (hybrid)"`
	Lexicons       int              `json:"lexicons" flag:"lexicons" help:"extra randomized I-Match lexicons (imatch-multi, hybrid); 0: the method's default, 10 for imatch-multi, 2 for hybrid"`
	IMatchLexicon  string           `json:"imatch_lexicon" flag:"imatch-lexicon" help:"I-Match lexicon: range (nidf in [--nidf-min, --nidf-max]), idf-l-10 or doc-l-90"`
	NIDFMin        float64          `json:"nidf_min" flag:"nidf-min" help:"lower normalized-idf bound of the I-Match lexicon"`
	NIDFMax        float64          `json:"nidf_max" flag:"nidf-max" help:"upper normalized-idf bound of the I-Match lexicon"`
	IMatchMinTerms int              `json:"imatch_min_terms" flag:"imatch-min-terms" help:"fewest lexicon terms an I-Match signature needs (0: the imatch default)"`
	Sketch         int              `json:"sketch" flag:"sketch" help:"MinHash sketch size"`
	Candidates     string           `json:"candidates" flag:"candidates" help:"hybrid's candidate sources: lsh (MinHash LSH alone: no statistics pass, about twice as fast; a pair at resemblance 0.9 is a candidate with probability 0.99987), all (also SimHash and I-Match: more pairs below --threshold for --edit-allowance), or auto (lsh without --edit-allowance, all with it)"`
	StopWords      bool             `json:"stopwords" flag:"stopwords" help:"drop English stop words before comparing"`
	Stem           bool             `json:"stem" flag:"stem" help:"Porter2-stem words before comparing"`
	StripNumbers   bool             `json:"strip_numbers" flag:"strip-numbers" help:"drop number tokens (digits only, not identifiers such as x509) before comparing (templated pages that differ by numbers)"`
	StripDates     bool             `json:"strip_dates" flag:"strip-dates" help:"drop month and weekday names before comparing (with --strip-numbers: dates)"`
	NGrams         string           `json:"ngrams" flag:"ngrams" help:"comma-separated word n-gram sizes for I-Match and SimHash terms, e.g. 1 or 3,5"`
	Master         string           `json:"master" flag:"master" help:"master policy: first, shortest-url, recent, quality or newest"`
	MaxShingleDocs int              `json:"max_shingle_docs" flag:"max-shingle-docs" help:"drop shingles found in more than this many documents (boilerplate) before comparing; 0: keep all"`
	MaxFanout      int              `json:"max_fanout" flag:"max-fanout" help:"most documents of one cluster kept under one signature and verified per document; signatures shared by more than 4× this many documents are ignored (-1: unbounded, quadratic on many copies)"`
	SimHashLow     float64          `json:"simhash_low" flag:"simhash-low" help:"SimHash: drop terms lighter than this fraction of the document's heaviest term"`
	SimHashHigh    float64          `json:"simhash_high" flag:"simhash-high" help:"SimHash: drop terms heavier than this fraction of the document's heaviest term"`
	SetsDir        string           `json:"sets_dir" flag:"sets-dir" help:"keep the verification sets (hybrid, exact) in a temporary file in this {directory} from the first document (about 2 KB a document less memory, a read per candidate); mem: all in memory; default: in memory up to 64 MiB of sets, then in a temporary file in $TMPDIR"`
}

// detectorDefaults returns the detector settings' defaults.
func detectorDefaults() detectorSettings {
	return detectorSettings{Method: "hybrid", Threshold: 0.9, Shingle: 5, EditFloor: 0.8, HammingK: 3, IMatchLexicon: "range",
		NIDFMin: 0.2, NIDFMax: 0.8, Sketch: 128, Candidates: "auto", NGrams: "1", Master: "first",
		MaxFanout: dedup.DefaultMaxFanout, SimHashHigh: 1}
}

// detector returns the dedup.Options the settings give, validated.
func (s detectorSettings) detector() (dedup.Options, error) {
	o := dedup.Options{Similarity: s.Similarity, Threshold: s.Threshold, ShingleWidth: s.Shingle, HammingK: s.HammingK,
		EditAllowance: s.EditAllowance, EditFloor: s.EditFloor, MaxShingleDocs: s.MaxShingleDocs, MaxFanout: s.MaxFanout}
	var err error
	if o.SetsDir = s.SetsDir; o.SetsDir == "mem" {
		o.SetsDir, o.SetsMemory = "", -1
	}
	if o.Method, err = dedup.ParseMethod(s.Method); err != nil {
		return o, err
	}
	if o.Master, err = cluster.ParsePolicy(s.Master); err != nil {
		return o, err
	}
	if o.IMatch.Mode, err = parseLexiconMode(s.IMatchLexicon); err != nil {
		return o, err
	}
	o.IMatch.ExtraLexicons, o.IMatch.MinNIDF, o.IMatch.MaxNIDF, o.IMatch.MinTerms = s.Lexicons, s.NIDFMin, s.NIDFMax, s.IMatchMinTerms
	o.MinHash.Size = s.Sketch
	switch s.Candidates {
	case "lsh", "all", "auto":
		o.LSHOnly = s.Candidates == "lsh" || s.Candidates == "auto" && s.EditAllowance == 0
	default:
		return o, fmt.Errorf("--candidates: %q is not lsh, all or auto", s.Candidates)
	}
	o.SimHash.LowWeight, o.SimHash.HighWeight = s.SimHashLow, s.SimHashHigh
	o.Terms.StopWords, o.Terms.Stem, o.Terms.StripNumbers, o.Terms.StripDates = s.StopWords, s.Stem, s.StripNumbers, s.StripDates
	for _, f := range strings.Split(s.NGrams, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return o, fmt.Errorf("--ngrams: %q is not a number", f)
		}
		o.Terms.NGrams = append(o.Terms.NGrams, n)
	}
	check := o
	if o.MaxShingleDocs > 0 {
		check.CommonShingles = new(stats.Table) // built from the input later
	}
	return o, check.Validate()
}

func parseLexiconMode(s string) (imatch.Mode, error) {
	switch s {
	case "range":
		return imatch.Range, nil
	case "idf-l-10":
		return imatch.IDFL10, nil
	case "doc-l-90":
		return imatch.DocL90, nil
	}
	return 0, fmt.Errorf("unknown I-Match lexicon %q (want range, idf-l-10 or doc-l-90)", s)
}
