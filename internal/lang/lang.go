// Package lang reads the language of a page — from its markup, its URL
// or a browser's Accept-Language header — as the primary language
// subtag ("en", "da"; "zh-hans" and "zh-hant" for Chinese), the form in
// which Doppel compares languages.
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
// wins.
func FromURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	segs := strings.Split(strings.Trim(u.Path, "/"), "/")
	found := ""
	for i, s := range segs {
		parts := []string{s}
		if i == len(segs)-1 && strings.Count(s, ".") >= 2 {
			parts = strings.Split(s, ".")[1:]
		}
		for _, part := range parts {
			if l := section(part); l != "" {
				found = l
			}
		}
	}
	return found
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

// Of returns a page's language: the one its URL names — the site section
// it is in, which readers navigate by — else the first of declared that
// is a language tag (a page passes the hreflang of an alternate link to
// itself, then its <html lang> or Content-Language), else "". A section
// keeps the pages not translated yet in the original language, often with
// that language in their markup (the Apache manual's /da/ section holds
// 237 pages with lang="en"); they still belong to the section.
func Of(pageURL string, declared ...string) string {
	if l := FromURL(pageURL); l != "" {
		return l
	}
	for _, d := range declared {
		if l := Primary(d); l != "" {
			return l
		}
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
