package urlnorm

import (
	"net/url"
	"path"
	"slices"
	"strings"
)

// Shape returns the family of URL u, coarser than its [Template]: the
// key under which a crawl learns what a kind of URL yields (always
// noindex, always a copy, always skipped). It is the lowercased host
// (with port), then the escaped path with every segment holding a digit
// replaced by "{n}" and the last segment's name by "*" (its extension
// kept: "*.html"; a directory's empty last segment stays empty), then,
// if the URL has a query, "?" and its parameters (split at "&" and ";")
// sorted by key, each value reduced to the namespace it names — what
// precedes its last ":" or "/", then "*". So every article of a wiki is
// one family ("wiki/index.php/*", "wiki/index.php?title=*"), its edit
// links another ("wiki/*.php?action=*&title=*"), its Special:WhatLinksHere
// pages a third ("…?title=Special:WhatLinksHere/*"). The scheme and the
// fragment are not part of it. An input that does not parse is returned
// unchanged. Cost: O(len(u)·log(len(u))).
func Shape(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	var b strings.Builder
	b.Grow(len(u))
	writeHostPath(&b, p, nameShape)
	if p.RawQuery == "" {
		return b.String()
	}
	var parts []string
	for part := range strings.FieldsFuncSeq(p.RawQuery, func(r rune) bool { return r == '&' || r == ';' }) {
		k, v, hasEq := strings.Cut(part, "=")
		k = unescapeOr(k)
		if hasEq {
			k += "=" + valueShape(unescapeOr(v))
		}
		parts = append(parts, k)
	}
	writeQuery(&b, parts, true)
	return b.String()
}

// nameShape returns the shape of a path's last segment: its namespace
// (see valueShape) and "*", with the extension of a file name kept.
func nameShape(seg string) string {
	if name, err := url.PathUnescape(seg); err == nil {
		seg = name
	}
	if i := strings.LastIndexAny(seg, ":"); i >= 0 {
		return seg[:i+1] + "*"
	}
	if ext := path.Ext(seg); ext != "" && len(ext) <= 6 && !strings.ContainsAny(ext, "0123456789") {
		return "*" + ext
	}
	return "*"
}

// valueShape returns the namespace a query value names — what precedes
// its last ":" or "/" ("Special:WhatLinksHere/" of
// "Special:WhatLinksHere/Filecmp", "Talk:" of "Talk:Filecmp") — then
// "*"; just "*" for a plain value. A namespace holding a digit is "{n}".
func valueShape(v string) string {
	i := strings.LastIndexAny(v, ":/")
	if i < 0 {
		return "*"
	}
	return numbered(v[:i+1]) + "*"
}

// The views View recognises.
const (
	ViewSort  = "a sort order of a file listing" // Apache autoindex's ?C=N;O=D
	ViewPrint = "a print view"                   // ?printable=yes, ?print=1, ?format=print
	ViewShare = "a share link"                   // ?share=twitter
	ViewFeed  = "a feed"                         // ?feed=atom, /feed/, .rss
)

// View reports whether URL u, by its shape alone, shows another page in
// another form rather than a page of its own, and which form (ViewSort,
// ViewPrint, ViewShare or ViewFeed): a file listing sorted otherwise
// (Apache's "?C=M;O=A": only the keys C, O, V, P and F, C one of N, M, S,
// D and O one of A, D), a print view ("printable=yes", "print", a
// "format", "view", "output", "action" or "mode" of "print"), a share
// link ("share=…", "action=share"), a feed ("feed=…", a "format",
// "type", "output" or "action" of rss or atom, a path ending in /feed,
// /rss, /atom or .rss, .atom). Cost: O(len(u)).
func View(u string) (string, bool) {
	p, err := url.Parse(u)
	if err != nil {
		return "", false
	}
	switch {
	case feedPath(p.Path):
		return ViewFeed, true
	case p.RawQuery == "":
		return "", false
	}
	sortKeys, other := 0, 0
	for part := range strings.FieldsFuncSeq(p.RawQuery, func(r rune) bool { return r == '&' || r == ';' }) {
		rk, rv, _ := strings.Cut(part, "=")
		k, v := unescapeOr(rk), strings.ToLower(unescapeOr(rv))
		switch {
		case sortParam(k, v):
			sortKeys++
		case k == "V" || k == "P" || k == "F":
		default:
			if view := paramView(strings.ToLower(k), v); view != "" {
				return view, true
			}
			other++
		}
	}
	if sortKeys > 0 && other == 0 {
		return ViewSort, true
	}
	return "", false
}

// feedPath reports whether a URL's path names a feed: its last segment
// is feed, rss or atom, or ends in .rss or .atom.
func feedPath(p string) bool {
	last := strings.ToLower(path.Base(strings.TrimSuffix(p, "/")))
	return last == "feed" || last == "rss" || last == "atom" || path.Ext(last) == ".rss" || path.Ext(last) == ".atom"
}

// sortParam reports whether the query parameter k=v (v lower-cased)
// sorts an Apache listing: C one of N, M, S, D, or O one of A, D.
func sortParam(k, v string) bool {
	return k == "C" && len(v) == 1 && strings.Contains("nmsd", v) || k == "O" && (v == "a" || v == "d")
}

// viewParams are the query parameters that name a view by themselves, in
// the order View tries them: a lower-cased key and the values it must
// have (nil: any).
var viewParams = []struct {
	keys, values []string
	view         string
}{
	{[]string{"printable"}, []string{"yes", "1", "true"}, ViewPrint},
	{[]string{"print"}, nil, ViewPrint},
	{[]string{"share"}, nil, ViewShare},
	{[]string{"action"}, []string{"share"}, ViewShare},
	{[]string{"feed", "feedformat"}, nil, ViewFeed},
	{[]string{"format", "view", "output", "action", "mode"}, []string{"print", "printable"}, ViewPrint},
	{[]string{"format", "type", "output", "action"}, []string{"rss", "rss2", "atom", "feed"}, ViewFeed},
}

// paramView returns the view the query parameter lk=v (both lower-cased)
// names by itself, or "" if it names none.
func paramView(lk, v string) string {
	for _, p := range viewParams {
		if slices.Contains(p.keys, lk) && (p.values == nil || slices.Contains(p.values, v)) {
			return p.view
		}
	}
	return ""
}

// TypeShape returns the coarsest family of URL u: its host and the
// extension of its file name, wherever the file lies
// ("h/…/*.gz" for every gzip file of a documentation tree, whose
// folders each hold one), or "" for a URL with a query or without an
// extension. A crawl learns what such a family yields beside its Shape.
func TypeShape(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.RawQuery != "" {
		return ""
	}
	name := nameShape(path.Base(p.EscapedPath()))
	if !strings.HasPrefix(name, "*.") {
		return ""
	}
	return strings.ToLower(p.Host) + "/…/" + name
}
