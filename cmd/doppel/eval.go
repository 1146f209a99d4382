package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/dedup/eval"
	"github.com/doppel-search/doppel/dedup/imatch"
	"github.com/doppel-search/doppel/internal/jsonl"
)

// evalSettings are doppel eval's flags.
type evalSettings struct {
	In        string  `json:"in" flag:"in" help:"documents, JSONL (gzip allowed), with optional \"group\" labels (required)"`
	Truth     string  `json:"truth" flag:"truth" help:"ground-truth pairs {\"a\",\"b\",\"jaccard\",\"cosine\"} (JSONL, gzip allowed); default: computed exactly from the documents"`
	Threshold float64 `json:"threshold" flag:"threshold" help:"similarity at which a ground-truth pair is a near-duplicate"`
	Tables    string  `json:"tables" flag:"tables" help:"comma-separated tables to print: methods, simhash, kolcz, protocol"`
	Workers   int     `json:"workers" flag:"workers" help:"documents signed in parallel (0: one per CPU)"`
}

// runEval measures every method against ground truth and prints Markdown
// tables: the ones in the README are this command's output.
func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	c := defineConfig(fs, evalSettings{Threshold: 0.9, Tables: "methods,simhash,kolcz,protocol"}, false)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: doppel eval --in docs.jsonl[.gz] [--truth pairs.jsonl[.gz]] [flags]")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	s, err := c.load(stderr)
	if err != nil {
		return err
	}
	if s.Workers < 1 {
		s.Workers = runtime.GOMAXPROCS(0)
	}
	if s.In == "" {
		fmt.Fprintln(stderr, "doppel eval: --in is required")
		usageHint(fs, stderr)
		return errUsage
	}
	tables, err := parseEvalTables(s.Tables)
	if err != nil {
		return err
	}
	recs, err := readDocs(s.In, stderr)
	if err != nil {
		return err
	}
	truth, err := loadOrComputeTruth(s.Truth, recs, stderr)
	if err != nil {
		return err
	}
	e := &evaluator{ctx: ctx, recs: recs, workers: s.Workers, stderr: stderr, runs: map[string]*evalRun{}}
	res := truth.Positives(eval.Resemblance, s.Threshold)
	cos := truth.Positives(eval.Cosine, s.Threshold)
	fmt.Fprintf(stdout, "Corpus %s: %d documents; ground truth at %.2f: %d resemblance pairs, %d cosine pairs.\n\n",
		s.In, len(recs), s.Threshold, len(res), len(cos))

	for _, t := range []struct {
		name  string
		print func() error
	}{
		{"methods", func() error { return e.printMethods(stdout, res, cos, s.Threshold) }},
		{"simhash", func() error { return e.printSimHash(stdout, res, s.Threshold) }},
		{"kolcz", func() error { return e.printKolcz(stdout, cos, s.Threshold) }},
		{"protocol", func() error { return e.printProtocol(stdout, truth) }},
	} {
		if !tables[t.name] {
			continue
		}
		if err := t.print(); err != nil {
			return err
		}
	}
	return nil
}

// parseEvalTables parses --tables: a comma-separated list of the tables
// to print.
func parseEvalTables(list string) (map[string]bool, error) {
	tables := map[string]bool{}
	for _, t := range strings.Split(list, ",") {
		switch t = strings.TrimSpace(t); t {
		case "methods", "simhash", "kolcz", "protocol":
			tables[t] = true
		default:
			return nil, fmt.Errorf("unknown table %q (want methods, simhash, kolcz or protocol)", t)
		}
	}
	return tables, nil
}

// printMethods prints the methods table: every method's pair-level
// precision and recall against the resemblance (res) and cosine (cos)
// positives.
func (e *evaluator) printMethods(stdout io.Writer, res, cos eval.PairSet, threshold float64) error {
	t := eval.Table{Header: []string{"method", "pairs", "P (res)", "R (res)", "F1 (res)", "P (cos)", "R (cos)", "F1 (cos)", "seconds"}}
	for _, c := range methodConfigs() {
		r, err := e.run(c)
		if err != nil {
			return err
		}
		sr, sc := eval.Score(r.pairs, res), eval.Score(r.pairs, cos)
		t.Rows = append(t.Rows, []string{c.name, fmt.Sprint(len(r.pairs)), f3(sr.Precision), f3(sr.Recall), f3(sr.F1),
			f3(sc.Precision), f3(sc.Recall), f3(sc.F1), fmt.Sprintf("%.1f", r.seconds)})
	}
	fmt.Fprintf(stdout, "Every method, pair-level precision/recall against resemblance (res) and cosine (cos) >= %.2f:\n\n%s\n", threshold, t.Markdown())
	return nil
}

// printSimHash prints the simhash table: SimHash at several Hamming
// distances against the resemblance positives (res), beside the published
// figures.
func (e *evaluator) printSimHash(stdout io.Writer, res eval.PairSet, threshold float64) error {
	published := map[int]string{1: "0.78 / 0.63", 3: "0.54 / 0.81", 5: "0.38 / 0.92"}
	t := eval.Table{Header: []string{"Hamming k", "pairs", "precision", "recall", "published P / R"}}
	for _, k := range []int{1, 3, 5} {
		c := evalConfig{name: fmt.Sprintf("simhash k=%d", k), opts: dedup.Options{Method: dedup.SimHash, HammingK: k}}
		r, err := e.run(c)
		if err != nil {
			return err
		}
		s := eval.Score(r.pairs, res)
		t.Rows = append(t.Rows, []string{fmt.Sprint(k), fmt.Sprint(len(r.pairs)), f3(s.Precision), f3(s.Recall), published[k]})
	}
	fmt.Fprintf(stdout, "SimHash (64-bit, tf-idf) against resemblance >= %.2f:\n\n%s\n", threshold, t.Markdown())
	return nil
}

// printKolcz prints the kolcz table: randomized I-Match with 0 to 10
// extra lexicons against the cosine positives (cos).
func (e *evaluator) printKolcz(stdout io.Writer, cos eval.PairSet, threshold float64) error {
	t := eval.Table{Header: []string{"extra lexicons", "pairs", "precision (cos)", "recall (cos)"}}
	for _, k := range []int{0, 1, 2, 5, 10} {
		c := evalConfig{name: fmt.Sprintf("imatch-multi K=%d", k), opts: dedup.Options{Method: dedup.IMatchMulti}}
		c.opts.IMatch.ExtraLexicons = k
		if k == 0 {
			c.opts.Method = dedup.IMatch
		}
		r, err := e.run(c)
		if err != nil {
			return err
		}
		s := eval.Score(r.pairs, cos)
		t.Rows = append(t.Rows, []string{fmt.Sprint(k), fmt.Sprint(len(r.pairs)), f3(s.Precision), f3(s.Recall)})
	}
	fmt.Fprintf(stdout, "Randomized I-Match lexicons (Kołcz et al. 2004, Table 1) against cosine >= %.2f:\n\n%s\n", threshold, t.Markdown())
	return nil
}

// printProtocol prints the protocol table: the I-Match protocol measures
// of each protocol configuration, online and star clustering, over the
// documents' groups.
func (e *evaluator) printProtocol(stdout io.Writer, truth *eval.Truth) error {
	groups := map[string]string{}
	for _, r := range e.recs {
		if r.Group != "" {
			groups[r.ID] = r.Group
		}
	}
	t := eval.Table{Header: []string{"configuration", "clustering", "mean found", "clusters per base", "false positives (base)", "false positives (all)"}}
	for _, c := range protocolConfigs() {
		r, err := e.run(c)
		if err != nil {
			return err
		}
		for _, cl := range []struct {
			name   string
			assign map[string]string
		}{{"online", r.online}, {"star", r.star}} {
			p := eval.MeasureProtocol(cl.assign, groups, truth)
			t.Rows = append(t.Rows, []string{c.name, cl.name, f3(p.MeanFound), fmt.Sprintf("%.2f", p.MeanClusters),
				fmt.Sprint(p.FalsePositives), fmt.Sprint(p.AllFalsePositives)})
		}
	}
	fmt.Fprintf(stdout, "I-Match protocol (Chowdhury et al. 2002, Tables III-IV) over the groups with 2+ documents (published I-Match: 90.0%% found, 3.3 clusters):\n\n%s\n", t.Markdown())
	return nil
}

// f3 formats x with three decimals.
func f3(x float64) string { return fmt.Sprintf("%.3f", x) }

// An evalConfig is one detector configuration to measure.
type evalConfig struct {
	name string
	opts dedup.Options
}

// methodConfigs are the configurations of the methods table.
func methodConfigs() []evalConfig {
	cosine := dedup.Options{Similarity: dedup.Cosine}
	return []evalConfig{
		{"hybrid (resemblance)", dedup.Options{}},
		{"hybrid (cosine)", cosine},
		{"simhash k=3", dedup.Options{Method: dedup.SimHash}},
		{"imatch", dedup.Options{Method: dedup.IMatch}},
		{"imatch-multi K=10", dedup.Options{Method: dedup.IMatchMulti}},
		{"minhash", dedup.Options{Method: dedup.MinHash}},
		{"dsc-ss", dedup.Options{Method: dedup.DSCSS}},
	}
}

// protocolConfigs are the configurations of the protocol table.
func protocolConfigs() []evalConfig {
	idf10 := dedup.Options{Method: dedup.IMatch}
	idf10.IMatch.Mode = imatch.IDFL10
	doc90 := dedup.Options{Method: dedup.IMatch}
	doc90.IMatch.Mode = imatch.DocL90
	return []evalConfig{
		{"imatch", dedup.Options{Method: dedup.IMatch}},
		{"imatch idf-l-10", idf10},
		{"imatch doc-l-90", doc90},
		{"imatch-multi K=10", dedup.Options{Method: dedup.IMatchMulti}},
		{"hybrid (resemblance)", dedup.Options{}},
		{"hybrid (cosine)", dedup.Options{Similarity: dedup.Cosine}},
	}
}

// An evalRun is the outcome of one configuration on the corpus.
type evalRun struct {
	pairs        eval.PairSet
	online, star map[string]string // document → cluster
	seconds      float64
}

// evaluator runs configurations on a corpus, each at most once.
type evaluator struct {
	ctx     context.Context
	recs    []jsonl.Record
	workers int
	stderr  io.Writer
	runs    map[string]*evalRun // by configuration name: each runs once
}

// run runs configuration c on the corpus, or returns its earlier run.
func (e *evaluator) run(c evalConfig) (*evalRun, error) {
	if r, ok := e.runs[c.name]; ok {
		return r, nil
	}
	start := time.Now()
	table, _, err := loadOrBuildTable(e.ctx, "", &c.opts, recordsOf(e.recs), e.workers)
	if err != nil {
		return nil, err
	}
	det, err := dedup.New(table, c.opts)
	if err != nil {
		return nil, err
	}
	r := &evalRun{pairs: eval.PairSet{}}
	err = det.AddSeq(e.ctx, documents(recordsOf(e.recs)), e.workers, func(res dedup.Result) error {
		for _, p := range res.Pairs {
			r.pairs.Add(p.A, p.B)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.seconds = time.Since(start).Seconds()
	r.online, r.star = assignMap(det.Assignments()), assignMap(det.StarAssignments())
	fmt.Fprintf(e.stderr, "eval: %-22s %7d pairs, %5.1f s\n", c.name, len(r.pairs), r.seconds)
	e.runs[c.name] = r
	return r, nil
}

// assignMap maps each document of as to its cluster.
func assignMap(as []dedup.Assignment) map[string]string {
	m := make(map[string]string, len(as))
	for _, a := range as {
		m[a.ID] = string(a.Cluster)
	}
	return m
}

// loadOrComputeTruth returns the ground truth: loaded from path, or
// computed exactly from recs.
func loadOrComputeTruth(path string, recs []jsonl.Record, stderr io.Writer) (*eval.Truth, error) {
	if path != "" {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		t, err := eval.LoadPairs(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return t, nil
	}
	docs := make([]eval.Doc, len(recs))
	for i, r := range recs {
		docs[i] = eval.Doc{ID: r.ID, Text: r.Text}
	}
	start := time.Now()
	t, err := eval.ComputeTruth(docs, 0.8, nil)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "eval: exact ground truth (all pairs with resemblance or cosine >= 0.8): %d pairs in %.1f s\n", t.Len(), time.Since(start).Seconds())
	return t, nil
}
