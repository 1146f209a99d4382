// Package safexml reads XML from strangers in bounded memory: a token
// decoder (encoding/xml's) that never buffers a run of text or a piece of
// markup longer than its limits, nor keeps more open elements than its
// depth.
//
// encoding/xml reads a token whole — a text, a start tag with all its
// attributes, a comment, a CDATA section, a directive — before it
// returns it, and keeps a record of every open element: a comment of
// 190 MiB of '<' (200 kB compressed) is held whole, a tag of 30 million
// attributes takes gigabytes, and 60 MiB of "<a>" makes 20 million open
// elements (2.2 GB, minutes of CPU). A Decoder stops such input at the
// token with ErrLongToken or ErrTooDeep. Like encoding/xml, it expands
// no entity but the five of XML, so entity bombs ("billion laughs") are
// malformed XML.
package safexml

import (
	"bufio"
	"encoding/xml"
	"errors"
	"io"

	"golang.org/x/net/html/charset"
)

// Limits bound a Decoder. A zero field means its default.
type Limits struct {
	// Text is the longest run of character data between two pieces of
	// markup. Default 5 MiB.
	Text int64
	// Markup is the longest piece of markup: a tag with its attributes,
	// a comment, a CDATA section, a processing instruction, a DOCTYPE.
	// Default 1 MiB (a tag of 5 MiB of ` a=""` is a million attributes,
	// which encoding/xml holds as 150 MB).
	Markup int64
	// Depth is the most elements open at once. Default 10,000, the
	// depth at which Go's xml.Unmarshal stops.
	Depth int
	// Lenient reads XML as encoding/xml does when not Strict (what
	// feed readers such as gofeed do): an unknown entity such as &nbsp;
	// or a stray & is left as it is, not an error; a document in another
	// charset than UTF-8 (<?xml encoding="ISO-8859-1"?>) is decoded
	// (golang.org/x/net/html/charset). Default false.
	Lenient bool
}

// Errors of Token past a limit; a Decoder returns them from then on.
var (
	ErrLongToken = errors.New("safexml: a token longer than its limit")
	ErrTooDeep   = errors.New("safexml: elements nested deeper than the limit")
)

// A Decoder reads the tokens of one XML document within its Limits.
type Decoder struct {
	d     *xml.Decoder
	in    *tokenLimit
	depth int
	max   int
	err   error
}

// NewDecoder returns a Decoder of r.
func NewDecoder(r io.Reader, lim Limits) *Decoder {
	if lim.Text <= 0 {
		lim.Text = 5 << 20
	}
	if lim.Markup <= 0 {
		lim.Markup = 1 << 20
	}
	if lim.Depth <= 0 {
		lim.Depth = 10000
	}
	in := &tokenLimit{r: bufio.NewReader(r), text: lim.Text, markup: lim.Markup}
	d := xml.NewDecoder(in)
	if lim.Lenient {
		d.Strict = false
		d.CharsetReader = charset.NewReaderLabel
	}
	return &Decoder{d: d, in: in, max: lim.Depth}
}

// InputOffset is the input offset of the decoder's position: where the
// next token starts (xml.Decoder.InputOffset).
func (d *Decoder) InputOffset() int64 { return d.d.InputOffset() }

// Token returns the next token, as xml.Decoder.Token does; ErrLongToken
// or ErrTooDeep (wrapped by encoding/xml or not: test with errors.Is)
// past a limit, io.EOF at the end.
func (d *Decoder) Token() (xml.Token, error) {
	if d.err != nil {
		return nil, d.err
	}
	tok, err := d.d.Token()
	d.in.mark = d.d.InputOffset()
	switch tok.(type) {
	case xml.StartElement:
		if d.depth++; d.depth > d.max {
			d.err = ErrTooDeep
			return nil, d.err
		}
	case xml.EndElement:
		d.depth--
	}
	return tok, err
}

// tokenLimit is a Decoder's input, read byte by byte (encoding/xml reads
// an io.ByteReader directly, so its InputOffset counts the bytes read
// here). It fails once the token being read — from the end of the last
// one, mark — is longer than its limit: markup if it starts with '<',
// text if not.
type tokenLimit struct {
	r            *bufio.Reader
	text, markup int64
	pos, mark    int64
	isMarkup     bool
}

// ReadByte reads the next byte.
func (l *tokenLimit) ReadByte() (byte, error) {
	c, err := l.r.ReadByte()
	if err != nil {
		return c, err
	}
	if l.pos == l.mark {
		l.isMarkup = c == '<'
	}
	l.pos++
	// n counts the byte that ends a text too, which encoding/xml reads
	// before it gives the byte back.
	if n := l.pos - l.mark - 1; n > l.text || l.isMarkup && n > l.markup {
		return 0, ErrLongToken
	}
	return c, nil
}

// Read reads bytes one by one (encoding/xml calls ReadByte).
func (l *tokenLimit) Read(p []byte) (int, error) {
	for i := range p {
		c, err := l.ReadByte()
		if err != nil {
			return i, err
		}
		p[i] = c
	}
	return len(p), nil
}
