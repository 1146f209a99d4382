package crawler

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/doppel-search/doppel/crawler/frontier"
	"github.com/doppel-search/doppel/crawler/polite"
)

// scanLimit is how many pending URLs the dispatcher looks at for one that
// may be fetched now (its host has a free slot, its retry is due).
const scanLimit = 512

// minPoll and sharedPoll pace the dispatcher's looks at a frontier shared
// with other workers: when its hosts wait their turn, and when it is
// empty while other workers have URLs in flight.
const (
	minPoll    = 5 * time.Millisecond
	sharedPoll = 100 * time.Millisecond
)

// A dispatcher hands frontier items to fetch goroutines, each with a request slot
// of its host (package polite), until the crawl is over: the frontier has
// nothing that may be fetched with nothing in flight that could add to
// it, the page budget is spent, ctx is done or storage fails. Kept alive
// (Crawler.Watch), it instead waits for revisits to fall due. Due revisits
// are moved to the queue as they fall due.
type dispatcher struct {
	ctx      context.Context
	front    frontier.Queue
	turns    hostTurns // on a shared frontier: other workers' URLs in flight (elsewhere)
	pacer    *polite.Pacer
	fatal    *fatal
	budget   func(fresh int) bool // whether fresh more pages fit the page budget
	keep     bool                 // wait for revisits instead of ending
	mu       sync.Mutex
	cond     *sync.Cond
	inflight int   // popped (or sitemaps being read) and not yet committed
	fresh    int   // of those popped, URLs never fetched: they count against MaxPages
	err      error // a frontier error
	// idle tells the committer that this worker waits for others with
	// nothing in flight of its own (on a shared frontier).
	idle chan struct{}
}

func newDispatcher(ctx context.Context, front frontier.Queue, turns hostTurns, pacer *polite.Pacer, f *fatal, budget func(int) bool, keep bool) *dispatcher {
	d := &dispatcher{ctx: ctx, front: front, turns: turns, pacer: pacer, fatal: f, budget: budget, keep: keep, idle: make(chan struct{}, 1)}
	d.cond = sync.NewCond(&d.mu)
	context.AfterFunc(ctx, d.poke)
	return d
}

// poke wakes the dispatcher to look again (a slot freed, a commit made).
func (d *dispatcher) poke() {
	d.mu.Lock()
	d.cond.Broadcast()
	d.mu.Unlock()
}

// next returns the next item to fetch, its host slot taken (release it
// with Pacer.Release and poke), or false when the crawl is over.
func (d *dispatcher) next() (frontier.Item, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for {
		if d.ctx.Err() != nil || d.err != nil || d.fatal.fatalErr() != nil {
			d.cond.Broadcast()
			return frontier.Item{}, false
		}
		now := time.Now()
		if due, ok := d.front.NextDue(); ok && !due.After(now) {
			if _, err := d.front.Due(now); err != nil {
				d.err = err
				continue
			}
		}
		item, wake, paced, err := d.look(now)
		switch {
		case err == nil:
			d.inflight++
			var t task
			if _ = json.Unmarshal(item.Payload, &t); !t.Revisit {
				d.fresh++
			}
			return item, true
		case errors.Is(err, errSpent): // as if none were pending
		case errors.Is(err, frontier.ErrNotReady):
			var again bool
			if wake, again = d.notReady(now, wake, paced); again {
				continue
			}
		case !errors.Is(err, frontier.ErrEmpty):
			d.err = err
			continue
		}
		// Nothing may be fetched now.
		var over bool
		if wake, over = d.idleWake(now, wake, errors.Is(err, frontier.ErrEmpty)); over {
			d.cond.Broadcast()
			return frontier.Item{}, false
		}
		if d.dueBy(now, wake); d.err != nil {
			continue
		}
		d.waitUntil(wake)
	}
}

// dueEarly is how far ahead of its time a revisit may be moved to the
// queue: while the dispatcher waits for a host's turn, rather than when
// the turn comes.
const dueEarly = time.Second

// dueBy moves the revisits that fall due by wake (when the dispatcher
// looks again, if within dueEarly of now) to the queue before it waits:
// the move is a write transaction (an fsync), which taken at the host's
// turn delayed every revisit by it (8 ms a request on a loaded machine,
// where the host allowed one each 200 ms). d.mu is held.
func (d *dispatcher) dueBy(now, wake time.Time) {
	if wake.IsZero() || wake.Sub(now) > dueEarly {
		return
	}
	if due, ok := d.front.NextDue(); ok && !due.After(wake) {
		if _, err := d.front.Due(wake); err != nil {
			d.err = err
		}
	}
}

// notReady is next's answer to a frontier whose URLs may not be fetched
// yet: when to look again (the earliest of wake, a host slot's release
// and a paced frontier's next host turn), or again if the queue may be
// looked at at once — paced and no slot held, what refused a URL was its
// host's delay, which ended while the queue was looked at.
func (d *dispatcher) notReady(now, wake time.Time, paced bool) (_ time.Time, again bool) {
	free := d.pacer.NextFree()
	if paced && free.IsZero() && d.inflight == 0 {
		return wake, true
	}
	if !free.IsZero() {
		wake = earliest(wake, free)
	}
	if p, ok := d.front.(frontier.Paced); ok {
		// The frontier holds back hosts whose turn has not come.
		if at, ok := p.NextReady(); ok {
			if soon := now.Add(minPoll); at.Before(soon) {
				at = soon
			}
			wake = earliest(wake, at)
		}
	}
	return wake, false
}

// idleWake is when next looks again when nothing may be fetched now, or
// over if the crawl is over: not kept alive (Watch), nothing in flight
// here or on another crawl process sharing the frontier, nothing to wait
// for; empty says the look found no URL pending.
func (d *dispatcher) idleWake(now, wake time.Time, empty bool) (_ time.Time, over bool) {
	switch {
	case d.keep:
		if due, ok := d.front.NextDue(); ok {
			wake = earliest(wake, due)
		}
		// Commits add revisits and links; poll at least every second.
		return earliest(wake, now.Add(time.Second)), false
	case d.inflight > 0 || !wake.IsZero():
		return wake, false
	case d.turns.elsewhere(empty):
		// Other workers' pages in flight may still queue links.
		// Ask the committer to mark this worker's own done
		// without waiting for its tick: other workers wait for
		// them likewise.
		select {
		case d.idle <- struct{}{}:
		default:
		}
		return now.Add(sharedPoll), false
	}
	return wake, true
}

// look takes the best pending item that may be fetched now — within the
// page budget unless a revisit, its retry due, its host's slot free (and
// taken) — among the first scanLimit. If none may, it looks again for one
// whose host's turn comes within polite.Options.Ahead (TryAcquireEarly):
// only then, so that no fetch goroutine waits for a host's turn while
// another host could use it. Otherwise it returns frontier.ErrNotReady or
// ErrEmpty, the earliest time a URL looked at may be fetched (wake, zero
// if none is known), and whether one waited for its host's slot (paced).
// d.mu is held.
func (d *dispatcher) look(now time.Time) (item frontier.Item, wake time.Time, paced bool, err error) {
	item, wake, paced, err = d.scan(now, d.pacer.TryAcquire)
	if paced && errors.Is(err, frontier.ErrNotReady) {
		var later time.Time
		item, later, _, err = d.scan(now, d.pacer.TryAcquireEarly)
		wake = earliest(wake, later)
	}
	return item, wake, paced, err
}

// errSpent is scan's answer when every URL it looked at was refused for
// the page budget alone: none of them will be fetched, however long the
// dispatcher waits (a paced frontier's next host turn, NextReady, is no
// reason to look again).
var errSpent = errors.New("crawler: the page budget is spent")

// scan is one look at the first scanLimit pending items, taking a host's
// slot with acquire; it returns errSpent rather than
// frontier.ErrNotReady if it refused them all for the page budget.
func (d *dispatcher) scan(now time.Time, acquire func(host string) bool) (item frontier.Item, wake time.Time, paced bool, err error) {
	budget := d.budget(d.fresh)
	busy := map[string]bool{}
	var took []string // hosts whose slot accept took
	defer func() {
		// A paced frontier may lose an accepted URL to another worker:
		// give back the slots of URLs not returned.
		kept := false
		for _, h := range took {
			if err == nil && !kept && h == hostOf(item.URL) {
				kept = true // the item's own
				continue
			}
			d.pacer.Release(h)
		}
	}()
	seen, spent := 0, 0 // URLs looked at; refused for the page budget alone
	defer func() {
		if errors.Is(err, frontier.ErrNotReady) && seen > 0 && spent == seen {
			err = errSpent
		}
	}()
	item, err = d.front.NextWhere(func(u string, payload []byte) bool {
		var t task
		_ = json.Unmarshal(payload, &t)
		seen++
		if !budget && !t.Revisit {
			spent++
			return false
		}
		if t.After > 0 {
			if at := time.UnixMilli(t.After); at.After(now) {
				wake = earliest(wake, at)
				return false
			}
		}
		// A host refused once in this look is refused for the rest of
		// it: its slot may free up midway, and a URL further down must
		// not then go before the better ones above it.
		host := hostOf(u)
		if busy[host] {
			return false
		}
		if acquire(host) {
			took = append(took, host)
			return true
		}
		busy[host], paced = true, true
		return false
	}, scanLimit)
	return item, wake, paced, err
}

// waitUntil waits for a poke, or until t if it is set. d.mu is held.
func (d *dispatcher) waitUntil(t time.Time) {
	if !t.IsZero() {
		timer := time.AfterFunc(time.Until(t), d.poke)
		defer timer.Stop()
	}
	d.cond.Wait()
}

// begin counts work in flight that did not come from the frontier (a
// sitemap being read), so that the crawl does not end before it is
// committed.
func (d *dispatcher) begin() {
	d.mu.Lock()
	d.inflight++
	d.mu.Unlock()
}

// spend counts one request that is not a page's in requests if the page
// budget has room for it beside the pages popped and not yet committed,
// under the lock the pages are popped with, so that the two never spend
// the same request.
func (d *dispatcher) spend(requests *atomic.Int64) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.budget(d.fresh) {
		return false
	}
	requests.Add(1)
	return true
}

// settle reports results committed (or abandoned): n in flight, fresh of
// them never fetched before.
func (d *dispatcher) settle(n, fresh int) {
	d.mu.Lock()
	d.inflight -= n
	d.fresh -= fresh
	d.cond.Broadcast()
	d.mu.Unlock()
}

func earliest(a, b time.Time) time.Time {
	if a.IsZero() || !b.IsZero() && b.Before(a) {
		return b
	}
	return a
}

// hostOf returns the host (with port) of a normalized URL.
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Host
}
