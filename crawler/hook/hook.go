// Package hook adds Doppel to a gocolly/colly collector and a
// blevesearch/bleve index that the caller already has. Each response is
// cleaned (package clean), its site template stripped, assigned a
// near-duplicate cluster (package dedup) and, if an index is given, indexed
// with the near-duplicate policy (package indexer):
//
//	h, err := hook.Attach(collector, hook.Options{Index: ix})
//	…
//	collector.Visit(seed)
//	h.Flush(ctx)
//
// A Hook is also the processing step of Doppel's own crawler (package
// crawler), which adds a persistent frontier, trap bounds and restart on top.
package hook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gocolly/colly/v2"

	"github.com/doppel-search/doppel/crawler/clean"
	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/dedup/cluster"
	"github.com/doppel-search/doppel/dedup/features"
	"github.com/doppel-search/doppel/indexer"
)

// ErrSkipped wraps the reason a response was deliberately not processed
// (not text, too large, noindex, not HTML); test with errors.Is.
var ErrSkipped = errors.New("skipped")

// DetectorOptions are the near-duplicate settings Doppel uses for web
// pages: numbers and dates are stripped (templated pages differ by them),
// candidates are verified by word-set cosine ≥ 0.9 (robust to the small
// scattered edits of mirrors and printer-friendly copies, which on short
// pages push 5-shingle resemblance below 0.9) and the shortest URL is
// master.
func DetectorOptions() dedup.Options {
	return dedup.Options{
		Terms:      features.Options{StripNumbers: true, StripDates: true},
		Similarity: dedup.Cosine,
		Master:     cluster.ShortestURL,
	}
}

// Options configures a Hook. All fields are optional.
type Options struct {
	// Detector assigns clusters. Default: a new detector with
	// DetectorOptions.
	Detector *dedup.Detector
	// Index receives every processed page under its near-duplicate
	// policy. Default nil: detection only.
	Index *indexer.Index
	// Templates holds the site-template statistics. Default: a new
	// clean.Templates with its default options.
	Templates *clean.Templates
	// MaxBodyBytes is the largest body processed; larger ones are skipped.
	// Default 5 MiB.
	MaxBodyBytes int
	// Groups returns the access groups of a URL. Default: none (public).
	Groups func(url string) []string
	// OnPage is called after each page is processed (from colly's callback
	// goroutine; Pages are processed one at a time).
	OnPage func(Page)
	// NoDedup turns detection off: every page is its own cluster and
	// master, and is indexed. For crawls that only need the index, and for
	// measuring what detection costs. Default false.
	NoDedup bool
	// OnSkip is called, by Attach's callback only, with each response not
	// processed and why (an ErrSkipped or a processing error).
	OnSkip func(url string, err error)
}

// A Page is a processed response.
type Page struct {
	URL          string
	Clean        *clean.Page  // what the cleaner extracted
	Text         string       // the main content without site-template blocks: what dedup saw
	LastModified time.Time    // from the Last-Modified header or meta tag; zero if unknown
	Groups       []string     // access groups
	Anchors      []string     // anchor texts of links to the page, as given to Process
	Result       dedup.Result // cluster, master, duplicate or not, SimHash
}

// A Hook processes responses in arrival order. It is safe for concurrent
// use; processing is serialized so that cluster assignment follows arrival.
type Hook struct {
	opts Options
	mu   sync.Mutex
}

// New returns a Hook.
func New(opts Options) (*Hook, error) {
	if opts.Detector == nil {
		det, err := dedup.New(nil, DetectorOptions())
		if err != nil {
			return nil, err
		}
		opts.Detector = det
	}
	if opts.Templates == nil {
		opts.Templates = clean.NewTemplates(clean.TemplateOptions{})
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = 5 << 20
	}
	if opts.Groups == nil {
		opts.Groups = func(string) []string { return nil }
	}
	return &Hook{opts: opts}, nil
}

// Attach registers a Hook on col: every successful response is processed.
// Call Flush when the crawl is done.
func Attach(col *colly.Collector, opts Options) (*Hook, error) {
	h, err := New(opts)
	if err != nil {
		return nil, err
	}
	col.OnResponse(func(r *colly.Response) {
		u := r.Request.URL.String()
		if _, err := h.Process(context.Background(), u, *r.Headers, r.Body, nil); err != nil && h.opts.OnSkip != nil {
			h.opts.OnSkip(u, err)
		}
	})
	return h, nil
}

// Detector returns the hook's detector.
func (h *Hook) Detector() *dedup.Detector { return h.opts.Detector }

// Templates returns the hook's site-template statistics.
func (h *Hook) Templates() *clean.Templates { return h.opts.Templates }

// Parse checks and cleans a response body without assigning it a
// cluster. Errors wrap ErrSkipped for bodies that are deliberately not
// processed: not HTML or plain text, too large, marked noindex.
func (h *Hook) Parse(pageURL string, header http.Header, body []byte) (*clean.Page, error) {
	if len(body) > h.opts.MaxBodyBytes {
		return nil, fmt.Errorf("%w: body larger than %d bytes", ErrSkipped, h.opts.MaxBodyBytes)
	}
	ctype, _, _ := mime.ParseMediaType(header.Get("Content-Type"))
	switch ctype {
	case "text/plain":
		return plainPage(string(body)), nil
	case "", "text/html", "application/xhtml+xml":
	default:
		return nil, fmt.Errorf("%w: content type %s", ErrSkipped, ctype)
	}
	base, err := url.Parse(pageURL)
	if err != nil {
		return nil, fmt.Errorf("hook: page URL: %w", err)
	}
	page, err := clean.Parse(bytes.NewReader(body), base, clean.Options{MaxBytes: int64(h.opts.MaxBodyBytes)})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSkipped, err)
	}
	if page.NoIndex {
		return nil, fmt.Errorf("%w: robots meta noindex", ErrSkipped)
	}
	return page, nil
}

// Process parses a response (see Parse) and adds the page (see AddPage).
func (h *Hook) Process(ctx context.Context, pageURL string, header http.Header, body []byte, anchors []string) (Page, error) {
	page, err := h.Parse(pageURL, header, body)
	if err != nil {
		return Page{}, err
	}
	return h.AddPage(ctx, pageURL, header, page, anchors)
}

// AddPage strips the site template from a parsed page, assigns it its
// cluster and indexes it: Prepare then Insert. header supplies
// Last-Modified (may be nil); anchors are the anchor texts of links to the
// page known so far (a feature of the page, indexed; nil if unknown).
func (h *Hook) AddPage(ctx context.Context, pageURL string, header http.Header, page *clean.Page, anchors []string) (Page, error) {
	prep, err := h.Prepare(pageURL, header, page, anchors)
	if err != nil {
		return Page{}, err
	}
	return h.Insert(ctx, prep)
}

// A Prepared page has been stripped of its site template and signed, and
// awaits Insert.
type Prepared struct {
	page Page
	host string
	doc  *dedup.Prepared // nil under NoDedup
}

// Prepare strips the site template from a parsed page and computes its
// signatures. It runs concurrently with other Prepare and Insert calls;
// Insert assigns clusters in the order it is called.
func (h *Hook) Prepare(pageURL string, header http.Header, page *clean.Page, anchors []string) (*Prepared, error) {
	p := Page{URL: pageURL, Clean: page, Groups: h.opts.Groups(pageURL), Anchors: anchors, LastModified: page.LastModified}
	if lm, err := http.ParseTime(header.Get("Last-Modified")); err == nil {
		p.LastModified = lm.UTC()
	}
	host := ""
	if u, err := url.Parse(pageURL); err == nil {
		host = u.Host
	}
	p.Text = strings.Join(h.opts.Templates.ObserveStrip(host, page.Blocks), "\n\n")
	prep := &Prepared{page: p, host: host}
	if !h.opts.NoDedup {
		doc, err := h.opts.Detector.Prepare(dedup.Document{ID: pageURL, URL: pageURL, Text: p.Text, Tagged: page.Tagged})
		if err != nil {
			return nil, err
		}
		prep.doc = doc
	}
	return prep, nil
}

// Insert assigns a prepared page its cluster, indexes it and calls
// OnPage.
func (h *Hook) Insert(ctx context.Context, prep *Prepared) (Page, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p := prep.page
	var err error
	if prep.doc == nil {
		p.Result = singleton(p.URL)
	} else if p.Result, err = h.opts.Detector.Insert(prep.doc); err != nil {
		return Page{}, err
	}
	if h.opts.Index != nil {
		if err := h.opts.Index.Add(ctx, IndexDoc(p, prep.host), p.Result); err != nil {
			return Page{}, err
		}
	}
	if h.opts.OnPage != nil {
		h.opts.OnPage(p)
	}
	return p, nil
}

func singleton(id string) dedup.Result {
	return dedup.Result{ID: id, Cluster: cluster.IDFor(id), Master: id}
}

// Assign gives a document its cluster: the detector's assignment, or
// under NoDedup a cluster of its own. Callers that replay recorded pages
// (package crawler) use it to rebuild the detector.
func (h *Hook) Assign(doc dedup.Document) (dedup.Result, error) {
	if h.opts.NoDedup {
		return singleton(doc.ID), nil
	}
	return h.opts.Detector.Add(doc)
}

// IndexDoc is the index document of a processed page.
func IndexDoc(p Page, host string) indexer.Doc {
	d := indexer.Doc{ID: p.URL, URL: p.URL, Host: host, Body: p.Text, LastModified: p.LastModified,
		Groups: p.Groups, Anchors: p.Anchors, Simhash: p.Result.Simhash}
	if p.Clean != nil {
		d.Title, d.Headings = p.Clean.Title, p.Clean.Headings
	}
	return d
}

// Flush writes the index's pending batch.
func (h *Hook) Flush(ctx context.Context) error {
	if h.opts.Index == nil {
		return nil
	}
	return h.opts.Index.Flush(ctx)
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
