package findcheck

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/dedup/eval"
)

// answers is a Searcher that answers each query from a table: a missing
// query fails.
type answers map[string][]string

func (a answers) Search(_ context.Context, q, _ string) ([]string, error) {
	hits, ok := a[q]
	if !ok {
		return nil, errors.New("no answer")
	}
	return hits, nil
}

// TestCheck scores a hand-made site against the script's definitions.
func TestCheck(t *testing.T) {
	var words []string
	for i := range 200 {
		words = append(words, fmt.Sprintf("w%d", i))
	}
	long := strings.Join(words, " ") // 196 distinct 5-shingles
	docs := []Doc{
		{"/a", "Alpha", long + "\nend"},
		{"/a2", "Alpha", long + "\nend"}, // a copy with the same title
		{"/b", "Beta", long + "\nend\na line of its own that the master lacks entirely"},        // a copy with its own title
		{"/c", "Gamma", "something else entirely, not a copy of anything on this site at all"},  // unique
		{"/d", "Gamma", "a different page with the same title as another, so it is not named"},  // not named
		{"/e", "Delta", "another unique page with a title of its own and nothing in common ok"}, // asked, fails
	}
	ed := make([]eval.Doc, len(docs))
	for i, d := range docs {
		ed[i] = eval.Doc{ID: d.ID, Text: d.Text}
	}
	truth, err := eval.ComputeTruth(ed, 0.8, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := answers{
		"Alpha": {"http://h/a2", "http://h/c"}, // its same-titled copy: self, not exact
		"Beta":  {"http://h/a", "http://h/a2"}, // another name: known_item only; a and a2 redundant
		"Delta": {},                            // nothing
		"Gamma": nil,                           // not asked: c and d share it
		"a line of its own that the master lacks entirely": {"/b"},
	}
	export := []Entry{
		{URL: "http://h/a", Status: "fetched", Indexed: true},
		{URL: "http://h/a2", Status: "fetched", Master: "http://h/a"},
		{URL: "http://h/b", Status: "fetched", Master: "http://h/a"},
		{URL: "http://h/c", Status: "fetched", Indexed: true},
	}
	r, err := Check(context.Background(), s, docs, truth, Options{Export: export})
	if err != nil {
		t.Fatal(err)
	}
	// Named: a, a2, b, e (c and d share a title, and are no copies).
	if r.Queries != 4 || r.Errors != 0 || r.Redundant != 1 {
		t.Errorf("queries=%d errors=%d redundant=%d, want 4, 0, 1", r.Queries, r.Errors, r.Redundant)
	}
	// a: found, self (a2 has its title), not exact; a2: exact; b: known
	// only; e: nothing.
	if r.KnownItem != 0.75 || r.KnownItemSelf != 0.5 || r.Exact != 0.25 {
		t.Errorf("known_item=%.3f known_item_self=%.3f exact=%.3f, want 0.75 0.5 0.25", r.KnownItem, r.KnownItemSelf, r.Exact)
	}
	// Hidden: a2 (found by its title through a) and b (not).
	if r.Hidden != 2 || r.HiddenSelf != 0.5 || r.HiddenDiffOf != 1 || r.HiddenDiff != 1 {
		t.Errorf("hidden=%d hidden_self=%.3f hidden_diff=%.3f (of %d), want 2 0.5 1 (of 1)", r.Hidden, r.HiddenSelf, r.HiddenDiff, r.HiddenDiffOf)
	}
	want := "queries=4 errors=0 known_item=0.750 known_item_self=0.500 exact=0.250 redundant=1"
	if !strings.HasPrefix(r.String(), want) || !strings.HasSuffix(r.String(), "hidden=2 hidden_self=0.500 hidden_diff=1.000 (of 1)") {
		t.Errorf("String() = %q", r)
	}
}

func TestPath(t *testing.T) {
	for in, want := range map[string]string{"http://h:1/a/b.html": "/a/b.html", "http://h/": "/", "http://h": "/", "/x": "/x"} {
		if got := Path(in); got != want {
			t.Errorf("Path(%q) = %q, want %q", in, got, want)
		}
	}
}
