package ranking

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/blevesearch/bleve/v2/search"
)

// ErrCursor means Request.After is no cursor of this search: not one
// Result.Cursor gave, or one of another order or listing.
var ErrCursor = errors.New("invalid cursor")

// A cursor is where a page ended (Result.Cursor), as Elasticsearch's
// search_after: the last clusters on it (the last one's date, when sorted
// by date) and how many results came before the next page. The next page
// starts after the last of those clusters the result still has — so
// clusters added, removed or rescored before it shift nothing — and if it
// has none, by date before the first cluster older than the cursor's
// date, else where the next page would start by number. It holds no
// score: scores follow the whole index's term counts, pages a user may
// not see included.
type cursor struct {
	Page    int    `json:"p"`           // the page it ends
	Rank    int    `json:"n"`           // the results up to the end of that page
	Cluster string `json:"c"`           // the last cluster on it
	Entry   int    `json:"e,omitempty"` // Omitted: the entries of the cluster listed so far, less one
	// Before are the clusters before it on the page, the nearest last (at
	// most maxAnchors−1): where Cluster is gone, the page starts after
	// the nearest of them still there.
	Before  []string `json:"b,omitempty"`
	Date    string   `json:"d,omitempty"` // by date: the cluster's date key
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
	if err != nil || c.Page < 1 || c.Rank < 0 || c.Cluster == "" || c.Entry < 0 || len(c.Before) >= maxAnchors {
		return cursor{}, fmt.Errorf("%w: after= takes the cursor of a result page", ErrCursor)
	}
	return c, nil
}

// maxAnchors is how many clusters of a page a cursor names.
const maxAnchors = 5

// cursorAt returns the cursor after the clusters page (the last one's
// rep b), which end page p at rank n.
func cursorAt(p, n int, page []string, b *rep, byDate bool) cursor {
	last := len(page) - 1
	return cursor{Page: p, Rank: n, Cluster: page[last], Before: slices.Clone(page[max(0, last-maxAnchors+1):last]), Date: b.date, ByDate: byDate}
}

// older reports whether a cluster of rep b is older than the cursor's,
// sorted by date (undated last); false when the cursor's is undated.
func (c cursor) older(b *rep) bool {
	return c.ByDate && !missing(c.Date) && (missing(b.date) || b.date < c.Date)
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
// whether order reaches it: (page−1)·size; after a cursor, just after the
// last of its clusters that order has, else by date the first cluster
// older than its own, else its rank (ok false if order does not reach
// it: a longer order may).
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
		if p.after.older(best[c]) {
			return i, true
		}
	}
	if p.after.ByDate && !missing(p.after.Date) {
		return len(order), false
	}
	return p.after.Rank, len(order) > p.after.Rank
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
