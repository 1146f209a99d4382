package userquery

import (
	"slices"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
)

// allMapping is testMapping with only the text fields in _all, as
// Options.AllField wants it.
func allMapping() *mapping.IndexMappingImpl {
	im := testMapping()
	for _, n := range []string{"url", "host", "id"} {
		im.DefaultMapping.Properties[n].Fields[0].IncludeInAll = false
	}
	return im
}

// scored returns the ids and scores of what q matches, best first.
func scored(t testing.TB, ix bleve.Index, q query.Query) ([]string, []float64) {
	t.Helper()
	req := bleve.NewSearchRequestOptions(q, 100, 0, false)
	req.SortBy([]string{"-_score", "_id"})
	res, err := ix.Search(req)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	var scores []float64
	for _, h := range res.Hits {
		ids, scores = append(ids, h.ID), append(scores, h.Score)
	}
	return ids, scores
}

// TestAllField: with the composite field, queries match the same
// documents with the same scores, strict or relaxed.
func TestAllField(t *testing.T) {
	ix, err := bleve.NewMemOnly(allMapping())
	if err != nil {
		t.Fatal(err)
	}
	for id, d := range docs {
		if err := ix.Index(id, d); err != nil {
			t.Fatal(err)
		}
	}
	per := New(Options{Fields: fields, Mapping: allMapping()})
	all := New(Options{Fields: fields, Mapping: allMapping(), AllField: "_all"})
	for _, q := range []string{"vpn", "create table", "Args in std::env - Rust", `"define a new table" create`, "vpn -print", "title:vpn client",
		"PostgreSQL: Documentation: 15: CREATE TABLE", "lunch served week", "the", ""} {
		for _, strict := range []bool{true, false} {
			build := func(p *Parser) query.Query {
				if strict {
					return p.Build(p.Parse(q))
				}
				if r := p.Relaxed(p.Parse(q), nil); r != nil {
					return r
				}
				return p.Build(p.Parse(q))
			}
			wantIDs, wantScores := scored(t, ix, build(per))
			gotIDs, gotScores := scored(t, ix, build(all))
			if !slices.Equal(gotIDs, wantIDs) || !slices.Equal(gotScores, wantScores) {
				t.Errorf("%q (strict %v): %v %v, per field %v %v", q, strict, gotIDs, gotScores, wantIDs, wantScores)
			}
		}
	}
}

// TestWithinAndRequired: the first tier holds the documents with every
// required word in the fields given, scored on those fields; Required
// lists those words' terms.
func TestWithinAndRequired(t *testing.T) {
	ix := testIndex(t)
	p := testParser()
	for _, tc := range []struct {
		q        string
		fields   []string
		want     []string
		required [][]string
	}{
		{"vpn client", []string{"title", "headings"}, []string{}, [][]string{{"vpn"}, {"client"}}},
		{"vpn client", []string{"body"}, []string{"vpn", "vpn-print"}, [][]string{{"vpn"}, {"client"}}},
		{"connecting vpn", []string{"title", "headings"}, []string{"vpn", "vpn-print"}, [][]string{{"connect"}, {"vpn"}}},
		{"create table", []string{"headings"}, []string{"pg-create-table", "pg-create-table-as"}, [][]string{{"creat"}, {"tabl"}}},
		{"the", []string{"title"}, nil, nil},
		{"title:vpn", []string{"title"}, nil, nil},
	} {
		parsed := p.Parse(tc.q)
		if got := p.Required(parsed); !slices.EqualFunc(got, tc.required, slices.Equal) {
			t.Errorf("Required(%q) = %q, want %q", tc.q, got, tc.required)
		}
		w := p.Within(parsed, tc.fields...)
		if tc.want == nil {
			if w != nil {
				t.Errorf("Within(%q, %v) = %v, want nil", tc.q, tc.fields, w)
			}
			continue
		}
		got := search(t, ix, w)
		if !sameSet(got, tc.want) {
			t.Errorf("Within(%q, %v) matches %v, want %v", tc.q, tc.fields, got, tc.want)
		}
		// It scores as a parser of those fields alone.
		var only []Field
		for _, f := range fields {
			if slices.Contains(tc.fields, f.Name) {
				only = append(only, f)
			}
		}
		op := New(Options{Fields: only, Mapping: testMapping()})
		gotIDs, gotScores := scored(t, ix, w)
		wantIDs, wantScores := scored(t, ix, op.Build(op.Parse(tc.q)))
		if !slices.Equal(gotIDs, wantIDs) || !slices.Equal(gotScores, wantScores) {
			t.Errorf("Within(%q, %v): %v %v, a parser of those fields %v %v", tc.q, tc.fields, gotIDs, gotScores, wantIDs, wantScores)
		}
	}
}
