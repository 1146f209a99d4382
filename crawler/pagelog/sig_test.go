package pagelog

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
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

// testSignatureNotes: with the shared detector's turns (redissig), a
// worker that takes numbers, appends a note under each and gives it up,
// and another that commits documents at their turns: the reader delivers
// the notes and the page entries, each once, in number order.
func testSignatureNotes(t *testing.T, rdb *redis.ClusterClient) {
	ctx := context.Background()
	opts := redissig.Options{Prefix: fmt.Sprintf("sig%d", prefixes.Add(1)), Lease: 5 * time.Second}
	openSig := func() *redissig.Signatures { // each worker its own, as on its own machine
		t.Helper()
		s, err := redissig.Open(ctx, rdb, signatures.Limits{}, opts)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	notes, pages, reader := openSig(), openSig(), openSig()
	l := open(t, rdb, Options{Shards: 4, Chunk: 8})
	r := l.Reader(FatesOf(reader), 0, ReaderOptions{Batch: 8, Poll: 10 * time.Millisecond})

	// First in a set order: a note under 0 given up after 1's page entry
	// is appended; 1 waits for its turn until then.
	n0, _, err := notes.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n1, _, err := pages.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n0 != 0 || n1 != 1 {
		t.Fatalf("Begin = %d, %d; want 0, 1", n0, n1)
	}
	if err := l.Append(ctx, 1, payload(1)); err != nil {
		t.Fatal(err)
	}
	if err := l.AppendNote(ctx, 0, []byte("note 0")); err != nil {
		t.Fatal(err)
	}
	if err := notes.Abandon(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if err := pages.Wait(ctx, 1, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := pages.Commit(ctx, &signatures.Commit{Doc: 1, ID: "1", Join: signatures.NoCluster, Hashes: []uint64{2}}); err != nil {
		t.Fatal(err)
	}
	want := []item{note(0, "note 0"), page(1, string(payload(1)))}
	if out := readItems(t, r, 2); !slices.Equal(out, want) {
		t.Fatalf("read %v, want %v", out, want)
	}

	// Then both at once.
	const each = 30
	var mu sync.Mutex
	took := map[uint32]item{}
	var wg sync.WaitGroup
	wg.Go(func() {
		for range each {
			n, _, err := notes.Begin(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			p := fmt.Sprint("note ", n)
			if err := l.AppendNote(ctx, n, []byte(p)); err != nil {
				t.Error(err)
				return
			}
			if err := notes.Abandon(ctx, n); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			took[n] = note(n, p)
			mu.Unlock()
		}
	})
	wg.Go(func() {
		for range each {
			n, settled, err := pages.Begin(ctx)
			if err == nil && !settled {
				err = pages.Wait(ctx, n, nil)
			}
			if err == nil {
				err = l.Append(ctx, n, payload(n))
			}
			if err == nil {
				_, _, err = pages.Commit(ctx, &signatures.Commit{Doc: n, ID: fmt.Sprint(n), Join: signatures.NoCluster, Hashes: []uint64{uint64(n) + 1}})
			}
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			took[n] = page(n, string(payload(n)))
			mu.Unlock()
		}
	})
	out := readItems(t, r, 2*each)
	wg.Wait()
	want = want[:0]
	for n := range uint32(2 + 2*each) {
		if n >= 2 {
			want = append(want, took[n])
		}
	}
	if !slices.Equal(out, want) {
		t.Fatalf("read %v, want %v", out, want)
	}
	expectNone(t, r, 100*time.Millisecond)
}
