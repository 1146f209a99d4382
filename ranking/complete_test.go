package ranking

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/doppel-search/doppel/indexer"
)

// TestCompleteFollowsTheIndex: completions from a user's vocabulary
// follow the index as it changes. A word whose only page becomes hidden
// from the guest is never offered again, even before the vocabulary is
// built anew (the earlier snapshot's is checked word by word); a word
// of a new page is offered once it is; counts are the pages the user may
// see; and each set of groups has its own vocabulary.
func TestCompleteFollowsTheIndex(t *testing.T) {
	ix := scorchIndex(t)
	ctx := context.Background()
	add := func(id, title string, groups ...string) {
		t.Helper()
		d := indexer.Doc{ID: id, URL: "http://intra/" + id, Title: title, Body: title, Groups: groups}
		if err := ix.Add(ctx, d, indexer.Placement{ID: id, Cluster: id, Master: id}); err != nil {
			t.Fatal(err)
		}
		if err := ix.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	add("z1", "Zebra crossing")
	add("z2", "Zebra stripes")
	add("z3", "Zenith of the zebra")
	add("z4", "Zeppelin hangar", "hr")
	s := New(ix, Options{})
	words := func(typed string, groups ...string) map[string]int {
		t.Helper()
		cs, err := s.Complete(ctx, typed, groups)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]int{}
		for _, c := range cs {
			if c.Kind == "word" {
				out[c.Text] = c.Count
			}
		}
		return out
	}
	if got := words("ze"); got["zebra"] != 3 || got["zenith"] != 1 || len(got) != 2 {
		t.Errorf("guest ze = %v, want zebra 3, zenith 1", got)
	}
	if got := words("ze", "hr"); got["zeppelin"] != 1 || got["zebra"] != 3 {
		t.Errorf("hr ze = %v, want zeppelin among them", got)
	}
	add("z3", "Zenith of the zebra", "hr") // now hidden from the guest
	for range 3 {                          // the old vocabulary, then the new one
		if got := words("ze"); got["zenith"] != 0 || got["zebra"] != 2 {
			t.Fatalf("guest ze after zenith's page was hidden = %v, want zebra 2 and no zenith", got)
		}
		if got := words("crossing ze"); len(got) != 1 || got["crossing zebra"] != 1 {
			t.Errorf("guest 'crossing ze' = %v", got)
		}
	}
	add("z5", "Zealous reviews")
	deadline := time.Now().Add(time.Minute) // a bound against a hang, not a speed check
	for words("zea")["zealous"] != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("zealous never offered: %v", words("zea"))
		}
		time.Sleep(10 * time.Millisecond)
	}
	cs, err := s.Complete(ctx, "zea", nil)
	if err != nil || !slices.Contains(cs, Completion{Text: "Zealous reviews", Kind: "title"}) {
		t.Errorf("zea = %v, %v; want the title of its page", cs, err)
	}
}

// TestCompleteHiddenWords: a guest's completions over an index where
// hidden pages hold hundreds of words of the prefixes typed, more than
// contextWords and with more pages than any visible word, are those of
// the index without them: the same words, counts and titles in the same
// order; a user of the group sees the hidden words.
func TestCompleteHiddenWords(t *testing.T) {
	build := func(hidden bool) *Searcher {
		ix := scorchIndex(t)
		ctx := context.Background()
		add := func(id, title string, groups ...string) {
			d := indexer.Doc{ID: id, URL: "http://intra/" + id, Title: title, Body: title, Groups: groups}
			if err := ix.Add(ctx, d, indexer.Placement{ID: id, Cluster: id, Master: id}); err != nil {
				t.Fatal(err)
			}
		}
		for i, title := range []string{"Sabbatical leave", "Sabbatical leave for staff", "Grievance form", "Service desk hours",
			"Salary bands explained", "Grief counselling", "Service catalogue", "Leave policy"} {
			add(fmt.Sprintf("p%d", i), title)
		}
		if hidden {
			for i := range 300 {
				add(fmt.Sprintf("h%d", i), fmt.Sprintf("Sab%03d griev%03d sabbatical service leave case", i, i), "hr")
			}
		}
		if err := ix.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		return New(ix, Options{})
	}
	with, without := build(true), build(false)
	for _, typed := range []string{"sa", "sab", "gr", "griev", "se", "le", "leave se", "sabbatical le", "service de", "case"} {
		a, err := with.Complete(context.Background(), typed, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := without.Complete(context.Background(), typed, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a, b) {
			t.Errorf("LEAK %q:\n  with the hidden pages:    %v\n  without the hidden pages: %v", typed, a, b)
		}
	}
	hr, err := with.Complete(context.Background(), "sab0", []string{"hr"})
	if err != nil || len(hr) == 0 || hr[0].Kind != "word" || !strings.HasPrefix(hr[0].Text, "sab0") {
		t.Errorf("hr sab0 = %v, %v; want the hidden words", hr, err)
	}
}
