package clean

import (
	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
)

// elements are the elements of a parsed document that [extract]'s
// readers look for, found in one walk of the document, each list in
// document order. Each field says the selector it stands for: what a
// goquery Find of that selector on the document gives (tags by name,
// attributes by key, whatever their namespace). A Find walks the whole
// document each time, and a big page has tens of thousands of elements:
// thirteen Finds and the walk of the links were up to fourteen walks,
// now one.
type elements struct {
	base      *html.Node   // the first "base[href]"
	title     *html.Node   // the first "title"
	html      *html.Node   // the first "html"
	body      *html.Node   // the first "body"
	headTitle *html.Node   // the first "head title"
	meta      []*html.Node // "meta"
	links     []*html.Node // "link[rel][href]"
	headLinks []*html.Node // "head link[rel][href]"
	styles    []*html.Node // "style"
	hreflang  []*html.Node // "[hreflang][href]"
	relA      []*html.Node // "a[rel]"
	hrefA     []*html.Node // the <a href> elements, read as links (readLinks)
}

// findElements walks doc once and returns its elements.
func findElements(doc *goquery.Document) *elements {
	e := &elements{}
	for _, n := range doc.Nodes {
		e.walk(n, false)
	}
	return e
}

// walk adds the element descendants of n; inHead says an ancestor of
// n's children is a head element.
func (e *elements) walk(n *html.Node, inHead bool) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		e.add(c, inHead)
		e.walk(c, inHead || c.Data == "head")
	}
}

// add adds the element n, a head element's descendant if inHead.
func (e *elements) add(n *html.Node, inHead bool) {
	_, href := attr(n, "href")
	if _, ok := attr(n, "hreflang"); ok && href {
		e.hreflang = append(e.hreflang, n)
	}
	_, rel := attr(n, "rel")
	switch n.Data {
	case "a":
		if href {
			e.hrefA = append(e.hrefA, n)
		}
		if rel {
			e.relA = append(e.relA, n)
		}
	case "link":
		if rel && href {
			e.links = append(e.links, n)
			if inHead {
				e.headLinks = append(e.headLinks, n)
			}
		}
	case "meta":
		e.meta = append(e.meta, n)
	case "style":
		e.styles = append(e.styles, n)
	default:
		e.addFirst(n, inHead, href)
	}
}

// addFirst keeps n if it is the first of its kind: title (and head
// title), base with an href, html, body.
func (e *elements) addFirst(n *html.Node, inHead, href bool) {
	first := func(kept **html.Node) {
		if *kept == nil {
			*kept = n
		}
	}
	switch n.Data {
	case "title":
		first(&e.title)
		if inHead {
			first(&e.headTitle)
		}
	case "base":
		if href {
			first(&e.base)
		}
	case "html":
		first(&e.html)
	case "body":
		first(&e.body)
	}
}

// selection returns nodes as a selection of doc, in their order; nil
// nodes are left out.
func selection(doc *goquery.Document, nodes ...*html.Node) *goquery.Selection {
	kept := nodes[:0:0]
	for _, n := range nodes {
		if n != nil {
			kept = append(kept, n)
		}
	}
	return doc.FindNodes(kept...)
}

// withAttr returns the nodes that have the attribute key.
func withAttr(nodes []*html.Node, key string) []*html.Node {
	var out []*html.Node
	for _, n := range nodes {
		if _, ok := attr(n, key); ok {
			out = append(out, n)
		}
	}
	return out
}
