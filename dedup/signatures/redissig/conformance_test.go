package redissig_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/doppel-search/doppel/dedup/signatures"
	"github.com/doppel-search/doppel/dedup/signatures/redissig"
	"github.com/doppel-search/doppel/dedup/signatures/sigtest"
	"github.com/doppel-search/doppel/internal/testrig/redistest"
)

var prefixes atomic.Int64

// open opens an empty store under a prefix of its own on rdb.
func open(t testing.TB, rdb redis.UniversalClient, lim signatures.Limits, opts redissig.Options) *redissig.Signatures {
	t.Helper()
	if opts.Prefix == "" {
		opts.Prefix = fmt.Sprintf("test%d", prefixes.Add(1))
	}
	s, err := redissig.Open(context.Background(), rdb, lim, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestOnCluster starts one cluster of three masters and runs every test
// of the package on it, each under a prefix of its own.
func TestOnCluster(t *testing.T) {
	rdb := redistest.Start(t, 3, 0).Client()
	for _, tc := range []struct {
		name string
		test func(*testing.T, *redis.ClusterClient)
	}{
		{"Conformance", testConformance},
		{"Spread", testSpread},
		{"ConfigMismatch", testConfigMismatch},
		{"Turns", testTurns},
		{"Lease", testLease},
		{"Outcomes", testOutcomes},
		{"Replay", testReplay},
		{"Duplicate", testDuplicate},
		{"TablesAndRefs", testTablesAndRefs},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.test(t, rdb) })
	}
}

// testConformance runs the suite of package sigtest, the lists spread
// over 16 shards and over the default 256.
func testConformance(t *testing.T, rdb *redis.ClusterClient) {
	for _, shards := range []int{16, 0} {
		t.Run(fmt.Sprintf("shards=%d", shards), func(t *testing.T) {
			var stores []*redissig.Store
			sigtest.Run(t, func(t *testing.T, lim signatures.Limits) signatures.Store {
				st := open(t, rdb, lim, redissig.Options{Shards: shards}).Store()
				stores = append(stores, st)
				return st
			})
			var clusters []*redissig.Clusters
			sigtest.RunClusters(t, func(t *testing.T) signatures.Clusters {
				cl := open(t, rdb, signatures.Limits{}, redissig.Options{Shards: shards}).Clusters()
				clusters = append(clusters, cl)
				return cl
			})
			for _, st := range stores {
				if err := st.Err(); err != nil {
					t.Fatal(err)
				}
			}
			for _, cl := range clusters {
				if err := cl.Err(); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// testSpread checks that the lists of many keys land on every master.
func testSpread(t *testing.T, rdb *redis.ClusterClient) {
	sig := open(t, rdb, signatures.Limits{}, redissig.Options{})
	st := sig.Store()
	for i := range uint64(300) {
		st.Add(signatures.Key{Kind: signatures.Band, Sum: i * 0x9e3779b97f4a7c15}, signatures.Entry{ID: uint32(i)})
	}
	counts := map[string]int{}
	for addr, keys := range redistest.KeysPerMaster(t, rdb, "{"+sig.Options().Prefix+"/*") {
		counts[addr] = len(keys)
	}
	if len(counts) != 3 {
		t.Fatalf("%d masters", len(counts))
	}
	for addr, n := range counts {
		if n < 50 {
			t.Errorf("master %s holds %d keys of 300 lists (and their counters): not spread", addr, n)
		}
	}
}

// testConfigMismatch: a worker that opens the store with other limits is
// refused.
func testConfigMismatch(t *testing.T, rdb *redis.ClusterClient) {
	s := open(t, rdb, signatures.Limits{PerGroup: 2, MaxLen: 8}, redissig.Options{})
	for _, tc := range []struct {
		name string
		lim  signatures.Limits
		opts redissig.Options
		ok   bool
	}{
		{"same", signatures.Limits{PerGroup: 2, MaxLen: 8}, redissig.Options{}, true},
		{"limits", signatures.Limits{PerGroup: 3, MaxLen: 8}, redissig.Options{}, false},
		{"hamming", signatures.Limits{PerGroup: 2, MaxLen: 8}, redissig.Options{HammingK: 4}, false},
		{"shards", signatures.Limits{PerGroup: 2, MaxLen: 8}, redissig.Options{Shards: 8}, false},
	} {
		tc.opts.Prefix = s.Options().Prefix
		_, err := redissig.Open(context.Background(), rdb, tc.lim, tc.opts)
		if tc.ok != (err == nil) || !tc.ok && !errors.Is(err, redissig.ErrConfig) {
			t.Errorf("%s: Open = %v", tc.name, err)
		}
	}
	if _, err := redissig.Open(context.Background(), rdb, signatures.Limits{}, redissig.Options{Prefix: "a{b}"}); err == nil {
		t.Error("a prefix with braces was accepted")
	}
}
