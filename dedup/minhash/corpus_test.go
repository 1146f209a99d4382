package minhash

import (
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// corpusDocs returns the texts of the first limit documents (all when
// limit <= 0) of the shared corpus file name, or skips tb when the corpus
// is not found in a shared/corpus directory beside an ancestor of the
// working directory.
func corpusDocs(tb testing.TB, name string, limit int) []string {
	tb.Helper()
	wd, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	var path string
	for dir := wd; ; dir = filepath.Dir(dir) {
		p := filepath.Join(dir, "shared", "corpus", name)
		if _, err := os.Stat(p); err == nil {
			path = p
			break
		}
		if filepath.Dir(dir) == dir {
			tb.Skipf("corpus not found at ../../../shared/corpus/%s: skipping", name)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	dec := json.NewDecoder(zr)
	var texts []string
	for limit <= 0 || len(texts) < limit {
		var doc struct {
			Text string `json:"text"`
		}
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			tb.Fatalf("reading %s: %v", path, err)
		}
		texts = append(texts, doc.Text)
	}
	return texts
}
