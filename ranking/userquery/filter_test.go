package userquery

import (
	"slices"
	"testing"

	"github.com/blevesearch/bleve/v2/search/query"
)

// TestFilter: a filter matches what its query matches, scoring 0, and
// leaves the scores of the query it is part of as they were.
func TestFilter(t *testing.T) {
	ix := testIndex(t)
	p := testParser()
	for _, q := range []string{"vpn", "create table", "Install the VPN client", `"define a new table"`, "vpn -print", "title:vpn client", "site:intra.example", ""} {
		built := p.Build(p.Parse(q))
		wantIDs, _ := scored(t, ix, built)
		gotIDs, gotScores := scored(t, ix, Filter(built))
		slices.Sort(wantIDs)
		slices.Sort(gotIDs)
		if !slices.Equal(gotIDs, wantIDs) || slices.ContainsFunc(gotScores, func(s float64) bool { return s != 0 }) {
			t.Errorf("Filter(%q) matches %v scored %v, want %v scored 0", q, gotIDs, gotScores, wantIDs)
		}
	}
	// As the must clause of a boolean query beside scoring clauses, a
	// filter of terms boosted 0 (the plain words' filter, a host) leaves
	// the scores as they were.
	words := p.Build(p.Parse("install vpn client portal"))
	host := term("www.postgresql.org", "host", 0)
	for _, f := range []query.Query{p.termsIn("install client", true, nil), p.termsIn("vpn portal client", false, nil), host,
		query.NewDisjunctionQuery([]query.Query{host, term("intra.example", "host", 0)})} {
		for _, should := range []query.Query{words, p.Build(p.Parse("create table"))} {
			gIDs, gScores := scored(t, ix, query.NewBooleanQuery([]query.Query{Filter(f)}, []query.Query{should}, nil))
			wIDs, wScores := scored(t, ix, query.NewBooleanQuery([]query.Query{f}, []query.Query{should}, nil))
			if !slices.Equal(gIDs, wIDs) || !slices.Equal(gScores, wScores) {
				t.Errorf("%v as a filter: %v %v, as it is %v %v", f, gIDs, gScores, wIDs, wScores)
			}
		}
	}
	if Filter(nil) != nil {
		t.Error("Filter(nil) is not nil")
	}
}
