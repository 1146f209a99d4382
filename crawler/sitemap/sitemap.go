// Package sitemap reads sitemaps (sitemaps.org protocol 0.9): a urlset of
// page locations with their last modification time and change frequency,
// or a sitemapindex naming other sitemaps. A crawler reads them to find
// pages and to learn which changed since it fetched them.
package sitemap

import (
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/doppel-search/doppel/internal/safexml"
)

// An Entry is one <url> of a urlset, or one <sitemap> of an index.
type Entry struct {
	URL        string        // absolute (relative locations are resolved against the sitemap's URL)
	LastMod    time.Time     // zero if absent or unreadable
	ChangeFreq time.Duration // the <changefreq> as an interval; 0 if absent, "always" or "never"
}

// A Sitemap is a parsed sitemap file: URLs, or (an index) other sitemaps.
type Sitemap struct {
	URLs     []Entry
	Sitemaps []Entry
}

// Errors returned by Parse.
var (
	ErrNotSitemap = errors.New("sitemap: not a urlset or sitemapindex")
	ErrTooLarge   = errors.New("sitemap: larger than the limit")
)

// MaxEntries is the most entries one sitemap may hold (the protocol's
// limit); more are ignored.
const MaxEntries = 50000

// maxField is the most bytes of a <loc>, <lastmod> or <changefreq> read:
// the protocol's locations are at most 2,048 characters; a longer
// location is dropped.
const maxField = 8 << 10

// Parse reads a sitemap of at most maxBytes bytes (gzip-compressed or
// not) fetched from base. Entries whose location does not resolve to an
// http or https URL are dropped, and those past MaxEntries ignored. The
// XML is streamed (internal/safexml): a run of text or a tag over
// 64 KiB, or elements nested over 100 deep, make the sitemap malformed,
// and only the entries kept are held — a 50 MB sitemap of a tag with ten
// million attributes, or of a million entries, takes no more memory
// than its text.
func Parse(r io.Reader, base *url.URL, maxBytes int64) (*Sitemap, error) {
	data, err := readBody(r, maxBytes)
	if err != nil {
		return nil, err
	}
	d := safexml.NewDecoder(bytes.NewReader(data), safexml.Limits{Text: 64 << 10, Markup: 64 << 10, Depth: 100})
	p := parser{base: base, s: &Sitemap{}}
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("sitemap: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if err := p.start(t.Name.Local); err != nil {
				return nil, err
			}
		case xml.CharData:
			p.charData(t)
		case xml.EndElement:
			p.end()
		}
	}
	if p.root == "" {
		return nil, fmt.Errorf("sitemap: %w", io.ErrUnexpectedEOF)
	}
	return p.s, nil
}

// readBody reads a sitemap of at most maxBytes bytes from r, gunzipped
// if it is gzip-compressed (at most maxBytes bytes once gunzipped too);
// ErrTooLarge if longer.
func readBody(r io.Reader, maxBytes int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("sitemap: %w", err)
	}
	if int64(len(data)) > maxBytes {
		return nil, ErrTooLarge
	}
	if !bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		return data, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("sitemap: %w", err)
	}
	if data, err = io.ReadAll(io.LimitReader(zr, maxBytes+1)); err != nil {
		return nil, fmt.Errorf("sitemap: %w", err)
	}
	if int64(len(data)) > maxBytes {
		return nil, ErrTooLarge
	}
	return data, nil
}

// parser is Parse's place in a sitemap's elements: the root (urlset or
// sitemapindex) at depth 1, an entry (url or sitemap) at depth 2, and
// the entry's fields (loc, lastmod, changefreq) at depth 3.
type parser struct {
	base         *url.URL
	s            *Sitemap // the entries kept so far
	root         string
	depth        int
	entry        string // "url" or "sitemap": the entry being read, at depth 2
	field        string // its field being read, at depth 3
	loc, lastmod string
	freq         string
	text         strings.Builder // the field's text, up to maxField+1 bytes
}

// start takes an element's start: the root, which must be a sitemap's
// (else ErrNotSitemap), an entry, or an entry's field.
func (p *parser) start(name string) error {
	p.depth++
	switch {
	case p.depth == 1:
		p.root = name
		if p.root != "urlset" && p.root != "sitemapindex" {
			return ErrNotSitemap
		}
	case p.depth == 2 && (name == "url" || name == "sitemap"):
		p.entry, p.loc, p.lastmod, p.freq = name, "", "", ""
	case p.depth == 3 && p.entry != "":
		p.field = name
		p.text.Reset()
	}
	return nil
}

// charData takes character data: a field's text, past maxField bytes cut.
func (p *parser) charData(t xml.CharData) {
	if p.field != "" {
		p.text.Write(t[:min(len(t), maxField+1-p.text.Len())])
	}
}

// end takes an element's end: a field's sets it, an entry's keeps the
// entry if it resolves and its list is not full.
func (p *parser) end() {
	switch {
	case p.depth == 3 && p.field != "":
		p.setField()
	case p.depth == 2 && p.entry != "":
		list := &p.s.URLs
		if p.entry == "sitemap" {
			list = &p.s.Sitemaps
		}
		if len(*list) < MaxEntries { // past it, not even resolved
			if e, ok := resolve(p.base, p.loc, p.lastmod, p.freq); ok {
				*list = append(*list, e)
			}
		}
		p.entry = ""
	}
	p.depth--
}

// setField sets the entry's field just read from its text.
func (p *parser) setField() {
	switch p.field {
	case "loc":
		if p.loc = p.text.String(); len(p.loc) > maxField {
			p.loc = "" // a location longer than any is dropped, not cut
		}
	case "lastmod":
		p.lastmod = p.text.String()
	case "changefreq":
		p.freq = p.text.String()
	}
	p.field = ""
}

// resolve returns the entry of a location resolved against base; false
// if it is not an http or https URL.
func resolve(base *url.URL, loc, lastmod, freq string) (Entry, bool) {
	loc = strings.TrimSpace(loc)
	u, err := url.Parse(loc)
	if err != nil || loc == "" { // no location is not the sitemap's own
		return Entry{}, false
	}
	if base != nil {
		u = base.ResolveReference(u)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return Entry{}, false
	}
	return Entry{URL: u.String(), LastMod: parseTime(lastmod), ChangeFreq: changeFreq(freq)}, true
}

// parseTime reads a W3C datetime (YYYY, YYYY-MM, YYYY-MM-DD, with a time
// and zone), as sitemaps write lastmod.
func parseTime(s string) time.Time {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00", "2006-01-02", "2006-01", "2006"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

// changeFreq converts a <changefreq> to an interval.
func changeFreq(s string) time.Duration {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "hourly":
		return time.Hour
	case "daily":
		return 24 * time.Hour
	case "weekly":
		return 7 * 24 * time.Hour
	case "monthly":
		return 30 * 24 * time.Hour
	case "yearly":
		return 365 * 24 * time.Hour
	}
	return 0 // always, never, absent: no interval to go by
}
