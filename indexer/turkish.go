package indexer

import (
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/tr"
	"github.com/blevesearch/bleve/v2/registry"
	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/turkish"
)

// turkishFormsName is the token filter that takes the place of bleve's
// Snowball stemmer in the Turkish analyzer ("doppel-tr").
const turkishFormsName = "doppel-tr-forms"

// turkishForms stems Turkish words so that a bare noun and its inflected
// forms meet. Snowball's Turkish stemmer reads the end of a bare word as
// a case or possessive suffix ("site" → "si", "sürüm" → "sür", "sunucu"
// → "sunuç") but stops at the suffix a plural allows before it
// ("siteler" → "site", "sürümler" → "sürüm"), so the two forms make
// different terms. Each word therefore stands as its stem and, at the
// same position, as itself (what Lucene's KeywordRepeatFilter does): the
// plural's stem is the bare word, which the bare word's page holds, and
// the bare word in a query meets the plural's stem in the page. A word
// whose stem is a stop word ("diğeri", "olanlar": "diğer", "olan") is
// dropped, as the stop word itself is before it.
type turkishForms struct {
	stop analysis.TokenMap
}

// Filter returns the stems and words of input, as described on
// turkishForms.
func (f *turkishForms) Filter(input analysis.TokenStream) analysis.TokenStream {
	out := make(analysis.TokenStream, 0, len(input)*2)
	for _, tok := range input {
		env := snowballstem.NewEnv(string(tok.Term))
		turkish.Stem(env)
		stem := env.Current()
		if f.stop[stem] {
			continue
		}
		if stem == string(tok.Term) {
			out = append(out, tok)
			continue
		}
		word := *tok
		tok.Term = []byte(stem)
		out = append(out, tok, &word)
	}
	return out
}

func init() {
	err := registry.RegisterTokenFilter(turkishFormsName, func(_ map[string]any, cache *registry.Cache) (analysis.TokenFilter, error) {
		stop, err := cache.TokenMapNamed(tr.StopName)
		if err != nil {
			return nil, err
		}
		return &turkishForms{stop: stop}, nil
	})
	if err != nil {
		panic(err)
	}
}
