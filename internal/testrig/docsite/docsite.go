// Package docsite generates a documentation intranet for findability tests:
// an API reference in the shape of rustdoc beside a server manual in ten
// languages — the two kinds of site on which titles stopped finding their
// pages once a query was analyzed by every language of the index (issue 35).
//
// The API reference (under /rust/) has module pages ("core::iter - Rust"),
// pages of items whose titles are identifiers
// ("_mm512_slli_epi16 in core::arch::x86_64 - Rust", "vcreate_f64 in
// core::arch::aarch64 - Rust", "Iterator in std::iter - Rust"), families of
// sibling intrinsics and structs whose pages differ in a few words (some of
// them copies by resemblance, with titles of their own), every item of
// core::arch::x86_64 again under core::arch::x86 and every item of core::iter
// and core::char again under std:: as near-exact copies, and a sidebar that
// repeats the module's items on every page.
//
// The manual (under /manual/LANG/, LANG one of [Languages]) is a web server's
// documentation written in English, German, French, Spanish, Italian,
// Brazilian Portuguese, Russian, Japanese, Korean and Chinese: each page
// in real sentences of its language, with <html lang> set and links to its
// other languages; in every section but English some pages are not
// translated and are English copies with lang="en", as in the Apache manual.
//
// Everything is generated, deterministically, with no files and no
// network. [Pages] gives the ground truth — each page's path, title and main
// text exactly as the kit's `ndd extract` reads it from [Handler]'s HTML —
// from which copies are computed exactly ([Docs] for dedup/eval). The
// default [Options] make a few hundred pages, crawled and indexed in
// seconds; Options.Large makes thousands of API pages for measurements.
package docsite

import (
	"encoding/json"
	"io"
	"net/url"

	"github.com/doppel-search/doppel/dedup/eval"
)

// Options size the site. The zero value is the small site of the default
// tests.
type Options struct {
	// Large makes the full site of the measurements in docs/findability.md:
	// every intrinsic family of the reference and std::arch copies of the
	// architecture modules: about 2,200 API pages instead of about 350.
	// The manual is the same. Default false.
	Large bool
}

// A Page is one page of the site and its ground truth.
type Page struct {
	Path  string // URL path: the page's id, e.g. "/rust/core/iter/index.html"
	Title string // the <title>, white space collapsed
	Lang  string // <html lang>: "en", "de", …, "pt-br", "zh-cn"
	// Text is the page's main content as the kit's extraction gives it:
	// the visible text of <main> (or #page-content) without navigation,
	// one line per block element, white space collapsed, blank lines
	// dropped.
	Text string
	// Of is the path of the page this one copies or translates ("" for an
	// original): the core:: item of a std:: re-export, the x86_64 item of
	// an x86 or std::arch one, the English page of a translation or of an
	// untranslated copy.
	Of string
	// Translated says whether a manual page outside /manual/en/ is in its
	// section's language (false: an English copy).
	Translated bool

	blocks []block // the main content
	nav    []link  // the sidebar (API pages)
}

// Pages returns the site's pages in a fixed order: the home page, the API
// reference, then the manual. Every call with the same options returns the
// same pages.
func Pages(opts Options) []Page {
	pages := []Page{home()}
	pages = append(pages, apiPages(opts)...)
	pages = append(pages, manualPages()...)
	for i := range pages {
		pages[i].Text = text(pages[i].blocks)
	}
	return pages
}

// Docs returns the pages as documents for eval.ComputeTruth: id the path,
// text the main text.
func Docs(pages []Page) []eval.Doc {
	docs := make([]eval.Doc, len(pages))
	for i, p := range pages {
		docs[i] = eval.Doc{ID: p.Path, Text: p.Text}
	}
	return docs
}

// WriteJSONL writes the pages as the kit's site.jsonl does, one JSON
// object a line: {"id", "url", "title", "text"}, url being base (such as
// "http://127.0.0.1:18399") followed by the escaped path. The kit's
// scripts read it beside a pair file (eval.Truth.WriteTo).
func WriteJSONL(w io.Writer, pages []Page, base string) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, p := range pages {
		u := base + (&url.URL{Path: p.Path}).EscapedPath()
		if err := enc.Encode(struct {
			ID    string `json:"id"`
			URL   string `json:"url"`
			Title string `json:"title"`
			Text  string `json:"text"`
		}{p.Path, u, p.Title, p.Text}); err != nil {
			return err
		}
	}
	return nil
}

// home is the site's entry page: links to both crates and to every
// section of the manual.
func home() Page {
	p := Page{Path: "/", Title: "Documentation", Lang: "en"}
	p.blocks = []block{h1("Documentation"), para("The API reference of the Rust standard library and the manual of the Harbor HTTP server, in ten languages.")}
	items := []link{{"/rust/core/index.html", "core"}, {"/rust/std/index.html", "std"}}
	for _, l := range Languages {
		items = append(items, link{"/manual/" + l + "/index.html", "Harbor manual (" + l + ")"})
	}
	p.blocks = append(p.blocks, linkList(items)...)
	return p
}
