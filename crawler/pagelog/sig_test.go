package pagelog

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/doppel-search/doppel/dedup/signatures"
	"github.com/doppel-search/doppel/dedup/signatures/redissig"
)

// testSignatures: the fates of the shared detector's turns (redissig),
// with workers that commit, die between their append and their commit,
// die before their append, and one that dies with no worker behind it
// (the reader gives its number up when its lease runs out): the reader
// delivers the committed numbers only, in order.
func testSignatures(t *testing.T, rdb *redis.ClusterClient) {
	ctx := context.Background()
	const lease = 300 * time.Millisecond
	sig, err := redissig.Open(ctx, rdb, signatures.Limits{}, redissig.Options{Prefix: fmt.Sprintf("sig%d", prefixes.Add(1)), Lease: lease})
	if err != nil {
		t.Fatal(err)
	}
	l := open(t, rdb, Options{})
	r := l.Reader(FatesOf(sig), 0, ReaderOptions{Poll: 20 * time.Millisecond})
	begin := func(want uint32) {
		t.Helper()
		if n, _, err := sig.Begin(ctx); err != nil || n != want {
			t.Fatalf("Begin = %d, %v; want %d", n, err, want)
		}
	}
	appendN := func(n uint32) {
		t.Helper()
		if err := l.Append(ctx, n, payload(n)); err != nil {
			t.Fatal(err)
		}
	}
	commit := func(n uint32) error {
		_, _, err := sig.Commit(ctx, &signatures.Commit{Doc: n, ID: fmt.Sprint(n), Join: signatures.NoCluster, Hashes: []uint64{uint64(n) + 1}})
		return err
	}

	begin(0) // commits
	appendN(0)
	if err := commit(0); err != nil {
		t.Fatal(err)
	}
	begin(1) // dies between its append and its commit
	appendN(1)
	begin(2) // dies before its append
	begin(3) // waits for its turn (giving up 1 and 2), commits
	appendN(3)
	if err := sig.Wait(ctx, 3, nil); err != nil {
		t.Fatal(err)
	}
	if err := commit(3); err != nil {
		t.Fatal(err)
	}
	if err := commit(1); !errors.Is(err, signatures.ErrLost) {
		t.Fatalf("the late commit of 1 = %v, want ErrLost", err)
	}
	want := []got{{0, string(payload(0))}, {3, string(payload(3))}}
	if out := readN(t, r, 2); !slices.Equal(out, want) {
		t.Fatalf("read %v, want %v", out, want)
	}
	begin(4) // dies after its append, with no worker behind it
	appendN(4)
	start := time.Now()
	expectNone(t, r, lease+500*time.Millisecond)
	if waited := time.Since(start); waited < lease {
		t.Fatalf("waited %v", waited)
	}
	if p := r.Position(); p != 5 {
		t.Fatalf("Position = %d once 4's lease ran out, want 5 (the reader gave it up)", p)
	}
	begin(5) // at its turn at once: the reader gave 4 up
	appendN(5)
	if err := commit(5); err != nil {
		t.Fatal(err)
	}
	if out := readN(t, r, 1); out[0] != (got{5, string(payload(5))}) {
		t.Fatalf("read %v, want 5", out)
	}
}
