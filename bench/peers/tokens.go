package main

import (
	"unicode"
	"unicode/utf8"
)

// A tokenizer cuts a text into the tokens of the shared corpus definition
// (../shared/corpus/README.md): maximal runs of Unicode letters and
// digits, lowercased, except that a run of Chinese, Japanese or Korean
// characters gives its overlapping two-character bigrams (or the lone
// character when the run has one). Its buffers are reused from text to
// text, so a warm tokenizer does not allocate. A tokenizer is not safe
// for concurrent use.
type tokenizer struct {
	buf   []byte   // the tokens' bytes, back to back
	ends  []int    // end of each token in buf
	toks  [][]byte // tokens as slices of buf (tokens)
	shing []byte   // the current shingle (eachShingle)
}

// isCJK reports whether r belongs to the scripts written without spaces
// between words that the definition cuts into bigrams: Han, Hiragana,
// Katakana, Hangul, the kana blocks' marks such as ー, and 々.
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		(r >= 0x3040 && r <= 0x30FF) || r == 0x3005
}

// reset tokenizes text; the tokens are then read with n and token (or
// tokens). Cost: O(len(text)).
func (t *tokenizer) reset(text string) {
	buf, ends := t.buf[:0], t.ends[:0]
	word := false // inside a run of (non-CJK) letters and digits
	cjk := 0      // runes in the current CJK run
	var prev rune // the last rune of the current CJK run
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf { // ASCII
			i++
			if cjk > 0 { // (word is false in a CJK run)
				buf, ends = endRun(buf, ends, cjk, prev)
				cjk = 0
			}
			if lc, ok := asciiAlnum(c); ok {
				buf, word = append(buf, lc), true
			} else {
				ends, word = endWord(ends, word, len(buf))
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		alnum := unicode.IsLetter(r) || unicode.IsDigit(r)
		if alnum && isCJK(r) {
			ends, word = endWord(ends, word, len(buf))
			if cjk > 0 {
				buf = utf8.AppendRune(utf8.AppendRune(buf, prev), r)
				ends = append(ends, len(buf))
			}
			prev = r
			cjk++
			continue
		}
		buf, ends = endRun(buf, ends, cjk, prev)
		cjk = 0
		if !alnum {
			ends, word = endWord(ends, word, len(buf))
			continue
		}
		buf, word = utf8.AppendRune(buf, unicode.ToLower(r)), true
	}
	ends, _ = endWord(ends, word, len(buf))
	buf, ends = endRun(buf, ends, cjk, prev)
	t.buf, t.ends = buf, ends
}

// asciiAlnum returns the ASCII byte c lower-cased, and whether it is a
// letter or a digit.
func asciiAlnum(c byte) (byte, bool) {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A', true
	}
	return c, 'a' <= c && c <= 'z' || '0' <= c && c <= '9'
}

// endRun ends a CJK run of cjk runes, the last prev: a run of one rune
// is a token of its own (longer runs gave their bigrams already).
func endRun(buf []byte, ends []int, cjk int, prev rune) ([]byte, []int) {
	if cjk == 1 {
		buf = utf8.AppendRune(buf, prev)
		ends = append(ends, len(buf))
	}
	return buf, ends
}

// endWord ends the token being read, if word, at n bytes of the buffer.
func endWord(ends []int, word bool, n int) ([]int, bool) {
	if word {
		ends = append(ends, n)
	}
	return ends, false
}

// n returns the number of tokens of the last reset.
func (t *tokenizer) n() int { return len(t.ends) }

// token returns token i of the last reset, valid until the next reset.
func (t *tokenizer) token(i int) []byte {
	s := 0
	if i > 0 {
		s = t.ends[i-1]
	}
	return t.buf[s:t.ends[i]:t.ends[i]]
}

// tokens returns every token of the last reset, valid until the next
// reset.
func (t *tokenizer) tokens() [][]byte {
	toks := t.toks[:0]
	for i := range t.ends {
		toks = append(toks, t.token(i))
	}
	t.toks = toks
	return toks
}

// eachShingle calls f with every word w-shingle of the last reset (w
// consecutive tokens joined by single spaces), or with every token when
// there are fewer than w: the elements of the definition's set (repeats
// included; a set is what f makes of them). The slice f gets is reused.
func (t *tokenizer) eachShingle(w int, f func([]byte)) {
	n := t.n()
	if n < w {
		for i := 0; i < n; i++ {
			f(t.token(i))
		}
		return
	}
	for i := 0; i+w <= n; i++ {
		s := t.shing[:0]
		for j := i; j < i+w; j++ {
			if j > i {
				s = append(s, ' ')
			}
			s = append(s, t.token(j)...)
		}
		t.shing = s
		f(s)
	}
}

// fnv1a returns the 64-bit FNV-1a hash of b, started from basis (the
// standard offset basis is 14695981039346656037).
func fnv1a(b []byte, basis uint64) uint64 {
	h := basis
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// mix64 is the finalizer of MurmurHash3: it spreads every bit of x over
// the result.
func mix64(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}
