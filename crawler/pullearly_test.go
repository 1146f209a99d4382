package crawler

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler/frontier"
	"github.com/doppel-search/doppel/crawler/polite"
)

// TestPullEarly: a kept-alive crawl with nothing queued fetches the next
// revisit before its time — once it is due within the horizon, if the
// requests of the last earlyWindow leave room in the budget — and
// otherwise waits for it.
func TestPullEarly(t *testing.T) {
	const dueIn = 1500 * time.Millisecond
	for _, tc := range []struct {
		name    string
		horizon time.Duration
		budget  float64
		started int  // requests started just before, in the window
		early   bool // handed out before its time (else: not asserted, unless no pull may happen)
		never   bool // handed out at its time, not before
	}{
		{name: "due within the horizon", horizon: 5 * time.Second, budget: 5, early: true},
		{name: "budget with room", horizon: 5 * time.Second, budget: 1, started: 9, early: true},
		{name: "due beyond the horizon", horizon: time.Second, budget: 5}, // pulled once within it
		{name: "budget spent", horizon: 5 * time.Second, budget: 1, started: 10, never: true},
		{name: "no early pulls", budget: 5, never: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			front, err := frontier.Open(filepath.Join(t.TempDir(), "frontier.db"), frontier.Options{NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			defer front.Close()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			d := newDispatcher(ctx, front, ownTurns{}, polite.New(polite.Options{}), &fatal{}, func(int) bool { return true }, true)
			d.early = earlyPull{horizon: tc.horizon, budget: tc.budget}
			now := time.Now()
			for range tc.started {
				d.early.started(now)
			}
			due := now.Add(dueIn)
			var b frontier.Batch
			b.Schedule("http://h.test/a", due, PriorityRevisit, revisitPayload(1))
			if _, err := front.Commit(&b); err != nil {
				t.Fatal(err)
			}
			item, ok := d.next()
			at := time.Now()
			if !ok || item.URL != "http://h.test/a" {
				t.Fatalf("next = %v, %v; want the revisit", item, ok)
			}
			when := due.Format(time.StampMilli) + ", handed out at " + at.Format(time.StampMilli)
			switch {
			case at.Before(due.Add(-tc.horizon)):
				t.Errorf("revisit due at %s: more than the horizon %v early", when, tc.horizon)
			case tc.early && !at.Before(due):
				t.Errorf("revisit due at %s: not early", when)
			case tc.never && at.Before(due):
				t.Errorf("revisit due at %s: early", when)
			}
		})
	}
}
