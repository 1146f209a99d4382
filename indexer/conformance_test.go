package indexer_test

import (
	"fmt"
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
			t.Cleanup(func() { bi.Close() })
			x, err := indexer.Wrap(bi, opts)
			if err != nil {
				t.Fatal(err)
			}
			return x
		})
	})
	// A user's own index, holding documents of the user's, with Doppel's
	// types added and its records in an index of their own.
	t.Run("user", func(t *testing.T) {
		indextest.Run(t, func(t *testing.T, opts indexer.Options) indextest.Subject {
			m := bleve.NewIndexMapping()
			if err := indexer.AddTo(m); err != nil {
				t.Fatal(err)
			}
			bi, err := bleve.NewMemOnly(m)
			if err != nil {
				t.Fatal(err)
			}
			rec, err := bleve.NewMemOnly(indexer.RecordsMapping())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { bi.Close(); rec.Close() })
			for i, text := range []string{"printer toner budget", "meeting notes"} {
				if err := bi.Index(fmt.Sprintf("user-%d", i), map[string]any{"content": text, "category": "notes"}); err != nil {
					t.Fatal(err)
				}
			}
			opts.Records = rec
			x, err := indexer.Wrap(bi, opts)
			if err != nil {
				t.Fatal(err)
			}
			return x
		})
	})
}
