package ranking

import (
	"cmp"
	"time"

	"net/url"
	"slices"
	"strings"

	"github.com/blevesearch/bleve/v2/numeric"

	"github.com/blevesearch/bleve/v2/search"

	"github.com/doppel-search/doppel/indexer"
)

// The facets a result counts (Result.Facets), by name.
const (
	FacetHost    = "host"    // the host, with its port
	FacetSection = "section" // the site section: the URL path's first segment, "/java/" ("/" for a page at the root)
	FacetType    = "type"    // "html" or a document's format ("pdf", "docx", …)
	FacetLang    = "lang"    // the language (a primary subtag); pages of unknown language are not counted
	// FacetModified is the last-modified date by range: "week" (the past
	// 7 days), "month" (the 30 days before), "year" (the 365), "older",
	// and "undated".
	FacetModified = "modified"
)

// Facets lists the facet names in the order they are shown.
var Facets = []string{FacetHost, FacetSection, FacetType, FacetLang, FacetModified}

// The date ranges of FacetModified, newest first, with their age limits.
var dateRanges = []struct {
	name string
	age  time.Duration
}{{"week", 7 * 24 * time.Hour}, {"month", 30 * 24 * time.Hour}, {"year", 365 * 24 * time.Hour}}

// dateRange returns the FacetModified value of a date, at now.
func dateRange(at, now time.Time) string {
	if at.IsZero() {
		return "undated"
	}
	for _, r := range dateRanges {
		if now.Sub(at) <= r.age {
			return r.name
		}
	}
	return "older"
}

// maxFacetValues bounds the values of one facet returned: the most
// frequent.
const maxFacetValues = 20

// A FacetValue is a value of a facet and how many clusters of the result
// have it.
type FacetValue struct {
	Value string `json:"value"`
	Count int    `json:"count"`
}

// facetKeys returns the sort keys that carry a hit's facet values, after
// the cluster and master flag (candidates).
func facetKeys() search.SortOrder {
	var out search.SortOrder
	for _, f := range []string{indexer.FieldHost, indexer.FieldURL, indexer.FieldType, indexer.FieldLang} {
		out = append(out, &search.SortField{Field: f})
	}
	return append(out, &search.SortField{Field: indexer.FieldLastModified, Type: search.SortFieldAsDate})
}

// values are a document's facet values, by facet (in Facets' order), and
// its last-modified date (zero if unknown).
type values struct {
	v  [5]string
	at time.Time
}

// valuesOf reads a hit's facet values from its sort keys, from index k
// on, the date range as at now.
func valuesOf(h *search.DocumentMatch, k int, now time.Time) values {
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
	var at time.Time
	if n, err := numeric.PrefixCoded(key(4)).Int64(); key(4) != "" && err == nil {
		at = time.Unix(0, n).UTC()
	}
	return values{v: [5]string{key(0), sectionOf(key(1)), t, key(3), dateRange(at, now)}, at: at}
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

// filter is what a request keeps of the documents by their facet
// values: a value per facet (in Facets' order, "" for any; the host with
// or without its port) and a date range.
type filter struct {
	v        [5]string
	from, to time.Time // from ≤ date < to, where set
	dated    bool      // undated documents are dropped too
}

// filter returns r's filter.
func (r Request) filter() filter {
	return filter{v: [5]string{r.Host, r.Section, r.Type, r.Lang, r.Modified}, from: r.From, to: r.To, dated: r.Dated}
}

// faceted reports whether r needs every candidate's facet values: it
// asks for facets or filters by one of them or by From, To or Dated.
func (r Request) faceted() bool {
	f := r.filter()
	return r.Facets || [4]string(f.v[1:]) != [4]string{} || !f.from.IsZero() || !f.to.IsZero() || f.dated
}

// keep reports whether a document with values v passes f.
func (f filter) keep(v values) bool {
	for i, want := range f.v {
		switch {
		case want == "":
		case i == 0: // host, with or without its port
			if v.v[0] != want && hostname(v.v[0]) != want {
				return false
			}
		case v.v[i] != want:
			return false
		}
	}
	if v.at.IsZero() {
		return !f.dated
	}
	return (f.from.IsZero() || !v.at.Before(f.from)) && (f.to.IsZero() || v.at.Before(f.to))
}

// hostname returns host without its port.
func hostname(host string) string {
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.Contains(host[i:], "]") {
		return host[:i]
	}
	return host
}

// count returns the facets of the clusters order: for each value, the
// clusters with a hit of that value (rep.values) — as many as filtering
// by the value keeps, since a filter keeps documents before collapsing.
// A cluster whose hits differ in a facet counts under each of their
// values.
func count(order []string, best map[string]*rep) map[string][]FacetValue {
	counts := make([]map[string]int, len(Facets))
	for i := range counts {
		counts[i] = map[string]int{}
	}
	for _, c := range order {
		for i, vs := range best[c].values {
			for _, x := range vs {
				counts[i][x]++
			}
		}
	}
	return facetValues(counts)
}

// facetValues returns counts (by facet, in Facets' order) as facets, the
// most frequent values first (at most maxFacetValues of each).
func facetValues(counts []map[string]int) map[string][]FacetValue {
	out := map[string][]FacetValue{}
	for i, name := range Facets {
		fv := make([]FacetValue, 0, len(counts[i]))
		for v, n := range counts[i] {
			if n > 0 {
				fv = append(fv, FacetValue{v, n})
			}
		}
		slices.SortFunc(fv, func(a, b FacetValue) int { return cmp.Or(b.Count-a.Count, strings.Compare(a.Value, b.Value)) })
		out[name] = fv[:min(len(fv), maxFacetValues)]
	}
	return out
}

// memberValues returns the facet values of a member record, at now.
func memberValues(m *indexer.Member, now time.Time) values {
	typ := m.Type
	if typ == "" {
		typ = "html"
	}
	return values{v: [5]string{hostOf(m.URL), sectionOf(m.URL), typ, m.Lang, dateRange(m.LastModified, now)}, at: m.LastModified}
}
