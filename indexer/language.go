package indexer

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/ar" // registers "ar"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/ckb" // registers "ckb"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/da"  // registers "da"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/de"  // registers "de"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/es"  // registers "es"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/fa"  // registers "fa"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/fi"  // registers "fi"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/fr"  // registers "fr"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/hi"  // registers "hi"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/hr"  // registers "hr"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/hu"  // registers "hu"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/it"  // registers "it"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/nl"  // registers "nl"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/no"  // registers "no"
	blevepl "github.com/blevesearch/bleve/v2/analysis/lang/pl"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/pt" // registers "pt"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/ro" // registers "ro"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/ru" // registers "ru"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/sv" // registers "sv"
	"github.com/blevesearch/bleve/v2/analysis/lang/tr"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/registry"
)

// languageAnalyzers are bleve's analyzers of languages whose words need
// more than the default analyzer does (their own stop words, stemmer or
// normalization), by primary language subtag. Each page language among
// them is indexed with Doppel's tokenizer and that analyzer's filters.
var languageAnalyzers = map[string]string{
	"ar": "ar", "ckb": "ckb", "da": "da", "de": "de", "es": "es", "fa": "fa", "fi": "fi", "fr": "fr",
	"hi": "hi", "hr": "hr", "hu": "hu", "it": "it", "nl": "nl", "no": "no", "nb": "no", "nn": "no",
	"pl": "pl", "pt": "pt", "ro": "ro", "ru": "ru", "sv": "sv", "tr": "tr",
}

// cjkLanguages are the languages written without spaces between words,
// whose text the tokenizer already cuts into bigrams.
var cjkLanguages = []string{"ja", "ko", "zh-hans", "zh-hant"}

// analyzerPrefix starts the names of the per-language analyzers.
const analyzerPrefix = AnalyzerName + "-"

// AnalyzerFor returns the name of the analyzer of a page in language l
// (a primary subtag as package internal/lang gives it: "de", "ja",
// "zh-hans"): Doppel's tokenizer (the tokens the detector compares)
// followed by the filters of bleve's analyzer for that language — its
// stop words, normalization and stemmer ("doppel-de", "doppel-fr", …;
// Turkish words stand as their Snowball stem and as written, so that a
// bare noun meets its plural: see turkishForms);
// for Chinese, Japanese and Korean "doppel-cjk" (the tokenizer's bigrams,
// full- and half-width forms folded, no stemmer); and [AnalyzerName]
// (English stop words and the Porter stemmer) for English, for a language
// bleve has no analyzer for, and for an unknown language.
func AnalyzerFor(l string) string {
	if slices.Contains(cjkLanguages, l) {
		return analyzerPrefix + cjk.AnalyzerName
	}
	if name, ok := languageAnalyzers[l]; ok {
		return analyzerPrefix + name
	}
	return AnalyzerName
}

// Analyzers returns the distinct analyzers of pages in the languages
// langs ([AnalyzerFor] of each), [AnalyzerName] first and always: the
// analyzers a query must be analyzed with to match the pages of an
// index holding those languages.
func Analyzers(langs []string) []string {
	out := []string{AnalyzerName}
	for _, l := range langs {
		if a := AnalyzerFor(l); !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

// allLanguages returns every language with an analyzer of its own, in a
// fixed order.
func allLanguages() []string {
	out := slices.Clone(cjkLanguages)
	for l := range languageAnalyzers {
		out = append(out, l)
	}
	slices.Sort(out)
	return out
}

// docTypeFor returns the bleve document type of a page in language l:
// [DocType] for pages analyzed by [AnalyzerName], else DocType + "/" and
// the analyzer's language ("doppel/de", "doppel/cjk").
func docTypeFor(l string) string {
	a := AnalyzerFor(l)
	if a == AnalyzerName {
		return DocType
	}
	return DocType + "/" + strings.TrimPrefix(a, analyzerPrefix)
}

// languageTypes returns the per-language analyzer names (without
// [AnalyzerName]), each once, in a fixed order.
func languageTypes() []string {
	var out []string
	for _, name := range languageAnalyzers {
		if a := analyzerPrefix + name; !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	slices.Sort(out)
	return append(out, analyzerPrefix+cjk.AnalyzerName)
}

// replacedFilters are the token filters of bleve's language analyzers
// that Doppel's replace, by analyzer: bleve's filter name, then Doppel's.
var replacedFilters = map[string][2]string{
	tr.AnalyzerName: {tr.SnowballStemmerName, turkishFormsName},
}

// sharedFilters are token filters of bleve's language analyzers that
// cost much to build and are read-only once built, by analyzer: bleve's
// filter name, then the filter built once a process. Each index's
// analysis cache is given the shared filter under bleve's name before
// bleve's analyzer is built there, instead of building its own: Polish's
// stemmer reads its table (131 ms of wall at a load of 26) each time, and
// every index built every language's analyzers when it was opened.
var sharedFilters = map[string]struct {
	name  string
	build func() (analysis.TokenFilter, error)
}{
	blevepl.AnalyzerName: {blevepl.SnowballStemmerName, sync.OnceValues(func() (analysis.TokenFilter, error) {
		return blevepl.NewPolishStemmerFilter()
	})},
}

// sharedFilterType is the registered type of the shared filter of bleve's
// analyzer base.
func sharedFilterType(base string) string {
	return analyzerPrefix + "shared-" + sharedFilters[base].name
}

func init() {
	for base, f := range sharedFilters {
		err := registry.RegisterTokenFilter(sharedFilterType(base), func(map[string]any, *registry.Cache) (analysis.TokenFilter, error) {
			return f.build()
		})
		if err != nil {
			panic(err)
		}
	}
	for _, a := range languageTypes() {
		base := strings.TrimPrefix(a, analyzerPrefix)
		err := registry.RegisterAnalyzer(a, func(_ map[string]any, cache *registry.Cache) (analysis.Analyzer, error) {
			return languageAnalyzer(base, cache)
		})
		if err != nil {
			panic(err)
		}
	}
}

// languageAnalyzer returns the analyzer of the language analyzed by
// bleve's analyzer base: Doppel's tokenizer and the analyzer's filters
// but lowercasing (the tokenizer lowercases), with replacedFilters
// replaced.
func languageAnalyzer(base string, cache *registry.Cache) (analysis.Analyzer, error) {
	tok, err := cache.TokenizerNamed(TokenizerName)
	if err != nil {
		return nil, err
	}
	if base == cjk.AnalyzerName {
		// The tokenizer makes the bigrams; only the width folding of
		// bleve's cjk analyzer is wanted.
		w, err := cache.TokenFilterNamed(cjk.WidthName)
		if err != nil {
			return nil, err
		}
		return &analysis.DefaultAnalyzer{Tokenizer: tok, TokenFilters: []analysis.TokenFilter{w}}, nil
	}
	if f, ok := sharedFilters[base]; ok {
		// Defined already if another analyzer of this cache was built
		// first: then it holds the shared one (or bleve's, built before).
		_, err := cache.DefineTokenFilter(f.name, map[string]any{"type": sharedFilterType(base)})
		if err != nil && !errors.Is(err, registry.ErrAlreadyDefined) {
			return nil, err
		}
	}
	theirs, err := cache.AnalyzerNamed(base)
	if err != nil {
		return nil, err
	}
	da, ok := theirs.(*analysis.DefaultAnalyzer)
	if !ok {
		return nil, fmt.Errorf("indexer: bleve's analyzer %q is a %T, not a DefaultAnalyzer", base, theirs)
	}
	drop, err := cache.TokenFilterNamed(lowercase.Name)
	if err != nil {
		return nil, err
	}
	var old, ours analysis.TokenFilter
	if r, ok := replacedFilters[base]; ok {
		if old, err = cache.TokenFilterNamed(r[0]); err != nil {
			return nil, err
		}
		if ours, err = cache.TokenFilterNamed(r[1]); err != nil {
			return nil, err
		}
	}
	var filters []analysis.TokenFilter
	for _, f := range da.TokenFilters {
		switch {
		case f == drop:
		case old != nil && f == old:
			filters = append(filters, ours)
		default:
			filters = append(filters, f)
		}
	}
	return &analysis.DefaultAnalyzer{Tokenizer: tok, TokenFilters: filters}, nil
}
