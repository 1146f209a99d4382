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
	b.WriteString(strings.ToLower(p.Host))
	path := p.EscapedPath()
	if path == "" {
		path = "/"
	}
	for i, seg := range strings.Split(path, "/") {
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(numbered(seg))
	}
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
	slices.Sort(parts)
	b.WriteByte('?')
	b.WriteString(strings.Join(parts, "&"))
	return b.String()
}

// numbered returns "{n}" if s contains an ASCII digit, else s.
func numbered(s string) string {
	if strings.ContainsAny(s, "0123456789") {
		return "{n}"
	}
	return s
}
