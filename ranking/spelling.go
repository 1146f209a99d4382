package ranking

import (
	"cmp"
	"context"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/doppel-search/doppel/indexer"
)

// freqWeight is what a word used ten times as often is worth, in edit
// cost, when near words are weighed: enough for "tolen" to be token
// (one neighbour's letter, 0.75) rather than stolen (one missed letter,
// 0.7) on a site where token is a thousand times as used, not enough
// for "printr" to be print rather than printer on the demo intranet,
// where print is in 25 titles and printer in none. (Measured on the
// tuning intranet's typos, any weight from 0 to 0.1 corrects as many.)
const freqWeight = 0.03

// preferWeight is how many uses elsewhere one use in the pages that
// would match counts for (those holding the query's other words, or in
// the language most of the user's pages are in): an English typo in an
// English query gets an English word.
const preferWeight = 10

// weighedCands is how many of the near words, the best by cost and
// use, are counted in the pages that would match.
const weighedCands = 8

// A spellCand is a word near the one typed, from the vocabulary of the
// pages the user may see: its edit cost, how many of those pages hold
// it (in title, headings or text), how many in their title or headings,
// and how many of the pages that would match.
type spellCand struct {
	word                  string
	cost                  float64
	docs, titles, prefers uint64
	stop                  bool // a stop word: weighed by its cost alone
}

// score is the candidate's rank, lower better: its edit cost less
// freqWeight for each factor of ten of its weighed uses.
func (c spellCand) score() float64 {
	uses := float64(c.docs) + titleWeight*float64(c.titles) + preferWeight*float64(c.prefers)
	return c.cost - freqWeight*math.Log10(1+uses)
}

// A speller suggests words from the dictionary of one index snapshot,
// counted for one user (termStats): a word's near words are found by a
// Levenshtein automaton (Damerau: a transposition is one edit) over the
// vocabulary of every page's title, headings and text (FieldSpell), and
// kept only if a page the user may see holds them — no stored text is
// read.
type speller struct {
	s      *Searcher
	st     *termStats
	groups []string
	dict   index.IndexReaderFuzzy // the snapshot st reads
	other  []string               // the words of the query held by a page the user may see
	langs  []string               // the languages the user reads that pages they may see are in
}

// nearest returns the word to suggest for typed (lowercased), "" if it
// needs none (see Searcher.Suggest).
func (sp *speller) nearest(ctx context.Context, typed string) (string, error) {
	if !spellable(typed) {
		return "", nil
	}
	held, err := sp.held(ctx, typed)
	if err != nil || held {
		return "", err
	}
	cands, err := sp.near(typed)
	if err != nil || len(cands) == 0 {
		return "", err
	}
	slices.SortFunc(cands, byScore)
	cands = cands[:min(len(cands), weighedCands)]
	if cands, err = sp.prefer(cands); err != nil {
		return "", err
	}
	slices.SortFunc(cands, byScore)
	return cands[0].word, nil
}

// byScore orders candidates best first, then in byte order.
func byScore(a, b spellCand) int {
	return cmp.Or(cmp.Compare(a.score(), b.score()), cmp.Compare(a.word, b.word))
}

// held reports whether a page the user may see holds typed as a word:
// in FieldSpell, or — past the MaxSpellWords a page keeps there, when
// its stem is in the text — as read from the pages' text.
func (sp *speller) held(ctx context.Context, typed string) (bool, error) {
	if sp.st.fieldCount(indexer.FieldSpell, typed) > 0 {
		return true, sp.st.err
	}
	if sp.st.err != nil {
		return false, sp.st.err
	}
	stemmed := false
	if ts, err := textAnalysis().AnalyzeText(indexer.AnalyzerName, []byte(typed)); err == nil {
		for _, t := range ts {
			stemmed = stemmed || sp.st.count(string(t.Term)) > 0
		}
	}
	if !stemmed {
		return false, sp.st.err
	}
	return sp.s.holds(ctx, sp.s.filtered(knownQuery(typed), Request{Groups: sp.groups}), typed)
}

// near returns the words within maxCost of typed that a page the user
// may see holds, with their counts. Cost: the automaton's walk of the
// field's dictionary in each segment, and two posting-list
// cardinalities per segment and word within its distance.
func (sp *speller) near(typed string) ([]spellCand, error) {
	n := utf8.RuneCountInString(typed)
	limit := maxCost(n)
	fuzziness := 2
	if limit <= 1 {
		fuzziness = 1
	}
	fd, err := sp.dict.FieldDictFuzzy(indexer.FieldSpell, typed, fuzziness, "")
	if err != nil {
		return nil, err
	}
	defer fd.Close()
	var out []spellCand
	for {
		e, err := fd.Next()
		if err != nil || e == nil {
			return out, cmp.Or(err, sp.st.err)
		}
		w := e.Term
		if w == typed {
			continue
		}
		cost := editCost(typed, w)
		if cost > limit {
			continue
		}
		docs := sp.st.fieldCount(indexer.FieldSpell, w)
		switch {
		case docs == 0:
			continue // only pages the user may not see hold it
		case dropped(w):
			// A stop word ("from" for "fron") is held by most pages: it
			// is weighed by its cost alone ("swith" is switch, not with).
			out = append(out, spellCand{word: w, cost: cost, stop: true})
		default:
			out = append(out, spellCand{word: w, cost: cost, docs: docs, titles: sp.st.fieldCount(indexer.FieldWords, w)})
		}
	}
}

// prefer counts each candidate's uses in the pages that would match:
// those holding the query's other words, if one candidate is held with
// them (and then only such candidates are kept: a suggestion raises the
// query's hits), else those in the languages the user reads, if one
// candidate is used there (and then only such candidates and stop words
// are kept: a reader of English is not offered an Italian word), else those in the
// language most of the user's pages are in. Cost: a count search per
// candidate and step.
func (sp *speller) prefer(cands []spellCand) ([]spellCand, error) {
	keepUsed := func(cands []spellCand, stops bool) []spellCand {
		return slices.DeleteFunc(cands, func(c spellCand) bool { return c.prefers == 0 && !(stops && c.stop) })
	}
	if len(sp.other) > 0 {
		with := make([]query.Query, len(sp.other))
		for i, w := range sp.other {
			with[i] = spellTerm(w)
		}
		any, err := sp.countIn(cands, bleve.NewConjunctionQuery(with...))
		if err != nil || any {
			return keepUsed(cands, false), err
		}
	}
	if len(sp.langs) > 0 {
		any, err := sp.countIn(cands, langQuery(sp.langs...))
		if err != nil || any {
			// Stop words, which the index does not count, are kept:
			// "wehere" is where, not adhere.
			return keepUsed(cands, true), err
		}
	}
	lang := sp.mainLanguage()
	if lang == "" {
		return cands, nil
	}
	_, err := sp.countIn(cands, langQuery(lang))
	return cands, err
}

// langQuery matches the pages in one of langs.
func langQuery(langs ...string) query.Query {
	qs := make([]query.Query, len(langs))
	for i, l := range langs {
		t := bleve.NewTermQuery(l)
		t.SetField(indexer.FieldLang)
		qs[i] = t
	}
	return bleve.NewDisjunctionQuery(qs...)
}

// countIn sets each candidate's prefers to how many pages the user may
// see match in and hold it, and reports whether one is.
func (sp *speller) countIn(cands []spellCand, in query.Query) (bool, error) {
	any := false
	for i := range cands {
		if cands[i].stop {
			continue
		}
		n, err := sp.st.search(bleve.NewConjunctionQuery(in, spellTerm(cands[i].word)))
		if err != nil {
			return false, err
		}
		cands[i].prefers = n
		any = any || n > 0
	}
	return any, nil
}

// spellTerm matches the pages holding word (lowercased) in their title,
// headings or text.
func spellTerm(word string) query.Query {
	t := bleve.NewTermQuery(word)
	t.SetField(indexer.FieldSpell)
	return t
}

// mainLanguage returns the language most of the pages the user may see
// are in (counted from the posting lists of the index's languages), ""
// if the index lists none.
func (sp *speller) mainLanguage() string {
	li, ok := sp.s.ix.(languageLister)
	if !ok {
		return ""
	}
	langs, err := li.Languages()
	if err != nil {
		return ""
	}
	best, most := "", uint64(0)
	for _, l := range langs {
		if n := sp.st.fieldCount(indexer.FieldLang, l); n > most {
			best, most = l, n
		}
	}
	return best
}
