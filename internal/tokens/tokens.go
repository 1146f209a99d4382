// Package tokens is Doppel's one tokenizer, used alike by near-duplicate
// detection (dedup/features) and by the search index's analyzer
// (indexer), so that what the detector compares and what a query matches
// are the same words.
//
// A token is a maximal run of Unicode letters or digits, lowercased;
// everything else separates tokens (`Vec<T>::new()` → vec, t, new;
// `x86_64` → x86, 64). Chinese, Japanese and Korean characters (scripts
// Han, Hiragana, Katakana, Hangul, the kana marks such as ー, and 々),
// written without spaces between words, are cut out of those runs: each
// maximal run of them gives its overlapping two-character bigrams, or the
// lone character when the run has one, as Lucene's CJKBigramFilter does:
// "東京都の会議room2" → 東京 京都 都の の会 会議 room2. This is the
// definition of the shared corpus's ground truth (its README, and its
// reference implementation, kit/internal/sim.Tokens); the tests check the
// two agree.
package tokens

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Scan calls emit for each token of text, in order, with its byte range
// in text and whether text[start:end] is already lowercase (so the token
// is that substring; otherwise strings.ToLower of it). A CJK bigram's
// range covers its two characters; consecutive bigrams overlap by one.
// Invalid UTF-8 bytes separate tokens.
//
// Cost: O(len(text)), no allocation.
func Scan(text string, emit func(start, end int, lower bool)) {
	start := -1   // byte offset of the current (non-CJK) token, -1 outside one
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
				emit(start, i, lower)
				start = -1
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case cjkLetter(r):
			if start >= 0 {
				emit(start, i, lower)
				start = -1
			}
			i = scanCJK(text, i, emit)
			continue
		case r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if start < 0 {
				start = i
			}
			lower = false
		case start >= 0:
			emit(start, i, lower)
			start = -1
		}
		i += size
	}
	if start >= 0 {
		emit(start, len(text), lower)
	}
}

// scanCJK emits the bigrams of the run of CJK characters starting at i
// (or its lone character) and returns where the run ends.
func scanCJK(text string, i int, emit func(start, end int, lower bool)) int {
	prev := -1 // start of the previous character of the run
	n := 0     // characters in the run
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !cjkLetter(r) {
			break
		}
		if prev >= 0 {
			emit(prev, i+size, true)
		}
		prev = i
		n++
		i += size
	}
	if n == 1 {
		emit(prev, i, true)
	}
	return i
}

// Append appends the tokens of text (see the package documentation) to
// dst and returns the extended slice. Tokens that are already lowercase
// share text's memory.
func Append(dst []string, text string) []string {
	Scan(text, func(start, end int, lower bool) {
		if lower {
			dst = append(dst, text[start:end])
		} else {
			dst = append(dst, strings.ToLower(text[start:end]))
		}
	})
	return dst
}

// IsCJK reports whether r is written without spaces between words and is
// therefore cut into bigrams: a letter of the scripts Han, Hiragana,
// Katakana or Hangul, a character of the kana blocks (with the prolonged
// sound mark ー), or 々.
func IsCJK(r rune) bool {
	if r < 0x1100 { // below Hangul Jamo: no CJK script
		return false
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		(r >= 0x3040 && r <= 0x30FF) || // kana blocks, with the prolonged sound mark ー
		r == 0x3005 // 々
}

// cjkLetter reports whether r is a letter or digit that IsCJK: what
// bigrams are made of (kana punctuation such as ・ separates tokens).
func cjkLetter(r rune) bool {
	return IsCJK(r) && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

func isASCIIAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
