// Package feed reads the RSS and Atom feeds (and JSON Feeds) a site links
// from its pages (<link rel="alternate" type="application/rss+xml"> or
// "application/atom+xml") into sitemap entries: each item's page and the
// date it was last updated (Atom's updated, else its published or RSS's
// pubDate). A crawler reads them as it reads a sitemap's lastmod, to
// learn which pages changed since it fetched them; unlike a sitemap, a
// feed lists only recent items, so a page that leaves it has not left
// the site. Parsing is github.com/mmcdole/gofeed's, of a feed checked
// first in bounded memory (internal/safexml): gofeed holds every item and
// lets encoding/xml keep a record of every open element.
package feed

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/mmcdole/gofeed"

	"github.com/doppel-search/doppel/crawler/sitemap"
	"github.com/doppel-search/doppel/internal/safexml"
)

// ErrTooLarge is Parse's error for a feed over its byte limit.
var ErrTooLarge = errors.New("feed: larger than the limit")

// MaxItems is the most items of one feed read; more are ignored: the
// feed is cut before the next one.
const MaxItems = 10000

// MaxDepth is the most elements an XML feed may nest: more, and it is
// not read. An Atom entry's XHTML content nests a few dozen deep.
const MaxDepth = 1000

// Parse reads a feed of at most maxBytes bytes fetched from base and
// returns its items as sitemap entries: the item's link resolved against
// base (http or https only; items without one dropped), LastMod its
// updated date, else its published date (zero if neither reads). An XML
// feed is tokenized first within safexml's limits (a text 5 MiB, a piece
// of markup 1 MiB, elements MaxDepth deep; past them it is not read) and
// cut before its item or entry MaxItems+1, so that what gofeed holds is
// bounded by MaxItems and maxBytes.
func Parse(r io.Reader, base *url.URL, maxBytes int64) ([]sitemap.Entry, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("feed: %w", err)
	}
	if int64(len(data)) > maxBytes {
		return nil, ErrTooLarge
	}
	if data, err = bound(data, MaxItems); err != nil {
		return nil, err
	}
	f, err := gofeed.NewParser().Parse(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("feed: %w", err)
	}
	var out []sitemap.Entry
	for _, it := range f.Items {
		if len(out) == MaxItems {
			break
		}
		link := it.Link
		if link == "" && len(it.Links) > 0 {
			link = it.Links[0]
		}
		u, err := url.Parse(strings.TrimSpace(link))
		if err != nil || link == "" {
			continue
		}
		if base != nil {
			u = base.ResolveReference(u)
		}
		if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
			continue
		}
		u.Fragment = ""
		e := sitemap.Entry{URL: u.String()}
		switch {
		case it.UpdatedParsed != nil:
			e.LastMod = it.UpdatedParsed.UTC()
		case it.PublishedParsed != nil:
			e.LastMod = it.PublishedParsed.UTC()
		}
		out = append(out, e)
	}
	return out, nil
}

// bound checks an XML feed within safexml's limits, as leniently as
// gofeed reads it, and returns it cut before its item (or entry)
// maxItems+1, the elements still open then closed. Anything else (a
// JSON Feed) is returned as it is.
func bound(data []byte, maxItems int) ([]byte, error) {
	if trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff"); len(trimmed) == 0 || trimmed[0] != '<' {
		return data, nil
	}
	d := safexml.NewDecoder(bytes.NewReader(data), safexml.Limits{Depth: MaxDepth, Lenient: true})
	var open []string // the qualified names of the open elements, as written
	items := 0
	for {
		start := d.InputOffset()
		tok, err := d.Token()
		switch {
		case errors.Is(err, io.EOF):
			return data, nil
		case err != nil:
			return nil, fmt.Errorf("feed: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local == "item" || t.Name.Local == "entry" {
				if items++; items > maxItems {
					return closed(data[:start], open), nil
				}
			}
			open = append(open, qualified(data[start:d.InputOffset()]))
		case xml.EndElement:
			open = open[:max(len(open)-1, 0)]
		}
	}
}

// qualified returns the element name a start tag (its bytes, from '<')
// is written with: "item", "rdf:RDF".
func qualified(tag []byte) string {
	tag = bytes.TrimPrefix(tag, []byte("<"))
	if i := bytes.IndexAny(tag, " \t\r\n/>"); i >= 0 {
		tag = tag[:i]
	}
	return string(tag)
}

// closed returns data followed by the end tags of the open elements,
// the innermost first.
func closed(data []byte, open []string) []byte {
	out := bytes.Clone(data)
	for i := len(open) - 1; i >= 0; i-- {
		out = append(append(append(out, "</"...), open[i]...), '>')
	}
	return out
}
