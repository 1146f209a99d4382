package clean

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
)

// A Page is the structured content of one HTML document.
type Page struct {
	Title       string   // <title>, whitespace-normalized
	Headings    []string // h1–h3 text outside dropped elements, in document order
	Description string   // <meta name=description> (og:description if absent)
	Keywords    string   // <meta name=keywords>
	Language    string   // <html lang>, else <meta http-equiv=content-language>
	// Hreflang is the language that an alternate link to the page itself
	// declares (<link rel=alternate hreflang> or <a hreflang> whose href is
	// the page's own URL: sites list every language version, their own
	// included); "" if none.
	Hreflang string
	// LastModified is the document's own date: <meta http-equiv=last-modified>,
	// <meta name=last-modified|dcterms.modified> or
	// <meta property=article:modified_time>, in an HTTP date, RFC 3339 or
	// YYYY-MM-DD form; zero if absent or unreadable. The fetcher's
	// Last-Modified header, when there is one, is the better source.
	LastModified time.Time
	Canonical    string // <link rel=canonical href>, resolved; "" if absent or not http(s)
	// Feeds are the RSS, Atom and JSON feeds the page links
	// (<link rel=alternate type=application/rss+xml|atom+xml|feed+json
	// href>), resolved, http(s) only, in document order.
	Feeds []string
	// Refresh is the target of a <meta http-equiv=refresh> redirect with a
	// delay of at most MaxRefreshDelay seconds, resolved; "" if none. Such a
	// page is a redirect stub ("Redirecting to …"), not content.
	Refresh string
	Links   []Link   // outlinks of the whole document, in document order: the first Options.MaxLinks
	Blocks  []string // main-content text blocks, whitespace-normalized, in order
	Text    string   // Blocks joined by "\n\n"
	// Chrome holds the text blocks of the body outside the main content
	// (its header, sidebar, breadcrumbs, footer), whitespace-normalized,
	// in order: what a
	// document made from the whole page file carries beside the page's
	// text (see [Chrome]).
	Chrome []string
	// PrintHidden holds the blocks of the main content that the page's
	// print rules hide, left out of Blocks (see [PrintHidden]): what a
	// document made from the whole page file carries and its printed
	// PDF does not (see [Chrome.ObservePrintHidden]).
	PrintHidden []string
	Tagged      string // title, headings and <b>/<strong> text of the main content, for SimHash boosting
	NoIndex     bool   // <meta name=robots> or Options.Robots says noindex or none
	NoFollow    bool   // <meta name=robots> or Options.Robots says nofollow or none
	// Cut says the document, decoded from its charset to UTF-8, was
	// longer than Options.MaxBytes and was read to that length only.
	Cut bool
	// LinkCount is the number of outlinks the document holds: len(Links),
	// or more when Options.MaxLinks cut them (those past the bound are
	// counted by their href, not resolved).
	LinkCount int
}

// A Link is an outlink: an absolute http or https URL without fragment,
// its anchor text (or the alt text of an image inside, or its title
// attribute), and whether rel contains nofollow.
type Link struct {
	URL      string
	Text     string
	NoFollow bool
	// Main says the link is part of the main content (the element Blocks
	// come from, outside dropped elements): a listing's entries, not the
	// site's navigation.
	Main bool
}

// Options configure [Parse]. The zero value is ready to use.
type Options struct {
	// MaxBytes is the largest input accepted; larger input is refused
	// with ErrTooLarge. Default 5 MiB.
	MaxBytes int64
	// MaxLinks is the most outlinks read into Page.Links, the first in
	// document order; those past it are only counted (Page.LinkCount):
	// their URLs are not resolved and their anchor texts not read, so a
	// page of 100,000 links costs the links it keeps. 0: no bound.
	MaxLinks int
	// Styles returns the stylesheets the page links on its own host,
	// read for their print rules (see [PrintHidden]); nil: the page's
	// <style> elements only. It is not asked for the stylesheets of a
	// page that says noindex or nofollow: a crawl requests nothing such
	// a page links.
	Styles StyleSource
	// Robots holds the values of the response's X-Robots-Tag headers,
	// read as <meta name=robots> is (see [RobotsHeader]).
	Robots []string
}

// DefaultMaxBytes is the default of Options.MaxBytes.
const DefaultMaxBytes = 5 << 20

// EnsureDefaults sets every zero field to its default (each field's doc
// says which) and returns o.
func (o *Options) EnsureDefaults() *Options {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	return o
}

// Errors returned by [Parse].
var (
	ErrTooLarge = errors.New("clean: document too large")
	ErrNotHTML  = errors.New("clean: not an HTML document")
)

// MaxRefreshDelay is the longest <meta http-equiv=refresh> delay, in
// seconds, that makes a page a redirect: longer ones are pages that
// reload or move on after being read.
const MaxRefreshDelay = 5

// refreshURL parses a refresh directive ("0; URL=next.html", "0;url='x'")
// and returns its target if the delay is at most MaxRefreshDelay.
func refreshURL(base *url.URL, content string) *url.URL {
	delay, rest, _ := strings.Cut(content, ";")
	if d, err := strconv.ParseFloat(strings.TrimSpace(delay), 64); err != nil || d < 0 || d > MaxRefreshDelay {
		return nil
	}
	rest = strings.TrimSpace(rest)
	if k, v, ok := strings.Cut(rest, "="); ok && strings.EqualFold(strings.TrimSpace(k), "url") {
		rest = strings.TrimSpace(v)
	}
	rest = strings.Trim(rest, `'"`)
	if rest == "" {
		return nil
	}
	return resolve(base, rest)
}

// minMainText is the number of letters and digits a main-content candidate
// needs to be preferred over body.
const minMainText = 25

// mainSelectors are the main-content candidates, in order of preference.
var mainSelectors = []string{"main", "article", "[role=main]", "#content", ".content"}

// Parse reads an HTML document and extracts its [Page]. Relative URLs are
// resolved against base (and against <base href> if the document has
// one); with a nil base, relative links are skipped.
//
// Parse reads at most opts.MaxBytes+1 bytes and returns ErrTooLarge if
// there were more; it returns ErrNotHTML if the first KiB looks binary: a
// NUL byte, over 10% control characters, or mostly invalid UTF-8 with no
// charset declared. Input that is not UTF-8 is decoded with the charset
// declared by a byte order mark or a meta tag, else as windows-1252, to
// at most opts.MaxBytes bytes of UTF-8 (Page.Cut if there were more).
// Errors from r are wrapped. Cost: O(n)
// in the size of the document. Parse is safe for concurrent use.
func Parse(r io.Reader, base *url.URL, opts Options) (*Page, error) {
	limit := opts.EnsureDefaults().MaxBytes
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("clean: reading document: %w", err)
	}
	return ParseBytes(data, base, opts)
}

// ParseBytes is [Parse] of a document already in memory: data is read,
// not copied, and not changed.
func ParseBytes(data []byte, base *url.URL, opts Options) (*Page, error) {
	limit := opts.EnsureDefaults().MaxBytes
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)
	}
	if looksBinary(data) {
		return nil, ErrNotHTML
	}
	cut := false
	if !utf8.Valid(data) {
		// Decoded to at most limit bytes too: a charset can make three
		// bytes of UTF-8 of one (windows-1252's 0x80-0xff two or three),
		// and what follows (tokens, signatures, the index) costs by the
		// text.
		enc, _, _ := charset.DetermineEncoding(data, "text/html")
		decoded, err := io.ReadAll(io.LimitReader(enc.NewDecoder().Reader(bytes.NewReader(data)), limit+1))
		if err != nil {
			return nil, fmt.Errorf("clean: decoding document: %w", err)
		}
		if int64(len(decoded)) > limit {
			decoded, cut = decoded[:limit], true
			for len(decoded) > 0 { // not half a character
				if r, size := utf8.DecodeLastRune(decoded); r != utf8.RuneError || size > 1 {
					break
				}
				decoded = decoded[:len(decoded)-1]
			}
		}
		data = decoded
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("clean: parsing document: %w", err)
	}
	p := extract(doc, base, opts)
	p.Cut = cut
	return p, nil
}

// looksBinary reports whether data looks like binary content rather than
// text: in its first KiB, a NUL byte, more than 10% control characters
// other than white space, or more than half the bytes in invalid UTF-8
// sequences while no charset is declared. A UTF-16 byte order mark makes
// it text.
func looksBinary(data []byte) bool {
	if bytes.HasPrefix(data, []byte{0xfe, 0xff}) || bytes.HasPrefix(data, []byte{0xff, 0xfe}) {
		return false
	}
	head := data[:min(len(data), 1024)]
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	controls, invalid := 0, 0
	for i := 0; i < len(head); {
		r, size := utf8.DecodeRune(head[i:])
		switch {
		case r == utf8.RuneError && size == 1 && len(head)-i >= utf8.UTFMax:
			invalid++ // a sequence cut at the end of head is not counted
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f' && r != 0x1b: // ESC: ISO-2022
			controls++
		}
		i += size
	}
	if 10*controls > len(head) {
		return true
	}
	if 2*invalid > len(head) {
		_, name, _ := charset.DetermineEncoding(data, "")
		return name == "windows-1252" // the fallback: nothing declared
	}
	return false
}

func extract(doc *goquery.Document, base *url.URL, opts Options) *Page {
	p := &Page{}
	self := base
	els := findElements(doc)
	if href, ok := selection(doc, els.base).Attr("href"); ok {
		if u := resolve(base, href); u != nil {
			base = u
		}
	}
	p.Title = normalize(selection(doc, els.title).Text())
	p.Language = strings.TrimSpace(selection(doc, els.html).AttrOr("lang", ""))
	p.readMeta(doc, els, base)
	noIndex, noFollow := RobotsHeader(opts.Robots)
	p.NoIndex, p.NoFollow = p.NoIndex || noIndex, p.NoFollow || noFollow
	p.readAlternates(doc, els, base, self)
	kept := p.readLinks(els, base, opts.MaxLinks)
	styles := opts.Styles
	if p.NoIndex || p.NoFollow {
		styles = nil
	}
	p.readContent(doc, els, kept, printHiddenNodes(doc, els, base, styles))
	return p
}

// readMeta reads the page's meta tags: description, keywords, robots,
// Content-Language, last modified, refresh.
func (p *Page) readMeta(doc *goquery.Document, els *elements, base *url.URL) {
	selection(doc, els.meta...).Each(func(_ int, s *goquery.Selection) {
		content := strings.TrimSpace(s.AttrOr("content", ""))
		name := strings.ToLower(strings.TrimSpace(s.AttrOr("name", s.AttrOr("property", ""))))
		switch name {
		case "description":
			p.Description = normalize(content)
		case "og:description":
			if p.Description == "" {
				p.Description = normalize(content)
			}
		case "keywords":
			p.Keywords = normalize(content)
		case "robots":
			noIndex, noFollow := robotsDirectives(content)
			p.NoIndex, p.NoFollow = p.NoIndex || noIndex, p.NoFollow || noFollow
		}
		switch strings.ToLower(strings.TrimSpace(s.AttrOr("http-equiv", ""))) {
		case "content-language":
			if p.Language == "" {
				p.Language = content
			}
		case "last-modified":
			name = "last-modified"
		case "refresh":
			if u := refreshURL(base, content); u != nil && p.Refresh == "" {
				p.Refresh = u.String()
			}
		}
		switch name {
		case "last-modified", "dcterms.modified", "article:modified_time":
			if t, ok := parseDate(content); ok && p.LastModified.IsZero() {
				p.LastModified = t
			}
		}
	})
}

// feedTypes are the media types of the feeds a page may link.
var feedTypes = map[string]bool{"application/rss+xml": true, "application/atom+xml": true, "application/feed+json": true}

// readAlternates reads the canonical URL, the feeds linked, and the
// hreflang of an alternate link to the page itself (self, its URL).
func (p *Page) readAlternates(doc *goquery.Document, els *elements, base, self *url.URL) {
	selection(doc, withAttr(els.links, "type")...).Each(func(_ int, s *goquery.Selection) {
		typ, _, _ := mime.ParseMediaType(s.AttrOr("type", ""))
		if !hasToken(s.AttrOr("rel", ""), "alternate") || !feedTypes[typ] {
			return
		}
		if u := resolve(base, s.AttrOr("href", "")); u != nil && !slices.Contains(p.Feeds, u.String()) {
			p.Feeds = append(p.Feeds, u.String())
		}
	})
	selection(doc, els.links...).EachWithBreak(func(_ int, s *goquery.Selection) bool {
		if !hasToken(s.AttrOr("rel", ""), "canonical") {
			return true
		}
		if u := resolve(base, s.AttrOr("href", "")); u != nil {
			p.Canonical = u.String()
		}
		return false
	})
	if self != nil {
		selection(doc, els.hreflang...).EachWithBreak(func(_ int, s *goquery.Selection) bool {
			if u := linkURL(base, s.AttrOr("href", "")); u != nil && sameDocument(u, self) {
				p.Hreflang = strings.TrimSpace(s.AttrOr("hreflang", ""))
				return false
			}
			return true
		})
	}
}

// readLinks reads the page's <a href> links in document order into
// p.Links, the first maxLinks of them (0: all), counts them all in
// p.LinkCount, and returns the nodes of those kept with their index in
// p.Links. They are the elements that findElements found (no selection
// of every link is built), and a link past the bound costs a look at its
// href.
func (p *Page) readLinks(els *elements, base *url.URL, maxLinks int) map[*html.Node]int {
	kept := map[*html.Node]int{}
	for _, a := range els.hrefA {
		href, _ := attr(a, "href")
		p.readLink(a, base, href, maxLinks, kept)
	}
	return kept
}

// readLink reads the link a (its href given) into p.Links and kept if
// the bound leaves room, else counts it if it may be one.
func (p *Page) readLink(a *html.Node, base *url.URL, href string, maxLinks int, kept map[*html.Node]int) {
	if maxLinks > 0 && len(p.Links) >= maxLinks {
		if mayLink(base, href) {
			p.LinkCount++
		}
		return
	}
	u, link := linkString(base, href)
	if u == nil {
		return
	}
	p.LinkCount++
	text := normalize(nodeText(a))
	if text == "" {
		text = normalize(imgAlt(a))
	}
	if text == "" {
		t, _ := attr(a, "title")
		text = normalize(t)
	}
	rel, _ := attr(a, "rel")
	kept[a] = len(p.Links)
	p.Links = append(p.Links, Link{URL: link, Text: text, NoFollow: hasToken(rel, "nofollow")})
}

// mayLink reports, without parsing it, whether href may resolve to a
// link (linkURL): not empty, not a fragment, and of no scheme (relative,
// with a base) or of http, https, or the base's file or smb.
func mayLink(base *url.URL, href string) bool {
	href = strings.TrimSpace(href)
	if href == "" || href[0] == '#' {
		return false
	}
	i := strings.IndexAny(href, ":/?#")
	if i <= 0 || href[i] != ':' {
		return base != nil
	}
	switch scheme := strings.ToLower(href[:i]); scheme {
	case "http", "https":
		return true
	case "file", "smb":
		return base != nil && base.Scheme == scheme
	}
	return false
}

// attr returns the value of n's first attribute key, of any namespace
// (as goquery's Attr), and whether it has one.
func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// nodeText is the text of every text node under n (goquery's Text).
func nodeText(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode {
				b.WriteString(c.Data)
			}
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// imgAlt is the alt text of the first <img alt> under n, "" if none.
func imgAlt(n *html.Node) string {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if alt, ok := attr(c, "alt"); ok && c.Data == "img" {
			return alt
		}
		if alt := imgAlt(c); alt != "" {
			return alt
		}
	}
	return ""
}

// readContent reads the headings, the main content's blocks and bold
// text, marks the links inside it, and fills Text and Tagged. The
// elements the page's print rules hide (printHidden) are left out of the
// main content, unless that would leave less than half of its text (a
// print sheet that hides the page to print one part of it).
func (p *Page) readContent(doc *goquery.Document, els *elements, kept map[*html.Node]int, printHidden map[*html.Node]bool) {
	body := selection(doc, els.body)
	var tagged []string
	if p.Title != "" {
		tagged = append(tagged, p.Title)
	}
	for _, n := range body.Nodes {
		walkHeadings(n, &p.Headings)
	}
	tagged = append(tagged, p.Headings...)

	var content *html.Node
	for _, sel := range mainSelectors {
		doc.Find(sel).EachWithBreak(func(_ int, s *goquery.Selection) bool {
			if n := s.Get(0); !hiddenAncestry(n) && textLen(n) >= minMainText {
				content = n
			}
			return content == nil
		})
		if content != nil {
			break
		}
	}
	if content == nil && len(body.Nodes) > 0 {
		content = body.Nodes[0]
	}
	if content != nil {
		content = titleBlock(content, p.Title)
		nav := navBlocks(doc, els)
		menus := layoutNav(content)
		for _, n := range menus {
			if nav == nil {
				nav = map[*html.Node]bool{}
			}
			nav[n] = true
		}
		w, hidden := contentBlocks(content, kept, p.Links, nav, printHidden)
		p.Blocks, p.PrintHidden = w.blocks, hidden
		tagged = append(tagged, w.bold...)
		p.Chrome = chromeBlocks(body.Nodes, content, menus)
	}
	p.Text = strings.Join(p.Blocks, "\n\n")
	p.Tagged = strings.Join(tagged, "\n")
}

// contentBlocks walks the main content, without the navigation blocks
// nav and, unless that leaves less than half of its text, the elements
// printHidden; it returns the walk and the blocks printHidden took out.
func contentBlocks(content *html.Node, kept map[*html.Node]int, links []Link, nav, printHidden map[*html.Node]bool) (*blockWriter, []string) {
	all := &blockWriter{kept: kept, links: links, nav: nav, asides: true}
	if len(printHidden) == 0 {
		all.walk(content)
		all.flush()
		return all, nil
	}
	both := make(map[*html.Node]bool, len(nav)+len(printHidden))
	for _, m := range []map[*html.Node]bool{nav, printHidden} {
		for n := range m {
			both[n] = true
		}
	}
	whole := &blockWriter{nav: nav, asides: true} // measured only: marks no link
	whole.walk(content)
	whole.flush()
	printed := &blockWriter{kept: kept, links: links, nav: both, asides: true}
	printed.walk(content)
	printed.flush()
	if 2*blocksLen(printed.blocks) >= blocksLen(whole.blocks) {
		return printed, missingBlocks(whole.blocks, printed.blocks)
	}
	all.walk(content)
	all.flush()
	return all, nil
}

// missingBlocks returns the blocks of all that part lacks (as many times
// as all holds them more often).
func missingBlocks(all, part []string) []string {
	have := make(map[string]int, len(part))
	for _, b := range part {
		have[b]++
	}
	var out []string
	for _, b := range all {
		if have[b] > 0 {
			have[b]--
			continue
		}
		out = append(out, b)
	}
	return out
}

// blocksLen is the length of blocks' text, in bytes.
func blocksLen(blocks []string) int {
	n := 0
	for _, b := range blocks {
		n += len(b)
	}
	return n
}

// chromeBlocks returns the text blocks of body outside content: the
// page's template text (none when the main content is the whole body),
// its nav, header, footer and aside elements included (a sidebar of the
// whole site's table of contents is a nav); then those of menus, the
// navigation cells of its layout tables (layoutNav).
func chromeBlocks(body []*html.Node, content *html.Node, menus []*html.Node) []string {
	var w blockWriter
	if len(body) > 0 && body[0] != content {
		w = blockWriter{nav: map[*html.Node]bool{content: true}, chrome: true}
		w.walk(body[0])
		w.flush()
	}
	for _, m := range menus {
		mw := blockWriter{chrome: true}
		mw.walk(m)
		mw.flush()
		w.blocks = append(w.blocks, mw.blocks...)
	}
	return w.blocks
}

// parseDate reads an HTTP date, an RFC 3339 time or a YYYY-MM-DD date.
func parseDate(s string) (time.Time, bool) {
	if t, err := http.ParseTime(s); err == nil {
		return t, true
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// resolve parses ref against base and returns it if it is an absolute
// http or https URL with a host, else nil.
func resolve(base *url.URL, ref string) *url.URL {
	u, _ := resolveString(base, ref)
	return u
}

// resolveString is resolve, with the URL's String (nil and "" where
// resolve gives nil).
func resolveString(base *url.URL, ref string) (*url.URL, string) {
	u, err := url.Parse(strings.TrimSpace(ref))
	if err != nil {
		return nil, ""
	}
	if base != nil {
		u = base.ResolveReference(u)
	}
	switch {
	case (u.Scheme == "file" || u.Scheme == "smb") && base != nil && base.Scheme == u.Scheme: // a folder's page links to its files
	case (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return nil, ""
	}
	// url.Parse accepts hosts it cannot read back ("//::"); a link that
	// does not survive a round trip is unusable.
	s := u.String()
	if _, err := url.Parse(s); err != nil {
		return nil, ""
	}
	return u, s
}

// linkURL resolves an <a href> for Links: fragment-only, javascript:,
// mailto: and other non-http(s) references give nil; the fragment is
// dropped.
func linkURL(base *url.URL, href string) *url.URL {
	u, _ := linkString(base, href)
	return u
}

// linkString is linkURL, with the URL's String (nil and "" where linkURL
// gives nil): a page's links are kept as strings, and the resolution
// made one already.
func linkString(base *url.URL, href string) (*url.URL, string) {
	href = strings.TrimSpace(href)
	if href == "" || href[0] == '#' {
		return nil, ""
	}
	u, s := resolveString(base, href)
	if u == nil {
		return nil, ""
	}
	if u.Fragment != "" || u.RawFragment != "" {
		u.Fragment, u.RawFragment = "", ""
		s = u.String()
	}
	return u, s
}

// sameDocument reports whether u and v name the same document: equal but
// for their fragments.
func sameDocument(u, v *url.URL) bool {
	a, b := *u, *v
	a.Fragment, a.RawFragment, b.Fragment, b.RawFragment = "", "", "", ""
	return a.String() == b.String()
}

// hasToken reports whether the space-separated list contains tok, ignoring case.
func hasToken(list, tok string) bool {
	for f := range strings.FieldsSeq(list) {
		if strings.EqualFold(f, tok) {
			return true
		}
	}
	return false
}

// normalize collapses runs of white space (unicode.IsSpace, and byte order
// marks) to one space and trims.
func normalize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for i := 0; i < len(s); {
		c, size := s[i], 1
		isSpace := c < utf8.RuneSelf && asciiSpace[c]
		if c >= utf8.RuneSelf {
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			isSpace = unicode.IsSpace(r) || r == '\ufeff' // a byte order mark
		}
		if isSpace {
			space = true
		} else {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// droppedTags are removed from the main content and from headings.
var droppedTags = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Nav: true, atom.Header: true, atom.Footer: true, atom.Aside: true,
	atom.Form: true, atom.Iframe: true, atom.Svg: true, atom.Head: true,
	atom.Title: true, atom.Object: true, atom.Embed: true, atom.Select: true,
	atom.Button: true, atom.Textarea: true, atom.Dialog: true, atom.Noembed: true,
	atom.Noframes: true, atom.Frameset: true,
}

// droppedClasses are classes whose elements are a page's furniture, left
// out of the content and of headings: MediaWiki's "[edit]" links beside
// every heading (mw-editsection), its table-of-contents toggle and the
// "Retrieved from" footer it hides from screens (printfooter).
var droppedClasses = []string{"mw-editsection", "editsection", "printfooter", "mw-jump-link", "toctogglespan"}

// dropped reports whether the element n and its subtree are left out of
// the content.
func dropped(n *html.Node) bool {
	if n.Type != html.ElementNode {
		return n.Type == html.CommentNode || n.Type == html.DoctypeNode
	}
	return droppedTags[n.DataAtom] || hiddenAttrs(n)
}

// hiddenAttrs reports whether the element n is left out by its
// attributes: a furniture class, hidden, aria-hidden or an inline style
// that hides it.
func hiddenAttrs(n *html.Node) bool {
	for _, a := range n.Attr {
		switch a.Key {
		case "class":
			if droppedClass(a.Val) {
				return true
			}
		case "hidden":
			return true
		case "aria-hidden":
			if strings.EqualFold(strings.TrimSpace(a.Val), "true") {
				return true
			}
		case "style":
			s := strings.ToLower(strings.Join(strings.Fields(a.Val), ""))
			if strings.Contains(s, "display:none") || strings.Contains(s, "visibility:hidden") {
				return true
			}
		}
	}
	return false
}

// droppedClass reports whether the class list names one of the
// droppedClasses, ignoring case: one pass over its classes (an element's
// attributes are read at every walk of the page).
func droppedClass(list string) bool {
	for f := range strings.FieldsSeq(list) {
		for _, c := range droppedClasses {
			if strings.EqualFold(f, c) {
				return true
			}
		}
	}
	return false
}

// hiddenAncestry reports whether n or one of its ancestors is dropped.
func hiddenAncestry(n *html.Node) bool {
	for ; n != nil; n = n.Parent {
		if dropped(n) {
			return true
		}
	}
	return false
}

// textLen counts the letters and digits under n outside dropped elements,
// stopping at minMainText.
func textLen(n *html.Node) int {
	count := 0
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil && count < minMainText; c = c.NextSibling {
			if c.Type == html.TextNode {
				for _, r := range c.Data {
					if unicode.IsLetter(r) || unicode.IsDigit(r) {
						count++
					}
				}
			} else if !dropped(c) {
				walk(c)
			}
		}
	}
	walk(n)
	return count
}

// walkHeadings appends the text of h1–h3 elements under n that are not dropped.
func walkHeadings(n *html.Node, out *[]string) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode || dropped(c) {
			continue
		}
		switch c.DataAtom {
		case atom.H1, atom.H2, atom.H3:
			var b strings.Builder
			appendText(&b, c)
			if t := normalize(b.String()); t != "" {
				*out = append(*out, t)
			}
		default:
			walkHeadings(c, out)
		}
	}
}

// appendText writes the text under n outside dropped elements.
func appendText(b *strings.Builder, n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.TextNode:
			b.WriteString(c.Data)
		case dropped(c):
		case c.DataAtom == atom.Br:
			b.WriteByte(' ')
		default:
			appendText(b, c)
		}
	}
}

// blockTags end the current text block where they start and end.
var blockTags = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Blockquote: true, atom.Body: true,
	atom.Caption: true, atom.Dd: true, atom.Details: true, atom.Div: true,
	atom.Dl: true, atom.Dt: true, atom.Fieldset: true, atom.Figcaption: true,
	atom.Figure: true, atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true,
	atom.H5: true, atom.H6: true, atom.Hr: true, atom.Li: true, atom.Main: true,
	atom.Ol: true, atom.P: true, atom.Pre: true, atom.Section: true,
	atom.Summary: true, atom.Table: true, atom.Tbody: true, atom.Td: true,
	atom.Tfoot: true, atom.Th: true, atom.Thead: true, atom.Tr: true, atom.Ul: true,
	atom.Legend: true, atom.Center: true, atom.Menu: true,
}

// blockWriter cuts the text of a subtree into blocks.
type blockWriter struct {
	cur    []byte
	blocks []string
	bold   []string
	kept   map[*html.Node]int  // the <a> elements of links, by their index in links
	links  []Link              // the page's links: those walked are the main content's (Main)
	nav    map[*html.Node]bool // navigation blocks left out (navBlocks)
	// chrome: nav, header, footer and aside elements are read (the
	// page's chrome, chromeBlocks); asides: an aside of running prose
	// is read (see proseAside).
	chrome, asides bool
}

// chromeTags are the dropped elements that are a page's template: read
// into Page.Chrome.
var chromeTags = map[atom.Atom]bool{atom.Nav: true, atom.Header: true, atom.Footer: true, atom.Aside: true}

// skip reports whether the walk leaves the element c out.
func (w *blockWriter) skip(c *html.Node) bool {
	switch {
	case w.nav[c]:
		return true
	case !dropped(c):
		return false
	case w.chrome && chromeTags[c.DataAtom]:
		return hiddenAttrs(c)
	case w.asides && c.DataAtom == atom.Aside:
		return hiddenAttrs(c) || !proseAside(c)
	}
	return true
}

func (w *blockWriter) flush() {
	if len(w.cur) == 0 {
		return
	}
	if t := normalize(string(w.cur)); t != "" {
		w.blocks = append(w.blocks, t)
	}
	w.cur = w.cur[:0]
}

func (w *blockWriter) walk(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.TextNode:
			w.cur = append(w.cur, c.Data...)
		case w.skip(c):
		case c.DataAtom == atom.A:
			if i, ok := w.kept[c]; ok {
				w.links[i].Main = true
			}
			w.walk(c)
		case c.DataAtom == atom.Br || c.DataAtom == atom.Img:
			w.cur = append(w.cur, ' ')
		case blockTags[c.DataAtom]:
			w.flush()
			w.walk(c)
			w.flush()
		case c.DataAtom == atom.B || c.DataAtom == atom.Strong:
			var b strings.Builder
			appendText(&b, c)
			if t := normalize(b.String()); t != "" {
				w.bold = append(w.bold, t)
			}
			w.cur = append(w.cur, b.String()...)
		default: // inline: no space, as a browser renders it
			w.walk(c)
		}
	}
}

// RobotsHeader reads the values of X-Robots-Tag response headers: whether
// they say noindex, nofollow, or none (both). A value that names a user
// agent first ("otherbot: noindex") is meant for that crawler and is not
// read; "unavailable_after: …" and the snippet and preview limits are
// directives, not user agents, and change neither answer.
func RobotsHeader(values []string) (noIndex, noFollow bool) {
	for _, v := range values {
		if i := strings.IndexByte(v, ':'); i > 0 && !strings.ContainsRune(v[:i], ',') {
			switch strings.ToLower(strings.TrimSpace(v[:i])) {
			case "unavailable_after", "max-snippet", "max-image-preview", "max-video-preview":
			default:
				continue // for a user agent by name
			}
		}
		ni, nf := robotsDirectives(v)
		noIndex, noFollow = noIndex || ni, noFollow || nf
	}
	return noIndex, noFollow
}

// robotsDirectives reads a robots meta tag's content (or a header
// value's): noindex, nofollow, none.
func robotsDirectives(content string) (noIndex, noFollow bool) {
	for _, d := range strings.FieldsFunc(strings.ToLower(content), func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
		switch d {
		case "noindex":
			noIndex = true
		case "nofollow":
			noFollow = true
		case "none":
			noIndex, noFollow = true, true
		}
	}
	return noIndex, noFollow
}
