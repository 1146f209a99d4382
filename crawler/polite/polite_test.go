package polite

import (
	"context"
	"testing"
	"time"
)

// clock is a fake time source.
type clock struct{ t time.Time }

func (c *clock) now() time.Time           { return c.t }
func (c *clock) add(d time.Duration)      { c.t = c.t.Add(d) }
func newPacer(o Options, c *clock) *Pacer { p := New(o); p.now = c.now; return p }

func TestPacer(t *testing.T) {
	c := &clock{time.Unix(1000, 0)}
	p := newPacer(Options{Parallelism: 2, Delay: 100 * time.Millisecond}, c)
	if !p.TryAcquire("a") {
		t.Fatal("first request to a refused")
	}
	c.add(10 * time.Millisecond)
	if !p.TryAcquire("a") {
		t.Error("second slot of a refused")
	}
	if !p.TryAcquire("b") {
		t.Error("another host waits for a")
	}
	p.Release("a")
	if p.TryAcquire("a") {
		t.Error("a third request within the delay granted: more than Parallelism per Delay")
	}
	if got, want := p.NextFree(), time.Unix(1000, 0).Add(100*time.Millisecond); !got.Equal(want) {
		t.Errorf("NextFree = %v, want %v (the first slot's delay over)", got, want)
	}
	c.add(90 * time.Millisecond)
	if !p.TryAcquire("a") {
		t.Error("request after the first slot's delay refused")
	}
	c.add(time.Second)
	if p.TryAcquire("a") {
		t.Error("a third request in flight granted beyond Parallelism 2")
	}
	p.Release("a")
	if !p.TryAcquire("a") {
		t.Error("a released slot not granted")
	}
	for range 3 {
		p.Release("a")
	}

	// Crawl-delay: one at a time, that far apart.
	p.SetCrawlDelay("slow", 2*time.Second)
	if !p.TryAcquire("slow") {
		t.Fatal("first request to slow refused")
	}
	if p.TryAcquire("slow") {
		t.Error("a second slot under a Crawl-delay")
	}
	p.Release("slow")
	c.add(2 * time.Second)
	if !p.TryAcquire("slow") {
		t.Fatal("first request to slow refused")
	}
	p.Release("slow")
	c.add(time.Second)
	if p.TryAcquire("slow") {
		t.Error("Crawl-delay not honoured")
	}
	if got := p.NextFree(); !got.Equal(c.t.Add(time.Second)) {
		t.Errorf("NextFree = %v, want %v", got, c.t.Add(time.Second))
	}
	c.add(time.Second)
	if !p.TryAcquire("slow") {
		t.Error("request after the Crawl-delay refused")
	}

	// Retry-After, bounded.
	until := p.Pause("b", 30*time.Second)
	if !until.Equal(c.t.Add(30 * time.Second)) {
		t.Errorf("paused until %v", until)
	}
	p.Release("b")
	c.add(29 * time.Second)
	if p.TryAcquire("b") {
		t.Error("request during a Retry-After pause granted")
	}
	c.add(time.Second)
	if !p.TryAcquire("b") {
		t.Error("request after the pause refused")
	}
	q := newPacer(Options{MaxPause: time.Minute}, c)
	if got := q.Pause("x", 24*time.Hour); !got.Equal(c.t.Add(time.Minute)) {
		t.Errorf("a day's Retry-After: paused until %v, want MaxPause", got)
	}
}

// TestAhead: with Options.Ahead, TryAcquireEarly grants a free slot that
// long before the host's delay has passed (at most half the delay) while
// TryAcquire waits for the delay, NextFree says when the early grant
// comes, and the request still waits in Send until the delay has passed
// since the last send.
func TestAhead(t *testing.T) {
	const delay = 100 * time.Millisecond
	for _, tc := range []struct {
		name  string
		ahead time.Duration
		grant time.Duration // after the first send, the next early grant
	}{
		{name: "none", ahead: 0, grant: delay},
		{name: "30 ms", ahead: 30 * time.Millisecond, grant: 70 * time.Millisecond},
		{name: "bounded by half the delay", ahead: time.Hour, grant: 50 * time.Millisecond},
		{name: "negative", ahead: -time.Second, grant: delay},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &clock{time.Unix(1000, 0)}
			p := newPacer(Options{Delay: delay, Ahead: tc.ahead}, c)
			start := c.t
			if !p.TryAcquire("h") {
				t.Fatal("first slot refused")
			}
			ready, cancel := context.WithCancel(context.Background())
			cancel() // Send returns at once: nil if the request may go, else the context's error
			if err := p.Send(ready, "h"); err != nil {
				t.Fatalf("first send held back: %v", err)
			}
			p.Release("h")
			if got := p.NextFree(); !got.Equal(start.Add(tc.grant)) {
				t.Errorf("NextFree %v after the send, want %v", got.Sub(start), tc.grant)
			}
			c.t = start.Add(tc.grant - time.Millisecond)
			if p.TryAcquireEarly("h") {
				t.Fatalf("early slot granted %v after the send, want %v", tc.grant-time.Millisecond, tc.grant)
			}
			c.t = start.Add(tc.grant)
			if tc.grant < delay && p.TryAcquire("h") {
				t.Fatalf("TryAcquire granted a slot %v after the send, within the delay %v", tc.grant, delay)
			}
			if !p.TryAcquireEarly("h") {
				t.Fatalf("early slot refused %v after the send", tc.grant)
			}
			if tc.grant < delay {
				if err := p.Send(ready, "h"); err == nil {
					t.Fatalf("request sent %v after the last, within the delay %v", tc.grant, delay)
				}
				c.t = start.Add(delay)
			}
			if err := p.Send(ready, "h"); err != nil {
				t.Fatalf("request held back once the delay passed: %v", err)
			}
		})
	}
}
