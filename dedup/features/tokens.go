package features

import (
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/doppel-search/doppel/internal/tokens"
)

// Tokens returns the tokens of text, in order of appearance: maximal
// runs of Unicode letters or digits, lowercased, with Chinese, Japanese
// and Korean text cut into overlapping character bigrams — the one
// tokenizer of Doppel, shared with the search index (package
// internal/tokens has the definition). Invalid UTF-8 bytes separate
// tokens. It returns nil for text without letters or digits.
//
// Cost: O(len(text)); the slice of tokens, and one allocation for all the
// ASCII tokens that need lowercasing (others share text's memory, as CJK
// bigrams do), and one per other token that needs lowercasing.
func Tokens(text string) []string {
	toks := AppendTokens(make([]string, 0, len(text)/6+1), text)
	if len(toks) == 0 {
		return nil
	}
	return toks
}

// AppendTokens appends the tokens of text (see [Tokens]) to dst and returns
// the extended slice, so callers can reuse a buffer. The tokens are those
// of tokens.Append, lowercased as strings.ToLower does; an ASCII token
// with capitals is lowercased into one buffer shared by them all, not a
// string of its own.
func AppendTokens(dst []string, text string) []string {
	var lowered []byte // written once, never moved: the tokens point into it
	tokens.Scan(text, func(start, end int, lower bool) {
		t := text[start:end]
		if !lower {
			t, lowered = toLower(t, lowered, len(text)-start)
		}
		dst = append(dst, t)
	})
	return dst
}

// toLower returns t lowercased as strings.ToLower does: an ASCII t in
// buf's spare room (a new buffer of room bytes, at least len(t), when
// there is too little), returned with buf, any other t as a string of its
// own.
func toLower(t string, buf []byte, room int) (string, []byte) {
	for i := range len(t) {
		if t[i] >= utf8.RuneSelf {
			return strings.ToLower(t), buf
		}
	}
	if cap(buf)-len(buf) < len(t) {
		buf = make([]byte, 0, max(room, len(t)))
	}
	at := len(buf)
	for i := range len(t) {
		c := t[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf = append(buf, c)
	}
	return unsafe.String(&buf[at], len(t)), buf
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
