package polite

import (
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
