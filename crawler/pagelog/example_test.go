package pagelog_test

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/doppel-search/doppel/crawler/pagelog"
	"github.com/doppel-search/doppel/dedup/signatures"
	"github.com/doppel-search/doppel/dedup/signatures/redissig"
)

// A worker appends a page's payload at its turn, before its commit, and a
// note (a URL skipped) under a number it then gives up; a shard writer
// reads the log in number order from the position it kept,
// applies each entry, keeps its new position with what it applied, and
// trims behind itself (behind the slowest reader, with several). Not run:
// it needs a Redis Cluster.
func Example() {
	ctx := context.Background()
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{"127.0.0.1:7000"}})
	sig, err := redissig.Open(ctx, rdb, signatures.Limits{}, redissig.Options{Prefix: "crawl1:sig"})
	if err != nil {
		panic(err)
	}
	log, err := pagelog.Open(ctx, rdb, pagelog.Options{Prefix: "crawl1", Replicas: 1})
	if err != nil {
		panic(err)
	}

	// The worker: a number, its turn, the append, then the commit (what a
	// dedup.NewShared Detector's InsertTurn does, appending in its atTurn).
	n, settled, err := sig.Begin(ctx)
	if err != nil {
		panic(err)
	}
	if !settled {
		if err := sig.Wait(ctx, n, nil); err != nil {
			panic(err) // signatures.ErrLost: start again under a new number
		}
	}
	if err := log.Append(ctx, n, []byte("the page's record and index change")); err != nil {
		panic(err)
	}
	c := &signatures.Commit{Doc: n, ID: "https://example.com/", Join: signatures.NoCluster, Hashes: []uint64{1}}
	if _, _, err := sig.Commit(ctx, c); err != nil {
		panic(err)
	}

	// The worker's note: a number, the note under it, then the number
	// given up (no document to commit), within the number's lease.
	m, _, err := sig.Begin(ctx)
	if err != nil {
		panic(err)
	}
	if err := log.AppendNote(ctx, m, []byte("https://example.com/private: refused by robots.txt")); err != nil {
		panic(err)
	}
	if err := sig.Abandon(ctx, m); err != nil {
		panic(err)
	}

	// The shard writer, from the position it persisted (0 the first time).
	var position uint32
	r := log.Reader(pagelog.FatesOf(sig), position, pagelog.ReaderOptions{})
	for {
		e, err := r.Next(ctx)
		if err != nil {
			panic(err)
		}
		if e.Note {
			// A note: no cluster; its payload says what it is about.
			fmt.Printf("note %d: %s\n", e.N, e.Payload)
		} else {
			// The shard indexer/shard's Route(e.Cluster, shards) names applies it.
			fmt.Printf("apply %d (cluster %s): %s\n", e.N, e.Cluster, e.Payload)
		}
		position = r.Position() // persisted with what was applied
		if err := log.Trim(ctx, position); err != nil {
			panic(err)
		}
	}
}
