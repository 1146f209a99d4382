package multiterm

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"
)

// Errors for errors.Is; the search returns them in an *Error.
var (
	// ErrTooManyTerms means the multi-term queries of a query tree match
	// more index terms than Options.MaxTerms.
	ErrTooManyTerms = errors.New("multiterm: too many terms")
	// ErrTermTooLong means a fuzzy term is longer than
	// Options.MaxFuzzyRunes.
	ErrTermTooLong = errors.New("multiterm: fuzzy term too long")
	// ErrTooComplex means a regular expression (or the one a wildcard
	// is read as) is longer than Options.MaxRegexBytes, repeats more
	// than Options.MaxRepeat times, or compiles to more than
	// Options.MaxRegexInsts instructions; it is refused before any
	// term is read.
	ErrTooComplex = errors.New("multiterm: regular expression too complex")
)

// An Error says which multi-term query a search refused.
type Error struct {
	Query string // the query as written: `wildcard "*e*"`, `regular expression /.*/`, `fuzzy term "a"~2`
	Field string // the field it was expanded in (empty for ErrTermTooLong)
	Limit int    // the terms that were left for it, or for ErrTermTooLong the longest term
	Err   error  // ErrTooManyTerms or ErrTermTooLong
}

// Error implements error.
func (e *Error) Error() string {
	switch {
	case errors.Is(e.Err, ErrTermTooLong):
		return fmt.Sprintf("multiterm: the %s has more than %d characters", e.Query, e.Limit)
	case errors.Is(e.Err, ErrTooComplex):
		return fmt.Sprintf("multiterm: the %s is too complex", e.Query)
	}
	return fmt.Sprintf("multiterm: the %s matches more than %d terms in %s", e.Query, e.Limit, e.Field)
}

// Unwrap returns e.Err.
func (e *Error) Unwrap() error { return e.Err }

// Options configures Bound. The zero value means the defaults.
type Options struct {
	// MaxTerms is how many index terms the multi-term queries of one query
	// tree may expand to, in all. Default 1024 (Lucene's maximum clause
	// count).
	MaxTerms int
	// MaxFuzzyRunes is the longest term a fuzzy query may have: its
	// Levenshtein automaton grows with the term. Default 64.
	MaxFuzzyRunes int
	// MaxRegexBytes is the longest regular expression (or wildcard, as
	// the expression it is read as) a query may have. Default 1000
	// (Elasticsearch's index.max_regex_length).
	MaxRegexBytes int
	// MaxRepeat is the largest count of a repetition ({n}, {n,m}) a
	// regular expression may have. Default 100.
	MaxRepeat int
	// MaxRegexInsts is how many instructions of Go's regexp/syntax a
	// regular expression may compile to once simplified (x{0,100} is 100
	// copies of x): matching a term costs at most this times the term's
	// length. Default 300. Regular expressions are matched with Go's
	// regexp (RE2: time linear in the term, no backtracking, no
	// determinized automaton to build), never with bleve's automaton,
	// which builds up to 10,000 states of 256 transitions each before the
	// first term is read and cannot be stopped: "/.{0,30}y.{0,30}/" took
	// 1.5 s there before failing, "/.{0,1000}y.{0,1000}/" over 30 s.
	MaxRegexInsts int
	// Visible, if not nil, is the documents whose terms count: a
	// dictionary term that no document matching Visible holds is not
	// expanded to (as if the index did not hold it) and does not count
	// against MaxTerms, so that neither the answer nor the error depends
	// on documents outside it (a user's access filter, see package
	// ranking). Each term of the dictionary walk costs one conjunction
	// of its posting list with Visible, stopped at the first document.
	// Expand filters too: through the reader's Filtered if it is a
	// [FilteringReader] (a sharded index, each shard filtering its own
	// terms), else term by term as a search does.
	Visible query.Query
	// VisibleKey names Visible: queries with equal keys must have equal
	// Visible queries (package ranking: the user's groups). With
	// Dictionaries, it picks the dictionary of visible terms to expand
	// over.
	VisibleKey string
	// Dictionaries, if not nil (and Visible is), keeps the terms visible
	// documents hold for each snapshot, VisibleKey and field; a query
	// expands over them instead of walking the index's dictionary and
	// testing each term, so that its cost does not grow with the terms
	// only hidden documents hold (see [Dictionaries]).
	Dictionaries *Dictionaries
	// Holds, if not nil, reports whether a document matching Visible
	// holds term in field: what a search of the term and Visible says
	// (Held), answered another way — from counts of the posting lists
	// without the documents outside Visible, say (see package ranking),
	// which costs no searcher per term walked. Used with Visible, in
	// place of searching it term by term.
	Holds func(field, term string) (bool, error)
}

// EnsureDefaults sets every zero field to its default (each field's doc
// says which) and returns o.
func (o *Options) EnsureDefaults() *Options {
	if o.MaxTerms <= 0 {
		o.MaxTerms = 1024
	}
	if o.MaxFuzzyRunes <= 0 {
		o.MaxFuzzyRunes = 64
	}
	if o.MaxRegexBytes <= 0 {
		o.MaxRegexBytes = 1000
	}
	if o.MaxRepeat <= 0 {
		o.MaxRepeat = 100
	}
	if o.MaxRegexInsts <= 0 {
		o.MaxRegexInsts = 300
	}
	return o
}

// checkEvery is how many dictionary terms are read between two checks of
// the search's context.
const checkEvery = 64

// Bound returns q with every multi-term query in it replaced by a bounded
// one, the replacements sharing one budget of opts.MaxTerms terms, and how
// many it replaced. It changes q's compound queries in place (their
// unexported state cannot be copied): give it a query built for this
// search. A bounded query is safe for concurrent use; its budget is spent
// once, by the first search that expands it.
func Bound(q query.Query, opts Options) (query.Query, int) {
	opts.EnsureDefaults()
	b := &budget{left: opts.MaxTerms, max: opts.MaxTerms, opts: opts}
	n := 0
	return b.bound(q, &n), n
}

// budget is the terms the bounded queries of one tree may still expand to.
type budget struct {
	mu   sync.Mutex
	left int
	max  int
	opts Options // defaults applied
}

// take spends n terms; it reports false if fewer are left.
func (b *budget) take(n int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n > b.left {
		return false
	}
	b.left -= n
	return true
}

func (b *budget) remaining() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.left
}

func (b *budget) bound(q query.Query, n *int) query.Query {
	leaf := func(k kind, text, field string, boost *query.Boost, what string) query.Query {
		*n++
		return &bounded{kind: k, text: text, field: field, boost: boost, what: what, budget: b}
	}
	return Rewrite(q, func(q query.Query) query.Query { return b.boundLeaf(q, leaf, n) })
}

// Rewrite replaces, in place, each query of the tree q that combines no
// others (all but boolean, conjunction and disjunction queries) with
// leaf's answer for it, and returns the tree (q itself, unless q is such
// a query).
func Rewrite(q query.Query, leaf func(query.Query) query.Query) query.Query {
	switch q := q.(type) {
	case *query.BooleanQuery:
		for _, c := range []*query.Query{&q.Must, &q.Should, &q.MustNot, &q.Filter} {
			if *c != nil {
				*c = Rewrite(*c, leaf)
			}
		}
		return q
	case *query.ConjunctionQuery:
		for i := range q.Conjuncts {
			q.Conjuncts[i] = Rewrite(q.Conjuncts[i], leaf)
		}
		return q
	case *query.DisjunctionQuery:
		for i := range q.Disjuncts {
			q.Disjuncts[i] = Rewrite(q.Disjuncts[i], leaf)
		}
		return q
	}
	return leaf(q)
}

// boundLeaf returns a leaf query with its expansion bounded.
func (b *budget) boundLeaf(q query.Query, leaf func(k kind, text, field string, boost *query.Boost, what string) query.Query, n *int) query.Query {
	switch q := q.(type) {
	case *query.WildcardQuery:
		return leaf(regexpKind, wildcardToRegexp.Replace(q.Wildcard), q.FieldVal, q.BoostVal, fmt.Sprintf("wildcard %q", q.Wildcard))
	case *query.RegexpQuery:
		// As bleve does: the pattern matches whole terms; a leading ^ is
		// dropped.
		return leaf(regexpKind, strings.TrimPrefix(q.Regexp, "^"), q.FieldVal, q.BoostVal, fmt.Sprintf("regular expression /%s/", q.Regexp))
	case *query.PrefixQuery:
		return leaf(prefixKind, q.Prefix, q.FieldVal, q.BoostVal, fmt.Sprintf("prefix %q", q.Prefix))
	case *query.FuzzyQuery:
		if q.Fuzziness == 0 {
			return q // a term query (or bleve's "auto" fuzziness, which Bound cannot see: not from the query string)
		}
		*n++
		return &bounded{kind: fuzzyKind, text: q.Term, fuzziness: q.Fuzziness, prefix: q.Prefix, field: q.FieldVal,
			boost: q.BoostVal, what: fmt.Sprintf("fuzzy term %q~%d", q.Term, q.Fuzziness), budget: b}
	case *query.MatchQuery:
		if q.Fuzziness == 0 {
			return q
		}
		*n++
		return &fuzzyMatch{MatchQuery: *q, budget: b}
	}
	return q
}

// wildcardToRegexp is bleve's translation of a wildcard into a regular
// expression (search/query/wildcard.go).
var wildcardToRegexp = strings.NewReplacer(
	"+", `\+`, "(", `\(`, ")", `\)`, "^", `\^`, "$", `\$`, ".", `\.`, "{", `\{`, "}", `\}`,
	"[", `\[`, "]", `\]`, `|`, `\|`, `\`, `\\`,
	"*", ".*", "?", ".")

type kind int8

const (
	regexpKind kind = iota
	prefixKind
	fuzzyKind
)

// bounded is a multi-term query expanded within a budget.
type bounded struct {
	kind      kind
	text      string // regular expression, prefix or fuzzy term
	fuzziness int
	prefix    int // fuzzy: leading runes that must match exactly
	field     string
	boost     *query.Boost
	what      string // for errors, as the user wrote it
	budget    *budget

	mu       sync.Mutex
	expanded bool
	terms    []string
	dists    []uint8 // fuzzy: edit distance of each term
}

// Searcher implements query.Query.
func (q *bounded) Searcher(ctx context.Context, i index.IndexReader, m mapping.IndexMapping, options search.SearcherOptions) (search.Searcher, error) {
	field := q.field
	if field == "" {
		field = m.DefaultSearchField()
	}
	terms, dists, err := q.expand(ctx, i, m, field)
	if err != nil {
		return nil, err
	}
	// The searchers bleve's own queries would build: a match-none
	// searcher would differ, as a query string's boolean query drops
	// clauses that match nothing by construction.
	switch {
	case q.kind != regexpKind && (len(terms) == 0 || len(terms) == 1 && terms[0] == q.text):
		return searcher.NewTermSearcher(ctx, i, q.text, field, q.boost.Value(), options)
	case q.kind == fuzzyKind:
		return searcher.NewMultiTermSearcherBoosted(ctx, i, terms, field, q.boost.Value(), dists, options, false)
	}
	return searcher.NewMultiTermSearcher(ctx, i, terms, field, q.boost.Value(), options, false)
}

// Expand returns q as bleve's own queries write it once expanded in r:
// its terms enumerated in r's dictionary (spending the budget as a
// search would, and remembered, so that a later search uses them too),
// as the term query or the disjunction of term queries its searcher is
// made of (a fuzzy term's boosted by its edit distance, as bleve does).
// A sharded index (package indexer/shard) expands with the terms of
// every shard, so that each shard searches the same terms and scores as
// one index would, and a shard in another process can be sent the
// result. With Options.Visible, only terms a visible document holds
// are taken, as a search takes them. One difference: a regular
// expression matching no term
// becomes a match-none query, which a query string's boolean query drops
// where q's empty disjunction stays.
func (q *bounded) Expand(ctx context.Context, r index.IndexReader, m mapping.IndexMapping) (query.Query, error) {
	field := q.field
	if field == "" {
		field = m.DefaultSearchField()
	}
	held := m // filter term by term
	if f, ok := r.(FilteringReader); ok && q.budget.opts.Visible != nil {
		match := ""
		if q.kind == regexpKind {
			match = q.text
		}
		r, held = f.Filtered(match, q.budget.opts.Visible), nil
	}
	terms, dists, err := q.expand(ctx, r, held, field)
	if err != nil {
		return nil, err
	}
	term := func(t string, boost *query.Boost) query.Query {
		tq := query.NewTermQuery(t)
		tq.SetField(field)
		tq.BoostVal = boost
		return tq
	}
	switch {
	case q.kind != regexpKind && (len(terms) == 0 || len(terms) == 1 && terms[0] == q.text):
		return term(q.text, q.boost), nil
	case len(terms) == 0:
		return query.NewMatchNoneQuery(), nil
	}
	ds := make([]query.Query, len(terms))
	for i, t := range terms {
		b := q.boost
		if q.kind == fuzzyKind { // as searcher.NewMultiTermSearcherBoosted
			v := query.Boost(q.boost.Value() * (1 / float64(dists[i]+1)))
			b = &v
		}
		ds[i] = term(t, b)
	}
	return query.NewDisjunctionQuery(ds), nil
}

// Validate implements query.ValidatableQuery.
func (q *bounded) Validate() error {
	switch {
	case q.kind == fuzzyKind && (q.fuzziness < 0 || q.fuzziness > searcher.MaxFuzziness):
		return fmt.Errorf("multiterm: %s: fuzziness must be 1 or %d", q.what, searcher.MaxFuzziness)
	case q.kind == fuzzyKind && utf8.RuneCountInString(q.text) > q.budget.opts.MaxFuzzyRunes:
		return &Error{Query: q.what, Limit: q.budget.opts.MaxFuzzyRunes, Err: ErrTermTooLong}
	case q.kind == regexpKind:
		if _, err := compileRegexp(q.text, q.budget.opts); err != nil {
			if errors.Is(err, ErrTooComplex) {
				return &Error{Query: q.what, Err: ErrTooComplex}
			}
			return fmt.Errorf("multiterm: %s: %w", q.what, err)
		}
	}
	return nil
}

// compileRegexp returns pattern compiled to match whole terms, or an
// error wrapping ErrTooComplex if it exceeds o's bounds (checked in
// that order, each before the costlier next step: its length, then its
// repetitions once parsed, then its program once simplified). Cost:
// O(len(pattern)) to parse, O(MaxRegexInsts) to compile.
func compileRegexp(pattern string, o Options) (*regexp.Regexp, error) {
	if len(pattern) > o.MaxRegexBytes {
		return nil, fmt.Errorf("%w: longer than %d bytes", ErrTooComplex, o.MaxRegexBytes)
	}
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		var se *syntax.Error
		if errors.As(err, &se) && (se.Code == syntax.ErrInvalidRepeatSize || se.Code == syntax.ErrLarge || se.Code == syntax.ErrNestingDepth) {
			return nil, fmt.Errorf("%w: %v", ErrTooComplex, err)
		}
		return nil, err
	}
	if n := maxRepeat(re); n > o.MaxRepeat {
		return nil, fmt.Errorf("%w: a repetition of %d, at most %d", ErrTooComplex, n, o.MaxRepeat)
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil, err
	}
	if len(prog.Inst) > o.MaxRegexInsts {
		return nil, fmt.Errorf("%w: %d instructions, at most %d", ErrTooComplex, len(prog.Inst), o.MaxRegexInsts)
	}
	return regexp.Compile(`^(?:` + pattern + `)$`)
}

// maxRepeat returns the largest count of a repetition in re.
func maxRepeat(re *syntax.Regexp) int {
	n := 0
	if re.Op == syntax.OpRepeat {
		n = max(re.Min, re.Max)
	}
	for _, s := range re.Sub {
		n = max(n, maxRepeat(s))
	}
	return n
}

// A FilteringReader is a reader that narrows its own term dictionaries
// where they are kept: a sharded index's union of its shards'
// dictionaries (package indexer/shard), where each shard lists only
// the terms its visible documents hold, so that what a user may not see
// is never sent, merged or counted. Expand uses Filtered in place of
// checking each term.
type FilteringReader interface {
	index.IndexReader
	// Filtered returns the reader with dictionaries that list only the
	// terms that match matches whole (a regular expression of Go's
	// syntax, already within Options' bounds; "" for every term) and
	// that a document matching visible holds (see [Held]).
	Filtered(match string, visible query.Query) index.IndexReader
}

// expand returns the query's terms in field, enumerating them on the first
// call; m is the mapping to search Options.Visible with, nil not to
// filter (the reader has: see FilteringReader).
func (q *bounded) expand(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, field string) ([]string, []uint8, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.expanded {
		return q.terms, q.dists, nil
	}
	if err := q.Validate(); err != nil {
		return nil, nil, err
	}
	r, m, err := q.visibleReader(ctx, r, m, field)
	if err != nil {
		return nil, nil, err
	}
	limit := q.budget.remaining()
	var terms []string
	var dists []uint8
	walked := 0
	visible := q.holds(ctx, r, m, field)
	add := func(term string, dist uint8) error {
		if walked++; walked%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if visible != nil {
			if held, err := visible(term); err != nil || !held {
				return err
			}
		}
		if len(terms) >= limit {
			return &Error{Query: q.what, Field: field, Limit: limit, Err: ErrTooManyTerms}
		}
		terms = append(terms, term)
		dists = append(dists, dist)
		return nil
	}
	switch q.kind {
	case regexpKind:
		err = expandRegexp(ctx, r, field, q.text, q.budget.opts, m != nil, add)
	case prefixKind:
		err = walk(dict(r, field, q.text))(ctx, add)
	case fuzzyKind:
		err = expandFuzzy(ctx, r, field, q.text, q.fuzziness, q.prefix, add)
	}
	if err != nil {
		return nil, nil, err
	}
	if !q.budget.take(len(terms)) { // another query of the tree took them meanwhile
		return nil, nil, &Error{Query: q.what, Field: field, Limit: q.budget.remaining(), Err: ErrTooManyTerms}
	}
	q.expanded, q.terms, q.dists = true, terms, dists
	return terms, dists, nil
}

// visibleReader returns r, or, with Options.Dictionaries, a reader whose
// dictionary of field lists only the terms visible documents hold (and a
// nil mapping: nothing is left to filter).
func (q *bounded) visibleReader(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, field string) (index.IndexReader, mapping.IndexMapping, error) {
	o := q.budget.opts
	if m == nil || o.Visible == nil || o.Dictionaries == nil {
		return r, m, nil
	}
	vr, err := o.Dictionaries.Reader(ctx, r, m, field, o.VisibleKey, o.Visible)
	if err != nil || vr == nil {
		return r, m, err
	}
	return vr, nil, nil
}

// holds returns what tells whether a visible document holds a term of
// field — Options.Holds, else a search (Held) — or nil if every term r
// lists is to be taken (no Options.Visible, or r filters: m is nil).
func (q *bounded) holds(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, field string) func(term string) (bool, error) {
	o := q.budget.opts
	switch {
	case m == nil || o.Visible == nil:
		return nil
	case o.Holds != nil:
		return func(term string) (bool, error) { return o.Holds(field, term) }
	}
	return func(term string) (bool, error) { return Held(ctx, r, m, field, term, o.Visible) }
}

// Held reports whether a document matching visible holds term in
// field of r. Cost: a conjunction of the term's posting list with
// visible, stopped at the first match.
func Held(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, field, term string, visible query.Query) (bool, error) {
	t := query.NewTermQuery(term)
	t.SetField(field)
	s, err := query.NewConjunctionQuery([]query.Query{t, visible}).Searcher(ctx, r, m, search.SearcherOptions{Score: "none"})
	if err != nil {
		return false, err
	}
	defer s.Close()
	sctx := &search.SearchContext{DocumentMatchPool: search.NewDocumentMatchPool(s.DocumentMatchPoolSize(), 0)}
	dm, err := s.Next(sctx)
	return dm != nil, err
}

// walk returns a function that calls add with every term of a dictionary
// (with its edit distance, for fuzzy dictionaries) and closes it,
// checking ctx every checkEvery terms read.
func walk(d index.FieldDict, err error) func(ctx context.Context, add func(string, uint8) error) error {
	return func(ctx context.Context, add func(string, uint8) error) error {
		if err != nil {
			return err
		}
		defer d.Close()
		for n := 1; ; n++ {
			if n%checkEvery == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			e, err := d.Next()
			if err != nil || e == nil {
				return err
			}
			if err := add(e.Term, e.EditDistance); err != nil {
				return err
			}
		}
	}
}

// dict returns the terms of field that start with prefix. (An index
// without automatons lists none for an empty prefix: hence FieldDict.)
func dict(r index.IndexReader, field, prefix string) (index.FieldDict, error) {
	if prefix == "" {
		return r.FieldDict(field)
	}
	return r.FieldDictPrefix(field, []byte(prefix))
}

// expandRegexp calls add with the terms of field that pattern matches
// whole, walking the dictionary from the pattern's literal prefix and
// matching each term with Go's regexp (see Options.MaxRegexInsts for
// why not the index's automaton). A pattern that is a literal is added
// as it is if literal, else looked up in the dictionary (a filtered
// one lists it only if a visible document holds it).
func expandRegexp(ctx context.Context, r index.IndexReader, field, pattern string, o Options, literal bool, add func(string, uint8) error) error {
	re, err := compileRegexp(pattern, o)
	if err != nil {
		return err
	}
	prefix, complete := re.LiteralPrefix()
	if complete && literal {
		return add(prefix, 0)
	}
	return walk(dict(r, field, prefix))(ctx, func(t string, _ uint8) error {
		if re.MatchString(t) {
			return add(t, 0)
		}
		return nil
	})
}

// expandFuzzy calls add with the terms of field within fuzziness edits of
// term that share its first prefix runes.
func expandFuzzy(ctx context.Context, r index.IndexReader, field, term string, fuzziness, prefix int, add func(string, uint8) error) error {
	pre := term
	if n := prefix; n < utf8.RuneCountInString(term) {
		pre = string([]rune(term)[:max(n, 0)])
	}
	if ir, ok := r.(index.IndexReaderFuzzy); ok {
		return walk(ir.FieldDictFuzzy(field, term, fuzziness, pre))(ctx, add)
	}
	return walk(dict(r, field, pre))(ctx, func(t string, _ uint8) error {
		if d, exceeded := search.LevenshteinDistanceMax(term, t, fuzziness); !exceeded && d <= fuzziness {
			return add(t, uint8(d))
		}
		return nil
	})
}

// fuzzyMatch is a match query with a fuzziness: its words, analyzed as
// bleve's MatchQuery does, are bounded fuzzy queries.
type fuzzyMatch struct {
	query.MatchQuery
	budget *budget

	mu    sync.Mutex
	words []query.Query // built on the first search
}

// Searcher implements query.Query.
func (q *fuzzyMatch) Searcher(ctx context.Context, i index.IndexReader, m mapping.IndexMapping, options search.SearcherOptions) (search.Searcher, error) {
	field := q.FieldVal
	if field == "" {
		field = m.DefaultSearchField()
	}
	words, err := q.build(m, field)
	if err != nil {
		return nil, err
	}
	if len(words) == 0 {
		return searcher.NewMatchNoneSearcher(i)
	}
	if q.Operator == query.MatchQueryOperatorAnd {
		c := query.NewConjunctionQuery(words)
		c.SetBoost(q.BoostVal.Value())
		return c.Searcher(ctx, i, m, options)
	}
	d := query.NewDisjunctionQuery(words)
	d.SetMin(1)
	d.SetBoost(q.BoostVal.Value())
	return d.Searcher(ctx, i, m, options)
}

// Expand returns q with its words expanded in r, as bleve's own
// queries (see bounded.Expand).
func (q *fuzzyMatch) Expand(ctx context.Context, r index.IndexReader, m mapping.IndexMapping) (query.Query, error) {
	field := q.FieldVal
	if field == "" {
		field = m.DefaultSearchField()
	}
	words, err := q.build(m, field)
	if err != nil {
		return nil, err
	}
	if len(words) == 0 {
		return query.NewMatchNoneQuery(), nil
	}
	out := make([]query.Query, len(words))
	for i, w := range words {
		if out[i], err = w.(*bounded).Expand(ctx, r, m); err != nil {
			return nil, err
		}
	}
	if q.Operator == query.MatchQueryOperatorAnd {
		c := query.NewConjunctionQuery(out)
		c.SetBoost(q.BoostVal.Value())
		return c, nil
	}
	d := query.NewDisjunctionQuery(out)
	d.SetMin(1)
	d.SetBoost(q.BoostVal.Value())
	return d, nil
}

func (q *fuzzyMatch) build(m mapping.IndexMapping, field string) ([]query.Query, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.words != nil {
		return q.words, nil
	}
	name := q.Analyzer
	if name == "" {
		name = m.AnalyzerNameForPath(field)
	}
	an := m.AnalyzerNamed(name)
	if an == nil {
		return nil, fmt.Errorf("multiterm: no analyzer named %q", name)
	}
	words := []query.Query{}
	for _, tok := range an.Analyze([]byte(q.Match)) {
		w := &bounded{kind: fuzzyKind, text: string(tok.Term), fuzziness: q.Fuzziness, prefix: q.Prefix, field: field,
			boost: q.BoostVal, what: fmt.Sprintf("fuzzy term %q~%d", tok.Term, q.Fuzziness), budget: q.budget}
		if err := w.Validate(); err != nil {
			return nil, err
		}
		words = append(words, w)
	}
	q.words = words
	return words, nil
}

// Validate implements query.ValidatableQuery.
func (q *fuzzyMatch) Validate() error {
	if q.Fuzziness < 0 || q.Fuzziness > searcher.MaxFuzziness {
		return fmt.Errorf("multiterm: fuzzy %q~%d: fuzziness must be 1 or %d", q.Match, q.Fuzziness, searcher.MaxFuzziness)
	}
	return nil
}
