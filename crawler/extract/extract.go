// Package extract reads the text of documents that are not HTML — PDF,
// the Office Open XML formats (DOCX, PPTX, XLSX), the OpenDocument
// formats (ODT, ODP, ODS) — into what the cleaner reads of
// an HTML page: a title, text blocks (paragraphs, slides' text frames,
// table rows) and a modification date. A document then takes the same
// path as a page (crawler/hook: Prepare, Insert, Record, Index), so a PDF
// and the HTML page with the same text are judged copies like two pages.
//
// Every extraction is bounded: the input's size (Limits.MaxBytes), the
// bytes a zip archive may expand to (Limits.MaxUnpacked: a zip bomb
// stops there), the pages or parts read (Limits.MaxPages), the text kept
// (Limits.MaxText) and the time taken (Limits.Timeout, checked between
// pages and parts). The text of a file depends on its bytes and the
// limits alone: the bounds that cut a document (Document.Cut) count
// bytes and pages, and the time limit, generous, does not cut — a
// reading that runs out of time fails with the reason ("too slow: …"),
// so two identical files always give the same text, however busy the
// machine. A malformed, truncated, encrypted or hostile file gives an
// *Error with the reason, never a panic: the crawl records the reason
// and goes on.
package extract

import (
	"errors"
	"fmt"
	"mime"
	"path"
	"strings"
	"time"
)

// A Type is a document format.
type Type string

// The formats read.
const (
	PDF  Type = "pdf"
	DOCX Type = "docx"
	PPTX Type = "pptx"
	XLSX Type = "xlsx"
	ODT  Type = "odt"
	ODP  Type = "odp"
	ODS  Type = "ods"
)

// byMIME maps media types to formats.
var byMIME = map[string]Type{
	"application/pdf": PDF,
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document":   DOCX,
	"application/vnd.openxmlformats-officedocument.presentationml.presentation": PPTX,
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet":         XLSX,
	"application/vnd.oasis.opendocument.text":                                   ODT,
	"application/vnd.oasis.opendocument.presentation":                           ODP,
	"application/vnd.oasis.opendocument.spreadsheet":                            ODS,
}

// byExt maps file name extensions to formats, for servers that send a
// generic media type (application/octet-stream, application/zip).
var byExt = map[string]Type{
	".pdf": PDF, ".docx": DOCX, ".pptx": PPTX, ".xlsx": XLSX, ".odt": ODT, ".odp": ODP, ".ods": ODS,
}

// Detect returns the format of a document from its Content-Type header
// and, when that is generic (empty, application/octet-stream,
// application/zip, binary/octet-stream), its URL path's extension and
// its first bytes; ok is false for anything else (HTML and text/plain
// included, which the cleaner reads).
func Detect(contentType, urlPath string, head []byte) (Type, bool) {
	mt, _, _ := mime.ParseMediaType(contentType)
	if t, ok := byMIME[mt]; ok {
		return t, true
	}
	switch mt {
	case "", "application/octet-stream", "application/zip", "binary/octet-stream", "application/x-zip-compressed":
	default:
		return "", false
	}
	if t, ok := byExt[strings.ToLower(path.Ext(urlPath))]; ok {
		return t, true
	}
	if strings.HasPrefix(string(head), "%PDF-") {
		return PDF, true
	}
	return "", false
}

// IsDocument reports whether a file name's extension is one of the
// formats read (".pdf", ".docx", …).
func IsDocument(name string) bool {
	_, ok := byExt[strings.ToLower(path.Ext(name))]
	return ok
}

// A Document is what a document says.
type Document struct {
	Type     Type
	Title    string    // the document's title metadata, else its first heading or line
	Blocks   []string  // paragraphs, text frames, table rows, in reading order
	Modified time.Time // the modification date in its metadata; zero if none
	Pages    int       // pages (PDF), slides, sheets read
	Cut      bool      // a limit stopped the reading: the text is the beginning of the document
}

// Limits bound one extraction. The zero value of a field means its
// default.
type Limits struct {
	// MaxBytes is the largest document read. Default 50 MiB.
	MaxBytes int
	// MaxUnpacked is the most bytes the parts of a zip archive (the Office
	// and OpenDocument formats) may expand to. Default 200 MiB.
	MaxUnpacked int64
	// MaxPages is the most pages (PDF), slides or sheets read; the rest
	// is left out (Document.Cut). Default 2000.
	MaxPages int
	// MaxText is the most bytes of text kept (Document.Cut). Default 5 MiB.
	MaxText int
	// Timeout bounds the time one extraction takes, checked between pages
	// and parts. A reading that runs out of it fails ("too slow: …"):
	// it is not cut there, as where the time runs out depends on the
	// machine's load, and a document's text must not. Default 10 minutes:
	// 2000 pages of R's reference manual take 5 s of CPU, 40 s on a
	// machine at a load of 33 on 2 cores, and up to about 4 minutes
	// with four more busy goroutines beside it (TestDeterministic -large).
	Timeout time.Duration
	// MaxMemory is the most memory a PDFium instance (WebAssembly) may
	// take; a PDF that needs more is refused ("pdf: memory limit: …").
	// At most two instances run at once, so PDFs take at most twice this.
	// The first PDF read in a process sets it for the process. Default
	// 256 MiB.
	MaxMemory int64
}

// EnsureDefaults fills the zero fields with their defaults and returns l.
func (l *Limits) EnsureDefaults() *Limits {
	if l.MaxBytes == 0 {
		l.MaxBytes = 50 << 20
	}
	if l.MaxUnpacked == 0 {
		l.MaxUnpacked = 200 << 20
	}
	if l.MaxPages == 0 {
		l.MaxPages = 2000
	}
	if l.MaxText == 0 {
		l.MaxText = 5 << 20
	}
	if l.Timeout == 0 {
		l.Timeout = 10 * time.Minute
	}
	if l.MaxMemory == 0 {
		l.MaxMemory = 256 << 20
	}
	return l
}

// Validate reports negative limits.
func (l Limits) Validate() error {
	if l.MaxBytes < 0 || l.MaxUnpacked < 0 || l.MaxPages < 0 || l.MaxText < 0 || l.Timeout < 0 || l.MaxMemory < 0 {
		return errors.New("extract: limits must not be negative")
	}
	return nil
}

// An Error says why a document could not be read.
type Error struct {
	Type   Type
	Reason string // "encrypted", "malformed: …", "too large: …", "zip bomb: …", "memory limit: …", "too slow: …"
}

// Error returns "pdf: encrypted" and the like.
func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Type, e.Reason) }

// fail returns an *Error of t.
func fail(t Type, format string, args ...any) *Error {
	return &Error{Type: t, Reason: fmt.Sprintf(format, args...)}
}

// Read extracts the document body of format t within lim. A panic in a
// reader (a malformed file can provoke one in a library) is an *Error.
func Read(t Type, body []byte, lim Limits) (doc *Document, err error) {
	lim.EnsureDefaults()
	if len(body) > lim.MaxBytes {
		return nil, fail(t, "too large: %d bytes, the limit is %d", len(body), lim.MaxBytes)
	}
	defer func() {
		if p := recover(); p != nil {
			doc, err = nil, fail(t, "malformed: %v", p)
		}
	}()
	r := newRun(t, lim)
	switch t {
	case PDF:
		err = readPDF(r, body)
	case DOCX, PPTX, XLSX:
		err = readOOXML(r, body)
	case ODT, ODP, ODS:
		err = readODF(r, body)
	default:
		return nil, fail(t, "unknown format")
	}
	if err != nil {
		return nil, err
	}
	if r.late {
		return nil, fail(t, "too slow: %d pages read in %v, the limit is %v", r.doc.Pages, time.Since(r.start).Round(time.Millisecond), lim.Timeout)
	}
	return r.doc, nil
}
