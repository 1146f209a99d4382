package crawler

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/internal/testrig/bombtest"
	"github.com/doppel-search/doppel/internal/testrig/long"
)

// maxCrawlRSS is the most a crawl of one bomb may take: the peak
// resident size of the whole crawling process (issue 36).
const maxCrawlRSS = 512 << 20

// A bomb is a hostile resource served at /bomb, linked from the seed
// (or the seed itself, at /), and what the crawl must record of it.
type bomb struct {
	name   string
	path   string // where it is served: "/bomb" (linked from /) or "/"
	header http.Header
	body   func() []byte
	status pages.Status
	reason string // a part of the reason recorded for path
	slow   bool   // run only with DOPPEL_SLOW_TESTS set
	// orTimedOut also accepts the fetch's time limit ending it first (a
	// body fast to send but slow to read on a busy machine): failed,
	// "timed out".
	orTimedOut bool
	// more serves other paths of the site (robots.txt, sitemaps).
	more map[string]http.HandlerFunc
	// recorded is the path whose record is checked, if not path (the
	// end of a redirect chain).
	recorded string
	// loop: a second site serves /loop, redirecting to this site's
	// /loop, which redirects to it; both are seeds.
	loop bool
	// runs: the crawl is run this many times (default once): a feed a
	// page links is read at the next run's reading of the sitemaps.
	runs int
	// logged is a part of the debug log line the crawl writes about a
	// sitemap or feed it does not read (a URL that is not a page has
	// no record).
	logged string
	// maxLinks, if set, is the crawl's Options.MaxLinksPerPage: the
	// bound asserted with a smaller limit than the default, which the
	// bomb still exceeds many times.
	maxLinks int
}

const gib = 1 << 30

func bombs() []bomb {
	h := func(kv ...string) http.Header {
		hd := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			hd.Set(kv[i], kv[i+1])
		}
		return hd
	}
	return []bomb{
		{name: "gzip", path: "/bomb", header: h("Content-Type", "text/html", "Content-Encoding", "gzip"),
			body: func() []byte { return bombtest.HTML(gib).Gzip() }, status: pages.Skipped, reason: "decompression bomb"},
		{name: "deflate", path: "/bomb", header: h("Content-Type", "text/html", "Content-Encoding", "deflate"),
			body: func() []byte { return bombtest.HTML(gib).Zlib() }, status: pages.Skipped, reason: "decompression bomb"},
		{name: "raw-deflate", path: "/bomb", header: h("Content-Type", "text/html", "Content-Encoding", "deflate"),
			body: func() []byte { return bombtest.HTML(gib).Deflate }, status: pages.Skipped, reason: "decompression bomb"},
		{name: "gzip-gzip", path: "/bomb", header: h("Content-Type", "text/html", "Content-Encoding", "gzip, gzip"),
			body: func() []byte { return gzipOf(bombtest.HTML(gib).Gzip()) }, status: pages.Skipped, reason: "content encoding gzip, gzip: decompression bomb"},
		{name: "br", path: "/bomb", header: h("Content-Type", "text/html", "Content-Encoding", "br"),
			body: func() []byte { return bombtest.HTML(gib).Brotli() }, status: pages.Skipped, reason: "content encoding br: decompression bomb"},
		{name: "xml.gz", path: "/bomb.xml.gz", header: h("Content-Type", "application/octet-stream"),
			body: func() []byte { return bombtest.HTML(gib).Gzip() }, status: pages.Skipped, reason: "content type"},
		{name: "pdf", path: "/bomb.pdf", header: h("Content-Type", "application/pdf"),
			body: func() []byte { return bombtest.PDF(gib) }, status: pages.Skipped, reason: "pdf: "},
		{name: "docx", path: "/bomb.docx", header: h("Content-Type", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
			body: func() []byte { return bombtest.DOCX(gib) }, status: pages.Skipped, reason: "docx: zip bomb"},
		{name: "docx-laughs", path: "/laughs.docx", header: h("Content-Type", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
			body: bombtest.LaughsDOCX, status: pages.Skipped, reason: "docx: malformed XML"},
		{name: "odt-laughs", path: "/laughs.odt", header: h("Content-Type", "application/vnd.oasis.opendocument.text"),
			body: bombtest.LaughsODT, status: pages.Skipped, reason: "odt: malformed XML"},
		// XML bombs other than entities, inside a document.
		{name: "docx-comment", path: "/comment.docx", header: h("Content-Type", docxType),
			body: func() []byte { return bombtest.XMLDOCX("<!--", "<", 190<<20, "-->") }, status: pages.Fetched},
		{name: "docx-attributes", path: "/attributes.docx", header: h("Content-Type", docxType),
			body: func() []byte { return bombtest.XMLDOCX("<w:p", ` a=""`, 150<<20, "/>") }, status: pages.Fetched},
		{name: "docx-nested", path: "/nested.docx", header: h("Content-Type", docxType),
			body: func() []byte { return bombtest.XMLDOCX("", "<a>", 150<<20, "") }, status: pages.Skipped, reason: "docx: too deep"},
		// A gzip body of 1,000 members, each a page of 1 MiB.
		{name: "gzip-1000-members", path: "/bomb", header: h("Content-Type", "text/html", "Content-Encoding", "gzip"),
			body: func() []byte { return bytes.Repeat(bombtest.HTML(1<<20).Gzip(), 1000) }, status: pages.Skipped, reason: "decompression bomb"},
		// HTML nested a million deep, a line of 100 MB, bodies of other
		// encodings.
		{name: "html-nested", path: "/bomb", header: h("Content-Type", "text/html", "Content-Encoding", "gzip"),
			body: func() []byte {
				return bombtest.Repeat([]byte("<html><body>"), []byte("<div>"), 3<<20, nil).Gzip() // under the body limit: past it, a bomb
			}, status: pages.Skipped, reason: "open stack of elements"},
		{name: "one-line-100MB", path: "/bomb", header: h("Content-Type", "text/html", "Content-Encoding", "gzip"),
			body:   func() []byte { return bombtest.Repeat([]byte("<html><body><p>"), []byte("x"), 100<<20, nil).Gzip() },
			status: pages.Skipped, reason: "decompression bomb"},
		{name: "utf-16", path: "/bomb", header: h("Content-Type", "text/html"),
			body: func() []byte { return utf16Page(2 << 20) }, status: pages.Fetched, slow: true},
		{name: "invalid-utf-8", path: "/bomb", header: h("Content-Type", "text/html"),
			body: func() []byte {
				return append([]byte("<html><body><p>"), bytes.Repeat([]byte{0xff, 0xc3, 'a', ' '}, 1<<20)...)
			}, status: pages.Fetched, slow: true}, // half the bytes invalid: read as windows-1252
		{name: "windows-1251-expanding", path: "/bomb", header: h("Content-Type", "text/html"),
			body: func() []byte {
				return append([]byte(`<html><head><meta charset="windows-1251"></head><body><p>`), bytes.Repeat([]byte("\x88\x99\x96 "), 1<<20+1<<18)...)
			}, status: pages.Fetched, slow: true}, // 5 MiB of bytes of 3 UTF-8 bytes each
		// The most words a page within the body limit can hold.
		{name: "2.5M-words", path: "/bomb", header: h("Content-Type", "text/html"), // plain: gzip past the body limit is a bomb
			body: func() []byte { return append([]byte("<html><body><p>"), bytes.Repeat([]byte("a "), 5<<19-16)...) }, status: pages.Fetched, slow: true},
		// Servers that never end: a byte a second, an endless body.
		{name: "slowloris", path: "/slow", more: map[string]http.HandlerFunc{"/slow": trickle}, status: pages.Failed, reason: "timed out", slow: true},
		{name: "endless", path: "/endless", more: map[string]http.HandlerFunc{"/endless": endless}, status: pages.Fetched, orTimedOut: true},
		// What the crawl reads besides pages: robots.txt, sitemaps.
		{name: "robots-100MB", path: "/", header: h("Content-Type", "text/html"), body: seedPage, status: pages.Fetched,
			more: map[string]http.HandlerFunc{"/robots.txt": hugeRobots}},
		{name: "sitemap-attributes", path: "/", header: h("Content-Type", "text/html"), body: seedPage, status: pages.Fetched,
			more: map[string]http.HandlerFunc{"/sitemap.xml": gzipped(bombtest.Repeat([]byte("<urlset"), []byte(` a=""`), 45<<20, []byte("/>")))}},
		{name: "sitemap-comment", path: "/", header: h("Content-Type", "text/html"), body: seedPage, status: pages.Fetched,
			more: map[string]http.HandlerFunc{"/sitemap.xml": gzipped(bombtest.Repeat([]byte("<urlset><!--"), []byte("<"), 45<<20, []byte("--></urlset>")))}},
		{name: "sitemap-1.5M-urls", path: "/", header: h("Content-Type", "text/html"), body: seedPage, status: pages.Fetched,
			more: map[string]http.HandlerFunc{"/sitemap.xml": gzipped(bombtest.Repeat([]byte("<urlset>"), []byte("<url><loc>/a</loc></url>"), 45<<20, []byte("</urlset>")))}},
		{name: "sitemap-index-fan-out", path: "/", header: h("Content-Type", "text/html"), body: seedPage, status: pages.Fetched,
			more: map[string]http.HandlerFunc{"/sitemap.xml": fanOut, "/sm/{i}": fanOut}},
		// Issue 36's bombs not handed out: codings Go does not decode, a
		// gzip inside a gzip, a PDF object stream, zip members of
		// spreadsheets and texts, XML entities outside documents, HTML
		// of a million attributes or nested 100,000 deep, and 50 MB of
		// invalid UTF-8.
		{name: "zstd-random", path: "/bomb", header: h("Content-Type", "text/html", "Content-Encoding", "zstd"),
			body: func() []byte { return randomBytes(1 << 20) }, status: pages.Skipped, reason: "content encoding zstd: malformed"},
		{name: "unknown-coding", path: "/bomb", header: h("Content-Type", "text/html", "Content-Encoding", "x-bomb"),
			body: func() []byte { return randomBytes(1 << 20) }, status: pages.Skipped, reason: "content encoding x-bomb: not supported"},
		{name: "gzip-in-gzip", path: "/bomb", header: h("Content-Type", "text/html", "Content-Encoding", "gzip"),
			body: func() []byte { return gzipOf(bombtest.HTML(gib).Gzip()) }, status: pages.Skipped, reason: "not an HTML document"},
		{name: "pdf-object-stream", path: "/bomb.pdf", header: h("Content-Type", "application/pdf"),
			body: func() []byte { return bombtest.PDFObjectStream(gib) }, status: pages.Skipped, reason: "pdf: memory limit"},
		{name: "xlsx-member-1GiB", path: "/bomb.xlsx", header: h("Content-Type", xlsxType),
			body: func() []byte { return bombtest.XLSX(gib, 0) }, status: pages.Skipped, reason: "xlsx: zip bomb"},
		{name: "xlsx-member-lies", path: "/bomb.xlsx", header: h("Content-Type", xlsxType),
			body: func() []byte { return bombtest.XLSX(gib, 1000) }, status: pages.Skipped, reason: "xlsx: "},
		{name: "xlsx-100k-entries", path: "/bomb.xlsx", header: h("Content-Type", xlsxType),
			body: func() []byte { return bombtest.ManySheets(100000) }, status: pages.Fetched},
		{name: "odt-member-1GiB", path: "/bomb.odt", header: h("Content-Type", "application/vnd.oasis.opendocument.text"),
			body: func() []byte { return bombtest.ODT(gib) }, status: pages.Skipped, reason: "odt: zip bomb"},
		{name: "svg-laughs", path: "/bomb.svg", header: h("Content-Type", "image/svg+xml"),
			body: func() []byte { return bombtest.Laughs("svg", 9) }, status: pages.Skipped, reason: "content type"},
		{name: "xml-laughs", path: "/bomb.xml", header: h("Content-Type", "application/xml"),
			body: func() []byte { return bombtest.Laughs("doc", 9) }, status: pages.Skipped, reason: "content type"},
		{name: "html-svg-laughs", path: "/bomb", header: h("Content-Type", "text/html"),
			body: func() []byte {
				return bytes.Replace(bombtest.Laughs("svg", 9), []byte("]>\nsvg"), []byte("]><html><body><p>A drawing.</p><svg>&lol9;</svg></body></html>"), 1)
			}, status: pages.Fetched},
		{name: "html-1M-attributes", path: "/bomb", header: h("Content-Type", "text/html"), // plain: gzip past the body limit is a bomb
			body: func() []byte {
				return append(append([]byte("<html><body><p"), bytes.Repeat([]byte(` a=""`), 1<<20)...), ">A paragraph.</p></body></html>"...)
			}, status: pages.Fetched},
		{name: "2.6M-letters", path: "/bomb", header: h("Content-Type", "text/html"),
			body: func() []byte { return append([]byte("<html><body><p>"), bytes.Repeat([]byte("b "), 5<<19-16)...) }, status: pages.Fetched, slow: true},
		{name: "html-nested-100k-b", path: "/bomb", header: h("Content-Type", "text/html", "Content-Encoding", "gzip"),
			body:   func() []byte { return bombtest.Repeat([]byte("<html><body>"), []byte("<b>"), 300000, nil).Gzip() },
			status: pages.Skipped, reason: "open stack of elements"},
		{name: "invalid-utf-8-50MB", path: "/bomb", header: h("Content-Type", "text/html"),
			body: func() []byte {
				return append([]byte("<html><body><p>"), bytes.Repeat([]byte{0xff, 0xc3, 'a', ' '}, 50<<20/4)...)
			}, status: pages.Fetched, slow: true},
		// The third round (session 6): zip containers of many or
		// overlapping members, XML nested 10,001 deep or of entities in
		// every XML the crawl reads, PDFs of a huge image or a looping
		// page tree, a 50 MB line, redirect chains and loops, sitemap
		// indexes and feeds that point to themselves or explode.
		{name: "docx-100k-entries", path: "/many.docx", header: h("Content-Type", docxType),
			body: func() []byte { return bombtest.ManyParts("docx", 100000) }, status: pages.Fetched},
		{name: "odt-100k-entries", path: "/many.odt", header: h("Content-Type", odtType),
			body: func() []byte { return bombtest.ManyParts("odt", 100000) }, status: pages.Fetched},
		{name: "docx-overlapping", path: "/zbsm.docx", header: h("Content-Type", docxType),
			body: func() []byte { return bombtest.OverlappingDoc("docx", 150<<20, 60000) }, status: pages.Fetched},
		{name: "odt-overlapping", path: "/zbsm.odt", header: h("Content-Type", odtType),
			body: func() []byte { return bombtest.OverlappingDoc("odt", 150<<20, 60000) }, status: pages.Fetched},
		{name: "odt-nested-10001", path: "/nested.odt", header: h("Content-Type", odtType),
			body: func() []byte {
				return bombtest.Zip(bombtest.Part{Name: "content.xml", Data: bombtest.Nested("<office:document-content><office:body><office:text>", "<text:span>", 10001, "")})
			}, status: pages.Skipped, reason: "odt: too deep"},
		{name: "docx-nested-10001", path: "/nested10001.docx", header: h("Content-Type", docxType),
			body: func() []byte {
				return bombtest.Zip(bombtest.Part{Name: "word/document.xml", Data: bombtest.Nested("<w:document><w:body>", "<w:p>", 10001, "")})
			}, status: pages.Skipped, reason: "docx: too deep"},
		{name: "svg-nested-10001", path: "/nested.svg", header: h("Content-Type", "image/svg+xml"),
			body: func() []byte { return bombtest.Nested("<svg>", "<g>", 10001, "") }, status: pages.Skipped, reason: "content type image/svg+xml"},
		{name: "html-svg-nested-10001", path: "/bomb", header: h("Content-Type", "text/html"),
			body:   func() []byte { return bombtest.Nested("<html><body><p>A drawing.</p><svg>", "<g>", 10001, "") },
			status: pages.Skipped, reason: "open stack of elements"},
		{name: "pdf-huge-image", path: "/image.pdf", header: h("Content-Type", "application/pdf"),
			body: func() []byte { return bombtest.PDFImage(gib) }, status: pages.Fetched},
		{name: "pdf-page-tree-loop", path: "/loop.pdf", header: h("Content-Type", "application/pdf"),
			body: bombtest.PDFPageLoop, status: pages.Skipped, reason: "pdf: "},
		{name: "one-line-50MB", path: "/bomb", header: h("Content-Type", "text/html"),
			body:   func() []byte { return append([]byte("<html><body><p>"), bytes.Repeat([]byte("x"), 50<<20)...) },
			status: pages.Fetched},
		{name: "redirect-chain-100", path: "/r/0", recorded: "/r/5", status: pages.Skipped, reason: "redirect chain longer than 5",
			more: map[string]http.HandlerFunc{"/r/{i}": redirectChain}},
		{name: "redirect-loop-hosts", path: "/loop", loop: true, status: pages.Skipped, reason: "redirect to http://"},
		{name: "sitemap-index-self", path: "/", header: h("Content-Type", "text/html"), body: seedPage, status: pages.Fetched,
			more: map[string]http.HandlerFunc{"/sitemap.xml": xmlFile([]byte(`<sitemapindex><sitemap><loc>/sitemap.xml</loc></sitemap></sitemapindex>`))}},
		{name: "sitemap-laughs", path: "/", header: h("Content-Type", "text/html"), body: seedPage, status: pages.Fetched,
			more:   map[string]http.HandlerFunc{"/sitemap.xml": xmlFile(bombtest.LaughsIn("urlset", "<urlset><url><loc>/&lol9;</loc></url></urlset>"))},
			logged: "invalid character entity &lol9;"},
		{name: "sitemap-nested-10001", path: "/", header: h("Content-Type", "text/html"), body: seedPage, status: pages.Fetched,
			more:   map[string]http.HandlerFunc{"/sitemap.xml": xmlFile(bombtest.Nested("<urlset>", "<url>", 10001, ""))},
			logged: "nested deeper than the limit"},
		{name: "feed-laughs", path: "/", header: h("Content-Type", "text/html"), body: feedPage, status: pages.Fetched, runs: 2,
			more:     map[string]http.HandlerFunc{"/feed.xml": xmlFile(bombtest.LaughsIn("rss", `<rss version="2.0"><channel><title>News</title><item><title>&lol9;</title><link>/p/news</link></item></channel></rss>`))},
			recorded: "/p/news"}, // read, the entity not expanded: its item fetched
		{name: "feed-nested-10001", path: "/", header: h("Content-Type", "text/html"), body: feedPage, status: pages.Fetched, runs: 2,
			more:   map[string]http.HandlerFunc{"/feed.xml": xmlFile(bombtest.Nested(`<rss version="2.0"><channel><title>News</title><item>`, "<a>", 10001, ""))},
			logged: "feed: safexml: elements nested deeper than the limit"},
		{name: "feed-nested-deep", path: "/", header: h("Content-Type", "text/html"), body: feedPage, status: pages.Fetched, runs: 2,
			more:   map[string]http.HandlerFunc{"/feed.xml": gzipped(bombtest.Repeat([]byte(`<rss version="2.0"><channel><title>News</title><item>`), []byte("<a>"), 45<<20, nil))},
			logged: "feed: safexml: elements nested deeper than the limit"},
		{name: "feed-1.5M-items", path: "/", header: h("Content-Type", "text/html"), body: feedPage, runs: 2,
			more: map[string]http.HandlerFunc{"/feed.xml": gzipped(bombtest.Repeat([]byte(`<rss version="2.0"><channel><title>News</title>`),
				[]byte("<item><link>/a</link></item>"), 45<<20, []byte("</channel></rss>")))},
			recorded: "/a", status: pages.Failed, reason: "HTTP 404"}, // read, cut at feed.MaxItems: its item queued
		// The fourth round (session 7): brotli and zstd decoded, bounded
		// as gzip; zstd frames that declare a window of 2 GiB or a single
		// segment of 1 GiB, a GiB in 1,024 frames, skippable frames (or
		// empty gzip members) sent without end, a brotli bomb inside gzip,
		// a gzip bomb inside zstd inside brotli.
		{name: "zstd", path: "/bomb", header: h("Content-Type", "text/html", "Content-Encoding", "zstd"),
			body: func() []byte { return bombtest.HTML(gib).Zstd(bombtest.ZstdOptions{}) }, status: pages.Skipped, reason: "content encoding zstd: decompression bomb"},
		{name: "zstd-window-2GiB", path: "/bomb", header: h("Content-Type", "text/html", "Content-Encoding", "zstd"),
			body: func() []byte { return bombtest.HTML(gib).Zstd(bombtest.ZstdOptions{WindowLog: 31}) }, status: pages.Skipped, reason: "window over 8 MiB"},
		{name: "zstd-segment-1GiB", path: "/bomb", header: h("Content-Type", "text/html", "Content-Encoding", "zstd"),
			body: func() []byte { return bombtest.HTML(gib).Zstd(bombtest.ZstdOptions{SingleSegment: true}) }, status: pages.Skipped, reason: "window over 8 MiB"},
		{name: "zstd-1024-frames", path: "/bomb", header: h("Content-Type", "text/html", "Content-Encoding", "zstd"),
			body: func() []byte { return bombtest.HTML(gib).Zstd(bombtest.ZstdOptions{Frames: 1024}) }, status: pages.Skipped, reason: "decompression bomb"},
		{name: "zstd-skippable-endless", path: "/endless", status: pages.Skipped, reason: "bytes sent for 0 decoded",
			more: map[string]http.HandlerFunc{"/endless": endlessCoded("zstd", bombtest.ZstdSkippable(64, 1<<14))}},
		{name: "zstd-skippable-4GiB", path: "/endless", status: pages.Skipped, reason: "bytes sent for 0 decoded",
			more: map[string]http.HandlerFunc{"/endless": endlessCoded("zstd", make([]byte, 1<<20), 0x50, 0x2a, 0x4d, 0x18, 0xff, 0xff, 0xff, 0xff)}},
		{name: "gzip-empty-members-endless", path: "/endless", status: pages.Skipped, reason: "bytes sent for 0 decoded",
			more: map[string]http.HandlerFunc{"/endless": endlessCoded("gzip", bytes.Repeat(gzipOf(nil), 1<<12))}},
		{name: "br-in-gzip", path: "/bomb", header: h("Content-Type", "text/html", "Content-Encoding", "br, gzip"),
			body: func() []byte { return gzipOf(bombtest.HTML(gib).Brotli()) }, status: pages.Skipped, reason: "content encoding br, gzip: decompression bomb"},
		{name: "gzip-in-zstd-in-br", path: "/bomb", header: h("Content-Type", "text/html", "Content-Encoding", "gzip, zstd, br"),
			body:   func() []byte { return brotliOf(zstdOf(bombtest.HTML(gib).Gzip())) },
			status: pages.Skipped, reason: "content encoding gzip, zstd, br: decompression bomb"},
		// A page of 100,000 links: the first MaxLinksPerPage followed,
		// 1,000 (the default, 10,000, with DOPPEL_LONG=1).
		{name: "links", path: "/", header: h("Content-Type", "text/html"),
			body: func() []byte { return manyLinks(100000) }, status: pages.Fetched, maxLinks: long.N(1000, 10000),
			reason: fmt.Sprintf("links: the first %d of 100000 followed", long.N(1000, 10000))},
	}
}

const docxType = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"

const xlsxType = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

const odtType = "application/vnd.oasis.opendocument.text"

// feedPage is a plain page that links an RSS feed, /feed.xml, and a
// page, /p/after.
func feedPage() []byte {
	return []byte(`<html><head><title>News</title><link rel="alternate" type="application/rss+xml" href="/feed.xml"></head><body><main><p>The news of the week, and <a href="/p/after">the archive</a>.</p></main></body></html>`)
}

// xmlFile serves body as an XML file.
func xmlFile(body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		_, _ = w.Write(body)
	}
}

// redirectChain redirects /r/N to /r/N+1, up to /r/100, a page.
func redirectChain(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.PathValue("i"))
	if n >= 100 {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html><body><main><p>The end of a long chain of redirects.</p></main></body></html>"))
		return
	}
	http.Redirect(w, r, fmt.Sprintf("/r/%d", n+1), http.StatusFound)
}

// seedPage is a plain page that links a page, /p/after.
func seedPage() []byte {
	return []byte(`<html><head><title>Reports</title></head><body><main><p>The latest report of the year, with the figures of every month, and <a href="/p/after">the archive</a>.</p></main></body></html>`)
}

// utf16Page is a UTF-16 (little-endian, with its byte order mark) page of
// about n bytes.
func utf16Page(n int) []byte {
	b := []byte{0xff, 0xfe}
	for _, r := range "<html><head><title>Sixteen</title></head><body><main><p>" + strings.Repeat("words of a page ", n/32) + "</p></main></body></html>" {
		b = append(b, byte(r), 0)
	}
	return b
}

// trickle sends a page a byte a second for a minute.
func trickle(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html")
	for range 60 {
		if _, err := w.Write([]byte("<")); err != nil {
			return
		}
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			return
		case <-time.After(time.Second):
		}
	}
}

// endless sends a page that never ends (chunked), until the client goes.
func endless(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html")
	chunk := bytes.Repeat([]byte("<p>A paragraph that goes on and on.</p>\n"), 1000)
	_, _ = w.Write([]byte("<html><body><main>"))
	for r.Context().Err() == nil {
		if _, err := w.Write(chunk); err != nil {
			return
		}
	}
}

// endlessCoded sends a page in coding, head then chunk again and again,
// until the client goes.
func endlessCoded(coding string, chunk []byte, head ...byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", coding)
		_, _ = w.Write(head)
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}
}

// hugeRobots sends a robots.txt of 100 MB.
func hugeRobots(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain")
	line := bytes.Repeat([]byte("Disallow: /private/of/someone/\n"), 32768) // 1 MiB
	_, _ = w.Write([]byte("User-agent: *\n"))
	for range 100 {
		if _, err := w.Write(line); err != nil {
			return
		}
	}
}

// gzipped serves s as a gzip-coded XML file.
func gzipped(s bombtest.Stream) http.HandlerFunc {
	body := s.Gzip()
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(body)
	}
}

// fanOut serves a sitemap index naming itself and 50,000 other indexes
// (/sitemap.xml), each of which names itself, /sitemap.xml and ten more.
func fanOut(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/xml")
	var b bytes.Buffer
	b.WriteString(`<sitemapindex><sitemap><loc>/sitemap.xml</loc></sitemap>`)
	n := 50000
	if r.PathValue("i") != "" {
		n = 10
		fmt.Fprintf(&b, "<sitemap><loc>%s</loc></sitemap>", r.URL.Path)
	}
	for i := range n {
		fmt.Fprintf(&b, "<sitemap><loc>/sm/%s-%d</loc></sitemap>", r.PathValue("i"), i)
	}
	b.WriteString(`</sitemapindex>`)
	_, _ = w.Write(b.Bytes())
}

// gzipOf compresses b with gzip.
func gzipOf(b []byte) []byte {
	var out bytes.Buffer
	w := gzip.NewWriter(&out)
	_, _ = w.Write(b)
	_ = w.Close()
	return out.Bytes()
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// manyLinks is a page of n links to distinct pages.
func manyLinks(n int) []byte {
	var b bytes.Buffer
	b.WriteString("<html><body><main><p>The index of every record in the archive.</p>")
	for i := range n {
		fmt.Fprintf(&b, `<a href="/p/%d">record %d</a> `, i, i)
	}
	b.WriteString("</main></body></html>")
	return b.Bytes()
}

// bombOutcome is what the child crawl reports to the test.
type bombOutcome struct {
	Err     string                  `json:"err,omitempty"`
	PeakKB  int64                   `json:"peak_kb"`
	Seconds float64                 `json:"seconds"`
	Records map[string]pages.Record `json:"records"`
	Log     []string                `json:"log,omitempty"` // the crawl's log lines about sitemaps and feeds not read
	Peak    *peakState              `json:"peak,omitempty"`
}

// peakState is the collector's state when the process's peak resident
// size first passed a threshold (DOPPEL_BOMB_PEAK_MB).
type peakState struct {
	RSSKB      int64   `json:"rss_kb"`
	HeapAlloc  uint64  `json:"heap_alloc"`
	HeapSys    uint64  `json:"heap_sys"`
	HeapIdle   uint64  `json:"heap_idle"`
	NextGC     uint64  `json:"next_gc"`
	NumGC      uint32  `json:"num_gc"`
	GCCPU      float64 `json:"gc_cpu_fraction"`
	Goroutines int     `json:"goroutines"`
}

// watchPeak samples the process's peak resident size every 20 ms and,
// the first time it passes mb MiB (if mb is a number), writes a heap
// profile to profile+".peak" (if profile is set) and keeps the
// collector's state, which the returned function stops and returns.
func watchPeak(profile, mb string) func() *peakState {
	limit, err := strconv.ParseInt(mb, 10, 64)
	if err != nil {
		return func() *peakState { return nil }
	}
	done, got := make(chan struct{}), make(chan *peakState, 1)
	go func() {
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				got <- nil
				return
			case <-t.C:
			}
			if kb := peakKB(); kb>>10 > limit {
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				if f, err := os.Create(profile + ".peak"); profile != "" && err == nil {
					_ = pprof.Lookup("heap").WriteTo(f, 0)
					f.Close()
				}
				<-done
				got <- &peakState{RSSKB: kb, HeapAlloc: ms.HeapAlloc, HeapSys: ms.HeapSys, HeapIdle: ms.HeapIdle, NextGC: ms.NextGC,
					NumGC: ms.NumGC, GCCPU: ms.GCCPUFraction, Goroutines: runtime.NumGoroutine()}
				return
			}
		}
	}()
	return func() *peakState {
		close(done)
		return <-got
	}
}

// TestBombs crawls each bomb in a child process (this test binary run
// again, TestBombChild) and checks that the crawl finishes, records the
// bomb with its reason, goes on (a page linked beside the bomb, under
// /p/, is fetched), and peaks at most at maxCrawlRSS. The test process
// serves the bombs; the child only crawls.
func TestBombs(t *testing.T) {
	if os.Getenv("DOPPEL_BOMB_SEED") != "" {
		t.Skip("the child crawl")
	}
	for _, b := range bombs() {
		t.Run(b.name, func(t *testing.T) {
			if b.slow && os.Getenv("DOPPEL_SLOW_TESTS") == "" {
				t.Skip("set DOPPEL_SLOW_TESTS=1 to run")
			}
			s, seeds := serveBomb(t, b)
			out := runBombChild(t, seeds, max(b.runs, 1), b.maxLinks)
			checkBomb(t, b, s.URL, out)
		})
	}
}

// serveBomb serves b: its site (and with b.loop a second one), and the
// seeds to crawl, separated by spaces.
func serveBomb(t *testing.T, b bomb) (*site, string) {
	var body []byte
	if b.body != nil {
		body = b.body()
	}
	mux := http.NewServeMux()
	for p, h := range b.more {
		mux.HandleFunc(p, h)
	}
	if b.more["/robots.txt"] == nil {
		mux.HandleFunc("/robots.txt", http.NotFound)
	}
	serve := func(w http.ResponseWriter, r *http.Request) {
		for k, v := range b.header {
			w.Header()[k] = v
		}
		_, _ = w.Write(body)
	}
	if b.path == "/" {
		mux.HandleFunc("/{$}", serve)
	} else {
		mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, `<html><head><title>Reports</title></head><body><main><p>The latest report of the year, as a download: <a href="%s">the report</a>, and <a href="/p/after">the archive</a>.</p></main></body></html>`, b.path)
		})
		if b.more[b.path] == nil && b.body != nil {
			mux.HandleFunc(b.path, serve)
		}
	}
	mux.HandleFunc("/p/{i}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><body><main><p>Archive record %s: a distinct entry of its own with words of its own, number %s.</p></main></body></html>",
			r.PathValue("i"), strings.Repeat(r.PathValue("i")+" ", 3))
	})
	s := newSite(t, mux)
	if !b.loop {
		return s, s.URL + "/"
	}
	other := newSite(t, http.RedirectHandler(s.URL+"/loop", http.StatusFound))
	mux.Handle("/loop", http.RedirectHandler(other.URL+"/loop", http.StatusFound))
	return s, s.URL + "/ " + other.URL + "/loop"
}

// checkBomb checks what the child crawl of b on the site at base found.
func checkBomb(t *testing.T, b bomb, base string, out bombOutcome) {
	t.Helper()
	path := cmp.Or(b.recorded, b.path)
	rec, ok := out.Records[base+path]
	t.Logf("%s: peak RSS %d MB, %.1f s; %s: %s %q; log %q", b.name, out.PeakKB>>10, out.Seconds, path, rec.Status, rec.Reason, out.Log)
	if out.Peak != nil {
		t.Logf("%s: at the peak's threshold: %+v", b.name, *out.Peak)
	}
	if out.Err != "" {
		t.Fatalf("the crawl failed: %s", out.Err)
	}
	if !ok {
		var got []string
		for u, r := range out.Records {
			got = append(got, fmt.Sprintf("%s %s %q", u, r.Status, r.Reason))
		}
		t.Fatalf("no record of %s among %d: %q", path, len(out.Records), got)
	}
	timedOut := b.orTimedOut && rec.Status == pages.Failed && strings.Contains(rec.Reason, "timed out")
	if (rec.Status != b.status || !strings.Contains(rec.Reason, b.reason)) && !timedOut {
		t.Errorf("%s recorded as %s %q, want %s with %q", path, rec.Status, rec.Reason, b.status, b.reason)
	}
	if b.logged != "" && !slices.ContainsFunc(out.Log, func(l string) bool { return strings.Contains(l, b.logged) }) {
		t.Errorf("no log line says %q: %q", b.logged, out.Log)
	}
	wentOn := false
	for u, r := range out.Records {
		wentOn = wentOn || strings.HasPrefix(u, base+"/p/") && r.Status == pages.Fetched
	}
	if !wentOn {
		t.Errorf("the crawl did not go on: no page under /p/ fetched among %d records", len(out.Records))
	}
	if out.PeakKB<<10 > maxCrawlRSS {
		t.Errorf("the crawl peaked at %d MB, want at most %d MB", out.PeakKB>>10, maxCrawlRSS>>20)
	}
}

// runBombChild crawls seed in a child process and returns what it found
// (maxLinks, if not 0, the crawl's MaxLinksPerPage).
func runBombChild(t *testing.T, seed string, runs, maxLinks int) bombOutcome {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), bombTime()+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestBombChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "DOPPEL_BOMB_SEED="+seed, "DOPPEL_BOMB_DIR="+dir, "DOPPEL_BOMB_RUNS="+strconv.Itoa(runs))
	if maxLinks != 0 {
		cmd.Env = append(cmd.Env, "DOPPEL_BOMB_LINKS="+strconv.Itoa(maxLinks))
	}
	outText, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the child crawl: %v\n%s", err, tail(outText, 4000))
	}
	data, err := os.ReadFile(filepath.Join(dir, "outcome.json"))
	if err != nil {
		t.Fatalf("the child crawl left no outcome: %v\n%s", err, tail(outText, 4000))
	}
	var out bombOutcome
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func tail(b []byte, n int) []byte { return b[max(0, len(b)-n):] }

// TestBombChild is the child of TestBombs: it crawls DOPPEL_BOMB_SEED
// (seeds separated by spaces; at most 20 pages; DOPPEL_BOMB_RUNS runs)
// into DOPPEL_BOMB_DIR and writes outcome.json there with the peak
// resident size of the process (VmHWM) and the log lines about sitemaps
// and feeds not read.
func TestBombChild(t *testing.T) {
	seed, dir := os.Getenv("DOPPEL_BOMB_SEED"), os.Getenv("DOPPEL_BOMB_DIR")
	if seed == "" {
		t.Skip("run by TestBombs")
	}
	var log bytes.Buffer // a few lines: only those about sitemaps
	slog.SetDefault(slog.New(sitemapLog{slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug})}))
	out := bombOutcome{Records: map[string]pages.Record{}}
	start := time.Now()
	opts := testOptions(seed)
	opts.Seeds = strings.Fields(seed)
	opts.MaxPages = 20
	if n, err := strconv.Atoi(os.Getenv("DOPPEL_BOMB_LINKS")); err == nil {
		opts.MaxLinksPerPage = n // to measure the bound's effect
	}
	runs, _ := strconv.Atoi(os.Getenv("DOPPEL_BOMB_RUNS"))
	if f, err := os.Create(os.Getenv("DOPPEL_BOMB_CPUPROFILE")); err == nil {
		_ = pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	stopWatch := watchPeak(os.Getenv("DOPPEL_BOMB_PROFILE"), os.Getenv("DOPPEL_BOMB_PEAK_MB"))
	c, err := Open(filepath.Join(dir, "crawl"), opts)
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), bombTime())
		for i := 0; i < max(runs, 1) && err == nil; i++ {
			err = c.Run(ctx)
		}
		cancel()
		if err == nil {
			err = c.pages.Each(func(r pages.Record) error {
				r.Blocks, r.Text, r.Links = nil, "", nil
				out.Records[r.URL] = r
				return nil
			})
		}
		c.Close()
	}
	if err != nil {
		out.Err = err.Error()
	}
	out.Seconds = time.Since(start).Seconds()
	out.Peak = stopWatch()
	out.PeakKB = peakKB()
	if f, err := os.Create(os.Getenv("DOPPEL_BOMB_PROFILE")); err == nil { // what the crawl allocated, where
		_ = pprof.Lookup("allocs").WriteTo(f, 0)
		f.Close()
	}
	for _, l := range strings.Split(log.String(), "\n") {
		if strings.Contains(l, "sitemap not read") {
			out.Log = append(out.Log, l[:min(len(l), 500)])
		}
	}
	data, _ := json.Marshal(out)
	if err := os.WriteFile(filepath.Join(dir, "outcome.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// sitemapLog passes on the log records about sitemaps and feeds not
// read, at any level, and drops the others.
type sitemapLog struct{ slog.Handler }

func (h sitemapLog) Handle(ctx context.Context, r slog.Record) error {
	if r.Message != "sitemap not read" {
		return nil
	}
	return h.Handler.Handle(ctx, r)
}

func (h sitemapLog) WithAttrs(as []slog.Attr) slog.Handler {
	return sitemapLog{h.Handler.WithAttrs(as)}
}
func (h sitemapLog) WithGroup(name string) slog.Handler { return sitemapLog{h.Handler.WithGroup(name)} }

// bombTime is the most a child crawl may take: 90 s, or
// DOPPEL_BOMB_SECONDS on a machine too busy for that.
func bombTime() time.Duration {
	if n, err := strconv.Atoi(os.Getenv("DOPPEL_BOMB_SECONDS")); err == nil && n > 0 {
		return time.Duration(n) * time.Second
	}
	return 90 * time.Second
}

// peakKB is the process's peak resident size in KiB (VmHWM), 0 if
// unknown.
func peakKB() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return 0
}
