package ranking

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/internal/tokens"
)

// suggestHits is how many of the documents holding a near word are read
// to count which word they hold.
const suggestHits = 200

// titleWeight is how many occurrences in text one occurrence in a title
// or heading counts for when near words are weighed.
const titleWeight = 5

// Suggest returns q with each word that no page the user may see holds
// (in its title, headings or text) replaced by the nearest word such
// pages hold — Google's "Did you mean" — and "" if no word was replaced.
// Near is a Damerau distance in which a transposition, a missed letter
// and a keyboard neighbour's letter cost less than other edits (see
// editCost). On an index that gives a snapshot (one scorch index: what
// doppel serves), the near words are read from its dictionary of every
// page's words (see speller): a word is weighed by its cost, how many
// visible pages hold it (a title or heading counting titleWeight), and
// how many of the pages that would match do — those holding the query's
// other words, a word held with them winning over any that is not, else
// those in the language most of the user's pages are in. Elsewhere (a
// sharded index, one in memory) the best pages holding a near word are
// read, and the cheapest word wins, the most used among equals. Only
// pages the user may see count, so a word that only a page they may not
// see holds is never suggested. Operators (site:…, type:…, any
// name:value), quoted phrases, AND/OR/NOT, CJK, digits and words shorter
// than three letters are left as typed. Cost, with a snapshot: a walk of
// the words' dictionary by a Levenshtein automaton per word of q, two
// posting-list cardinalities per near word, and a count search per word
// weighed (at most weighedCands); without one, two searches per word
// (three if the swapped forms are too broad). Suggest is SuggestIn for
// a user whose languages are not known.
func (s *Searcher) Suggest(ctx context.Context, q string, groups []string) (string, error) {
	return s.SuggestIn(ctx, q, groups, nil)
}

// SuggestIn is Suggest for a user who reads languages (primary subtags,
// as from an Accept-Language header: see internal/lang.Accepted): on an
// index that gives a snapshot, when no near word is held with the
// query's other words, a near word that pages in one of those languages
// hold (pages the user may see) wins over any that none holds, so that
// a reader of English gets "associate", not the Italian "accorciare",
// for "accociate". Languages that none of the user's pages are in are
// ignored; none left, near words are weighed as Suggest weighs them
// (the language most of the user's pages are in counting more).
func (s *Searcher) SuggestIn(ctx context.Context, q string, groups, languages []string) (string, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	st := s.termStats(ctx, groups)
	defer st.close()
	if st.err != nil {
		return "", s.searchError(ctx, st.err, false)
	}
	words := suggestWords(q)
	nearest := func(typed string) (string, error) { return s.nearest(ctx, typed, groups) }
	if sp := s.speller(st, q, words, groups, languages); sp != nil {
		nearest = func(typed string) (string, error) {
			fix, err := sp.nearest(ctx, typed)
			if err != nil {
				return "", s.searchError(ctx, err, false)
			}
			return fix, nil
		}
	}
	var b strings.Builder
	last, changed := 0, false
	for _, w := range words {
		fix, err := nearest(strings.ToLower(q[w.start:w.end]))
		if err != nil {
			return "", err
		}
		if fix != "" {
			b.WriteString(q[last:w.start])
			b.WriteString(fix)
			last, changed = w.end, true
		}
	}
	if !changed {
		return "", nil
	}
	b.WriteString(q[last:])
	return b.String(), nil
}

// speller returns the speller of the snapshot st reads, for the words of
// q and a user reading languages, nil if the index gives no snapshot (a sharded index, one in
// memory): Suggest then reads the pages holding near words.
func (s *Searcher) speller(st *termStats, q string, words []span, groups, languages []string) *speller {
	if st.vs == nil {
		return nil
	}
	snap := st.vs.Snapshot()
	if snap == nil {
		return nil
	}
	sp := &speller{s: s, st: st, groups: groups, dict: snap}
	for _, l := range languages {
		if st.fieldCount(indexer.FieldLang, l) > 0 && !slices.Contains(sp.langs, l) {
			sp.langs = append(sp.langs, l)
		}
	}
	for _, w := range words {
		if typed := strings.ToLower(q[w.start:w.end]); st.fieldCount(indexer.FieldSpell, typed) > 0 && !slices.Contains(sp.other, typed) {
			sp.other = append(sp.other, typed)
		}
	}
	return sp
}

// A span is a word of a query: its byte offsets.
type span struct{ start, end int }

// suggestWords returns the words of q that spelling help reads: not in
// an operator or a quoted phrase, not AND, OR or NOT.
func suggestWords(q string) []span {
	var words []span
	protected := operatorRanges(q)
	tokens.Scan(q, func(start, end int, _ bool) {
		for _, p := range protected {
			if start < p[1] && end > p[0] {
				return
			}
		}
		if w := q[start:end]; w == "AND" || w == "OR" || w == "NOT" {
			return
		}
		words = append(words, span{start, end})
	})
	return words
}

// spellable reports whether a word (lowercased) may get a suggestion: three
// letters or more, no digit or CJK, not a stop word (the index keeps no
// trace of those, yet they are words).
func spellable(typed string) bool {
	return utf8.RuneCountInString(typed) >= 3 &&
		strings.IndexFunc(typed, func(r rune) bool { return tokens.IsCJK(r) || r >= '0' && r <= '9' }) < 0 &&
		!dropped(typed)
}

// Misspelled reports whether a word of q that Suggest reads is held, as
// typed, by no page the user may see in its title, headings or text
// (indexer.FieldSpell): a query whose results come from other words, or
// from a stem the word shares ("useing" matches use), may still deserve
// a "Did you mean". Cost: a dictionary lookup and a bitmap cardinality a
// word and index segment, from the posting lists of the user's records;
// an index that cannot give those (shards) answers false rather than
// search once a word.
func (s *Searcher) Misspelled(ctx context.Context, q string, groups []string) bool {
	st := s.termStats(ctx, groups)
	defer st.close()
	if st.vs == nil || st.err != nil {
		return false
	}
	for _, w := range suggestWords(q) {
		typed := strings.ToLower(q[w.start:w.end])
		if spellable(typed) && st.fieldCount(indexer.FieldSpell, typed) == 0 && st.err == nil {
			return true
		}
	}
	return false
}

// operatorRanges returns the byte ranges of q that Suggest leaves as
// typed: quoted phrases and name:value operators (to the next blank).
func operatorRanges(q string) [][2]int {
	var out [][2]int
	for i := 0; i < len(q); {
		switch {
		case q[i] == '"':
			end := strings.IndexByte(q[i+1:], '"')
			if end < 0 {
				return append(out, [2]int{i, len(q)})
			}
			out = append(out, [2]int{i, i + end + 2})
			i += end + 2
		case q[i] == ' ' || q[i] == '\t':
			i++
		default:
			end := strings.IndexAny(q[i:], " \t\"")
			if end < 0 {
				end = len(q) - i
			}
			if strings.Contains(q[i:i+end], ":") {
				out = append(out, [2]int{i, i + end})
			}
			i += end
		}
	}
	return out
}

// maxCost is the dearest correction suggested for a word of n letters.
func maxCost(n int) float64 {
	switch {
	case n <= 3:
		return cheap
	case n <= 4:
		return 1
	case n <= 6:
		return 1 + missed
	}
	return 2
}

// nearest returns the word to suggest for the word typed, "" if it needs
// none: it is short, not a word of letters, a page the user may see
// holds it, or no such page holds a word near enough.
func (s *Searcher) nearest(ctx context.Context, typed string, groups []string) (string, error) {
	if !spellable(typed) {
		return "", nil
	}
	visible := func(q query.Query) query.Query { return s.filtered(q, Request{Groups: groups}) }
	if held, err := s.holds(ctx, visible(knownQuery(typed)), typed); err != nil || held {
		return "", err
	}
	res, err := s.nearPages(ctx, typed, groups, visible)
	if err != nil {
		return "", err
	}
	cands := candidates(typed, res.Hits)
	if c := cands[typed]; c != nil && c.uses > 0 {
		return "", nil // a page read holds it as typed (the check above missed its stem)
	}
	return cands.best(), nil
}

// knownQuery matches the pages holding typed as a word of their title,
// headings or text (exactly, or by its stem: holds then reads them).
func knownQuery(typed string) query.Query {
	var known []query.Query
	for _, f := range []string{indexer.FieldWords, indexer.FieldSpell} {
		exact := bleve.NewTermQuery(typed)
		exact.SetField(f)
		known = append(known, exact)
	}
	for _, f := range textFields {
		m := bleve.NewMatchQuery(typed)
		m.SetField(f)
		known = append(known, m)
	}
	return bleve.NewDisjunctionQuery(known...)
}

// fuzzyWords returns fuzzy queries for form on the unstemmed vocabulary
// of the pages' text (FieldSpell), and of their titles and headings
// (FieldWords) for an index made before FieldSpell existed.
func fuzzyWords(form string, fuzziness int) []query.Query {
	var out []query.Query
	for _, f := range []string{indexer.FieldSpell, indexer.FieldWords} {
		fq := bleve.NewFuzzyQuery(form)
		fq.SetField(f)
		fq.SetFuzziness(fuzziness)
		out = append(out, fq)
	}
	return out
}

// swapForms returns typed and, for six letters or more, typed with each
// pair of neighbouring letters swapped back: a transposition is two
// Levenshtein edits, and such words may hold two slips.
func swapForms(typed string) []string {
	forms := []string{typed}
	if r := []rune(typed); len(r) >= 6 {
		for i := range len(r) - 1 {
			if r[i] != r[i+1] {
				sw := slices.Clone(r)
				sw[i], sw[i+1] = sw[i+1], sw[i]
				forms = append(forms, string(sw))
			}
		}
	}
	return forms
}

// nearPages returns the best suggestHits pages the user may see (visible)
// holding a word within two edits of typed or of its swapped forms; if
// that many fuzzy terms are too broad for the term budget, within two
// edits of typed only, then within one.
func (s *Searcher) nearPages(ctx context.Context, typed string, groups []string, visible func(query.Query) query.Query) (*bleve.SearchResult, error) {
	search := func(near []query.Query) (*bleve.SearchResult, error) {
		req := bleve.NewSearchRequestOptions(visible(s.bound(bleve.NewDisjunctionQuery(near...), groups, nil)), suggestHits, 0, false)
		req.Fields = textFields
		res, err := s.ix.Search(ctx, req)
		if err != nil {
			return nil, s.searchError(ctx, err, false)
		}
		return res, nil
	}
	forms := swapForms(typed)
	var near []query.Query
	for _, form := range forms {
		near = append(near, fuzzyWords(form, 2)...)
	}
	res, err := search(near)
	if errors.Is(err, ErrTooBroad) && len(forms) > 1 {
		res, err = search(fuzzyWords(typed, 2))
	}
	if errors.Is(err, ErrTooBroad) {
		res, err = search(fuzzyWords(typed, 1)) // a short word in a large vocabulary
	}
	return res, err
}

// A cand is a word near the one typed: its edit cost, and how often the
// pages read use it (a title or heading use counts titleWeight).
type cand struct {
	cost float64
	uses int
}

// cands are the words of the pages read, by word.
type cands map[string]*cand

// candidates counts the words of hits' titles, headings and text within
// maxCost of typed.
func candidates(typed string, hits search.DocumentMatchCollection) cands {
	n := utf8.RuneCountInString(typed)
	limit := maxCost(n)
	out := cands{}
	count := func(text string, weight int) {
		tokens.Scan(text, func(start, end int, lower bool) {
			w := text[start:end]
			if !lower {
				w = strings.ToLower(w)
			}
			c := out[w]
			if c == nil {
				if d := utf8.RuneCountInString(w) - n; d > 2 || d < -2 {
					return
				}
				c = &cand{cost: editCost(typed, w)}
				out[w] = c
			}
			if c.cost <= limit {
				c.uses += weight
			}
		})
	}
	for _, h := range hits {
		for _, f := range textFields {
			weight := titleWeight
			if f == indexer.FieldBody {
				weight = 1
			}
			for _, text := range fieldTexts(h.Fields, f) {
				count(text, weight)
			}
		}
	}
	return out
}

// best returns the cheapest word used, the most used among equals, then
// the first in byte order; "" if none is used.
func (cs cands) best() string {
	best, bestCost, bestUses := "", 0.0, 0
	for w, c := range cs {
		if c.uses == 0 {
			continue
		}
		better := best == "" || c.cost < bestCost ||
			c.cost == bestCost && (c.uses > bestUses || c.uses == bestUses && w < best)
		if better {
			best, bestCost, bestUses = w, c.cost, c.uses
		}
	}
	return best
}

// holds reports whether a page matching q (read: the best knownHits)
// holds the word typed as such in its title, headings or text: a match
// of the stemmed text alone ("farewel" matches farewell) is not enough.
// The pages' stored texts are read in two steps — the best page's, then,
// if it does not hold the word, the others' — since the best one mostly
// does: the texts of knownHits pages, read for every word of a pasted
// title, would cost more than the search for it (a reference page of a
// megabyte among them, often).
func (s *Searcher) holds(ctx context.Context, q query.Query, typed string) (bool, error) {
	res, err := s.ix.Search(ctx, bleve.NewSearchRequestOptions(q, knownHits, 0, false))
	if err != nil {
		return false, s.searchError(ctx, err, false)
	}
	ids := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		ids[i] = h.ID
	}
	for lo, hi := 0, min(1, len(ids)); lo < hi; lo, hi = hi, len(ids) {
		found, err := s.holdsIn(ctx, ids[lo:hi], typed)
		if err != nil || found {
			return found, err
		}
	}
	return false, nil
}

// holdsIn reports whether one of the documents ids holds the word typed
// as such in its title, headings or text.
func (s *Searcher) holdsIn(ctx context.Context, ids []string, typed string) (bool, error) {
	req := bleve.NewSearchRequestOptions(bleve.NewDocIDQuery(ids), len(ids), 0, false)
	req.Fields = textFields
	res, err := s.ix.Search(ctx, req)
	if err != nil {
		return false, s.searchError(ctx, err, false)
	}
	found := false
	for _, h := range res.Hits {
		for _, f := range textFields {
			for _, text := range fieldTexts(h.Fields, f) {
				tokens.Scan(text, func(start, end int, lower bool) {
					w := text[start:end]
					found = found || w == typed || !lower && strings.ToLower(w) == typed
				})
			}
		}
		if found {
			return true, nil
		}
	}
	return false, nil
}

// knownHits is how many of the pages matching a word typed are read to
// see whether one holds it as typed.
const knownHits = 50

// textAnalysis is the mapping that analyzes text fields
// (indexer.AnalyzerName).
var textAnalysis = sync.OnceValue(indexer.Mapping)

// dropped reports whether the text analyzer leaves nothing of word: a
// stop word, which no page is indexed as holding.
func dropped(word string) bool {
	ts, err := textAnalysis().AnalyzeText(indexer.AnalyzerName, []byte(word))
	return err == nil && len(ts) == 0
}

// textFields are the stored fields Suggest reads words from.
var textFields = []string{indexer.FieldTitle, indexer.FieldHeadings, indexer.FieldBody}

// fieldTexts returns the stored values of field f of a hit.
func fieldTexts(fields map[string]any, f string) []string {
	switch v := fields[f].(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, e := range v {
			if t, ok := e.(string); ok {
				out = append(out, t)
			}
		}
		return out
	}
	return nil
}

// cheap is the cost of a likely slip: a transposition, a doubled letter
// or a keyboard neighbour's letter; other edits cost 1.
const cheap = 0.75

// missed is the cost of the likeliest slip, a letter left out: "printr"
// is printer rather than print.
const missed = 0.7

// editCost is the weighted restricted Damerau–Levenshtein (optimal string
// alignment) distance from typed to word, in runes: each insertion,
// deletion, substitution and transposition of adjacent letters is one
// edit, and the likely slips cost cheap instead of 1 (see subCost), a
// letter left out missed.
func editCost(typed, word string) float64 {
	a, b := []rune(typed), []rune(word)
	d := make([][]float64, len(a)+1)
	for i := range d {
		d[i] = make([]float64, len(b)+1)
		d[i][0] = float64(i)
	}
	for j := 1; j <= len(b); j++ {
		d[0][j] = float64(j) * missed
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			sub := subCost(a[i-1], b[j-1])
			extra := 1.0 // a letter typed that the word lacks
			if i >= 2 && (a[i-2] == a[i-1] || neighbours(a[i-2], a[i-1])) || i < len(a) && neighbours(a[i], a[i-1]) {
				extra = cheap
			}
			d[i][j] = min(d[i-1][j]+extra, d[i][j-1]+missed, d[i-1][j-1]+sub)
			if i >= 2 && j >= 2 && a[i-1] == b[j-2] && a[i-2] == b[j-1] && a[i-1] != a[i-2] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+cheap)
			}
		}
	}
	return d[len(a)][len(b)]
}

// subCost is the cost of typing t for the word's letter w: none if
// they are the same, cheap for a keyboard neighbour or one vowel for
// another (people spell a sound: "seperate", "occurance"), else 1.
func subCost(t, w rune) float64 {
	switch {
	case t == w:
		return 0
	case neighbours(t, w) || vowel(t) && vowel(w):
		return cheap
	}
	return 1
}

// vowel reports whether r is a vowel of English spelling (y included:
// "analyse", "tipe").
func vowel(r rune) bool {
	return strings.ContainsRune("aeiouy", r)
}

// qwerty is the letter rows of a QWERTY keyboard.
var qwerty = [...]string{"1234567890", "qwertyuiop", "asdfghjkl", "zxcvbnm"}

// neighbours reports whether keys a and b touch on a QWERTY keyboard
// (same row, next to each other, or the rows above and below within one
// key).
func neighbours(a, b rune) bool {
	ra, ca := key(a)
	rb, cb := key(b)
	if ra < 0 || rb < 0 || a == b {
		return false
	}
	dr, dc := ra-rb, ca-cb
	switch dr {
	case 0:
		return dc == 1 || dc == -1
	case 1, -1:
		// Each row sits about half a key right of the one above it.
		if dr == 1 { // a below b
			return dc == 0 || dc == -1
		}
		return dc == 0 || dc == 1
	}
	return false
}

// key returns the row and column of r on a QWERTY keyboard, -1s if it
// has none.
func key(r rune) (row, col int) {
	for i, line := range qwerty {
		if c := strings.IndexRune(line, r); c >= 0 {
			return i, c
		}
	}
	return -1, -1
}

// A Completion is what a user typing may mean: a word of titles and
// headings they may see, or a title.
type Completion struct {
	Text  string `json:"text"`
	Kind  string `json:"kind"`  // "word" or "title"
	Count int    `json:"count"` // for a word: pages the user may see holding it (after other words: of those read)
}

// maxCompletions bounds Complete's answer.
const maxCompletions = 8

// completeByPrefix is Complete on an index that gives no vocabulary:
// the last word's prefix expanded to the words the user may see
// (multiterm, at most Options.MaxTerms), with the words before it, in
// one search of the best suggestHits pages, whose words and titles make
// the completions. (Cost: one posting list a word the prefix expands
// to, and for words before it the titles of suggestHits pages.)
func (s *Searcher) completeByPrefix(ctx context.Context, st *termStats, last, head string, before, groups []string) ([]Completion, error) {
	prefix := bleve.NewPrefixQuery(last)
	prefix.SetField(indexer.FieldWords)
	must := []query.Query{s.bound(prefix, groups, st)}
	for _, w := range before {
		t := bleve.NewTermQuery(w)
		t.SetField(indexer.FieldWords)
		must = append(must, t)
	}
	req := bleve.NewSearchRequestOptions(s.filtered(bleve.NewConjunctionQuery(must...), Request{Groups: groups}), suggestHits, 0, false)
	req.IncludeLocations = true
	if len(before) > 0 {
		// The titles say which word follows the word before. Loading a
		// stored field loads the page's whole stored document, its text
		// included: for a first word, only the titles shown are read
		// (titlesOf), of the best pages.
		req.Fields = []string{indexer.FieldTitle}
	}
	res, err := s.ix.Search(ctx, req)
	if err != nil {
		if err = s.searchError(ctx, err, false); errors.Is(err, ErrTooBroad) {
			return nil, nil // a prefix of too many words: type on
		}
		return nil, err
	}
	out := wordCompletions(res.Hits, last, head, before)
	return s.titleCompletions(ctx, out, res.Hits)
}

// splitTyped splits a partial query into its last word (lower-cased), what
// comes before it as typed (head) and the words before it (lower-cased).
func splitTyped(typed string) (last, head string, before []string) {
	end := len(strings.TrimRightFunc(typed, func(r rune) bool { return r == ' ' }))
	tokens.Scan(typed, func(start, stop int, _ bool) {
		w := strings.ToLower(typed[start:stop])
		if stop == end {
			last, head = w, typed[:start]
			return
		}
		before = append(before, w)
	})
	return last, head, before
}

// wordCompletions returns up to half of maxCompletions words of the hits'
// titles and headings that begin with last, each after head: first those
// that follow the last word before in titles, then the most frequent.
func wordCompletions(hits search.DocumentMatchCollection, last, head string, before []string) []Completion {
	held := map[string]int{} // word → pages holding it
	next := map[string]int{} // word → titles where it follows the word before
	for _, h := range hits {
		for w := range h.Locations[indexer.FieldWords] {
			if strings.HasPrefix(w, last) {
				held[w]++
			}
		}
		if t, _ := h.Fields[indexer.FieldTitle].(string); t != "" && len(before) > 0 {
			prev := ""
			tokens.Scan(t, func(start, stop int, _ bool) {
				w := strings.ToLower(t[start:stop])
				if prev == before[len(before)-1] && strings.HasPrefix(w, last) {
					next[w]++
				}
				prev = w
			})
		}
	}
	var out []Completion
	for w, n := range held {
		out = append(out, Completion{Text: head + w, Kind: "word", Count: n})
	}
	slices.SortFunc(out, func(a, b Completion) int {
		na, nb := next[strings.TrimPrefix(a.Text, head)], next[strings.TrimPrefix(b.Text, head)]
		return cmp.Or(nb-na, b.Count-a.Count, strings.Compare(a.Text, b.Text))
	})
	return out[:min(len(out), maxCompletions/2)]
}

// titleCompletions adds to out the distinct titles of the best hits, up
// to maxCompletions in all, reading the titles of those shown that were
// not read yet (their Fields nil).
func (s *Searcher) titleCompletions(ctx context.Context, out []Completion, all search.DocumentMatchCollection) ([]Completion, error) {
	seen := map[string]bool{}
	for lo := 0; lo < len(all) && len(out) < maxCompletions; {
		hits := all[lo:min(len(all), lo+maxCompletions-len(out))]
		lo += len(hits)
		var unread []*search.DocumentMatch
		for _, h := range hits {
			if h.Fields == nil {
				unread = append(unread, h)
			}
		}
		if len(unread) > 0 {
			if err := s.titlesOf(ctx, unread); err != nil {
				return nil, err
			}
		}
		for _, h := range hits {
			if t, _ := h.Fields[indexer.FieldTitle].(string); t != "" && !seen[t] && len(out) < maxCompletions {
				seen[t] = true
				out = append(out, Completion{Text: t, Kind: "title"})
			}
		}
	}
	return out, nil
}

// titlesOf reads the stored titles of hits into their fields, with one
// search.
func (s *Searcher) titlesOf(ctx context.Context, hits []*search.DocumentMatch) error {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	req := bleve.NewSearchRequestOptions(bleve.NewDocIDQuery(ids), len(ids), 0, false)
	req.Fields = []string{indexer.FieldTitle}
	res, err := s.ix.Search(ctx, req)
	if err != nil {
		return s.searchError(ctx, err, false)
	}
	title := make(map[string]any, len(res.Hits))
	for _, h := range res.Hits {
		title[h.ID] = h.Fields[indexer.FieldTitle]
	}
	for _, h := range hits {
		h.Fields = map[string]any{indexer.FieldTitle: title[h.ID]}
	}
	return nil
}
