package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/dedup/cluster"
	"github.com/doppel-search/doppel/dedup/imatch"
	"github.com/doppel-search/doppel/dedup/stats"
)

// detectorFlags registers the flags that configure a dedup.Detector and
// returns a function that builds the Options once flags are parsed.
func detectorFlags(fs *flag.FlagSet) func() (dedup.Options, error) {
	method := fs.String("method", "hybrid", "algorithm: hybrid, simhash, imatch, imatch-multi, minhash or dsc-ss")
	similarity := fs.String("similarity", "resemblance", "similarity that hybrid verifies: resemblance (word shingles) or cosine (word sets)")
	threshold := fs.Float64("threshold", 0.9, "similarity at or above which documents are near-duplicates (hybrid, minhash)")
	shingle := fs.Int("shingle", 5, "shingle width in words")
	edits := fs.Int("edit-allowance", 0, "hybrid with resemblance: also accept pairs below --threshold that differ by at most this many small edits (short pages); the crawl uses 3")
	editFloor := fs.Float64("edit-floor", 0.8, "the lowest resemblance --edit-allowance accepts")
	hammingK := fs.Int("hamming-k", 3, "largest Hamming distance between SimHash near-duplicates (simhash) or candidates (hybrid)")
	lexicons := fs.Int("lexicons", 0, "extra randomized I-Match lexicons (imatch-multi, hybrid); 0: the method's default, 10 for imatch-multi, 2 for hybrid")
	mode := fs.String("imatch-lexicon", "range", "I-Match lexicon: range (nidf in [--nidf-min, --nidf-max]), idf-l-10 or doc-l-90")
	nidfMin := fs.Float64("nidf-min", 0.2, "lower normalized-idf bound of the I-Match lexicon")
	nidfMax := fs.Float64("nidf-max", 0.8, "upper normalized-idf bound of the I-Match lexicon")
	minTerms := fs.Int("imatch-min-terms", 0, "fewest lexicon terms an I-Match signature needs (0: the imatch default)")
	sketch := fs.Int("sketch", 128, "MinHash sketch size")
	candidates := fs.String("candidates", "auto", "hybrid's candidate sources: lsh (MinHash LSH alone: no statistics pass, about twice as fast; a pair at resemblance 0.9 is a candidate with probability 0.99987), all (also SimHash and I-Match: more pairs below --threshold for --edit-allowance), or auto (lsh without --edit-allowance, all with it)")
	stop := fs.Bool("stopwords", false, "drop English stop words before comparing")
	stem := fs.Bool("stem", false, "Porter2-stem words before comparing")
	numbers := fs.Bool("strip-numbers", false, "drop number tokens (digits only, not identifiers such as x509) before comparing (templated pages that differ by numbers)")
	dates := fs.Bool("strip-dates", false, "drop month and weekday names before comparing (with --strip-numbers: dates)")
	ngrams := fs.String("ngrams", "1", "comma-separated word n-gram sizes for I-Match and SimHash terms, e.g. 1 or 3,5")
	master := fs.String("master", "first", "master policy: first, shortest-url, recent, quality or newest")
	maxShingleDocs := fs.Int("max-shingle-docs", 0, "drop shingles found in more than this many documents (boilerplate) before comparing; 0: keep all")
	maxFanout := fs.Int("max-fanout", dedup.DefaultMaxFanout, "most documents of one cluster kept under one signature and verified per document; signatures shared by more than 4× this many documents are ignored (-1: unbounded, quadratic on many copies)")
	simLow := fs.Float64("simhash-low", 0, "SimHash: drop terms lighter than this fraction of the document's heaviest term")
	simHigh := fs.Float64("simhash-high", 1, "SimHash: drop terms heavier than this fraction of the document's heaviest term")
	setsDir := fs.String("sets-dir", "", "keep the verification sets (hybrid, exact) in a temporary file in this `directory` from the first document (about 2 KB a document less memory, a read per candidate); mem: all in memory; default: in memory up to 64 MiB of sets, then in a temporary file in $TMPDIR")
	return func() (dedup.Options, error) {
		var o dedup.Options
		var err error
		if o.SetsDir = *setsDir; o.SetsDir == "mem" {
			o.SetsDir, o.SetsMemory = "", -1
		}
		if o.Method, err = dedup.ParseMethod(*method); err != nil {
			return o, err
		}
		if o.Similarity, err = dedup.ParseSimilarity(*similarity); err != nil {
			return o, err
		}
		if o.Master, err = cluster.ParsePolicy(*master); err != nil {
			return o, err
		}
		if o.IMatch.Mode, err = parseLexiconMode(*mode); err != nil {
			return o, err
		}
		o.Threshold, o.ShingleWidth, o.HammingK = *threshold, *shingle, *hammingK
		o.EditAllowance, o.EditFloor = *edits, *editFloor
		o.IMatch.ExtraLexicons, o.IMatch.MinNIDF, o.IMatch.MaxNIDF, o.IMatch.MinTerms = *lexicons, *nidfMin, *nidfMax, *minTerms
		o.MinHash.Size = *sketch
		switch *candidates {
		case "lsh", "all", "auto":
			o.LSHOnly = *candidates == "lsh" || *candidates == "auto" && *edits == 0
		default:
			return o, fmt.Errorf("--candidates: %q is not lsh, all or auto", *candidates)
		}
		o.MaxShingleDocs = *maxShingleDocs
		o.MaxFanout = *maxFanout
		o.SimHash.LowWeight, o.SimHash.HighWeight = *simLow, *simHigh
		o.Terms.StopWords, o.Terms.Stem, o.Terms.StripNumbers, o.Terms.StripDates = *stop, *stem, *numbers, *dates
		for _, f := range strings.Split(*ngrams, ",") {
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
