package frontiertest

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/doppel-search/doppel/crawler/frontier"
)

// testEmpty: a new queue has nothing to hand out, count, list or schedule.
func testEmpty(t *testing.T, open Opener) {
	h := start(t, open)
	if it, err := h.q.NextWhere(nil, 0); !errors.Is(err, frontier.ErrEmpty) {
		t.Errorf("NextWhere on an empty queue = %+v, %v; want ErrEmpty", it, err)
	}
	h.checkStats(frontier.Stats{})
	h.checkStates(map[string]string{})
	if got := h.scheduled(); len(got) != 0 {
		t.Errorf("Scheduled = %q, want none", got)
	}
	if at, ok := h.q.NextDue(); ok {
		t.Errorf("NextDue = %v, true; want none", at)
	}
	h.checkSeen([]string{"http://x/a"}, false)
	if added := h.commit(&frontier.Batch{}); len(added) != 0 {
		t.Errorf("Commit of an empty batch = %v", added)
	}
	h.checkStats(frontier.Stats{})
}

type add struct {
	url  string
	prio int
}

// testOrder: higher priority first, FIFO among equals, whether the URLs
// come one commit each or all in one batch.
func testOrder(t *testing.T, open Opener) {
	tests := []struct {
		name string
		adds []add
		want []string
	}{
		{"fifo", []add{{"a", 0}, {"b", 0}, {"c", 0}}, []string{"a@0", "b@0", "c@0"}},
		{"higher first", []add{{"lo", 1}, {"hi", 9}, {"mid", 5}}, []string{"hi@9", "mid@5", "lo@1"}},
		{"negative and extreme", []add{{"neg", -5}, {"zero", 0}, {"min", -1 << 62}, {"max", 1 << 62}},
			[]string{fmt.Sprint("max@", 1<<62), "zero@0", "neg@-5", fmt.Sprint("min@", -1<<62)}},
		{"fifo within priority", []add{{"a1", 1}, {"b0", 0}, {"a2", 1}, {"b1", 0}, {"a3", 1}},
			[]string{"a1@1", "a2@1", "a3@1", "b0@0", "b1@0"}},
		{"not byte order", []add{{"z", 0}, {"m", 0}, {"a", 0}}, []string{"z@0", "m@0", "a@0"}},
		{"dedup keeps first", []add{{"x", 0}, {"y", 0}, {"x", 9}}, []string{"x@0", "y@0"}},
	}
	for _, tc := range tests {
		for _, oneBatch := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/batch=%v", tc.name, oneBatch), func(t *testing.T) {
				h := start(t, open)
				var b frontier.Batch
				for _, a := range tc.adds {
					b.Add(a.url, a.prio, nil)
					if !oneBatch {
						h.commit(&b)
						b = frontier.Batch{}
					}
				}
				h.commit(&b)
				if got := h.drainURLs(); !slices.Equal(got, tc.want) {
					t.Errorf("order = %v, want %v", got, tc.want)
				}
			})
		}
	}
}

// testPayload: a claim returns the payload given to Add, nil for none.
func testPayload(t *testing.T, open Opener) {
	h := start(t, open)
	h.add("http://x/with", 1, []byte(`{"k":"v"}`))
	h.add("http://x/without", 0, nil)
	if it := h.next(); it.URL != "http://x/with" || string(it.Payload) != `{"k":"v"}` {
		t.Errorf("first claim %+v; want http://x/with with its payload", it)
	}
	if it := h.next(); it.URL != "http://x/without" || it.Payload != nil {
		t.Errorf("second claim %+v; want http://x/without with a nil payload", it)
	}
}

// testAtMostOnce: adding a URL pending, in flight, done, or marked done
// without ever being queued, is a no-op; the counters follow every step.
func testAtMostOnce(t *testing.T, open Opener) {
	h := start(t, open)
	steps := []struct {
		name  string
		do    func()
		url   string // then added again: never new
		stats frontier.Stats
	}{
		{"pending", func() { h.adds("a", "b", "c") }, "a", frontier.Stats{Pending: 3}},
		{"in flight", func() { h.nextURL("a") }, "a", frontier.Stats{Pending: 2, InFlight: 1}},
		{"done", func() { h.done("a", "fetched") }, "a", frontier.Stats{Pending: 2, Done: 1}},
		{"done unknown", func() { h.done("zz", "skipped: trap") }, "zz", frontier.Stats{Pending: 2, Done: 2}},
	}
	for _, s := range steps {
		s.do()
		if h.add(s.url, 5, nil) {
			t.Fatalf("%s: Add(%s) again reported new", s.name, s.url)
		}
		h.checkStats(s.stats)
	}
	if got, want := h.drainURLs(), []string{"b@0", "c@0"}; !slices.Equal(got, want) {
		t.Errorf("handed out after the re-adds: %v, want %v", got, want)
	}
}

// testBatchAdds: a batch reports each Add; a known URL, or one added
// earlier in the same batch, is not new (the first Add wins).
func testBatchAdds(t *testing.T, open Opener) {
	h := start(t, open)
	h.add("u/seen", 1, nil)
	var b frontier.Batch
	b.Add("u/a", 1, nil)
	b.Add("u/seen", 9, nil)
	b.Add("u/new", 5, []byte("p"))
	b.Add("u/new", 7, []byte("q"))
	b.Add("u/b", 1, nil)
	if got, want := h.commit(&b), []bool{true, false, true, false, true}; !slices.Equal(got, want) {
		t.Errorf("added = %v, want %v", got, want)
	}
	h.checkStats(frontier.Stats{Pending: 4})
	items := h.drain()
	var got []string
	for _, it := range items {
		got = append(got, fmt.Sprintf("%s@%d:%s", it.URL, it.Priority, it.Payload))
	}
	if want := []string{"u/new@5:p", "u/seen@1:", "u/a@1:", "u/b@1:"}; !slices.Equal(got, want) {
		t.Errorf("claimed %v, want %v", got, want)
	}
	var known frontier.Batch
	known.Add("u/seen", 1, nil)
	known.Add("u/new", 1, nil)
	if got := h.commit(&known); !slices.Equal(got, []bool{false, false}) {
		t.Errorf("re-adding known URLs: %v", got)
	}
}

// testBigBatch: a thousand adds in one batch, in no particular key order,
// all land, in priority then batch order.
func testBigBatch(t *testing.T, open Opener) {
	h := start(t, open)
	var b frontier.Batch
	var want []string
	for i := range 1000 {
		u := fmt.Sprintf("u/%08d", (i*7919)%1000) // every number once, shuffled
		b.Add(u, i%3, nil)
	}
	for p := 2; p >= 0; p-- {
		for i := range 1000 {
			if i%3 == p {
				want = append(want, fmt.Sprintf("u/%08d@%d", (i*7919)%1000, p))
			}
		}
	}
	added := h.commit(&b)
	if slices.Contains(added, false) {
		t.Errorf("some URLs of the batch were not added")
	}
	h.checkStats(frontier.Stats{Pending: 1000})
	if got := h.drainURLs(); !slices.Equal(got, want) {
		t.Errorf("order of a big batch differs (first %v, want %v)", got[:min(5, len(got))], want[:5])
	}
}

// testBatchOrder: a batch's changes apply in the order made.
func testBatchOrder(t *testing.T, open Opener) {
	h := start(t, open)
	h.adds("old")
	var b frontier.Batch
	b.Add("x", 0, nil)
	b.Done("x", "skipped") // added then done: never handed out
	b.Done("y", "skipped")
	b.Add("y", 0, nil) // done then added: not new
	b.Add("z", 0, nil)
	b.Reprioritize("z", 9) // added then moved up: before old
	b.Add("w", 0, nil)
	b.Requeue("w", -1, []byte("w2")) // added then requeued: last
	if got, want := h.commit(&b), []bool{true, false, true, true}; !slices.Equal(got, want) {
		t.Errorf("added = %v, want %v", got, want)
	}
	h.checkStats(frontier.Stats{Pending: 3, Done: 2})
	if got, want := h.drainURLs(), []string{"z@9", "old@0", "w@-1"}; !slices.Equal(got, want) {
		t.Errorf("claimed %v, want %v", got, want)
	}
	h.checkStates(map[string]string{"old": "inflight", "x": "done:skipped", "y": "done:skipped", "z": "inflight", "w": "inflight"})
}

// testBatchAtomic: a batch with an invalid change (an empty URL) returns
// ErrBadRequest and applies none of its changes, whatever their kind.
func testBatchAtomic(t *testing.T, open Opener) {
	bad := []func(b *frontier.Batch){
		func(b *frontier.Batch) { b.Add("", 0, nil) },
		func(b *frontier.Batch) { b.Done("", "x") },
		func(b *frontier.Batch) { b.Requeue("", 0, nil) },
		func(b *frontier.Batch) { b.Reprioritize("", 0) },
		func(b *frontier.Batch) { b.Schedule("", at0, 0, nil) },
	}
	for i, spoil := range bad {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			h := start(t, open)
			h.adds("p1", "p2")
			h.nextURL("p1")
			var b frontier.Batch
			b.Add("new", 0, nil)
			b.Done("p1", "fetched")
			b.Requeue("p2", 5, nil)
			b.Schedule("p1", at0, 0, nil)
			spoil(&b)
			b.Done("late", "after the bad change")
			if _, err := h.q.Commit(&b); !errors.Is(err, frontier.ErrBadRequest) {
				t.Fatalf("Commit of a batch with an empty URL: %v, want ErrBadRequest", err)
			}
			h.checkStats(frontier.Stats{Pending: 1, InFlight: 1})
			h.checkSeen([]string{"new", "late"}, false, false)
			h.checkStates(map[string]string{"p1": "inflight", "p2": "pending"})
			if got := h.scheduled(); len(got) != 0 {
				t.Errorf("Scheduled = %q after a failed batch", got)
			}
		})
	}
}

// testDone: Done whatever the state — pending and in-flight URLs leave the
// queue, a done URL takes the new outcome, an unknown URL is recorded done.
func testDone(t *testing.T, open Opener) {
	h := start(t, open)
	h.adds("a", "b", "c")
	h.nextURL("a")
	h.done("a", "fetched")         // in flight
	h.done("b", "skipped: robots") // pending
	h.done("zz", "skipped: trap")  // unknown
	h.done("a", "refetched")       // done
	h.checkStats(frontier.Stats{Pending: 1, Done: 3})
	if got := h.drainURLs(); !slices.Equal(got, []string{"c@0"}) {
		t.Errorf("handed out %v, want only c", got)
	}
	h.checkStats(frontier.Stats{InFlight: 1, Done: 3})
	h.done("c", "fetched")
	h.checkStats(frontier.Stats{Done: 4})
	h.checkStates(map[string]string{"a": "done:refetched", "b": "done:skipped: robots", "c": "done:fetched", "zz": "done:skipped: trap"})
	if _, err := h.q.NextWhere(nil, 0); !errors.Is(err, frontier.ErrEmpty) {
		t.Errorf("NextWhere after all done: %v, want ErrEmpty", err)
	}
}

// testAll: All lists every URL seen, in byte order, with its state, and
// stops at fn's error.
func testAll(t *testing.T, open Opener) {
	h := start(t, open)
	h.adds("http://x/c", "http://x/a", "http://x/b", "http://x/d")
	h.nextURL("http://x/c")
	h.done("http://x/a", "fetched")
	var urls, states []string
	err := h.q.All(func(u string, s frontier.State, outcome string) error {
		urls, states = append(urls, u), append(states, s.String()+":"+outcome)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"http://x/a", "http://x/b", "http://x/c", "http://x/d"}; !slices.Equal(urls, want) {
		t.Errorf("All met %v, want byte order %v", urls, want)
	}
	if want := []string{"done:fetched", "pending:", "inflight:", "pending:"}; !slices.Equal(states, want) {
		t.Errorf("All states %v, want %v", states, want)
	}
	stop, calls := errors.New("stop"), 0
	if err := h.q.All(func(string, frontier.State, string) error { calls++; return stop }); err != stop || calls != 1 {
		t.Errorf("All with a failing fn = %v after %d calls; want its error after 1", err, calls)
	}
}

// testSeenAll: a URL is seen once queued or marked done, in any state
// after; a scheduled URL never queued is not seen until due.
func testSeenAll(t *testing.T, open Opener) {
	h := start(t, open)
	urls := []string{"http://x/a", "http://x/b", "http://x/s", "http://x/c"}
	steps := []struct {
		name string
		do   func()
		want []bool
	}{
		{"nothing", func() {}, []bool{false, false, false, false}},
		{"added", func() { h.adds("http://x/a") }, []bool{true, false, false, false}},
		{"in flight", func() { h.nextURL("http://x/a") }, []bool{true, false, false, false}},
		{"done", func() { h.done("http://x/a", "fetched") }, []bool{true, false, false, false}},
		{"done unknown", func() { h.done("http://x/b", "skipped") }, []bool{true, true, false, false}},
		{"scheduled", func() { h.schedule("http://x/s", at0, 0, nil) }, []bool{true, true, false, false}},
		{"due", func() { due(h, at0, 1) }, []bool{true, true, true, false}},
	}
	for _, s := range steps {
		s.do()
		if got := h.seen(urls...); !slices.Equal(got, s.want) {
			t.Errorf("%s: SeenAll = %v, want %v", s.name, got, s.want)
		}
	}
	if got := h.seen(); len(got) != 0 {
		t.Errorf("SeenAll() = %v", got)
	}
}

// testRequeue: Requeue puts a URL in flight (ending its lease), a pending
// one or a done one at the end of its priority with the new payload.
func testRequeue(t *testing.T, open Opener) {
	h := start(t, open)
	h.add("http://a/1", 10, []byte("first"))
	h.add("http://a/2", 10, nil)
	h.add("http://a/3", 10, nil)
	h.add("http://a/4", 5, nil)
	h.nextURL("http://a/1")
	var b frontier.Batch
	b.Requeue("http://a/1", 5, []byte("retry 1")) // in flight
	b.Done("http://a/2", "fetched")
	b.Requeue("http://a/2", 5, []byte("again")) // done
	b.Requeue("http://a/3", 5, nil)             // pending: to the end
	h.commit(&b)
	h.checkStats(frontier.Stats{Pending: 4})
	var got []string
	for _, it := range h.drain() {
		got = append(got, fmt.Sprintf("%s@%d:%s", it.URL, it.Priority, it.Payload))
	}
	want := []string{"http://a/4@5:", "http://a/1@5:retry 1", "http://a/2@5:again", "http://a/3@5:"}
	if !slices.Equal(got, want) {
		t.Errorf("claimed %v, want %v", got, want)
	}
}

// testReprioritize: a pending URL moves to its new priority at a fresh
// position, keeping its payload; URLs in flight, done or unknown are left
// alone.
func testReprioritize(t *testing.T, open Opener) {
	h := start(t, open)
	for _, u := range []string{"family/1", "family/2", "unique", "other", "finished"} {
		h.add(u, 10, []byte("payload of "+u))
	}
	h.nextURL("family/1")
	h.done("finished", "fetched")
	var b frontier.Batch
	b.Reprioritize("family/2", -5) // pending: demoted
	b.Reprioritize("other", 10)    // pending: same priority, now after unique
	b.Reprioritize("family/1", -5) // in flight
	b.Reprioritize("finished", 50) // done
	b.Reprioritize("none", 50)     // unknown
	h.commit(&b)
	h.checkStats(frontier.Stats{Pending: 3, InFlight: 1, Done: 1})
	h.checkSeen([]string{"none"}, false)
	var got []string
	for _, it := range h.drain() {
		if string(it.Payload) != "payload of "+it.URL {
			t.Errorf("payload of %s = %q", it.URL, it.Payload)
		}
		got = append(got, fmt.Sprintf("%s@%d", it.URL, it.Priority))
	}
	if want := []string{"unique@10", "other@10", "family/2@-5"}; !slices.Equal(got, want) {
		t.Errorf("order after reprioritizing = %v, want %v", got, want)
	}
	h.checkStates(map[string]string{"family/1": "inflight", "family/2": "inflight", "unique": "inflight",
		"other": "inflight", "finished": "done:fetched"})
	// The lease of family/1 returns it with its priority and position,
	// untouched by the Reprioritize made while it was in flight.
	h.reopen()
	if got, want := h.drainURLs(), []string{"family/1@10", "unique@10", "other@10", "family/2@-5"}; !slices.Equal(got, want) {
		t.Errorf("after reopen claimed %v, want %v", got, want)
	}
}

// testLeasesReturn: URLs claimed and not done when the client closes (a
// worker that dies) are handed out again by the next client, in their old
// places with their payloads; done ones are not.
func testLeasesReturn(t *testing.T, open Opener) {
	h := start(t, open)
	for i, u := range []string{"a", "b", "c", "d", "e"} {
		h.add(u, i%2, []byte("payload-"+u))
	}
	// Order: b, d (priority 1), then a, c, e.
	for _, u := range []string{"b", "d", "a"} {
		h.nextURL(u)
	}
	h.done("d", "ok") // b and a stay in flight
	h.checkStats(frontier.Stats{Pending: 2, InFlight: 2, Done: 1})
	h.reopen()
	h.checkStats(frontier.Stats{Pending: 4, Done: 1})
	h.checkStates(map[string]string{"a": "pending", "b": "pending", "c": "pending", "d": "done:ok", "e": "pending"})
	var got []string
	for _, it := range h.drain() {
		if string(it.Payload) != "payload-"+it.URL {
			t.Errorf("payload of %s = %q", it.URL, it.Payload)
		}
		got = append(got, fmt.Sprintf("%s@%d", it.URL, it.Priority))
	}
	if want := []string{"b@1", "a@0", "c@0", "e@0"}; !slices.Equal(got, want) {
		t.Errorf("after reopen claimed %v, want %v (leases back in place, done gone)", got, want)
	}
}

// testPersistence: everything committed is there after a reopen — queue
// order, states, outcomes, the seen-set and the revisits.
func testPersistence(t *testing.T, open Opener) {
	h := start(t, open)
	var b frontier.Batch
	b.Add("p/lo", -1, nil)
	b.Add("p/hi", 3, []byte("hi"))
	b.Add("d/1", 0, nil)
	b.Done("d/1", "fetched")
	b.Done("d/2", "skipped")
	b.Schedule("d/1", at0.Add(2*hour), 4, nil)
	b.Schedule("s/new", at0.Add(hour), 2, []byte("sitemap"))
	h.commit(&b)
	h.reopen()
	h.checkStats(frontier.Stats{Pending: 2, Done: 2, Scheduled: 2})
	h.checkStates(map[string]string{"p/lo": "pending", "p/hi": "pending", "d/1": "done:fetched", "d/2": "done:skipped"})
	h.checkSeen([]string{"p/lo", "d/2", "s/new"}, true, true, false)
	if got, want := h.scheduled(), []string{fmt.Sprint("s/new@", at0.Add(hour).Unix()), fmt.Sprint("d/1@", at0.Add(2*hour).Unix())}; !slices.Equal(got, want) {
		t.Errorf("Scheduled after reopen = %q, want %q", got, want)
	}
	if at, ok := h.q.NextDue(); !ok || !at.Equal(at0.Add(hour)) {
		t.Errorf("NextDue after reopen = %v, %v", at, ok)
	}
	if got := h.add("p/hi", 9, nil); got {
		t.Error("a URL pending before the reopen was added again")
	}
	due(h, at0.Add(3*hour), 2)
	var got []string
	for _, it := range h.drain() {
		got = append(got, fmt.Sprintf("%s@%d:%s", it.URL, it.Priority, it.Payload))
	}
	if want := []string{"d/1@4:", "p/hi@3:hi", "s/new@2:sitemap", "p/lo@-1:"}; !slices.Equal(got, want) {
		t.Errorf("after reopen and Due claimed %v, want %v", got, want)
	}
}

// testReplace: Payloads reads the payload of a pending, unleased URL (nil
// for any other), and Replace gives such a URL a new payload only while
// its payload is still the one read, at the same priority and position;
// a leased, done or unknown URL is left as it is.
func testReplace(t *testing.T, open Opener) {
	const a, b, c = "http://x/a", "http://x/b", "http://x/c"
	tests := []struct {
		name    string
		setup   func(h *harness) // after a, b and c are queued in order at priority 1, payloads "a", "b", "c"
		url     string
		old     string
		want    string // the payload Payloads reads of url before the Replace
		drained []string
	}{
		{"pending, payload still old", nil, b, "b", "b", []string{"a:a", "b:new", "c:c"}},
		{"pending, payload changed since it was read", nil, b, "stale", "b", []string{"a:a", "b:b", "c:c"}},
		{"leased", func(h *harness) { h.nextURL(a) }, a, "a", "", []string{"b:b", "c:c"}},
		{"done", func(h *harness) { h.nextURL(a); h.done(a, "ok") }, a, "a", "", []string{"b:b", "c:c"}},
		{"unknown", nil, "http://x/never", "", "", []string{"a:a", "b:b", "c:c"}},
		{"after a reopen", func(h *harness) { h.reopen() }, c, "c", "c", []string{"a:a", "b:b", "c:new"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := start(t, open)
			for _, u := range []string{a, b, c} {
				h.add(u, 1, []byte(u[len(u)-1:]))
			}
			if tc.setup != nil {
				tc.setup(h)
			}
			got, err := h.q.Payloads([]string{tc.url, c})
			if err != nil || len(got) != 2 || string(got[0]) != tc.want || (tc.want == "") != (got[0] == nil) {
				t.Fatalf("Payloads(%s, c) = %q, %v; want [%q c]", tc.url, got, err, tc.want)
			}
			var batch frontier.Batch
			batch.Replace(tc.url, []byte(tc.old), []byte("new"))
			if added := h.commit(&batch); len(added) != 0 {
				t.Errorf("Commit of a Replace = %v, want no added flags", added)
			}
			if seen := h.seen(tc.url)[0]; seen != (tc.url != "http://x/never") {
				t.Errorf("after the Replace, Seen(%s) = %v", tc.url, seen)
			}
			var drained []string
			for _, it := range h.drain() {
				if it.Priority != 1 {
					t.Errorf("%s at priority %d after a Replace, want 1", it.URL, it.Priority)
				}
				drained = append(drained, it.URL[len(it.URL)-1:]+":"+string(it.Payload))
			}
			if !slices.Equal(drained, tc.drained) {
				t.Errorf("claims = %v, want %v", drained, tc.drained)
			}
		})
	}
}
