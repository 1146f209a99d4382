package crawler

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler/frontier"
	"github.com/doppel-search/doppel/crawler/polite"
)

// TestLookEarlyLast: the dispatcher hands out a URL whose host's turn has
// not come yet (polite.Options.Ahead) only when no URL's host may be
// asked now — a fetch goroutine waiting in Send for one host's turn is
// one another host could have used — and then it does, the request
// still held back until the delay has passed.
func TestLookEarlyLast(t *testing.T) {
	const delay, ahead = 4 * time.Second, 2 * time.Second
	fr, err := frontier.Open(filepath.Join(t.TempDir(), "frontier.db"), frontier.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer fr.Close()
	for _, u := range []struct {
		url      string
		priority int
	}{{"http://a/1", 10}, {"http://b/1", 5}} {
		if _, err := fr.Add(u.url, u.priority, []byte("{}")); err != nil {
			t.Fatal(err)
		}
	}
	pacer := polite.New(polite.Options{Delay: delay, Ahead: ahead})
	ctx := context.Background()
	if !pacer.TryAcquire("a") {
		t.Fatal("a's first slot refused")
	}
	if err := pacer.Send(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	pacer.Release("a")
	time.Sleep(ahead + 50*time.Millisecond) // a's turn within Ahead, not come
	d := newDispatcher(ctx, fr, ownTurns{}, pacer, &fatal{}, func(int) bool { return true }, false)
	look := func() string {
		t.Helper()
		d.mu.Lock()
		defer d.mu.Unlock()
		item, _, _, err := d.look(time.Now())
		if err != nil {
			t.Fatalf("look: %v", err)
		}
		return item.URL
	}
	if got := look(); got != "http://b/1" {
		t.Fatalf("handed out %s first; want http://b/1, whose host may be asked now (a's turn has not come)", got)
	}
	if got := look(); got != "http://a/1" {
		t.Fatalf("handed out %s; want http://a/1 ahead of its host's turn, nothing else being ready", got)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := pacer.Send(cancelled, "a"); err == nil {
		t.Error("a's request sent before its host's delay had passed")
	}
}
