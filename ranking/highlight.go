package ranking

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/blevesearch/bleve/v2/registry"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/highlight"
	simpleFragmenter "github.com/blevesearch/bleve/v2/search/highlight/fragmenter/simple"
	simpleHighlighter "github.com/blevesearch/bleve/v2/search/highlight/highlighter/simple"
	index "github.com/blevesearch/bleve_index_api"
)

// The snippet highlighter marks matches with two private-use characters
// instead of HTML, so that snippets stay plain text (spans) and whoever
// writes them out does the escaping.
const (
	highlighterName = "doppel-spans"
	markOpen        = "\ue000"
	markClose       = "\ue001"
)

type spanFormatter struct{}

// Format writes the fragment with each term location between markOpen
// and markClose; the marker characters themselves are dropped from the
// text.
func (spanFormatter) Format(f *highlight.Fragment, locations highlight.TermLocations) string {
	clean := func(b []byte) string {
		return strings.NewReplacer(markOpen, "", markClose, "").Replace(string(b))
	}
	var b strings.Builder
	cur := f.Start
	for _, loc := range locations {
		if loc == nil || !loc.ArrayPositions.Equals(f.ArrayPositions) || loc.Start < cur {
			continue
		}
		if loc.End > f.End {
			break
		}
		b.WriteString(clean(f.Orig[cur:loc.Start]))
		b.WriteString(markOpen)
		b.WriteString(clean(f.Orig[loc.Start:loc.End]))
		b.WriteString(markClose)
		cur = loc.End
	}
	b.WriteString(clean(f.Orig[cur:f.End]))
	return b.String()
}

func init() {
	registry.RegisterFragmentFormatter(highlighterName, func(map[string]any, *registry.Cache) (highlight.FragmentFormatter, error) {
		return spanFormatter{}, nil
	})
	registry.RegisterHighlighter(highlighterName, func(_ map[string]any, cache *registry.Cache) (highlight.Highlighter, error) {
		fragmenter, err := cache.FragmenterNamed(simpleFragmenter.Name)
		if err != nil {
			return nil, fmt.Errorf("ranking: fragmenter: %w", err)
		}
		formatter, err := cache.FragmentFormatterNamed(highlighterName)
		if err != nil {
			return nil, fmt.Errorf("ranking: formatter: %w", err)
		}
		return capped{simpleHighlighter.NewHighlighter(fragmenter, formatter, " … ")}, nil
	})
}

// maxSnippetLocations is how many matches (the first in the text) a
// snippet is chosen among. bleve's simple highlighter makes a candidate
// fragment at every match and scores each against every match: quadratic
// in the matches, which common words in a long page (a pasted title's
// "class" or "java" on a page listing a thousand classes) make seconds.
const maxSnippetLocations = 64

// capped is bleve's simple highlighter choosing among the first
// maxSnippetLocations matches of a field.
type capped struct{ *simpleHighlighter.Highlighter }

// BestFragmentsInField implements highlight.Highlighter.
func (h capped) BestFragmentsInField(dm *search.DocumentMatch, doc index.Document, field string, num int) []string {
	if tlm := dm.Locations[field]; tlm != nil {
		dm.Locations[field] = firstLocations(tlm, maxSnippetLocations)
		defer func() { dm.Locations[field] = tlm }()
	}
	return h.Highlighter.BestFragmentsInField(dm, doc, field, num)
}

// BestFragmentInField implements highlight.Highlighter.
func (h capped) BestFragmentInField(dm *search.DocumentMatch, doc index.Document, field string) string {
	if f := h.BestFragmentsInField(dm, doc, field, 1); len(f) > 0 {
		return f[0]
	}
	return ""
}

// firstLocations returns tlm if it holds at most n locations, and
// otherwise a map of its n earliest.
func firstLocations(tlm search.TermLocationMap, n int) search.TermLocationMap {
	type loc struct {
		term string
		l    *search.Location
	}
	total := 0
	for _, ls := range tlm {
		total += len(ls)
	}
	if total <= n {
		return tlm
	}
	// A term's locations come in text order (the index's), so its first n
	// are enough; a merge of several searchers' may not.
	byStart := func(a, b *search.Location) int { return cmp.Compare(a.Start, b.Start) }
	var all []loc
	for t, ls := range tlm {
		if !slices.IsSortedFunc(ls, byStart) {
			ls = slices.SortedFunc(slices.Values(ls), byStart)
		}
		for _, l := range ls[:min(n, len(ls))] {
			all = append(all, loc{t, l})
		}
	}
	slices.SortFunc(all, func(a, b loc) int { return byStart(a.l, b.l) })
	out := search.TermLocationMap{}
	for _, x := range all[:n] {
		out[x.term] = append(out[x.term], x.l)
	}
	return out
}

// spans splits a marked fragment into spans.
func spans(fragment string) []Span {
	var out []Span
	for fragment != "" {
		i := strings.Index(fragment, markOpen)
		if i < 0 {
			out = append(out, Span{Text: fragment})
			break
		}
		if i > 0 {
			out = append(out, Span{Text: fragment[:i]})
		}
		fragment = fragment[i+len(markOpen):]
		j := strings.Index(fragment, markClose)
		if j < 0 {
			out = append(out, Span{Text: fragment, Match: true})
			break
		}
		out = append(out, Span{Text: fragment[:j], Match: true})
		fragment = fragment[j+len(markClose):]
	}
	return out
}

// trimCut drops the word fragments at the edges of a snippet cut out of a
// longer text ("… g to the VPN …" becomes "… to the VPN …"): the
// fragmenter cuts at a character count, not at word boundaries. Only text
// spans are trimmed; a match at an edge is kept.
func trimCut(sp []Span) []Span {
	const ellipsis = "… "
	if len(sp) > 0 && !sp[0].Match {
		t := strings.TrimLeft(sp[0].Text, " ")
		if rest, ok := strings.CutPrefix(t, ellipsis); ok && rest != "" && rest[0] != ' ' {
			if i := strings.IndexByte(rest, ' '); i >= 0 && (len(sp) > 1 || i < len(rest)-1) {
				sp[0].Text = ellipsis + strings.TrimLeft(rest[i:], " ")
			}
		}
	}
	if k := len(sp) - 1; k >= 0 && !sp[k].Match {
		t := strings.TrimRight(sp[k].Text, " ")
		if rest, ok := strings.CutSuffix(t, " …"); ok && rest != "" && !strings.HasSuffix(rest, " ") {
			if i := strings.LastIndexByte(rest, ' '); i >= 0 && (k > 0 || i > 0) {
				sp[k].Text = rest[:i] + " …"
			}
		}
	}
	return sp
}
