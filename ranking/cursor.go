package ranking

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/blevesearch/bleve/v2/search"
)

// ErrCursor means Request.After is no cursor of this search: not one
// Result.Cursor gave, or one of another order or listing.
var ErrCursor = errors.New("invalid cursor")

// A cursor is where a page ended (Result.Cursor), as Elasticsearch's
// search_after: the last clusters on it and the last one's sort key. The
// next page starts after the last of those clusters the result still has
// — so clusters added, removed or rescored before it shift nothing — and
// if it has none, after the key, before the first cluster that ranks
// below it (scores change as the index does: then a cluster may be
// repeated or missed, as with search_after).
type cursor struct {
	Page    int    `json:"p"` // the page it ends
	Cluster string `json:"c"` // the last cluster on it
	// Before are the clusters before it on the page, the nearest last (at
	// most maxAnchors−1): where Cluster is gone, the page starts after
	// the nearest of them still there.
	Before  []string `json:"b,omitempty"`
	Entry   int      `json:"e,omitempty"` // Omitted: the entries of the cluster listed so far, less one
	ID      string   `json:"i"`           // the cluster's best hit: its key
	Score   float64  `json:"s"`
	Date    string   `json:"d,omitempty"` // by date: the best hit's date key
	Relaxed bool     `json:"r,omitempty"` // the best hit holds only some of the words
	ByDate  bool     `json:"o,omitempty"`
	Omitted bool     `json:"f,omitempty"`
}

// encode returns the cursor as a URL-safe token.
func (c cursor) encode() string {
	b, _ := json.Marshal(c) // a struct of strings, numbers and booleans
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeCursor reads a token of encode.
func decodeCursor(token string) (cursor, error) {
	var c cursor
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil || c.Page < 1 || c.Cluster == "" || c.Entry < 0 {
		return cursor{}, fmt.Errorf("%w: %q is no cursor of a result page", ErrCursor, token)
	}
	return c, nil
}

// maxAnchors is how many clusters of a page a cursor names.
const maxAnchors = 5

// cursorAt returns the cursor after the clusters page (the last one's
// rep b) on page p.
func cursorAt(p int, page []string, b *rep, byDate bool) cursor {
	last := len(page) - 1
	return cursor{Page: p, Cluster: page[last], Before: slices.Clone(page[max(0, last-maxAnchors+1):last]), ID: b.id, Score: b.score,
		Date: b.date, Relaxed: b.relaxed, ByDate: byDate}
}

// after reports whether a cluster of rep b ranks after the cursor's: by
// date (newest first, undated last) if sorted by date, else those holding
// every word first; then by score, then by id, as hits are ordered.
func (c cursor) after(b *rep) bool {
	k := 0 // below 0: the cursor's cluster comes first
	switch {
	case c.ByDate && missing(c.Date) != missing(b.date):
		k = 1
		if missing(b.date) {
			k = -1
		}
	case c.ByDate:
		k = strings.Compare(b.date, c.Date)
	case c.Relaxed != b.relaxed:
		k = 1
		if b.relaxed {
			k = -1
		}
	}
	return cmp.Or(k, cmp.Compare(b.score, c.Score), strings.Compare(c.ID, b.id)) < 0
}

// missing reports whether a date sort key is that of an undated hit.
func missing(key string) bool { return key == "" || key == search.HighTerm || key == search.LowTerm }

// A pager finds a request's page in the clusters of a result in rank
// order: by its number, or after its cursor.
type pager struct {
	page, size int
	after      *cursor
}

// newPager returns r's pager; the page of a cursor is the one after it.
func newPager(r Request) (pager, error) {
	p := pager{page: r.Page, size: r.Size}
	if r.After == "" {
		return p, nil
	}
	c, err := decodeCursor(r.After)
	if err != nil {
		return p, err
	}
	if c.ByDate != r.ByDate || c.Omitted != r.Omitted {
		return p, fmt.Errorf("%w: it is of another order or listing than this search", ErrCursor)
	}
	p.after, p.page = &c, c.Page+1
	return p, nil
}

// need is how many clusters in rank order a search should look for
// first: the page's and the one after it (to know there is a next page).
func (p pager) need() int { return p.page*p.size + 1 }

// done reports whether a search whose window has grown to window hits
// should stop looking for a cursor's cluster: at 8 times the first
// window (as if the result had grown that much before it), so a cursor
// that claims a shallow page for a deep cluster costs no more.
func (p pager) done(window int) bool {
	return p.after != nil && window >= 8*max(3*p.need(), 30)
}

// start returns the index in order of the page's first cluster, and
// whether order reaches it: (page−1)·size; after a cursor, just after its
// cluster if order has it, else the first cluster ranked after its key
// (ok false if none is: a longer order may hold it).
func (p pager) start(order []string, best map[string]*rep) (int, bool) {
	if p.after == nil {
		return (p.page - 1) * p.size, true
	}
	anchors := append(slices.Clone(p.after.Before), p.after.Cluster)
	for j := len(anchors) - 1; j >= 0; j-- {
		if i := slices.Index(order, anchors[j]); i >= 0 {
			return i + 1, true
		}
	}
	for i, c := range order {
		if p.after.after(best[c]) {
			return i, true
		}
	}
	return len(order), false
}

// enough reports whether order holds the page and one cluster after it.
func (p pager) enough(order []string, best map[string]*rep) bool {
	lo, ok := p.start(order, best)
	return ok && len(order) > lo+p.size
}

// fills reports whether order holds the whole page.
func (p pager) fills(order []string, best map[string]*rep) bool {
	lo, ok := p.start(order, best)
	return ok && len(order) >= lo+p.size
}
