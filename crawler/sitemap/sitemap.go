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

type xmlEntry struct {
	Loc        string `xml:"loc"`
	LastMod    string `xml:"lastmod"`
	ChangeFreq string `xml:"changefreq"`
}

type xmlDoc struct {
	XMLName  xml.Name
	URLs     []xmlEntry `xml:"url"`
	Sitemaps []xmlEntry `xml:"sitemap"`
}

// Parse reads a sitemap of at most maxBytes bytes (gzip-compressed or
// not) fetched from base. Entries whose location does not resolve to an
// http or https URL are dropped.
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
	var doc xmlDoc
	if err := xml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("sitemap: %w", err)
	}
	if doc.XMLName.Local != "urlset" && doc.XMLName.Local != "sitemapindex" {
		return nil, ErrNotSitemap
	}
	s := &Sitemap{}
	conv := func(in []xmlEntry) []Entry {
		var out []Entry
		for _, e := range in {
			if len(out) == MaxEntries {
				break
			}
			u, err := url.Parse(strings.TrimSpace(e.Loc))
			if err != nil {
				continue
			}
			if base != nil {
				u = base.ResolveReference(u)
			}
			if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
				continue
			}
			out = append(out, Entry{URL: u.String(), LastMod: parseTime(e.LastMod), ChangeFreq: changeFreq(e.ChangeFreq)})
		}
		return out
	}
	s.URLs, s.Sitemaps = conv(doc.URLs), conv(doc.Sitemaps)
	return s, nil
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
