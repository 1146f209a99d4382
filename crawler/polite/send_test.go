package polite

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// TestSendKeepsDelay: requests are sent at least the delay apart (at most
// Parallelism within any delay), however late each was sent after its
// slot was granted; a host's next slot waits for the delay since the
// last request sent, not only since the last grant.
func TestSendKeepsDelay(t *testing.T) {
	const delay = 60 * time.Millisecond
	for _, tc := range []struct {
		name        string
		parallelism int
		late        time.Duration // from the first grant to its send
		sends       int
	}{
		{name: "one slot, sent at once", parallelism: 1, sends: 4},
		{name: "one slot, the first sent late", parallelism: 1, late: 40 * time.Millisecond, sends: 3},
		{name: "two slots", parallelism: 2, sends: 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := New(Options{Parallelism: tc.parallelism, Delay: delay})
			ctx := context.Background()
			if !p.TryAcquire("h") {
				t.Fatal("first slot refused")
			}
			granted := time.Now()
			p.Release("h")
			time.Sleep(tc.late)
			var sent []time.Time
			for i := range tc.sends {
				if i > 0 {
					for !p.TryAcquire("h") { // as the dispatcher does, at the host's next time
						time.Sleep(time.Until(p.Next("h")) + time.Millisecond)
					}
					p.Release("h")
				}
				if err := p.Send(ctx, "h"); err != nil {
					t.Fatal(err)
				}
				sent = append(sent, time.Now())
			}
			if tc.late > 0 && p.Next("h").Before(sent[len(sent)-1].Add(delay-time.Millisecond)) {
				t.Errorf("Next = %v after the last send at %v: the delay counts from the grant (%v) only", p.Next("h"), sent[len(sent)-1], granted)
			}
			for i := tc.parallelism; i < len(sent); i++ {
				if gap := sent[i].Sub(sent[i-tc.parallelism]); gap < delay {
					t.Errorf("send %d came %v after send %d: %d sends within the delay %v", i, gap, i-tc.parallelism, tc.parallelism+1, delay)
				}
			}
		})
	}
}

// TestSendCancelled: a request waiting for its host's turn gives up when
// its context ends, and is not counted as sent.
func TestSendCancelled(t *testing.T) {
	p := New(Options{Delay: time.Hour})
	if err := p.Send(context.Background(), "h"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := p.Send(ctx, "h"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Send within the hour's delay = %v, want the context's deadline", err)
	}
	// Through the Transport: the request never reaches the server.
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer srv.Close()
	q := New(Options{Delay: time.Hour})
	client := &http.Client{Transport: Transport{Pacer: q}}
	resp, err := client.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	ctx2, cancel2 := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel2()
	req, _ := http.NewRequestWithContext(ctx2, http.MethodGet, srv.URL, nil)
	if _, err := client.Do(req); !errors.Is(err, context.DeadlineExceeded) || hits.Load() != 1 {
		t.Errorf("a second request within the delay: err %v, the server saw %d requests; want the deadline and 1", err, hits.Load())
	}
}
