package hook

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/gocolly/colly/v2"

	"github.com/doppel-search/doppel/crawler/clean"
	"github.com/doppel-search/doppel/crawler/pages"
)

// maxAnchors is the most distinct anchor texts Attach keeps for a URL.
const maxAnchors = 32

// Attach makes a Hook (New) and registers it on col (Hook.Attach): every
// response col receives is processed on ctx. Call Flush when the crawl is
// done, and Err to learn whether every page went through.
func Attach(ctx context.Context, col *colly.Collector, opts Options) (*Hook, error) {
	h, err := New(opts)
	if err != nil {
		return nil, err
	}
	h.Attach(ctx, col)
	return h, nil
}

// Attach registers h's callbacks on col, to run on ctx (once ctx is done,
// responses are no longer processed and Err returns ctx's error). Call it
// before col visits anything; it may be called again with another
// collector (the next night's, or a clone), and the same pages go on
// through the same detector and index:
//
//   - A response of a URL the detector holds is a new version of the page
//     (Put: Update); other responses are inserted.
//   - A 404 or 410 removes the page (Remove), as does a response that is
//     now skipped (noindex, a redirect stub, not HTML) for a page held.
//   - A <meta http-equiv=refresh> stub is followed like an HTTP redirect
//     (colly's Request.Visit, under col's rules: allowed domains, depth,
//     revisits), then reported to OnSkip.
//   - The anchor texts of the links of every page processed are learned
//     (at most 32 distinct texts a target, those AnchorCarries lets
//     through Options.Groups) and given to Prepare with the target when it
//     is processed: colly visits a link after the page with it was
//     processed, so a page gets the texts of the links that led to it.
//   - Without Options.Source, h keeps the latest version of every page it
//     processes in memory, which Update and Remove read when a change
//     moves another page (the index needs the master elected when a
//     master leaves: give indexer.Options.Source h.SourceDoc); with a
//     Source, nothing is kept.
//
// Errors go to Options.OnError (default: logged) and the first to Err;
// skips go to Options.OnSkip. A collector revisits a URL only with
// AllowURLRevisit set, or as a new collector (colly.NewCollector, or
// col.Clone()) attached to h.
func (h *Hook) Attach(ctx context.Context, col *colly.Collector) {
	h.mu.Lock()
	if h.links == nil {
		h.links = newLinkState(nil)
		if h.opts.Source == nil {
			h.links.pages = map[string]Page{}
			h.opts.Source = h.links.page
		}
	}
	h.mu.Unlock()
	col.OnResponse(func(r *colly.Response) { h.respond(ctx, r) })
	col.OnError(func(r *colly.Response, _ error) {
		if r != nil && r.Request != nil && gone(r.StatusCode) {
			h.gone(ctx, r.Request.URL.String())
		}
	})
}

// Err returns the first error Attach's callbacks met (also given to
// Options.OnError) or Flush returned, or nil: a crawl whose Err is nil
// processed every response it did not skip, and Flush wrote it.
func (h *Hook) Err() error {
	h.errMu.Lock()
	defer h.errMu.Unlock()
	return h.err
}

// gone reports whether an HTTP status says the page is no more.
func gone(status int) bool { return status == http.StatusNotFound || status == http.StatusGone }

// respond processes one of Attach's responses.
func (h *Hook) respond(ctx context.Context, r *colly.Response) {
	u := r.Request.URL.String()
	if err := ctx.Err(); err != nil {
		h.fail(u, err)
		return
	}
	switch {
	case gone(r.StatusCode): // with ParseHTTPErrorResponse
		h.gone(ctx, u)
		return
	case r.StatusCode >= 300:
		h.skipped(ctx, r, u, &SkipError{Reason: fmt.Sprintf("HTTP status %d", r.StatusCode)})
		return
	}
	header := http.Header{}
	if r.Headers != nil {
		header = *r.Headers
	}
	parsed, err := h.Parse(u, header, r.Body)
	if err != nil {
		h.skipped(ctx, r, u, err)
		return
	}
	anchors, err := h.links.learn(u, parsed.Links, h.opts.Groups)
	if err != nil {
		h.fail(u, err)
		return
	}
	prep, err := h.Prepare(u, header, parsed, anchors)
	if err == nil {
		_, err = h.Put(ctx, prep)
	}
	if err != nil {
		h.fail(u, err)
	}
}

// skipped handles a response not processed: it follows a refresh stub's
// target, removes a page the detector held, and tells OnSkip. An error
// that is no SkipError is a failure.
func (h *Hook) skipped(ctx context.Context, r *colly.Response, u string, err error) {
	var skip *SkipError
	if !errors.As(err, &skip) {
		h.fail(u, err)
		return
	}
	if _, held := h.opts.Detector.Fingerprint(u); held && !h.opts.NoDedup {
		if _, err := h.Remove(ctx, u); err != nil {
			h.fail(u, err)
		}
	}
	if skip.Location != "" {
		// Refused visits (already visited, another domain) are the
		// collector's rules at work, as for an HTTP redirect.
		_ = r.Request.Visit(skip.Location)
	}
	if h.opts.OnSkip != nil {
		h.opts.OnSkip(u, err)
	}
}

// gone removes the page of a URL that answered 404 or 410, if the hook
// may have it: under NoDedup it cannot tell, and asks the index.
func (h *Hook) gone(ctx context.Context, u string) {
	if err := ctx.Err(); err != nil {
		h.fail(u, err)
		return
	}
	if _, held := h.opts.Detector.Fingerprint(u); !held && !h.opts.NoDedup {
		return
	}
	if _, err := h.Remove(ctx, u); err != nil {
		h.fail(u, err)
	}
}

// fail reports an error of Attach's callbacks: the first is Err's, each
// goes to OnError (default: logged, with the URL's password redacted).
// Once the context is done, its error is reported once, not for every
// response after.
func (h *Hook) fail(u string, err error) {
	first := h.setErr(err)
	h.errMu.Lock()
	repeat := !first && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) && errors.Is(h.err, err)
	h.errMu.Unlock()
	switch {
	case repeat:
	case h.opts.OnError != nil:
		h.opts.OnError(u, err)
	default:
		log.Printf("hook: %s: %v", redacted(u), err)
	}
}

// setErr makes err Err's if Err has none, and reports whether it did.
func (h *Hook) setErr(err error) bool {
	h.errMu.Lock()
	defer h.errMu.Unlock()
	if h.err != nil {
		return false
	}
	h.err = err
	return true
}

// redacted returns u with its password, if any, replaced by "xxxxx".
func redacted(u string) string {
	pu, err := url.Parse(u)
	if err != nil {
		return "(unparsable URL)"
	}
	return pu.Redacted()
}

// linkState is what Attach learns of the pages' links (anchors, under mu)
// and, without Options.Source, the pages it keeps (pages; nil with a
// Source). A hook with a state directory (Open) reads the anchor texts
// an earlier process learned for a URL (stored) before it learns more for
// it, and saves those learned since (dirty) at Flush.
type linkState struct {
	mu      sync.Mutex
	anchors map[string][]string
	pages   map[string]Page
	stored  func(url string) ([]string, error)
	loaded  map[string]bool
	dirty   map[string]bool
}

// newLinkState returns an empty linkState that reads the anchor texts
// of earlier processes from stored (nil: none).
func newLinkState(stored func(url string) ([]string, error)) *linkState {
	return &linkState{anchors: map[string][]string{}, stored: stored, loaded: map[string]bool{}, dirty: map[string]bool{}}
}

// load reads the stored anchor texts of u, once; l.mu is held.
func (l *linkState) load(u string) error {
	if l.stored == nil || l.loaded[u] {
		return nil
	}
	texts, err := l.stored(u)
	if err != nil {
		return err
	}
	l.anchors[u] = append(texts, l.anchors[u]...)
	l.loaded[u] = true
	return nil
}

// learn adds the anchor texts of the links of page from to their targets'
// (at most maxAnchors distinct texts a target), where AnchorCarries lets
// them through groups, and returns those of from.
func (l *linkState) learn(from string, links []clean.Link, groups func(string) []string) ([]string, error) {
	src := groups(from)
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, k := range links {
		text := strings.TrimSpace(k.Text)
		if text == "" || k.URL == from || !AnchorCarries(src, groups(k.URL)) {
			continue
		}
		if err := l.load(k.URL); err != nil {
			return nil, err
		}
		if have := l.anchors[k.URL]; len(have) < maxAnchors && !slices.ContainsFunc(have, func(x string) bool { return strings.EqualFold(x, text) }) {
			l.anchors[k.URL] = append(have, text)
			l.dirty[k.URL] = true
		}
	}
	if err := l.load(from); err != nil {
		return nil, err
	}
	return slices.Clone(l.anchors[from]), nil
}

// save adds the anchor texts learned since the last save to b.
func (l *linkState) save(b *pages.Batch) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for u := range l.dirty {
		b.AddAnchors(u, l.anchors[u]...)
	}
	clear(l.dirty)
}

// page is a PageSource of the pages kept.
func (l *linkState) page(u string) (Page, bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	p, ok := l.pages[u]
	return p, ok, nil
}

// keep keeps p as the latest version of its page, if Attach keeps pages.
func (h *Hook) keep(p Page) {
	if l := h.links; l != nil && l.pages != nil {
		l.mu.Lock()
		l.pages[p.URL] = p
		l.mu.Unlock()
	}
}

// forget drops the page kept for u.
func (h *Hook) forget(u string) {
	if l := h.links; l != nil && l.pages != nil {
		l.mu.Lock()
		delete(l.pages, u)
		l.mu.Unlock()
	}
}
