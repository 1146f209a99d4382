package redisfleet

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler/fleet"
	"github.com/doppel-search/doppel/internal/testrig/redistest"
)

// byID returns the roll's workers by id.
func byID(t *testing.T, r *Roll) map[string]fleet.Worker {
	t.Helper()
	ws, err := r.Workers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]fleet.Worker{}
	for _, w := range ws {
		out[w.ID] = w
	}
	return out
}

// eventually polls cond every 20 ms for up to a minute (a bound against a
// hang: a busy machine may take seconds).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after a minute: %s", what)
		}
	}
}

// TestRoll: two workers join and beat their reports; one leaves, the
// other stops beating (a killed process) and is lost after Options.Lost;
// an id up cannot join twice, a lost or left one can; the totals count
// every worker's counters and the gauges of those up; workers gone for
// Options.Keep leave the roll.
func TestRoll(t *testing.T) {
	rc := redistest.Start(t, 3, 0)
	rdb := rc.Client()
	ctx := context.Background()
	r, err := New(rdb, Options{Prefix: "t", Beat: 50 * time.Millisecond, Lost: 400 * time.Millisecond, Keep: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var fetchedA, fetchedB atomic.Int64
	report := func(n *atomic.Int64) func() fleet.Report {
		return func() fleet.Report {
			return fleet.Report{Counters: map[string]int64{"fetched": n.Load()}, Gauges: map[string]int64{"in_flight": 2}}
		}
	}
	a, err := r.Join(ctx, fleet.Worker{ID: "a", Host: "m1", PID: 1}, report(&fetchedA))
	if err != nil {
		t.Fatal(err)
	}
	killedCtx, kill := context.WithCancel(ctx)
	b, err := r.Join(killedCtx, fleet.Worker{ID: "b", Host: "m2", PID: 2}, report(&fetchedB))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Join(ctx, fleet.Worker{ID: "a"}, nil); !errors.Is(err, ErrTaken) {
		t.Fatalf("a second worker a joined: err = %v, want ErrTaken", err)
	}
	fetchedA.Store(10)
	fetchedB.Store(5)
	eventually(t, "the beats carry the counters", func() bool {
		w := byID(t, r)
		return w["a"].Counters["fetched"] == 10 && w["b"].Counters["fetched"] == 5 && w["a"].State == fleet.Up && w["b"].State == fleet.Up
	})
	if got := fleet.Total(mustWorkers(t, r)); got.Counters["fetched"] != 15 || got.Gauges["in_flight"] != 4 {
		t.Fatalf("total = %+v, want fetched 15 and in flight 4", got)
	}

	fetchedA.Store(12)
	if err := a.Leave(ctx); err != nil {
		t.Fatal(err)
	}
	if err := a.Leave(ctx); err != nil {
		t.Fatalf("second Leave: %v", err)
	}
	kill() // b stops beating without leaving
	w := byID(t, r)
	if w["a"].State != fleet.Left || w["a"].Counters["fetched"] != 12 {
		t.Fatalf("a after Leave: %+v, want left with its last count 12", w["a"])
	}
	if w["b"].State != fleet.Up {
		t.Fatalf("b just after its last beat: %s, want up", w["b"].State)
	}
	eventually(t, "b is lost after 400 ms without a beat", func() bool { return byID(t, r)["b"].State == fleet.Lost })
	if got := fleet.Total(mustWorkers(t, r)); got.Counters["fetched"] != 17 || got.Gauges["in_flight"] != 0 {
		t.Fatalf("total with none up = %+v, want fetched 17 (12 + 5) and nothing in flight", got)
	}

	a2, err := r.Join(ctx, fleet.Worker{ID: "a"}, nil) // left: its id is free
	if err != nil {
		t.Fatalf("joining as a after a left: %v", err)
	}
	b2, err := r.Join(ctx, fleet.Worker{ID: "b"}, nil) // lost: its id is free
	if err != nil {
		t.Fatalf("joining as b after b was lost: %v", err)
	}
	if w := byID(t, r); w["a"].State != fleet.Up || w["b"].State != fleet.Up {
		t.Fatalf("rejoined: a %s, b %s, want both up", w["a"].State, w["b"].State)
	}
	if err := errors.Join(a2.Leave(ctx), b2.Leave(ctx)); err != nil {
		t.Fatal(err)
	}
	if b.Err() != nil && !errors.Is(b.Err(), context.Canceled) {
		t.Fatalf("b's last beat: %v", b.Err())
	}
	eventually(t, "workers gone for 1.5 s leave the roll", func() bool { return len(byID(t, r)) == 0 })
}

func mustWorkers(t *testing.T, r *Roll) []fleet.Worker {
	t.Helper()
	ws, err := r.Workers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func TestOptions(t *testing.T) {
	if _, err := New(nil, Options{Prefix: "a{b}"}); err == nil {
		t.Fatal("a prefix with braces was accepted")
	}
	r, err := New(nil, Options{Beat: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if r.opts.Prefix != "doppel" || r.opts.Lost != 5*time.Second || r.opts.Keep != 24*time.Hour {
		t.Fatalf("defaults: %+v", r.opts)
	}
	if _, err := r.Join(context.Background(), fleet.Worker{}, nil); err == nil {
		t.Fatal("a worker without an id joined")
	}
}
