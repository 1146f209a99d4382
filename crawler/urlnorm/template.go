package urlnorm

import (
	"net/url"
	"slices"
	"strings"
)

// Template returns the path template of URL u, the key that groups a family
// of near-duplicate URLs: lowercased host (with port, if any) followed by the
// escaped path in which every segment containing an ASCII digit is replaced
// by "{n}", then, if the URL has a query, "?" and its parameters sorted by
// key with every value containing a digit, or 16 bytes or longer (a session
// token), replaced by "{n}" (keys are kept).
// The fragment is ignored. For example
//
//	https://intra.example/cal/2026/03/05?view=day&id=7
//
// becomes "intra.example/cal/{n}/{n}/{n}?id={n}&view=day". The scheme is not
// part of the template. An input that does not parse is returned unchanged.
// Cost: O(len(u)·log(len(u))).
func Template(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	var b strings.Builder
	b.Grow(len(u))
	writeHostPath(&b, p, nil)
	if p.RawQuery == "" {
		return b.String()
	}
	var parts []string
	for part := range strings.SplitSeq(p.RawQuery, "&") {
		if part == "" {
			continue
		}
		k, v, hasEq := strings.Cut(part, "=")
		if hasEq {
			if len(v) >= 16 {
				v = "{n}"
			}
			k += "=" + numbered(v)
		}
		parts = append(parts, k)
	}
	writeQuery(&b, parts, false)
	return b.String()
}

// writeHostPath writes the part of a URL key ([Template], [Shape]) before
// the query: p's lowercased host (with port) and its escaped path ("/"
// if empty), every segment holding a digit as "{n}", and the last
// non-empty segment mapped by last instead, if last is not nil.
func writeHostPath(b *strings.Builder, p *url.URL, last func(string) string) {
	b.WriteString(strings.ToLower(p.Host))
	escaped := p.EscapedPath()
	if escaped == "" {
		escaped = "/"
	}
	segs := strings.Split(escaped, "/")
	for i, seg := range segs {
		if i > 0 {
			b.WriteByte('/')
		}
		if last != nil && i == len(segs)-1 && seg != "" {
			b.WriteString(last(seg))
			continue
		}
		b.WriteString(numbered(seg))
	}
}

// writeQuery writes "?" and a URL key's query parameters, sorted (and
// each written once if dedupe).
func writeQuery(b *strings.Builder, parts []string, dedupe bool) {
	slices.Sort(parts)
	if dedupe {
		parts = slices.Compact(parts)
	}
	b.WriteByte('?')
	b.WriteString(strings.Join(parts, "&"))
}

// numbered returns "{n}" if s contains an ASCII digit, else s.
func numbered(s string) string {
	if strings.ContainsAny(s, "0123456789") {
		return "{n}"
	}
	return s
}
