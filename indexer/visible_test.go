package indexer

import (
	"context"
	"fmt"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
)

// TestVisibleStatsCountsAsSearches checks VisibleStats against the count
// searches it stands for — a term's query and VisibleTo, conjoined — for
// users of every mix of groups, every term of several fields, on an
// index of several segments with deleted records (documents updated and
// removed, a cluster's master taken over).
func TestVisibleStatsCountsAsSearches(t *testing.T) {
	ix, err := Open(t.TempDir(), Options{NoAutoFlush: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ctx := context.Background()
	groupsOf := [][]string{nil, {"hr"}, {"it"}, {"hr", "it"}, {"board"}}
	words := []string{"alpha", "beta", "gamma", "delta", "epsilon"}
	add := func(i int, extra string) {
		id := fmt.Sprintf("d%d", i)
		d := Doc{ID: id, URL: "http://h/" + id, Title: words[i%5] + " " + extra, Body: words[(i+1)%5] + " " + words[(i*3)%5] + " " + extra,
			Anchors: []string{words[(i+2)%5]}, Groups: groupsOf[i%len(groupsOf)]}
		if err := ix.Add(ctx, d, Placement{Cluster: fmt.Sprintf("c%d", i/3), Master: fmt.Sprintf("d%d", i/3*3)}); err != nil {
			t.Fatal(err)
		}
	}
	for round := range 3 { // three flushes: three segments at least
		for i := round * 20; i < round*20+20; i++ {
			add(i, "round"+fmt.Sprint(round))
		}
		if err := ix.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 60; i += 7 { // new versions: the old records are deleted
		add(i, "again")
	}
	if err := ix.Remove(ctx, Change{ID: "d31", Cluster: "c10", Master: "d30"}); err != nil {
		t.Fatal(err)
	}
	if err := ix.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	count := func(q query.Query, groups []string) uint64 {
		req := bleve.NewSearchRequestOptions(query.NewConjunctionQuery([]query.Query{q, VisibleTo(groups)}), 0, 0, false)
		res, err := ix.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return res.Total
	}
	terms := append(append([]string{}, words...), "round0", "round1", "round2", "again", "nowhere")
	for _, groups := range append(groupsOf, []string{"nobody"}) {
		t.Run(fmt.Sprint(groups), func(t *testing.T) {
			v, err := ix.VisibleStats(groups)
			if err != nil || v == nil {
				t.Fatalf("VisibleStats = %v, %v; want statistics of a scorch index", v, err)
			}
			defer v.Close()
			if want := count(bleve.NewMatchAllQuery(), groups); v.Total() != want || want == 0 {
				t.Errorf("Total = %d, the count search %d (want it above 0)", v.Total(), want)
			}
			if v.All() {
				t.Error("All: true, but no user sees the member records")
			}
			for _, field := range []string{FieldTitle, FieldBody, FieldAnchors, FieldAll} {
				for _, term := range terms {
					tq := bleve.NewTermQuery(term)
					tq.SetField(field)
					got, err := v.Count(field, term)
					if want := count(tq, groups); err != nil || got != want {
						t.Errorf("Count(%s, %s) = %d, %v; the count search: %d", field, term, got, err, want)
					}
				}
			}
		})
	}
}

// TestVisibleStatsClosed checks that a closed index gives no statistics.
func TestVisibleStatsClosed(t *testing.T) {
	ix, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
	if _, err := ix.VisibleStats(nil); err == nil {
		t.Error("VisibleStats on a closed index: no error")
	}
}
