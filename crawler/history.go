package crawler

import (
	"sync"
	"time"

	"github.com/doppel-search/doppel/internal/ticker"
)

// The crawl over time: a sample every sampleEvery while Run or Watch
// runs, the last historySize kept (an hour).
const historySize = 360

var sampleEvery = 10 * time.Second // tests shorten it

// A Sample is the crawl at one moment, as History keeps it.
type Sample struct {
	At      time.Time
	Fetched int64 // pages fetched so far (Stats.Fetched)
	Errors  int64 // failed fetches so far in this process (Health.Failures summed)
	Queued  int   // URLs waiting (Stats.Queued)
}

// history is a ring of the last historySize samples. It is safe for
// concurrent use.
type history struct {
	mu    sync.Mutex
	ring  [historySize]Sample
	taken int // samples added in all
}

func (h *history) add(s Sample) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ring[h.taken%historySize] = s
	h.taken++
}

// samples returns the samples kept, oldest first.
func (h *history) samples() []Sample {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.taken <= historySize {
		return append([]Sample(nil), h.ring[:h.taken]...)
	}
	i := h.taken % historySize
	return append(append([]Sample(nil), h.ring[i:]...), h.ring[:i]...)
}

// History returns the crawl over time, oldest first: a sample when Run or
// Watch starts, every 10 seconds while it runs and when it ends; the last
// 360 of them (an hour of a Watch). It may be called at any time.
func (c *Crawler) History() []Sample { return c.n.health.history.samples() }

// sample adds the crawl as it is now (its counters st) to the history.
func (h *health) sample(st Stats) {
	var errors int64
	for i := range h.failures {
		errors += h.failures[i].Load()
	}
	h.history.add(Sample{At: time.Now(), Fetched: st.Fetched, Errors: errors, Queued: st.Queued})
}

// sampling samples the crawl (its counters as stats returns them) now
// and every sampleEvery until the function it returns is called, which
// takes a last sample.
func (h *health) sampling(stats func() Stats) (stop func()) {
	h.sample(stats())
	stopTicking := ticker.Every(sampleEvery, func() { h.sample(stats()) })
	return func() {
		stopTicking()
		h.sample(stats())
	}
}
