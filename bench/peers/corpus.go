package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
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
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", path, err)
		}
		defer gz.Close()
		r = gz
	}
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

// pairLine is one line of the pair file, as doppel dedup --pairs writes.
type pairLine struct {
	A     string  `json:"a"`
	B     string  `json:"b"`
	Score float64 `json:"score"`
}

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
