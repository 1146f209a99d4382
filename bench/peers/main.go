// Command peers runs complete near-duplicate detection pipelines built
// from the third-party Go libraries a user could pick instead of Doppel,
// on a JSONL corpus ({"id", "text"} lines, gzip allowed), and writes the
// pairs each detects in the format of doppel dedup --pairs ({"a", "b",
// "score"}, a before b in the corpus). It prints one JSON report line on
// stdout: documents/s and MB/s of text over the whole run (reading
// included), wall seconds per phase, peak heap and peak RSS.
//
// Pipelines:
//
//	minhash-lsh     MinHash signatures of the word 5-shingles of the corpus
//	                definition (dgryski/go-minhash MinWise, or
//	                ekzhu/minhash-lsh Minhash), an ekzhu/minhash-lsh index at
//	                the threshold for candidates, a candidate accepted when
//	                its estimated Jaccard reaches the threshold
//	simhash-bktree  mfonda/simhash 64-bit fingerprints, a
//	                go-dedup/simhash/sho BK-tree, pairs within Hamming
//	                distance k
//	floor           tokenize and hash every token, nothing else: MB/s only
//
// This is its own module so that Doppel's module needs none of these
// libraries; scripts/peers-compare.sh builds and runs it beside doppel
// dedup and scores every pair file with the kit's ndd score.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "peers:", err)
		os.Exit(1)
	}
}

// errUsage reports a command line that was not understood (already
// explained on stderr).
var errUsage = fmt.Errorf("usage")

func usage(w io.Writer) {
	fmt.Fprint(w, `usage: peers PIPELINE -in CORPUS.jsonl[.gz] [-pairs PAIRS.jsonl] [flags]

pipelines:
  minhash-lsh     MinHash(128) of word 5-shingles + ekzhu/minhash-lsh index,
                  pairs with estimated Jaccard >= -threshold
                  (-minhash dgryski: go-minhash MinWise; ekzhu: minhash-lsh Minhash)
  simhash-bktree  mfonda/simhash fingerprints + go-dedup/simhash/sho BK-tree,
                  pairs within Hamming distance -k
                  (-features words: the library's word features; shingles: 5-shingles)
  floor           tokenize + FNV-1a every token, nothing else (-workers 1 default)

'peers PIPELINE -h' lists a pipeline's flags.
`)
}

// run parses the command line and runs one pipeline.
func run(args []string, stdout, stderr io.Writer) error {
	start := time.Now()
	o, err := parseArgs(args, stderr)
	if err != nil {
		return err
	}
	stopSampler := sampleHeap(10 * time.Millisecond)
	t0 := time.Now()
	docs, textBytes, err := readCorpus(o.in)
	if err != nil {
		return err
	}
	rep := &report{
		Pipeline: o.name, Corpus: o.in, Docs: len(docs), TextMB: float64(textBytes) / 1e6,
		Phases: map[string]float64{"read": time.Since(t0).Seconds()},
		Go:     runtime.Version(), GOMAXPROCS: runtime.GOMAXPROCS(0), Date: time.Now().UTC().Format("2006-01-02"),
	}
	if o.workers <= 0 {
		o.workers = runtime.GOMAXPROCS(0)
		if o.name == "floor" {
			o.workers = 1
		}
	}
	rep.Workers = o.workers
	pairs := &pairList{max: o.maxPairs}
	if err := o.runPipeline(docs, pairs, rep); err != nil {
		return err
	}
	if o.name != "floor" {
		t := time.Now()
		rep.Pairs, rep.OverLimit = pairs.total, pairs.over()
		if o.pairsPath != "" && !pairs.over() {
			if err := writePairs(o.pairsPath, docs, pairs.kept); err != nil {
				return err
			}
		} else if o.pairsPath != "" {
			fmt.Fprintf(stderr, "peers: %d pairs, more than -max-pairs %d: no pair file written\n", pairs.total, o.maxPairs)
		}
		rep.Phases["write"] = time.Since(t).Seconds()
		rep.WallS = time.Since(start).Seconds()
		rep.DocsPerS = float64(len(docs)) / rep.WallS
		rep.MBPerS = rep.TextMB / rep.WallS
	}
	rep.PeakHeapMB = float64(stopSampler()) / 1e6
	rep.PeakRSSMB = float64(peakRSS()) / 1e6
	rep.round()
	b, err := json.Marshal(rep)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\n", b)
	return err
}

// options are a pipeline's name and flags.
type options struct {
	name                                  string
	in, pairsPath, mh, features, truthDef string
	truthPath                             string
	workers, perm, width, k, reps         int
	maxPairs                              int
	threshold, lshThreshold, truthT       float64
}

// parseArgs parses the command line: a pipeline's name and its flags.
func parseArgs(args []string, stderr io.Writer) (*options, error) {
	if len(args) < 1 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		return nil, errUsage
	}
	o := &options{name: args[0]}
	switch o.name {
	case "minhash-lsh", "simhash-bktree", "floor":
	default:
		fmt.Fprintf(stderr, "peers: unknown pipeline %q\n", o.name)
		usage(stderr)
		return nil, errUsage
	}
	fs := flag.NewFlagSet(o.name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.in, "in", "", "corpus JSONL (gzip allowed): {\"id\", \"text\"} lines (required)")
	fs.StringVar(&o.pairsPath, "pairs", "", "write the detected pairs {\"a\", \"b\", \"score\"} to this JSONL file")
	fs.IntVar(&o.workers, "workers", 0, "goroutines for signing and querying (0: GOMAXPROCS; floor: 1)")
	fs.Float64Var(&o.threshold, "threshold", 0.9, "minhash-lsh: estimated Jaccard at which a candidate is accepted")
	fs.Float64Var(&o.lshThreshold, "lsh-threshold", 0, "minhash-lsh: the threshold the index is built for, which chooses its bands (0: -threshold)")
	fs.IntVar(&o.perm, "perm", 128, "minhash-lsh: MinHash values a signature")
	fs.IntVar(&o.width, "shingle", 5, "word shingle width (minhash-lsh; simhash-bktree with -features shingles)")
	fs.StringVar(&o.mh, "minhash", "dgryski", "minhash-lsh: dgryski (go-minhash MinWise, FNV-1a h1, h2) or ekzhu (minhash-lsh Minhash)")
	fs.IntVar(&o.k, "k", 3, "simhash-bktree: largest Hamming distance of a pair")
	fs.StringVar(&o.features, "features", "words", "simhash-bktree: words (mfonda WordFeatureSet) or shingles (word shingles, mfonda Shingle)")
	fs.IntVar(&o.reps, "reps", 3, "floor: repetitions (median reported)")
	fs.IntVar(&o.maxPairs, "max-pairs", 5_000_000, "keep at most this many pairs; beyond it pairs are only counted and no pair file is written")
	fs.StringVar(&o.truthPath, "truth", "", "simhash-bktree: an ndd oracle pair file; the report then gives the exact precision and recall of all the pairs found, even beyond -max-pairs")
	fs.StringVar(&o.truthDef, "def", "jaccard", "with -truth: the truth definition, jaccard, cosine or either (as ndd score -def)")
	fs.Float64Var(&o.truthT, "t", 0.9, "with -truth: the truth threshold (as ndd score -t)")
	if err := fs.Parse(args[1:]); err != nil {
		return nil, errUsage
	}
	if o.in == "" {
		fmt.Fprintln(stderr, "peers: -in is required")
		return nil, errUsage
	}
	return o, nil
}

// runPipeline runs the pipeline over docs, collecting its pairs and
// filling in the report's figures.
func (o *options) runPipeline(docs []doc, pairs *pairList, rep *report) error {
	switch o.name {
	case "minhash-lsh":
		mo := minhashOptions{Perm: o.perm, Width: o.width, Threshold: o.threshold, LSHThreshold: o.lshThreshold, Hash: o.mh, Workers: o.workers}
		return runMinhashLSH(docs, mo, pairs, rep)
	case "simhash-bktree":
		so := simhashOptions{K: o.k, Features: o.features, Width: o.width, Workers: o.workers}
		fps, err := runSimhashBKTree(docs, so, pairs, rep)
		if err != nil || o.truthPath == "" {
			return err
		}
		t := time.Now()
		tr, err := readTruth(o.truthPath, docs, o.truthDef, o.truthT)
		if err != nil {
			return err
		}
		rep.Truth = scoreSimhash(tr, fps, o.k, pairs.total)
		rep.Truth.Def, rep.Truth.T = o.truthDef, o.truthT
		rep.Phases["truth"] = time.Since(t).Seconds()
	case "floor":
		runFloor(docs, o.workers, o.reps, rep)
	}
	return nil
}
