package clean

import (
	"bytes"
	"errors"
	"hash/maphash"
	"io"
	"net/url"
	"strings"
	"sync"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	cssinput "github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/css"
	"golang.org/x/net/html"
)

// What a page's print stylesheet says is furniture. A site's @media print
// rules hide what the site itself calls furniture — the version notes,
// source links and tables of contents of Node.js's API pages — and a PDF
// printed from the page leaves it out. The cleaner reads those rules and
// leaves the elements they hide out of the main content, so a page and
// its printed PDF compare on the same text.

// A StyleSource returns the text of the stylesheet at an absolute URL
// a page links (<link rel=stylesheet>), or nil if it is not to be read
// or could not be fetched. The crawler's fetches them on the page's
// host only, bounded in bytes and count, and cached (Options.Styles).
type StyleSource func(u *url.URL) []byte

// MaxStyleBytes is the most of a stylesheet read for its print rules.
const MaxStyleBytes = 256 << 10

// PrintHidden returns the selectors that sheet hides in print: those of
// the rules inside @media print (a media query list naming print) that
// set display: none or visibility: hidden, or, if printOnly (a sheet
// linked with media=print), of any rule that does. Selectors are
// returned as written (a selector list stays one string); a sheet that
// does not parse gives the rules read before the fault.
func PrintHidden(sheet []byte, printOnly bool) []string {
	p := css.NewParser(cssinput.NewInput(bytes.NewReader(sheet[:min(len(sheet), MaxStyleBytes)])), false)
	var (
		out      []string
		media    []bool // for each open at-rule: does it apply to print
		selector string
		hides    bool
	)
	inPrint := func() bool {
		for i := len(media) - 1; i >= 0; i-- {
			if media[i] {
				return true
			}
		}
		return printOnly
	}
	for range len(sheet) + 1 { // each grammar item takes at least a byte
		gt, _, data := p.Next()
		switch gt {
		case css.ErrorGrammar:
			if errors.Is(p.Err(), io.EOF) || !p.HasParseError() {
				return out
			}
		case css.BeginAtRuleGrammar:
			media = append(media, strings.EqualFold(string(data), "@media") && printMedia(tokensText(p.Values())))
		case css.EndAtRuleGrammar:
			if len(media) > 0 {
				media = media[:len(media)-1]
			}
		case css.BeginRulesetGrammar:
			selector, hides = tokensText(p.Values()), false
		case css.DeclarationGrammar:
			hides = hides || hidingDeclaration(string(data), p.Values())
		case css.EndRulesetGrammar:
			if hides && selector != "" && inPrint() {
				out = append(out, selector)
			}
			selector, hides = "", false
		}
	}
	return out
}

// printRules remembers PrintHidden's answers for the stylesheets the
// pages of a crawl share: parsing the same few sheets again for each page
// was 7 % of a crawl's CPU (docs/measurements.md).
var printRules = sheetRules{seed: maphash.MakeSeed(), entries: map[uint64]sheetRule{}}

// maxSheetRules is how many stylesheets printRules remembers; when full
// it forgets them all.
const maxSheetRules = 64

// sheetRules is a cache of PrintHidden's answers by the sheet's bytes.
type sheetRules struct {
	seed    maphash.Seed
	mu      sync.Mutex
	entries map[uint64]sheetRule // by the hash of the sheet and printOnly
}

// A sheetRule is PrintHidden's answer for one sheet.
type sheetRule struct {
	sheet     []byte
	printOnly bool
	selectors []string
}

// hidden returns PrintHidden(sheet, printOnly), from the cache when the
// same bytes were read before. The caller must not change the slice.
func (c *sheetRules) hidden(sheet []byte, printOnly bool) []string {
	if len(sheet) == 0 || len(sheet) > MaxStyleBytes {
		return PrintHidden(sheet, printOnly)
	}
	h := maphash.Bytes(c.seed, sheet)
	if printOnly {
		h = ^h
	}
	c.mu.Lock()
	e, ok := c.entries[h]
	c.mu.Unlock()
	if ok && e.printOnly == printOnly && bytes.Equal(e.sheet, sheet) {
		return e.selectors
	}
	selectors := PrintHidden(sheet, printOnly)
	c.mu.Lock()
	if len(c.entries) >= maxSheetRules {
		clear(c.entries)
	}
	c.entries[h] = sheetRule{sheet: bytes.Clone(sheet), printOnly: printOnly, selectors: selectors}
	c.mu.Unlock()
	return selectors
}

// tokensText joins the text of tokens.
func tokensText(ts []css.Token) string {
	var b strings.Builder
	for _, t := range ts {
		b.Write(t.Data)
	}
	return strings.TrimSpace(b.String())
}

// printMedia reports whether a media query list applies to print: one of
// its queries names print, not negated ("print", "only print and
// (color)", "screen, print"; not "screen", "not print", "all").
func printMedia(list string) bool {
	for q := range strings.SplitSeq(strings.ToLower(list), ",") {
		words := strings.Fields(q)
		if len(words) > 0 && words[0] == "only" {
			words = words[1:]
		}
		if len(words) > 0 && words[0] == "print" {
			return true
		}
	}
	return false
}

// hidingDeclaration reports whether the declaration property: values
// hides its element: display: none, visibility: hidden (or collapse).
func hidingDeclaration(property string, values []css.Token) bool {
	v := strings.ToLower(strings.TrimSuffix(strings.ReplaceAll(tokensText(values), " ", ""), "!important"))
	switch strings.ToLower(property) {
	case "display":
		return v == "none"
	case "visibility":
		return v == "hidden" || v == "collapse"
	}
	return false
}

// printHiddenNodes returns the elements of doc that its print rules
// hide: those of its <style> elements and, through styles, of the
// stylesheets it links on its own host (base's). A selector cascadia
// cannot read is passed over; with styles nil only inline rules count.
func printHiddenNodes(doc *goquery.Document, els *elements, base *url.URL, styles StyleSource) map[*html.Node]bool {
	var selectors []string
	selection(doc, els.styles...).Each(func(_ int, s *goquery.Selection) {
		media, ok := s.Attr("media")
		if ok && !printMedia(media) && !strings.EqualFold(strings.TrimSpace(media), "all") {
			return
		}
		selectors = append(selectors, printRules.hidden([]byte(s.Text()), ok && printMedia(media))...)
	})
	if styles != nil && base != nil {
		selection(doc, els.links...).Each(func(_ int, s *goquery.Selection) {
			if !hasToken(strings.ToLower(s.AttrOr("rel", "")), "stylesheet") {
				return
			}
			media, ok := s.Attr("media")
			if ok && !printMedia(media) && !strings.EqualFold(strings.TrimSpace(media), "all") {
				return
			}
			u := resolve(base, s.AttrOr("href", ""))
			if u == nil || u.Host != base.Host {
				return
			}
			u.Fragment = ""
			selectors = append(selectors, printRules.hidden(styles(u), ok && printMedia(media))...)
		})
	}
	if len(selectors) == 0 {
		return nil
	}
	hidden := map[*html.Node]bool{}
	for _, sel := range selectors {
		group, err := cascadia.ParseGroup(sel)
		if err != nil {
			continue
		}
		for _, root := range doc.Nodes {
			for _, n := range cascadia.QueryAll(root, group) {
				hidden[n] = true
			}
		}
	}
	return hidden
}
