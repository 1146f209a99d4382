// Package limiter decides which requests a server works on: at most
// Options.MaxConcurrent at once, and at most Options.PerClient of them for
// one client, so that one client sending a hundred requests at a time holds
// a few slots and everybody else keeps the rest. A request over its
// client's share is refused at once (ErrClient: HTTP 429); one that finds
// every slot taken waits up to Options.MaxWait for one, in arrival order,
// and is then refused (ErrBusy: HTTP 503). Either way the refusal is fast
// and costs nothing: that is what keeps the server answering under a flood.
//
// What a client is, is the caller's business (package web: the peer's
// address, or the address a trusted proxy forwards, IPv6 by /64).
package limiter

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Errors for errors.Is.
var (
	// ErrBusy means Options.MaxConcurrent requests were running and none
	// ended within Options.MaxWait.
	ErrBusy = errors.New("limiter: busy")
	// ErrClient means the client had Options.PerClient requests running.
	ErrClient = errors.New("limiter: too many requests from one client")
)

// Options configures a Limiter. The zero value means the defaults.
type Options struct {
	// MaxConcurrent is how many requests run at once. Default
	// 4×GOMAXPROCS, at least 4: enough to keep the processors busy while
	// some requests wait on the disk, few enough that each finishes in
	// about the time it takes alone.
	MaxConcurrent int
	// PerClient is how many requests of one client run at once. Default
	// 2: a person has one search open at a time, and a script that wants
	// more is told so (ErrClient) rather than queued.
	PerClient int
	// MaxWait is the longest a request waits for a slot. Default 500ms.
	MaxWait time.Duration
}

// EnsureDefaults fills in the zero fields.
func (o *Options) EnsureDefaults() {
	if o.MaxConcurrent <= 0 {
		o.MaxConcurrent = max(4, 4*runtime.GOMAXPROCS(0))
	}
	if o.PerClient <= 0 {
		o.PerClient = 2
	}
	if o.MaxWait <= 0 {
		o.MaxWait = 500 * time.Millisecond
	}
}

// Stats are a Limiter's counters since New.
type Stats struct {
	Admitted       uint64 // requests that got a slot
	Waited         uint64 // of them, those that had to wait
	RejectedBusy   uint64 // refused with ErrBusy
	RejectedClient uint64 // refused with ErrClient
	Running        int    // requests holding a slot now
}

// A Limiter hands out slots. It is safe for concurrent use.
type Limiter struct {
	opts  Options
	slots chan struct{}

	mu      sync.Mutex
	clients map[string]int // requests running or waiting, by client

	admitted, waited, busy, client atomic.Uint64
}

// New returns a Limiter with opts.
func New(opts Options) *Limiter {
	opts.EnsureDefaults()
	return &Limiter{opts: opts, slots: make(chan struct{}, opts.MaxConcurrent), clients: map[string]int{}}
}

// Options returns the options in effect, defaults applied.
func (l *Limiter) Options() Options { return l.opts }

// Acquire takes a slot for a request of client, waiting up to
// Options.MaxWait (or until ctx ends) if all are taken, and returns the
// function that gives it back (call it once). It fails at once with
// ErrClient if client has Options.PerClient requests running or waiting.
func (l *Limiter) Acquire(ctx context.Context, client string) (release func(), err error) {
	l.mu.Lock()
	if l.clients[client] >= l.opts.PerClient {
		l.mu.Unlock()
		l.client.Add(1)
		return nil, fmt.Errorf("%w (%d at a time)", ErrClient, l.opts.PerClient)
	}
	l.clients[client]++
	l.mu.Unlock()
	leave := func() {
		l.mu.Lock()
		if l.clients[client]--; l.clients[client] <= 0 {
			delete(l.clients, client)
		}
		l.mu.Unlock()
	}

	select {
	case l.slots <- struct{}{}:
	default:
		l.waited.Add(1)
		wait := time.NewTimer(l.opts.MaxWait)
		defer wait.Stop()
		select {
		case l.slots <- struct{}{}:
		case <-wait.C:
			leave()
			l.busy.Add(1)
			return nil, fmt.Errorf("%w: %d requests running", ErrBusy, l.opts.MaxConcurrent)
		case <-ctx.Done():
			leave()
			return nil, fmt.Errorf("limiter: %w", ctx.Err())
		}
	}
	l.admitted.Add(1)
	var once sync.Once
	return func() {
		once.Do(func() {
			<-l.slots
			leave()
		})
	}, nil
}

// Stats returns the counters.
func (l *Limiter) Stats() Stats {
	return Stats{Admitted: l.admitted.Load(), Waited: l.waited.Load(), RejectedBusy: l.busy.Load(),
		RejectedClient: l.client.Load(), Running: len(l.slots)}
}
