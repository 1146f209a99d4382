package indexer_test

import (
	"testing"

	"github.com/blevesearch/bleve/v2"

	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/indexer/indextest"
)

// TestConformance runs the index conformance suite against the bleve
// implementation: a scorch index in a directory, as doppel uses, and an
// in-memory one, as library users and tests wrap.
func TestConformance(t *testing.T) {
	t.Run("dir", func(t *testing.T) {
		indextest.Run(t, func(t *testing.T, opts indexer.Options) indextest.Subject {
			x, err := indexer.Open(t.TempDir(), opts)
			if err != nil {
				t.Fatal(err)
			}
			return x
		})
	})
	t.Run("mem", func(t *testing.T) {
		indextest.Run(t, func(t *testing.T, opts indexer.Options) indextest.Subject {
			bi, err := bleve.NewMemOnly(indexer.Mapping())
			if err != nil {
				t.Fatal(err)
			}
			x, err := indexer.Wrap(bi, opts)
			if err != nil {
				t.Fatal(err)
			}
			return x
		})
	})
}
