package polite

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestAcquire: Acquire takes a free slot at once, waits while the host's
// only slot is held and gives up when its context ends, and takes the
// slot once it is released.
func TestAcquire(t *testing.T) {
	p := New(Options{Parallelism: 1})
	if err := p.Acquire(context.Background(), "a"); err != nil {
		t.Fatalf("a free slot: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Millisecond)
	defer cancel()
	if err := p.Acquire(ctx, "a"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the held slot: %v, want the context's deadline", err)
	}
	if err := p.Acquire(context.Background(), "b"); err != nil {
		t.Fatalf("another host's slot: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- p.Acquire(context.Background(), "a") }()
	p.Release("a")
	if err := <-done; err != nil {
		t.Fatalf("after Release: %v", err)
	}
}

// TestAcquireWaitingFirst: while Acquire waits for a host, TryAcquire
// and TryAcquireEarly refuse its slot to others, so that a dispatcher
// asking at every turn does not take each one before Acquire's next look
// (a kept crawl read its sitemap at no turn in ten minutes); Acquire then
// takes the slot.
func TestAcquireWaitingFirst(t *testing.T) {
	p := New(Options{Parallelism: 1, Delay: time.Second})
	if !p.TryAcquire("a") {
		t.Fatal("a's first slot refused")
	}
	done := make(chan error, 1)
	go func() { done <- p.Acquire(context.Background(), "a") }()
	for waiting := 0; waiting == 0; time.Sleep(time.Millisecond) {
		p.mu.Lock()
		waiting = p.hosts["a"].waiting
		p.mu.Unlock()
	}
	p.Release("a")
	p.mu.Lock()
	p.now = func() time.Time { return time.Now().Add(time.Hour) } // the delay long past
	p.mu.Unlock()
	if p.TryAcquire("a") || p.TryAcquireEarly("a") {
		t.Fatal("a slot granted to another while Acquire waited for it")
	}
	if err := <-done; err != nil {
		t.Fatalf("Acquire: %v", err)
	}
	p.Release("a")
	if !p.TryAcquire("b") {
		t.Error("another host's slot refused")
	}
}
