package frontier

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
)

func open(t testing.TB, path string) *Frontier {
	t.Helper()
	f, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func tempFrontier(t testing.TB) *Frontier {
	t.Helper()
	f := open(t, filepath.Join(t.TempDir(), "frontier.db"))
	t.Cleanup(func() { f.Close() })
	return f
}

// drain pops everything, returning the URLs in order, without marking Done.
func drain(t testing.TB, f *Frontier) []string {
	t.Helper()
	var got []string
	for {
		it, err := f.Next()
		if errors.Is(err, ErrEmpty) {
			return got
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, it.URL)
	}
}

type add struct {
	url  string
	prio int
}

func TestPriorityOrder(t *testing.T) {
	tests := []struct {
		name string
		adds []add
		want []string
	}{
		{"empty", nil, nil},
		{"fifo", []add{{"a", 0}, {"b", 0}, {"c", 0}}, []string{"a", "b", "c"}},
		{"higher first", []add{{"lo", 1}, {"hi", 9}, {"mid", 5}}, []string{"hi", "mid", "lo"}},
		{"negative", []add{{"neg", -5}, {"zero", 0}, {"min", -1 << 62}, {"max", 1 << 62}}, []string{"max", "zero", "neg", "min"}},
		{"fifo within priority", []add{{"a1", 1}, {"b0", 0}, {"a2", 1}, {"b1", 0}, {"a3", 1}}, []string{"a1", "a2", "a3", "b0", "b1"}},
		{"dedup keeps first", []add{{"x", 0}, {"y", 0}, {"x", 9}}, []string{"x", "y"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := tempFrontier(t)
			for _, a := range tc.adds {
				if _, err := f.Add(a.url, a.prio, nil); err != nil {
					t.Fatal(err)
				}
			}
			if got := drain(t, f); !slices.Equal(got, tc.want) {
				t.Errorf("order = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestDedupAndDone(t *testing.T) {
	f := tempFrontier(t)
	mustAdd := func(u string, want bool) {
		t.Helper()
		added, err := f.Add(u, 0, nil)
		if err != nil || added != want {
			t.Fatalf("Add(%q) = %v, %v; want %v", u, added, err, want)
		}
	}
	mustStats := func(want Stats) {
		t.Helper()
		if got, _ := f.Stats(); got != want {
			t.Fatalf("Stats = %+v, want %+v", got, want)
		}
		if n, _ := f.QueueSize(); n != want.Pending {
			t.Fatalf("QueueSize = %d, want %d", n, want.Pending)
		}
	}
	mustAdd("a", true)
	mustAdd("b", true)
	mustAdd("c", true)
	mustAdd("a", false) // pending
	mustStats(Stats{Pending: 3})
	it, err := f.Next()
	if err != nil || it.URL != "a" {
		t.Fatalf("Next = %+v, %v", it, err)
	}
	mustAdd("a", false) // in flight
	mustStats(Stats{Pending: 2, InFlight: 1})
	if err := f.Done("a", "fetched"); err != nil {
		t.Fatal(err)
	}
	mustAdd("a", false) // done
	mustStats(Stats{Pending: 2, Done: 1})
	if err := f.Done("b", "skipped: robots"); err != nil { // pending → done leaves the queue
		t.Fatal(err)
	}
	mustStats(Stats{Pending: 1, Done: 2})
	if err := f.Done("zz", "skipped: trap"); err != nil { // unknown → done, never enqueued
		t.Fatal(err)
	}
	mustAdd("zz", false)
	if err := f.Done("a", "refetched"); err != nil { // done → new outcome
		t.Fatal(err)
	}
	mustStats(Stats{Pending: 1, Done: 3})
	if got := drain(t, f); !slices.Equal(got, []string{"c"}) {
		t.Fatalf("remaining = %v, want [c]", got)
	}
	mustStats(Stats{InFlight: 1, Done: 3})
	got := map[string]string{}
	if err := f.All(func(u string, s State, outcome string) error {
		got[u] = s.String() + ":" + outcome
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": "done:refetched", "b": "done:skipped: robots", "c": "inflight:", "zz": "done:skipped: trap"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("All = %v, want %v", got, want)
	}
	stop := errors.New("stop")
	if err := f.All(func(string, State, string) error { return stop }); err != stop {
		t.Fatalf("All did not return fn's error: %v", err)
	}
	if _, err := f.Add("", 0, nil); !errors.Is(err, ErrBadRequest) {
		t.Fatalf("Add(\"\") error = %v", err)
	}
	if err := f.Done("", ""); !errors.Is(err, ErrBadRequest) {
		t.Fatalf("Done(\"\") error = %v", err)
	}
}

func TestReopenRequeuesInFlight(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.db")
	f := open(t, path)
	for i, u := range []string{"a", "b", "c", "d", "e"} {
		if _, err := f.Add(u, i%2, []byte("payload-"+u)); err != nil {
			t.Fatal(err)
		}
	}
	// Order: b, d (priority 1), then a, c, e.
	for range 3 {
		if _, err := f.Next(); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Done("d", "ok"); err != nil { // b and a stay in flight
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	f = open(t, path)
	defer f.Close()
	if st, _ := f.Stats(); st != (Stats{Pending: 4, Done: 1}) {
		t.Fatalf("after reopen Stats = %+v", st)
	}
	var got []string
	for {
		it, err := f.Next()
		if err != nil {
			break
		}
		if string(it.Payload) != "payload-"+it.URL {
			t.Errorf("payload of %s = %q", it.URL, it.Payload)
		}
		got = append(got, it.URL)
	}
	if want := []string{"b", "a", "c", "e"}; !slices.Equal(got, want) {
		t.Fatalf("after reopen order = %v, want %v (in-flight back in place, done gone)", got, want)
	}
}

func TestScheduleDue(t *testing.T) {
	f := tempFrontier(t)
	t0 := time.Date(2026, 3, 5, 12, 0, 0, 0, time.UTC)
	for _, u := range []string{"a", "b"} {
		f.Add(u, 0, nil)
	}
	drain(t, f)
	f.Done("a", "ok")
	f.Done("b", "ok")
	f.Add("c", 0, nil) // stays pending
	if err := f.Schedule("a", t0.Add(time.Hour), 3); err != nil {
		t.Fatal(err)
	}
	if err := f.Schedule("b", t0.Add(2*time.Hour), 7); err != nil {
		t.Fatal(err)
	}
	if err := f.Schedule("c", t0, 0); err != nil {
		t.Fatal(err)
	}
	if err := f.Schedule("new", t0.Add(-time.Hour), 1); err != nil { // unknown URL
		t.Fatal(err)
	}
	if err := f.Schedule("b", t0.Add(30*time.Minute), 7); err != nil { // replaces
		t.Fatal(err)
	}
	if st, _ := f.Stats(); st != (Stats{Pending: 1, Done: 2, Scheduled: 4}) {
		t.Fatalf("Stats = %+v", st)
	}
	steps := []struct {
		at    time.Time
		moved int
		st    Stats
	}{
		{t0.Add(-2 * time.Hour), 0, Stats{Pending: 1, Done: 2, Scheduled: 4}},
		{t0, 1, Stats{Pending: 2, Done: 2, Scheduled: 2}}, // new moved; c already pending: consumed
		{t0.Add(30 * time.Minute), 1, Stats{Pending: 3, Done: 1, Scheduled: 1}},
		{t0.Add(30 * time.Minute), 0, Stats{Pending: 3, Done: 1, Scheduled: 1}},
		{t0.Add(3 * time.Hour), 1, Stats{Pending: 4, Scheduled: 0}},
	}
	for i, s := range steps {
		n, err := f.Due(s.at)
		if err != nil || n != s.moved {
			t.Fatalf("step %d: Due = %d, %v; want %d", i, n, err, s.moved)
		}
		if st, _ := f.Stats(); st != s.st {
			t.Fatalf("step %d: Stats = %+v, want %+v", i, st, s.st)
		}
	}
	// b (7) > a (3) > new (1) > c (0, oldest).
	var got []string
	for {
		b, err := f.GetRequest()
		if err != nil {
			break
		}
		req, err := colly.NewCollector().UnmarshalRequest(b)
		if err != nil {
			t.Fatalf("synthesized request %s: %v", b, err)
		}
		got = append(got, fmt.Sprint(req.URL, "@", req.Ctx.GetAny(PriorityKey)))
	}
	if want := []string{"b@7", "a@3", "new@1", "c@0"}; !slices.Equal(got, want) {
		t.Fatalf("after Due order = %v, want %v", got, want)
	}
}

func TestAddRequestColly(t *testing.T) {
	f := tempFrontier(t)
	c := colly.NewCollector()
	mk := func(u string, prio any) []byte {
		req, err := c.UnmarshalRequest([]byte(`{"URL":"` + u + `","Method":"GET"}`))
		if err != nil {
			t.Fatal(err)
		}
		if prio != nil {
			req.Ctx.Put(PriorityKey, prio)
		}
		b, err := req.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	reqs := [][]byte{mk("http://h/low", nil), mk("http://h/high", 10), mk("http://h/str", "5"), mk("http://h/high", 99)}
	for _, r := range reqs {
		if err := f.AddRequest(r); err != nil {
			t.Fatal(err)
		}
	}
	for i, want := range []int{1, 2, 0} {
		got, err := f.GetRequest()
		if err != nil || string(got) != string(reqs[want]) {
			t.Fatalf("GetRequest #%d = %s, %v; want %s", i, got, err, reqs[want])
		}
	}
	if _, err := f.GetRequest(); !errors.Is(err, ErrEmpty) {
		t.Fatalf("GetRequest on empty: %v, want ErrEmpty", err)
	}
	for _, bad := range [][]byte{[]byte("not json"), mk("http://h/x", "high"), mk("http://h/y", true), []byte(`{"Method":"GET"}`)} {
		if err := f.AddRequest(bad); !errors.Is(err, ErrBadRequest) {
			t.Errorf("AddRequest(%s) = %v, want ErrBadRequest", bad, err)
		}
	}
}

// TestModel checks random operations against an in-memory model, across
// reopenings, and Stats against a full scan.
func TestModel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.db")
	f := open(t, path)
	defer func() { f.Close() }()
	type entry struct {
		url  string
		prio int
		seq  int
	}
	var (
		rng     = rand.New(rand.NewPCG(1, 2))
		state   = map[string]State{}
		queue   []entry // pending, in pop order
		flight  = map[string]entry{}
		seq     int
		ops     = 3000
		pushPen = func(e entry) {
			queue = append(queue, e)
			sort.SliceStable(queue, func(i, j int) bool {
				if queue[i].prio != queue[j].prio {
					return queue[i].prio > queue[j].prio
				}
				return queue[i].seq < queue[j].seq
			})
		}
	)
	if testing.Short() {
		ops = 500
	}
	for i := range ops {
		switch op := rng.IntN(10); {
		case op < 4:
			u := fmt.Sprintf("u%d", rng.IntN(400))
			p := rng.IntN(5) - 2
			added, err := f.Add(u, p, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, seen := state[u]; added == seen {
				t.Fatalf("op %d: Add(%s) added=%v, seen=%v", i, u, added, seen)
			}
			if added {
				state[u] = Pending
				pushPen(entry{u, p, seq})
				seq++
			}
		case op < 7:
			it, err := f.Next()
			if len(queue) == 0 {
				if !errors.Is(err, ErrEmpty) {
					t.Fatalf("op %d: Next on empty = %v, %v", i, it, err)
				}
				continue
			}
			if err != nil || it.URL != queue[0].url || it.Priority != queue[0].prio {
				t.Fatalf("op %d: Next = %+v, %v; want %+v", i, it, err, queue[0])
			}
			flight[it.URL] = queue[0]
			state[it.URL] = InFlight
			queue = queue[1:]
		case op < 9:
			for u := range flight {
				if err := f.Done(u, "ok"); err != nil {
					t.Fatal(err)
				}
				delete(flight, u)
				state[u] = Done
				break
			}
		default: // crash-free reopen: in-flight return in their old places
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			f = open(t, path)
			for u, e := range flight {
				state[u] = Pending
				pushPen(e)
			}
			clear(flight)
		}
		var want Stats
		for _, s := range state {
			switch s {
			case Pending:
				want.Pending++
			case InFlight:
				want.InFlight++
			case Done:
				want.Done++
			}
		}
		if st, _ := f.Stats(); st != want {
			t.Fatalf("op %d: Stats = %+v, want %+v", i, st, want)
		}
	}
	n := 0
	f.All(func(u string, s State, _ string) error {
		n++
		if state[u] != s {
			t.Errorf("All: %s is %v, model says %v", u, s, state[u])
		}
		return nil
	})
	if n != len(state) {
		t.Fatalf("All saw %d URLs, model %d", n, len(state))
	}
}

func TestOpenLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.db")
	f := open(t, path)
	defer f.Close()
	if _, err := Open(path, Options{LockTimeout: 50 * time.Millisecond}); err == nil {
		t.Fatal("second Open of a locked frontier succeeded")
	}
}

// TestConcurrent has producers and consumers share a Frontier: every URL is
// handed out exactly once and the counters add up.
func TestConcurrent(t *testing.T) {
	f := tempFrontier(t)
	const producers, consumers, perProducer = 4, 4, 100
	var wg sync.WaitGroup
	for p := range producers {
		wg.Go(func() {
			for i := range perProducer {
				// Every producer adds the same URLs: dedup under contention.
				if _, err := f.Add(fmt.Sprintf("u%d", i), p, nil); err != nil {
					t.Error(err)
				}
			}
		})
	}
	var mu sync.Mutex
	seen := map[string]int{}
	for range consumers {
		wg.Go(func() {
			for range producers * perProducer {
				it, err := f.Next()
				if errors.Is(err, ErrEmpty) {
					continue
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				seen[it.URL]++
				mu.Unlock()
				if err := f.Done(it.URL, "ok"); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	for _, u := range drain(t, f) {
		seen[u]++
	}
	if len(seen) != perProducer {
		t.Fatalf("%d distinct URLs handed out, want %d", len(seen), perProducer)
	}
	for u, n := range seen {
		if n != 1 {
			t.Fatalf("%s handed out %d times", u, n)
		}
	}
	if st, _ := f.Stats(); st.Pending != 0 || st.InFlight+st.Done != perProducer {
		t.Fatalf("Stats = %+v", st)
	}
}

func TestSeen(t *testing.T) {
	f, err := Open(filepath.Join(t.TempDir(), "f.db"), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, step := range []struct {
		do   func() error
		url  string
		want bool
	}{
		{func() error { return nil }, "http://x/a", false},
		{func() error { _, err := f.Add("http://x/a", 1, nil); return err }, "http://x/a", true},
		{func() error { _, err := f.Next(); return err }, "http://x/a", true},
		{func() error { return f.Done("http://x/a", "fetched") }, "http://x/a", true},
		{func() error { return f.Done("http://x/b", "skipped") }, "http://x/b", true},
		{func() error { return nil }, "http://x/c", false},
	} {
		if err := step.do(); err != nil {
			t.Fatal(err)
		}
		if got, err := f.Seen(step.url); err != nil || got != step.want {
			t.Errorf("Seen(%s) = %v, %v; want %v", step.url, got, err, step.want)
		}
	}
}

func TestReprioritize(t *testing.T) {
	f, err := Open(filepath.Join(t.TempDir(), "f.db"), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, u := range []string{"http://x/family/1", "http://x/family/2", "http://x/unique"} {
		if _, err := f.Add(u, 10, []byte("payload of "+u)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.Next(); err != nil { // family/1 in flight
		t.Fatal(err)
	}
	for _, tc := range []struct {
		url  string
		want bool
	}{
		{"http://x/family/2", true},  // pending: demoted
		{"http://x/family/1", false}, // in flight: left alone
		{"http://x/none", false},     // unknown
	} {
		if got, err := f.Reprioritize(tc.url, -5); err != nil || got != tc.want {
			t.Errorf("Reprioritize(%s) = %v, %v; want %v", tc.url, got, err, tc.want)
		}
	}
	var order []string
	for {
		it, err := f.Next()
		if errors.Is(err, ErrEmpty) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if string(it.Payload) != "payload of "+it.URL {
			t.Errorf("payload of %s = %q", it.URL, it.Payload)
		}
		order = append(order, fmt.Sprintf("%s@%d", it.URL, it.Priority))
	}
	want := []string{"http://x/unique@10", "http://x/family/2@-5"}
	if !slices.Equal(order, want) {
		t.Errorf("order after demotion = %v, want %v", order, want)
	}
	if st, _ := f.Stats(); st.Pending != 0 || st.InFlight != 3 {
		t.Errorf("stats = %+v, want 0 pending, 3 in flight", st)
	}
}

// TestBatchCommit: a batch's adds, done marks and reprioritizations apply
// in order in one transaction — against a model of the same operations
// applied one by one — and a batch with a bad operation applies nothing.
func TestBatchCommit(t *testing.T) {
	f := tempFrontier(t)
	if _, err := f.Add("u/seen", 1, nil); err != nil {
		t.Fatal(err)
	}
	var b Batch
	for i := range 1000 { // many keys in random order: written sorted
		b.Add(fmt.Sprintf("u/%08d", rand.IntN(1<<30)), i%3, nil)
	}
	b.Add("u/seen", 9, nil) // known: not added
	b.Add("u/new", 5, []byte("p"))
	b.Add("u/new", 7, nil) // twice in one batch: the first wins
	b.Reprioritize("u/seen", 20)
	b.Done("u/gone", "skipped: trap")
	added, err := f.Commit(&b)
	if err != nil {
		t.Fatal(err)
	}
	if len(added) != 1003 || added[1000] || !added[1001] || added[1002] {
		t.Errorf("added flags for the known, new and repeated URL: %v %v %v", added[1000], added[1001], added[1002])
	}
	st, _ := f.Stats()
	if st.Pending != 2+distinctRandom(&b) || st.Done != 1 {
		t.Errorf("stats %+v", st)
	}
	first, err := f.Next()
	if err != nil || first.URL != "u/seen" || first.Priority != 20 {
		t.Errorf("first popped %+v, %v; want u/seen reprioritized to 20", first, err)
	}
	second, _ := f.Next()
	if second.URL != "u/new" || second.Priority != 5 || string(second.Payload) != "p" {
		t.Errorf("second popped %+v; want u/new at 5 with its payload", second)
	}

	var bad Batch
	bad.Add("u/x", 1, nil)
	bad.Done("", "no URL")
	if _, err := f.Commit(&bad); !errors.Is(err, ErrBadRequest) {
		t.Errorf("a batch with an empty URL: %v", err)
	}
	if seen, _ := f.Seen("u/x"); seen {
		t.Error("a failed batch applied its add")
	}
	// Only known adds: no write at all, all false.
	var known Batch
	known.Add("u/seen", 1, nil)
	if added, err := f.Commit(&known); err != nil || added[0] {
		t.Errorf("re-adding a known URL: %v, %v", added, err)
	}
}

// distinctRandom counts the distinct u/0… URLs added in b.
func distinctRandom(b *Batch) int {
	seen := map[string]bool{}
	for _, o := range b.ops {
		if o.kind == 'a' && o.url[2] >= '0' && o.url[2] <= '9' {
			seen[o.url] = true
		}
	}
	return len(seen)
}

func TestReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.db")
	f := open(t, path)
	f.Add("a", 1, nil)
	f.Add("b", 1, nil)
	if _, err := f.Next(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	r, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// A URL in flight is not written as such: on disk it is pending,
	// where a restart would put it back.
	if st, _ := r.Stats(); st.Pending != 2 || st.InFlight != 0 {
		t.Errorf("read-only stats %+v, want 2 pending", st)
	}
	if _, err := r.Add("c", 1, nil); err == nil {
		t.Error("Add on a read-only frontier succeeded")
	}
	if _, err := Open(filepath.Join(t.TempDir(), "none.db"), Options{ReadOnly: true}); err == nil {
		t.Error("a missing frontier opened read-only")
	}
}

func TestNextWhereAndDue(t *testing.T) {
	f := tempFrontier(t)
	for i, u := range []string{"http://a/1", "http://b/1", "http://a/2"} {
		if _, err := f.Add(u, 10-i, nil); err != nil {
			t.Fatal(err)
		}
	}
	notA := func(u string, _ []byte) bool { return !strings.HasPrefix(u, "http://a/") }
	it, err := f.NextWhere(notA, 0)
	if err != nil || it.URL != "http://b/1" {
		t.Fatalf("NextWhere(not a) = %+v, %v; want b/1", it, err)
	}
	if _, err := f.NextWhere(notA, 0); !errors.Is(err, ErrNotReady) {
		t.Errorf("only a's URLs left: %v, want ErrNotReady", err)
	}
	if _, err := f.NextWhere(func(string, []byte) bool { return true }, 1); err != nil {
		t.Errorf("limit 1: %v", err)
	}
	if _, ok := f.NextDue(); ok {
		t.Error("NextDue without a schedule")
	}
	var b Batch
	at := time.Unix(2000, 0)
	b.Done("http://b/1", "fetched")
	b.Schedule("http://b/1", at, 5, nil)
	b.Schedule("http://c/1", at.Add(time.Hour), 5, nil)
	if _, err := f.Commit(&b); err != nil {
		t.Fatal(err)
	}
	if got, ok := f.NextDue(); !ok || !got.Equal(at) {
		t.Errorf("NextDue = %v, %v; want %v", got, ok, at)
	}
	var sched []string
	_ = f.Scheduled(func(u string, when time.Time) error {
		sched = append(sched, u+"@"+when.UTC().Format(time.TimeOnly))
		return nil
	})
	if want := []string{"http://b/1@" + at.UTC().Format(time.TimeOnly), "http://c/1@" + at.Add(time.Hour).UTC().Format(time.TimeOnly)}; !slices.Equal(sched, want) {
		t.Errorf("Scheduled = %q; want %q", sched, want)
	}
	if n, err := f.Due(at); err != nil || n != 1 {
		t.Errorf("Due = %d, %v; want b/1 back", n, err)
	}
	if got, _ := f.NextDue(); !got.Equal(at.Add(time.Hour)) {
		t.Errorf("NextDue after Due = %v", got)
	}
}

// Requeue puts a popped URL back with a new payload (a retry) and a done
// one back in the queue; the counts follow.
func TestRequeue(t *testing.T) {
	f := tempFrontier(t)
	if _, err := f.Add("http://a/1", 10, []byte("first")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Add("http://a/2", 10, nil); err != nil {
		t.Fatal(err)
	}
	it, err := f.Next()
	if err != nil || it.URL != "http://a/1" {
		t.Fatalf("Next = %+v, %v", it, err)
	}
	var b Batch
	b.Requeue(it.URL, -10, []byte("retry 1"))
	b.Done("http://a/2", "fetched")
	b.Requeue("http://a/2", 5, []byte("again"))
	if _, err := f.Commit(&b); err != nil {
		t.Fatal(err)
	}
	if st, _ := f.Stats(); st.Pending != 2 || st.Done != 0 {
		t.Errorf("stats after requeue: %+v; want 2 pending, none done", st)
	}
	for _, want := range []string{"http://a/2 again", "http://a/1 retry 1"} {
		it, err := f.Next()
		if err != nil || it.URL+" "+string(it.Payload) != want {
			t.Errorf("Next = %+v, %v; want %s", it, err, want)
		}
	}
}
