package shard

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/doppel-search/doppel/ranking/userquery"
)

// A wireQuery is a query as a remote shard is sent it: bleve's own
// queries in bleve's JSON, except the compound ones, written here so
// that their children may be queries bleve's JSON does not know (an
// Unscored filter), and so that a query string's compound queries keep
// what tells them from others (they drop clauses that match nothing).
type wireQuery struct {
	Bool     *wireBool       `json:"bool,omitempty"`
	And      *wireList       `json:"and,omitempty"`
	Or       *wireList       `json:"or,omitempty"`
	Unscored *wireQuery      `json:"unscored,omitempty"`
	Bleve    json.RawMessage `json:"bleve,omitempty"`
}

type wireBool struct {
	Must        *wireQuery `json:"must,omitempty"`
	Should      *wireQuery `json:"should,omitempty"`
	MustNot     *wireQuery `json:"must_not,omitempty"`
	Filter      *wireQuery `json:"filter,omitempty"`
	Boost       *float64   `json:"boost,omitempty"`
	QueryString bool       `json:"qs,omitempty"`
}

type wireList struct {
	Queries     []*wireQuery `json:"q"`
	Boost       *float64     `json:"boost,omitempty"`
	Min         float64      `json:"min,omitempty"`
	QueryString bool         `json:"qs,omitempty"`
}

// An unscoredQuery filters by a query, scoring nothing: what package
// ranking's filters (userquery.Filter) say they are.
type unscoredQuery interface {
	query.Query
	Unscored() query.Query
}

// A scoredQuery is a query package ranking scores with the statistics
// of one user's documents (its searcher reads them from the reader it
// is given): sent to a remote shard as the query it scores, with those
// statistics (see Index.Search).
type scoredQuery interface {
	query.Query
	Scored() query.Query
	// Statistics returns the number of documents the query is scored
	// over, and how many of them hold a term in a field.
	Statistics() (docs uint64, count func(field, term string) uint64)
}

// A phraseQuery is package userquery's phrase, which answers as bleve's
// phrase does (with a cheaper check of positions): a remote shard is
// sent bleve's.
type phraseQuery interface {
	query.Query
	Phrase() *query.MultiPhraseQuery
}

// findScored returns the first scoredQuery of q's tree, or nil.
func findScored(q query.Query) scoredQuery {
	switch q := q.(type) {
	case scoredQuery:
		return q
	case *query.BooleanQuery:
		for _, c := range []query.Query{q.Must, q.Should, q.MustNot, q.Filter} {
			if f := findScored(c); f != nil {
				return f
			}
		}
	case *query.ConjunctionQuery:
		for _, c := range q.Conjuncts {
			if f := findScored(c); f != nil {
				return f
			}
		}
	case *query.DisjunctionQuery:
		for _, c := range q.Disjuncts {
			if f := findScored(c); f != nil {
				return f
			}
		}
	}
	return nil
}

// bleveQueries is the package of bleve's query types.
var bleveQueries = reflect.TypeFor[query.TermQuery]().PkgPath()

// encodeQuery writes q for a remote shard: bleve's queries, and filters
// (Unscored); Expandable queries must have been expanded.
func encodeQuery(q query.Query) (*wireQuery, error) {
	if q == nil {
		return nil, nil
	}
	switch q := q.(type) {
	case *query.BooleanQuery:
		b := &wireBool{Boost: (*float64)(q.BoostVal), QueryString: queryStringMode(q)}
		for _, c := range []struct {
			q query.Query
			w **wireQuery
		}{{q.Must, &b.Must}, {q.Should, &b.Should}, {q.MustNot, &b.MustNot}, {q.Filter, &b.Filter}} {
			var err error
			if *c.w, err = encodeQuery(c.q); err != nil {
				return nil, err
			}
		}
		return &wireQuery{Bool: b}, nil
	case *query.ConjunctionQuery:
		l, err := encodeList(q.Conjuncts)
		if err != nil {
			return nil, err
		}
		l.Boost, l.QueryString = (*float64)(q.BoostVal), queryStringMode(q)
		return &wireQuery{And: l}, nil
	case *query.DisjunctionQuery:
		l, err := encodeList(q.Disjuncts)
		if err != nil {
			return nil, err
		}
		l.Boost, l.Min, l.QueryString = (*float64)(q.BoostVal), q.Min, queryStringMode(q)
		return &wireQuery{Or: l}, nil
	case unscoredQuery:
		in, err := encodeQuery(q.Unscored())
		if err != nil {
			return nil, err
		}
		return &wireQuery{Unscored: in}, nil
	case scoredQuery:
		// Scored with a user's statistics here (package ranking); a
		// remote shard scores with the statistics of every shard.
		return encodeQuery(q.Scored())
	case phraseQuery:
		return encodeQuery(q.Phrase())
	}
	t := reflect.TypeOf(q)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.PkgPath() != bleveQueries {
		return nil, fmt.Errorf("shard: a query of type %T cannot be sent to a remote shard", q)
	}
	data, err := json.Marshal(q)
	if err != nil {
		return nil, fmt.Errorf("shard: encoding a %T: %w", q, err)
	}
	return &wireQuery{Bleve: data}, nil
}

func encodeList(qs []query.Query) (*wireList, error) {
	l := &wireList{Queries: make([]*wireQuery, len(qs))}
	for i, q := range qs {
		var err error
		if l.Queries[i], err = encodeQuery(q); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// queryStringMode reports whether a compound query was made by bleve's
// query string parser (an unexported flag, read by reflection).
func queryStringMode(q query.Query) bool {
	f := reflect.ValueOf(q).Elem().FieldByName("queryStringMode")
	return f.IsValid() && f.Kind() == reflect.Bool && f.Bool()
}

// decodeQuery reads what encodeQuery wrote.
func decodeQuery(w *wireQuery) (query.Query, error) {
	switch {
	case w == nil:
		return nil, nil
	case w.Bool != nil:
		b := query.NewBooleanQuery(nil, nil, nil)
		if w.Bool.QueryString {
			b = query.NewBooleanQueryForQueryString(nil, nil, nil)
		}
		for _, c := range []struct {
			w *wireQuery
			q *query.Query
		}{{w.Bool.Must, &b.Must}, {w.Bool.Should, &b.Should}, {w.Bool.MustNot, &b.MustNot}, {w.Bool.Filter, &b.Filter}} {
			var err error
			if *c.q, err = decodeQuery(c.w); err != nil {
				return nil, err
			}
		}
		b.BoostVal = (*query.Boost)(w.Bool.Boost)
		return b, nil
	case w.And != nil:
		qs, err := decodeList(w.And)
		if err != nil {
			return nil, err
		}
		c := query.NewConjunctionQuery(qs)
		if w.And.QueryString {
			tmp := query.NewBooleanQueryForQueryString(nil, nil, nil)
			tmp.AddMust(qs...)
			c = tmp.Must.(*query.ConjunctionQuery)
		}
		c.BoostVal = (*query.Boost)(w.And.Boost)
		return c, nil
	case w.Or != nil:
		qs, err := decodeList(w.Or)
		if err != nil {
			return nil, err
		}
		d := query.NewDisjunctionQuery(qs)
		if w.Or.QueryString {
			tmp := query.NewBooleanQueryForQueryString(nil, nil, nil)
			tmp.AddShould(qs...)
			d = tmp.Should.(*query.DisjunctionQuery)
		}
		d.BoostVal, d.Min = (*query.Boost)(w.Or.Boost), w.Or.Min
		return d, nil
	case w.Unscored != nil:
		in, err := decodeQuery(w.Unscored)
		if err != nil {
			return nil, err
		}
		return userquery.Filter(in), nil
	case w.Bleve != nil:
		return query.ParseQuery(w.Bleve)
	}
	return nil, fmt.Errorf("shard: an empty query")
}

func decodeList(l *wireList) ([]query.Query, error) {
	qs := make([]query.Query, 0, len(l.Queries)) // never nil: AddMust and AddShould ignore nil
	for _, w := range l.Queries {
		q, err := decodeQuery(w)
		if err != nil {
			return nil, err
		}
		qs = append(qs, q)
	}
	return qs, nil
}
