// Package lang reads the language of a page and of its reader as the
// primary language subtag ("en", "da"; "zh-hans" and "zh-hant" for
// Chinese), the form in which Doppel compares languages. A page's
// language is what it declares (its hreflang to itself, <html lang>,
// Content-Language), else what its text is in (Detect), and the
// language section its URL names only where the text agrees (Of): "/hr/"
// may be human resources, and a language section keeps pages not
// translated yet. A reader's languages come from Accept-Language
// (Accepted).
package lang

import (
	"net/url"
	"slices"
	"strings"

	"golang.org/x/text/language"
)

// Primary returns the primary language subtag of the BCP 47 tag tag,
// lower-cased ("en" for "en-US", "pt" for "pt_BR"), or "" if tag is not
// a language tag or names no language ("und", "*"). Chinese is told by
// its script, as its readers tell it: "zh-hans" for "zh-CN" and
// "zh-Hans", "zh-hant" for "zh-TW" and "zh-Hant".
func Primary(tag string) string {
	tag = strings.TrimSpace(strings.ReplaceAll(tag, "_", "-"))
	if tag == "" || tag == "*" {
		return ""
	}
	t, err := language.Parse(tag)
	if err != nil {
		return ""
	}
	b, conf := t.Base()
	if conf != language.Exact || b.String() == "mul" {
		return ""
	}
	if b.String() == "zh" { // two written languages: Simplified and Traditional
		if sc, conf := t.Script(); conf != language.No && (sc.String() == "Hans" || sc.String() == "Hant") {
			return "zh-" + strings.ToLower(sc.String())
		}
	}
	return b.String()
}

// sections are the languages a URL path segment is read as: common
// ISO 639-1 codes that are seldom also path words ("io", "js" and "os"
// are not among them).
var sections = map[string]bool{}

func init() {
	for _, c := range strings.Fields("ar bg ca cs da de el en es et fa fi fr he hi hr hu id it ja ko lt lv ms nb nl nn no pl pt ro ru sk sl sr sv th tr uk vi zh") {
		sections[c] = true
	}
}

// FromURL returns the language a URL's path names, "" if none: a path
// segment that is a language tag of a common language ("/manual/da/",
// "/docs/pt-br/", "/zh_CN/"), or a part of the file name after its first
// dot, as content negotiation and translated manuals name translations
// ("index.html.de", "ch01.ja.html", "index.zh-cn.html"). The last one
// wins. A path word may look like a section ("/hr/" for human resources,
// "/it/" for the IT department): a URL's language is a guess that Of
// takes only where the page's text agrees.
func FromURL(raw string) string {
	l, _ := sectionOf(raw)
	return l
}

// Parallel reports whether the URLs a and b name a language section
// each, in the same place, and are otherwise the same: one page's places
// in two language sections of a site ("/manual/da/mod/core.html" and
// "/manual/en/mod/core.html", "ch01.ja.html" and "ch01.en.html"), or the
// same URL naming one. A section named in one URL only, or in different
// places, is not parallel ("/mirror/it/manual/vpn.html" to
// "/manual/vpn.html").
func Parallel(a, b string) bool {
	la, ra := sectionOf(a)
	lb, rb := sectionOf(b)
	return la != "" && lb != "" && ra == rb
}

// sectionOf returns the language a URL's path names (see FromURL) and
// the URL with that part left out, "" and "" if none.
func sectionOf(raw string) (l, rest string) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", ""
	}
	segs := strings.Split(strings.Trim(u.Path, "/"), "/")
	at, part := -1, -1 // the segment, and the file-name part of it (-1: the whole segment)
	for i, s := range segs {
		parts := []string{s}
		if i == len(segs)-1 && strings.Count(s, ".") >= 2 {
			parts = strings.Split(s, ".")
		}
		for j, p := range parts {
			if len(parts) > 1 && j == 0 {
				continue // the name before the first dot
			}
			if sl := section(p); sl != "" {
				l, at, part = sl, i, j
				if len(parts) == 1 {
					part = -1
				}
			}
		}
	}
	if l == "" {
		return "", ""
	}
	if part < 0 {
		segs[at] = "\x00"
	} else {
		parts := strings.Split(segs[at], ".")
		parts[part] = "\x00"
		segs[at] = strings.Join(parts, ".")
	}
	u.Path = strings.Join(segs, "/")
	u.RawPath = ""
	return l, u.String()
}

// section returns the language a path segment or file-name part names,
// or "".
func section(s string) string {
	s = strings.ToLower(s)
	base, _, _ := strings.Cut(strings.ReplaceAll(s, "_", "-"), "-")
	if !sections[base] || len(s) > 2 && !isRegion(s[2:]) {
		return ""
	}
	return Primary(s)
}

// isRegion reports whether s is "-" or "_" and a region or script subtag
// ("-br", "_CN", "-hans").
func isRegion(s string) bool {
	if len(s) < 3 || len(s) > 5 || s[0] != '-' && s[0] != '_' {
		return false
	}
	for _, r := range s[1:] {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

// Of returns a page's language, as a primary subtag, "" if unknown:
//
//  1. what the page declares: the first of declared that is a language
//     tag (a page passes the hreflang of an alternate link to itself,
//     then its <html lang>, then its Content-Language header);
//  2. else the language its text is in, as Detect reads it (Chinese in
//     a Traditional Chinese section, "/zh-tw/", is Traditional);
//  3. else the language its URL names (FromURL) where the text, too
//     short or too mixed for Detect to name a language, agrees with it
//     (see stats.agrees): a short page in "/manual/de/" with a few German words
//     is German, a Danish one in "/da/" that Detect cannot tell from
//     Norwegian Danish, an English one in "/hr/" undetermined;
//  4. else "".
//
// A URL alone never decides: path words look like language sections
// ("/hr/" for human resources, "/it/" for the IT department), and a
// language section keeps the pages not translated yet in the original
// language, marked as such (the Apache manual's /da/ section holds 237
// English pages with lang="en"). Where a page's section is a language
// other than its own matters to which page is master of a cluster and
// which a reader is shown (crawler/hook, ranking); not to how its words
// are indexed. Cost: that of Detect when the page declares nothing.
func Of(pageURL, text string, declared ...string) string {
	for _, d := range declared {
		if l := Primary(d); l != "" {
			return l
		}
	}
	s := read(text)
	d, u := s.language(minStops), FromURL(pageURL)
	switch {
	case d == "zh-hans" && u == "zh-hant": // Detect does not tell the two apart
		return u
	case d != "":
		return d
	case u != "" && s.agrees(u):
		return u
	}
	return ""
}

// Accepted returns the languages of an Accept-Language header in the
// order the user prefers them (by quality, then as written), as primary
// subtags, each once; nil if the header names none.
func Accepted(header string) []string {
	tags, _, err := language.ParseAcceptLanguage(header)
	if err != nil {
		return nil
	}
	var out []string
	for _, t := range tags {
		if p := Primary(t.String()); p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}
