package clean

import (
	"net/url"
	"strings"
	"unicode"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// navRels are the link types (HTML's rel) of links that move through a
// document or a set of pages: a block made of them is navigation.
var navRels = map[string]bool{
	"next": true, "prev": true, "previous": true, "up": true, "contents": true, "toc": true,
	"index": true, "first": true, "last": true, "start": true, "home": true,
}

// maxNavLabel is the most letters and digits a navigation block holds
// outside its links: labels such as "Next:", "Previous:", "Up:".
const maxNavLabel = 40

// navBlocks returns the paragraphs and divisions under doc that are
// navigation by their links' rel, as documentation generators write them
// above every section (Texinfo: "Next: Imports, Previous: Introduction,
// Up: Introduction [Contents][Index]"): at least two links, every one
// with a navigation type (navRels), and little text besides. A single
// page repeats such a line per section, so the site-template statistics,
// which count blocks across pages, cannot tell it; a PDF of the same
// manual has none (crawler/extract), and the two would not be copies.
// Pagination ("1 2 3 Next") has links without a type and is kept. So
// are the bars of links to the page's neighbours that the head names
// (headNavBlocks).
func navBlocks(doc *goquery.Document, els *elements) map[*html.Node]bool {
	var out map[*html.Node]bool
	seen := map[*html.Node]bool{}
	selection(doc, els.relA...).Each(func(_ int, s *goquery.Selection) {
		if !isNavLink(s.Get(0)) {
			return
		}
		b := s.Get(0).Parent
		for b != nil && b.Type == html.ElementNode && b.DataAtom != atom.P && b.DataAtom != atom.Div {
			b = b.Parent
		}
		if b == nil || b.Type != html.ElementNode || seen[b] {
			return
		}
		seen[b] = true
		if isNavBlock(b) {
			if out == nil {
				out = map[*html.Node]bool{}
			}
			out[b] = true
		}
	})
	if targets, titles := headNav(doc, els); targets != nil {
		for b := range headNavBlocks(doc, targets, titles) {
			if out == nil {
				out = map[*html.Node]bool{}
			}
			out[b] = true
		}
	}
	return out
}

// isNavLink reports whether n is a link whose rel has a navigation type.
func isNavLink(n *html.Node) bool {
	for _, a := range n.Attr {
		if a.Key == "rel" {
			for _, t := range strings.Fields(strings.ToLower(a.Val)) {
				if navRels[t] {
					return true
				}
			}
		}
	}
	return false
}

// isNavBlock reports whether the element b holds at least two links, all
// navigation links, and at most maxNavLabel letters and digits outside
// them.
func isNavBlock(b *html.Node) bool {
	links, label := 0, 0
	ok := true
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil && ok; c = c.NextSibling {
			switch {
			case c.Type == html.TextNode:
				for _, r := range c.Data {
					if unicode.IsLetter(r) || unicode.IsDigit(r) {
						label++
					}
				}
				ok = label <= maxNavLabel
			case c.Type != html.ElementNode:
			case c.DataAtom == atom.A:
				links++
				ok = isNavLink(c)
			default:
				walk(c)
			}
		}
	}
	walk(b)
	return ok && links >= 2
}

// navBase resolves the hrefs of a page's links and of its head's
// navigation links alike: both are relative to the same document, so any
// absolute base tells whether they name the same page.
var navBase = &url.URL{Scheme: "http", Host: "nav.invalid", Path: "/a/b/"}

// headNav returns the pages the head's navigation links name
// (<link rel="prev" href="ch01s03.html" title="1.3. …">, the types of
// navRels), without fragment, and their titles with the page's own.
func headNav(doc *goquery.Document, els *elements) (targets map[string]bool, titles []string) {
	selection(doc, els.headLinks...).Each(func(_ int, s *goquery.Selection) {
		if !isNavLink(s.Get(0)) {
			return
		}
		href, _ := s.Attr("href")
		if t := navTarget(href); t != "" {
			if targets == nil {
				targets = map[string]bool{}
			}
			targets[t] = true
		}
		if t := normalize(s.AttrOr("title", "")); t != "" {
			titles = append(titles, t)
		}
	})
	if t := normalize(selection(doc, els.headTitle).Text()); t != "" && targets != nil {
		titles = append(titles, t)
	}
	return targets, titles
}

// navTarget returns the page href names, resolved against navBase,
// without its fragment; "" if it names none.
func navTarget(href string) string {
	u, err := navBase.Parse(strings.TrimSpace(href))
	if err != nil || u.Scheme != "http" && u.Scheme != "https" {
		return ""
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}

// headNavBlocks returns the divisions and tables under doc that are a
// navigation bar of the pages the head names as the page's neighbours,
// as DocBook writes one above and below every page (navheader,
// navfooter): at least two links, every one to a page of the head's
// navigation links (targets), and, outside the links, the titles of
// those pages and of the page itself (titles) with at most maxNavLabel
// letters and digits besides. The titles are in the section's language
// around a page left untranslated ("Kapitola 1. Vítejte v Debianu"
// around "1.4. What is the Debian Installer?"), and on a short page they
// are enough to keep it from being a copy of its original.
func headNavBlocks(doc *goquery.Document, targets map[string]bool, titles []string) map[*html.Node]bool {
	var out map[*html.Node]bool
	seen := map[*html.Node]bool{}
	doc.Find("body a[href]").Each(func(_ int, s *goquery.Selection) {
		if !targets[navTarget(s.AttrOr("href", ""))] {
			return
		}
		for b := s.Get(0).Parent; b != nil && b.Type == html.ElementNode && b.DataAtom != atom.Body; b = b.Parent {
			if b.DataAtom != atom.Div && b.DataAtom != atom.Table {
				continue
			}
			if seen[b] {
				return
			}
			seen[b] = true
			links, label, ok := navBar(b, targets, titles)
			if !ok || label > maxNavLabel {
				return // an enclosing block holds what this one does, and more
			}
			if links >= 2 {
				if out == nil {
					out = map[*html.Node]bool{}
				}
				out[b] = true
				return
			}
		}
	})
	return out
}

// navBar reads the element b for headNavBlocks: its links, and the
// letters and digits outside them once the titles are taken out; ok is
// false when a link goes elsewhere.
func navBar(b *html.Node, targets map[string]bool, titles []string) (links, label int, ok bool) {
	var text strings.Builder
	ok = true
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil && ok; c = c.NextSibling {
			switch {
			case c.Type == html.TextNode:
				text.WriteString(c.Data)
			case c.Type != html.ElementNode || dropped(c):
			case c.DataAtom == atom.A:
				links++
				ok = targets[navTarget(attrValue(c, "href"))]
			case blockTags[c.DataAtom]:
				text.WriteByte(' ')
				walk(c)
				text.WriteByte(' ')
			default:
				walk(c)
			}
		}
	}
	walk(b)
	rest := normalize(text.String())
	for _, t := range titles {
		rest = strings.ReplaceAll(rest, t, " ")
	}
	for _, r := range rest {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			label++
		}
	}
	return links, label, ok
}

// attrValue returns the value of n's attribute key, "" if it has none.
func attrValue(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}
