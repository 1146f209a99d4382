package userquery

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
)

// Query parses s and returns the bleve query; see Parse and Build.
func (p *Parser) Query(s string) query.Query {
	return p.Build(p.Parse(s))
}

// Build returns the bleve query of q. Every plain word (a Should clause
// without field or quotes) must be in some text field; matches are scored
// in each text field by the sum of their terms' scores times the share
// of the query's distinct words the field holds, weighted by the field's
// boost, plus the words as a phrase in each field (weighted by
// PhraseBoost). Must and MustNot clauses are required and excluded; a
// Should clause other than plain words (only in hand-built queries) adds
// to the score. Clauses whose text analyzes to no term (stop words) are
// ignored; with none left, or only exclusions, the query matches every
// document but the excluded ones. When it matches nothing, run
// [Parser.Relaxed].
func (p *Parser) Build(q Parsed) query.Query {
	return p.build(q, true, nil, nil)
}

// Relaxed returns q's query with some plain words optional: scored as by
// Build, but a document needs only most of them — MinShould of n
// distinct words, about two thirds and always fewer than all (1 of 2, 2
// of 3, 3 of 4, 5 of 7) — the "minimum should match" of Lucene's
// relaxed queries. common, if not nil, reports the terms found in so many
// documents that they say little (Lucene's cutoff frequency, the "common
// terms" of Elasticsearch): they only score, and the words a document
// needs are counted among the others, which keeps out the many documents
// that hold only a title's common words ("Java SE 17 & JDK 17"); when
// every word is common, all count. A word is judged by all its terms
// together (the terms each language's analyzer makes of it: "core" and
// the French stem "cor" are one word, as common as both together), so
// a rare stem of a common word does not make the word rare. It is nil
// when it would match what Build's query matches (fewer than two
// distinct plain words).
func (p *Parser) Relaxed(q Parsed, common func(terms []string) bool) query.Query {
	n := 0
	for _, f := range p.text {
		n = max(n, len(distinctWords(p.plainWordsIn(f.Name, plainText(q)))))
	}
	if n < 2 {
		return nil
	}
	return p.build(q, false, common, nil)
}

func plainText(q Parsed) string {
	var words []string
	for _, c := range q.Clauses {
		if c.Occur == Should && c.Field == "" && !c.Phrase {
			words = append(words, c.Text)
		}
	}
	return strings.Join(words, " ")
}

// build makes q's query; the documents must hold the plain words in a
// text field of within, if set, else of p.
func (p *Parser) build(q Parsed, strict bool, common func([]string) bool, within *Parser) query.Query {
	var must, should, not []query.Query
	for _, c := range q.Clauses {
		if c.Occur == Should && c.Field == "" && !c.Phrase {
			continue // plainText
		}
		cq := p.clause(c)
		if cq == nil {
			continue
		}
		switch c.Occur {
		case Must:
			must = append(must, cq)
		case MustNot:
			not = append(not, cq)
		default:
			should = append(should, cq)
		}
	}
	if text := plainText(q); text != "" {
		ws := p.words(text)
		should = append(should, ws...)
		if nq := p.name(text); nq != nil && len(ws) > 0 {
			should = append(should, nq)
		}
		if len(ws) > 0 {
			if within != nil {
				must = append(must, Filter(within.termsIn(text, strict, common)))
			} else {
				must = append(must, Filter(p.termsIn(text, strict, common)))
			}
		}
	}
	if len(must) == 0 && len(should) == 0 {
		if len(not) == 0 {
			return query.NewMatchAllQuery()
		}
		must = []query.Query{query.NewMatchAllQuery()}
	}
	if len(must) == 1 && len(should) == 0 && len(not) == 0 {
		return must[0]
	}
	return query.NewBooleanQuery(must, should, not)
}

// A word is one position of a query's text as a field's analyzers make
// it: its terms — the mapping's analyzer's, then each further analyzer's
// (Languages) that the index holds, each once — and whether it is
// required: every analyzer kept it (it is no stop word of any language
// analyzed; with one analyzer, every word it keeps). A position no
// analyzer kept has no terms (a gap in a phrase).
type word struct {
	terms    []string
	required bool
}

func (w word) key() string { return strings.Join(w.terms, "\x00") }

// wordsIn returns the words of text in field by position, from the first
// position an analyzer kept to the last.
func (p *Parser) wordsIn(field, text string) []word {
	as := []analysis.Analyzer{p.an[field]}
	for _, name := range p.lang.Analyzers {
		if a := p.analyzer(name); a != nil && !slices.Contains(as, a) {
			as = append(as, a)
		}
	}
	type slot struct {
		terms []string
		kept  int // analyzers keeping the position
	}
	slots := map[int]*slot{}
	first, last := 0, -1
	for i, a := range as {
		seen := map[int]bool{}
		for _, t := range a.Analyze([]byte(text)) {
			s := slots[t.Position]
			if s == nil {
				s = &slot{}
				slots[t.Position] = s
				if last < first {
					first, last = t.Position, t.Position
				}
				first, last = min(first, t.Position), max(last, t.Position)
			}
			if !seen[t.Position] {
				seen[t.Position] = true
				s.kept++
			}
			term := string(t.Term)
			if i > 0 && p.lang.Holds != nil && !p.lang.Holds(term) {
				continue
			}
			if !slices.Contains(s.terms, term) {
				s.terms = append(s.terms, term)
			}
		}
	}
	if last < first {
		return nil
	}
	out := make([]word, last-first+1)
	for pos, s := range slots {
		out[pos-first] = word{terms: s.terms, required: s.kept == len(as) && len(s.terms) > 0}
	}
	return out
}

// distinctWords returns the words of ws that have terms, each once (by
// its terms), in order; a word is required if it is at any position.
func distinctWords(ws []word) []word {
	var out []word
	at := map[string]int{}
	for _, w := range ws {
		if len(w.terms) == 0 {
			continue
		}
		if i, ok := at[w.key()]; ok {
			out[i].required = out[i].required || w.required
			continue
		}
		at[w.key()] = len(out)
		out = append(out, w)
	}
	return out
}

// analyzer returns the mapping's analyzer named name, nil if it has none.
func (p *Parser) analyzer(name string) analysis.Analyzer {
	if a, ok := p.named.Load(name); ok {
		an, _ := a.(analysis.Analyzer)
		return an
	}
	a := p.opts.Mapping.AnalyzerNamed(name)
	p.named.Store(name, a)
	return a
}

// plainWordsIn returns the words of text, a query's plain words, in
// field, as wordsIn does, less those a reduced parser leaves out (see
// Reduce): those become gaps, with no terms.
func (p *Parser) plainWordsIn(field, text string) []word {
	ws := p.wordsIn(field, text)
	if p.keep == nil {
		return ws
	}
	for i, w := range ws {
		if !slices.ContainsFunc(w.terms, func(t string) bool { return p.keep[t] }) {
			ws[i] = word{}
		}
	}
	return ws
}

// everyTerm returns a query for the documents that hold every required
// word of text (plain: a query's plain words, see plainWordsIn) in some
// text field (any of the word's terms, each in a field whose analyzers
// made it) — any word if none is required — nil if text has no term; the
// term queries carry the fields' boosts times boost.
func (p *Parser) everyTerm(text string, plain bool, boost float64) query.Query {
	return p.terms(text, plain, boost, func(_ []word, all []query.Query) query.Query { return conjunction(all) })
}

// termsIn returns, with a boost of 0 (the words query scores), the
// documents holding every required word of text (strict) or MinShould of
// its uncommon ones (all of them if every one is common; common judges a
// word by all its terms).
func (p *Parser) termsIn(text string, strict bool, common func([]string) bool) query.Query {
	if strict {
		return p.everyTerm(text, true, 0)
	}
	return p.terms(text, true, 0, func(ws []word, all []query.Query) query.Query {
		var rare []query.Query
		for i, w := range ws {
			if common == nil || !common(w.terms) {
				rare = append(rare, all[i])
			}
		}
		if len(rare) == 0 {
			rare = all
		}
		if len(rare) < 2 {
			return conjunction(rare)
		}
		d := query.NewDisjunctionQuery(rare)
		d.SetMin(float64(MinShould(len(rare))))
		return d
	})
}

// MinShould is how many of n distinct plain words a document needs under
// Relaxed: about two thirds, at least one, fewer than all.
func MinShould(n int) int {
	return max(1, min(n-1, (2*n+2)/3))
}

// terms applies combine to the required distinct words of text (plain:
// a query's plain words, see plainWordsIn) and one
// query per word (any of its terms in any text field whose analyzers
// made the same words), per group of such fields, and returns the
// disjunction over groups; nil if text has no term. When no word is
// required (each is a stop word of some language analyzed), a document
// needs one of them. Text fields analyzed alike (all of them, usually)
// make one group.
func (p *Parser) terms(text string, plain bool, boost float64, combine func([]word, []query.Query) query.Query) query.Query {
	wordsIn := p.wordsIn
	if plain {
		wordsIn = p.plainWordsIn
	}
	type group struct {
		words  []word
		fields []Field
	}
	var groups []*group
	byWords := map[string]*group{}
	for _, f := range p.text {
		ws := distinctWords(wordsIn(f.Name, text))
		var k strings.Builder
		for _, w := range ws {
			fmt.Fprintf(&k, "%s\x01%v\x02", w.key(), w.required)
		}
		g := byWords[k.String()]
		if g == nil {
			g = &group{words: ws}
			byWords[k.String()] = g
			groups = append(groups, g)
		}
		g.fields = append(g.fields, f)
	}
	var out []query.Query
	for _, g := range groups {
		var req []word
		for _, w := range g.words {
			if w.required {
				req = append(req, w)
			}
		}
		any := len(req) == 0
		if any {
			req = g.words
		}
		// A filter (boost 0) over every text field reads the composite
		// field: the same documents.
		composite := boost == 0 && p.opts.AllField != "" && len(g.fields) == len(p.text)
		var all []query.Query
		for _, w := range req {
			var alts []query.Query
			for _, t := range w.terms {
				if composite {
					alts = append(alts, term(t, p.opts.AllField, 0))
					continue
				}
				for _, f := range g.fields {
					alts = append(alts, term(t, f.Name, f.Boost*boost))
				}
			}
			all = append(all, disjunction(alts))
		}
		if any {
			if len(all) > 0 {
				out = append(out, disjunction(all))
			}
		} else if cq := combine(req, all); cq != nil {
			out = append(out, cq)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return disjunction(out)
}

// words returns the scoring queries for plain words: per text field, a
// disjunction of the words' terms (bleve multiplies its score by the
// share of terms matched), and for two words or more, the phrase.
func (p *Parser) words(text string) []query.Query {
	var out []query.Query
	for _, f := range p.text {
		ws := p.plainWordsIn(f.Name, text)
		dw := distinctWords(ws)
		if len(dw) == 0 {
			continue
		}
		var tqs []query.Query
		seen := map[string]bool{}
		for _, w := range dw {
			for _, t := range w.terms {
				if !seen[t] {
					seen[t] = true
					tqs = append(tqs, term(t, f.Name, f.Boost))
				}
			}
		}
		out = append(out, disjunction(tqs))
		if len(dw) > 1 {
			if ph := phrase(ws, f.Name, f.Boost*p.opts.PhraseBoost); ph != nil {
				out = append(out, ph)
			}
		}
	}
	return out
}

// Phrase returns the query for the documents holding q's plain words as
// the phrase Build scores (Options.PhraseBoost): in the order typed, in
// one text field; nil if q has fewer than two distinct plain words. It
// says which documents hold a pasted line as written.
func (p *Parser) Phrase(q Parsed) query.Query {
	text := plainText(q)
	if text == "" {
		return nil
	}
	var alts []query.Query
	for _, f := range p.text {
		ws := p.plainWordsIn(f.Name, text)
		if len(distinctWords(ws)) < 2 {
			continue
		}
		if ph := phrase(ws, f.Name, 1); ph != nil {
			alts = append(alts, ph)
		}
	}
	if len(alts) == 0 {
		return nil
	}
	return disjunction(alts)
}

// name returns the query for the documents named text (Options.NameField),
// nil if the parser has no name field or text no key.
func (p *Parser) name(text string) query.Query {
	if p.opts.NameField == "" || p.opts.NameKey == nil {
		return nil
	}
	k := p.opts.NameKey(text)
	if k == "" {
		return nil
	}
	return term(k, p.opts.NameField, p.opts.NameBoost)
}

// clause returns the query of a clause other than plain words, or nil if
// its text has no term.
func (p *Parser) clause(c Clause) query.Query {
	if c.Field == "" {
		// Every word in some text field, or the phrase in one.
		var alts []query.Query
		if c.Phrase {
			for _, f := range p.text {
				if ph := phrase(p.wordsIn(f.Name, c.Text), f.Name, f.Boost); ph != nil {
					alts = append(alts, ph)
				}
			}
			if len(alts) == 0 {
				return nil
			}
			return disjunction(alts)
		}
		return p.everyTerm(c.Text, false, 1)
	}
	f := p.fields[c.Field]
	if f == nil {
		return nil
	}
	boost := max(f.Boost, 1)
	switch f.Kind {
	case Exact:
		return term(c.Text, f.Name, boost)
	case Prefix:
		pq := query.NewPrefixQuery(c.Text)
		pq.SetField(f.Name)
		pq.SetBoost(boost)
		return pq
	case Domain:
		v := strings.ToLower(c.Text)
		rq := query.NewRegexpQuery(`(.*\.)?` + regexp.QuoteMeta(v))
		rq.SetField(f.Name)
		rq.SetBoost(boost)
		return rq
	}
	ws := p.wordsIn(f.Name, c.Text)
	if c.Phrase {
		return phrase(ws, f.Name, boost)
	}
	var req, opt []query.Query
	for _, w := range distinctWords(ws) {
		var alts []query.Query
		for _, t := range w.terms {
			alts = append(alts, term(t, f.Name, boost))
		}
		if w.required {
			req = append(req, disjunction(alts))
		} else {
			opt = append(opt, disjunction(alts))
		}
	}
	if len(req) == 0 && len(opt) > 0 {
		return disjunction(opt)
	}
	return conjunction(req)
}

// phrase returns the phrase of ws in field: each required word by any of
// its terms, in order, any term where a word is not required or was
// removed; nil if no word is required.
func phrase(ws []word, field string, boost float64) query.Query {
	slots := make([][]string, len(ws))
	lo, hi := -1, -1
	for i, w := range ws {
		if w.required {
			slots[i] = w.terms
			if lo < 0 {
				lo = i
			}
			hi = i
		}
	}
	if lo < 0 {
		return nil
	}
	return &phraseQuery{terms: slots[lo : hi+1], field: field, boost: boost}
}

func term(t, field string, boost float64) query.Query {
	tq := query.NewTermQuery(t)
	tq.SetField(field)
	tq.SetBoost(boost)
	return tq
}

// disjunction returns qs or'ed. (bleve ignores the boost of compound
// queries: boosts go on the leaves.)
func disjunction(qs []query.Query) query.Query {
	if len(qs) == 1 {
		return qs[0]
	}
	return query.NewDisjunctionQuery(qs)
}

func conjunction(qs []query.Query) query.Query {
	switch len(qs) {
	case 0:
		return nil
	case 1:
		return qs[0]
	}
	return query.NewConjunctionQuery(qs)
}

// Snippet returns a query for the terms of q's plain words, required words
// and phrases, and clauses naming field, in field: what a snippet of the
// field should mark. It is cheaper than q's query (no phrases, one field)
// and nil when q has no such term.
func (p *Parser) Snippet(q Parsed, field string) query.Query {
	if p.an[field] == nil {
		return nil
	}
	var text []string
	for _, c := range q.Clauses {
		if c.Occur != MustNot && (c.Field == "" || c.Field == field) {
			text = append(text, c.Text)
		}
	}
	var tqs []query.Query
	seen := map[string]bool{}
	for _, w := range p.wordsIn(field, strings.Join(text, " ")) {
		for _, t := range w.terms {
			if !seen[t] {
				seen[t] = true
				tqs = append(tqs, term(t, field, 1))
			}
		}
	}
	if len(tqs) == 0 {
		return nil
	}
	return disjunction(tqs)
}

// Within returns q's query as a parser searching plain words in fields
// alone (text fields of p's) would build it: for the documents holding
// every required plain word of q (any word if none is required) in one
// of fields, scored on those fields. It is the first tier of a tiered
// search, such as the fields that name a page (title, headings, anchor
// texts), and it never reads the other fields' posting lists. It is nil
// if q has no plain word with a term in those fields.
func (p *Parser) Within(q Parsed, fields ...string) query.Query {
	text := plainText(q)
	if text == "" {
		return nil
	}
	c := *p
	c.opts.AllField = ""
	c.text = slices.DeleteFunc(slices.Clone(p.text), func(f Field) bool { return !slices.Contains(fields, f.Name) })
	if len(c.text) == 0 || c.everyTerm(text, true, 0) == nil {
		return nil
	}
	return c.build(q, true, nil, nil)
}

// Required returns the terms of each distinct required plain word of q,
// as the first text field's analyzers make them: a document matching q
// holds one of each word's terms. It is nil if no plain word is required
// (q has none, or each is a stop word of some language analyzed).
func (p *Parser) Required(q Parsed) [][]string {
	var out [][]string
	for _, w := range distinctWords(p.plainWordsIn(p.text[0].Name, plainText(q))) {
		if w.required {
			out = append(out, w.terms)
		}
	}
	return out
}

// Reduce returns a parser like p that searches only the n most selective
// of q's distinct plain words, when q has more: the words in the fewest
// documents — share gives the share of the index's documents holding a
// term, and a word's is the sum of its terms' — the earlier word first
// among equals, and words in no document last (they only keep a document
// from matching). A long query — a pasted title or paragraph — is thus
// reduced to its key words, as in Kumaran and Carvalho, "Reducing long
// queries using query quality predictors" (SIGIR 2009): a search costs
// posting lists per word and field, and the rarest words are the ones
// that tell documents apart. The words left out are neither required nor
// scored; a phrase holds any term at their positions, so the kept words
// still score as a phrase where they stand as typed. Other clauses
// (quoted phrases, fields, signs) and snippets are unchanged. It returns
// p when q has at most n distinct plain words or n is not positive.
// Cost: one call of share per term of q's plain words.
func (p *Parser) Reduce(q Parsed, n int, share func(term string) float64) *Parser {
	ws := distinctWords(p.wordsIn(p.text[0].Name, plainText(q)))
	if n <= 0 || len(ws) <= n {
		return p
	}
	type ranked struct {
		w     word
		share float64
	}
	rs := make([]ranked, len(ws))
	for i, w := range ws {
		rs[i].w = w
		for _, t := range w.terms {
			rs[i].share += share(t)
		}
		if rs[i].share == 0 {
			rs[i].share = math.Inf(1)
		}
	}
	slices.SortStableFunc(rs, func(a, b ranked) int { return cmp.Compare(a.share, b.share) })
	c := *p
	c.keep = map[string]bool{}
	for _, r := range rs[:n] {
		for _, t := range r.w.terms {
			c.keep[t] = true
		}
	}
	return &c
}

// Filter returns q as a filter: it matches the documents q matches, with
// a score of 0, and its searcher reads no term frequencies or norms
// (bleve's Score "none"). A conjunction of terms is then an intersection
// of the posting lists' bitmaps, and skipping ahead in a long posting
// list jumps to the target instead of decoding the frequency and norm of
// every posting passed over: on the index of a million pages of
// docs/measurements.md, a search's median CPU time halves (47 → 22 ms).
// Cost: none beyond q's own.
func Filter(q query.Query) query.Query {
	if q == nil {
		return nil
	}
	return filter{q}
}

// filter is the query of Filter.
type filter struct{ query.Query }

// Unscored returns the query f filters by: what a search in another
// process rebuilds f from (package indexer/shard sends it so).
func (f filter) Unscored() query.Query { return f.Query }

// Searcher returns the searcher of f's query, scoring nothing and
// weighing nothing in the query norm of the query it is part of.
func (f filter) Searcher(ctx context.Context, i index.IndexReader, m mapping.IndexMapping, options bsearch.SearcherOptions) (bsearch.Searcher, error) {
	options.Score = "none"
	s, err := f.Query.Searcher(ctx, i, m, options)
	if err != nil {
		return nil, err
	}
	return weightless{s}, nil
}

// weightless is a filter's searcher: its weight is 0. Bleve's query norm
// sums the weights of a query's searchers, a filter's included, and a
// term's weight is its idf in the whole index: the access filter's
// terms (the groups) made every score of a search depend on how many
// pages of each group the index holds, pages the user may not see
// among them.
type weightless struct{ bsearch.Searcher }

// Weight returns 0.
func (weightless) Weight() float64 { return 0 }

// SetQueryNorm does nothing: the filter scores nothing.
func (weightless) SetQueryNorm(float64) {}

// Optimize lets bleve optimize the filter as its own searcher, if it
// can (a filter in a search that scores nothing).
func (w weightless) Optimize(kind string, octx index.OptimizableContext) (index.OptimizableContext, error) {
	if o, ok := w.Searcher.(index.Optimizable); ok {
		return o.Optimize(kind, octx)
	}
	return nil, nil
}
