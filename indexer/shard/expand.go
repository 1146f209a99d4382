package shard

import (
	"context"
	"errors"
	"regexp"

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
// only the terms those pages hold: each shard narrows its own
// dictionary (union.Filtered), so a term only hidden pages hold is
// neither listed nor counted against the budget. (A
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
// they may not see hold.
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
// dr.Match and dr's visible query (m reads the latter).
func filteredDict(ctx context.Context, snap *scorch.IndexSnapshot, m mapping.IndexMapping, dr dictRequest) (index.FieldDict, error) {
	var re *regexp.Regexp
	if dr.Match != "" {
		var err error
		if re, err = regexp.Compile(`^(?:` + dr.Match + `)$`); err != nil {
			return nil, err
		}
	}
	d, err := snapshotDict(snap, dr)
	if err != nil || (re == nil && dr.visible == nil) {
		return d, err
	}
	return &narrowDict{FieldDict: d, ctx: ctx, snap: snap, m: m, field: dr.Field, re: re, visible: dr.visible}, nil
}

// A narrowDict lists the terms of a dictionary that re matches whole (if
// not nil) and that a document matching visible holds (if not nil).
// Cost: a match per term, then one multiterm.Held per term matched.
type narrowDict struct {
	index.FieldDict
	ctx     context.Context
	snap    *scorch.IndexSnapshot
	m       mapping.IndexMapping
	field   string
	re      *regexp.Regexp
	visible query.Query
	read    int
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
		if d.re != nil && !d.re.MatchString(e.Term) {
			continue
		}
		if d.visible != nil {
			held, err := multiterm.Held(d.ctx, d.snap, d.m, d.field, e.Term, d.visible)
			if err != nil {
				return nil, err
			}
			if !held {
				continue
			}
		}
		return e, nil
	}
}

// Kinds of dictRequest.
const (
	dictAll    = "all"
	dictPrefix = "prefix"
	dictRegexp = "regexp"
	dictFuzzy  = "fuzzy"
)

// snapshotDict answers dr from a snapshot's dictionary.
func snapshotDict(snap interface {
	index.IndexReader
	index.IndexReaderRegexp
	index.IndexReaderFuzzy
}, dr dictRequest) (index.FieldDict, error) {
	switch dr.Kind {
	case dictAll:
		return snap.FieldDict(dr.Field)
	case dictPrefix:
		return snap.FieldDictPrefix(dr.Field, []byte(dr.Text))
	case dictRegexp:
		return snap.FieldDictRegexp(dr.Field, dr.Text)
	case dictFuzzy:
		return snap.FieldDictFuzzy(dr.Field, dr.Text, dr.Fuzziness, dr.Prefix)
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

func (u *union) merged(dr dictRequest) (index.FieldDict, error) {
	dr.Match, dr.visible = u.match, u.visible
	dicts := make([]index.FieldDict, 0, len(u.parts))
	for _, p := range u.parts {
		d, err := p.dict(u.ctx, dr)
		if err != nil {
			for _, d := range dicts {
				d.Close()
			}
			return nil, err
		}
		dicts = append(dicts, d)
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
