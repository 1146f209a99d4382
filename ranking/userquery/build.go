package userquery

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/search/query"
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
	return p.build(q, true, nil)
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
// every term is common, all count. It is nil when it would match what
// Build's query matches (fewer than two distinct plain words).
func (p *Parser) Relaxed(q Parsed, common func(term string) bool) query.Query {
	n := 0
	for _, ts := range p.analyze(plainText(q)) {
		n = max(n, len(distinct(ts)))
	}
	if n < 2 {
		return nil
	}
	return p.build(q, false, common)
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

func (p *Parser) build(q Parsed, strict bool, common func(string) bool) query.Query {
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
		if len(ws) > 0 {
			must = append(must, p.termsIn(text, strict, common))
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

// analyze returns the analyses of text in each text field.
func (p *Parser) analyze(text string) []analysis.TokenStream {
	var out []analysis.TokenStream
	for _, f := range p.text {
		out = append(out, p.analyses(f.Name, text)...)
	}
	return out
}

// analyses returns the analyses of text in field: one token stream per
// analyzer of the field (the mapping's, then those Options.Analyzers
// names), those giving the same tokens at the same positions once. An
// analysis may be empty (the words are stop words of that language).
func (p *Parser) analyses(field, text string) []analysis.TokenStream {
	as := []analysis.Analyzer{p.an[field]}
	if p.opts.Analyzers != nil {
		for _, name := range p.opts.Analyzers(field) {
			if a := p.analyzer(name); a != nil && !slices.Contains(as, a) {
				as = append(as, a)
			}
		}
	}
	if len(as) == 1 {
		return []analysis.TokenStream{as[0].Analyze([]byte(text))}
	}
	var out []analysis.TokenStream
	seen := map[string]bool{}
	for _, a := range as {
		ts := a.Analyze([]byte(text))
		var k strings.Builder
		for _, t := range ts {
			fmt.Fprintf(&k, "%d:%s\x00", t.Position, t.Term)
		}
		if !seen[k.String()] {
			seen[k.String()] = true
			out = append(out, ts)
		}
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

// everyTerm returns a query for the documents that hold every term of
// text in some text field (each term in a field whose analyzer made it),
// nil if text has no term; the term queries carry the fields' boosts
// times boost.
func (p *Parser) everyTerm(text string, boost float64) query.Query {
	return p.terms(text, boost, func(_ []string, all []query.Query) query.Query { return conjunction(all) })
}

// termsIn returns, with a boost of 0 (the words query scores), the
// documents holding every term of text (strict) or MinShould of its
// uncommon terms (all of them if every one is common).
func (p *Parser) termsIn(text string, strict bool, common func(string) bool) query.Query {
	if strict {
		return p.everyTerm(text, 0)
	}
	return p.terms(text, 0, func(terms []string, all []query.Query) query.Query {
		var rare []query.Query
		for i, t := range terms {
			if common == nil || !common(t) {
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

// terms applies combine, per analysis, to the distinct terms of text and
// one query per term (the term in any text field that analysis came
// from), and returns the disjunction over analyses; nil if text has no
// term. Fields analyzing text alike (all of them, in an index of one
// language) make one group.
func (p *Parser) terms(text string, boost float64, combine func([]string, []query.Query) query.Query) query.Query {
	type group struct {
		terms  []string
		fields []Field
	}
	var groups []*group
	byTerms := map[string]*group{}
	for _, f := range p.text {
		for _, ts := range p.analyses(f.Name, text) {
			terms := distinct(ts)
			k := strings.Join(terms, "\x00")
			g := byTerms[k]
			if g == nil {
				g = &group{terms: terms}
				byTerms[k] = g
				groups = append(groups, g)
			}
			g.fields = append(g.fields, f)
		}
	}
	var out []query.Query
	for _, g := range groups {
		var all []query.Query
		for _, t := range g.terms {
			var any []query.Query
			for _, f := range g.fields {
				any = append(any, term(t, f.Name, f.Boost*boost))
			}
			all = append(all, disjunction(any))
		}
		if cq := combine(g.terms, all); cq != nil {
			out = append(out, cq)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return disjunction(out)
}

// words returns the scoring queries for plain words: per text field, a
// disjunction of the distinct terms (bleve multiplies its score by the
// share of terms matched), and for two terms or more, the phrase.
func (p *Parser) words(text string) []query.Query {
	var out []query.Query
	for _, f := range p.text {
		for _, toks := range p.analyses(f.Name, text) {
			terms := distinct(toks)
			if len(terms) == 0 {
				continue
			}
			var tqs []query.Query
			for _, t := range terms {
				tqs = append(tqs, term(t, f.Name, f.Boost))
			}
			out = append(out, disjunction(tqs))
			if len(terms) > 1 {
				ph := query.NewMultiPhraseQuery(phrase(toks), f.Name)
				ph.SetBoost(f.Boost * p.opts.PhraseBoost)
				out = append(out, ph)
			}
		}
	}
	return out
}

// clause returns the query of a clause other than plain words, or nil if
// its text has no term.
func (p *Parser) clause(c Clause) query.Query {
	if c.Field == "" {
		// Every word in some text field, or the phrase in one.
		var alts []query.Query
		if c.Phrase {
			for _, f := range p.text {
				alts = append(alts, phrases(p.analyses(f.Name, c.Text), f.Name, f.Boost)...)
			}
			if len(alts) == 0 {
				return nil
			}
			return disjunction(alts)
		}
		return p.everyTerm(c.Text, 1)
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
	as := p.analyses(f.Name, c.Text)
	var alts []query.Query
	if c.Phrase {
		alts = phrases(as, f.Name, boost)
	} else {
		for _, toks := range as {
			var all []query.Query
			for _, t := range distinct(toks) {
				all = append(all, term(t, f.Name, boost))
			}
			if cq := conjunction(all); cq != nil {
				alts = append(alts, cq)
			}
		}
	}
	if len(alts) == 0 {
		return nil
	}
	return disjunction(alts)
}

// phrases returns a phrase query in field for each analysis that has a
// term.
func phrases(as []analysis.TokenStream, field string, boost float64) []query.Query {
	var out []query.Query
	for _, toks := range as {
		if len(toks) > 0 {
			ph := query.NewMultiPhraseQuery(phrase(toks), field)
			ph.SetBoost(boost)
			out = append(out, ph)
		}
	}
	return out
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

// distinct returns the terms of toks, each once, in order.
func distinct(toks analysis.TokenStream) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range toks {
		if s := string(t.Term); !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// phrase returns the terms of toks by position from the first, with nil
// where the analyzer removed a word (any term matches there).
func phrase(toks analysis.TokenStream) [][]string {
	first, last := toks[0].Position, toks[0].Position
	for _, t := range toks {
		first, last = min(first, t.Position), max(last, t.Position)
	}
	out := make([][]string, last-first+1)
	for _, t := range toks {
		out[t.Position-first] = append(out[t.Position-first], string(t.Term))
	}
	return out
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
	for _, toks := range p.analyses(field, strings.Join(text, " ")) {
		for _, t := range distinct(toks) {
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
