package ranking

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/indexer"
)

// clustersOf returns the clusters of hits.
func clustersOf(hs []Hit) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.Cluster)
	}
	return out
}

// TestCursorStable: the page after a cursor starts after the cursor's
// last cluster while the index changes — pages added that rank first and
// a page of the first page removed (which shift a page number's window)
// move it neither back nor forward; if that cluster itself is gone, it
// starts after the one before it, and if the result has none of the
// cursor's clusters, at its rank. A token that is no cursor, or one of
// another order, is refused.
func TestCursorStable(t *testing.T) {
	ix := memIndex(t, indexer.Options{})
	ctx := context.Background()
	add := func(id, body string) {
		t.Helper()
		if err := ix.Add(ctx, indexer.Doc{ID: id, URL: "http://intra/" + id, Host: "intra", Title: "page " + id, Body: body},
			indexer.Placement{ID: id, Cluster: "c" + id, Master: id}); err != nil {
			t.Fatal(err)
		}
		if err := ix.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 40 {
		// Fewer filler words, a higher score: a fixed order.
		add(fmt.Sprintf("p%02d", i), "lantern "+strings.Repeat("filler ", i))
	}
	s := New(ix, Options{})
	search := func(r Request) *Result {
		t.Helper()
		r.Query, r.Size = "lantern", max(r.Size, 10)
		res, err := s.Search(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	all := clustersOf(search(Request{Size: 100}).Hits)
	first := search(Request{})
	if !first.More || first.Cursor == "" || !slices.Equal(clustersOf(first.Hits), all[:10]) {
		t.Fatalf("page 1: %v more %v cursor %q; want %v and a cursor", clustersOf(first.Hits), first.More, first.Cursor, all[:10])
	}
	// Five pages that rank first, and the third of page 1 removed.
	for i := range 5 {
		add(fmt.Sprintf("new%d", i), "lantern lantern lantern")
	}
	if err := ix.Remove(ctx, indexer.Change{ID: "p02", Cluster: "cp02"}); err != nil {
		t.Fatal(err)
	}
	if err := ix.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	next := search(Request{After: first.Cursor})
	if got := clustersOf(next.Hits); next.Page != 2 || !slices.Equal(got, all[10:20]) {
		t.Errorf("after the cursor: page %d %v; want page 2 %v", next.Page, got, all[10:20])
	}
	if byNumber := clustersOf(search(Request{Page: 2}).Hits); slices.Equal(byNumber, all[10:20]) {
		t.Errorf("page 2 by number is %v too: the test changes nothing a window sees", byNumber)
	}
	// The cursor's cluster gone: the next page starts after the one
	// before it.
	if err := ix.Remove(ctx, indexer.Change{ID: "p19", Cluster: "cp19"}); err != nil {
		t.Fatal(err)
	}
	if err := ix.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	third := search(Request{After: next.Cursor})
	if got := clustersOf(third.Hits); !slices.Equal(got, all[20:30]) {
		t.Errorf("after a cursor whose cluster is gone: %v; want %v", got, all[20:30])
	}
	// A cursor naming no cluster of the result: at its rank.
	c, err := decodeCursor(third.Cursor)
	if err != nil {
		t.Fatal(err)
	}
	c.Cluster, c.Before = "gone", nil
	now := clustersOf(search(Request{Size: 100}).Hits)
	if got := clustersOf(search(Request{After: c.encode()}).Hits); !slices.Equal(got, now[c.Rank:c.Rank+10]) {
		t.Errorf("after a cursor of no cluster at rank %d: %v; want %v", c.Rank, got, now[c.Rank:c.Rank+10])
	}
	for _, r := range []Request{{After: "nonsense"}, {After: first.Cursor, ByDate: true}, {After: first.Cursor, Omitted: true}} {
		if _, err := s.Search(ctx, Request{Query: "lantern", After: r.After, ByDate: r.ByDate, Omitted: r.Omitted}); !errors.Is(err, ErrCursor) {
			t.Errorf("after %q (by date %v, omitted %v): %v; want ErrCursor", r.After, r.ByDate, r.Omitted, err)
		}
	}
}
