// Package feed reads the RSS and Atom feeds (and JSON Feeds) a site links
// from its pages (<link rel="alternate" type="application/rss+xml"> or
// "application/atom+xml") into sitemap entries: each item's page and the
// date it was last updated (Atom's updated, else its published or RSS's
// pubDate). A crawler reads them as it reads a sitemap's lastmod, to
// learn which pages changed since it fetched them; unlike a sitemap, a
// feed lists only recent items, so a page that leaves it has not left
// the site. Parsing is github.com/mmcdole/gofeed's.
package feed

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/mmcdole/gofeed"

	"github.com/doppel-search/doppel/crawler/sitemap"
)

// ErrTooLarge is Parse's error for a feed over its byte limit.
var ErrTooLarge = errors.New("feed: larger than the limit")

// MaxItems is the most items of one feed read; more are ignored.
const MaxItems = 10000

// Parse reads a feed of at most maxBytes bytes fetched from base and
// returns its items as sitemap entries: the item's link resolved against
// base (http or https only; items without one dropped), LastMod its
// updated date, else its published date (zero if neither reads).
func Parse(r io.Reader, base *url.URL, maxBytes int64) ([]sitemap.Entry, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("feed: %w", err)
	}
	if int64(len(data)) > maxBytes {
		return nil, ErrTooLarge
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
