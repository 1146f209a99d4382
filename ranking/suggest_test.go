package ranking

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"

	"github.com/doppel-search/doppel/indexer"
)

// TestSuggest: a misspelled word gets the nearest word of the titles and
// headings the user may see (the most frequent among equals), a word
// they hold gets none, and a word only a page the user may not see holds
// is never suggested; completions too come from visible pages only.
func TestSuggest(t *testing.T) {
	for _, store := range []string{"memory", "scorch"} {
		t.Run(store, func(t *testing.T) { testSuggest(t, store) })
	}
}

// testSuggest is TestSuggest on an index in memory (completion expands
// the prefix over the index's words) or a scorch index (completion ranks
// the words of the user's vocabulary).
func testSuggest(t *testing.T, store string) {
	ix := memIndex(t, indexer.Options{})
	if store == "scorch" {
		ix = scorchIndex(t)
	}
	ctx := context.Background()
	for _, d := range []indexer.Doc{
		{ID: "vpn", Title: "Connecting to the VPN", Headings: []string{"Holiday travel"}},
		{ID: "cal", Title: "Holiday calendar 2026"},
		{ID: "cal2", Title: "Holiday calendar 2027"},
		{ID: "colander", Title: "Kitchen colander"},
		{ID: "chess", Title: "Chess tournament"},
		{ID: "secret", Title: "Zeppelin project plan", Groups: []string{"hr"}},
	} {
		d.URL = "http://intra/" + d.ID
		d.Body = d.Title
		if err := ix.Add(ctx, d, indexer.Placement{ID: d.ID, Cluster: d.ID + "c", Master: d.ID}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	s := New(ix, Options{})
	for _, tc := range []struct {
		q      string
		groups []string
		want   string
	}{
		{"vpnn", nil, "vpn"},
		{"vpm", nil, "vpn"}, // m and n are keyboard neighbours
		{"vp", nil, ""},     // under three letters: left as typed
		{"site:vpnn vpnn", nil, "site:vpnn vpn"},
		{`"vpnn" vpnn`, nil, `"vpnn" vpn`},
		{"conencting", nil, "connecting"}, // a transposition is one edit
		{"connectin to the vpn", nil, "connecting to the vpn"},
		{"Holliday calender", nil, "holiday calendar"}, // calendar (2 pages) before colander
		{"holiday calendar", nil, ""},
		{"zepelin plan", nil, ""}, // only a page of hr holds zeppelin
		{"zepelin plan", []string{"hr"}, "zeppelin plan"},
		{"kitchen colandr", nil, "kitchen colander"},
	} {
		got, err := s.Suggest(ctx, tc.q, tc.groups)
		if err != nil || got != tc.want {
			t.Errorf("Suggest(%q, %v) = %q, %v; want %q", tc.q, tc.groups, got, err, tc.want)
		}
	}
	texts := func(q string, groups []string) []string {
		cs, err := s.Complete(ctx, q, groups)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range cs {
			out = append(out, c.Kind+":"+c.Text)
		}
		return out
	}
	if got := texts("hol", nil); !slices.Contains(got, "word:holiday") || !slices.Contains(got, "title:Holiday calendar 2026") {
		t.Errorf("Complete(hol) = %v", got)
	}
	// A first word's titles are read for the pages shown only: each page
	// holding it, its title once.
	titles := 0
	for _, c := range texts("hol", nil) {
		if strings.HasPrefix(c, "title:") {
			titles++
		}
	}
	if got := texts("hol", nil); titles != 3 || !slices.Contains(got, "title:Holiday calendar 2027") || !slices.Contains(got, "title:Connecting to the VPN") {
		t.Errorf("Complete(hol) = %v, want the titles of the three pages holding holiday", got)
	}
	if got := texts("holiday cal", nil); len(got) == 0 || got[0] != "word:holiday calendar" {
		t.Errorf("Complete(holiday cal) = %v, want holiday calendar first", got)
	}
	if got := texts("zep", nil); len(got) != 0 {
		t.Errorf("Complete(zep) for anyone = %v: a page of hr leaks", got)
	}
	if got := texts("zep", []string{"hr"}); !slices.Contains(got, "word:zeppelin") {
		t.Errorf("Complete(zep) for hr = %v", got)
	}
	if got := texts("connecting to", nil); len(got) == 0 || got[0] != "word:connecting to" || slices.Contains(got, "word:connecting tournament") {
		t.Errorf("Complete(connecting to) = %v, want connecting to first and no tournament", got)
	}
	if got := texts("chess to", nil); !slices.Contains(got, "word:chess tournament") {
		t.Errorf("Complete(chess to) = %v, want chess tournament", got)
	}
	if got := texts("kitchen ca", nil); slices.Contains(got, "word:kitchen calendar") {
		t.Errorf("Complete(kitchen ca) = %v: calendar is in no title with kitchen", got)
	}
	if got := texts("h", nil); len(got) != 0 {
		t.Errorf("Complete(h) = %v, want nothing for one letter", got)
	}
}

// TestMisspelled: a word no page the user may see holds as typed makes a
// query misspelled, whatever else it matches; operators, digits, short
// words and stop words never do; a word only hidden pages hold is a word
// no page holds.
func TestMisspelled(t *testing.T) {
	ix := scorchIndex(t)
	ctx := context.Background()
	for _, d := range []indexer.Doc{
		{ID: "p", URL: "http://i/p", Title: "Printers", Body: "The printer on floor two prints in colour."},
		{ID: "v", URL: "http://i/v", Title: "VPN", Body: "Using the VPN from home."},
		{ID: "g", URL: "http://i/hr/g", Title: "Grievance procedure", Body: "Raise a grievance in writing.", Groups: []string{"hr"}},
	} {
		if err := ix.Add(ctx, d, indexer.Placement{ID: d.ID, Cluster: d.ID, Master: d.ID}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	s := New(ix, Options{})
	for _, tc := range []struct {
		q      string
		groups []string
		want   bool
	}{
		{"printer", nil, false},
		{"pritner", nil, true},
		{"using vpn", nil, false},
		{"useing vpn", nil, true}, // its stem, use, is held: the word is not
		{"Printer COLOUR", nil, false},
		{"grievance", nil, true}, // held by a page the guest may not see only
		{"grievance", []string{"hr"}, false},
		{"site:pritner vpn", nil, false},
		{"vpn 2026x", nil, false},
		{"vpn zz", nil, false},
		{`"pritner" vpn`, nil, false},
	} {
		if got := s.Misspelled(ctx, tc.q, tc.groups); got != tc.want {
			t.Errorf("Misspelled(%q, %v) = %v, want %v", tc.q, tc.groups, got, tc.want)
		}
	}
}

// scorchIndex returns an empty scorch index in a temporary directory
// (one that gives VisibleStats), closed when the test ends.
func scorchIndex(t *testing.T) *indexer.Index {
	t.Helper()
	bi, err := bleve.New(filepath.Join(t.TempDir(), "ix"), indexer.Mapping())
	if err != nil {
		t.Fatal(err)
	}
	ix, err := indexer.Wrap(bi, indexer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close(); bi.Close() })
	return ix
}

// TestSuggestWeighs: among near words of equal cost, the one the pages
// holding the query's other words hold wins over the more used one, a
// word of the language most of the user's pages are in over a more used
// word of another, and a word only pages the user may not see hold with
// the other words counts for nothing.
func TestSuggestWeighs(t *testing.T) {
	ix := scorchIndex(t)
	ctx := context.Background()
	docs := []indexer.Doc{
		{ID: "g1", Title: "Green garden", Lang: "en"},
		{ID: "g2", Title: "Green energy", Lang: "en"},
		{ID: "g3", Title: "Green paint", Lang: "en"},
		{ID: "z1", Title: "Zombie groan", Lang: "en"},
		{ID: "h1", Title: "Zombie great escape", Lang: "en", Groups: []string{"hr"}},
		{ID: "h2", Title: "Zombie great return", Lang: "en", Groups: []string{"hr"}},
		{ID: "e1", Title: "Carte blanche", Lang: "en"},
		{ID: "e2", Title: "Menu of the day", Lang: "en"},
		{ID: "e3", Title: "Dull morning", Lang: "en"},
		{ID: "e4", Title: "Adhere to the plan where possible", Lang: "en"},
	}
	for i, body := range []string{"Carta bianca", "Carta da lettere", "Menu del giorno", "Piatti del giorno", "Vini della casa"} {
		docs = append(docs, indexer.Doc{ID: fmt.Sprintf("i%d", i), Title: body, Lang: "it"})
	}
	for _, d := range docs {
		d.URL = "http://intra/" + d.ID
		d.Body = d.Title
		if err := ix.Add(ctx, d, indexer.Placement{ID: d.ID, Cluster: d.ID, Master: d.ID}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	s := New(ix, Options{})
	for _, tc := range []struct {
		q             string
		groups, langs []string
		want          string
	}{
		{"grean", nil, nil, "green"},                          // green (3 pages) before groan (1), both one edit
		{"zombie grean", nil, nil, "zombie groan"},            // groan is held with zombie; green is not
		{"zombie greaf", []string{"hr"}, nil, "zombie great"}, // great is held with zombie twice
		{"zombie greaf", nil, nil, ""},                        // but only in pages a guest may not see
		{"cartx", nil, nil, "carte"},                          // 9 pages in English, 5 in Italian: carte before carta
		// The user's languages (Accept-Language) decide between near words.
		{"cartx", nil, []string{"it"}, "carta"},               // carta is used in Italian pages, carte in none
		{"cartx", nil, []string{"de"}, "carte"},               // no page in German: as if not known
		{"cartx", nil, []string{"it", "en"}, "carta"},         // both used: carta in more pages
		{"dell", nil, nil, "della"},                           // a letter left out (0.7) before a vowel (0.75)
		{"dell", nil, []string{"en"}, "dull"},                 // a reader of English gets the English word
		{"dell", nil, []string{"de", "en"}, "dull"},           // German ignored, English read
		{"dell", nil, []string{"it"}, "della"},                // a reader of Italian the Italian one
		{"zombie grean", nil, []string{"it"}, "zombie groan"}, // the query's other words first
		{"wehere", nil, []string{"en"}, "where"},              // a stop word is kept among the words used
	} {
		got, err := s.SuggestIn(ctx, tc.q, tc.groups, tc.langs)
		if err != nil || got != tc.want {
			t.Errorf("SuggestIn(%q, %v, %v) = %q, %v; want %q", tc.q, tc.groups, tc.langs, got, err, tc.want)
		}
	}
}

// TestEditCost: the likely slips — a letter left out, a keyboard
// neighbour's letter, one vowel for another, two letters swapped — cost
// less than other edits.
func TestEditCost(t *testing.T) {
	for _, tc := range []struct {
		typed, word string
		want        float64
	}{
		{"same", "same", 0},
		{"printr", "printer", missed},               // a letter left out
		{"vpm", "vpn", cheap},                       // m and n are neighbours
		{"seperate", "separate", cheap},             // a vowel for another
		{"tipe", "type", cheap},                     // i for y, a vowel too
		{"teh", "the", cheap},                       // two letters swapped
		{"cxt", "cat", 1},                           // x is no neighbour of a, nor a vowel
		{"bqt", "bat", cheap},                       // q touches a
		{"occurance", "occurrence", missed + cheap}, // an r left out, a for e
		{"printeer", "printer", cheap},              // a doubled letter typed
		{"prinzer", "printer", 1},                   // z for t: neither
	} {
		if got := editCost(tc.typed, tc.word); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("editCost(%q, %q) = %v; want %v", tc.typed, tc.word, got, tc.want)
		}
	}
}
