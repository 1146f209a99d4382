package gate_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler/frontier"
	"github.com/doppel-search/doppel/crawler/frontier/gate"
)

// turns is a frontier.Shared whose gate makes each host wait `waits`
// times before a request starts — then starts it at once, or, with
// ahead, records it ahead's time from now; it records the calls.
type turns struct {
	frontier.Shared // the methods the gate does not call: nil

	mu      sync.Mutex
	waits   int
	starts  []string // host, "claimed" or not, per Start call
	ends    []string
	sent    []time.Duration // End's, per call
	running int             // requests started and not ended
	wait    time.Duration
	ahead   time.Duration
}

func (q *turns) Start(host string, claimed bool) (time.Duration, bool, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	call := host
	if claimed {
		call += " claimed"
	}
	q.starts = append(q.starts, call)
	if q.waits > 0 {
		q.waits--
		return q.wait, false, nil
	}
	q.running++
	return q.ahead, true, nil
}

func (q *turns) End(host string, sent time.Duration) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.ends = append(q.ends, host)
	q.sent = append(q.sent, sent)
	q.running--
	return nil
}

// TestTransport: a request waits for its host's turn as often as the
// gate says, is sent, and its end is told once; a file URL passes
// without a turn; a request whose context ends while it waits fails
// with the context's error and is not sent.
func TestTransport(t *testing.T) {
	var sent atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent.Add(1)
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")

	for _, claimed := range []bool{false, true} {
		q := &turns{waits: 2, wait: time.Millisecond}
		client := &http.Client{Transport: gate.Transport{Queue: q, Claimed: claimed}}
		before := sent.Load()
		resp, err := client.Get(srv.URL + "/page")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		want := host
		if claimed {
			want += " claimed"
		}
		if len(q.starts) != 3 || q.starts[2] != want {
			t.Errorf("claimed %v: Start calls %q, want three for %q", claimed, q.starts, want)
		}
		if len(q.ends) != 1 || q.ends[0] != host || q.running != 0 {
			t.Errorf("claimed %v: End calls %q (%d running), want one for %q", claimed, q.ends, q.running, host)
		}
		if sent.Load() != before+1 {
			t.Errorf("claimed %v: the server got %d requests, want 1", claimed, sent.Load()-before)
		}
	}

	// End is told when the request was written, not when it was
	// answered: the host's next request is spaced from the sending.
	t.Run("sent", func(t *testing.T) {
		const answer = 300 * time.Millisecond
		slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(answer)
			io.WriteString(w, "late")
		}))
		defer slow.Close()
		q := &turns{}
		resp, err := (&http.Client{Transport: gate.Transport{Queue: q, Claimed: true}}).Get(slow.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if len(q.sent) != 1 || q.sent[0] <= 0 || q.sent[0] >= answer {
			t.Errorf("End told sent %v, want one, written before the answer (%v)", q.sent, answer)
		}
		// A transport that reports no writing: the time to the answer.
		q = &turns{}
		base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
			time.Sleep(50 * time.Millisecond)
			return &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
		})
		req, _ := http.NewRequest(http.MethodGet, slow.URL, nil)
		if _, err := (gate.Transport{Base: base, Queue: q}).RoundTrip(req); err != nil {
			t.Fatal(err)
		}
		if len(q.sent) != 1 || q.sent[0] < 50*time.Millisecond {
			t.Errorf("without httptrace, End told sent %v, want one, at least the 50 ms to the answer", q.sent)
		}
	})

	t.Run("file URL", func(t *testing.T) {
		q := &turns{}
		base := roundTripFunc(func(*http.Request) (*http.Response, error) { return nil, errors.New("base reached") })
		req, _ := http.NewRequest(http.MethodGet, "file:///tmp/x", nil)
		if _, err := (gate.Transport{Base: base, Queue: q}).RoundTrip(req); err == nil || err.Error() != "base reached" {
			t.Errorf("file URL: %v, want the base transport's answer", err)
		}
		if len(q.starts)+len(q.ends) != 0 {
			t.Errorf("file URL passed the gate: %q %q", q.starts, q.ends)
		}
	})

	// A start recorded ahead: the request goes once its wait has passed,
	// without another Start, and End's sent counts from then.
	t.Run("ahead", func(t *testing.T) {
		const ahead = 300 * time.Millisecond // far above a busy machine's lateness between the timer and the request
		q := &turns{ahead: ahead}
		var at time.Time
		base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
			at = time.Now()
			return &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
		})
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/ahead", nil)
		asked := time.Now()
		if _, err := (gate.Transport{Base: base, Queue: q, Claimed: true}).RoundTrip(req); err != nil {
			t.Fatal(err)
		}
		if gone := at.Sub(asked); gone < ahead {
			t.Errorf("a start recorded %v ahead: the request went after %v", ahead, gone)
		}
		if len(q.starts) != 1 || len(q.ends) != 1 || q.running != 0 {
			t.Errorf("a start recorded ahead: Start calls %q, End calls %q, want one each", q.starts, q.ends)
		}
		if len(q.sent) == 1 && q.sent[0] >= ahead {
			t.Errorf("End told sent %v, counted from the Start call, not from the recorded start %v later", q.sent[0], ahead)
		}
		// Interrupted while waiting for it: the start is ended, the
		// request not sent.
		q = &turns{ahead: time.Hour}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		req, _ = http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/late", nil)
		before := sent.Load()
		if _, err := (gate.Transport{Queue: q, Claimed: true}).RoundTrip(req); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("interrupted ahead: %v, want the context's error", err)
		}
		if sent.Load() != before || len(q.ends) != 1 || q.running != 0 {
			t.Errorf("interrupted ahead: %d requests sent, End calls %q; want none sent and the start ended", sent.Load()-before, q.ends)
		}
	})

	t.Run("interrupted", func(t *testing.T) {
		q := &turns{waits: 1000, wait: time.Hour}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/late", nil)
		before := sent.Load()
		if _, err := (gate.Transport{Queue: q}).RoundTrip(req); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("interrupted: %v, want the context's error", err)
		}
		if sent.Load() != before || len(q.ends) != 0 {
			t.Errorf("interrupted: the request was sent (%d) or ended (%q)", sent.Load()-before, q.ends)
		}
	})

}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
