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
	data, err := io.ReadAll(io.LimitReader(r, maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("sitemap: %w", err)
	}
	if int64(len(data)) > maxBytes {
		return nil, ErrTooLarge
	}
	if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
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
	}
	d := safexml.NewDecoder(bytes.NewReader(data), safexml.Limits{Text: 64 << 10, Markup: 64 << 10, Depth: 100})
	s := &Sitemap{}
	var (
		root         string
		depth        int
		entry        string // "url" or "sitemap": the entry being read, at depth 2
		field        string // its field being read, at depth 3
		loc, lastmod string
		freq         string
		text         strings.Builder
	)
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
			depth++
			switch {
			case depth == 1:
				root = t.Name.Local
				if root != "urlset" && root != "sitemapindex" {
					return nil, ErrNotSitemap
				}
			case depth == 2 && (t.Name.Local == "url" || t.Name.Local == "sitemap"):
				entry, loc, lastmod, freq = t.Name.Local, "", "", ""
			case depth == 3 && entry != "":
				field = t.Name.Local
				text.Reset()
			}
		case xml.CharData:
			if field != "" {
				text.Write(t[:min(len(t), maxField+1-text.Len())])
			}
		case xml.EndElement:
			switch {
			case depth == 3 && field != "":
				switch field {
				case "loc":
					if loc = text.String(); len(loc) > maxField {
						loc = "" // a location longer than any is dropped, not cut
					}
				case "lastmod":
					lastmod = text.String()
				case "changefreq":
					freq = text.String()
				}
				field = ""
			case depth == 2 && entry != "":
				list := &s.URLs
				if entry == "sitemap" {
					list = &s.Sitemaps
				}
				if e, ok := resolve(base, loc, lastmod, freq); ok && len(*list) < MaxEntries {
					*list = append(*list, e)
				}
				entry = ""
			}
			depth--
		}
	}
	if root == "" {
		return nil, fmt.Errorf("sitemap: %w", io.ErrUnexpectedEOF)
	}
	return s, nil
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
