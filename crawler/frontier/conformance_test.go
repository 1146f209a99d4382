package frontier_test

import (
	"path/filepath"
	"testing"

	"github.com/doppel-search/doppel/crawler/frontier"
	"github.com/doppel-search/doppel/crawler/frontier/frontiertest"
)

// TestConformance runs the Queue conformance suite against the bbolt
// Frontier: a reopen is a restart of the process, whose leases were in
// memory only.
func TestConformance(t *testing.T) {
	frontiertest.Run(t, func(t *testing.T, dir string) frontier.Queue {
		f, err := frontier.Open(filepath.Join(dir, "frontier.db"), frontier.Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		return f
	})
}
