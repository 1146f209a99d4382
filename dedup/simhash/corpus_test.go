package simhash

import (
	"testing"

	"github.com/doppel-search/doppel/internal/testcorpus"
)

// corpusDocs returns the texts of the first limit documents (all when
// limit <= 0) of the shared corpus file name, skipping tb when the corpus is
// absent.
func corpusDocs(tb testing.TB, name string, limit int) []string {
	tb.Helper()
	recs := testcorpus.Docs(tb, name, limit)
	texts := make([]string, len(recs))
	for i, r := range recs {
		texts[i] = r.Text
	}
	return texts
}
