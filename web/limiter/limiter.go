// Package limiter decides which requests a server works on: at most
// Options.MaxConcurrent at once, and at most Options.PerClient of them for
// one client, so that one client sending a hundred requests at a time holds
// a few slots and everybody else keeps the rest. A request over its
// client's share is refused (ErrClient: HTTP 429); one that finds every
// slot taken waits up to Options.MaxWait for one, in arrival order, and is
// then refused (ErrBusy: HTTP 503).
//
// A client refused for its share is greedy for Options.Penalty: it is
// asking for more than anybody may have, and pays for it.
//
//   - Its requests come last: they run only while fewer than
//     Options.Spare requests are running (by default none: the server has
//     nothing else to do) and nobody else waits; otherwise they wait up to
//     MaxWait and are refused with ErrBusy. Other clients are served first
//     however many requests it sends, and its own start only when the
//     server has nothing else to do.
//   - Its refusals after the first are answered after Options.Tarpit (at
//     most Options.MaxHeld of them at a time; more are answered at once),
//     so that a client that does not wait between requests sends a few a
//     second per connection instead of thousands: a refusal costs little,
//     but not nothing.
//
// Every answer comes within MaxWait or Tarpit, whichever is longer: that is
// what keeps the server answering under a flood.
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
	// ErrBusy means Options.MaxConcurrent requests were running (for a
	// greedy client: Options.Spare, or others waited) and no slot came
	// within Options.MaxWait.
	ErrBusy = errors.New("limiter: busy")
	// ErrClient means the client had Options.PerClient requests running
	// or waiting.
	ErrClient = errors.New("limiter: too many requests from one client")
)

// Options configures a Limiter. The zero value means the defaults.
type Options struct {
	// MaxConcurrent is how many requests run at once. Default
	// 4×GOMAXPROCS, at least 4: enough to keep the processors busy while
	// some requests wait on the disk, few enough that each finishes in
	// about the time it takes alone.
	MaxConcurrent int
	// PerClient is how many requests of one client run or wait at once.
	// Default 2: a person has one search open at a time, and a script
	// that wants more is told so (ErrClient) rather than queued.
	PerClient int
	// MaxWait is the longest a request waits for a slot. Default 500ms.
	MaxWait time.Duration
	// Spare is how many requests may be running for a greedy client's
	// request to start: fewer than Spare. Default 1 (none).
	Spare int
	// Penalty is how long a client stays greedy after a refusal with
	// ErrClient. Default 10s.
	Penalty time.Duration
	// Tarpit is how long a greedy client's refusals with ErrClient are
	// held before they are answered. Default 1s; negative: none.
	Tarpit time.Duration
	// MaxHeld is how many refusals are held at once. Default 1024.
	MaxHeld int
}

// EnsureDefaults sets every zero field to its default (each field's doc
// says which) and returns o.
func (o *Options) EnsureDefaults() *Options {
	if o.MaxConcurrent <= 0 {
		o.MaxConcurrent = max(4, 4*runtime.GOMAXPROCS(0))
	}
	if o.PerClient <= 0 {
		o.PerClient = 2
	}
	if o.MaxWait <= 0 {
		o.MaxWait = 500 * time.Millisecond
	}
	if o.Spare <= 0 {
		o.Spare = 1
	}
	o.Spare = min(o.Spare, o.MaxConcurrent)
	if o.Penalty <= 0 {
		o.Penalty = 10 * time.Second
	}
	if o.Tarpit == 0 {
		o.Tarpit = time.Second
	}
	if o.MaxHeld <= 0 {
		o.MaxHeld = 1024
	}
	return o
}

// Stats are a Limiter's counters since New.
type Stats struct {
	Admitted       uint64 // requests that got a slot
	Waited         uint64 // of them, those that had to wait
	RejectedBusy   uint64 // refused with ErrBusy
	RejectedClient uint64 // refused with ErrClient
	Deferred       uint64 // requests of greedy clients that waited because others were served first
	Held           uint64 // refusals held for Options.Tarpit
	Running        int    // requests holding a slot now
	Greedy         int    // clients greedy now
}

// A Limiter hands out slots. It is safe for concurrent use.
type Limiter struct {
	opts Options

	mu      sync.Mutex
	running int
	queue   waitList             // waiting requests of other clients
	low     waitList             // waiting requests of greedy clients
	clients map[string]int       // requests running or waiting, by client
	greedy  map[string]time.Time // greedy clients, until when
	sweepAt int                  // len(greedy) at which expired entries are dropped

	held                                            atomic.Int64
	admitted, waited, busy, client, deferred, heldN atomic.Uint64
}

// A waiter is a request waiting for a slot; ready is closed when it has
// one.
type waiter struct {
	ready   chan struct{}
	granted bool
}

// waitList is a FIFO of waiters.
type waitList []*waiter

func (l *waitList) push(w *waiter) { *l = append(*l, w) }

func (l *waitList) pop() *waiter {
	w := (*l)[0]
	(*l)[0] = nil
	*l = (*l)[1:]
	return w
}

func (l *waitList) remove(w *waiter) {
	for i, x := range *l {
		if x == w {
			*l = append((*l)[:i], (*l)[i+1:]...)
			return
		}
	}
}

// New returns a Limiter with opts.
func New(opts Options) *Limiter {
	opts.EnsureDefaults()
	return &Limiter{opts: opts, clients: map[string]int{}, greedy: map[string]time.Time{}, sweepAt: 1024}
}

// Options returns the options in effect, defaults applied.
func (l *Limiter) Options() Options { return l.opts }

// Acquire takes a slot for a request of client, waiting up to
// Options.MaxWait (or until ctx ends) if none is free, and returns the
// function that gives it back (call it once). It fails with ErrClient if
// client has Options.PerClient requests running or waiting — at once the
// first time, after Options.Tarpit while the client is greedy.
func (l *Limiter) Acquire(ctx context.Context, client string) (release func(), err error) {
	now := time.Now()
	l.mu.Lock()
	until, greedy := l.greedy[client]
	if greedy && !now.Before(until) {
		delete(l.greedy, client)
		greedy = false
	}
	if l.clients[client] >= l.opts.PerClient {
		l.markGreedy(client, now)
		l.mu.Unlock()
		l.client.Add(1)
		if greedy {
			l.hold(ctx)
		}
		return nil, fmt.Errorf("%w (%d at a time)", ErrClient, l.opts.PerClient)
	}
	l.clients[client]++
	release = l.releaser(client)
	if greedy {
		if l.running < l.opts.Spare && len(l.queue) == 0 && len(l.low) == 0 {
			l.running++
			l.mu.Unlock()
			l.admitted.Add(1)
			return release, nil
		}
	} else if l.running < l.opts.MaxConcurrent && len(l.queue) == 0 {
		l.running++
		l.mu.Unlock()
		l.admitted.Add(1)
		return release, nil
	}
	w := &waiter{ready: make(chan struct{})}
	list := &l.queue
	if greedy {
		list = &l.low
		l.deferred.Add(1)
	}
	list.push(w)
	l.mu.Unlock()
	l.waited.Add(1)

	wait := time.NewTimer(l.opts.MaxWait)
	defer wait.Stop()
	select {
	case <-w.ready:
		l.admitted.Add(1)
		return release, nil
	case <-wait.C:
		err = fmt.Errorf("%w: %d requests running", ErrBusy, l.opts.MaxConcurrent)
		if greedy {
			err = fmt.Errorf("%w: a client that asked for more than its share is served when nobody else waits", ErrBusy)
		}
	case <-ctx.Done():
		err = fmt.Errorf("limiter: %w", ctx.Err())
	}
	l.mu.Lock()
	if w.granted { // a slot came as the wait ended: give it back
		l.mu.Unlock()
		release()
	} else {
		list.remove(w)
		l.leave(client)
		l.mu.Unlock()
	}
	if errors.Is(err, ErrBusy) {
		l.busy.Add(1)
	}
	return nil, err
}

// releaser returns the function that gives a slot of client back.
func (l *Limiter) releaser(client string) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			l.running--
			l.leave(client)
			l.dispatch()
			l.mu.Unlock()
		})
	}
}

// leave counts a request of client out; l.mu is held.
func (l *Limiter) leave(client string) {
	if l.clients[client]--; l.clients[client] <= 0 {
		delete(l.clients, client)
	}
}

// dispatch hands free slots to waiting requests, other clients' first;
// l.mu is held.
func (l *Limiter) dispatch() {
	for l.running < l.opts.MaxConcurrent && len(l.queue) > 0 {
		l.grant(l.queue.pop())
	}
	for l.running < l.opts.Spare && len(l.queue) == 0 && len(l.low) > 0 {
		l.grant(l.low.pop())
	}
}

func (l *Limiter) grant(w *waiter) {
	l.running++
	w.granted = true
	close(w.ready)
}

// markGreedy makes client greedy for Options.Penalty from now; l.mu is
// held. Expired entries are dropped whenever the map has doubled.
func (l *Limiter) markGreedy(client string, now time.Time) {
	l.greedy[client] = now.Add(l.opts.Penalty)
	if len(l.greedy) < l.sweepAt {
		return
	}
	for c, until := range l.greedy {
		if !now.Before(until) {
			delete(l.greedy, c)
		}
	}
	l.sweepAt = max(1024, 2*len(l.greedy))
}

// hold delays a refusal by Options.Tarpit, unless Options.MaxHeld are
// held already or ctx ends.
func (l *Limiter) hold(ctx context.Context) {
	if l.opts.Tarpit <= 0 {
		return
	}
	if l.held.Add(1) > int64(l.opts.MaxHeld) {
		l.held.Add(-1)
		return
	}
	defer l.held.Add(-1)
	l.heldN.Add(1)
	t := time.NewTimer(l.opts.Tarpit)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// Stats returns the counters.
func (l *Limiter) Stats() Stats {
	l.mu.Lock()
	running, greedy := l.running, 0
	now := time.Now()
	for _, until := range l.greedy {
		if now.Before(until) {
			greedy++
		}
	}
	l.mu.Unlock()
	return Stats{Admitted: l.admitted.Load(), Waited: l.waited.Load(), RejectedBusy: l.busy.Load(),
		RejectedClient: l.client.Load(), Deferred: l.deferred.Load(), Held: l.heldN.Load(), Running: running, Greedy: greedy}
}
