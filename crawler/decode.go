package crawler

import (
	"bufio"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
)

// BombRatio is the compression ratio (bytes out per byte in) beyond
// which a response body that decodes past the body limit is taken for a
// decompression bomb: recorded as skipped, not read as a page cut at the
// limit. HTML and XML compress 3–15:1; DEFLATE's ceiling is about 1032:1,
// which long runs of one byte reach. Apache POI refuses zip members
// past 100:1 (ZipSecureFile's minimum inflate ratio 0.01), and so does this.
const BombRatio = 100

// A DecodeError says why a response body was not decoded: a content
// coding not supported, a malformed stream, or a decompression bomb. The
// URL is recorded as skipped with it ("content encoding gzip:
// decompression bomb: …").
type DecodeError struct {
	Encoding string // the Content-Encoding header
	Reason   string
}

// Error returns "content encoding ENC: REASON".
func (e *DecodeError) Error() string { return "content encoding " + e.Encoding + ": " + e.Reason }

// decoding asks for gzip and deflate (Accept-Encoding) and decodes them
// itself, bounded by bytes out: at most limit+1 bytes of a body are
// decoded, so a body that expands past the limit is cut there like one
// sent plainly — or, past BombRatio, refused as a bomb (a *DecodeError
// from Read). Go's transport decodes gzip by itself only when it asked
// for it, and colly decodes gzip (a Content-Encoding, a media type or a
// path ending .xml.gz) without any bound; decoding asks itself, so the
// transport below decodes nothing, and marks every response Uncompressed
// so colly decodes nothing either. Brotli is not asked for (no decoder
// in the module graph); a br body, or a chain of codings, is a
// *DecodeError. It wraps the network transport, below the login
// transport, which reads the decoded bodies of login pages.
//
// A page's body (pageBody: HTML or text, of which the crawl processes
// MaxBodyBytes) is decoded to at most pageLimit+1 bytes, if pageLimit
// is set, not to the limit of documents.
type decoding struct {
	base      http.RoundTripper
	limit     int64
	pageLimit int64
}

// pageBody reports whether a response of Content-Type ct is read as a
// page (package hook: HTML or text, cut at MaxBodyBytes), never as a
// document, whose limit is larger: a document is known by its media
// type first, and one of these media types is never a document.
func pageBody(ct string) bool {
	mt, _, _ := mime.ParseMediaType(ct)
	switch mt {
	case "text/html", "application/xhtml+xml", "text/plain":
		return true
	}
	return false
}

// RoundTrip sends r asking for gzip or deflate, unless it names its own
// Accept-Encoding or a Range, and returns the answer with its body
// decoded.
func (d decoding) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Header.Get("Accept-Encoding") == "" && r.Header.Get("Range") == "" {
		r = r.Clone(r.Context())
		r.Header.Set("Accept-Encoding", "gzip, deflate")
	}
	resp, err := d.base.RoundTrip(r)
	if err != nil || resp == nil {
		return resp, err
	}
	resp.Uncompressed = true
	header := resp.Header.Get("Content-Encoding")
	var codings []string
	for _, c := range strings.Split(strings.ToLower(header), ",") {
		if c = strings.TrimSpace(c); c != "" && c != "identity" {
			codings = append(codings, c)
		}
	}
	resp.Header.Del("Content-Encoding")
	if len(codings) == 0 {
		return resp, nil
	}
	resp.Header.Del("Content-Length")
	resp.ContentLength = -1
	limit := d.limit
	if d.pageLimit > 0 && pageBody(resp.Header.Get("Content-Type")) {
		limit = d.pageLimit
	}
	body := &decoded{encoding: header, in: &counter{r: resp.Body}, closer: resp.Body, limit: limit}
	switch {
	case len(codings) > 1:
		body.err = &DecodeError{Encoding: header, Reason: "more than one coding is not supported"}
	case codings[0] == "gzip" || codings[0] == "x-gzip":
		body.open = func(r *bufio.Reader) (io.Reader, error) { return gzip.NewReader(r) }
	case codings[0] == "deflate":
		body.open = openDeflate
	default:
		body.err = &DecodeError{Encoding: header, Reason: "not supported"}
	}
	resp.Body = body
	return resp, nil
}

// openDeflate opens the "deflate" coding: zlib (RFC 9110 §8.4.1.2), or
// the raw DEFLATE that some servers send instead, told apart by zlib's
// two-byte header.
func openDeflate(r *bufio.Reader) (io.Reader, error) {
	head, err := r.Peek(2)
	if err == nil && head[0]&0x0f == 8 && (uint16(head[0])<<8|uint16(head[1]))%31 == 0 {
		return zlib.NewReader(r)
	}
	return flate.NewReader(r), nil
}

// counter counts the bytes read through it.
type counter struct {
	r io.Reader
	n int64
}

func (c *counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// decoded is a response body decoded on the fly, at most limit+1 bytes
// of it.
type decoded struct {
	encoding string
	in       *counter
	closer   io.Closer
	open     func(*bufio.Reader) (io.Reader, error)
	dec      io.Reader
	out      int64
	limit    int64
	err      error // sticky
}

func (d *decoded) Read(p []byte) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	if d.dec == nil {
		dec, err := d.open(bufio.NewReaderSize(d.in, 4096))
		if err != nil {
			d.err = d.malformed(err)
			return 0, d.err
		}
		d.dec = dec
	}
	if left := d.limit + 1 - d.out; int64(len(p)) > left {
		p = p[:left]
	}
	n, err := d.dec.Read(p)
	d.out += int64(n)
	switch {
	case d.out > d.limit && d.out > BombRatio*max(d.in.n, 1):
		d.err = &DecodeError{Encoding: d.encoding, Reason: fmt.Sprintf(
			"decompression bomb: more than %d bytes from %d (over %d:1)", d.limit, d.in.n, BombRatio)}
		return 0, d.err
	case d.out > d.limit: // a large body: cut like one sent plainly
		d.err = io.EOF
	case errors.Is(err, io.EOF):
		d.err = io.EOF
	case err != nil:
		d.err = d.malformed(err)
		return n, d.err
	}
	return n, err
}

// malformed is the error of a stream that does not decode; a network
// error is passed on as it is (a timeout stays a timeout).
func (d *decoded) malformed(err error) error {
	var de *DecodeError
	if errors.As(err, &de) || !isFormatError(err) {
		return err
	}
	return &DecodeError{Encoding: d.encoding, Reason: "malformed: " + err.Error()}
}

// isFormatError reports whether err is a decoder's complaint about its
// input, not a failure of the connection below it.
func isFormatError(err error) bool {
	var corrupt flate.CorruptInputError
	return errors.As(err, &corrupt) || errors.Is(err, gzip.ErrHeader) || errors.Is(err, gzip.ErrChecksum) ||
		errors.Is(err, zlib.ErrHeader) || errors.Is(err, zlib.ErrChecksum) || errors.Is(err, zlib.ErrDictionary)
}

func (d *decoded) Close() error { return d.closer.Close() }

// plain marks every response Uncompressed, so that colly decodes none
// by itself without a bound (a gzip file of a file:// crawl, a path
// ending .xml.gz): what is decoded, decoding decoded. If pageLimit is
// set, it reads at most pageLimit+1 bytes of a page's body (pageBody),
// of a file crawl's as of a server's: colly reads a body whole, up to
// the limit of documents (50 MiB), and a page of 50 MB took 300 MB more
// than one of 5 MB, of which only the first 5 MB are processed.
type plain struct {
	base      http.RoundTripper
	pageLimit int64
}

func (p plain) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := p.base.RoundTrip(r)
	if resp != nil {
		resp.Uncompressed = true
		if p.pageLimit > 0 && resp.Body != nil && pageBody(resp.Header.Get("Content-Type")) {
			resp.Body = &capped{ReadCloser: resp.Body, left: p.pageLimit + 1}
		}
	}
	return resp, err
}

// capped is a body that ends after left more bytes.
type capped struct {
	io.ReadCloser
	left int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.ReadCloser.Read(p)
	c.left -= int64(n)
	return n, err
}
