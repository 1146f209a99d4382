package ranking

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/doppel-search/doppel/indexer"
)

// TestQueriesInEveryLanguage: a query is analyzed as each language of the
// index analyzes its pages, so every page is found by its own words and
// their forms — "Haus" finds the German page's "Häuser", "die Häuser"
// finds it though "die" is a German stop word that is no English one —
// in plain and in bleve's syntax; and an index of one language analyzes
// queries with that language's analyzer alone.
func TestQueriesInEveryLanguage(t *testing.T) {
	ix := memIndex(t, indexer.Options{})
	ctx := context.Background()
	add := func(i int, d indexer.Doc) {
		d.URL = "http://intra/" + d.ID
		if err := ix.Add(ctx, d, indexer.Placement{ID: d.ID, Cluster: fmt.Sprint("c", i), Master: d.ID}); err != nil {
			t.Fatal(err)
		}
		if err := ix.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	add(0, indexer.Doc{ID: "en", Lang: "en", Title: "Holiday rentals", Body: "The houses by the lake are rented in summer."})
	s := New(ix, Options{})
	if got := s.langs.analyzers(); !slices.Equal(got, []string{indexer.AnalyzerName}) {
		t.Fatalf("an English index: analyzers %q", got)
	}
	for i, d := range []indexer.Doc{
		{ID: "de", Lang: "de", Title: "Ferienwohnungen", Body: "Die Häuser am See werden im Sommer vermietet."},
		{ID: "fr", Lang: "fr", Title: "Locations de vacances", Body: "Les maisons du lac sont louées en été."},
		{ID: "ja", Lang: "ja", Title: "別荘の貸し出し", Body: "湖畔の別荘は夏に貸し出されます。"},
	} {
		add(i+1, d)
	}
	// The languages read are kept for languagesTTL; once older, a query
	// gets them as read and starts a reading in the background.
	if got := s.langs.analyzers(); len(got) != 1 {
		t.Fatalf("within the TTL: analyzers %q, want the English one as read", got)
	}
	s.langs.read.Lock()
	s.langs.at = time.Now().Add(-languagesTTL)
	s.langs.read.Unlock()
	if got := s.langs.analyzers(); len(got) != 1 {
		t.Fatalf("past the TTL: analyzers %q, want those read before while reading again", got)
	}
	for deadline := time.Now().Add(time.Minute); len(s.langs.analyzers()) != 4; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("past the TTL: still %q after a minute", s.langs.analyzers())
		}
	}
	if got := slices.Sorted(slices.Values(s.langs.analyzers())); !slices.Equal(got, []string{indexer.AnalyzerName, "doppel-cjk", "doppel-de", "doppel-fr"}) {
		t.Fatalf("analyzers %q, want the default, cjk, de and fr", got)
	}
	for _, tc := range []struct {
		q    string
		syn  Syntax
		want []string
	}{
		{"Haus", Plain, []string{"de"}},
		{"die Häuser", Plain, []string{"de"}},
		{"häuser see", Plain, []string{"de"}},
		{`"Häuser am See"`, Plain, []string{"de"}},
		{"maison", Plain, []string{"fr"}},
		{"house", Plain, []string{"en"}},
		{"houses lake", Plain, []string{"en"}},
		{"別荘", Plain, []string{"ja"}},
		{"Haus", Bleve, []string{"de"}},
		{`"Häuser am See"`, Bleve, []string{"de"}},
		{"body:maison", Bleve, []string{"fr"}},
		{"house", Bleve, []string{"en"}},
	} {
		res, err := s.Search(ctx, Request{Query: tc.q, Syntax: tc.syn})
		if err != nil {
			t.Errorf("%q: %v", tc.q, err)
			continue
		}
		var got []string
		for _, h := range res.Hits {
			got = append(got, h.ID)
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q (%v): %v, want %v", tc.q, tc.syn, got, tc.want)
		}
	}
}

// searchOnly hides the index's Languages: the languages are read by a
// search, as from any other indexer.Searcher.
type searchOnly struct{ indexer.Searcher }

// TestLanguagesListedOrSearched: the languages listed from the term
// dictionary are those a facet search over every document finds.
func TestLanguagesListedOrSearched(t *testing.T) {
	ix := memIndex(t, indexer.Options{})
	ctx := context.Background()
	for i, l := range []string{"en", "de", "fr", "de", "", "ja", "zh-hant"} {
		id := fmt.Sprint("d", i)
		if err := ix.Add(ctx, indexer.Doc{ID: id, URL: "http://intra/" + id, Lang: l, Title: "t", Body: "b"},
			indexer.Placement{ID: id, Cluster: "c" + id, Master: id}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	listed, err := (&languages{ix: ix}).readIndex()
	if err != nil {
		t.Fatal(err)
	}
	searched, err := (&languages{ix: searchOnly{ix}}).readIndex()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(listed, searched) || len(listed) != 4 {
		t.Errorf("listed %q, searched %q; want the same four", listed, searched)
	}
}

// TestStopWordsOfALanguage: a title whose language's analyzer makes no
// term the English one does not ("Hvad er Debian?": Danish drops "hvad"
// and "er" as stop words and keeps "debian" as English does) finds its
// page: the words the page's language drops are not required of it, and
// an English page holding them all still comes first for its own title.
func TestStopWordsOfALanguage(t *testing.T) {
	ix := memIndex(t, indexer.Options{})
	ctx := context.Background()
	for i, d := range []indexer.Doc{
		{ID: "da", Lang: "da", Title: "1.1. Hvad er Debian?", Body: "Debian er en organisation af frivillige."},
		{ID: "de", Lang: "de", Title: "1.1. Was ist Debian?", Body: "Debian ist eine Organisation von Freiwilligen."},
		{ID: "sv", Lang: "sv", Title: "Vad är Debian?", Body: "Debian är en organisation av frivilliga."},
		{ID: "en", Lang: "en", Title: "1.1. What is Debian?", Body: "Debian is an all-volunteer organization."},
		{ID: "en2", Lang: "en", Title: "Debian releases", Body: "Debian has stable and testing releases, for what it is worth."},
	} {
		d.URL = "http://intra/" + d.ID
		if err := ix.Add(ctx, d, indexer.Placement{ID: d.ID, Cluster: fmt.Sprint("c", i), Master: d.ID}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	s := New(ix, Options{})
	for _, tc := range []struct{ q, want string }{
		{"1.1. Hvad er Debian?", "da"},
		{"1.1. Was ist Debian?", "de"},
		{"Vad är Debian?", "sv"},
		{"1.1. What is Debian?", "en"},
	} {
		res, err := s.Search(ctx, Request{Query: tc.q})
		if err != nil {
			t.Fatalf("%q: %v", tc.q, err)
		}
		if len(res.Hits) == 0 || res.Hits[0].ID != tc.want {
			var got []string
			for _, h := range res.Hits {
				got = append(got, h.ID)
			}
			t.Errorf("%q: %v, want %s first", tc.q, got, tc.want)
		}
	}
}
