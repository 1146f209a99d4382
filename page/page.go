// Package page defines the one page type of Doppel's pipeline: what a
// page says once cleaned, carried unchanged from Prepare through Insert,
// Record and Index.
//
//	fetch ─► clean.Page ─► hook.Prepare ─► page.Page ─► hook.Insert ─► pages.Record ─► indexer.Doc
//	         (Parse)                       (content)    (+ cluster)    (+ the fetch)   (what is searched)
//
// A live fetch, a replay after a restart and a user's own colly collector
// (crawler/hook) all carry a Page; the crawl's record of a fetched page
// (pages.Record) embeds it, and so does the hook's processed page
// (hook.Page, which adds the cluster the detector assigned). The two
// conversions that remain are in package hook and tested there: the
// cleaner's output to a Page (Prepare) and a Page to the search index's
// document (IndexDoc). A document of another format enters the same path
// as a Page.
//
// The JSON names are those of the page records on disk: changing one
// changes the record format.
package page

import "time"

// A Page is what a page says, as cleaned: its text, what names it, and
// who may see it. It holds no fetch details (pages.Record) and no
// cluster (hook.Page).
type Page struct {
	URL          string    `json:"url"`
	Host         string    `json:"host,omitempty"`
	Title        string    `json:"title,omitempty"`
	Headings     []string  `json:"headings,omitempty"`
	Tagged       string    `json:"tagged,omitempty"`       // title, headings and bold text: boosted in SimHash
	Blocks       []string  `json:"blocks,omitempty"`       // main-content blocks as cleaned: what dedup compares
	Text         string    `json:"text,omitempty"`         // the blocks without site-template blocks: what is indexed
	LastModified time.Time `json:"last_modified,omitzero"` // from the Last-Modified header or a meta tag; zero if unknown
	Groups       []string  `json:"groups,omitempty"`       // access groups; none: public
	Lang         string    `json:"lang,omitempty"`         // language, as a primary subtag ("en"); "" if unknown
	Anchors      []string  `json:"anchors,omitempty"`      // anchor texts of links to the page, as known when processed
	Truncated    bool      `json:"truncated,omitempty"`    // only the first bytes of the body were read (a size limit)
	Type         string    `json:"type,omitempty"`         // a document's format ("pdf", "docx", …: crawler/extract); "" for an HTML page
}
