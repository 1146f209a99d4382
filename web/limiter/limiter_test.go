package limiter

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestPerClientAndGlobal: a client past its share is refused without
// waiting, a request finding every slot taken waits MaxWait and is
// refused, a slot freed while a request waits goes to it, and a waiting
// request whose context ends leaves. Nothing is asserted of how fast:
// "without waiting" is read in the counters, and the request that gets
// a freed slot is given it once it is seen waiting.
func TestPerClientAndGlobal(t *testing.T) {
	const maxWait = 50 * time.Millisecond
	l := New(Options{MaxConcurrent: 3, PerClient: 2, MaxWait: maxWait, Spare: 3})
	ctx := context.Background()
	a1, err1 := l.Acquire(ctx, "a")
	a2, err2 := l.Acquire(ctx, "a")
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if _, err := l.Acquire(ctx, "a"); !errors.Is(err, ErrClient) || l.Stats().Waited != 0 {
		t.Errorf("third of client a: %v, %d waited; want ErrClient without waiting", err, l.Stats().Waited)
	}
	b1, err := l.Acquire(ctx, "b")
	if err != nil {
		t.Fatalf("client b, with a slot free: %v", err)
	}
	start := time.Now()
	if _, err := l.Acquire(ctx, "c"); !errors.Is(err, ErrBusy) || time.Since(start) < maxWait {
		t.Errorf("client c, all slots taken: %v after %v, want ErrBusy after MaxWait", err, time.Since(start))
	}
	// A slot freed while a request waits goes to it. The wait is made
	// long, so that a busy machine cannot end it first.
	l.opts.MaxWait = time.Hour
	got := make(chan error, 1)
	var c1 func()
	go func() {
		var err error
		c1, err = l.Acquire(ctx, "c")
		got <- err
	}()
	for l.Stats().Waited != 2 {
		time.Sleep(time.Millisecond)
	}
	b1()
	if err := <-got; err != nil {
		t.Fatalf("client c, a slot freed while waiting: %v", err)
	}
	a1()
	a1() // twice: no effect
	a3, err := l.Acquire(ctx, "a")
	if err != nil {
		t.Fatalf("client a after releasing one: %v", err)
	}
	// A waiting request whose context ends leaves.
	cctx, cancel := context.WithTimeout(ctx, 5*time.Millisecond)
	defer cancel()
	if _, err := l.Acquire(cctx, "d"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("canceled wait: %v", err)
	}
	st := l.Stats()
	if st.Running != 3 || st.Admitted != 5 || st.RejectedClient != 1 || st.RejectedBusy != 1 || st.Waited != 3 {
		t.Errorf("stats %+v", st)
	}
	for _, r := range []func(){a2, a3, c1} {
		r()
	}
	if st := l.Stats(); st.Running != 0 || len(l.clients) != 0 {
		t.Errorf("after releasing everything: %+v, clients %v", st, l.clients)
	}
}

// TestFairness: one client with 50 concurrent requests holds at most its
// share; another client's requests all get through.
func TestFairness(t *testing.T) {
	l := New(Options{MaxConcurrent: 4, PerClient: 2, MaxWait: time.Second, Tarpit: time.Millisecond})
	var running, most atomic.Int32
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 50 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				release, err := l.Acquire(context.Background(), "hammer")
				if err != nil {
					continue
				}
				n := running.Add(1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				time.Sleep(time.Millisecond)
				running.Add(-1)
				release()
			}
		})
	}
	for i := range 20 {
		release, err := l.Acquire(context.Background(), fmt.Sprint("user", i%2))
		if err != nil {
			t.Errorf("a user's request %d: %v", i, err)
			continue
		}
		time.Sleep(time.Millisecond)
		release()
	}
	close(stop)
	wg.Wait()
	if most.Load() > 2 {
		t.Errorf("the hammering client held %d slots at once, want at most 2", most.Load())
	}
}

// TestGreedy: a client refused for its share is served after everybody
// else, only while requests run on fewer than Spare slots, and its
// refusals after the first are held for Tarpit; Penalty later it is an
// ordinary client again. "At once" is read in the counters (not held,
// not waited), never in a time.
func TestGreedy(t *testing.T) {
	// The penalty outlasts everything from a's second refusal to the
	// counters' check, and greedy a waits MaxWait for b and c to end,
	// on a busy machine too (at 400 and 200 ms, one at a load of 35
	// found a no longer greedy).
	const tarpit, penalty, wait = 60 * time.Millisecond, 5 * time.Second, time.Second
	l := New(Options{MaxConcurrent: 4, PerClient: 2, Spare: 2, MaxWait: wait, Tarpit: tarpit, Penalty: penalty})
	ctx := context.Background()
	must := func(client string) func() {
		t.Helper()
		release, err := l.Acquire(ctx, client)
		if err != nil {
			t.Fatalf("client %s: %v", client, err)
		}
		return release
	}
	timed := func(client string) (time.Duration, error) {
		start := time.Now()
		release, err := l.Acquire(ctx, client)
		if err == nil {
			release()
		}
		return time.Since(start), err
	}
	a1, a2 := must("a"), must("a")
	if _, err := timed("a"); !errors.Is(err, ErrClient) || l.Stats().Held != 0 {
		t.Errorf("a's first request over its share: %v, %d held; want ErrClient at once", err, l.Stats().Held)
	}
	if d, err := timed("a"); !errors.Is(err, ErrClient) || d < tarpit {
		t.Errorf("a's second request over its share: %v after %v, want ErrClient after %v", err, d, tarpit)
	}
	refused := time.Now() // a is greedy until before refused + penalty
	a1()
	// Two requests running (a2, b1): none spare for greedy a, which waits
	// MaxWait and is refused, while c gets a slot at once.
	b1 := must("b")
	if d, err := timed("a"); !errors.Is(err, ErrBusy) || d < wait {
		t.Errorf("greedy a with %d running: %v after %v, want ErrBusy after %v", l.Stats().Running, err, d, wait)
	}
	waited := l.Stats().Waited
	if _, err := timed("c"); err != nil || l.Stats().Waited != waited {
		t.Errorf("c with a slot free: %v, waited %v; want a slot at once", err, l.Stats().Waited != waited)
	}
	// A slot freed while greedy a and ordinary c wait goes to c; a runs
	// once fewer than Spare are running and nobody else waits.
	c1, c2 := must("c"), must("c")
	order := make(chan string, 2)
	var wg sync.WaitGroup
	for _, client := range []string{"a", "d"} {
		wg.Go(func() {
			release, err := l.Acquire(ctx, client)
			if err != nil {
				order <- client + " " + err.Error()
				return
			}
			order <- client
			time.Sleep(5 * time.Millisecond)
			release()
		})
		time.Sleep(5 * time.Millisecond) // a first in line
	}
	c1()
	if got := <-order; got != "d" {
		t.Errorf("the freed slot went to %q, want d (a is greedy)", got)
	}
	c2()
	b1()
	if got := <-order; got != "a" {
		t.Errorf("then %q, want a", got)
	}
	wg.Wait()
	a2()
	st := l.Stats()
	if st.Greedy != 1 || st.Held != 1 || st.Deferred != 2 || st.RejectedClient != 2 || st.RejectedBusy != 1 || st.Running != 0 {
		t.Errorf("stats %+v", st)
	}
	// Penalty later, a is an ordinary client: its first refusal is at once
	// again.
	time.Sleep(time.Until(refused.Add(penalty)))
	if st := l.Stats(); st.Greedy != 0 {
		t.Errorf("greedy clients after the penalty: %d", st.Greedy)
	}
	a1, a2 = must("a"), must("a")
	held := l.Stats().Held
	if _, err := timed("a"); !errors.Is(err, ErrClient) || l.Stats().Held != held {
		t.Errorf("a over its share after the penalty: %v, held %v; want ErrClient at once", err, l.Stats().Held != held)
	}
	a1()
	a2()
}

// TestHeld: at most MaxHeld refusals are held at once (more are answered
// at once), and a held refusal ends with its context.
func TestHeld(t *testing.T) {
	l := New(Options{MaxConcurrent: 4, PerClient: 1, Tarpit: time.Hour, MaxHeld: 1})
	release, err := l.Acquire(context.Background(), "a")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if _, err := l.Acquire(context.Background(), "a"); !errors.Is(err, ErrClient) {
		t.Fatalf("a over its share: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { _, err := l.Acquire(ctx, "a"); done <- err }() // held
	for deadline := time.Now().Add(time.Minute); l.Stats().Held == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the second refusal of a is not held")
		}
	}
	if _, err := l.Acquire(context.Background(), "a"); !errors.Is(err, ErrClient) || l.Stats().Held != 1 {
		t.Errorf("with MaxHeld held: %v, %d held; want ErrClient at once, not held", err, l.Stats().Held)
	}
	cancel()
	if err := <-done; !errors.Is(err, ErrClient) {
		t.Errorf("held refusal, context canceled: %v", err)
	}
}

// TestGreedyForgotten: greedy clients whose penalty is over are dropped,
// so that many addresses cannot grow the limiter without bound.
func TestGreedyForgotten(t *testing.T) {
	l := New(Options{MaxConcurrent: 4, PerClient: 1, Penalty: time.Millisecond, Tarpit: -1})
	ctx := context.Background()
	for i := range 5000 {
		client := fmt.Sprint("192.0.2.", i)
		release, err := l.Acquire(ctx, client)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Acquire(ctx, client); !errors.Is(err, ErrClient) {
			t.Fatalf("%s over its share: %v", client, err)
		}
		release()
		if i%1000 == 999 {
			time.Sleep(2 * time.Millisecond)
		}
	}
	l.mu.Lock()
	n := len(l.greedy)
	l.mu.Unlock()
	if n > 2048 {
		t.Errorf("%d greedy clients remembered, want expired ones dropped", n)
	}
}

func TestDefaults(t *testing.T) {
	o := Options{}
	o.EnsureDefaults()
	if o.MaxConcurrent < 4 || o.PerClient != 2 || o.MaxWait != 500*time.Millisecond || o.Spare < 1 || o.Spare > o.MaxConcurrent ||
		o.Penalty != 10*time.Second || o.Tarpit != time.Second || o.MaxHeld != 1024 {
		t.Errorf("defaults %+v", o)
	}
}

func ExampleLimiter() {
	l := New(Options{MaxConcurrent: 8, PerClient: 1})
	release, err := l.Acquire(context.Background(), "192.0.2.7")
	fmt.Println(err)
	_, err = l.Acquire(context.Background(), "192.0.2.7")
	fmt.Println(err)
	release()
	// Output:
	// <nil>
	// limiter: too many requests from one client (1 at a time)
}
