package pages_test

import (
	"path/filepath"
	"testing"

	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/crawler/pages/pagestest"
)

// TestConformance runs the Records conformance suite against the bbolt
// Store.
func TestConformance(t *testing.T) {
	pagestest.Run(t, func(t *testing.T, dir string) pages.Records {
		s, err := pages.Open(filepath.Join(dir, "pages.db"), pages.Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
