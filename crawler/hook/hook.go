// Package hook adds Doppel to a gocolly/colly collector and a
// blevesearch/bleve index that the caller already has. Each response goes
// through one path: Parse (package clean: checks and main content), Prepare
// (site template stripped, signatures computed; concurrent), Insert (the
// near-duplicate cluster assigned by package dedup; serial), Record (an
// optional [Recorder] keeps the page) and Index (the [Sink], an
// indexer.Index, indexes it under its near-duplicate policy):
//
//	h, err := hook.Attach(ctx, collector, hook.Options{Index: ix})
//	…
//	collector.Visit(seed) // each night: pages seen again are updated, 404s removed
//	h.Flush(ctx)
//	err = h.Err()         // the first error; each also goes to Options.OnError
//
// A job run as a new process each night opens the hook on a state
// directory instead ([Open]: h, err := hook.Open(dir, opts), then
// h.Attach(ctx, collector), Flush and Close): yesterday's pages,
// clusters and statistics are read back from it.
//
// A Hook is also the processing step of Doppel's own crawler (package
// crawler), which adds a persistent frontier, admission rules and restart
// on top, and replays its recorded pages through [Hook.Replay] after a
// restart: the same Insert → Index path, from the record.
package hook

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/doppel-search/doppel/crawler/clean"
	"github.com/doppel-search/doppel/crawler/extract"
	"github.com/doppel-search/doppel/crawler/urlnorm"
	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/dedup/cluster"
	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/internal/lang"
	"github.com/doppel-search/doppel/internal/tokens"
	"github.com/doppel-search/doppel/page"
	"github.com/doppel-search/doppel/page/pagedate"
)

// ErrSkipped is what every [SkipError] is, for errors.Is.
var ErrSkipped = errors.New("hook: skipped")

// A SkipError says why a response was deliberately not processed (not
// HTML or plain text, marked noindex, not a document at all, a redirect
// stub). Get the reason with errors.As; errors.Is(err, ErrSkipped) holds.
type SkipError struct {
	Reason string // e.g. "content type application/pdf"
	// Location is the target of a page that redirects by <meta
	// http-equiv=refresh>, for the caller to follow like an HTTP
	// redirect; empty otherwise.
	Location string
}

func (e *SkipError) Error() string { return "skipped: " + e.Reason }

// Is reports whether target is ErrSkipped.
func (e *SkipError) Is(target error) bool { return target == ErrSkipped }

func skip(format string, args ...any) error {
	return &SkipError{Reason: fmt.Sprintf(format, args...)}
}

// A Sink receives every processed page for indexing, with its cluster.
// *indexer.Index is the Sink Doppel uses; tests and other backends may
// plug in their own. Add is called in processing order, from one
// goroutine at a time; Remove and Update follow the detector's removals
// and new versions of pages; Flush makes what was written durable. The
// detector's decisions reach a Sink as plain facts (indexer.Placement,
// indexer.Change): see Placement and IndexChange, the one conversion.
type Sink interface {
	Add(ctx context.Context, d indexer.Doc, r indexer.Placement) error
	Remove(ctx context.Context, ch indexer.Change) error
	Update(ctx context.Context, d indexer.Doc, ch indexer.Change) error
	Flush(ctx context.Context) error
}

var _ Sink = (*indexer.Index)(nil)

// A Recorder keeps every processed page, in processing order, from one
// goroutine at a time (package crawler records them durably, which is what
// a restart replays). A Record error stops the page before it is indexed.
type Recorder interface {
	Record(Page) error
}

// RecorderFunc adapts a function to a Recorder.
type RecorderFunc func(Page) error

// Record calls f(p).
func (f RecorderFunc) Record(p Page) error { return f(p) }

// Options configures a Hook. All fields are optional.
type Options struct {
	// Detector assigns clusters. Default: a new detector with
	// dedup.Web, the settings for web pages.
	Detector *dedup.Detector
	// Index receives every processed page under its near-duplicate
	// policy. Default nil: no indexing.
	Index Sink
	// Recorder keeps every processed page before it is indexed. Default
	// nil: nothing recorded.
	Recorder Recorder
	// Templates holds the site-template statistics. Default: a new
	// clean.Templates with its default options.
	Templates *clean.Templates
	// Chrome remembers the blocks each host's pages show outside their
	// main content (header, sidebar, footer), which a document made from
	// a whole page file carries beside the page's text: a document is
	// compared without runs of them (clean.Chrome). Default: a new
	// clean.Chrome.
	Chrome *clean.Chrome
	// Anchors holds the anchor-text statistics that tell site template
	// ("Printer-friendly version" on links to many pages) from the words
	// that name a page: template texts are left out of what pages are
	// indexed with. Prepare and Replay count the anchor texts of each
	// page; a crawler counts every link it sees as well. Default: a new
	// clean.Anchors with its default options.
	Anchors *clean.Anchors
	// Language is the language whose pages are preferred as masters of
	// their clusters (dedup.Document.Preference), before the detector's
	// master policy: a BCP 47 tag, compared by its primary subtag. Of
	// its pages, one whose URL names that language's section or none
	// comes before one in another language's section (lang.FromURL).
	// Default "": the language of the first page Prepare or Replay sees
	// with one — a crawl's seed's if it declares one, else whichever
	// page is prepared first. Of a cluster with no page in it, a page in
	// its own language's section comes first.
	Language string
	// MaxBodyBytes is the largest body processed; the first MaxBodyBytes
	// bytes of a larger one are (Page.Truncated). Default 5 MiB.
	MaxBodyBytes int
	// MaxWords is the most words (tokens, package internal/tokens) of a
	// page or document kept, in its text and in its tagged text; the
	// rest is cut (Parsed.Truncated). What indexing a page holds grows
	// with its words, about 0.5 KB each: 5 MiB of one-letter words (2.6
	// million) took a crawl to 1,360 MB. Default DefaultMaxWords.
	MaxWords int
	// MaxLinks is the most links of a page read (clean.Options.MaxLinks:
	// the first, in document order; the others only counted,
	// Page.LinkCount). Default 0: every link.
	MaxLinks int
	// Styles returns the stylesheets a page links on its own host, read
	// for their print rules: what they hide in print is left out of the
	// main content (clean.Options.Styles). Default nil: a page's <style>
	// elements only.
	Styles clean.StyleSource
	// Groups returns the access groups of a URL. Default: none (public).
	Groups func(url string) []string
	// Source reads back a recorded page: what Update and Remove record
	// again when a change gives other pages a new cluster or master, and
	// what SourceDoc gives the index. A Recorder's counterpart. Default
	// nil: a change that moves a page not at hand is an error.
	Source PageSource
	// Documents bounds the reading of each document (crawler/extract:
	// bytes, unpacked bytes, pages, text, time). Default: extract's
	// defaults (50 MiB, 200 MiB, 2000 pages, 5 MiB of text, 10 min).
	Documents extract.Limits
	// PreferDocuments makes a document (PDF, DOCX, …) the master of its
	// cluster before an HTML page with the same text. Default false: the
	// HTML page, which opens in the browser, is the master.
	PreferDocuments bool
	// OnPage is called after each page is inserted or updated, from the
	// goroutine that processed it (colly's callback goroutine), once the
	// hook is free again: it may call the hook. Pages are assigned their
	// clusters one at a time, but with an asynchronous collector OnPage
	// may be called for two pages at once.
	OnPage func(Page)
	// NoDedup turns detection off: every page is its own cluster and
	// master, and is indexed. For crawls that only need the index, and for
	// measuring what detection costs. Default false.
	NoDedup bool
	// OnSkip is called, by Attach's callbacks only, with each response
	// deliberately not processed and why (a *SkipError). Default nil.
	OnSkip func(url string, err error)
	// OnError is called, by Attach's callbacks only, with each response
	// that could not be processed (a detector, recorder or index error, the
	// context's end) and each page that could not be removed. Default: the
	// error is logged (package log). Hook.Err returns the first.
	OnError func(url string, err error)
	// AtTurn, with a Detector shared among workers (dedup.NewShared), is
	// called by Insert at the page's turn in the shared order, before the
	// detector commits it, with the page's document number and the page
	// as it will be placed (its final Result): where a worker hands the
	// page on (dedup.Detector.InsertTurn; package crawler/pagelog). An
	// error gives the number up and fails Insert. Default nil: Insert
	// uses dedup.Detector.Insert.
	AtTurn func(n uint32, p Page) error
}

// A Page is a processed page: what a Recorder keeps, what the index
// receives (see [Hook.IndexDoc]), and what [Hook.Replay] takes back.
type Page struct {
	page.Page
	Result dedup.Result // cluster, master, duplicate or not, SimHash
	// Arrived says the page entered the detector anew (Update: its new
	// version left its cluster), last in arrival order: a Recorder that
	// replays pages in their order moves it to the end.
	Arrived bool
}

// dedupDoc is the document the detector compares: the main content as
// cleaned. Site-template stripping is left out on purpose: it depends on
// the pages seen before, and removing shared labels would make copies of
// templated pages look less alike than they are.
func (h *Hook) dedupDoc(p *Page) dedup.Document {
	blocks := p.Blocks
	if p.Type != "" {
		// A document made from a whole page file holds the page's
		// template: compared without it (Options.Chrome).
		blocks = h.opts.Chrome.Strip(p.Host, blocks)
	}
	d := dedup.Document{ID: p.URL, URL: p.URL, Text: strings.Join(blocks, "\n\n"), Tagged: p.Tagged, Time: pagedate.Of(p.Page),
		Extracted: p.Type != ""}
	// A page in the crawl's language first, and of those one whose URL
	// names that language's section, or none, before one in another
	// language's section (the Apache manual's /da/ section keeps
	// untranslated English pages: the /en/ page is master). Of a cluster
	// with no page in the crawl's language, a page in its own language's
	// section first (a crawl of Catalan: of the English pages the /ca/,
	// /cs/ and /en/ sections share, the /en/ one). Then an HTML page
	// before a document of the same text (or the other way with
	// PreferDocuments); then a page before its printer-friendly view
	// (printView), which holds the same main content.
	if p.Lang != "" {
		s, crawlLang := lang.FromURL(p.URL), p.Lang == h.language(p.Lang)
		switch {
		case crawlLang && (s == "" || s == p.Lang):
			d.Preference = 16
		case crawlLang:
			d.Preference = 8
		case s == p.Lang:
			d.Preference = 4
		}
	}
	if (p.Type == "") != h.opts.PreferDocuments {
		d.Preference += 2
	}
	if !printView(p.URL) {
		d.Preference++
	}
	return d
}

// printDirs name a folder of printer-friendly views ("/print/page.html",
// "/page/print/"), printFiles a file that is one ("/page/printable.html");
// a file named print (print.html) may be a page about printing.
var (
	printDirs  = []string{"print", "printable", "print-friendly", "printer-friendly", "printview", "print-view"}
	printFiles = printDirs[1:]
)

// printView reports whether URL u, by its shape, is a printer-friendly
// view of another page: a query that names one (urlnorm.View: a crawl
// fetches those only with FetchViews), a folder named print, printable,
// printer-friendly, … or a file named printable, printer-friendly, ….
// Such a view holds the page's main content, so it is its twin; the
// page, with its links and context, is the better master.
func printView(u string) bool {
	if v, ok := urlnorm.View(u); ok && v == urlnorm.ViewPrint {
		return true
	}
	pu, err := url.Parse(u)
	if err != nil {
		return false
	}
	segs := strings.Split(strings.ToLower(strings.TrimSuffix(pu.Path, "/")), "/")
	last := segs[len(segs)-1]
	if slices.Contains(printFiles, strings.TrimSuffix(last, path.Ext(last))) {
		return true
	}
	if strings.HasSuffix(pu.Path, "/") {
		return slices.Contains(printDirs, last)
	}
	return slices.ContainsFunc(segs[:len(segs)-1], func(s string) bool { return slices.Contains(printDirs, s) })
}

// language returns the preferred language (Options.Language), learning
// it from l, the language of the page at hand, if it is not known yet.
func (h *Hook) language(l string) string {
	h.langMu.Lock()
	defer h.langMu.Unlock()
	if h.lang == "" {
		h.lang = l
	}
	return h.lang
}

// A Hook processes responses in arrival order. It is safe for concurrent
// use: Parse and Prepare run concurrently; Insert and Replay are
// serialized, so that cluster assignment follows their order.
type Hook struct {
	opts Options
	mu   sync.Mutex
	// lang is the preferred language: Options.Language, or the first
	// page's (under langMu).
	langMu sync.Mutex
	lang   string
	// early holds the pages stripped before the template statistics of
	// their host and section were known (clean.Templates.Known), the
	// ones Restrip strips again: at most MinPages-1 a host and a
	// section. Under earlyMu.
	earlyMu sync.Mutex
	early   map[string]bool
	// links holds what Attach learned of the pages' links: the anchor
	// texts pointing to each URL, and the pages Attach keeps when
	// Options.Source is nil (see Attach). Nil before Attach.
	links *linkState
	// state keeps the hook's state in a directory (Open); nil for a
	// hook of New or Attach.
	state *state
	// errMu guards err, the first error Attach's callbacks or Flush met.
	errMu sync.Mutex
	err   error
}

// EnsureDefaults sets every zero field but Detector to its default (each
// field's doc says which; New makes the Detector, which can fail) and
// returns o.
func (o *Options) EnsureDefaults() *Options {
	if o.Templates == nil {
		o.Templates = clean.NewTemplates(clean.TemplateOptions{})
	}
	if o.Chrome == nil {
		o.Chrome = &clean.Chrome{}
	}
	if o.Anchors == nil {
		o.Anchors = clean.NewAnchors(clean.AnchorOptions{})
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = clean.DefaultMaxBytes
	}
	if o.MaxWords <= 0 {
		o.MaxWords = DefaultMaxWords
	}
	if o.Groups == nil {
		o.Groups = func(string) []string { return nil }
	}
	return o
}

// New returns a Hook.
func New(opts Options) (*Hook, error) {
	if err := opts.Documents.Validate(); err != nil {
		return nil, err
	}
	if opts.Detector == nil {
		det, err := dedup.New(nil, dedup.Web())
		if err != nil {
			return nil, err
		}
		opts.Detector = det
	}
	opts.EnsureDefaults()
	return &Hook{opts: opts, lang: lang.Primary(opts.Language)}, nil
}

// AnchorCarries reports whether the anchor text of a link from a page of
// the access groups source to a page of the groups target may be indexed
// with the target: only if everyone who may see the target may see the
// source — the source is public, or the target is restricted to groups
// all of which the source admits (nil or empty: public). Otherwise a user
// who may see the target but not the source would find the target by
// words only the source holds (a link from /hr/ to a public page, its
// anchor text "grievance procedure"). The anchors given to Process,
// Prepare and Prepared.SetAnchors are indexed as given: a caller
// collecting them filters them with AnchorCarries, as package crawler
// does.
func AnchorCarries(source, target []string) bool {
	if len(source) == 0 {
		return true
	}
	if len(target) == 0 {
		return false
	}
	for _, g := range target {
		if !slices.Contains(source, g) {
			return false
		}
	}
	return true
}

// Detector returns the hook's detector.
func (h *Hook) Detector() *dedup.Detector { return h.opts.Detector }

// Templates returns the hook's site-template statistics.
func (h *Hook) Templates() *clean.Templates { return h.opts.Templates }

// Anchors returns the anchor-text statistics in use.
func (h *Hook) Anchors() *clean.Anchors { return h.opts.Anchors }

// observeAnchors counts the anchor texts of links to p.
func (h *Hook) observeAnchors(p *Page) {
	for _, a := range p.Anchors {
		h.opts.Anchors.Observe(a, p.URL)
	}
}

// A Parsed response: the cleaner's page and whether the body was cut at
// MaxBodyBytes.
type Parsed struct {
	*clean.Page
	Truncated bool
	// Type is a document's format (crawler/extract: "pdf", "docx", …),
	// "" for an HTML page or plain text.
	Type string
}

// Parse checks and cleans a response body without assigning it a
// cluster. A document (PDF, DOCX, PPTX, XLSX, ODT, ODP, ODS: by its
// Content-Type, else its URL's extension or its first bytes) is read by
// package extract within Options.Documents, and takes the same path as a
// page from here on. Bodies that are deliberately not processed — of
// another type, marked noindex, binary bytes labelled HTML, redirect stubs
// (a <meta http-equiv=refresh> of at most clean.MaxRefreshDelay seconds),
// documents that cannot be read (encrypted, malformed, too large) — give
// a *SkipError with the reason.
// An HTML or text body longer than MaxBodyBytes is cut there and parsed
// (Truncated).
//
// A word (tokens.Scan) longer than MaxWordBytes is cut to its first
// MaxWordBytes (Truncated): the index's dictionary holds each term whole,
// and a page of one 5 MiB word took a crawl past 1 GB and minutes.
func (h *Hook) Parse(pageURL string, header http.Header, body []byte) (*Parsed, error) {
	p, err := h.parse(pageURL, header, body)
	if err == nil && capWords(p.Page, h.opts.MaxWords) {
		p.Truncated = true
	}
	if err == nil && shortWords(p.Page) {
		p.Truncated = true
	}
	return p, err
}

// MaxWordBytes is the longest word kept whole: longer ones are cut to
// their first MaxWordBytes bytes (at a character). Lucene's standard
// tokenizer cuts at 255 characters.
const MaxWordBytes = 256

// shortWords cuts the words of p's text fields longer than MaxWordBytes
// and reports whether it cut any.
func shortWords(p *clean.Page) bool {
	cut := false
	short := func(s *string) {
		if t, ok := shortWordsOf(*s, MaxWordBytes); ok {
			*s, cut = t, true
		}
	}
	blocks := false
	for i := range p.Blocks {
		short(&p.Blocks[i])
		blocks = blocks || cut
	}
	if blocks {
		p.Text = strings.Join(p.Blocks, "\n\n")
	}
	for i := range p.Headings {
		short(&p.Headings[i])
	}
	for _, s := range []*string{&p.Title, &p.Tagged, &p.Description, &p.Keywords} {
		short(s)
	}
	return cut
}

// shortWordsOf returns s with every word longer than limit bytes cut to
// its first limit bytes, at a character, and whether it cut any.
func shortWordsOf(s string, limit int) (string, bool) {
	var b strings.Builder
	last := 0
	tokens.Scan(s, func(start, end int, _ bool) {
		if end-start <= limit {
			return
		}
		keep := start + limit
		for keep > start && !utf8.RuneStart(s[keep]) {
			keep--
		}
		b.WriteString(s[last:keep])
		last = end
	})
	if last == 0 {
		return s, false
	}
	b.WriteString(s[last:])
	return b.String(), true
}

// DefaultMaxWords is Options.MaxWords by default: about 2 MB of English
// text, a book of 800 pages.
const DefaultMaxWords = 400_000

// capWords cuts p's blocks, text and tagged text after their first max
// words (tokens.Scan), and reports whether it cut anything. Cost: one
// scan of the text.
func capWords(p *clean.Page, limit int) bool {
	cut := false
	n := 0
	for i, b := range p.Blocks {
		if end, over := wordsEnd(b, limit-n); over {
			p.Blocks = append(p.Blocks[:i:i], strings.TrimSpace(b[:end]))
			if p.Blocks[i] == "" {
				p.Blocks = p.Blocks[:i]
			}
			cut = true
			break
		}
		n += words(b)
	}
	if cut {
		p.Text = strings.Join(p.Blocks, "\n\n")
	}
	if end, over := wordsEnd(p.Tagged, limit); over {
		p.Tagged, cut = p.Tagged[:end], true
	}
	return cut
}

// words counts the tokens of s.
func words(s string) int {
	n := 0
	tokens.Scan(s, func(int, int, bool) { n++ })
	return n
}

// wordsEnd returns the byte offset where the limit-th token of s ends
// (0 for a limit of 0), and true, if s has more than limit tokens.
func wordsEnd(s string, limit int) (int, bool) {
	n, end, over := 0, 0, false
	tokens.Scan(s, func(_, e int, _ bool) {
		if n++; n == limit {
			end = e
		} else if n == limit+1 {
			over = true
		}
	})
	return end, over
}

// parse is Parse without the bound on words.
func (h *Hook) parse(pageURL string, header http.Header, body []byte) (*Parsed, error) {
	base, err := url.Parse(pageURL)
	if err != nil {
		return nil, fmt.Errorf("hook: page URL: %w", err)
	}
	robots := header.Values("X-Robots-Tag")
	if noIndex, _ := clean.RobotsHeader(robots); noIndex {
		return nil, skip("X-Robots-Tag noindex")
	}
	if t, ok := extract.Detect(header.Get("Content-Type"), base.Path, body[:min(len(body), 8)]); ok {
		return parseDocument(t, body, h.opts.Documents)
	}
	truncated := len(body) > h.opts.MaxBodyBytes
	if truncated {
		body = body[:h.opts.MaxBodyBytes]
	}
	ctype, _, _ := mime.ParseMediaType(header.Get("Content-Type"))
	switch ctype {
	case "text/plain":
		return &Parsed{Page: plainPage(string(body)), Truncated: truncated}, nil
	case "", "text/html", "application/xhtml+xml":
	default:
		return nil, skip("content type %s", ctype)
	}
	page, err := clean.ParseBytes(body, base, clean.Options{MaxBytes: int64(h.opts.MaxBodyBytes), MaxLinks: h.opts.MaxLinks, Styles: h.opts.Styles, Robots: robots})
	switch {
	case errors.Is(err, clean.ErrNotHTML):
		return nil, skip("not an HTML document")
	case err != nil:
		return nil, skip("%v", err)
	case page.NoIndex:
		return nil, skip("robots meta noindex")
	case page.Refresh != "":
		return nil, &SkipError{Reason: "meta refresh redirect to " + page.Refresh, Location: page.Refresh}
	}
	h.opts.Chrome.Observe(base.Host, page.Chrome)
	h.opts.Chrome.ObservePrintHidden(base.Host, page.PrintHidden)
	return &Parsed{Page: page, Truncated: truncated || page.Cut}, nil
}

// parseDocument reads a document into what the cleaner reads of a page:
// its title, its text blocks (all main content) and its date.
func parseDocument(t extract.Type, body []byte, lim extract.Limits) (*Parsed, error) {
	doc, err := extract.Read(t, body, lim)
	if err != nil {
		return nil, skip("%v", err)
	}
	p := &clean.Page{Title: doc.Title, Blocks: doc.Blocks, Text: strings.Join(doc.Blocks, "\n\n"), LastModified: doc.Modified}
	if doc.Title != "" {
		p.Tagged = doc.Title
	}
	return &Parsed{Page: p, Truncated: doc.Cut, Type: string(t)}, nil
}

// Process parses a response (see Parse), prepares the page and puts it
// (Put: a page the detector holds already is updated, others inserted).
func (h *Hook) Process(ctx context.Context, pageURL string, header http.Header, body []byte, anchors []string) (Page, error) {
	parsed, err := h.Parse(pageURL, header, body)
	if err != nil {
		return Page{}, err
	}
	prep, err := h.Prepare(pageURL, header, parsed, anchors)
	if err != nil {
		return Page{}, err
	}
	return h.Put(ctx, prep)
}

// A Prepared page has been stripped of its site template and signed, and
// awaits Insert.
type Prepared struct {
	page Page
	doc  *dedup.Prepared // nil under NoDedup
}

// URL returns the prepared page's URL.
func (p *Prepared) URL() string { return p.page.URL }

// Fingerprint returns the page's content fingerprint as the detector
// signs it (zero under NoDedup): compare it with the detector's stored
// one (dedup.Detector.Fingerprint) to tell an unchanged, trivially changed
// or changed page.
func (p *Prepared) Fingerprint() dedup.Fingerprint {
	if p.doc == nil {
		return dedup.Fingerprint{}
	}
	return p.doc.Fingerprint()
}

// SetAnchors replaces the anchor texts the page is indexed with (the
// crawler learns more of them between Prepare and Insert).
func (p *Prepared) SetAnchors(anchors []string) { p.page.Anchors = anchors }

// Page returns the prepared page (its Result still empty): what a worker
// of a shared crawl hands on for another process to prepare again
// (PreparePage).
func (p *Prepared) Page() Page { return p.page }

// PreparePage prepares a page another process fetched and parsed (a
// shared crawl's new version of a page, from its log) as Prepare would
// have here: its index text stripped of the site template by this hook's
// statistics, which it is counted in, and signed by this hook's detector,
// for Update.
func (h *Hook) PreparePage(p Page) (*Prepared, error) {
	p.Result = dedup.Result{}
	h.strip(&p)
	prep := &Prepared{page: p}
	if !h.opts.NoDedup {
		doc, err := h.opts.Detector.Prepare(h.dedupDoc(&p))
		if err != nil {
			return nil, err
		}
		prep.doc = doc
	}
	return prep, nil
}

// Prepare strips the site template from a parsed page and computes its
// signatures. header supplies Last-Modified (may be nil); anchors are the
// anchor texts of links to the page known so far (indexed; may be nil).
// It runs concurrently with other Prepare and Insert calls; Insert assigns
// clusters in the order it is called.
func (h *Hook) Prepare(pageURL string, header http.Header, parsed *Parsed, anchors []string) (*Prepared, error) {
	return h.PreparePage(Page{Page: fromParsed(pageURL, header, parsed, h.opts.Groups(pageURL), anchors)})
}

// Insert assigns a prepared page its cluster, records it, indexes it and
// calls OnPage.
func (h *Hook) Insert(ctx context.Context, prep *Prepared) (Page, error) {
	h.mu.Lock()
	p, err := h.insert(ctx, prep)
	h.mu.Unlock()
	if err != nil {
		return Page{}, err
	}
	h.onPage(p)
	return p, nil
}

// Put inserts a prepared page, or, if the detector holds its URL already
// (a recrawl's new version of it), updates it as Update does: what a
// crawl that visits a page again calls. Under NoDedup it inserts, which
// replaces the page in the index. It is serialized with Insert and
// Update, and calls OnPage.
func (h *Hook) Put(ctx context.Context, prep *Prepared) (Page, error) {
	h.mu.Lock()
	var p Page
	var err error
	if _, held := h.opts.Detector.Fingerprint(prep.page.URL); held && !h.opts.NoDedup {
		p, _, err = h.update(ctx, prep)
	} else {
		p, err = h.insert(ctx, prep)
	}
	h.mu.Unlock()
	if err != nil {
		return Page{}, err
	}
	h.onPage(p)
	return p, nil
}

// onPage calls OnPage, if set, with p.
func (h *Hook) onPage(p Page) {
	if h.opts.OnPage != nil {
		h.opts.OnPage(p)
	}
}

// insert is Insert without OnPage; the caller holds h.mu.
func (h *Hook) insert(ctx context.Context, prep *Prepared) (Page, error) {
	p := prep.page
	var err error
	switch {
	case prep.doc == nil:
		p.Result = singleton(p.URL)
	case h.opts.AtTurn != nil:
		p.Result, err = h.opts.Detector.InsertTurn(prep.doc, func(n uint32, res dedup.Result) error {
			q := p
			q.Result = res
			return h.opts.AtTurn(n, q)
		})
	default:
		p.Result, err = h.opts.Detector.Insert(prep.doc)
	}
	if err != nil {
		return Page{}, err
	}
	if h.opts.Recorder != nil {
		if err := h.opts.Recorder.Record(p); err != nil {
			return Page{}, err
		}
	}
	if err := h.index(ctx, p); err != nil {
		return Page{}, err
	}
	h.keep(p)
	return p, nil
}

// Replay inserts a recorded page again, after a restart: it assigns the
// cluster (from p.Blocks, as Insert did; in the order pages were first
// inserted, the detector decides as it did then) and, if reindex is set,
// indexes the page again. A page the detector already holds (it was read
// from a snapshot that has an older version of the page) is given its
// recorded version (dedup.Detector.Replace). Templates statistics are
// restored from the blocks. It neither records nor calls OnPage. The
// returned Page carries the new Result.
func (h *Hook) Replay(ctx context.Context, p Page, reindex bool) (Page, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.observe(&p)
	return h.replay(ctx, p, reindex)
}

// Arrive inserts a page another process fetched and parsed (a worker of
// a shared crawl: crawler.Follower takes its pages from the crawl's log,
// in the shared order) as Prepare and Insert would have inserted it here:
// its index text stripped of the site template by this hook's
// statistics, which it is counted in, its cluster assigned by this hook's
// detector, indexed. It neither records nor calls OnPage. The returned
// Page carries the text and the Result.
func (h *Hook) Arrive(ctx context.Context, p Page) (Page, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.strip(&p)
	return h.replay(ctx, p, true)
}

// replay assigns p's cluster, as Replay does, and indexes it if reindex
// is set; the caller holds h.mu and has told the statistics.
func (h *Hook) replay(ctx context.Context, p Page, reindex bool) (Page, error) {
	switch {
	case h.opts.NoDedup:
		p.Result = singleton(p.URL)
	default:
		doc := h.dedupDoc(&p)
		var err error
		if _, held := h.opts.Detector.Fingerprint(p.URL); held {
			var ch dedup.Change
			ch, err = h.opts.Detector.Replace(doc)
			p.Result = ch.Result
		} else {
			p.Result, err = h.opts.Detector.Add(doc)
		}
		if err != nil {
			return Page{}, err
		}
	}
	if reindex {
		if err := h.index(ctx, p); err != nil {
			return Page{}, err
		}
	}
	return p, nil
}

// Observe restores, after a restart, what a recorded page the detector
// already holds (read from a snapshot) told the hook: its template blocks
// and anchors to the site statistics, and its language, if it is the
// first page with one (Options.Language), as Replay does, without the
// detector.
func (h *Hook) Observe(p Page) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.observe(&p)
	if p.Lang != "" {
		h.language(p.Lang)
	}
}

// strip counts p in the site's template and anchor statistics and sets
// its index text (Prepare's first step; see indexText).
func (h *Hook) strip(p *Page) {
	path := urlPath(p.URL)
	p.Text = h.indexText(h.opts.Templates.ObserveStripPage(p.Host, path, p.Blocks))
	h.observeAnchors(p)
	if !h.opts.Templates.Known(p.Host, path) {
		h.earlyMu.Lock()
		if h.early == nil {
			h.early = map[string]bool{}
		}
		h.early[p.URL] = true
		h.earlyMu.Unlock()
	}
}

// indexText returns p's index text from kept, its blocks without those
// that are template on its host or in its section (clean.Templates): kept
// without the blocks that are a template anchor text (clean.Anchors) —
// the links a site puts inside the main content of many pages.
func (h *Hook) indexText(kept []string) string {
	return strings.Join(h.opts.Anchors.StripBlocks(kept), "\n\n")
}

// Restrip sets p's index text again from its blocks by the statistics
// known now, without counting p in them, and reports whether it changed,
// if p is one of the first pages of its host or section, stripped before
// their template was known (clean.TemplateOptions.MinPages, clean.
// Templates.Known); it leaves every other page as it is. A crawl strips
// those pages again when its statistics have grown (package crawler: at
// each re-clustering) and indexes those whose text changed; each is
// stripped again until the statistics are known. The pages stripped
// later keep their text: re-judging every page by statistics that keep
// moving near their thresholds changed and indexed again 13,617 pages of
// a crawl of 10,552.
func (h *Hook) Restrip(p *page.Page) bool {
	if len(p.Blocks) == 0 {
		return false
	}
	h.earlyMu.Lock()
	early := h.early[p.URL]
	if early && h.opts.Templates.Known(p.Host, urlPath(p.URL)) {
		delete(h.early, p.URL)
	}
	h.earlyMu.Unlock()
	if !early {
		return false
	}
	text := h.indexText(h.opts.Templates.StripPage(p.Host, urlPath(p.URL), p.Blocks))
	changed := text != p.Text
	p.Text = text
	return changed
}

// Early reports whether Restrip may change the page at url: whether it
// was stripped before its host's or section's template was known, and
// has not been stripped again since they are.
func (h *Hook) Early(url string) bool {
	h.earlyMu.Lock()
	defer h.earlyMu.Unlock()
	return h.early[url]
}

// urlPath returns the path of a page's URL ("" if it does not parse).
func urlPath(pageURL string) string {
	u, err := url.Parse(pageURL)
	if err != nil {
		return ""
	}
	return u.EscapedPath()
}

// observe tells the template and anchor statistics of p; the caller holds
// h.mu.
func (h *Hook) observe(p *Page) {
	h.opts.Templates.ObservePage(p.Host, urlPath(p.URL), p.Blocks)
	h.observeAnchors(p)
}

// A PageSource returns the recorded page of a URL (ok false if there is
// none): what Update and Remove record again when a change gives other
// pages a new cluster or master (Options.Source).
type PageSource func(url string) (p Page, ok bool, err error)

// Update processes a new version of a page the detector holds (a
// revisit): the detector replaces it (dedup.Detector.Update; a page it
// does not hold is inserted), the page is recorded — with Arrived set if
// it left its cluster — and so are the pages the change touched, read
// from Options.Source: the master elected in its old cluster and the members
// moved elsewhere. Then the index follows the change (Sink.Update) and
// OnPage is called. Like Insert, it is serialized with Insert and Replay.
func (h *Hook) Update(ctx context.Context, prep *Prepared) (Page, dedup.Change, error) {
	h.mu.Lock()
	p, ch, err := h.update(ctx, prep)
	h.mu.Unlock()
	if err != nil {
		return Page{}, dedup.Change{}, err
	}
	h.onPage(p)
	return p, ch, nil
}

// update is Update without OnPage; the caller holds h.mu.
func (h *Hook) update(ctx context.Context, prep *Prepared) (Page, dedup.Change, error) {
	p := prep.page
	var ch dedup.Change
	if prep.doc == nil {
		p.Result = singleton(p.URL)
		ch = dedup.Change{ID: p.URL, Cluster: p.Result.Cluster, WasMaster: true, Master: p.URL, Result: p.Result}
	} else {
		var err error
		if ch, err = h.opts.Detector.Update(prep.doc); err != nil {
			return Page{}, dedup.Change{}, err
		}
		p.Result, p.Arrived = ch.Result, ch.Left
	}
	if h.opts.Recorder != nil {
		if err := h.opts.Recorder.Record(p); err != nil {
			return Page{}, dedup.Change{}, err
		}
		if err := h.recordTouched(ch); err != nil {
			return Page{}, dedup.Change{}, err
		}
	}
	if h.opts.Index != nil {
		if err := h.opts.Index.Update(ctx, h.IndexDoc(p), IndexChange(ch)); err != nil {
			return Page{}, dedup.Change{}, err
		}
	}
	h.keep(p)
	return p, ch, nil
}

// Remove takes a page out of the detector (dedup.Detector.Remove; a page
// it does not hold is only removed from the index), records the pages the
// removal touched (the elected master, moved members; read from Options.Source)
// and has the index follow (Sink.Remove). Recording the removed page's
// own end is the caller's. It is serialized with Insert and Replay.
func (h *Hook) Remove(ctx context.Context, url string) (dedup.Change, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ch := dedup.Change{ID: url}
	if !h.opts.NoDedup {
		var err error
		ch, err = h.opts.Detector.Remove(url)
		if errors.Is(err, dedup.ErrUnknownID) {
			ch = dedup.Change{ID: url}
		} else if err != nil {
			return dedup.Change{}, err
		}
	}
	if h.opts.Recorder != nil {
		if err := h.recordTouched(ch); err != nil {
			return dedup.Change{}, err
		}
	}
	if h.opts.Index != nil {
		if err := h.opts.Index.Remove(ctx, IndexChange(ch)); err != nil {
			return dedup.Change{}, err
		}
	}
	if h.state != nil {
		if err := h.state.gone(url); err != nil {
			return dedup.Change{}, err
		}
	}
	h.forget(url)
	return ch, nil
}

// recordTouched records again the pages ch gave a new place: the master
// elected in ch.Cluster (other than ch.ID) and the members moved.
func (h *Hook) recordTouched(ch dedup.Change) error {
	source := h.opts.Source
	touched := slices.Clone(ch.Moved)
	if ch.Elected && ch.Master != "" && ch.Master != ch.ID {
		r := dedup.Result{ID: ch.Master, Cluster: ch.Cluster, Master: ch.Master}
		if fp, ok := h.opts.Detector.Fingerprint(ch.Master); ok {
			r.Simhash = fp.Simhash
		}
		touched = append(touched, r)
	}
	for _, r := range touched {
		if source == nil {
			return fmt.Errorf("hook: page %s has a new place and no page source", r.ID)
		}
		p, ok, err := source(r.ID)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		p.Result = r
		if err := h.opts.Recorder.Record(p); err != nil {
			return err
		}
	}
	return nil
}

// SourceDoc returns the index document of the page recorded for id
// (Options.Source), nil if there is none: an indexer.Options.Source, for
// the near-duplicates the index left out that a change makes it index.
func (h *Hook) SourceDoc(_ context.Context, id string) (*indexer.Doc, error) {
	if h.opts.Source == nil {
		return nil, nil
	}
	p, ok, err := h.opts.Source(id)
	if err != nil || !ok {
		return nil, err
	}
	d := h.IndexDoc(p)
	return &d, nil
}

// Reindex indexes a page again as p.Result says (Sink.Add replaces it):
// for a restart that placed a recorded page differently from its record.
func (h *Hook) Reindex(ctx context.Context, p Page) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.index(ctx, p)
}

// Unindex removes a page from the index only (Sink.Remove of a change
// that touches no other page): for a restart that finds a page removed
// after what the index is known to hold.
func (h *Hook) Unindex(ctx context.Context, url string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.opts.Index == nil {
		return nil
	}
	return h.opts.Index.Remove(ctx, indexer.Change{ID: url})
}

func (h *Hook) index(ctx context.Context, p Page) error {
	if h.opts.Index == nil {
		return nil
	}
	return h.opts.Index.Add(ctx, h.IndexDoc(p), Placement(p.Result))
}

func singleton(id string) dedup.Result {
	return dedup.Result{ID: id, Cluster: cluster.IDFor(id), Master: id}
}

// Flush writes the index's pending batch and, for a hook of Open, then
// saves its state (the pages processed since the last Flush, the anchor
// texts learned, the detector and the site statistics) in its directory:
// what a later Open goes on from. Call it once the crawl is done (colly's
// Wait for an asynchronous collector): the state saved is the hook's as
// it stands. An error is also Err's, if Err had none; the state is not
// saved if the index could not be written, but for documents refused
// because they are the user's own (indexer.ErrUserDocument): the rest of
// the batch was written.
func (h *Hook) Flush(ctx context.Context) error {
	var err error
	if h.opts.Index != nil {
		err = h.opts.Index.Flush(ctx)
	}
	if h.state != nil && (err == nil || errors.Is(err, indexer.ErrUserDocument)) {
		err = errors.Join(err, h.save())
	}
	if err != nil {
		h.setErr(err)
	}
	return err
}

// plainPage makes a page of a text/plain body: paragraphs are blocks.
func plainPage(text string) *clean.Page {
	p := &clean.Page{}
	for _, para := range strings.Split(text, "\n\n") {
		if para = strings.Join(strings.Fields(para), " "); para != "" {
			p.Blocks = append(p.Blocks, para)
		}
	}
	p.Text = strings.Join(p.Blocks, "\n\n")
	return p
}
