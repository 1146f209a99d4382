package crawler

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler/frontier"
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
