package frontiertest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler/frontier"
)

var at0 = time.Date(2026, 3, 5, 12, 0, 0, 0, time.UTC)

const hour = time.Hour

// due calls Due(now) and checks it moved want URLs.
func due(h *harness, now time.Time, want int) {
	h.t.Helper()
	if n, err := h.q.Due(now); err != nil || n != want {
		h.t.Fatalf("Due(%v) = %d, %v; want %d", now, n, err, want)
	}
}

// testNextWhere: accept sees pending URLs in queue order, once each, URLs
// in flight skipped and not counted against limit; it returns the URL
// accepted, ErrNotReady when none of those looked at was, ErrEmpty when
// none is pending.
func testNextWhere(t *testing.T, open Opener) {
	notA := func(u string) bool { return !strings.HasPrefix(u, "http://a/") }
	onlyC := func(u string) bool { return strings.HasPrefix(u, "http://c/") }
	none := func(string) bool { return false }
	tests := []struct {
		name    string
		claimed int // URLs claimed first
		accept  func(string) bool
		limit   int
		want    string // "" for an error
		err     error
		calls   []string
	}{
		{"nil accept", 0, nil, 0, "http://a/1", nil, nil},
		{"skips", 0, notA, 0, "http://b/1", nil, []string{"http://a/1", "http://b/1"}},
		{"deep", 0, onlyC, 0, "http://c/1", nil, []string{"http://a/1", "http://b/1", "http://a/2", "http://c/1"}},
		{"none ready", 0, none, 0, "", frontier.ErrNotReady, []string{"http://a/1", "http://b/1", "http://a/2", "http://c/1"}},
		{"limit", 0, notA, 1, "", frontier.ErrNotReady, []string{"http://a/1"}},
		{"limit reached", 0, notA, 2, "http://b/1", nil, []string{"http://a/1", "http://b/1"}},
		{"in flight not counted", 2, func(string) bool { return true }, 1, "http://a/2", nil, []string{"http://a/2"}},
		{"in flight skipped", 2, none, 0, "", frontier.ErrNotReady, []string{"http://a/2", "http://c/1"}},
		{"all in flight", 4, none, 0, "", frontier.ErrEmpty, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := start(t, open)
			for i, u := range []string{"http://a/1", "http://b/1", "http://a/2", "http://c/1"} {
				h.add(u, 10-i, []byte("payload "+u))
			}
			for range tc.claimed {
				h.next()
			}
			var calls []string
			var accept func(string, []byte) bool
			if tc.accept != nil {
				accept = func(u string, payload []byte) bool {
					calls = append(calls, u)
					if string(payload) != "payload "+u {
						t.Errorf("accept(%s) saw payload %q", u, payload)
					}
					return tc.accept(u)
				}
			}
			before, _ := h.q.Stats()
			it, err := h.q.NextWhere(accept, tc.limit)
			if it.URL != tc.want || !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
				t.Fatalf("NextWhere = %q, %v; want %q, %v", it.URL, err, tc.want, tc.err)
			}
			if !slices.Equal(calls, tc.calls) {
				t.Errorf("accept called for %q, want %q", calls, tc.calls)
			}
			if err != nil {
				h.checkStats(before)
				return
			}
			if string(it.Payload) != "payload "+it.URL || it.Priority == 0 {
				t.Errorf("claimed %+v: payload or priority lost", it)
			}
			h.checkStats(frontier.Stats{Pending: before.Pending - 1, InFlight: before.InFlight + 1})
			if got := h.states()[it.URL]; got != "inflight" {
				t.Errorf("%s is %s after its claim, want inflight", it.URL, got)
			}
			for _, rest := range h.drain() {
				if rest.URL == it.URL {
					t.Errorf("%s handed out twice", it.URL)
				}
			}
		})
	}
}

// testScheduleDue: Due queues the due revisits of done and unknown URLs at
// their scheduled priority and payload, consumes those of URLs pending or
// in flight (raising a pending URL queued at a lower priority to the
// revisit's, never lowering one), and leaves the others; the counters
// follow.
func testScheduleDue(t *testing.T, open Opener) {
	h := start(t, open)
	h.add("f", 5, nil)
	h.nextURL("f") // in flight
	h.adds("a", "b")
	h.nextURL("a")
	h.nextURL("b")
	h.done("a", "ok")
	h.done("b", "ok")
	h.adds("c")                // stays pending
	h.add("d", 0, []byte("d")) // pending, raised by its revisit
	h.add("e", 6, nil)         // pending, not lowered by its revisit
	h.schedule("a", at0.Add(hour), 3, nil)
	h.schedule("b", at0.Add(2*hour), 7, nil)
	h.schedule("c", at0, 0, nil)
	h.schedule("f", at0, 2, nil)
	h.schedule("new", at0.Add(-hour), 1, []byte("n")) // never seen
	h.schedule("b", at0.Add(30*time.Minute), 7, nil)  // replaces
	h.schedule("d", at0, 5, []byte("x"))
	h.schedule("e", at0, 2, nil)
	h.checkStats(frontier.Stats{Pending: 3, InFlight: 1, Done: 2, Scheduled: 7})
	steps := []struct {
		now   time.Time
		moved int
		st    frontier.Stats
		next  time.Time // NextDue after; zero: none
	}{
		{at0.Add(-2 * hour), 0, frontier.Stats{Pending: 3, InFlight: 1, Done: 2, Scheduled: 7}, at0.Add(-hour)},
		{at0, 1, frontier.Stats{Pending: 4, InFlight: 1, Done: 2, Scheduled: 2}, at0.Add(30 * time.Minute)}, // new; c, d, e and f consumed
		{at0.Add(30 * time.Minute), 1, frontier.Stats{Pending: 5, InFlight: 1, Done: 1, Scheduled: 1}, at0.Add(hour)},
		{at0.Add(30 * time.Minute), 0, frontier.Stats{Pending: 5, InFlight: 1, Done: 1, Scheduled: 1}, at0.Add(hour)},
		{at0.Add(3 * hour), 1, frontier.Stats{Pending: 6, InFlight: 1}, time.Time{}},
	}
	for i, s := range steps {
		due(h, s.now, s.moved)
		h.checkStats(s.st)
		at, ok := h.q.NextDue()
		if ok != !s.next.IsZero() || !at.Equal(s.next) {
			t.Errorf("step %d: NextDue = %v, %v; want %v", i, at, ok, s.next)
		}
	}
	var got []string
	for _, it := range h.drain() {
		got = append(got, fmt.Sprintf("%s@%d:%s", it.URL, it.Priority, it.Payload))
	}
	if want := []string{"b@7:", "e@6:", "d@5:d", "a@3:", "new@1:n", "c@0:"}; !slices.Equal(got, want) {
		t.Errorf("after Due claimed %v, want %v", got, want)
	}
	if st := h.states()["f"]; st != "inflight" {
		t.Errorf("f is %s after its revisit was consumed, want still inflight", st)
	}
}

// testScheduled: Scheduled lists revisits in time order, one per URL (a
// new Schedule replaces), and stops at fn's error.
func testScheduled(t *testing.T, open Opener) {
	h := start(t, open)
	var b frontier.Batch
	b.Schedule("http://x/late", at0.Add(2*hour), 0, nil)
	b.Schedule("http://x/early", at0, 0, nil)
	b.Schedule("http://x/moved", at0.Add(3*hour), 0, nil)
	b.Schedule("http://x/moved", at0.Add(hour), 0, nil)
	h.commit(&b)
	want := []string{fmt.Sprint("http://x/early@", at0.Unix()), fmt.Sprint("http://x/moved@", at0.Add(hour).Unix()),
		fmt.Sprint("http://x/late@", at0.Add(2*hour).Unix())}
	if got := h.scheduled(); !slices.Equal(got, want) {
		t.Errorf("Scheduled = %q, want %q", got, want)
	}
	h.checkStats(frontier.Stats{Scheduled: 3})
	if at, ok := h.q.NextDue(); !ok || !at.Equal(at0) {
		t.Errorf("NextDue = %v, %v; want %v", at, ok, at0)
	}
	stop, calls := errors.New("stop"), 0
	if err := h.q.Scheduled(func(string, time.Time) error { calls++; return stop }); err != stop || calls != 1 {
		t.Errorf("Scheduled with a failing fn = %v after %d calls; want its error after 1", err, calls)
	}
}

// A model is the expected state of a queue under random operations.
type model struct {
	state  map[string]frontier.State
	queue  []entry // pending, in claim order
	flight map[string]entry
	seq    int
}

type entry struct {
	url  string
	prio int
	seq  int
}

func (m *model) push(e entry) {
	i, _ := slices.BinarySearchFunc(m.queue, e, func(a, b entry) int {
		if a.prio != b.prio {
			return b.prio - a.prio
		}
		return a.seq - b.seq
	})
	m.queue = slices.Insert(m.queue, i, e)
}

func (m *model) stats() frontier.Stats {
	var st frontier.Stats
	for _, s := range m.state {
		switch s {
		case frontier.Pending:
			st.Pending++
		case frontier.InFlight:
			st.InFlight++
		case frontier.Done:
			st.Done++
		}
	}
	return st
}

// testModel checks random adds, claims, dones and reopenings against a
// model, and the counters against it after every step.
func testModel(t *testing.T, open Opener) {
	h := start(t, open)
	m := &model{state: map[string]frontier.State{}, flight: map[string]entry{}}
	rng := rand.New(rand.NewPCG(1, 2))
	ops := 1500
	if testing.Short() {
		ops = 300
	}
	for i := range ops {
		switch op := rng.IntN(20); {
		case op < 8:
			modelAdd(h, m, fmt.Sprintf("u%d", rng.IntN(400)), rng.IntN(5)-2)
		case op < 14:
			modelClaim(h, m)
		case op < 19:
			modelDone(h, m)
		default: // the leases return in their old places
			h.reopen()
			for u, e := range m.flight {
				m.state[u] = frontier.Pending
				m.push(e)
			}
			clear(m.flight)
		}
		if st, _ := h.q.Stats(); st != m.stats() {
			t.Fatalf("op %d: Stats = %+v, want %+v", i, st, m.stats())
		}
	}
	got := h.states()
	if len(got) != len(m.state) {
		t.Fatalf("All saw %d URLs, model %d", len(got), len(m.state))
	}
	for u, s := range m.state {
		if !strings.HasPrefix(got[u], s.String()) {
			t.Errorf("All: %s is %s, model says %v", u, got[u], s)
		}
	}
}

func modelAdd(h *harness, m *model, u string, p int) {
	h.t.Helper()
	added := h.add(u, p, nil)
	if _, seen := m.state[u]; added == seen {
		h.t.Fatalf("Add(%s) added=%v, seen=%v", u, added, seen)
	}
	if added {
		m.state[u] = frontier.Pending
		m.push(entry{u, p, m.seq})
		m.seq++
	}
}

func modelClaim(h *harness, m *model) {
	h.t.Helper()
	it, err := h.q.NextWhere(nil, 0)
	if len(m.queue) == 0 {
		if !errors.Is(err, frontier.ErrEmpty) {
			h.t.Fatalf("NextWhere on empty = %v, %v", it, err)
		}
		return
	}
	if err != nil || it.URL != m.queue[0].url || it.Priority != m.queue[0].prio {
		h.t.Fatalf("NextWhere = %+v, %v; want %+v", it, err, m.queue[0])
	}
	m.flight[it.URL] = m.queue[0]
	m.state[it.URL] = frontier.InFlight
	m.queue = m.queue[1:]
}

func modelDone(h *harness, m *model) {
	h.t.Helper()
	for u := range m.flight {
		h.done(u, "ok")
		delete(m.flight, u)
		m.state[u] = frontier.Done
		return
	}
}

// testConcurrent: producers adding the same URLs and consumers claiming
// and marking done share a queue: every URL is handed out exactly once and
// the counters add up.
func testConcurrent(t *testing.T, open Opener) {
	h := start(t, open)
	const producers, consumers, perProducer = 4, 4, 100
	var wg sync.WaitGroup
	for p := range producers {
		wg.Go(func() {
			for i := range perProducer {
				var b frontier.Batch
				b.Add(fmt.Sprintf("u%d", i), p, nil)
				if _, err := h.q.Commit(&b); err != nil {
					t.Error(err)
				}
			}
		})
	}
	var mu sync.Mutex
	handed := map[string]int{}
	for range consumers {
		wg.Go(func() {
			for range producers * perProducer {
				it, err := h.q.NextWhere(nil, 0)
				if errors.Is(err, frontier.ErrEmpty) {
					continue
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				handed[it.URL]++
				mu.Unlock()
				var b frontier.Batch
				b.Done(it.URL, "ok")
				if _, err := h.q.Commit(&b); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	for _, it := range h.drain() {
		handed[it.URL]++
	}
	if len(handed) != perProducer {
		t.Fatalf("%d distinct URLs handed out, want %d", len(handed), perProducer)
	}
	for u, n := range handed {
		if n != 1 {
			t.Fatalf("%s handed out %d times", u, n)
		}
	}
	if st, _ := h.q.Stats(); st.Pending != 0 || st.InFlight+st.Done != perProducer {
		t.Fatalf("Stats = %+v", st)
	}
}
