package clean

import (
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The main content element a selector finds (#content, main) can hold
// more than the page's text: Node.js's API pages put the list of every
// module and the page's table of contents beside the text in one
// #content, which a printed copy leaves out. The page's own title
// heading — the first h1 or h2 whose words begin the page's <title> —
// sits in the block that holds its text: titleBlock narrows the main
// content to the smallest element around that heading that holds at
// least titleShare of the content's words outside links and at least
// half of all its words (so a listing, whose words are links, keeps its
// list, and a heading in a small header block climbs to the text), and
// only when what it leaves out is navigation: at least minNavLinks
// links, and at least titleShare of its words in links (a page's own
// "Then read the next chapter" or a bar of three links stays).

// titleShare is the share of the main content's words outside links the
// title heading's block must hold to stand for it.
const titleShare = 0.8

// minNavLinks is the fewest links the part of the main content that
// titleBlock leaves out holds.
const minNavLinks = 10

// titleBlock returns the block of content the page's title heading sits
// in (see above), or content.
func titleBlock(content *html.Node, title string) *html.Node {
	h := titleHeading(content, titleWords(title))
	if h == nil {
		return content
	}
	whole := letterCount(content)
	for a := h.Parent; a != nil && a != content; a = a.Parent {
		in := letterCount(a)
		if float64(in.all-in.linked) < titleShare*float64(whole.all-whole.linked) || 2*in.all < whole.all {
			continue
		}
		out := counts{whole.all - in.all, whole.linked - in.linked, whole.links - in.links}
		if out.links >= minNavLinks && float64(out.linked) >= titleShare*float64(out.all) {
			return a
		}
	}
	return content
}

// counts are the letters and digits of a subtree, those inside links,
// and its links.
type counts struct{ all, linked, links int }

// titleWords returns the words of a title, lower-cased, letters and
// digits only.
func titleWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// titleHeading returns the first h1 or h2 under n outside dropped
// elements whose words begin the title's (title), nil if none.
func titleHeading(n *html.Node, title []string) *html.Node {
	if len(title) == 0 {
		return nil
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode || dropped(c) {
			continue
		}
		if c.DataAtom == atom.H1 || c.DataAtom == atom.H2 {
			var b strings.Builder
			appendText(&b, c)
			if words := titleWords(b.String()); len(words) > 0 && len(words) <= len(title) && equalWords(words, title[:len(words)]) {
				return c
			}
			continue
		}
		if h := titleHeading(c, title); h != nil {
			return h
		}
	}
	return nil
}

func equalWords(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// letterCount counts the letters and digits under n outside dropped
// elements, all of them and those inside links, and the links.
func letterCount(n *html.Node) counts {
	var k counts
	var walk func(*html.Node, bool)
	walk = func(n *html.Node, inLink bool) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch {
			case c.Type == html.TextNode:
				for _, r := range c.Data {
					if unicode.IsLetter(r) || unicode.IsDigit(r) {
						k.all++
						if inLink {
							k.linked++
						}
					}
				}
			case c.Type == html.ElementNode && !dropped(c):
				if c.DataAtom == atom.A {
					k.links++
				}
				walk(c, inLink || c.DataAtom == atom.A)
			}
		}
	}
	walk(n, false)
	return k
}

// proseAside reports whether the aside n is running text rather than
// furniture: a sidebar or a footnote of the page's own prose (a PDF or a
// DOCX of the page keeps it), not a box of links. It holds at least
// minMainText letters and digits, under half of them in links. An aside
// repeated on every page of a host is template all the same, which
// [Templates] takes out.
func proseAside(n *html.Node) bool {
	k := letterCount(n)
	return k.all >= minMainText && 2*k.linked < k.all
}

// A page laid out with a table (libxslt's and many older sites' pages:
// no nav or aside element, no print rule) holds its menu in a cell beside
// the cell of its text. layoutNav finds such cells: a table cell that is
// navigation — at least minNavLinks links and at least titleShare of its
// letters in links — in a row whose other cell holds at least titleShare
// of the main content's letters outside links, and at least half of its
// own letters outside links (the page's text). They are left out of the main content and read as the page's
// chrome. A table of data is not a layout: no cell of its rows holds most
// of the page's text as prose, or none is all links (an index of links
// in columns has no text cell beside them).

// layoutNav returns the navigation cells of the layout tables under
// content (see above), in document order.
func layoutNav(content *html.Node) []*html.Node {
	whole := letterCount(content)
	text := whole.all - whole.linked
	if text == 0 {
		return nil
	}
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || dropped(c) {
				continue
			}
			if c.DataAtom == atom.Tr {
				if nav := navCells(c, text); nav != nil {
					out = append(out, nav...)
					continue
				}
			}
			walk(c)
		}
	}
	walk(content)
	return out
}

// navCells returns the navigation cells of the table row tr when another
// of its cells is the page's text: at least titleShare of text, the main
// content's letters outside links, as prose; nil otherwise.
func navCells(tr *html.Node, text int) []*html.Node {
	var cells, nav []*html.Node
	var counted []counts
	for c := tr.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && (c.DataAtom == atom.Td || c.DataAtom == atom.Th) && !dropped(c) {
			cells = append(cells, c)
			counted = append(counted, letterCount(c))
		}
	}
	if len(cells) < 2 {
		return nil
	}
	textCell := -1
	for i, k := range counted {
		if prose := k.all - k.linked; float64(prose) >= titleShare*float64(text) && 2*prose >= k.all {
			textCell = i
		}
	}
	if textCell < 0 {
		return nil
	}
	for i, k := range counted {
		if i != textCell && k.links >= minNavLinks && float64(k.linked) >= titleShare*float64(k.all) {
			nav = append(nav, cells[i])
		}
	}
	return nav
}
