package crawler

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler/frontier"
	"github.com/doppel-search/doppel/crawler/pages"
)

// TestListingRevisitFirst: of revisits that fell due together, a
// listing's is handed out before the pages' — even a page due earlier —
// and the pages' in the order they fell due; all after new pages.
func TestListingRevisitFirst(t *testing.T) {
	f, err := frontier.Open(filepath.Join(t.TempDir(), "frontier.db"), frontier.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	now := time.Now()
	var b frontier.Batch
	for _, u := range []string{"http://h/p/1", "http://h/p/2", "http://h/list?k=3"} {
		b.Add(u, PriorityUnique, nil)
	}
	if _, err := f.Commit(&b); err != nil {
		t.Fatal(err)
	}
	for range 3 { // fetched
		if _, err := f.Next(); err != nil {
			t.Fatal(err)
		}
	}
	b = frontier.Batch{}
	markDone(&b, doneMark{url: "http://h/p/1", outcome: "fetched", revisit: now.Add(-3 * time.Second)})
	markDone(&b, doneMark{url: "http://h/p/2", outcome: "fetched", revisit: now.Add(-2 * time.Second)})
	markDone(&b, doneMark{url: "http://h/list?k=3", outcome: "fetched", revisit: now.Add(-time.Second), listing: true})
	b.Add("http://h/p/new", PriorityUnique, nil)
	if _, err := f.Commit(&b); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Due(now); err != nil {
		t.Fatal(err)
	}
	var got []string
	for range 4 {
		it, err := f.Next()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, it.URL)
	}
	want := []string{"http://h/p/new", "http://h/list?k=3", "http://h/p/1", "http://h/p/2"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("handed out %q, want %q", got, want)
		}
	}
}

// TestFollowerListingRevisitFirst: a shared crawl's follower schedules
// the revisits of a page that may be a listing (links kept from its first
// fetch) and of a listing (its links changed on a revisit) in the
// workers' frontier at PriorityListingRevisit, as a one-machine crawl's
// committer does, and an ordinary page's at PriorityRevisit.
func TestFollowerListingRevisitFirst(t *testing.T) {
	const page, list = "http://h/p/1", "http://h/list"
	fr, err := frontier.Open(filepath.Join(t.TempDir(), "frontier.db"), frontier.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	links := make([]string, pages.ListingLinks+10)
	for i := range links {
		links[i] = fmt.Sprintf("http://h/p/%03d", i+100)
	}
	slices.Sort(links)
	ordinary := pageEntry(0, page, "the annual leave policy of the company in full")
	listing := pageEntry(1, list, "every page of the site, a hundred a listing")
	listing.Handed.Page.Links, listing.Handed.Page.LinksOnly, listing.Handed.Page.LinkHash = links, true, 1
	revisits := LogEntry{N: 2, Note: true, Handed: Handed{Revisits: []*Revisited{
		{URL: page, Status: pages.Fetched, NotModified: true, FetchedAt: time.Unix(2, 0).UTC()},
		{URL: list, Status: pages.Fetched, LinkHash: 2, MainLinks: links[1:], FetchedAt: time.Unix(2, 0).UTC()},
	}}}
	f, err := OpenFollower(filepath.Join(t.TempDir(), "crawl"),
		Options{Seeds: []string{"http://h/"}, NoSync: true, RefreshInterval: time.Hour, Frontier: fr})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	follow := func(es *fakeLog, end uint32) {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- f.Follow(ctx, es, nil) }()
		for f.Stats().Position < end {
			time.Sleep(time.Millisecond)
		}
		cancel() // Follow flushes: the revisits are scheduled
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("Follow: %v", err)
		}
	}
	// claim hands out every revisit due (all of them: the clock is
	// far ahead) and marks each done, as a worker does; it returns
	// their priorities by URL.
	claim := func() map[string]int {
		t.Helper()
		if _, err := fr.Due(time.Now().Add(1000 * time.Hour)); err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		var b frontier.Batch
		for range 2 {
			it, err := fr.Next()
			if err != nil {
				t.Fatal(err)
			}
			got[it.URL] = it.Priority
			b.Done(it.URL, "fetched")
		}
		if _, err := fr.Commit(&b); err != nil {
			t.Fatal(err)
		}
		return got
	}
	want := map[string]int{page: PriorityRevisit, list: PriorityListingRevisit}
	follow(&fakeLog{entries: []LogEntry{ordinary, listing}}, 2)
	if got := claim(); !maps.Equal(got, want) {
		t.Errorf("first revisits scheduled at priorities %v, want %v (a page that may be a listing first)", got, want)
	}
	follow(&fakeLog{entries: []LogEntry{revisits}, start: 2}, 3)
	if rec, _, err := f.c.pages.Get(list); err != nil || !rec.Listing() {
		t.Fatalf("%s after its links changed: listing %v (%v), want a listing", list, rec.Listing(), err)
	}
	if got := claim(); !maps.Equal(got, want) {
		t.Errorf("revisits after a revisit scheduled at priorities %v, want %v (a listing first)", got, want)
	}
}

// endlessRevisits is a page log that never pauses: every Next returns
// at once a revisit of url that found it unchanged, until ctx ends.
type endlessRevisits struct {
	url string
	n   uint32
}

func (l *endlessRevisits) Next(ctx context.Context) (LogEntry, error) {
	if err := ctx.Err(); err != nil {
		return LogEntry{}, err
	}
	l.n++
	v := &Revisited{URL: l.url, Status: pages.Fetched, NotModified: true, FetchedAt: time.Unix(int64(l.n), 0).UTC()}
	return LogEntry{N: l.n, Note: true, Handed: Handed{Revisits: []*Revisited{v}}}, nil
}

func (l *endlessRevisits) Position() uint32 { return l.n + 1 }

// TestFollowerSchedulesRevisitsWhileBusy: while the workers hand on
// only revisits, without a pause in the log, the follower still
// schedules their next visits in the workers' frontier within a
// RefreshInterval or so (it once waited for the log to pause).
func TestFollowerSchedulesRevisitsWhileBusy(t *testing.T) {
	const page = "http://h/p/1"
	fr, err := frontier.Open(filepath.Join(t.TempDir(), "frontier.db"), frontier.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	f, err := OpenFollower(filepath.Join(t.TempDir(), "crawl"),
		Options{Seeds: []string{"http://h/"}, NoSync: true, RefreshInterval: 20 * time.Millisecond, Frontier: fr})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- f.Follow(ctx, &fakeLog{entries: []LogEntry{pageEntry(0, page, "the annual leave policy")}}, nil)
	}()
	for f.Stats().Position < 1 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	// The worker claims the revisit: nothing is scheduled any more.
	if _, err := fr.Due(time.Now().Add(1000 * time.Hour)); err != nil {
		t.Fatal(err)
	}
	it, err := fr.Next()
	if err != nil || it.URL != page {
		t.Fatalf("claimed %q (%v), want %s", it.URL, err, page)
	}
	var b frontier.Batch
	b.Done(page, "fetched")
	if _, err := fr.Commit(&b); err != nil {
		t.Fatal(err)
	}
	if at, ok := fr.NextDue(); ok {
		t.Fatalf("a revisit scheduled at %v after the claim", at)
	}

	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	go func() { done <- f.Follow(ctx, &endlessRevisits{url: page}, nil) }()
	deadline := time.Now().Add(15 * time.Second) // generous: 20 ms is enough on an idle machine
	for {
		if _, ok := fr.NextDue(); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no revisit scheduled in 15 s of revisits handed on without a pause (%d applied)", f.Stats().Position)
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
}
