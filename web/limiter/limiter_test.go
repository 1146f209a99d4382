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

func TestPerClientAndGlobal(t *testing.T) {
	l := New(Options{MaxConcurrent: 3, PerClient: 2, MaxWait: 50 * time.Millisecond})
	ctx := context.Background()
	a1, err1 := l.Acquire(ctx, "a")
	a2, err2 := l.Acquire(ctx, "a")
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	start := time.Now()
	if _, err := l.Acquire(ctx, "a"); !errors.Is(err, ErrClient) || time.Since(start) > 10*time.Millisecond {
		t.Errorf("third of client a: %v after %v, want ErrClient at once", err, time.Since(start))
	}
	b1, err := l.Acquire(ctx, "b")
	if err != nil {
		t.Fatalf("client b, with a slot free: %v", err)
	}
	start = time.Now()
	if _, err := l.Acquire(ctx, "c"); !errors.Is(err, ErrBusy) || time.Since(start) < 40*time.Millisecond {
		t.Errorf("client c, all slots taken: %v after %v, want ErrBusy after MaxWait", err, time.Since(start))
	}
	// A slot freed while a request waits goes to it.
	go func() { time.Sleep(10 * time.Millisecond); b1() }()
	c1, err := l.Acquire(ctx, "c")
	if err != nil {
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
	l := New(Options{MaxConcurrent: 4, PerClient: 2, MaxWait: time.Second})
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

func TestDefaults(t *testing.T) {
	o := Options{}
	o.EnsureDefaults()
	if o.MaxConcurrent < 4 || o.PerClient != 2 || o.MaxWait != 500*time.Millisecond {
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
