package crawler

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sync"

	"github.com/doppel-search/doppel/crawler/admit"
	"github.com/doppel-search/doppel/crawler/clean"
	"github.com/doppel-search/doppel/crawler/polite"
)

// maxStylesPerHost is the most stylesheets a crawl fetches of one host
// for their print rules (clean.StyleSource). Which sheets a crawl reads
// past the bound depends on which pages came first, and with them the
// text of the pages that link the sheets left unread: the bound is a
// guard against a host that makes a sheet per page, set above what a
// site's pages share. Rust's documentation links 109 on one host (its
// API reference's, and each of its books' own); at 8, the rustdoc sheet
// that hides a page's version and source link in print was read in
// some crawls and not in others, and their clusters differed
// (docs/measurements.md, issue 41).
const maxStylesPerHost = 256

// styles fetches the stylesheets pages link on their own host, read for
// their print rules (clean.PrintHidden): each at most once per crawl,
// its failure included, at most maxStylesPerHost per host and
// clean.MaxStyleBytes each, with the crawl's client and User-Agent, as
// robots.txt allows. Each is a request like a page's: it waits for a
// request slot of its host and its delay (the crawl's politeness), goes
// through a shared frontier's gate, and is counted against the page
// budget (Options.MaxPages) — none is made once the budget is spent. It
// is safe for concurrent use.
type styles struct {
	opts   *Options
	admit  *admit.Admission
	pacer  *polite.Pacer
	client *http.Client
	// spend takes one request of the page budget, false if none is left.
	spend  func() bool
	mu     sync.Mutex
	host   map[string]int
	sheets map[string]*styleSheet
}

type styleSheet struct {
	once sync.Once
	body []byte
}

func newStyles(opts *Options, adm *admit.Admission, pacer *polite.Pacer, turns hostTurns, spend func() bool) *styles {
	client := opts.client(opts.Timeout, nil, func(base http.RoundTripper) http.RoundTripper {
		return turns.wrap(polite.Transport{Base: base, Pacer: pacer}, false)
	})
	return &styles{opts: opts, admit: adm, pacer: pacer, client: client, spend: spend,
		host: map[string]int{}, sheets: map[string]*styleSheet{}}
}

// source returns s as a clean.StyleSource.
func (s *styles) source() clean.StyleSource { return s.get }

// get returns the stylesheet at u, fetched the first time it is asked
// for; nil if it is not http(s), over its host's bound, not allowed,
// or not answered with 200.
func (s *styles) get(u *url.URL) []byte {
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil
	}
	key := u.String()
	s.mu.Lock()
	sheet := s.sheets[key]
	if sheet == nil {
		if s.host[u.Host] >= maxStylesPerHost {
			if s.host[u.Host] == maxStylesPerHost {
				s.host[u.Host]++ // said once a host
				slog.Warn("crawler: a host links more stylesheets than a crawl reads; the print rules of those past the bound are not read, so the text of the pages that link them depends on the order pages arrive in",
					"host", u.Host, "bound", maxStylesPerHost)
			}
			s.mu.Unlock()
			return nil
		}
		s.host[u.Host]++
		sheet = &styleSheet{}
		s.sheets[key] = sheet
	}
	s.mu.Unlock()
	sheet.once.Do(func() { sheet.body = s.fetch(key) })
	return sheet.body
}

// fetch gets one stylesheet, at most clean.MaxStyleBytes of it, with a
// request slot of its host and a request of the budget.
func (s *styles) fetch(u string) []byte {
	if s.admit != nil && !s.admit.Allowed(u) {
		return nil
	}
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.Timeout)
	defer cancel()
	if s.pacer.Acquire(ctx, req.URL.Host) != nil {
		return nil
	}
	defer s.pacer.Release(req.URL.Host)
	if s.spend != nil && !s.spend() {
		return nil
	}
	req = req.WithContext(ctx)
	req.Header.Set("User-Agent", s.opts.UserAgent)
	resp, err := s.client.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, clean.MaxStyleBytes))
	if err != nil {
		return nil
	}
	return body
}
