package shard_test

import (
	"fmt"
	"testing"

	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/indexer/indextest"
	"github.com/doppel-search/doppel/indexer/shard"
)

// TestConformance runs the index conformance suite against a sharded
// index of one shard and of four.
func TestConformance(t *testing.T) {
	for _, n := range []int{1, 4} {
		t.Run(fmt.Sprint(n, "shards"), func(t *testing.T) {
			indextest.Run(t, func(t *testing.T, opts indexer.Options) indextest.Subject {
				s, err := shard.Open(t.TempDir(), n, opts)
				if err != nil {
					t.Fatal(err)
				}
				return s
			})
		})
	}
}
