package pagelog

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/doppel-search/doppel/internal/testrig/redistest"
)

var prefixes atomic.Int64

// open opens an empty log under a prefix of its own on rdb.
func open(t testing.TB, rdb redis.UniversalClient, opts Options) *Log {
	t.Helper()
	if opts.Prefix == "" {
		opts.Prefix = fmt.Sprintf("test%d", prefixes.Add(1))
	}
	l, err := Open(context.Background(), rdb, opts)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// fakeFates are fates set by the test; a number never set is pending.
type fakeFates struct {
	mu   sync.Mutex
	fate map[uint32]Fate
}

func newFates() *fakeFates { return &fakeFates{fate: map[uint32]Fate{}} }

func (f *fakeFates) set(n uint32, x Fate) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fate[n] = x
}

func (f *fakeFates) Fates(_ context.Context, from uint32, count int) ([]Outcome, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Outcome, count)
	for i := range out {
		n := from + uint32(i)
		if out[i].Fate = f.fate[n]; out[i].Fate == Committed {
			out[i].Cluster = clusterOf(n)
		}
	}
	return out, nil
}

// clusterOf is the cluster the fake fates give a committed number n, and
// the one testSignatures commits it in (id bits n+1).
func clusterOf(n uint32) string { return fmt.Sprintf("c%016x", n+1) }

// payload is the test's payload of number n.
func payload(n uint32) []byte { return fmt.Appendf(nil, "page %d", n) }

// got is an entry as a reader returned it.
type got struct {
	N       uint32
	Payload string
}

// readN reads want entries with r (failing the test after 20 s) and
// returns them.
func readN(t *testing.T, r *Reader, want int) []got {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out []got
	for len(out) < want {
		e, err := r.Next(ctx)
		if err != nil {
			t.Fatalf("Next after %d entries: %v", len(out), err)
		}
		if e.Cluster != clusterOf(e.N) {
			t.Fatalf("entry %d in cluster %q, want %q", e.N, e.Cluster, clusterOf(e.N))
		}
		out = append(out, got{e.N, string(e.Payload)})
	}
	return out
}

// expectNone fails if r returns an entry within d.
func expectNone(t *testing.T, r *Reader, d time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if e, err := r.Next(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Next = %d %q %v; want nothing before the deadline", e.N, e.Payload, err)
	}
}

// TestOnCluster starts one cluster of three masters and runs the tests of
// the log on it, each under a prefix of its own.
func TestOnCluster(t *testing.T) {
	rdb := redistest.Start(t, 3, 0).Client()
	for _, tc := range []struct {
		name string
		test func(*testing.T, *redis.ClusterClient)
	}{
		{"Fates", testFates},
		{"Notes", testNotes},
		{"NotesResume", testNotesResume},
		{"LateNote", testLateNote},
		{"Order", testOrder},
		{"PendingThenCommitted", testPendingThenCommitted},
		{"Resume", testResume},
		{"Trim", testTrim},
		{"Spread", testSpread},
		{"Config", testConfig},
		{"Signatures", testSignatures},
		{"SignatureNotes", testSignatureNotes},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.test(t, rdb) })
	}
}

// testFates: what a reader delivers of a few numbers whose entries and
// fates are set beforehand.
func testFates(t *testing.T, rdb *redis.ClusterClient) {
	type appended struct {
		n uint32
		p string
	}
	for _, tc := range []struct {
		name    string
		appends []appended
		fates   map[uint32]Fate
		want    []got
		missing bool // then ErrMissing
	}{
		{
			name:    "all committed",
			appends: []appended{{0, "a"}, {1, "b"}, {2, "c"}},
			fates:   map[uint32]Fate{0: Committed, 1: Committed, 2: Committed},
			want:    []got{{0, "a"}, {1, "b"}, {2, "c"}},
		},
		{
			name:    "given up after its append (died before its commit): skipped",
			appends: []appended{{0, "a"}, {1, "b"}, {2, "c"}},
			fates:   map[uint32]Fate{0: Committed, 1: GivenUp, 2: Committed},
			want:    []got{{0, "a"}, {2, "c"}},
		},
		{
			name:    "given up before its append: skipped",
			appends: []appended{{0, "a"}, {2, "c"}},
			fates:   map[uint32]Fate{0: GivenUp, 1: GivenUp, 2: Committed},
			want:    []got{{2, "c"}},
		},
		{
			name:    "duplicate append: delivered once, the first payload",
			appends: []appended{{0, "a"}, {1, "b"}, {1, "b again"}, {0, "a"}, {2, "c"}},
			fates:   map[uint32]Fate{0: Committed, 1: Committed, 2: Committed},
			want:    []got{{0, "a"}, {1, "b"}, {2, "c"}},
		},
		{
			name:    "pending: nothing after it",
			appends: []appended{{0, "a"}, {1, "b"}, {2, "c"}},
			fates:   map[uint32]Fate{0: Committed, 2: Committed},
			want:    []got{{0, "a"}},
		},
		{
			name:    "committed without an entry: ErrMissing after the ones before",
			appends: []appended{{0, "a"}, {2, "c"}},
			fates:   map[uint32]Fate{0: Committed, 1: Committed, 2: Committed},
			want:    []got{{0, "a"}},
			missing: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := open(t, rdb, Options{})
			for _, a := range tc.appends {
				if err := l.Append(context.Background(), a.n, []byte(a.p)); err != nil {
					t.Fatal(err)
				}
			}
			fates := newFates()
			for n, f := range tc.fates {
				fates.set(n, f)
			}
			r := l.Reader(fates, 0, ReaderOptions{Poll: 20 * time.Millisecond})
			if out := readN(t, r, len(tc.want)); !slices.Equal(out, tc.want) {
				t.Fatalf("read %v, want %v", out, tc.want)
			}
			if !tc.missing {
				expectNone(t, r, 150*time.Millisecond)
				return
			}
			if _, err := r.Next(context.Background()); !errors.Is(err, ErrMissing) {
				t.Fatalf("Next = %v, want ErrMissing", err)
			}
			if p := r.Position(); p != 1 {
				t.Errorf("Position after ErrMissing = %d, want 1 (before the missing number)", p)
			}
		})
	}
}

// item is an entry as a reader returned it, a page entry or a note.
type item struct {
	N       uint32
	Note    bool
	Payload string
}

// page and note are the items of a page entry and of a note.
func page(n uint32, p string) item { return item{n, false, p} }
func note(n uint32, p string) item { return item{n, true, p} }

// readItems reads want entries, page entries or notes, with r (failing
// the test after 20 s) and returns them; a page entry must have its
// number's cluster (clusterOf), a note none.
func readItems(t *testing.T, r *Reader, want int) []item {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out []item
	for len(out) < want {
		e, err := r.Next(ctx)
		if err != nil {
			t.Fatalf("Next after %d entries %v: %v", len(out), out, err)
		}
		if cluster := clusterOf(e.N); e.Note {
			cluster = ""
		} else if e.Cluster != cluster {
			t.Fatalf("entry %d (note %v) in cluster %q, want %q", e.N, e.Note, e.Cluster, cluster)
		}
		out = append(out, item{e.N, e.Note, string(e.Payload)})
	}
	return out
}

// testNotes: what a reader delivers of page entries and notes whose
// fates are set beforehand: a note whatever its number's fate, a page
// entry of a committed number only, the first entry of a number only.
func testNotes(t *testing.T, rdb *redis.ClusterClient) {
	const C, G = Committed, GivenUp
	for _, tc := range []struct {
		name    string
		appends []item // in this order
		fates   map[uint32]Fate
		want    []item
		missing bool // then ErrMissing after want
	}{
		{
			name: "notes under given-up and committed numbers, between page entries",
			appends: []item{page(0, "a"), note(1, "skipped"), page(2, "died before its commit"),
				note(3, "committed note"), page(4, "b"), note(6, "failed"), page(7, "c")},
			fates: map[uint32]Fate{0: C, 1: G, 2: G, 3: C, 4: C, 5: G, 6: G, 7: C},
			want:  []item{page(0, "a"), note(1, "skipped"), note(3, "committed note"), page(4, "b"), note(6, "failed"), page(7, "c")},
		},
		{
			name:    "only notes, given up, one empty",
			appends: []item{note(0, "x"), note(1, ""), note(2, "z")},
			fates:   map[uint32]Fate{0: G, 1: G, 2: G},
			want:    []item{note(0, "x"), note(1, ""), note(2, "z")},
		},
		{
			name:    "a pending number with a note: nothing after it",
			appends: []item{note(0, "x"), note(1, "y"), note(2, "z"), page(3, "a")},
			fates:   map[uint32]Fate{0: G, 2: G, 3: C},
			want:    []item{note(0, "x")},
		},
		{
			name:    "a second note for a number: the first kept",
			appends: []item{note(0, "first"), note(0, "second"), note(1, "first"), note(1, "second")},
			fates:   map[uint32]Fate{0: G, 1: C},
			want:    []item{note(0, "first"), note(1, "first")},
		},
		{
			name:    "a page entry after a note: the note kept",
			appends: []item{note(0, "note"), page(0, "page"), note(1, "note"), page(1, "page")},
			fates:   map[uint32]Fate{0: G, 1: C},
			want:    []item{note(0, "note"), note(1, "note")},
		},
		{
			name:    "a note after a page entry: the page entry kept (skipped if given up)",
			appends: []item{page(0, "page"), note(0, "note"), page(1, "page"), note(1, "note")},
			fates:   map[uint32]Fate{0: G, 1: C},
			want:    []item{page(1, "page")},
		},
		{
			name:    "committed without an entry after a note: the note, then ErrMissing",
			appends: []item{note(0, "x"), page(2, "a")},
			fates:   map[uint32]Fate{0: G, 1: C, 2: C},
			want:    []item{note(0, "x")},
			missing: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := open(t, rdb, Options{})
			for _, a := range tc.appends {
				add := l.Append
				if a.Note {
					add = l.AppendNote
				}
				if err := add(context.Background(), a.N, []byte(a.Payload)); err != nil {
					t.Fatal(err)
				}
			}
			fates := newFates()
			for n, f := range tc.fates {
				fates.set(n, f)
			}
			r := l.Reader(fates, 0, ReaderOptions{Poll: 20 * time.Millisecond})
			if out := readItems(t, r, len(tc.want)); !slices.Equal(out, tc.want) {
				t.Fatalf("read %v, want %v", out, tc.want)
			}
			if !tc.missing {
				expectNone(t, r, 100*time.Millisecond)
				return
			}
			if _, err := r.Next(context.Background()); !errors.Is(err, ErrMissing) {
				t.Fatalf("Next = %v, want ErrMissing", err)
			}
			if p := r.Position(); p != 1 {
				t.Errorf("Position after ErrMissing = %d, want 1 (before the missing number)", p)
			}
		})
	}
}

// testNotesResume: readers made from the positions of another, taken
// between its notes, deliver every entry after it once: with numbers n of
// five kinds by n mod 5 (a committed page entry, a note given up, a page
// entry given up, a committed note, a number given up without an entry).
func testNotesResume(t *testing.T, rdb *redis.ClusterClient) {
	ctx := context.Background()
	l := open(t, rdb, Options{Shards: 4, Chunk: 4})
	fates := newFates()
	var want []item
	for n := range uint32(40) {
		p := fmt.Sprint("entry ", n)
		var err error
		switch n % 5 {
		case 0:
			err = l.Append(ctx, n, []byte(p))
			fates.set(n, Committed)
			want = append(want, page(n, p))
		case 1:
			err = l.AppendNote(ctx, n, []byte(p))
			fates.set(n, GivenUp)
			want = append(want, note(n, p))
		case 2:
			err = l.Append(ctx, n, []byte(p))
			fates.set(n, GivenUp)
		case 3:
			err = l.AppendNote(ctx, n, []byte(p))
			fates.set(n, Committed)
			want = append(want, note(n, p))
		case 4:
			fates.set(n, GivenUp)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name   string
		batch  int
		first  int    // entries read before the position is taken
		wantAt uint32 // the position then
	}{
		{"after a page entry, mid-batch", 4, 1, 1},
		{"after a given-up note, mid-batch", 4, 2, 2},
		{"after a committed note, at the batch's end", 4, 3, 4},
		{"after a committed note, batch of 1", 1, 3, 4},
		{"after a committed note, one batch for all", 64, 9, 14},
		{"after the last", 8, len(want), 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := l.Reader(fates, 0, ReaderOptions{Batch: tc.batch, Poll: 10 * time.Millisecond})
			first := readItems(t, r, tc.first)
			pos := r.Position()
			if pos != tc.wantAt {
				t.Errorf("Position after %v = %d, want %d", first, pos, tc.wantAt)
			}
			resumed := l.Reader(fates, pos, ReaderOptions{Batch: 3, Poll: 10 * time.Millisecond})
			rest := readItems(t, resumed, len(want)-tc.first)
			if all := append(first, rest...); !slices.Equal(all, want) {
				t.Fatalf("read %v then %v from %d, want %v", first, rest, pos, want)
			}
			if cont := readItems(t, r, len(want)-tc.first); !slices.Equal(cont, rest) {
				t.Fatalf("the first reader went on with %v, the resumed one read %v", cont, rest)
			}
			expectNone(t, resumed, 50*time.Millisecond)
			expectNone(t, r, 50*time.Millisecond)
		})
	}
}

// testLateNote: a note appended under a number given up after the reader
// read past it is not delivered (not late, out of order), and the numbers
// after it are delivered once.
func testLateNote(t *testing.T, rdb *redis.ClusterClient) {
	ctx := context.Background()
	l := open(t, rdb, Options{})
	fates := newFates()
	fates.set(0, GivenUp) // its worker's lease ran out, its note not yet appended
	fates.set(1, Committed)
	if err := l.Append(ctx, 1, []byte("a")); err != nil {
		t.Fatal(err)
	}
	r := l.Reader(fates, 0, ReaderOptions{Poll: 10 * time.Millisecond})
	if out := readItems(t, r, 1); out[0] != page(1, "a") {
		t.Fatalf("read %v, want 1", out)
	}
	if err := l.AppendNote(ctx, 0, []byte("late")); err != nil {
		t.Fatal(err)
	}
	if err := l.AppendNote(ctx, 2, []byte("in time")); err != nil {
		t.Fatal(err)
	}
	fates.set(2, GivenUp)
	if out := readItems(t, r, 1); out[0] != note(2, "in time") {
		t.Fatalf("read %v after a late note under 0, want the note of 2", out)
	}
	expectNone(t, r, 100*time.Millisecond)
	if p := r.Position(); p != 3 {
		t.Errorf("Position = %d, want 3", p)
	}
}

// testOrder: four workers append their numbers out of order and commit
// each after its append (or give it up, before or after its append),
// while a reader reads: it returns every committed number once, in
// increasing order, with its payload, and none given up.
func testOrder(t *testing.T, rdb *redis.ClusterClient) {
	const total, workers = 400, 4
	l := open(t, rdb, Options{Shards: 8, Chunk: 16})
	fates := newFates()
	var want []got
	for n := range uint32(total) {
		if n%7 != 3 && n%11 != 5 {
			want = append(want, got{n, string(payload(n))})
		}
	}
	nums := make([]uint32, total)
	for i := range nums {
		nums[i] = uint32(i)
	}
	rand.Shuffle(len(nums), func(i, j int) { nums[i], nums[j] = nums[j], nums[i] })
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < total; i += workers {
				n := nums[i]
				if n%11 == 5 { // dies before its append
					fates.set(n, GivenUp)
					continue
				}
				if err := l.Append(context.Background(), n, payload(n)); err != nil {
					t.Error(err)
					return
				}
				if n%7 == 3 { // dies between its append and its commit
					fates.set(n, GivenUp)
					continue
				}
				fates.set(n, Committed)
			}
		})
	}
	out := readN(t, l.Reader(fates, 0, ReaderOptions{Batch: 32, Poll: 10 * time.Millisecond}), len(want))
	wg.Wait()
	if !slices.Equal(out, want) {
		t.Fatalf("read %d entries, want %d; first difference at %d", len(out), len(want), firstDiff(out, want))
	}
}

// firstDiff returns the first index where a and b differ.
func firstDiff(a, b []got) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// testPendingThenCommitted: a reader waits on a pending number with its
// entry appended, and returns it once it is committed; a reader waiting
// returns when its context ends.
func testPendingThenCommitted(t *testing.T, rdb *redis.ClusterClient) {
	l := open(t, rdb, Options{})
	fates := newFates()
	if err := l.Append(context.Background(), 0, payload(0)); err != nil {
		t.Fatal(err)
	}
	r := l.Reader(fates, 0, ReaderOptions{Poll: 20 * time.Millisecond})
	done := make(chan got, 1)
	go func() {
		e, err := r.Next(context.Background())
		if err != nil {
			t.Error(err)
		}
		done <- got{e.N, string(e.Payload)}
	}()
	select {
	case g := <-done:
		t.Fatalf("Next returned %v while 0 was pending", g)
	case <-time.After(200 * time.Millisecond):
	}
	fates.set(0, Committed)
	select {
	case g := <-done:
		if want := (got{0, string(payload(0))}); g != want {
			t.Fatalf("Next = %v, want %v", g, want)
		}
	case <-time.After(time.Minute): // a bound against a hang: a busy machine may take seconds
		t.Fatal("Next did not return a minute after its number was committed")
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	if _, err := r.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Next on a pending number, its context canceled = %v", err)
	}
}

// testResume: a reader made from another's position returns the entries
// the first one would have returned next.
func testResume(t *testing.T, rdb *redis.ClusterClient) {
	l := open(t, rdb, Options{})
	fates := newFates()
	var want []got
	for n := range uint32(30) {
		if err := l.Append(context.Background(), n, payload(n)); err != nil {
			t.Fatal(err)
		}
		if n%5 == 4 {
			fates.set(n, GivenUp)
			continue
		}
		fates.set(n, Committed)
		want = append(want, got{n, string(payload(n))})
	}
	r := l.Reader(fates, 0, ReaderOptions{Batch: 4})
	first := readN(t, r, 10)
	pos := r.Position()
	if pos != first[9].N+1 {
		t.Fatalf("Position = %d after %v", pos, first[9])
	}
	rest := readN(t, l.Reader(fates, pos, ReaderOptions{Batch: 7}), len(want)-10)
	if all := append(first, rest...); !slices.Equal(all, want) {
		t.Fatalf("read %v then %v from %d, want %v", first, rest, pos, want)
	}
}

// keysOf returns the number of keys of shard entries (not the
// configuration or trim marks) under l's prefix, by master.
func keysOf(t *testing.T, rdb *redis.ClusterClient, l *Log) map[string]int64 {
	t.Helper()
	counts := map[string]int64{}
	for addr, keys := range redistest.KeysPerMaster(t, rdb, "{"+l.base+"/*}:*") {
		for _, k := range keys {
			if !strings.HasSuffix(k, ":trim") {
				counts[addr]++
			}
		}
		if _, ok := counts[addr]; !ok {
			counts[addr] = 0
		}
	}
	return counts
}

// total returns the sum of counts.
func total(counts map[string]int64) int64 {
	var s int64
	for _, n := range counts {
		s += n
	}
	return s
}

// testTrim: a trim deletes the entries below its mark (whole chunks and
// part of one), keeps the others, and refuses a late append below it.
func testTrim(t *testing.T, rdb *redis.ClusterClient) {
	ctx := context.Background()
	l := open(t, rdb, Options{Shards: 4, Chunk: 8}) // 32 numbers a chunk of each shard
	fates := newFates()
	for n := range uint32(100) {
		if err := l.Append(ctx, n, payload(n)); err != nil {
			t.Fatal(err)
		}
		fates.set(n, Committed)
	}
	if n := total(keysOf(t, rdb, l)); n != 16 { // chunks 0-3 of 4 shards
		t.Fatalf("%d chunks before the trim, want 16", n)
	}
	for _, below := range []uint32{70, 50} { // the second changes nothing
		if err := l.Trim(ctx, below); err != nil {
			t.Fatal(err)
		}
		if n := total(keysOf(t, rdb, l)); n != 8 { // chunks 0 and 1 of each shard deleted
			t.Fatalf("%d chunks after a trim below %d, want 8", n, below)
		}
	}
	all := make([]uint32, 100)
	for i := range all {
		all[i] = uint32(i)
	}
	if err := l.Append(ctx, 5, []byte("late")); err != nil {
		t.Fatal(err)
	}
	if err := l.AppendNote(ctx, 6, []byte("late note")); err != nil {
		t.Fatal(err)
	}
	got, err := l.read(ctx, all)
	if err != nil {
		t.Fatal(err)
	}
	for n, p := range got {
		if kept := n >= 70; kept != (p != nil) {
			t.Errorf("entry %d after a trim below 70 (and late appends of 5 and 6): %q", n, p)
		}
	}
	if _, err := l.Reader(fates, 0, ReaderOptions{}).Next(ctx); !errors.Is(err, ErrMissing) {
		t.Errorf("a reader from 0 after a trim below 70: %v, want ErrMissing", err)
	}
	out := readN(t, l.Reader(fates, 70, ReaderOptions{}), 30)
	if out[0].N != 70 || out[29].N != 99 {
		t.Errorf("a reader from 70 read %v … %v", out[0], out[29])
	}
}

// testSpread: consecutive numbers are written on every master.
func testSpread(t *testing.T, rdb *redis.ClusterClient) {
	l := open(t, rdb, Options{})
	for n := range uint32(16) {
		if err := l.Append(context.Background(), n, payload(n)); err != nil {
			t.Fatal(err)
		}
	}
	counts := keysOf(t, rdb, l)
	if len(counts) != 3 {
		t.Fatalf("%d masters", len(counts))
	}
	for addr, n := range counts {
		if n < 2 {
			t.Errorf("master %s holds %d of the 16 chunks of 16 consecutive numbers: not spread", addr, n)
		}
	}
}

// testConfig: a log opened with other shards or chunks is refused, and so
// is a prefix with a brace.
func testConfig(t *testing.T, rdb *redis.ClusterClient) {
	l := open(t, rdb, Options{Shards: 8, Chunk: 64})
	for _, tc := range []struct {
		name string
		opts Options
		ok   bool
	}{
		{"same", Options{Shards: 8, Chunk: 64}, true},
		{"shards", Options{Shards: 16, Chunk: 64}, false},
		{"chunk", Options{Shards: 8}, false},
	} {
		tc.opts.Prefix = l.Options().Prefix
		_, err := Open(context.Background(), rdb, tc.opts)
		if tc.ok != (err == nil) || !tc.ok && !errors.Is(err, ErrConfig) {
			t.Errorf("%s: Open = %v", tc.name, err)
		}
	}
	if _, err := Open(context.Background(), rdb, Options{Prefix: "a{b}"}); err == nil {
		t.Error("a prefix with a brace was accepted")
	}
}

// TestKilledMaster: workers append and commit while a reader reads, and
// a master is killed midway (a replica takes over; the appends to its
// shards are retried through the failover): every committed entry is
// delivered exactly once, in order, because an append returns only once
// a replica has it.
func TestKilledMaster(t *testing.T) {
	cluster := redistest.Start(t, 3, 1)
	rdb := cluster.Client()
	l := open(t, rdb, Options{Replicas: 1, Shards: 6})
	fates := newFates()
	const total, workers, killAt = 600, 3, 150
	var next atomic.Uint32
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				n := next.Add(1) - 1
				if n >= total {
					return
				}
				time.Sleep(5 * time.Millisecond) // a page's work
				if n%10 == 9 {                   // dies before its append
					fates.set(n, GivenUp)
					continue
				}
				if err := l.Append(context.Background(), n, payload(n)); err != nil {
					t.Error(err)
					return
				}
				fates.set(n, Committed)
			}
		})
	}
	var want []got
	for n := range uint32(total) {
		if n%10 != 9 {
			want = append(want, got{n, string(payload(n))})
		}
	}
	done := make(chan []got)
	r := l.Reader(fates, 0, ReaderOptions{Batch: 50, Poll: 20 * time.Millisecond})
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		var out []got
		for len(out) < len(want) {
			e, err := r.Next(ctx)
			if err != nil {
				t.Errorf("Next after %d entries: %v", len(out), err)
				break
			}
			out = append(out, got{e.N, string(e.Payload)})
		}
		done <- out
	}()
	for next.Load() < killAt {
		time.Sleep(time.Millisecond)
	}
	killed := time.Now()
	cluster.KillMaster(cluster.Masters()[0])
	t.Logf("a replica took over in %v; %d numbers of %d taken by then", time.Since(killed).Round(time.Millisecond), next.Load(), total)
	wg.Wait()
	out := <-done
	if !slices.Equal(out, want) {
		t.Fatalf("read %d entries, want %d; first difference at %d", len(out), len(want), firstDiff(out, want))
	}
}
