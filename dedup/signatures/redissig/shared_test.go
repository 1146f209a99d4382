package redissig_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/doppel-search/doppel/dedup/signatures"
	"github.com/doppel-search/doppel/dedup/signatures/redissig"
)

var (
	bandKey = signatures.Key{Kind: signatures.Band, Sum: 7}
	ctx     = context.Background()
)

// begin takes a number and fails unless it is want, settled as said.
func begin(t *testing.T, s *redissig.Signatures, want uint32, settled bool) {
	t.Helper()
	doc, ok, err := s.Begin(ctx)
	if err != nil || doc != want || ok != settled {
		t.Fatalf("Begin = %d, settled %v, %v; want %d, settled %v", doc, ok, err, want, settled)
	}
}

// commit commits doc (founding a cluster when join is NoCluster) with
// the band key and returns its cluster.
func commit(t *testing.T, s *redissig.Signatures, doc uint32, id string, join uint32) uint32 {
	t.Helper()
	g, _, err := s.Commit(ctx, &signatures.Commit{Doc: doc, ID: id, Join: join, Hashes: []uint64{uint64(doc) + 1}, Keys: []signatures.Key{bandKey}})
	if err != nil {
		t.Fatalf("Commit(%d) = %v", doc, err)
	}
	return g
}

// read reads the band list.
func read(t *testing.T, s *redissig.Signatures) []signatures.Entry {
	t.Helper()
	r := &signatures.Read{Keys: []signatures.Key{bandKey}}
	if err := s.Read(ctx, r); err != nil {
		t.Fatal(err)
	}
	return r.Lists[0].Entries
}

// testTurns: the commits are made in number order — the second worker's
// Wait returns only once the first one has committed, and the reread it
// carries sees the first one's entry; a commit out of turn is refused.
func testTurns(t *testing.T, rdb *redis.ClusterClient) {
	s := open(t, rdb, signatures.Limits{}, redissig.Options{})
	begin(t, s, 0, true)
	begin(t, s, 1, false)
	if _, _, err := s.Commit(ctx, &signatures.Commit{Doc: 1, ID: "b", Join: signatures.NoCluster, Hashes: []uint64{2}}); !errors.Is(err, signatures.ErrLost) {
		t.Fatalf("a commit out of turn = %v, want ErrLost", err)
	}
	done := make(chan *signatures.Read)
	go func() {
		r := &signatures.Read{Keys: []signatures.Key{bandKey}}
		if err := s.Wait(ctx, 1, r); err != nil {
			t.Error(err)
		}
		done <- r
	}()
	select {
	case <-done:
		t.Fatal("Wait(1) returned before 0 committed")
	case <-time.After(200 * time.Millisecond):
	}
	if g := commit(t, s, 0, "a", signatures.NoCluster); g != 0 {
		t.Fatalf("first cluster %d", g)
	}
	select {
	case r := <-done:
		if want := []signatures.Entry{{ID: 0, Group: 0}}; !slices.Equal(r.Lists[0].Entries, want) {
			t.Fatalf("the reread at 1's turn = %v, want %v", r.Lists[0].Entries, want)
		}
	case <-time.After(time.Minute): // a bound against a hang: a busy machine may take seconds
		t.Fatal("Wait(1) did not return after 0 committed")
	}
	if g := commit(t, s, 1, "b", 0); g != 0 {
		t.Fatalf("joined cluster %d, want 0", g)
	}
	begin(t, s, 2, true) // the logs of 0 and 1 are known applied
}

// testLease: a number whose worker stops renewing it holds the next one
// up for its lease, then is given up: its commit and its Wait say ErrLost.
func testLease(t *testing.T, rdb *redis.ClusterClient) {
	const lease = 300 * time.Millisecond
	s := open(t, rdb, signatures.Limits{}, redissig.Options{Lease: lease})
	begin(t, s, 0, true)
	begin(t, s, 1, false)
	start := time.Now()
	if err := s.Wait(ctx, 1, nil); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited < lease/2 { // no upper bound: a busy machine stretches it
		t.Errorf("waited %v for a number leased for %v", waited, lease)
	}
	commit(t, s, 1, "b", signatures.NoCluster)
	if _, _, err := s.Commit(ctx, &signatures.Commit{Doc: 0, ID: "a", Join: signatures.NoCluster, Hashes: []uint64{1}}); !errors.Is(err, signatures.ErrLost) {
		t.Errorf("the commit of a number given up = %v, want ErrLost", err)
	}
	if err := s.Wait(ctx, 0, nil); !errors.Is(err, signatures.ErrLost) {
		t.Errorf("Wait of a number given up = %v, want ErrLost", err)
	}
	if err := s.Abandon(ctx, 0); !errors.Is(err, signatures.ErrLost) {
		t.Errorf("Abandon of a number given up = %v, want ErrLost", err)
	}
	// A number given up by its worker passes its turn at once: well
	// within a lease long enough that a busy machine cannot reach it.
	const long = time.Minute
	s = open(t, rdb, signatures.Limits{}, redissig.Options{Lease: long})
	begin(t, s, 0, true)
	begin(t, s, 1, false)
	if err := s.Abandon(ctx, 0); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	if err := s.Wait(ctx, 1, nil); err != nil || time.Since(start) > long/2 {
		t.Errorf("Wait after an abandon: %v after %v", err, time.Since(start))
	}
}

// testReplay: a worker that dies between the two steps of its commit
// loses nothing — the next turn applies its log, once, and its late adds
// change nothing.
func testReplay(t *testing.T, rdb *redis.ClusterClient) {
	s := open(t, rdb, signatures.Limits{PerGroup: 1}, redissig.Options{})
	begin(t, s, 0, true)
	commit(t, s, 0, "a", signatures.NoCluster)
	begin(t, s, 1, true)
	c1 := &signatures.Commit{Doc: 1, ID: "b", Join: 0, Keys: []signatures.Key{bandKey}}
	if _, _, err := s.AssignOnly(ctx, c1); err != nil {
		t.Fatal(err)
	}
	if got := read(t, s); len(got) != 1 {
		t.Fatalf("before the replay: %v", got)
	}
	begin(t, s, 2, false) // a log is left: not settled
	r := &signatures.Read{Keys: []signatures.Key{bandKey}}
	if err := s.Wait(ctx, 2, r); err != nil {
		t.Fatal(err)
	}
	// PerGroup 1: the entry of 1 is refused (capped), counted once.
	st := s.Store()
	if got, want := r.Lists[0].Entries, []signatures.Entry{{ID: 0, Group: 0}}; !slices.Equal(got, want) {
		t.Fatalf("after the replay: %v, want %v", got, want)
	}
	g := commit(t, s, 2, "c", signatures.NoCluster)
	// The late second step of 1 (its worker was only slow) and a second
	// replay change nothing.
	if _, _, err := s.Commit(ctx, c1); err != nil {
		t.Fatalf("the repeated commit of 1 = %v", err)
	}
	if got, want := read(t, s), []signatures.Entry{{ID: 0, Group: 0}, {ID: 2, Group: g}}; !slices.Equal(got, want) {
		t.Fatalf("after the late adds: %v, want %v", got, want)
	}
	if stats := st.Stats(signatures.Band); stats.Capped != 1 || stats.Entries != 2 {
		t.Errorf("Stats %+v: want 1 capped, 2 entries", stats)
	}
}

// testDuplicate: a second document of a committed id is refused and its
// number passed on.
func testDuplicate(t *testing.T, rdb *redis.ClusterClient) {
	s := open(t, rdb, signatures.Limits{}, redissig.Options{})
	begin(t, s, 0, true)
	commit(t, s, 0, "a", signatures.NoCluster)
	begin(t, s, 1, true)
	if _, _, err := s.Commit(ctx, &signatures.Commit{Doc: 1, ID: "a", Join: signatures.NoCluster, Hashes: []uint64{9}}); !errors.Is(err, signatures.ErrDuplicate) {
		t.Fatalf("a duplicate id = %v", err)
	}
	begin(t, s, 2, true)
}

// testTablesAndRefs: a fingerprint committed to the tables is a
// neighbour of those agreeing with it on a block, not of others; a
// take-over changes the master the refs read, and a commit verified
// against the master it replaced is refused; Assignments gives every
// document with its cluster and master.
func testTablesAndRefs(t *testing.T, rdb *redis.ClusterClient) {
	s := open(t, rdb, signatures.Limits{}, redissig.Options{})
	const fp = 0x0123_4567_89ab_cdef
	begin(t, s, 0, true)
	if _, _, err := s.Commit(ctx, &signatures.Commit{Doc: 0, ID: "a", Join: signatures.NoCluster, Hashes: []uint64{1, 2}, Table: true, Fingerprint: fp}); err != nil {
		t.Fatal(err)
	}
	begin(t, s, 1, true)
	if _, _, err := s.Commit(ctx, &signatures.Commit{Doc: 1, ID: "b", Join: 0, Master: true, Edited: false}); err != nil {
		t.Fatal(err)
	}
	begin(t, s, 2, true)
	// Verified against the master before the take-over: compared and
	// not set, the number given up.
	if _, _, err := s.Commit(ctx, &signatures.Commit{Doc: 2, ID: "c", Join: 0, Master: true, Expect: 0}); !errors.Is(err, signatures.ErrLost) {
		t.Fatalf("a commit against a replaced master = %v, want ErrLost", err)
	}
	begin(t, s, 3, true)
	if _, _, err := s.Commit(ctx, &signatures.Commit{Doc: 3, ID: "c", Join: 0, Edited: true, Expect: 1}); err != nil {
		t.Fatal(err)
	}
	r := &signatures.Read{Near: []uint64{fp ^ 0b111, ^uint64(fp)}, Groups: []uint32{0}, Members: true, Docs: []uint32{0, 5}}
	if err := s.Read(ctx, r); err != nil {
		t.Fatal(err)
	}
	if want := []signatures.Neighbour{{Fingerprint: fp, Doc: 0}}; !slices.Equal(r.Neighbours[0], want) {
		t.Errorf("neighbours of a fingerprint 3 bits away: %v, want %v", r.Neighbours[0], want)
	}
	if len(r.Neighbours[1]) != 0 {
		t.Errorf("neighbours of the complement: %v", r.Neighbours[1])
	}
	want := signatures.Ref{Master: 1, Hash: 1, Members: []signatures.Member{{Doc: 0}, {Doc: 1}, {Doc: 3, Edited: true}}}
	if got := r.Refs[0]; got.Master != want.Master || got.Hash != want.Hash || !slices.Equal(got.Members, want.Members) {
		t.Errorf("ref %+v, want %+v", got, want)
	}
	if r.Records[0] != nil || r.Records[1] != nil {
		t.Errorf("records never stored: %q", r.Records)
	}
	var got []signatures.Assigned
	if err := s.Assignments(ctx, func(a signatures.Assigned) error { got = append(got, a); return nil }); err != nil {
		t.Fatal(err)
	}
	wantA := []signatures.Assigned{
		{Doc: 0, ID: "a", Hash: 1, Master: 1, MasterID: "b"},
		{Doc: 1, ID: "b", Hash: 1, Master: 1, MasterID: "b"},
		{Doc: 3, ID: "c", Hash: 1, Master: 1, MasterID: "b", Edited: true},
	}
	if !slices.Equal(got, wantA) {
		t.Errorf("Assignments = %+v, want %+v", got, wantA)
	}
}

// testOutcomes: Outcomes says which numbers are committed, the id bits
// of their clusters (founded or joined) and where the turn is, and gives
// up a number at the turn whose lease ran out (no worker waiting behind
// it), but not one still leased.
func testOutcomes(t *testing.T, rdb *redis.ClusterClient) {
	const lease = 300 * time.Millisecond
	s := open(t, rdb, signatures.Limits{}, redissig.Options{Lease: lease})
	// hashes: the id bits of each number's cluster, 0 for none; the
	// helper commit founds cluster doc+1.
	outcomes := func(wantTurn uint32, hashes []uint64) {
		t.Helper()
		want := make([]bool, len(hashes))
		for i, h := range hashes {
			want[i] = h != 0
		}
		turn, got, gotHashes, err := s.Outcomes(ctx, 0, len(want))
		if err != nil || turn != wantTurn || !slices.Equal(got, want) || !slices.Equal(gotHashes, hashes) {
			t.Fatalf("Outcomes = turn %d, %v, %v, %v; want turn %d, %v, %v", turn, got, gotHashes, err, wantTurn, want, hashes)
		}
	}
	outcomes(0, []uint64{0, 0, 0, 0})
	begin(t, s, 0, true)
	commit(t, s, 0, "a", signatures.NoCluster)
	begin(t, s, 1, true)
	outcomes(1, []uint64{1, 0, 0, 0})
	time.Sleep(lease + 100*time.Millisecond) // 1's lease runs out
	begin(t, s, 2, false)
	outcomes(2, []uint64{1, 0, 0, 0}) // 1 given up, 2 leased
	if _, _, err := s.Commit(ctx, &signatures.Commit{Doc: 1, ID: "b", Join: signatures.NoCluster, Hashes: []uint64{2}}); !errors.Is(err, signatures.ErrLost) {
		t.Fatalf("the commit of a number Outcomes gave up = %v, want ErrLost", err)
	}
	commit(t, s, 2, "c", signatures.NoCluster)
	outcomes(3, []uint64{1, 0, 3, 0})
	begin(t, s, 3, true)
	if _, _, err := s.Commit(ctx, &signatures.Commit{Doc: 3, ID: "d", Join: 0, Expect: 0, Keys: []signatures.Key{bandKey}}); err != nil {
		t.Fatal(err)
	}
	outcomes(4, []uint64{1, 0, 3, 1}) // 3 joined 0's cluster
	if _, _, _, err := s.Outcomes(ctx, 0, 0); err == nil {
		t.Error("Outcomes of no number: no error")
	}
}
