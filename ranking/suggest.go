package ranking

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/internal/tokens"
)

// suggestHits is how many of the documents holding a near word are read
// to count which word they hold.
const suggestHits = 200

// Suggest returns q with each word that no title or heading the user
// may see holds replaced by the nearest word that such titles and
// headings hold most often (one edit away, or two for words of eight
// letters or more; indexer.FieldWords) — Google's "Did you mean" — and
// "" if no word was replaced. Only pages the user may see are read, so a
// word that only a page they may not see holds is never suggested.
// Words shorter than four letters, CJK and digits are left as typed.
// Cost: one or two searches per word of q.
func (s *Searcher) Suggest(ctx context.Context, q string, groups []string) (string, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	type word struct{ start, end int }
	var words []word
	tokens.Scan(q, func(start, end int, _ bool) { words = append(words, word{start, end}) })
	var b strings.Builder
	last, changed := 0, false
	for _, w := range words {
		typed := strings.ToLower(q[w.start:w.end])
		fix, err := s.nearest(ctx, typed, groups)
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

// nearest returns the word to suggest for the word typed, "" if it needs
// none: it is short, not a word of letters, or a title or heading the
// user may see holds it.
func (s *Searcher) nearest(ctx context.Context, typed string, groups []string) (string, error) {
	n := utf8.RuneCountInString(typed)
	if n < 4 || strings.IndexFunc(typed, func(r rune) bool { return tokens.IsCJK(r) || r >= '0' && r <= '9' }) >= 0 {
		return "", nil
	}
	visible := func(q query.Query) query.Query { return s.filtered(q, Request{Groups: groups}) }
	exact := bleve.NewTermQuery(typed)
	exact.SetField(indexer.FieldWords)
	if held, err := s.exists(ctx, visible(exact)); err != nil || held {
		return "", err
	}
	fuzzy := bleve.NewFuzzyQuery(typed)
	fuzzy.SetField(indexer.FieldWords)
	fuzzy.SetFuzziness(1)
	if n >= 8 {
		fuzzy.SetFuzziness(2)
	}
	req := bleve.NewSearchRequestOptions(visible(s.bound(fuzzy, groups)), suggestHits, 0, false)
	req.IncludeLocations = true
	res, err := s.ix.Search(ctx, req)
	if err != nil {
		return "", s.searchError(ctx, err, false)
	}
	held := map[string]int{} // near word → documents holding it
	for _, h := range res.Hits {
		for w := range h.Locations[indexer.FieldWords] {
			held[w]++
		}
	}
	type cand struct {
		word       string
		dist, docs int
	}
	var cands []cand
	for w, docs := range held {
		cands = append(cands, cand{w, distance(typed, w), docs})
	}
	if len(cands) == 0 {
		return "", nil
	}
	best := slices.MinFunc(cands, func(a, b cand) int {
		return cmp.Or(a.dist-b.dist, b.docs-a.docs, strings.Compare(a.word, b.word))
	})
	return best.word, nil
}

// distance is the Levenshtein distance between a and b, in runes.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// A Completion is what a user typing may mean: a word of titles and
// headings they may see, or a title.
type Completion struct {
	Text  string `json:"text"`
	Kind  string `json:"kind"`  // "word" or "title"
	Count int    `json:"count"` // for a word: pages holding it (of those read)
}

// maxCompletions bounds Complete's answer.
const maxCompletions = 8

// Complete returns completions of the partial query typed: the words of
// titles and headings the user may see that begin with its last word,
// most frequent first, then the titles of the best pages holding one of
// them; at most 8, nothing for a last word shorter than two letters.
// Cost: one search.
func (s *Searcher) Complete(ctx context.Context, typed string, groups []string) ([]Completion, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	var last, head string
	tokens.Scan(typed, func(start, end int, _ bool) {
		if end == len(strings.TrimRightFunc(typed, func(r rune) bool { return r == ' ' })) {
			last, head = strings.ToLower(typed[start:end]), typed[:start]
		}
	})
	if utf8.RuneCountInString(last) < 2 || strings.HasSuffix(typed, " ") {
		return nil, nil
	}
	prefix := bleve.NewPrefixQuery(last)
	prefix.SetField(indexer.FieldWords)
	req := bleve.NewSearchRequestOptions(s.filtered(s.bound(prefix, groups), Request{Groups: groups}), suggestHits, 0, false)
	req.IncludeLocations = true
	req.Fields = []string{indexer.FieldTitle}
	res, err := s.ix.Search(ctx, req)
	if err != nil {
		if err = s.searchError(ctx, err, false); errors.Is(err, ErrTooBroad) {
			return nil, nil // a prefix of too many words: type on
		}
		return nil, err
	}
	held := map[string]int{}
	for _, h := range res.Hits {
		for w := range h.Locations[indexer.FieldWords] {
			held[w]++
		}
	}
	var out []Completion
	for w, n := range held {
		out = append(out, Completion{Text: head + w, Kind: "word", Count: n})
	}
	slices.SortFunc(out, func(a, b Completion) int { return cmp.Or(b.Count-a.Count, strings.Compare(a.Text, b.Text)) })
	out = out[:min(len(out), maxCompletions/2)]
	seen := map[string]bool{}
	for _, h := range res.Hits {
		if t, _ := h.Fields[indexer.FieldTitle].(string); t != "" && !seen[t] && len(out) < maxCompletions {
			seen[t] = true
			out = append(out, Completion{Text: t, Kind: "title"})
		}
	}
	return out, nil
}
