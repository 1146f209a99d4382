// Package polite paces a crawler's requests per host: at most Parallelism
// requests in flight to one host and at most Parallelism started within
// any Delay (each slot waits Delay between its requests, as colly's
// LimitRule does); one at a time, Crawl-delay apart, when the host's
// robots.txt asks for a Crawl-delay; and none while the host has asked to
// be left alone (429 or 503 with Retry-After). Several hosts are crawled side by side, each at its own
// pace, so no host gets more than its share.
//
// A slot (TryAcquire) is what a crawler holds for a request it is about
// to make; it is held while the request runs and released when the
// answer is in (Release), not while the crawler processes the page, so
// the host's next request may start as soon as its delay allows. The
// delay is kept between the requests as they go out: a request passes
// Send (or Transport) at the moment it is sent, and Send holds it back
// until the delay since the sends before it has passed — however long
// the request waited between its slot and its sending. A slot may be
// granted a little ahead of the host's turn (TryAcquireEarly,
// Options.Ahead), so that the request is ready and waiting in Send when
// the turn comes, instead of starting only when a busy machine wakes the
// crawler's dispatcher.
package polite

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// Options configures a Pacer. The zero value means: one request at a time
// per host, no delay.
type Options struct {
	// Parallelism is the most requests in flight to one host. Default 1.
	Parallelism int
	// Delay is the least time between two requests of one slot: at most
	// Parallelism requests start within any Delay. Default 0.
	Delay time.Duration
	// MaxPause bounds a host's Retry-After and Crawl-delay: a host cannot
	// stop the crawl for longer. Default 1 hour.
	MaxPause time.Duration
	// Ahead is how long before a host's delay has passed TryAcquireEarly
	// may grant a free slot (at most half the delay): the request then
	// waits in Send for the rest, so that it goes out when the delay ends
	// rather than when the crawler next looks. Requests are still sent
	// Delay apart; only the grants come earlier. Default 0.
	Ahead time.Duration
}

// A Pacer grants request slots per host. It is safe for concurrent use.
type Pacer struct {
	opts  Options
	now   func() time.Time
	mu    sync.Mutex
	hosts map[string]*host
	stats Stats
	// onPace, if set, hears each host's pace as it changes (OnPace).
	onPace func(host string, delay time.Duration, until time.Time)
}

// OnPace has fn called, outside the Pacer's lock, whenever a host's pace
// changes (SetCrawlDelay, Pause) with the least time between two of its
// request starts (its delay over its slots) and the end of its pause: to
// pass the pace on to a frontier that paces hosts for several crawlers.
// Call it before the Pacer is used.
func (p *Pacer) OnPace(fn func(host string, delay time.Duration, until time.Time)) { p.onPace = fn }

// paced tells onPace of h's pace. p.mu is not held.
func (p *Pacer) paced(name string, delay time.Duration, until time.Time) {
	if p.onPace != nil {
		p.onPace(name, delay, until)
	}
}

// Stats counts the waits a Pacer imposed. It is a value: a snapshot.
type Stats struct {
	// Waits counts the slots granted to a host that was refused one
	// since its previous grant: requests that had to wait for their
	// host (its slots busy, its delay, a pause).
	Waits int64
	// Waited is the time those requests waited: from the host's first
	// refusal to the grant, summed.
	Waited time.Duration
	// Idle is the time hosts stood ready — a slot free, the delay past,
	// no pause — before their next request started, summed over the
	// requests after a host's first: where a crawl held back only by
	// politeness loses requests (the dispatcher's latency, a page's
	// commit, or nothing due to fetch).
	Idle time.Duration
}

type host struct {
	ahead   time.Duration // Options.Ahead, at most half the delay
	active  int
	waiting int           // Acquire calls waiting for a slot
	refused time.Time     // the first refusal since the last grant; zero if none
	starts  []time.Time   // the last (up to limit) slots granted, oldest first
	sent    []time.Time   // the last (up to limit) requests sent (Send), oldest first
	paused  time.Time     // no request may start before (Retry-After)
	delay   time.Duration // Options.Delay or the host's Crawl-delay
	limit   int           // slots: Options.Parallelism, or 1 under a Crawl-delay
	freed   time.Time     // when a slot last became free (Release); zero before the first
}

// next returns when the host may start a request, slots permitting: its
// pause over, and the delay past since the slot granted and the request
// sent limit requests before.
func (h *host) next() time.Time { return h.turn(0) }

// turn returns when the host's turn comes, less early: its pause over,
// and the delay less early past since the slot granted and the request
// sent limit requests before.
func (h *host) turn(early time.Duration) time.Time {
	return later(h.paused, later(h.spaced(h.sent, early), h.spaced(h.starts, early)))
}

// sendAt returns when a request to the host may be sent: its pause over
// and the delay past since the request sent limit requests before.
func (h *host) sendAt() time.Time {
	return later(h.paused, h.spaced(h.sent, 0))
}

// setDelay sets the host's delay and slots, and Ahead within half the
// delay.
func (h *host) setDelay(delay time.Duration, limit int, ahead time.Duration) {
	h.delay, h.limit, h.ahead = delay, limit, min(ahead, delay/2)
}

// spaced returns the delay less early after the limit-th last of times
// (oldest first), or the zero time if there are fewer or no delay.
func (h *host) spaced(times []time.Time, early time.Duration) time.Time {
	if len(times) < h.limit || h.delay <= 0 {
		return time.Time{}
	}
	return times[len(times)-h.limit].Add(h.delay - early)
}

// keep appends t to times and keeps the last limit.
func keep(times []time.Time, t time.Time, limit int) []time.Time {
	times = append(times, t)
	if len(times) > limit {
		times = times[len(times)-limit:]
	}
	return times
}

// EnsureDefaults sets every zero field to its default (each field's doc
// says which) and returns o.
func (o *Options) EnsureDefaults() *Options {
	if o.Parallelism <= 0 {
		o.Parallelism = 1
	}
	if o.MaxPause <= 0 {
		o.MaxPause = time.Hour
	}
	o.Ahead = max(o.Ahead, 0)
	return o
}

// New returns a Pacer.
func New(opts Options) *Pacer {
	opts.EnsureDefaults()
	return &Pacer{opts: opts, now: time.Now, hosts: map[string]*host{}}
}

func (p *Pacer) host(name string) *host {
	h := p.hosts[name]
	if h == nil {
		h = &host{}
		h.setDelay(p.opts.Delay, p.opts.Parallelism, p.opts.Ahead)
		p.hosts[name] = h
	}
	return h
}

// Acquire waits until a request slot for host is free and takes it
// (looking every 50 ms, as a request outside the crawl's dispatcher — a
// sitemap, a stylesheet — does), or returns ctx's error. Release it when
// the request is done. While it waits, TryAcquire and TryAcquireEarly
// refuse the host's slots to others: a crawler's dispatcher, which asks
// as soon as a slot may be granted, would otherwise take every one
// before the next look (on the kit's living site a kept crawl read its
// sitemap at no turn in ten minutes). It is granted up to Options.Ahead
// early, as TryAcquireEarly.
func (p *Pacer) Acquire(ctx context.Context, name string) error {
	p.mu.Lock()
	h := p.host(name)
	h.waiting++
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		h.waiting--
		p.mu.Unlock()
	}()
	for !p.tryAcquire(name, true, true) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil
}

// TryAcquire takes a request slot for host if one is free now, and
// reports whether it did. Release it when the request is done.
func (p *Pacer) TryAcquire(name string) bool { return p.tryAcquire(name, false, false) }

// TryAcquireEarly is TryAcquire up to Options.Ahead before the host's
// turn: the request waits in Send for the rest of the delay. A crawler
// asks for it when no host's slot is free now, so that a request
// waiting for its host's turn does not hold a fetch goroutine that
// another host could use.
func (p *Pacer) TryAcquireEarly(name string) bool { return p.tryAcquire(name, true, false) }

// tryAcquire is TryAcquire, early as TryAcquireEarly; for an Acquire
// waiting (waiter), or for anyone when none is.
func (p *Pacer) tryAcquire(name string, early, waiter bool) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	h := p.host(name)
	now := p.now()
	at := h.next()
	if early {
		at = h.turn(h.ahead)
	}
	if h.active >= h.limit || now.Before(at) || h.waiting > 0 && !waiter {
		if h.refused.IsZero() {
			h.refused = now
		}
		return false
	}
	if !h.refused.IsZero() {
		p.stats.Waits++
		p.stats.Waited += now.Sub(h.refused)
		h.refused = time.Time{}
	}
	if !h.freed.IsZero() {
		if ready := later(h.freed, h.next()); now.After(ready) {
			p.stats.Idle += now.Sub(ready)
		}
	}
	h.active++
	h.starts = keep(h.starts, now, h.limit)
	return true
}

// Send waits until a request to host may be sent — its pause over, and
// Delay (or the Crawl-delay) past since the request sent Parallelism
// requests before — and records it as sent then. Call it at the moment
// the request goes out, after TryAcquire: the slot's grant may come a
// while before the sending (a page's commit, a busy machine), and two
// requests sent closer than the delay would break the host's pace even
// if their grants were not. It returns ctx's error if ctx ends first.
func (p *Pacer) Send(ctx context.Context, name string) error {
	for {
		p.mu.Lock()
		h := p.host(name)
		now := p.now()
		at := h.sendAt()
		if !now.Before(at) {
			h.sent = keep(h.sent, now, h.limit)
			p.mu.Unlock()
			return nil
		}
		p.mu.Unlock()
		t := time.NewTimer(at.Sub(now))
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// Transport sends each request through Pacer.Send first: a request waits
// there for its host's delay to pass since the requests sent before it.
type Transport struct {
	Base  http.RoundTripper // default http.DefaultTransport
	Pacer *Pacer
}

// RoundTrip waits for the request's turn (Pacer.Send, by its URL's host)
// and sends it.
func (t Transport) RoundTrip(r *http.Request) (*http.Response, error) {
	if err := t.Pacer.Send(r.Context(), r.URL.Host); err != nil {
		if r.Body != nil {
			r.Body.Close()
		}
		return nil, err
	}
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	return base.RoundTrip(r)
}

// Release returns a slot TryAcquire took, as soon as its request's answer
// is in.
func (p *Pacer) Release(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if h := p.hosts[name]; h != nil && h.active > 0 {
		if h.active == h.limit {
			h.freed = p.now()
		}
		h.active--
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// SetCrawlDelay applies the host's robots.txt Crawl-delay d, bounded by
// MaxPause: one request at a time, d between their starts. A d no longer
// than Options.Delay changes nothing.
func (p *Pacer) SetCrawlDelay(name string, d time.Duration) {
	p.mu.Lock()
	h := p.host(name)
	if d = min(d, p.opts.MaxPause); d > p.opts.Delay {
		h.setDelay(d, 1, p.opts.Ahead)
	} else {
		h.setDelay(p.opts.Delay, p.opts.Parallelism, p.opts.Ahead)
	}
	delay, until := h.delay/time.Duration(h.limit), h.paused
	p.mu.Unlock()
	p.paced(name, delay, until)
}

// Pause keeps the host without requests for d (a Retry-After), bounded by
// MaxPause, and returns when it may be asked again.
func (p *Pacer) Pause(name string, d time.Duration) time.Time {
	p.mu.Lock()
	h := p.host(name)
	until := p.now().Add(min(max(d, 0), p.opts.MaxPause))
	if until.After(h.paused) {
		h.paused = until
	}
	next, delay, paused := h.next(), h.delay/time.Duration(h.limit), h.paused
	p.mu.Unlock()
	p.paced(name, delay, paused)
	return next
}

// Next returns the earliest time a request to host may start as far as
// its delay and any pause go (a slot held by a request in flight frees up
// on Release). A time not after now, or the zero time, means at once (a
// host the Pacer has not met may always start).
func (p *Pacer) Next(name string) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	h := p.hosts[name]
	if h == nil {
		return time.Time{}
	}
	return h.next()
}

// Stats returns the waits imposed so far.
func (p *Pacer) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stats
}

// NextFree returns the earliest time a host without a free slot now may
// have one, early (TryAcquireEarly; ignoring slots held by requests in
// flight, which free up on Release); the zero time if every host with a
// pause or delay is free.
func (p *Pacer) NextFree() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	var t time.Time
	now := p.now()
	for _, h := range p.hosts {
		if n := h.turn(h.ahead); n.After(now) && (t.IsZero() || n.Before(t)) {
			t = n
		}
	}
	return t
}
