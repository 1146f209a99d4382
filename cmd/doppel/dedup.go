package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/dedup/stats"
	"github.com/doppel-search/doppel/internal/jsonl"
)

// clusterLine and pairLine are the output contract of doppel dedup.
type clusterLine struct {
	ID      string `json:"id"`
	Cluster string `json:"cluster"`
	Master  string `json:"master"`
}

type pairLine struct {
	A     string  `json:"a"`
	B     string  `json:"b"`
	Score float64 `json:"score"`
}

func runDedup(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("dedup", flag.ContinueOnError)
	in := fs.String("in", "", "input documents, JSONL (gzip allowed): {\"id\", \"text\"[, \"url\", \"title\", \"group\"]} (required)")
	out := fs.String("out", "", "output clusters, JSONL: one {\"id\", \"cluster\", \"master\"} per input document, in input order (required)")
	pairsPath := fs.String("pairs", "", "also write every detected near-duplicate pair {\"a\", \"b\", \"score\"} to this JSONL file")
	statsIn := fs.String("stats", "", "load collection statistics from this file instead of computing them from the input")
	statsOut := fs.String("save-stats", "", "save the collection statistics used to this file")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "documents signed in parallel")
	quiet := fs.Bool("quiet", false, "no progress lines (the summary is still printed)")
	clustering := fs.String("clustering", "online", "online (each document joins a cluster on arrival, by similarity to its master) or star (batch: documents with the most near-duplicates become masters)")
	options := detectorFlags(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: doppel dedup --in docs.jsonl[.gz] --out clusters.jsonl [--pairs pairs.jsonl] [flags]")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if *in == "" || *out == "" {
		fmt.Fprintln(stderr, "doppel dedup: --in and --out are required")
		fs.Usage()
		return errUsage
	}
	if err := checkOutputs([]namedPath{{"--in", *in}, {"--stats", *statsIn}},
		[]namedPath{{"--out", *out}, {"--pairs", *pairsPath}, {"--save-stats", *statsOut}}); err != nil {
		fmt.Fprintln(stderr, "doppel dedup:", err)
		return errUsage
	}
	opts, err := options()
	if err != nil {
		return err
	}
	if *clustering != "online" && *clustering != "star" {
		return fmt.Errorf("unknown --clustering %q (want online or star)", *clustering)
	}
	start := time.Now()
	recs, repaired, err := readDocs(*in)
	if err != nil {
		return err
	}
	table, err := loadOrBuildTable(*statsIn, &opts, recs)
	if err != nil {
		return err
	}
	if *statsOut != "" {
		if err := table.Save(*statsOut); err != nil {
			return err
		}
	}
	det, err := dedup.New(table, opts)
	if err != nil {
		return err
	}

	clusters, err := jsonl.Create(*out)
	if err != nil {
		return err
	}
	defer clusters.Abort() // no-op after Commit
	var pairs *jsonl.Writer
	if *pairsPath != "" {
		if pairs, err = jsonl.Create(*pairsPath); err != nil {
			return err
		}
		defer pairs.Abort()
	}
	progress := newProgress(stderr, "dedup", len(recs), *quiet)
	err = det.AddAll(ctx, documents(recs), *workers, func(r dedup.Result) error {
		progress.tick()
		if pairs != nil {
			for _, p := range r.Pairs {
				if err := pairs.Write(pairLine{p.A, p.B, p.Score}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	assigned := det.Assignments()
	if *clustering == "star" {
		assigned = det.StarAssignments()
	}
	nclusters := map[string]bool{}
	for _, a := range assigned {
		nclusters[string(a.Cluster)] = true
		if err := clusters.Write(clusterLine{a.ID, string(a.Cluster), a.Master}); err != nil {
			return err
		}
	}
	if err := clusters.Commit(); err != nil {
		return err
	}
	if pairs != nil {
		if err := pairs.Commit(); err != nil {
			return err
		}
	}
	st := det.Stats()
	fmt.Fprintf(stderr, "dedup: %d documents, %d clusters, %d duplicates, %d unsignable, %d repaired (invalid UTF-8), %d pairs, %.1f s (method %s, %s clustering)\n",
		st.Documents, len(nclusters), st.Documents-len(nclusters), st.Unsignable, repaired, st.Pairs, time.Since(start).Seconds(), opts.Method, *clustering)
	return nil
}

// readDocs reads a JSONL document file.
func readDocs(path string) ([]jsonl.Record, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	recs, repaired, err := jsonl.ReadAll(f)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	return recs, repaired, nil
}

// loadOrBuildTable returns the term statistics: loaded from path, or
// built from recs in one pass. When opts asks to drop common shingles it
// also builds their table from recs and sets opts.CommonShingles.
func loadOrBuildTable(path string, opts *dedup.Options, recs []jsonl.Record) (*stats.Table, error) {
	var table *stats.Table
	if path != "" {
		var err error
		if table, err = stats.Load(path); err != nil {
			return nil, err
		}
	}
	if table != nil && opts.MaxShingleDocs == 0 {
		return table, nil
	}
	tb, err := dedup.NewTableBuilder(*opts)
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		tb.Add(r.Text)
	}
	if opts.MaxShingleDocs > 0 {
		opts.CommonShingles = tb.ShingleTable()
	}
	if table == nil {
		table = tb.Table()
	}
	return table, nil
}

func documents(recs []jsonl.Record) []dedup.Document {
	docs := make([]dedup.Document, len(recs))
	for i, r := range recs {
		docs[i] = dedup.Document{ID: r.ID, Text: r.Text, URL: r.URL, Title: r.Title}
	}
	return docs
}

// progress prints a line to stderr at most every two seconds.
type progress struct {
	w           io.Writer
	what        string
	total, done int
	start, last time.Time
	quiet       bool
}

func newProgress(w io.Writer, what string, total int, quiet bool) *progress {
	now := time.Now()
	return &progress{w: w, what: what, total: total, start: now, last: now, quiet: quiet}
}

func (p *progress) tick() {
	p.done++
	if p.quiet || time.Since(p.last) < 2*time.Second {
		return
	}
	p.last = time.Now()
	secs := time.Since(p.start).Seconds()
	fmt.Fprintf(p.w, "%s: %d/%d documents (%.0f%%), %.0f docs/s\n", p.what, p.done, p.total, 100*float64(p.done)/float64(max(p.total, 1)), float64(p.done)/secs)
}
