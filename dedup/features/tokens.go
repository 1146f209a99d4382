package features

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tokens returns the tokens of text: maximal runs of Unicode letters or
// digits, lowercased, in order of appearance. Invalid UTF-8 bytes separate
// tokens. It returns nil for text without letters or digits.
//
// Cost: O(len(text)); one allocation per token that needs lowercasing, none
// for ASCII tokens that are already lowercase (they share text's memory).
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
	start := -1   // byte offset of the current token, -1 outside one
	lower := true // the current token is already lowercase ASCII
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			if isASCIIAlnum(c) {
				if start < 0 {
					start, lower = i, true
				}
				if 'A' <= c && c <= 'Z' {
					lower = false
				}
			} else if start >= 0 {
				dst = appendToken(dst, text[start:i], lower)
				start = -1
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			if start < 0 {
				start = i
			}
			lower = false
		} else if start >= 0 {
			dst = appendToken(dst, text[start:i], lower)
			start = -1
		}
		i += size
	}
	if start >= 0 {
		dst = appendToken(dst, text[start:], lower)
	}
	return dst
}

func appendToken(dst []string, tok string, lower bool) []string {
	if lower {
		return append(dst, tok)
	}
	return append(dst, strings.ToLower(tok))
}

func isASCIIAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
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
