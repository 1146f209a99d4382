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
