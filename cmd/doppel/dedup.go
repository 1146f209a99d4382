package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/dedup/stats"
	"github.com/doppel-search/doppel/internal/jsonl"
	"github.com/doppel-search/doppel/internal/outfile"
)

// clusterLine and pairLine are the output contract of doppel dedup.
type clusterLine struct {
	ID      string `json:"id"`
	Cluster string `json:"cluster"`
	Master  string `json:"master"`
}

// pairLine is a near-duplicate pair of doppel dedup's --pairs output.
type pairLine struct {
	A     string  `json:"a"`
	B     string  `json:"b"`
	Score float64 `json:"score"`
}

// doppel dedup's garbage-collection target when the environment sets no
// GOGC: the heap may grow by dedupGCHeadroom or dedupGCPercent % of the
// live heap, whichever is more, between collections — not by all of it
// (Go's default). The detector's state is most of the heap and lives to
// the end, so this keeps peak memory near the detector's own as it grows
// (a million documents of ndd synth: about 1.0 GB peak RSS, 1.60 GB at
// Go's default) for a few per cent more time, and a small collection
// keeps Go's default.
const (
	dedupGCPercent  = 15
	dedupGCHeadroom = 64 << 20
	// dedupGCSlack is how far above the collector's target the soft
	// memory limit is set (see gcTarget).
	dedupGCSlack = 32 << 20
)

// A gcTarget sets the collector's target as the live heap grows (see
// dedupGCPercent). Not safe for concurrent use; nil does nothing.
type gcTarget struct {
	n       int
	percent int
	// limit: also set the soft memory limit (runtime/debug.SetMemoryLimit)
	// dedupGCSlack above the target, so that the heap's free pages go
	// back to the system as the heap nears it and the process's memory
	// stays near the heap's; false when the environment sets GOMEMLIMIT.
	limit bool
}

// tick counts a document added; every 4,096 it reads the live heap and
// sets the target.
func (g *gcTarget) tick() {
	if g == nil {
		return
	}
	if g.n++; g.n%4096 != 0 {
		return
	}
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(live)
	if live[0].Value.Kind() != metrics.KindUint64 || live[0].Value.Uint64() == 0 {
		return
	}
	heap := live[0].Value.Uint64()
	p := int(min(100, max(dedupGCPercent, 100*dedupGCHeadroom/heap)))
	if g.percent == 0 || p < g.percent-2 {
		debug.SetGCPercent(p)
		g.percent = p
	}
	if g.limit {
		debug.SetMemoryLimit(int64(heap + heap*uint64(g.percent)/100 + dedupGCSlack))
	}
}

// dedupSettings are doppel dedup's settings: its own and the detector's
// (detectorSettings).
type dedupSettings struct {
	In         string `json:"in" flag:"in" help:"input documents, JSONL (gzip allowed): {\"id\", \"text\"[, \"url\", \"title\", \"group\"]}; or a folder of files: HTML pages, text, PDF, DOCX, PPTX, XLSX, ODT, ODP, ODS, each a document whose id is its path in the folder (required)"`
	Out        string `json:"out" flag:"out" help:"output clusters, JSONL: one {\"id\", \"cluster\", \"master\"} per input document, in input order (required)"`
	Pairs      string `json:"pairs" flag:"pairs" help:"also write every detected near-duplicate pair {\"a\", \"b\", \"score\"} to this JSONL file"`
	Stats      string `json:"stats" flag:"stats" help:"load collection statistics from this file instead of computing them from the input"`
	SaveStats  string `json:"save_stats" flag:"save-stats" help:"save the collection statistics used to this file"`
	Workers    int    `json:"workers" flag:"workers" help:"documents signed in parallel (0: one per CPU)"`
	Quiet      bool   `json:"quiet" flag:"quiet" help:"no progress lines (the summary is still printed)"`
	CPUProfile string `json:"cpuprofile" flag:"cpuprofile" help:"write a CPU profile of the run to this file (go tool pprof)"`
	MemProfile string `json:"memprofile" flag:"memprofile" help:"write a heap profile to this file once every document is added (go tool pprof)"`
	Clustering string `json:"clustering" flag:"clustering" help:"online (each document joins a cluster on arrival, by similarity to its master) or star (batch: documents with the most near-duplicates become masters)"`
	detectorSettings
}

// dedupDefaults returns doppel dedup's default settings.
func dedupDefaults() dedupSettings {
	return dedupSettings{Clustering: "online", detectorSettings: detectorDefaults()}
}

// runDedup clusters a JSONL document collection into near-duplicate
// clusters, written as JSONL.
func runDedup(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	var gc *gcTarget
	if os.Getenv("GOGC") == "" {
		gc = &gcTarget{limit: os.Getenv("GOMEMLIMIT") == ""}
		defer debug.SetGCPercent(debug.SetGCPercent(100))
		if gc.limit {
			defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
		}
	}
	fs := flag.NewFlagSet("dedup", flag.ContinueOnError)
	c := defineConfig(fs, dedupDefaults(), true)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: doppel dedup --in docs.jsonl[.gz]|FOLDER --out clusters.jsonl [--pairs pairs.jsonl] [flags]")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	s, err := c.load(stderr)
	if err != nil {
		return err
	}
	if c.print {
		return writeSettings(stdout, s)
	}
	if s.Workers < 1 {
		s.Workers = runtime.GOMAXPROCS(0)
	}
	if s.In == "" || s.Out == "" {
		fmt.Fprintln(stderr, "doppel dedup: --in and --out are required")
		usageHint(fs, stderr)
		return errUsage
	}
	if err := checkOutputs([]namedPath{{"--in", s.In}, {"--stats", s.Stats}},
		[]namedPath{{"--out", s.Out}, {"--pairs", s.Pairs}, {"--save-stats", s.SaveStats},
			{"--cpuprofile", s.CPUProfile}, {"--memprofile", s.MemProfile}}); err != nil {
		fmt.Fprintln(stderr, "doppel dedup:", err)
		return errUsage
	}
	opts, err := s.detector()
	if err != nil {
		return err
	}
	if s.Clustering != "online" && s.Clustering != "star" {
		return fmt.Errorf("unknown --clustering %q (want online or star)", s.Clustering)
	}
	if s.CPUProfile != "" {
		stop, err := startCPUProfile(s.CPUProfile, stdout)
		if err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		defer func() {
			if perr := stop(); perr != nil {
				err = errors.Join(err, fmt.Errorf("--cpuprofile: %w", perr))
			}
		}()
	}
	start := time.Now()
	src, err := openDocs(s.In, stderr)
	if err != nil {
		return err
	}
	det, total, err := newDedupDetector(ctx, src.records(), s.Workers, s.Stats, s.SaveStats, &opts)
	if err != nil {
		return err
	}
	job := dedupJob{det: det, src: src, total: total, workers: s.Workers, quiet: s.Quiet, star: s.Clustering == "star", memProfile: s.MemProfile, gc: gc}
	nclusters, err := job.run(ctx, s.Out, s.Pairs, stdout, stderr)
	if err != nil {
		return err
	}
	st := det.Stats()
	fmt.Fprintf(stderr, "dedup: %d documents, %d clusters, %d duplicates, %d unsignable, %d repaired (invalid UTF-8), %d pairs, %.1f s (method %s, %s clustering)\n",
		st.Documents, nclusters, st.Documents-nclusters, st.Unsignable, src.repaired, st.Pairs, time.Since(start).Seconds(), opts.Method, s.Clustering)
	return nil
}

// newDedupDetector returns a detector with the term statistics loaded
// from statsIn or built from recs, saving them to statsOut if it is not
// empty (see loadOrBuildTable for what it sets in opts, and what workers
// do), and the number of records, if it read them (0 otherwise).
func newDedupDetector(ctx context.Context, recs iter.Seq2[jsonl.Record, error], workers int, statsIn, statsOut string, opts *dedup.Options) (*dedup.Detector, int, error) {
	table, n, err := loadOrBuildTable(ctx, statsIn, opts, recs, workers)
	if err != nil {
		return nil, 0, err
	}
	if statsOut != "" {
		save := table
		if save == nil { // LSH alone counts none: count them for the file
			if save, n, err = buildTable(ctx, opts, recs, workers); err != nil {
				return nil, 0, err
			}
		}
		if err := save.Save(statsOut); err != nil {
			return nil, 0, err
		}
	}
	det, err := dedup.New(table, *opts)
	return det, n, err
}

// A dedupJob is the clustering of a document collection by doppel dedup.
type dedupJob struct {
	det     *dedup.Detector
	src     *docSource
	total   int  // documents in src, if known (0 otherwise)
	workers int  // documents signed in parallel
	quiet   bool // no progress lines
	star    bool // star clustering, not online
	// memProfile: write a heap profile there once every document is
	// added, if not empty.
	memProfile string
	gc         *gcTarget // nil: the collector's target as the environment sets it
}

// run adds the documents to the detector, writing every detected pair to
// pairsPath (if not empty), then writes each document's cluster to out.
// Each file is committed only when complete. It returns the number of
// clusters.
func (j dedupJob) run(ctx context.Context, out, pairsPath string, stdout, stderr io.Writer) (int, error) {
	clusters, err := jsonl.CreateTo(out, stdout)
	if err != nil {
		return 0, err
	}
	defer clusters.Abort() // no-op after Commit
	var pairs *jsonl.Writer
	if pairsPath != "" {
		if pairs, err = jsonl.CreateTo(pairsPath, stdout); err != nil {
			return 0, err
		}
		defer pairs.Abort()
	}
	progress := newProgress(stderr, "dedup", j.total, j.quiet)
	if err := j.det.AddSeq(ctx, documents(j.src.records()), j.workers, writePairs(progress, pairs, j.gc)); err != nil {
		return 0, err
	}
	if j.memProfile != "" {
		if err := writeHeapProfile(j.memProfile, stdout); err != nil {
			return 0, fmt.Errorf("--memprofile: %w", err)
		}
	}
	assigned := j.det.AllAssignments()
	if j.star {
		assigned = slices.Values(j.det.StarAssignments())
	}
	nclusters, err := writeClusters(clusters, assigned)
	if err != nil {
		return 0, err
	}
	if err := clusters.Commit(); err != nil {
		return 0, err
	}
	if pairs != nil {
		if err := pairs.Commit(); err != nil {
			return 0, err
		}
	}
	return nclusters, nil
}

// writePairs returns the detector's callback: it ticks progress and
// writes the result's pairs to pairs, if not nil.
func writePairs(progress *progress, pairs *jsonl.Writer, gc *gcTarget) func(dedup.Result) error {
	return func(r dedup.Result) error {
		progress.tick()
		gc.tick()
		if pairs == nil {
			return nil
		}
		for _, p := range r.Pairs {
			if err := pairs.Write(pairLine{p.A, p.B, p.Score}); err != nil {
				return err
			}
		}
		return nil
	}
}

// writeClusters writes a clusterLine for each assignment to w and returns
// the number of distinct clusters (counted by a 64-bit hash of their ids:
// a million of them cost 20 MB, not the 100 of their strings).
func writeClusters(w *jsonl.Writer, assigned iter.Seq[dedup.Assignment]) (int, error) {
	nclusters := map[uint64]struct{}{}
	for a := range assigned {
		nclusters[xxhash.Sum64String(string(a.Cluster))] = struct{}{}
		if err := w.Write(clusterLine{a.ID, string(a.Cluster), a.Master}); err != nil {
			return 0, err
		}
	}
	return len(nclusters), nil
}

// readDocs reads a JSONL document file, or the documents of a folder,
// into memory (doppel eval, which needs every text twice over).
func readDocs(path string, stderr io.Writer) ([]jsonl.Record, error) {
	src, err := openDocs(path, stderr)
	if err != nil || src.folder != nil {
		return src.folder, err
	}
	var recs []jsonl.Record
	for r, err := range src.records() {
		if err != nil {
			return nil, err
		}
		recs = append(recs, r)
	}
	return recs, nil
}

// A docSource is the input of doppel dedup: a JSONL file (gzip allowed),
// read from disk on each pass so that no text is held longer than it
// takes to sign it, or a folder, whose documents are extracted once and
// kept.
type docSource struct {
	path     string
	folder   []jsonl.Record // the folder's documents; nil for a JSONL file
	repaired int            // records of the last complete pass with invalid UTF-8 replaced
}

// openDocs returns the input at path; a folder is read at once, a JSONL
// file at each pass.
func openDocs(path string, stderr io.Writer) (*docSource, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return &docSource{path: path}, nil
	}
	recs, skipped, err := readFolder(path)
	for _, s := range skipped {
		fmt.Fprintf(stderr, "doppel dedup: skipped %s\n", s)
	}
	if err == nil && len(recs) == 0 {
		err = fmt.Errorf("%s: no page or document Doppel reads", path)
	}
	return &docSource{path: path, folder: recs}, err
}

// records returns one pass over the input's records, in order; an error
// ends it.
func (s *docSource) records() iter.Seq2[jsonl.Record, error] {
	if s.folder != nil {
		return recordsOf(s.folder)
	}
	return func(yield func(jsonl.Record, error) bool) {
		f, err := os.Open(s.path)
		if err != nil {
			yield(jsonl.Record{}, err)
			return
		}
		defer f.Close()
		jr, err := jsonl.NewReader(f)
		for err == nil {
			var rec jsonl.Record
			if rec, err = jr.Next(); err == nil && !yield(rec, nil) {
				return
			}
		}
		if errors.Is(err, io.EOF) {
			s.repaired = jr.Repaired()
			return
		}
		yield(jsonl.Record{}, fmt.Errorf("%s: %w", s.path, err))
	}
}

// recordsOf returns a pass over recs.
func recordsOf(recs []jsonl.Record) iter.Seq2[jsonl.Record, error] {
	return func(yield func(jsonl.Record, error) bool) {
		for _, r := range recs {
			if !yield(r, nil) {
				return
			}
		}
	}
}

// loadOrBuildTable returns the term statistics: loaded from path, or
// built from recs in one pass, tokenizing on workers goroutines. When opts
// asks to drop common shingles it also builds their table from recs and
// sets opts.CommonShingles. It returns the number of records when it read
// them (0 otherwise).
func loadOrBuildTable(ctx context.Context, path string, opts *dedup.Options, recs iter.Seq2[jsonl.Record, error], workers int) (*stats.Table, int, error) {
	var table *stats.Table
	if path != "" {
		var err error
		if table, err = stats.Load(path); err != nil {
			return nil, 0, err
		}
	}
	if opts.MaxShingleDocs == 0 && (table != nil || opts.Method == dedup.Hybrid && opts.LSHOnly) {
		return table, 0, nil // nothing to count: LSH alone needs no statistics
	}
	built, n, err := buildTable(ctx, opts, recs, workers)
	if err != nil {
		return nil, 0, err
	}
	if table == nil {
		table = built
	}
	return table, n, nil
}

// buildTable counts the term statistics of recs (and, with
// opts.MaxShingleDocs, sets opts.CommonShingles), returning them and the
// number of records.
func buildTable(ctx context.Context, opts *dedup.Options, recs iter.Seq2[jsonl.Record, error], workers int) (*stats.Table, int, error) {
	tb, err := dedup.NewTableBuilder(*opts)
	if err != nil {
		return nil, 0, err
	}
	n := 0
	texts := func(yield func(string, error) bool) {
		for r, err := range recs {
			if err == nil {
				n++
			}
			if !yield(r.Text, err) || err != nil {
				return
			}
		}
	}
	if err := tb.AddSeq(ctx, texts, workers); err != nil {
		return nil, 0, err
	}
	if opts.MaxShingleDocs > 0 {
		opts.CommonShingles = tb.ShingleTable()
	}
	return tb.Table(), n, nil
}

// documents converts records to the detector's documents.
func documents(recs iter.Seq2[jsonl.Record, error]) iter.Seq2[dedup.Document, error] {
	return func(yield func(dedup.Document, error) bool) {
		for r, err := range recs {
			if !yield(dedup.Document{ID: r.ID, Text: r.Text, URL: r.URL, Title: r.Title}, err) || err != nil {
				return
			}
		}
	}
}

// progress prints a line to stderr at most every two seconds.
type progress struct {
	w           io.Writer
	what        string
	total, done int
	start, last time.Time
	quiet       bool
}

// newProgress returns a progress over total documents (0: not known),
// silent if quiet.
func newProgress(w io.Writer, what string, total int, quiet bool) *progress {
	now := time.Now()
	return &progress{w: w, what: what, total: total, start: now, last: now, quiet: quiet}
}

// tick counts a document done and prints a line if it is time.
func (p *progress) tick() {
	p.done++
	if p.quiet || time.Since(p.last) < 2*time.Second {
		return
	}
	p.last = time.Now()
	rate := float64(p.done) / time.Since(p.start).Seconds()
	if p.total == 0 { // not counted
		fmt.Fprintf(p.w, "%s: %d documents, %.0f docs/s\n", p.what, p.done, rate)
		return
	}
	fmt.Fprintf(p.w, "%s: %d/%d documents (%.0f%%), %.0f docs/s\n", p.what, p.done, p.total, 100*float64(p.done)/float64(max(p.total, 1)), rate)
}

// startCPUProfile writes a CPU profile to path (as package outfile
// writes: "-" is stdout, a special file written in place, a regular file
// replaced when the profile is complete) until the returned function is
// called.
func startCPUProfile(path string, stdout io.Writer) (stop func() error, err error) {
	f, err := outfile.Create(path, stdout)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Abort()
		return nil, err
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Commit()
	}, nil
}

// writeHeapProfile writes a heap profile of what is live, after a
// collection, to path (as startCPUProfile does).
func writeHeapProfile(path string, stdout io.Writer) error {
	f, err := outfile.Create(path, stdout)
	if err != nil {
		return err
	}
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}
