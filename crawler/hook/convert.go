package hook

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/dedup/cluster"
	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/internal/lang"
	"github.com/doppel-search/doppel/page"
)

// The page's conversions, all in this file: the cleaner's output to a
// page (fromParsed), a page to its record and back (Record, FromRecord),
// the detector's decisions to the index's facts (Placement, IndexChange)
// and a page to the index's document (IndexDoc). Tested field by field in
// convert_test.go, so that a field added to page.Page is carried or
// deliberately left out.

// fromParsed is the page a parsed response says: its URL and host, the
// cleaner's title, headings, tagged text, blocks and language, the
// Last-Modified header (else the markup's date), the language (lang.Of:
// the page's hreflang to itself, its markup, then the Content-Language
// header's first tag; failing those, the language its text is in, and
// the URL's language section only where the text agrees), the access
// groups and the anchor texts known. Text, the blocks without site template, is left to
// Prepare.
func fromParsed(pageURL string, header http.Header, parsed *Parsed, groups, anchors []string) page.Page {
	c := parsed.Page
	p := page.Page{URL: pageURL, Title: c.Title, Headings: c.Headings, Tagged: c.Tagged, Blocks: c.Blocks,
		Groups: groups, Anchors: anchors, LastModified: c.LastModified, Truncated: parsed.Truncated, Type: parsed.Type}
	p.Lang = lang.Of(pageURL, leading(c.Blocks, detectBytes), c.Hreflang, c.Language, firstTag(header.Get("Content-Language")))
	if lm, err := http.ParseTime(header.Get("Last-Modified")); err == nil {
		p.LastModified = lm.UTC()
	}
	if u, err := url.Parse(pageURL); err == nil {
		p.Host = u.Host
	}
	return p
}

// detectBytes is how much of a page's text language detection reads at
// most (lang.Of and lang.Detect read its first 3,000 words).
const detectBytes = 32 << 10

// leading returns the blocks joined by blank lines, cut after the block
// that reaches n bytes.
func leading(blocks []string, n int) string {
	var b strings.Builder
	for _, s := range blocks {
		if b.Len() >= n {
			break
		}
		b.WriteString(s)
		b.WriteString("\n\n")
	}
	return b.String()
}

// firstTag returns the first language tag of a Content-Language header
// ("de-DE, en" → "de-DE").
func firstTag(v string) string {
	tag, _, _ := strings.Cut(v, ",")
	return strings.TrimSpace(tag)
}

// Record is the record of a processed page: the page and its cluster.
// The fetch's details (validators, hash, schedule, links) are the
// recorder's to add.
func Record(p Page) pages.Record {
	return pages.Record{Page: p.Page, Status: pages.Fetched, Simhash: p.Result.Simhash, Cluster: string(p.Result.Cluster),
		ContainedIn: p.Result.ContainedIn}
}

// FromRecord is the page a fetched record holds, with its recorded
// cluster: what Replay takes back after a restart.
func FromRecord(r pages.Record) Page {
	return Page{Page: r.Page, Result: dedup.Result{ID: r.URL, Cluster: cluster.ID(r.Cluster), Simhash: r.Simhash}}
}

// Placement is where the detector put a document (r), as the index
// takes it.
func Placement(r dedup.Result) indexer.Placement {
	return indexer.Placement{ID: r.ID, Cluster: string(r.Cluster), Master: r.Master, Duplicate: r.Duplicate,
		Edited: r.Edited, Simhash: r.Simhash}
}

// IndexChange is what a removal or new version did to its cluster (ch),
// as the index takes it.
func IndexChange(ch dedup.Change) indexer.Change {
	out := indexer.Change{ID: ch.ID, Cluster: string(ch.Cluster), Master: ch.Master, Elected: ch.Elected, Left: ch.Left,
		Placement: Placement(ch.Result)}
	for _, r := range ch.Moved {
		out.Moved = append(out.Moved, Placement(r))
	}
	return out
}

// IndexDoc is the index document of a processed page: the one conversion
// from a Page to what the index holds. Anchor texts that are site
// template (see Options.Anchors) are left out.
func (h *Hook) IndexDoc(p Page) indexer.Doc {
	return indexer.Doc{ID: p.URL, URL: p.URL, Host: p.Host, Title: p.Title, Headings: p.Headings, Body: p.Text, Template: h.templateBlocks(p),
		Anchors: h.opts.Anchors.Keep(p.Anchors), LastModified: p.LastModified, Groups: p.Groups, Lang: p.Lang, Type: p.Type, Simhash: p.Result.Simhash}
}

// templateBlocks returns the blocks of p's main content that its indexed
// text left out as site template, but for template anchor texts
// (clean.Anchors.StripBlocks): the links a site puts on many pages are no
// text of p's own, even where its master lacks them (indexer.Difference).
func (h *Hook) templateBlocks(p Page) []string {
	if len(p.Blocks) == 0 {
		return nil
	}
	kept := map[string]bool{}
	for _, b := range indexer.Blocks(p.Text) {
		kept[b] = true
	}
	var out []string
	for _, b := range p.Blocks {
		if !kept[b] && !h.opts.Anchors.Template(b) {
			out = append(out, b)
		}
	}
	return out
}
