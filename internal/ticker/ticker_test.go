package ticker

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestEvery: fn is called again and again until stop, never after stop
// has returned, and stop waits for a call in progress; a second stop does
// nothing.
func TestEvery(t *testing.T) {
	var calls atomic.Int64
	stop := Every(time.Millisecond, func() { calls.Add(1) })
	for deadline := time.Now().Add(30 * time.Second); calls.Load() < 3; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d calls in 30 s at an interval of 1 ms", calls.Load())
		}
	}
	stop()
	after := calls.Load()
	time.Sleep(20 * time.Millisecond)
	if n := calls.Load(); n != after {
		t.Errorf("%d calls after stop returned", n-after)
	}
	stop()
}

// TestStopWaitsForCall: stop returns only once the call in progress has.
func TestStopWaitsForCall(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	var finished atomic.Bool
	var first atomic.Bool
	stop := Every(time.Millisecond, func() {
		if first.CompareAndSwap(false, true) {
			close(entered)
			<-release
			finished.Store(true)
		}
	})
	<-entered
	stopped := make(chan struct{})
	go func() { stop(); close(stopped) }()
	select {
	case <-stopped:
		t.Fatal("stop returned while fn was running")
	case <-time.After(20 * time.Millisecond):
	}
	close(release)
	<-stopped
	if !finished.Load() {
		t.Error("stop returned before the call in progress ended")
	}
}
