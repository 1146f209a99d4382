package lang

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	_ "github.com/blevesearch/bleve/v2/analysis/lang/ar" // registers the stop words of each language read here
	_ "github.com/blevesearch/bleve/v2/analysis/lang/bg"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/ca"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/cs"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/da"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/de"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/el"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/en"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/es"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/eu"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/fa"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/fi"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/fr"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/ga"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/hi"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/hr"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/hu"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/hy"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/id"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/it"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/nl"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/no"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/pl"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/pt"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/ro"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/ru"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/sv"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/tr"
	"github.com/blevesearch/bleve/v2/registry"

	"github.com/doppel-search/doppel/internal/tokens"
)

// stopLanguages are the languages Detect tells by their stop words (the
// lists bleve's analyzers use), as primary subtags. Galician is left out:
// its list is mostly Spanish and Portuguese words, and with it Spanish
// pages would seldom be told.
var stopLanguages = []string{"ar", "bg", "ca", "cs", "da", "de", "el", "en", "es", "eu", "fa", "fi", "fr", "ga",
	"hi", "hr", "hu", "hy", "id", "it", "nl", "no", "pl", "pt", "ro", "ru", "sv", "tr"}

// stopWords maps a word to the indexes in stopLanguages of the languages
// whose stop word it is.
var stopWords = sync.OnceValue(func() map[string][]int {
	cache := registry.NewCache()
	out := map[string][]int{}
	for i, l := range stopLanguages {
		m, err := cache.TokenMapNamed("stop_" + l)
		if err != nil {
			panic(err) // a language above without its list in bleve
		}
		for w := range m {
			out[w] = append(out[w], i)
		}
	}
	return out
})

// Detection limits: the words read, and what makes an answer.
const (
	detectWords = 3000 // the first words of the text are read
	minStops    = 8    // stop words of the language found, at least
	minAgree    = 1.5  // stop words of a URL's language in a text that agrees with it, at least (agrees)
	minShare    = 0.15 // share of the words read that are stop words of some language, at least
	minLead     = 2    // times the stop words of the next language, at least
	minCJK      = 0.3  // share of the tokens that must be CJK for a CJK answer
	maxRepeats  = 5    // occurrences of one stop word that count
)

// Detect returns the language text is written in, as a primary subtag,
// or "" when the text does not say so clearly. Chinese, Japanese and
// Korean are told by their scripts (kana is Japanese, Hangul Korean, Han
// alone Chinese, "zh-hans": Simplified and Traditional are not told
// apart); other languages by their stop words — the small words every
// sentence has, in the lists bleve's analyzers drop. Of the first 3,000
// words, at least 15 % must be stop words of some language, and one
// language must have at least eight and twice as many as any other, each
// word counted for a language as much as it tells it apart (a stop word
// of three languages counts a third for each), and for its first five
// occurrences only. Code, tables of names and
// short texts say nothing and get "". It is meant for pages and
// documents that do not declare their language: what a page declares
// comes first (see Of).
func Detect(text string) string {
	return read(text).language(minStops)
}

// agrees reports whether the text counted, too short or too mixed for
// Detect to name its language, is consistent with its being in the language l:
// CJK text for Chinese, Japanese or Korean; for a language told by its
// stop words, Detect's share of stop words, at least one and a half
// stop words of l, and no language with more than twice l's. So Danish
// text that Detect cannot tell from Norwegian agrees with "da", a
// heading and a sentence of German with "de", and English text with
// neither. It is how Of tells that a page's text agrees with the
// language section its URL names. Bokmål and Nynorsk ("nb", "nn") are
// told by the Norwegian stop words.
func (s stats) agrees(l string) bool {
	if l == "nb" || l == "nn" {
		l = "no"
	}
	i := slices.Index(stopLanguages, l)
	if i < 0 {
		return s.words > 0 && float64(s.cjk) >= minCJK*float64(s.words) && (l == "ja" || l == "ko" || strings.HasPrefix(l, "zh"))
	}
	c := s.counts[i]
	return c >= minAgree && float64(s.anyStop) >= minShare*float64(s.words-s.cjk) && c*minLead >= slices.Max(s.counts)
}

// stats is what Detect counts in a text.
type stats struct {
	counts                            []float64 // per language of stopLanguages
	words, cjk, kana, hangul, anyStop int
}

// read counts the words, CJK tokens and stop words of text's first
// detectWords words.
func read(text string) stats {
	stops := stopWords()
	counts := make([]float64, len(stopLanguages))
	var words, cjk, kana, hangul, anyStop int
	seen := map[string]int{} // occurrences of each stop word so far
	tokens.Scan(text, func(start, end int, lower bool) {
		if words >= detectWords {
			return
		}
		words++
		r, _ := utf8.DecodeRuneInString(text[start:end])
		if tokens.IsCJK(r) {
			cjk++
			for _, r := range text[start:end] {
				switch {
				case unicode.In(r, unicode.Hiragana, unicode.Katakana) || r >= 0x3040 && r <= 0x30FF:
					kana++
				case unicode.Is(unicode.Hangul, r):
					hangul++
				}
			}
			return
		}
		w := text[start:end]
		if !lower {
			w = strings.ToLower(w)
		}
		if len(stops[w]) == 0 {
			return
		}
		anyStop++
		// A word counts only for its first few occurrences — prose uses
		// many different small words; a name repeated down a list ("mod"
		// of mod_ssl, a Danish stop word) is one word — and for each of
		// its languages as much as it tells them apart: "de" (Spanish,
		// French, Dutch, Portuguese, …) little, "der" more, "the" in full.
		if seen[w]++; seen[w] > maxRepeats {
			return
		}
		for _, i := range stops[w] {
			counts[i] += 1 / float64(len(stops[w]))
		}
	})
	return stats{counts, words, cjk, kana, hangul, anyStop}
}

// language returns the language the counts say, with at least the given
// number of stop words of it (least), or "".
func (s stats) language(least float64) string {
	counts, words, cjk, kana, hangul, anyStop := s.counts, s.words, s.cjk, s.kana, s.hangul, s.anyStop
	if words == 0 {
		return ""
	}
	if float64(cjk) >= minCJK*float64(words) {
		switch {
		case hangul > kana:
			return "ko"
		case kana > 0 && kana*10 >= cjk: // a Japanese sentence is a third kana or more; a Chinese one has none
			return "ja"
		case kana == 0:
			return "zh-hans"
		}
		return ""
	}
	best, second := -1, 0.0
	for i, c := range counts {
		if best < 0 || c > counts[best] {
			if best >= 0 {
				second = counts[best]
			}
			best = i
		} else if c > second {
			second = c
		}
	}
	c := counts[best]
	if c < least || float64(anyStop) < minShare*float64(words-cjk) || c < minLead*second {
		return ""
	}
	return stopLanguages[best]
}
