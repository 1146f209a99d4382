package shard

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"sync"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/doppel-search/doppel/ranking/multiterm"
)

// The union narrows its dictionaries where the shards are.
var _ multiterm.FilteringReader = (*union)(nil)

// An Expandable query takes its terms from the index's term dictionary: a
// prefix, a regular expression or a fuzzy term (package ranking's bounded
// multi-term queries are). Searched in each shard alone it would expand
// to that shard's terms, and score with another number of clauses on
// each shard than on one index; a sharded index expands it once, against
// the terms of all its shards, and searches what Expand returns. A
// query bounded for a user's pages (multiterm.Options.Visible) reads
// only the terms those pages hold: each shard lists them from its own
// dictionary of visible terms (union.Filtered, multiterm.Dictionaries),
// so a term only hidden pages hold is neither listed nor counted
// against the budget, nor read by the expansion. (A
// multi-term query of bleve's own types is expanded by each shard: its
// documents are found, but may score a little differently.)
type Expandable interface {
	query.Query
	// Expand returns the query with its terms taken from dict, written
	// with bleve's own query types, which a shard in another process
	// can be sent.
	Expand(ctx context.Context, dict index.IndexReader, m mapping.IndexMapping) (query.Query, error)
}

// expand returns q with every Expandable in it expanded against dict,
// and whether there was one. Boolean, conjunction and disjunction
// queries holding one are copied, never changed.
func expand(ctx context.Context, q query.Query, dict index.IndexReader, m mapping.IndexMapping) (query.Query, bool, error) {
	switch q := q.(type) {
	case Expandable:
		e, err := q.Expand(ctx, dict, m)
		return e, true, err
	case *query.BooleanQuery:
		c, changed := *q, false
		for _, p := range []*query.Query{&c.Must, &c.Should, &c.MustNot, &c.Filter} {
			if *p == nil {
				continue
			}
			e, ch, err := expand(ctx, *p, dict, m)
			if err != nil {
				return nil, false, err
			}
			if ch {
				*p, changed = e, true
			}
		}
		if changed {
			return &c, true, nil
		}
	case *query.ConjunctionQuery:
		qs, changed, err := expandAll(ctx, q.Conjuncts, dict, m)
		if err != nil || !changed {
			return q, false, err
		}
		c := *q
		c.Conjuncts = qs
		return &c, true, nil
	case *query.DisjunctionQuery:
		qs, changed, err := expandAll(ctx, q.Disjuncts, dict, m)
		if err != nil || !changed {
			return q, false, err
		}
		c := *q
		c.Disjuncts = qs
		return &c, true, nil
	}
	return q, false, nil
}

// expandAll is expand for each of qs, into a new slice if one changed.
func expandAll(ctx context.Context, qs []query.Query, dict index.IndexReader, m mapping.IndexMapping) ([]query.Query, bool, error) {
	var out []query.Query
	for i, q := range qs {
		e, ch, err := expand(ctx, q, dict, m)
		if err != nil {
			return nil, false, err
		}
		if ch && out == nil {
			out = make([]query.Query, len(qs))
			copy(out, qs[:i])
		}
		if out != nil {
			out[i] = e
		}
	}
	return out, out != nil, nil
}

// A dictRequest asks a shard for the terms of a field: all of them, or
// those with a prefix, matching a regular expression, or within an edit
// distance of a term.
//
// Match and Visible narrow the answer (see multiterm.FilteringReader):
// only terms that Match matches whole and that a document matching
// Visible holds are listed, each shard checking its own documents, so
// that a user's expansion neither reads nor counts a term only pages
// they may not see hold. With Visible, the shard lists the terms of its
// dictionary of visible terms (multiterm.Dictionaries: built once per
// snapshot of the shard, set of visible documents and field), so that
// what the request costs does not grow with the terms only hidden
// pages hold.
type dictRequest struct {
	Field     string     `json:"field"`
	Kind      string     `json:"kind"` // "all", "prefix", "regexp" or "fuzzy"
	Text      string     `json:"text,omitempty"`
	Fuzziness int        `json:"fuzziness,omitempty"`
	Prefix    string     `json:"prefix,omitempty"` // fuzzy: the runes every term starts with
	Match     string     `json:"match,omitempty"`
	Visible   *wireQuery `json:"visible,omitempty"` // on the wire; visible in this process
	visible   query.Query
}

// filteredDict answers dr from a snapshot's dictionary, narrowed by
// dr.Match and, if dr has a visible query, listing only the terms of
// dicts' dictionary of the terms the snapshot's visible documents hold
// (m reads the visible query). A regular expression (dr.Text of a
// "regexp" request, and dr.Match) is matched with Go's regexp, term by
// term from its literal prefix, never with the index's automaton (see
// multiterm.Options.MaxRegexInsts).
func filteredDict(ctx context.Context, snap *scorch.IndexSnapshot, m mapping.IndexMapping, dicts *multiterm.Dictionaries, dr dictRequest) (index.FieldDict, error) {
	var res []*regexp.Regexp
	patterns := []string{dr.Match}
	if dr.Kind == dictRegexp {
		patterns = append(patterns, dr.Text)
	}
	for i, pattern := range patterns {
		if i == 0 && pattern == "" { // no Match
			continue
		}
		re, err := regexp.Compile(`^(?:` + pattern + `)$`)
		if err != nil {
			return nil, err
		}
		res = append(res, re)
	}
	if dr.Kind == dictRegexp {
		prefix, _ := res[len(res)-1].LiteralPrefix()
		dr.Kind, dr.Text = dictPrefix, prefix
	}
	if dr.Kind == dictPrefix && dr.Text == "" {
		dr.Kind = dictAll // (an empty prefix may list nothing)
	}
	r := index.IndexReader(snap)
	if dr.visible != nil {
		key, err := visibleKey(dr.visible)
		if err != nil {
			return nil, err
		}
		if r, err = dicts.Reader(ctx, snap, m, dr.Field, key, dr.visible); err != nil {
			return nil, err
		}
	}
	d, err := readerDict(r, dr)
	if err != nil || len(res) == 0 && dr.visible == nil {
		return d, err
	}
	// (A dictionary of visible terms is in memory, and checks no
	// context: the narrowDict does.)
	return &narrowDict{FieldDict: d, ctx: ctx, res: res}, nil
}

// visibleKey names a visible query: its wire form, so that the same
// users' queries — in this process or sent by another — share the
// shard's dictionaries of their visible terms.
func visibleKey(q query.Query) (string, error) {
	w, err := encodeQuery(q)
	if err != nil {
		return "", err
	}
	data, err := json.Marshal(w)
	return string(data), err
}

// A narrowDict lists the terms of a dictionary that every one of res
// matches whole, checking ctx every 64 terms read. Cost: a match per
// term read.
type narrowDict struct {
	index.FieldDict
	ctx  context.Context
	res  []*regexp.Regexp
	read int
}

// Next returns the next term listed, nil at the end.
func (d *narrowDict) Next() (*index.DictEntry, error) {
	for {
		if d.read++; d.read%64 == 0 {
			if err := d.ctx.Err(); err != nil {
				return nil, err
			}
		}
		e, err := d.FieldDict.Next()
		if err != nil || e == nil {
			return nil, err
		}
		if d.matches(e.Term) {
			return e, nil
		}
	}
}

// matches reports whether every one of d's expressions matches term.
func (d *narrowDict) matches(term string) bool {
	for _, re := range d.res {
		if !re.MatchString(term) {
			return false
		}
	}
	return true
}

// Kinds of dictRequest.
const (
	dictAll    = "all"
	dictPrefix = "prefix"
	dictRegexp = "regexp"
	dictFuzzy  = "fuzzy"
)

// readerDict answers dr (of a kind other than "regexp") from r's
// dictionary.
func readerDict(r index.IndexReader, dr dictRequest) (index.FieldDict, error) {
	switch dr.Kind {
	case dictAll:
		return r.FieldDict(dr.Field)
	case dictPrefix:
		return r.FieldDictPrefix(dr.Field, []byte(dr.Text))
	case dictFuzzy:
		if f, ok := r.(index.IndexReaderFuzzy); ok {
			return f.FieldDictFuzzy(dr.Field, dr.Text, dr.Fuzziness, dr.Prefix)
		}
	}
	return nil, errors.New("shard: unknown dictionary request " + dr.Kind)
}

// A union is the term dictionary of every shard: what an Expandable
// query is expanded against. It answers the dictionary methods of a
// reader (each shard's terms merged, their counts added) and nothing
// else: its other methods are not to be called.
type union struct {
	index.IndexReader // nil
	ctx               context.Context
	parts             []part
	match             string      // see dictRequest
	visible           query.Query // see dictRequest
}

// Filtered returns the union with each shard's dictionary narrowed to
// the terms that match matches whole and that its documents matching
// visible hold (multiterm.FilteringReader).
func (u *union) Filtered(match string, visible query.Query) index.IndexReader {
	c := *u
	c.match, c.visible = match, visible
	return &c
}

// merged asks every shard for dr, the shards in parallel (the first
// request of a user's field builds each shard's dictionary of visible
// terms), and merges their answers.
func (u *union) merged(dr dictRequest) (index.FieldDict, error) {
	dr.Match, dr.visible = u.match, u.visible
	dicts := make([]index.FieldDict, len(u.parts))
	errs := make([]error, len(u.parts))
	var wg sync.WaitGroup
	for i, p := range u.parts {
		wg.Go(func() { dicts[i], errs[i] = p.dict(u.ctx, dr) })
	}
	wg.Wait()
	for _, err := range errs {
		if err == nil {
			continue
		}
		for _, d := range dicts {
			if d != nil {
				d.Close()
			}
		}
		return nil, err // the first shard's, as one at a time would fail
	}
	return newMergedDict(dicts)
}

// FieldDict returns every term of field.
func (u *union) FieldDict(field string) (index.FieldDict, error) {
	return u.merged(dictRequest{Field: field, Kind: dictAll})
}

// FieldDictPrefix returns the terms of field starting with prefix.
func (u *union) FieldDictPrefix(field string, prefix []byte) (index.FieldDict, error) {
	return u.merged(dictRequest{Field: field, Kind: dictPrefix, Text: string(prefix)})
}

// FieldDictRegexp returns the terms of field that regex matches.
func (u *union) FieldDictRegexp(field, regex string) (index.FieldDict, error) {
	return u.merged(dictRequest{Field: field, Kind: dictRegexp, Text: regex})
}

// FieldDictFuzzy returns the terms of field within fuzziness edits of
// term that start with prefix.
func (u *union) FieldDictFuzzy(field, term string, fuzziness int, prefix string) (index.FieldDict, error) {
	return u.merged(dictRequest{Field: field, Kind: dictFuzzy, Text: term, Fuzziness: fuzziness, Prefix: prefix})
}

// errNoAutomaton: the union has no automaton of its own.
var errNoAutomaton = errors.New("shard: no automaton over the union of the shards' dictionaries")

// FieldDictRegexpAutomaton is not available on a union.
func (u *union) FieldDictRegexpAutomaton(string, string) (index.FieldDict, index.RegexAutomaton, error) {
	return nil, nil, errNoAutomaton
}

// FieldDictFuzzyAutomaton is not available on a union.
func (u *union) FieldDictFuzzyAutomaton(string, string, int, string) (index.FieldDict, index.FuzzyAutomaton, error) {
	return nil, nil, errNoAutomaton
}

// Close does nothing: the dictionaries are closed as they are read.
func (u *union) Close() error { return nil }

// A mergedDict reads several dictionaries, each in term order, as one:
// a term in several has their counts added.
type mergedDict struct {
	dicts []index.FieldDict
	heads []*index.DictEntry // the next entry of each; nil when done
}

func newMergedDict(dicts []index.FieldDict) (*mergedDict, error) {
	m := &mergedDict{dicts: dicts, heads: make([]*index.DictEntry, len(dicts))}
	for i := range dicts {
		if err := m.advance(i); err != nil {
			m.Close()
			return nil, err
		}
	}
	return m, nil
}

func (m *mergedDict) advance(i int) error {
	e, err := m.dicts[i].Next()
	if err != nil {
		return err
	}
	if e == nil {
		m.heads[i] = nil
		return nil
	}
	c := *e
	m.heads[i] = &c
	return nil
}

// Next returns the next term of all the dictionaries, nil at the end.
func (m *mergedDict) Next() (*index.DictEntry, error) {
	var low *index.DictEntry
	for _, h := range m.heads {
		if h != nil && (low == nil || h.Term < low.Term) {
			low = h
		}
	}
	if low == nil {
		return nil, nil
	}
	out := index.DictEntry{Term: low.Term, EditDistance: low.EditDistance}
	for i, h := range m.heads {
		if h != nil && h.Term == out.Term {
			out.Count += h.Count
			if err := m.advance(i); err != nil {
				return nil, err
			}
		}
	}
	return &out, nil
}

// Close closes every dictionary.
func (m *mergedDict) Close() error {
	var errs []error
	for _, d := range m.dicts {
		errs = append(errs, d.Close())
	}
	return errors.Join(errs...)
}

// Cardinality adds up the dictionaries' cardinalities.
func (m *mergedDict) Cardinality() int {
	n := 0
	for _, d := range m.dicts {
		n += d.Cardinality()
	}
	return n
}

// BytesRead adds up the dictionaries' bytes read.
func (m *mergedDict) BytesRead() uint64 {
	var n uint64
	for _, d := range m.dicts {
		n += d.BytesRead()
	}
	return n
}
