package crawler

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler/pagelog"
	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/page"
)

// fakeLog is a page log's entries in memory: Next returns them in order,
// then waits for ctx.
type fakeLog struct {
	entries []pagelog.Entry
	next    int
}

func (l *fakeLog) Next(ctx context.Context) (pagelog.Entry, error) {
	if l.next == len(l.entries) {
		<-ctx.Done()
		return pagelog.Entry{}, ctx.Err()
	}
	l.next++
	return l.entries[l.next-1], nil
}

func (l *fakeLog) Position() uint32 {
	if l.next == 0 {
		return 0
	}
	return l.entries[l.next-1].N + 1
}

// from returns the entries from position pos on.
func (l *fakeLog) from(pos uint32) *fakeLog {
	out := &fakeLog{}
	for _, e := range l.entries {
		if e.N >= pos {
			out.entries = append(out.entries, e)
		}
	}
	return out
}

func pageEntry(t *testing.T, n uint32, url, text string) pagelog.Entry {
	t.Helper()
	rec := pages.Record{Page: page.Page{URL: url, Title: "Title of " + url, Blocks: []string{text}, Text: text},
		Status: pages.Fetched, FetchedAt: time.Unix(1, 0).UTC()}
	data, err := json.Marshal(logEntry{Page: &rec})
	if err != nil {
		t.Fatal(err)
	}
	return pagelog.Entry{N: n, Payload: data}
}

func decisionEntry(t *testing.T, n uint32, recs ...pages.Record) pagelog.Entry {
	t.Helper()
	data, err := json.Marshal(logEntry{Decisions: recs})
	if err != nil {
		t.Fatal(err)
	}
	return pagelog.Entry{N: n, Payload: data, Note: true}
}

func anchorsEntry(t *testing.T, n uint32, anchors map[string][]string) pagelog.Entry {
	t.Helper()
	data, err := json.Marshal(logEntry{Anchors: anchors})
	if err != nil {
		t.Fatal(err)
	}
	return pagelog.Entry{N: n, Payload: data, Note: true}
}

// TestFollower: a Follower records and indexes a shared crawl's log as
// its own detector places each page (a copy hidden under its master, a
// master taken over), indexes a page with the anchor texts found before
// it, records the decisions but never over a fetched page, keeps
// its position, resumes from it, re-applies what a crash lost without a
// change, and refuses a damaged position.
func TestFollower(t *testing.T) {
	const a, b, c, d = "http://h/a", "http://h/a/print", "http://h/private/c", "http://h/d"
	log := &fakeLog{entries: []pagelog.Entry{
		pageEntry(t, 0, b, "the annual leave policy of the company in full"),
		pageEntry(t, 1, a, "the annual leave policy of the company in full"), // takes the cluster over
		decisionEntry(t, 3, pages.Record{Page: page.Page{URL: c}, Status: pages.Skipped, Reason: "disallowed by robots.txt"},
			pages.Record{Page: page.Page{URL: d}, Status: pages.Failed, Reason: "HTTP 503", Transient: true}),
		anchorsEntry(t, 4, map[string][]string{d: {"Expenses form"}}),
		pageEntry(t, 5, d, "the travel expenses form and how to fill it in"),
		decisionEntry(t, 6, pages.Record{Page: page.Page{URL: d}, Status: pages.Failed, Reason: "HTTP 500"}), // a stale worker's
	}}
	dir := filepath.Join(t.TempDir(), "crawl")
	opts := Options{Seeds: []string{"http://h/"}, NoSync: true, RefreshInterval: time.Hour}
	follow := func(es *fakeLog) *Follower {
		t.Helper()
		f, err := OpenFollower(dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- f.Follow(ctx, es, nil) }()
		for f.Stats().Position < 7 {
			time.Sleep(time.Millisecond)
		}
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("Follow: %v", err)
		}
		return f
	}
	check := func(f *Follower) {
		t.Helper()
		if f.Position() != 7 {
			t.Errorf("position %d, want 7", f.Position())
		}
		want := map[string]string{a: "fetched " + a + " true", b: "fetched " + a + " false", c: "skipped  false", d: "fetched " + d + " true"}
		got := map[string]string{}
		err := f.View().Entries(func(e Entry) error {
			got[e.URL] = strings.Join([]string{e.Status, e.Master, map[bool]string{true: "true", false: "false"}[e.Indexed]}, " ")
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for u, w := range want {
			if got[u] != w {
				t.Errorf("%s: %q, want %q", u, got[u], w)
			}
		}
		if len(got) != len(want) {
			t.Errorf("%d URLs recorded, want %d: %v", len(got), len(want), got)
		}
	}
	f := follow(log)
	if st := f.Stats(); st.Pages != 3 || st.Decisions != 2 {
		t.Errorf("stats %+v: want 3 pages and 2 decisions (the stale one left out)", st)
	}
	check(f)
	if rec, _, err := f.c.pages.Get(d); err != nil || !slices.Contains(rec.Anchors, "Expenses form") {
		t.Errorf("%s recorded with anchors %q (%v), want the anchor text another worker found", d, rec.Anchors, err)
	}
	f.Close()

	// Reopened without seeds: the saved options and the position.
	f, err := OpenFollower(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Position() != 7 {
		t.Errorf("reopened at %d, want 7", f.Position())
	}
	f.Close()

	// A crash before the position was kept: everything applied again.
	if err := os.Remove(filepath.Join(dir, positionFile)); err != nil {
		t.Fatal(err)
	}
	f = follow(log.from(0))
	check(f)
	f.Close()

	if err := os.WriteFile(filepath.Join(dir, positionFile), []byte("garbage!"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenFollower(dir, Options{}); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("a damaged position: %v", err)
	}
}
