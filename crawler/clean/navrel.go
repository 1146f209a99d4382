package clean

import (
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
// Pagination ("1 2 3 Next") has links without a type and is kept.
func navBlocks(doc *goquery.Document) map[*html.Node]bool {
	var out map[*html.Node]bool
	seen := map[*html.Node]bool{}
	doc.Find("a[rel]").Each(func(_ int, s *goquery.Selection) {
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
