package indexer

import (
	"slices"
	"strings"
)

// Difference returns the difference record of d against its master m:
// what a person searching may know d by that m does not hold. It has d's
// id, URL, host, dates, access groups, cluster and SimHash; its title if
// it differs from m's (case and spacing aside); the headings and anchor
// texts m lacks; and as body the blocks of d's body and template (the
// body's blocks are separated by blank lines, as [Doc.Body] is written)
// that are not blocks of m's body or template. It returns nil when d has
// nothing of its own: an exact copy is found through its master. Master
// is false and Diff true in the record, which has no Template.
//
// Indexing the record instead of nothing keeps a near-duplicate findable
// by its own name and its own text — EscapeUnicode behind EscapeDefault,
// whose long shared member lists make them copies by resemblance — at the
// cost of the few terms that are its own. Cost: O(len(d.Body) +
// len(m.Body)).
func Difference(d, m *Doc) *Doc {
	r := &Doc{ID: d.ID, URL: d.URL, Host: d.Host, LastModified: d.LastModified, Groups: d.Groups, Lang: d.Lang,
		Simhash: d.Simhash, Cluster: d.Cluster, Diff: true}
	if norm(d.Title) != norm(m.Title) {
		r.Title = d.Title
	}
	r.Headings = missing(d.Headings, m.Headings)
	r.Anchors = missing(d.Anchors, m.Anchors)
	r.Body = strings.Join(missing(append(Blocks(d.Body), d.Template...), append(Blocks(m.Body), m.Template...)), "\n\n")
	if r.Title == "" && len(r.Headings) == 0 && len(r.Anchors) == 0 && r.Body == "" {
		return nil
	}
	return r
}

// Blocks splits a body as [Doc.Body] holds it into its blocks (text
// separated by blank lines), without empty ones.
func Blocks(body string) []string {
	var out []string
	for b := range strings.SplitSeq(body, "\n\n") {
		if strings.TrimSpace(b) != "" {
			out = append(out, b)
		}
	}
	return out
}

// missing returns the strings of a whose normalized form is not that of
// any string of b, each once, in a's order.
func missing(a, b []string) []string {
	have := make(map[string]bool, len(b))
	for _, s := range b {
		have[norm(s)] = true
	}
	var out []string
	for _, s := range a {
		n := norm(s)
		if n == "" || have[n] {
			continue
		}
		have[n] = true
		out = append(out, s)
	}
	return slices.Clip(out)
}

// norm lower-cases s and collapses its white space.
func norm(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}
