package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// A doc is one corpus document.
type doc struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// A pair is two near-duplicate documents, by their index in the corpus
// (A < B), with the pipeline's similarity score.
type pair struct {
	A, B  int
	Score float64
}

// readCorpus reads a JSONL corpus (gzip-compressed when the name ends in
// .gz) and returns its documents and the bytes of their texts.
func readCorpus(path string) ([]doc, int64, error) {
	r, err := openFile(path)
	if err != nil {
		return nil, 0, err
	}
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<20)
	var docs []doc
	var text int64
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(b)) > 0 {
			var d doc
			if err := json.Unmarshal(b, &d); err != nil {
				return nil, 0, fmt.Errorf("%s:%d: %w", path, line, err)
			}
			docs = append(docs, d)
			text += int64(len(d.Text))
		}
		if err == io.EOF {
			return docs, text, nil
		}
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", path, err)
		}
	}
}

// A pairList collects a pipeline's pairs: it keeps up to max of them and
// counts them all. It is not safe for concurrent use.
type pairList struct {
	max   int    // pairs kept at most
	kept  []pair // the first max pairs
	total int    // pairs added
}

// add adds a pair.
func (l *pairList) add(p pair) {
	if len(l.kept) < l.max {
		l.kept = append(l.kept, p)
	}
	l.total++
}

// over reports whether more than max pairs were added.
func (l *pairList) over() bool { return l.total > len(l.kept) }

// pairLine is one line of the pair file, as doppel dedup --pairs writes.
type pairLine struct {
	A     string  `json:"a"`
	B     string  `json:"b"`
	Score float64 `json:"score"`
}

// readTruth reads an ndd oracle pair file ({"a", "b", "jaccard",
// "cosine"} lines) and returns the pairs that are near duplicates by def
// (jaccard, cosine or either) at threshold t, as document indexes (a < b),
// each once, as ndd score counts them. Pairs naming unknown ids are left
// out.
func readTruth(path string, docs []doc, def string, t float64) ([][2]int, error) {
	if def != "jaccard" && def != "cosine" && def != "either" {
		return nil, fmt.Errorf("unknown -def %q (want jaccard, cosine or either)", def)
	}
	index := make(map[string]int, len(docs))
	for i, d := range docs {
		index[d.ID] = i
	}
	r, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	seen := map[[2]int]bool{}
	var out [][2]int
	for line := 1; sc.Scan(); line++ {
		var l struct {
			A, B            string
			Jaccard, Cosine float64
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if !nearBy(def, l.Jaccard >= t, l.Cosine >= t) {
			continue
		}
		a, okA := index[l.A]
		b, okB := index[l.B]
		if !okA || !okB || a == b {
			continue
		}
		k := [2]int{min(a, b), max(a, b)}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out, sc.Err()
}

// nearBy reports whether a pair is a near duplicate by def (jaccard,
// cosine or either), given whether its Jaccard and its cosine reach the
// threshold.
func nearBy(def string, jaccard, cosine bool) bool {
	switch def {
	case "jaccard":
		return jaccard
	case "cosine":
		return cosine
	}
	return jaccard || cosine
}

// openFile opens the file at path, decompressed when its name ends in
// .gz; closing the reader closes both.
func openFile(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(path, ".gz") {
		return f, nil
	}
	gz, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return gzipFile{gz, f}, nil
}

// gzipFile is a gzip stream and the file it reads.
type gzipFile struct {
	*gzip.Reader
	f *os.File
}

// Close closes the stream, then the file.
func (g gzipFile) Close() error { return errors.Join(g.Reader.Close(), g.f.Close()) }

// writePairs sorts pairs by (A, B) and writes them to path as JSONL.
func writePairs(path string, docs []doc, pairs []pair) error {
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i].A != pairs[j].A {
			return pairs[i].A < pairs[j].A
		}
		return pairs[i].B < pairs[j].B
	})
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, p := range pairs {
		if err := enc.Encode(pairLine{docs[p.A].ID, docs[p.B].ID, p.Score}); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
