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

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
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

// MaxCodings is the most content codings a body may stack
// ("Content-Encoding: br, gzip"): each is decoded in turn, and the bounds
// hold for the stack as a whole. A longer stack is a *DecodeError. curl
// stops at 5; no server sends more than 2.
const MaxCodings = 3

// ZstdWindow is the largest window a zstd-coded body may declare: RFC
// 9659 §3 has HTTP senders keep it at most 8 MiB and lets receivers
// refuse a larger one, which bounds the decoder's memory. A frame that
// declares more is a *DecodeError ("window over 8 MiB").
const ZstdWindow = 8 << 20

// acceptEncoding is what decoding asks for: the codings it decodes.
const acceptEncoding = "gzip, deflate, br, zstd"

// openers open the decoder of each content coding decoding decodes,
// reading from a buffered reader.
var openers = map[string]func(*bufio.Reader) (io.Reader, error){
	"gzip":    openGzip,
	"x-gzip":  openGzip,
	"deflate": openDeflate,
	"br":      openBrotli,
	"zstd":    openZstd,
}

// decoding asks for the codings it decodes (acceptEncoding: gzip,
// deflate, br, zstd) and decodes them itself, bounded by bytes out and
// bytes in: at most limit+1 bytes of a body are decoded, so a body that
// expands past the limit is cut there like one sent plainly — or, past
// BombRatio, refused as a bomb (a *DecodeError from Read); and at most
// 2×limit + 1 MiB are read for them, so a stream that decodes to little
// or nothing (zstd's skippable frames, empty gzip members, brotli
// metadata) ends with a *DecodeError instead of at the fetch's time
// limit. A stack of up to MaxCodings codings is decoded layer by layer
// under the same bounds; brotli's window is at most 16 MiB (RFC 7932:
// the large-window extension is not accepted) and zstd's at most
// ZstdWindow, decoded on the reading goroutine alone. Go's transport
// decodes gzip by itself only when it asked for it, and colly decodes
// gzip (a Content-Encoding, a media type or a path ending .xml.gz)
// without any bound; decoding asks itself, so the transport below
// decodes nothing, and marks every response Uncompressed so colly
// decodes nothing either. An unknown coding is a *DecodeError. It wraps
// the network transport, below the login transport, which reads the
// decoded bodies of login pages.
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

// RoundTrip sends r asking for the codings decoding decodes, unless it
// names its own Accept-Encoding or a Range, and returns the answer with
// its body decoded.
func (d decoding) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Header.Get("Accept-Encoding") == "" && r.Header.Get("Range") == "" {
		r = r.Clone(r.Context())
		r.Header.Set("Accept-Encoding", acceptEncoding)
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
	in := &counter{r: resp.Body, max: 2*limit + 1<<20}
	body := &decoded{encoding: header, codings: codings, in: in, closer: resp.Body, limit: limit}
	if len(codings) > MaxCodings {
		body.err = &DecodeError{Encoding: header, Reason: fmt.Sprintf("more than %d codings", MaxCodings)}
	}
	for _, c := range codings {
		if openers[c] == nil && body.err == nil {
			body.err = &DecodeError{Encoding: header, Reason: "not supported: " + c}
		}
	}
	resp.Body = body
	return resp, nil
}

func openGzip(r *bufio.Reader) (io.Reader, error) { return gzip.NewReader(r) }

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

// openBrotli opens the "br" coding (RFC 7932), without the large-window
// extension: a window of at most 16 MiB.
func openBrotli(r *bufio.Reader) (io.Reader, error) { return brotli.NewReader(r), nil }

// openZstd opens the "zstd" coding (RFC 8878, RFC 9659): a window of at
// most ZstdWindow, decoded synchronously (concurrency 1: no goroutine
// decodes ahead, and no block is buffered beyond the one read), with
// the decoder's low-memory setting. Its Close releases the decoder.
func openZstd(r *bufio.Reader) (io.Reader, error) {
	dec, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxWindow(ZstdWindow), zstd.WithDecoderMaxMemory(ZstdWindow))
	if err != nil {
		return nil, err
	}
	return dec.IOReadCloser(), nil
}

// errTooMuchIn is counter's error once more than its max bytes came in.
var errTooMuchIn = errors.New("too many bytes in")

// counter counts the bytes read through it, ends with errTooMuchIn
// after max+1 of them, and keeps the error of the reader below (the
// connection's), so that it is told from a decoder's.
type counter struct {
	r   io.Reader
	n   int64
	max int64
	err error // the reader's own error, but io.EOF
}

func (c *counter) Read(p []byte) (int, error) {
	if c.n > c.max {
		return 0, errTooMuchIn
	}
	if left := c.max + 1 - c.n; int64(len(p)) > left {
		p = p[:left]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if err != nil && !errors.Is(err, io.EOF) {
		c.err = err
	}
	if c.n > c.max && err == nil {
		err = errTooMuchIn
	}
	return n, err
}

// decoded is a response body decoded on the fly, at most limit+1 bytes
// of it, from at most in.max+1 bytes in.
type decoded struct {
	encoding string
	codings  []string // in the order applied: decoded last to first
	in       *counter
	closer   io.Closer
	dec      io.Reader
	closers  []io.Closer // the decoders that hold resources
	out      int64
	limit    int64
	err      error // sticky
}

// open stacks the decoders of d.codings on d.in, the last applied
// first.
func (d *decoded) open() error {
	var r io.Reader = d.in
	for i := len(d.codings) - 1; i >= 0; i-- {
		dec, err := openers[d.codings[i]](bufio.NewReaderSize(r, 4096))
		if err != nil {
			return err
		}
		if c, ok := dec.(io.Closer); ok {
			d.closers = append(d.closers, c)
		}
		r = dec
	}
	d.dec = r
	return nil
}

func (d *decoded) Read(p []byte) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	if d.dec == nil {
		if err := d.open(); err != nil {
			d.err = d.failed(err)
			return 0, d.err
		}
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
		d.err = d.failed(err)
		return n, d.err
	}
	return n, err
}

// failed is the error a decoder's err stands for: past the bound on
// bytes in, a *DecodeError saying so; the connection's own failure as it
// is (a timeout stays a timeout), and so a stream cut short (which the
// fetch retries); a window over the bound, or any other complaint of a
// decoder about its input, a *DecodeError.
func (d *decoded) failed(err error) error {
	var de *DecodeError
	switch {
	case errors.As(err, &de):
		return err
	case d.in.n > d.in.max:
		return &DecodeError{Encoding: d.encoding, Reason: fmt.Sprintf(
			"more than %d bytes sent for %d decoded", d.in.max, d.out)}
	case d.in.err != nil:
		return d.in.err
	case errors.Is(err, io.ErrUnexpectedEOF):
		return err
	case errors.Is(err, zstd.ErrWindowSizeExceeded) || errors.Is(err, zstd.ErrDecoderSizeExceeded):
		return &DecodeError{Encoding: d.encoding, Reason: fmt.Sprintf("window over %d MiB: %v", ZstdWindow>>20, err)}
	}
	return &DecodeError{Encoding: d.encoding, Reason: "malformed: " + err.Error()}
}

// Close closes the decoders and the body below.
func (d *decoded) Close() error {
	for _, c := range d.closers {
		_ = c.Close()
	}
	d.closers = nil
	return d.closer.Close()
}

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
