package signatures_test

import (
	"testing"

	"github.com/doppel-search/doppel/dedup/signatures"
	"github.com/doppel-search/doppel/dedup/signatures/sigtest"
)

func TestMemory(t *testing.T) {
	sigtest.Run(t, func(_ *testing.T, lim signatures.Limits) signatures.Store {
		return signatures.NewMemory(lim)
	})
}

func TestMemoryClusters(t *testing.T) {
	sigtest.RunClusters(t, func(*testing.T) signatures.Clusters { return &signatures.MemoryClusters{} })
}
