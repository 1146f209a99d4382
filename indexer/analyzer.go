package indexer

import (
	"bytes"
	"strings"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	"github.com/blevesearch/bleve/v2/registry"

	"github.com/doppel-search/doppel/internal/tokens"
)

// AnalyzerName is the analyzer of the index's text fields and of the
// queries against them: Doppel's one tokenizer (package internal/tokens,
// the tokens near-duplicate detection compares: runs of letters or
// digits, lowercased, with Chinese, Japanese and Korean text cut into
// overlapping character bigrams), then English stop words and the Porter
// stemmer, which leave other scripts alone. So a query for 会議 matches
// the pages holding the word 会議 (the bigram), not those with 会 alone,
// and a phrase of CJK text matches its bigrams in order.
const AnalyzerName = "doppel"

// TokenizerName is the name of Doppel's tokenizer in bleve's registry.
const TokenizerName = "doppel"

// tokenizer is Doppel's tokenizer as a bleve Tokenizer: positions count
// tokens from 1 (consecutive bigrams of a CJK run are at consecutive
// positions), offsets are bytes of the input.
type tokenizer struct{}

// Tokenize splits input into Doppel's tokens.
func (tokenizer) Tokenize(input []byte) analysis.TokenStream {
	text := string(input)
	var out analysis.TokenStream
	pos := 0
	tokens.Scan(text, func(start, end int, lower bool) {
		term := input[start:end]
		if !lower {
			term = []byte(strings.ToLower(text[start:end]))
		}
		typ := analysis.AlphaNumeric
		if isIdeographic(text[start:end]) {
			typ = analysis.Ideographic
		}
		pos++
		out = append(out, &analysis.Token{Term: term, Start: start, End: end, Position: pos, Type: typ})
	})
	return out
}

// isIdeographic reports whether tok is CJK (a bigram or a lone
// character).
func isIdeographic(tok string) bool {
	for _, r := range tok {
		return tokens.IsCJK(r)
	}
	return false
}

func init() {
	err := registry.RegisterTokenizer(TokenizerName, func(map[string]any, *registry.Cache) (analysis.Tokenizer, error) {
		return tokenizer{}, nil
	})
	if err != nil {
		panic(err)
	}
	err = registry.RegisterAnalyzer(AnalyzerName, func(_ map[string]any, cache *registry.Cache) (analysis.Analyzer, error) {
		tok, err := cache.TokenizerNamed(TokenizerName)
		if err != nil {
			return nil, err
		}
		var filters []analysis.TokenFilter
		for _, name := range []string{en.StopName, porter.Name} {
			f, err := cache.TokenFilterNamed(name)
			if err != nil {
				return nil, err
			}
			filters = append(filters, f)
		}
		return &analysis.DefaultAnalyzer{Tokenizer: tok, TokenFilters: filters}, nil
	})
	if err != nil {
		panic(err)
	}
}

// WordsAnalyzerName is the analyzer of a field that holds a list of
// words already cut and lowercased by Doppel's tokenizer, written as
// one text with a space between words ([FieldSpell]): each word is a
// term as it is. One text analyzed once costs a fraction of a list of
// keyword values, each of which bleve analyzes and indexes as a field
// of its own.
const WordsAnalyzerName = "doppel-words"

// wordList is the tokenizer of [WordsAnalyzerName]: the runs of bytes
// between spaces, at positions from 1.
type wordList struct{}

// Tokenize splits input at spaces.
func (wordList) Tokenize(input []byte) analysis.TokenStream {
	out := make(analysis.TokenStream, 0, bytes.Count(input, []byte{' '})+1)
	start := 0
	for start < len(input) {
		end := bytes.IndexByte(input[start:], ' ')
		if end < 0 {
			end = len(input)
		} else {
			end += start
		}
		if end > start {
			typ := analysis.AlphaNumeric
			if isIdeographic(string(input[start:end])) {
				typ = analysis.Ideographic
			}
			out = append(out, &analysis.Token{Term: input[start:end], Start: start, End: end, Position: len(out) + 1, Type: typ})
		}
		start = end + 1
	}
	return out
}

func init() {
	err := registry.RegisterAnalyzer(WordsAnalyzerName, func(map[string]any, *registry.Cache) (analysis.Analyzer, error) {
		return &analysis.DefaultAnalyzer{Tokenizer: wordList{}}, nil
	})
	if err != nil {
		panic(err)
	}
}
