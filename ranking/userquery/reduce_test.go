package userquery

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/blevesearch/bleve/v2/search/query"
)

// TestReduce: a query of more than n distinct plain words is searched by
// its n rarest (words in no document last, earlier words first among
// equals); other clauses and snippets are unchanged.
func TestReduce(t *testing.T) {
	ix := testIndex(t)
	p := testParser()
	shares := map[string]float64{"instal": 0.5, "vpn": 0.2, "client": 0.3, "softwar": 0.4, "portal": 0.1, "defin": 0.3, "tabl": 0.4}
	share := func(term string) float64 { return shares[term] }
	for _, tc := range []struct {
		q        string
		n        int
		required [][]string // of the reduced parser, in query order
		matches  []string   // if not nil, what the reduced query matches
	}{
		{"install vpn client software portal", 2, [][]string{{"vpn"}, {"portal"}}, []string{"vpn", "vpn-print"}},
		{"install vpn client software portal", 4, [][]string{{"vpn"}, {"client"}, {"softwar"}, {"portal"}}, nil},
		{"install vpn client software portal", 5, [][]string{{"instal"}, {"vpn"}, {"client"}, {"softwar"}, {"portal"}}, nil},
		{"install vpn client software portal", 0, [][]string{{"instal"}, {"vpn"}, {"client"}, {"softwar"}, {"portal"}}, nil},
		// Equal shares: the earlier words.
		{"define client table", 1, [][]string{{"defin"}}, nil},
		{"client define vpn", 2, [][]string{{"client"}, {"vpn"}}, nil},
		// A word in no document comes last: the others still find pages.
		{"zebra portal vpn", 2, [][]string{{"portal"}, {"vpn"}}, []string{"vpn", "vpn-print"}},
		{"zebra quagga vpn", 2, [][]string{{"zebra"}, {"vpn"}}, []string{}},
		// Stop words are no words; repeated words count once.
		{"the vpn and the portal vpn", 2, [][]string{{"vpn"}, {"portal"}}, []string{"vpn", "vpn-print"}},
		// Quoted phrases and fields stay required.
		{`"define a new table" install client vpn portal`, 1, [][]string{{"portal"}}, []string{}},
		{`title:vpn install client portal`, 1, [][]string{{"portal"}}, []string{"vpn", "vpn-print"}},
		{`-print install client portal`, 1, [][]string{{"portal"}}, []string{"vpn"}},
	} {
		t.Run(fmt.Sprintf("%s/n=%d", tc.q, tc.n), func(t *testing.T) {
			parsed := p.Parse(tc.q)
			r := p.Reduce(parsed, tc.n, share)
			if got := r.Required(parsed); !slices.EqualFunc(got, tc.required, slices.Equal) {
				t.Errorf("Required = %q, want %q", got, tc.required)
			}
			if tc.matches != nil {
				if got := search(t, ix, r.Build(parsed)); !sameSet(got, tc.matches) {
					t.Errorf("matches %v, want %v", got, tc.matches)
				}
			}
			got, _ := json.Marshal(r.Snippet(parsed, "body"))
			want, _ := json.Marshal(p.Snippet(parsed, "body"))
			if string(got) != string(want) {
				t.Errorf("Snippet = %s, want %s", got, want)
			}
		})
	}
}

// TestReducePhrase: the words kept still score as a phrase where they
// stand as typed, the others any word between them.
func TestReducePhrase(t *testing.T) {
	ix := testIndex(t)
	p := testParser()
	shares := map[string]float64{"creat": 0.5, "tabl": 0.4, "defin": 0.6, "new": 0.6, "current": 0.1, "databas": 0.1, "empti": 0.1}
	share := func(term string) float64 { return shares[term] }
	// The rarest words of pg-create-table's body, and the same words in
	// another order: only the first is its phrase.
	for _, tc := range []struct {
		q     string
		first string
	}{
		{"create a new, initially empty table in the current database", "pg-create-table"},
		{"create a new, initially database table in the current empty", ""},
	} {
		parsed := p.Parse(tc.q)
		r := p.Reduce(parsed, 3, share)
		if got := r.Required(parsed); !slices.EqualFunc(got, [][]string{{"empti"}, {"current"}, {"databas"}}, slices.Equal) &&
			!slices.EqualFunc(got, [][]string{{"databas"}, {"current"}, {"empti"}}, slices.Equal) {
			t.Fatalf("%q: Required = %q", tc.q, got)
		}
		ph := phraseOnly(r, parsed, "body")
		got := search(t, ix, ph)
		if want := []string{tc.first}; tc.first == "" && len(got) > 0 || tc.first != "" && !slices.Equal(got, want) {
			t.Errorf("%q: the reduced phrase matches %v, want %q", tc.q, got, tc.first)
		}
	}
}

// phraseOnly returns the phrase query that r builds for q's plain words
// in field.
func phraseOnly(r *Parser, q Parsed, field string) query.Query {
	for _, f := range r.text {
		if f.Name == field {
			return phrase(r.plainWordsIn(f.Name, plainText(q)), f.Name, 1)
		}
	}
	return nil
}
