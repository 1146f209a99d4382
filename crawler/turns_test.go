package crawler

import (
	"testing"

	"github.com/doppel-search/doppel/crawler/frontier"
	"github.com/doppel-search/doppel/crawler/frontier/redisfrontier"
	"github.com/doppel-search/doppel/internal/testrig/redistest"
)

// TestElsewhereCountsPending: a worker facing an empty queue ends only
// when no other worker holds a URL and none is pending, read after: a
// claim given back (Release) between its look and its question about the
// others is pending again, not gone (TestWorkersSpacedFromTheSend failed
// one run in sixteen on a busy machine when that worker ended, with
// another's seed pending). A URL pending that the look saw and did not
// take (its page budget spent) does not keep it.
func TestElsewhereCountsPending(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Redis Cluster")
	}
	rdb := redistest.Start(t, 3, 0).Client()
	open := func(holder string) *redisfrontier.Frontier {
		q, err := redisfrontier.New(rdb, redisfrontier.Options{Prefix: t.Name(), Holder: holder})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { q.Close() })
		return q
	}
	mine, other := open("mine"), open("other")
	turns := newHostTurns(mine)
	const u = "http://h.test/p0"
	var b frontier.Batch
	b.Add(u, PriorityUnique, nil)
	if _, err := other.Commit(&b); err != nil {
		t.Fatal(err)
	}
	if !turns.elsewhere(true) {
		t.Error("a URL pending, none leased: elsewhere says the crawl is over")
	}
	if _, err := other.NextWhere(nil, 0); err != nil {
		t.Fatal(err)
	}
	if !turns.elsewhere(true) {
		t.Error("a URL leased to the other worker: elsewhere says the crawl is over")
	}
	if err := other.Release(u); err != nil {
		t.Fatal(err)
	}
	if !turns.elsewhere(true) {
		t.Error("a claim given back: elsewhere says the crawl is over")
	}
	if turns.elsewhere(false) {
		t.Error("a URL pending that the look saw and did not take (the page budget spent): elsewhere makes the worker wait for it")
	}
	if _, err := other.NextWhere(nil, 0); err != nil {
		t.Fatal(err)
	}
	b = frontier.Batch{}
	b.Done(u, "fetched")
	if _, err := other.Commit(&b); err != nil {
		t.Fatal(err)
	}
	if turns.elsewhere(true) {
		t.Error("every URL done: elsewhere says other workers are at work")
	}
}
