package redisfrontier_test

import (
	"fmt"
	"hash/fnv"
	"testing"

	"github.com/doppel-search/doppel/crawler/frontier"
	"github.com/doppel-search/doppel/crawler/frontier/frontiertest"
	"github.com/doppel-search/doppel/crawler/frontier/redisfrontier"
	"github.com/doppel-search/doppel/internal/testrig/redistest"
)

// TestConformance runs the frontier's conformance suite on a Redis Cluster
// of three masters, each test in a key prefix of its own.
func TestConformance(t *testing.T) {
	c := redistest.Start(t, 3, 0)
	rdb := c.Client()
	frontiertest.Run(t, func(t *testing.T, dir string) frontier.Queue {
		h := fnv.New64a()
		h.Write([]byte(dir))
		q, err := redisfrontier.New(rdb, redisfrontier.Options{Prefix: fmt.Sprintf("t%x", h.Sum64()), Holder: "test"})
		if err != nil {
			t.Fatal(err)
		}
		return q
	})
}
