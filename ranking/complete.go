package ranking

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/doppel-search/doppel/indexer"
)

// contextWords is how many of the words a prefix may become, the most
// held first, a completion after other words searches with them.
const contextWords = 64

// contextHits is how many of the best pages holding the words before
// and a completion of the last are read for the words they hold.
const contextHits = 50

// contextTitles is how many of the best pages holding the words before
// and a completion of the last have their titles read, for which word
// follows the word before in a title.
const contextTitles = 20

// vocabularyWait is how long a completion waits for the first vocabulary
// of its groups to be built before it searches without one.
const vocabularyWait = 500 * time.Millisecond

// Complete returns completions of the partial query typed: the words of
// titles and headings the user may see that begin with its last word,
// then the titles of the best pages holding one of them; at most 8,
// nothing for a last word shorter than two letters. The last word is
// completed in the context of the words before it: only pages whose
// titles or headings hold those words too are read, and a word that
// follows the word before it in a title ("connecting to" → "connecting
// to the") comes before the others, then the most frequent.
//
// On an index that gives a user's term statistics from its posting
// lists (indexer.VisibleStats: one scorch index), the words a prefix may
// become are ranked from the user's vocabulary — every word of the
// titles and headings the user may see, with how many such pages hold
// it, built once per index snapshot and set of groups (a walk of the
// words' dictionary, in the background once a first one exists) — and
// only the best are searched. A first word's completions are the four
// words the most pages hold (Count: how many), and its titles those of
// the best pages holding one of them; after other words, the
// contextWords most held words are searched with them. Cost: a
// vocabulary lookup and one search of at most contextWords terms, and
// the titles of contextTitles pages after other words. Elsewhere (a
// sharded index, an index in memory) the prefix is expanded to every
// word the user may see, up to Options.MaxTerms, and searched at once.
//
// A word or title only pages the user may not see hold is never offered:
// the vocabulary counts visible pages only, a vocabulary of an earlier
// snapshot is checked word by word against the current one, and every
// search is filtered by the user's groups and scored with their
// statistics.
func (s *Searcher) Complete(ctx context.Context, typed string, groups []string) ([]Completion, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	last, head, before := splitTyped(typed)
	if utf8.RuneCountInString(last) < 2 || strings.HasSuffix(typed, " ") {
		return nil, nil
	}
	st := s.termStats(ctx, groups)
	defer st.close()
	voc := s.vocabulary(ctx, st, groups)
	switch {
	case voc == nil:
		return s.completeByPrefix(ctx, st, last, head, before, groups)
	case len(before) == 0:
		return s.completeFirst(ctx, voc, st, last, head, groups)
	}
	return s.completeAfter(ctx, voc, st, last, head, before, groups)
}

// vocabulary returns the vocabulary of the pages a user of groups may
// see (see vocabularies.get), or nil if the index gives none or the
// first one of these groups is not built within vocabularyWait.
func (s *Searcher) vocabulary(ctx context.Context, st *termStats, groups []string) *vocabulary {
	vi, ok := s.ix.(visibleStatser)
	if !ok || st.vs == nil {
		return nil
	}
	wait, cancel := context.WithTimeout(ctx, vocabularyWait)
	defer cancel()
	return s.vocab.get(wait, st, groupsKey(groups), func() (*indexer.VisibleStats, error) { return vi.VisibleStats(groups) })
}

// completeFirst completes a first word from the vocabulary: its four
// words most held, then the titles of the best pages holding one.
func (s *Searcher) completeFirst(ctx context.Context, voc *vocabulary, st *termStats, last, head string, groups []string) ([]Completion, error) {
	best, err := voc.top(last, maxCompletions)
	if err != nil {
		return nil, err
	}
	var out []Completion
	var shown []string
	for _, w := range best {
		if len(out) == maxCompletions/2 {
			break
		}
		// The vocabulary may be of an earlier snapshot: the count is
		// the current one, and a word no visible page holds now is left.
		if n := st.fieldCount(indexer.FieldWords, w.word); n > 0 {
			out = append(out, Completion{Text: head + w.word, Kind: "word", Count: int(n)})
			shown = append(shown, w.word)
		}
	}
	if st.err != nil {
		return nil, s.searchError(ctx, st.err, false)
	}
	if len(out) == 0 {
		return nil, nil
	}
	req := bleve.NewSearchRequestOptions(s.filtered(st.scored(wordsQuery(shown)), Request{Groups: groups}), maxCompletions, 0, false)
	res, err := s.ix.Search(ctx, req)
	if err != nil {
		return nil, s.searchError(ctx, err, false)
	}
	return s.titleCompletions(ctx, out, byScoreThenID(res.Hits))
}

// completeAfter completes the last word after others: the best pages
// holding the words before and one of the contextWords words the last
// may become that the most pages hold.
func (s *Searcher) completeAfter(ctx context.Context, voc *vocabulary, st *termStats, last, head string, before, groups []string) ([]Completion, error) {
	best, err := voc.top(last, contextWords)
	if err != nil {
		return nil, err
	}
	if len(best) == 0 {
		return nil, nil
	}
	words := make([]string, len(best))
	for i, w := range best {
		words[i] = w.word
	}
	must := []query.Query{wordsQuery(words)}
	for _, w := range before {
		must = append(must, wordsQuery([]string{w}))
	}
	req := bleve.NewSearchRequestOptions(s.filtered(st.scored(bleve.NewConjunctionQuery(must...)), Request{Groups: groups}), contextHits, 0, false)
	req.IncludeLocations = true
	res, err := s.ix.Search(ctx, req)
	if err != nil {
		return nil, s.searchError(ctx, err, false)
	}
	res.Hits = byScoreThenID(res.Hits)
	if len(res.Hits) == 0 {
		return nil, nil
	}
	if err := s.titlesOf(ctx, res.Hits[:min(len(res.Hits), contextTitles)]); err != nil {
		return nil, err
	}
	return s.titleCompletions(ctx, wordCompletions(res.Hits, last, head, before), res.Hits)
}

// byScoreThenID returns hits with those of equal scores in id order,
// not in the order the index holds them (which documents written beside
// them, hidden ones included, change). (Asking the search to sort by id
// would read the id of every match from its stored document: a third of
// the CPU of completion on the mixed documentation site.)
func byScoreThenID(hits search.DocumentMatchCollection) search.DocumentMatchCollection {
	slices.SortStableFunc(hits, func(a, b *search.DocumentMatch) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), strings.Compare(a.ID, b.ID))
	})
	return hits
}

// wordsQuery matches the pages holding one of words in their titles or
// headings (indexer.FieldWords).
func wordsQuery(words []string) query.Query {
	qs := make([]query.Query, len(words))
	for i, w := range words {
		t := bleve.NewTermQuery(w)
		t.SetField(indexer.FieldWords)
		qs[i] = t
	}
	if len(qs) == 1 {
		return qs[0]
	}
	return bleve.NewDisjunctionQuery(qs...)
}
