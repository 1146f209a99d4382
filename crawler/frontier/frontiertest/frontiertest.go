// Package frontiertest is the conformance suite of [frontier.Queue]: the
// behaviour every implementation of the crawler's frontier shares — the
// embedded bbolt [frontier.Frontier] and any other (a Redis Cluster for a
// distributed crawl). An implementation's tests call [Run] with an
// [Opener]:
//
//	func TestConformance(t *testing.T) {
//		frontiertest.Run(t, func(t *testing.T, dir string) frontier.Queue {
//			q, err := frontier.Open(filepath.Join(dir, "frontier.db"), frontier.Options{NoSync: true})
//			if err != nil {
//				t.Fatal(err)
//			}
//			return q
//		})
//	}
package frontiertest

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler/frontier"
	"github.com/doppel-search/doppel/internal/testrig/storetest"
)

// An Opener opens the queue whose state lives under dir, a directory of
// the test's own: a file-based implementation keeps its files there, a
// server-based one derives its namespace (a key prefix) from it, so that
// tests never share state. The first Open of a dir finds an empty queue;
// an Open after the previous client's Close must find the state that
// client committed, as a restarted process (or another worker) does, with
// the closed client's leases back in the queue. The suite closes every
// queue it opens. Open fails the test (t.Fatal) if it cannot open.
type Opener func(t *testing.T, dir string) frontier.Queue

// Run runs the conformance suite against the implementation that open
// opens, one subtest per behaviour of the [frontier.Queue] contract.
func Run(t *testing.T, open Opener) {
	tests := []struct {
		name string
		run  func(t *testing.T, open Opener)
	}{
		{"Empty", testEmpty},
		{"Order", testOrder},
		{"Payload", testPayload},
		{"AtMostOnce", testAtMostOnce},
		{"BatchAdds", testBatchAdds},
		{"BigBatch", testBigBatch},
		{"BatchOrder", testBatchOrder},
		{"BatchAtomic", testBatchAtomic},
		{"Done", testDone},
		{"All", testAll},
		{"SeenAll", testSeenAll},
		{"Requeue", testRequeue},
		{"Reprioritize", testReprioritize},
		{"Replace", testReplace},
		{"NextWhere", testNextWhere},
		{"ScheduleDue", testScheduleDue},
		{"Scheduled", testScheduled},
		{"LeasesReturnOnReopen", testLeasesReturn},
		{"Persistence", testPersistence},
		{"Model", testModel},
		{"Concurrent", testConcurrent},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, open) })
	}
}

// A harness holds the queue under test (q) and reopens it.
type harness struct {
	t  *testing.T
	q  frontier.Queue
	sh *storetest.Harness[frontier.Queue]
}

// start opens a fresh queue, closed when the test ends.
func start(t *testing.T, open Opener) *harness {
	t.Helper()
	sh := storetest.Start(t, open)
	return &harness{t: t, q: sh.Store(), sh: sh}
}

// reopen closes the queue and opens its state again.
func (h *harness) reopen() {
	h.t.Helper()
	h.q = h.sh.Reopen()
}

// commit commits b and returns the added flags.
func (h *harness) commit(b *frontier.Batch) []bool {
	h.t.Helper()
	added, err := h.q.Commit(b)
	if err != nil {
		h.t.Fatalf("Commit: %v", err)
	}
	if n := countOps(b, frontier.OpAdd); len(added) != n {
		h.t.Fatalf("Commit returned %d added flags for %d adds", len(added), n)
	}
	return added
}

func countOps(b *frontier.Batch, op frontier.Op) int {
	n := 0
	for _, c := range b.Changes() {
		if c.Op == op {
			n++
		}
	}
	return n
}

// add commits one Add and reports whether the URL was new.
func (h *harness) add(url string, priority int, payload []byte) bool {
	h.t.Helper()
	var b frontier.Batch
	b.Add(url, priority, payload)
	return h.commit(&b)[0]
}

// adds commits one Add per URL, each in its own batch, at priority 0.
func (h *harness) adds(urls ...string) {
	h.t.Helper()
	for _, u := range urls {
		if !h.add(u, 0, nil) {
			h.t.Fatalf("Add(%s): not added", u)
		}
	}
}

// done commits one Done.
func (h *harness) done(url, outcome string) {
	h.t.Helper()
	var b frontier.Batch
	b.Done(url, outcome)
	h.commit(&b)
}

// schedule commits one Schedule.
func (h *harness) schedule(url string, at time.Time, priority int, payload []byte) {
	h.t.Helper()
	var b frontier.Batch
	b.Schedule(url, at, priority, payload)
	h.commit(&b)
}

// next claims the next URL, failing the test if there is none.
func (h *harness) next() frontier.Item {
	h.t.Helper()
	it, err := h.q.NextWhere(nil, 0)
	if err != nil {
		h.t.Fatalf("NextWhere(nil, 0): %v", err)
	}
	return it
}

// nextURL claims the next URL and checks it is want.
func (h *harness) nextURL(want string) {
	h.t.Helper()
	if it := h.next(); it.URL != want {
		h.t.Fatalf("claimed %s, want %s", it.URL, want)
	}
}

// drain claims every pending URL, in order, until ErrEmpty.
func (h *harness) drain() []frontier.Item {
	h.t.Helper()
	var items []frontier.Item
	for {
		it, err := h.q.NextWhere(nil, 0)
		if errors.Is(err, frontier.ErrEmpty) {
			return items
		}
		if err != nil {
			h.t.Fatalf("NextWhere: %v", err)
		}
		items = append(items, it)
	}
}

// drainURLs is drain as "url@priority" strings.
func (h *harness) drainURLs() []string {
	h.t.Helper()
	var out []string
	for _, it := range h.drain() {
		out = append(out, fmt.Sprintf("%s@%d", it.URL, it.Priority))
	}
	return out
}

// checkStats checks the counters.
func (h *harness) checkStats(want frontier.Stats) {
	h.t.Helper()
	got, err := h.q.Stats()
	if err != nil || got != want {
		h.t.Fatalf("Stats = %+v, %v; want %+v", got, err, want)
	}
}

// states returns All as url → "state" or "state:outcome".
func (h *harness) states() map[string]string {
	h.t.Helper()
	got := map[string]string{}
	err := h.q.All(func(u string, s frontier.State, outcome string) error {
		if _, dup := got[u]; dup {
			return fmt.Errorf("the URL %s met twice by All", u)
		}
		got[u] = s.String()
		if s == frontier.Done {
			got[u] += ":" + outcome
		}
		return nil
	})
	if err != nil {
		h.t.Fatalf("All: %v", err)
	}
	return got
}

// checkStates checks All against want (url → "state[:outcome]").
func (h *harness) checkStates(want map[string]string) {
	h.t.Helper()
	if got := h.states(); !maps.Equal(got, want) {
		h.t.Fatalf("All = %v, want %v", got, want)
	}
}

// seen returns SeenAll(urls).
func (h *harness) seen(urls ...string) []bool {
	h.t.Helper()
	got, err := h.q.SeenAll(urls)
	if err != nil || len(got) != len(urls) {
		h.t.Fatalf("SeenAll(%q) = %v, %v", urls, got, err)
	}
	return got
}

// checkSeen checks SeenAll(urls) against want.
func (h *harness) checkSeen(urls []string, want ...bool) {
	h.t.Helper()
	if got := h.seen(urls...); !slices.Equal(got, want) {
		h.t.Fatalf("SeenAll(%q) = %v, want %v", urls, got, want)
	}
}

// scheduled returns Scheduled as "url@unix-seconds" in the order met.
func (h *harness) scheduled() []string {
	h.t.Helper()
	var got []string
	err := h.q.Scheduled(func(u string, at time.Time) error {
		got = append(got, fmt.Sprintf("%s@%d", u, at.Unix()))
		return nil
	})
	if err != nil {
		h.t.Fatalf("Scheduled: %v", err)
	}
	return got
}
