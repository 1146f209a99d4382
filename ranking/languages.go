package ranking

import (
	"context"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/ranking/multiterm"
	"github.com/doppel-search/doppel/ranking/userquery"
)

// languagesTTL is how long the languages read from the index are used
// before they are read again: a page in a new language is found in its
// own words that much after it is flushed.
const languagesTTL = 5 * time.Second

// languages are the analyzers of the languages of the index's pages
// (indexer.Analyzers): a query is analyzed by each, so that it matches a
// page in the words its language's analyzer indexed. In an index of one
// language that is one analyzer, and queries cost what they did before
// pages had languages.
type languages struct {
	ix   indexer.Searcher
	mu   sync.Mutex // held while reading the index
	read sync.Mutex // guards at and names
	at   time.Time
	// names are the analyzers; never empty once read.
	names []string
}

// analyzers returns the analyzers of the index's languages. The first
// call reads them; later ones return what was read, and when that is
// older than languagesTTL start one reading in the background, so that no
// query waits for it.
func (l *languages) analyzers() []string {
	l.read.Lock()
	names, fresh := l.names, time.Since(l.at) < languagesTTL
	l.read.Unlock()
	switch {
	case names == nil:
		l.mu.Lock()
		defer l.mu.Unlock()
		l.refresh()
		l.read.Lock()
		defer l.read.Unlock()
		return l.names
	case !fresh && l.mu.TryLock():
		go func() {
			defer l.mu.Unlock()
			l.refresh()
		}()
	}
	return names
}

// refresh reads the languages again (the caller holds mu); on an error
// it keeps those read before, if any.
func (l *languages) refresh() {
	got, err := l.readIndex()
	l.read.Lock()
	defer l.read.Unlock()
	if err == nil || l.names == nil {
		l.names = got
	}
	l.at = time.Now()
}

// readIndex returns the analyzers of the languages the index's pages
// have (at most 100 languages, the most frequent), [indexer.AnalyzerName]
// alone if it cannot be read. An index that lists its languages
// ([*indexer.Index]: from the language field's term dictionary) is asked;
// any other is searched for them (a facet over every document).
func (l *languages) readIndex() ([]string, error) {
	if li, ok := l.ix.(languageLister); ok {
		langs, err := li.Languages()
		if err != nil {
			return indexer.Analyzers(nil), err
		}
		return indexer.Analyzers(langs[:min(len(langs), 100)]), nil
	}
	req := bleve.NewSearchRequestOptions(bleve.NewMatchAllQuery(), 0, 0, false)
	req.AddFacet(indexer.FieldLang, bleve.NewFacetRequest(indexer.FieldLang, 100))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	res, err := l.ix.Search(ctx, req)
	if err != nil {
		return indexer.Analyzers(nil), err
	}
	var langs []string
	if f := res.Facets[indexer.FieldLang]; f != nil && f.Terms != nil {
		for _, t := range f.Terms.Terms() {
			langs = append(langs, t.Term)
		}
	}
	return indexer.Analyzers(langs), nil
}

// A languageLister lists the languages of its documents, most first, in
// a cost independent of how many documents it holds
// ([indexer.Index.Languages]).
type languageLister interface {
	Languages() ([]string, error)
}

// forText returns the languages to analyze text in, of the analyzers
// names (the index's, [indexer.AnalyzerName] first): the first, and each
// other that makes of text a term no analyzer before it made and that
// some document of the index holds (share, from
// indexer.Searcher.TermShares, above 0; with share nil, every term is
// taken as held), with Holds answering for those terms, or that drops a
// word the first keeps (a stop word of its language: "hvad" and "er" of
// the Danish "Hvad er Debian?"). An analyzer whose new terms are in no
// document could match nothing, and a query is cheaper without it; but
// one that drops a word says that its language's pages do not hold it,
// so the word must not be required of them: without it, a Danish title
// whose other words Danish analyzes as English does ("debian") required
// "hvad" of every page, and found none of the Danish pages.
func (l *languages) forText(names []string, text string, share func(string) float64) userquery.Languages {
	held := map[string]bool{}
	out := userquery.Languages{Holds: func(t string) bool { h, ok := held[t]; return h || !ok }}
	seen := map[string]bool{}
	var first map[int]bool // the positions the first analyzer keeps
	for i, name := range names {
		a := l.ix.Mapping().AnalyzerNamed(name)
		if a == nil {
			continue
		}
		keep := false
		tokens := a.Analyze([]byte(text))
		if first == nil {
			first = positions(tokens)
		} else {
			keep = dropsAny(first, positions(tokens))
		}
		for _, t := range tokens {
			term := string(t.Term)
			if seen[term] {
				continue
			}
			seen[term] = true
			if i > 0 {
				held[term] = share == nil || share(term) > 0
				keep = keep || held[term]
			}
		}
		if keep {
			out.Analyzers = append(out.Analyzers, name)
		}
	}
	return out
}

// positions returns the positions of tokens.
func positions(tokens analysis.TokenStream) map[int]bool {
	out := make(map[int]bool, len(tokens))
	for _, t := range tokens {
		out[t.Position] = true
	}
	return out
}

// dropsAny reports whether a position of first is not in kept.
func dropsAny(first, kept map[int]bool) bool {
	for p := range first {
		if !kept[p] {
			return true
		}
	}
	return false
}

// forQuery returns the languages to analyze the words of text in (see
// forText), reading the terms of the documents the user may see (share,
// termStats.share) if the index has more than one language.
func (l *languages) forQuery(text string, share func(string) float64) userquery.Languages {
	names := l.analyzers()
	if len(names) == 1 {
		return userquery.Languages{}
	}
	return l.forText(names, text, share)
}

// inLanguages returns q (a query of bleve's syntax) with each match and
// phrase query that names no analyzer analyzed by each of the index's
// language analyzers: a disjunction of copies, one per analyzer making
// different terms of its text. Left to bleve, such a query would take
// the analyzer of whichever document type its mapping happened to list
// first.
func (l *languages) inLanguages(q query.Query, share func(string) float64) query.Query {
	return multiterm.Rewrite(q, func(q query.Query) query.Query {
		switch q := q.(type) {
		case *query.MatchQuery:
			if q.Analyzer == "" {
				return l.each(l.forQuery(q.Match, share).Analyzers, q.Match, func(a string) query.Query { c := *q; c.Analyzer = a; return &c })
			}
		case *query.MatchPhraseQuery:
			if q.Analyzer == "" {
				return l.each(l.forQuery(q.MatchPhrase, share).Analyzers, q.MatchPhrase, func(a string) query.Query { c := *q; c.Analyzer = a; return &c })
			}
		}
		return q
	})
}

// each returns the disjunction of with(a) for [indexer.AnalyzerName] and
// each analyzer a of names that analyzes text differently from those
// before it.
func (l *languages) each(names []string, text string, with func(analyzer string) query.Query) query.Query {
	var alts []query.Query
	for _, name := range indexer.DistinctAnalyzers(l.ix.Mapping().AnalyzerNamed, append([]string{indexer.AnalyzerName}, names...), text) {
		alts = append(alts, with(name))
	}
	if len(alts) == 1 {
		return alts[0]
	}
	return query.NewDisjunctionQuery(alts)
}
