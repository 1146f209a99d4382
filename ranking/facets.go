package ranking

import (
	"cmp"
	"net/url"
	"slices"
	"strings"

	"github.com/blevesearch/bleve/v2/search"

	"github.com/doppel-search/doppel/indexer"
)

// The facets a result counts (Result.Facets), by name.
const (
	FacetHost    = "host"    // the host, with its port
	FacetSection = "section" // the site section: the URL path's first segment, "/java/" ("/" for a page at the root)
	FacetType    = "type"    // "html" or a document's format ("pdf", "docx", …)
	FacetLang    = "lang"    // the language (a primary subtag); pages of unknown language are not counted
)

// Facets lists the facet names in the order they are shown.
var Facets = []string{FacetHost, FacetSection, FacetType, FacetLang}

// maxFacetValues bounds the values of one facet returned: the most
// frequent.
const maxFacetValues = 20

// A FacetValue is a value of a facet and how many clusters of the result
// have it.
type FacetValue struct {
	Value string `json:"value"`
	Count int    `json:"count"`
}

// facetKeys are the sort keys that carry a hit's facet values, after the
// cluster and master flag (candidates).
var facetKeys = []string{indexer.FieldHost, indexer.FieldURL, indexer.FieldType, indexer.FieldLang}

// values are a document's facet values, by facet (in Facets' order).
type values [4]string

// valuesOf reads a hit's facet values from its sort keys, from index k
// on.
func valuesOf(h *search.DocumentMatch, k int) values {
	key := func(i int) string {
		v := h.Sort[k+i]
		if v == search.HighTerm || v == search.LowTerm {
			return ""
		}
		return v
	}
	t := key(2)
	if t == "" {
		t = "html"
	}
	return values{key(0), sectionOf(key(1)), t, key(3)}
}

// sectionOf returns the site section of a URL: the first segment of its
// path, between slashes ("/java/"), or "/" for a page at the root.
func sectionOf(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	p := strings.TrimPrefix(u.Path, "/")
	first, _, nested := strings.Cut(p, "/")
	if !nested || first == "" {
		return "/"
	}
	return "/" + first + "/"
}

// filters are the facet filters of a request, in Facets' order ("" for
// none); the host filter matches with or without the port.
func (r Request) filters() values { return values{r.Host, r.Section, r.Type, r.Lang} }

// faceted reports whether r needs every candidate's facet values: it
// asks for facets or filters by section, type or language.
func (r Request) faceted() bool { return r.Facets || r.Section != "" || r.Type != "" || r.Lang != "" }

// keep reports whether a document with values v passes the filters f.
func (f values) keep(v values) bool {
	for i, want := range f {
		switch {
		case want == "":
		case i == 0: // host, with or without its port
			if v[0] != want && hostname(v[0]) != want {
				return false
			}
		case v[i] != want:
			return false
		}
	}
	return true
}

// hostname returns host without its port.
func hostname(host string) string {
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.Contains(host[i:], "]") {
		return host[:i]
	}
	return host
}

// count returns the facets of the clusters order, each counted once by
// the values of the hit that stands for it.
func count(order []string, best map[string]*rep, promote float64) map[string][]FacetValue {
	counts := make([]map[string]int, len(Facets))
	for i := range counts {
		counts[i] = map[string]int{}
	}
	for _, c := range order {
		b := best[c]
		v := b.values
		if b.representative(promote) == b.master {
			v = b.mvalues
		}
		for i, x := range v {
			if x != "" {
				counts[i][x]++
			}
		}
	}
	out := map[string][]FacetValue{}
	for i, name := range Facets {
		fv := make([]FacetValue, 0, len(counts[i]))
		for v, n := range counts[i] {
			fv = append(fv, FacetValue{v, n})
		}
		slices.SortFunc(fv, func(a, b FacetValue) int { return cmp.Or(b.Count-a.Count, strings.Compare(a.Value, b.Value)) })
		out[name] = fv[:min(len(fv), maxFacetValues)]
	}
	return out
}
