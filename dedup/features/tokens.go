package features

import (
	"unicode"

	"github.com/doppel-search/doppel/internal/tokens"
)

// Tokens returns the tokens of text, in order of appearance: maximal
// runs of Unicode letters or digits, lowercased, with Chinese, Japanese
// and Korean text cut into overlapping character bigrams — the one
// tokenizer of Doppel, shared with the search index (package
// internal/tokens has the definition). Invalid UTF-8 bytes separate
// tokens. It returns nil for text without letters or digits.
//
// Cost: O(len(text)); one allocation per token that needs lowercasing, none
// for ASCII tokens that are already lowercase and for CJK bigrams (they
// share text's memory).
func Tokens(text string) []string {
	toks := AppendTokens(make([]string, 0, len(text)/6+1), text)
	if len(toks) == 0 {
		return nil
	}
	return toks
}

// AppendTokens appends the tokens of text (see [Tokens]) to dst and returns
// the extended slice, so callers can reuse a buffer.
func AppendTokens(dst []string, text string) []string {
	return tokens.Append(dst, text)
}

// digitCount reports how many decimal digits tok holds.
func digitCount(tok string) int {
	n := 0
	for _, r := range tok {
		if unicode.IsDigit(r) {
			n++
		}
	}
	return n
}

// isNumber reports whether tok is made only of digits.
func isNumber(tok string) bool {
	for _, r := range tok {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return tok != ""
}
