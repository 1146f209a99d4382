// Package web serves Doppel's search: an HTML UI (search page with
// collapsed results, cluster pages with a "what differs" view, a status
// page) and a JSON API, as one http.Handler. Every page and answer is
// filtered by the requesting user's access groups (package ranking), and
// every string is escaped by html/template or encoding/json.
//
// Who the user is: with Options.GroupsHeader set, the user's groups are
// read from that request header (comma-separated), which a reverse proxy
// in front of Doppel sets after authenticating the user. The header is
// honoured only from Options.TrustedProxies (by default none: the
// proxy's address must be given, loopback included); from any other peer
// it is ignored and the request is anonymous. A request carrying the header more than
// once is refused (400): a proxy that appends its header to the client's
// must not let the client's win. Otherwise, with Options.DemoUsers, the
// visitor picks a demo user (the "user" query parameter, remembered in a
// cookie). Otherwise everybody is anonymous and sees public documents
// only. The status page, /api/stats and /metrics count every document:
// they are for Options.AdminGroups, nobody else (or for an administrators'
// listener, Server.AdminHandler).
//
// What one client may cost: every search, cluster, document and diff
// request takes a slot of package limiter (Options.Limits: a few per
// client, some more in all; over them, 429 or 503 with Retry-After; a
// client that asks for more than its share is served last, and its
// further refusals come after a second), runs under Options.Timeout (past
// it, 503), and may carry parameters of at most Options.MaxQueryBytes
// (longer: 414, never echoed).
// Queries are bounded by package ranking (Options.Timeout, MaxTerms) and
// diffs by package worddiff. HTTPServer returns an http.Server with the
// connection limits to match.
package web

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"log/slog"
	"maps"
	"math"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/doppel-search/doppel/crawler/fleet"
	"github.com/doppel-search/doppel/crawler/report"
	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/internal/lang"
	"github.com/doppel-search/doppel/page/sitename"
	"github.com/doppel-search/doppel/ranking"
	"github.com/doppel-search/doppel/web/limiter"
	"github.com/doppel-search/doppel/web/worddiff"
)

//go:embed templates/*.html
var templateFS embed.FS

// A DemoUser is a user the demo lets visitors act as.
type DemoUser struct {
	Name   string   `json:"name"`
	Groups []string `json:"groups"`
}

// Status is what the status page and /api/stats show.
type Status struct {
	Documents    int         `json:"documents"`     // pages fetched
	Searchable   int         `json:"searchable"`    // documents in the index that can be results
	Clusters     int         `json:"clusters"`      // near-duplicate clusters
	Duplicates   int         `json:"duplicates"`    // pages in a cluster they do not master
	Skipped      int         `json:"skipped"`       // near-duplicates not indexed (policy skip)
	Queued       int         `json:"queued"`        // URLs waiting in the crawl frontier
	Errors       int         `json:"errors"`        // URLs that failed
	Gone         int         `json:"gone"`          // pages deleted since they were fetched (404, 410 on a revisit)
	ClusterSizes map[int]int `json:"cluster_sizes"` // cluster size → clusters
	Hamming      map[int]int `json:"hamming"`       // SimHash distance member–master → members

	// Crawl is the crawl running in this process (its hosts and its
	// course); nil over a crawl that is not running.
	Crawl *Crawl `json:"crawl,omitempty"`

	// Workers are the workers crawling together on a Redis Cluster
	// (package fleet: up, left or lost, with their counters) and Fleet
	// what they did as a whole; empty without one.
	Workers []fleet.Worker `json:"workers,omitempty"`
	Fleet   *fleet.Report  `json:"fleet,omitempty"`
}

// Options configures a Server. The zero value means the defaults.
type Options struct {
	// GroupsHeader is the request header carrying the user's access
	// groups, comma-separated (e.g. "X-Doppel-Groups"), set by a reverse
	// proxy of TrustedProxies. Empty: no header is read.
	GroupsHeader string `json:"groups_header" flag:"groups-header" help:"request {header} with the user's access groups, comma-separated, set by your reverse proxy (believed only from --trusted-proxies)"`
	// TrustedProxies are the peers (addresses, or networks in CIDR
	// notation) whose GroupsHeader and X-Forwarded-For are believed; from
	// any other peer GroupsHeader is ignored (the request is anonymous:
	// public documents only) and counted in Stats.UntrustedIdentity.
	// Default: none — no peer is believed, not even loopback: any local
	// process could otherwise forge a user's groups or an address for
	// the per-client limits.
	TrustedProxies []netip.Prefix `json:"trusted_proxies" flag:"trusted-proxies" help:"comma-separated {addresses} and CIDR networks of the reverse proxies whose --groups-header and X-Forwarded-For are believed (default: none; 127.0.0.1 for a proxy on this host)"`
	// DemoUsers, when GroupsHeader is empty, lets visitors pick a user;
	// the first is the default.
	DemoUsers []DemoUser `json:"demo_users" flag:"demo-users" help:"selectable demo {users}, e.g. \"guest=;alice=hr,it\" (ignored with --groups-header; only on a loopback address unless --demo-users-anywhere)"`
	// Status returns the status page's numbers; nil shows only what the
	// index knows.
	Status func() Status `json:"-"`
	// Duplicates returns the crawl's duplicates report, shown to
	// administrators at /status/duplicates (package crawler/report); nil:
	// that page answers 404.
	Duplicates func() (*report.Report, error) `json:"-"`
	// Metrics are more collectors to serve on /metrics, such as a running
	// crawl's (package crawler/crawlmetrics). Default: none.
	Metrics []prometheus.Collector `json:"-"`
	// Text returns the full text of a document, near-duplicates that were
	// not indexed included, for the "what differs" view; nil falls back to
	// the index (indexed documents only).
	Text func(id string) (string, bool) `json:"-"`
	// ContainedIn returns, for a document that is a part of a larger one
	// (a chapter of the book that holds it, kept apart by the detector:
	// crawler.View.ContainedIn), the larger one's id and cluster; the
	// cluster and what-differs pages say "contained in" it to a user who
	// may see it. nil: never.
	ContainedIn func(id string) (in, inCluster string, ok bool) `json:"-"`
	// SiteNames returns the site name ending each host's titles (package
	// page/sitename): the result list and the cluster page show titles
	// without it; the index keeps them whole. nil: titles as indexed.
	SiteNames func() *sitename.Names `json:"-"`
	// Changed takes a change notification (POST /api/changed, for
	// administrators) for a crawl running in this process: it makes
	// each URL due now and says what it did with each. nil: the
	// endpoint answers 404. An error wrapping ErrBadNotification is
	// answered 400 with its text.
	Changed func(urls []string) ([]ChangedURL, error) `json:"-"`
	// AdminGroups may see the status page, /api/stats and /metrics, whose
	// counts and charts cover every document, access-controlled ones
	// included, and send change notifications (POST /api/changed).
	// Default: nobody (serve them with AdminHandler on an
	// administrators' listener instead).
	AdminGroups []string `json:"admin_groups" flag:"admin-groups" sep:"," help:"comma-separated {groups} that may see the status page, /api/stats and /metrics (default: nobody; see --admin-addr)"`
	// Timeout bounds the work of one request (searches, member lists, a
	// diff): past it the request answers 503. Default 3s; the searches
	// themselves stop at ranking.Options.Timeout.
	Timeout time.Duration `json:"timeout"`
	// MaxQueryBytes is the longest parameter value (the query, a host, a
	// cluster or document id) and path a request may have; longer ones are
	// refused with 414 and not echoed. Plain queries are cut further, at
	// ranking.Options.MaxQueryBytes. Default 4096.
	MaxQueryBytes int `json:"max_query_bytes"`
	// Limits bounds the requests worked on at once, in all and per
	// client, and says how greedy clients are slowed down (see package
	// limiter for the defaults).
	Limits limiter.Options `json:"-"`
	// Diff configures the "what differs" comparisons and their cache (see
	// package worddiff for the defaults).
	Diff worddiff.CacheOptions `json:"-"`
	// Logger receives request errors. Default slog.Default().
	Logger *slog.Logger `json:"-"`
	// Fetched returns when the page at a URL was fetched, zero if
	// unknown: a hit without a date of its own shows it. Default: none.
	Fetched func(url string) time.Time `json:"-"`
	// Links map the results of file shares (file://, smb:// URLs) to the
	// addresses people open them at; by default such a result keeps its
	// URL as its link, with a "copy path" button.
	Links []ShareLink `json:"links" flag:"link-map" help:"open results under a file share's URL {PREFIX=TARGET}: TARGET an http(s):// file server prefix or a \\\\server\\share\\ path, e.g. file:///srv/share/=\\\\fs1\\share\\ (repeat for each share; default: the file:// or smb:// link with a copy-path button)"`
}

// EnsureDefaults sets every zero field to its default (each field's doc
// says which) and returns o.
func (o *Options) EnsureDefaults() *Options {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Timeout <= 0 {
		o.Timeout = 3 * time.Second
	}
	if o.MaxQueryBytes <= 0 {
		o.MaxQueryBytes = 4096
	}
	o.Limits.EnsureDefaults()
	o.Diff.Diff.EnsureDefaults()
	return o
}

// Stats are a Server's counters since New (also in /metrics).
type Stats struct {
	Limiter           limiter.Stats  // requests admitted and refused (429, 503)
	Diff              worddiff.Stats // "what differs" comparisons
	Timeouts          uint64         // requests stopped at Options.Timeout or ranking's (503)
	TooLong           uint64         // requests refused for a parameter over Options.MaxQueryBytes (414)
	TooBroad          uint64         // queries refused as ranking.ErrTooBroad (400)
	RepeatedIdentity  uint64         // requests refused for a repeated GroupsHeader (400)
	UntrustedIdentity uint64         // requests whose GroupsHeader came from an untrusted peer and was ignored
}

// A Server is the search UI and API. Create it with New.
type Server struct {
	s        *ranking.Searcher
	opts     Options
	mux      *http.ServeMux
	admin    *http.ServeMux // AdminHandler's
	tmpl     *template.Template
	limiter  *limiter.Limiter
	diffs    *worddiff.Cache
	registry *prometheus.Registry
	queries  *prometheus.CounterVec
	latency  *prometheus.HistogramVec

	timeouts, tooLong, tooBroad, repeated, untrusted atomic.Uint64
}

// New returns a Server over s.
func New(s *ranking.Searcher, opts Options) (*Server, error) {
	opts.EnsureDefaults()
	tmpl, err := template.New("").Funcs(template.FuncMap{
		"add":   func(a, b int) int { return a + b },
		"upper": strings.ToUpper,
		"date": func(t time.Time) string {
			if t.IsZero() {
				return ""
			}
			return t.Format("2 Jan 2006")
		},
		"bars":         bars,
		"thousands":    thousands,
		"pathEscape":   url.PathEscape,
		"open":         opener(opts.Links),
		"crumbs":       crumbs,
		"hitDate":      hitDate(opts.Fetched),
		"displayTitle": displayTitle(opts.SiteNames),
		"chartHeight":  func(n int) int { return max(22*n, 22) },
		"timeline":     timeline,
		"visit":        func(at time.Time) string { return visit(at, time.Now()) },
	}).ParseFS(templateFS, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("web: templates: %w", err)
	}
	srv := &Server{s: s, opts: opts, mux: http.NewServeMux(), admin: http.NewServeMux(), tmpl: tmpl,
		limiter: limiter.New(opts.Limits), diffs: worddiff.NewCache(opts.Diff), registry: prometheus.NewRegistry()}
	if err := srv.registerMetrics(); err != nil {
		return nil, err
	}
	srv.routes()
	return srv, nil
}

// Stats returns the counters.
func (srv *Server) Stats() Stats {
	return Stats{Limiter: srv.limiter.Stats(), Diff: srv.diffs.Stats(), Timeouts: srv.timeouts.Load(),
		TooLong: srv.tooLong.Load(), TooBroad: srv.tooBroad.Load(), RepeatedIdentity: srv.repeated.Load(),
		UntrustedIdentity: srv.untrusted.Load()}
}

func (srv *Server) routes() {
	// Work that reads the index takes a slot and runs under the deadline.
	srv.mux.Handle("GET /{$}", srv.limited(srv.searchPage))
	srv.mux.Handle("GET /cluster/{id}", srv.limited(srv.clusterPage))
	srv.mux.Handle("GET /diff/{id}", srv.limited(srv.diffPage))
	srv.mux.Handle("GET /api/search", srv.limited(srv.apiSearch))
	srv.mux.Handle("GET /api/cluster/{id}", srv.limited(srv.apiCluster))
	srv.mux.Handle("GET /api/suggest", srv.limited(srv.apiSuggest))
	srv.mux.Handle("GET /api/doc/{id}", srv.limited(srv.apiDoc))
	srv.mux.Handle("GET /api/diff/{id}", srv.limited(srv.apiDiff))
	srv.mux.HandleFunc("GET /healthz", healthz)
	srv.mux.HandleFunc("GET /opensearch.xml", srv.openSearchPage)
	srv.mux.HandleFunc("GET /suggest.js", suggestScript)
	srv.mux.HandleFunc("GET /page.js", pageScript)
	metrics := promhttp.HandlerFor(srv.registry, promhttp.HandlerOpts{})
	for path, h := range map[string]http.Handler{
		"GET /status":            http.HandlerFunc(srv.statusPage),
		"GET /api/stats":         http.HandlerFunc(srv.apiStats),
		"GET /status/duplicates": http.HandlerFunc(srv.duplicatesPage),
		"GET /metrics":           metrics,
		"POST /api/changed":      http.HandlerFunc(srv.apiChanged),
	} {
		srv.admin.Handle(path, h)
		srv.mux.Handle(path, srv.adminOnly(h))
	}
	srv.admin.HandleFunc("GET /healthz", healthz)
	// The administrators' pages have the search box too: on the
	// administrators' listener it searches as a visitor with no groups
	// (public documents only), rather than answering 404.
	srv.admin.Handle("GET /{$}", srv.limited(srv.searchPage))
	srv.admin.Handle("GET /cluster/{id}", srv.limited(srv.clusterPage))
	srv.admin.Handle("GET /diff/{id}", srv.limited(srv.diffPage))
	srv.admin.Handle("GET /api/suggest", srv.limited(srv.apiSuggest))
	srv.admin.HandleFunc("GET /suggest.js", suggestScript)
	srv.admin.HandleFunc("GET /page.js", pageScript)
}

func healthz(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok\n") }

// ServeHTTP implements http.Handler.
func (srv *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	securityHeaders(w)
	if r.URL.Path == "/healthz" {
		srv.mux.ServeHTTP(w, r)
		return
	}
	if name, n := srv.tooLongParam(r); name != "" {
		srv.tooLong.Add(1)
		srv.refuse(w, r, http.StatusRequestURITooLong, fmt.Sprintf("The %s is too long (%d bytes; at most %d).", name, n, srv.opts.MaxQueryBytes))
		return
	}
	u, err := srv.identify(w, r)
	if err != nil {
		msg := err.Error()
		if rep, ok := errors.AsType[*repeatedHeader](err); ok {
			msg = rep.message()
		}
		srv.refuse(w, r, http.StatusBadRequest, msg)
		return
	}
	srv.mux.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), userKey{}, u)))
}

// AdminHandler returns a handler for an administrators' listener (on a
// loopback address, say): the status page, /api/stats, /metrics and
// /healthz, with no identity checks, and the search pages for the status
// pages' search box, which show public documents only.
func (srv *Server) AdminHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		securityHeaders(w)
		if name, n := srv.tooLongParam(r); name != "" {
			srv.tooLong.Add(1)
			srv.refuse(w, r, http.StatusRequestURITooLong, fmt.Sprintf("The %s is too long (%d bytes; at most %d).", name, n, srv.opts.MaxQueryBytes))
			return
		}
		srv.admin.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), userKey{}, user{name: "admin", admin: true})))
	})
}

func securityHeaders(w http.ResponseWriter) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:")
}

// request reads a search request from the URL.
func request(r *http.Request, groups []string) (ranking.Request, error) {
	p := params{q: r.URL.Query()}
	req := ranking.Request{Query: p.q.Get("q"), Host: p.q.Get("host"), Groups: groups,
		Languages: lang.Accepted(r.Header.Get("Accept-Language"))}
	req.Syntax = p.syntax()
	req.Page, req.Size = p.positive("page"), p.positive("size")
	req.Since, req.Until = p.date("since"), p.date("until")
	req.Members = p.members()
	req.Section, req.Type, req.Lang, req.Modified = p.q.Get("section"), p.q.Get("type"), p.q.Get("lang"), p.q.Get("modified")
	req.After = p.q.Get("after")
	req.From, req.To = p.date("from"), p.date("to")
	req.Dated = p.choice("dated", "0", "1", false, "0 or 1")
	req.Facets = p.choice("facets", "0", "1", true, "0 or 1")
	req.ByDate = p.choice("sort", "relevance", "date", false, "relevance or date")
	req.Omitted = p.choice("filter", "1", "0", false, "0 (show the omitted near-duplicates) or 1")
	p.unknown()
	if req.Size > 100 {
		p.add(fmt.Errorf("size must be at most 100"))
	}
	if req.Page > maxPage {
		p.add(fmt.Errorf("page must be at most %d", maxPage))
	}
	return req, p.result()
}

// params reads a search request's URL parameters, gathering the
// problems of those that are invalid, in the order they are read.
type params struct {
	q   url.Values
	err error // the problems so far, joined
}

// add adds a problem.
func (p *params) add(err error) { p.err = errors.Join(p.err, err) }

// positive reads a positive number; 0 if absent.
func (p *params) positive(name string) int {
	v := p.q.Get(name)
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		p.add(fmt.Errorf("%s must be a positive number, not %s", name, short(v)))
	}
	return n
}

// date reads a date (2026-03-01); the zero time if absent.
func (p *params) date(name string) time.Time {
	v := p.q.Get(name)
	if v == "" {
		return time.Time{}
	}
	t, err := time.Parse("2006-01-02", v)
	if err != nil {
		p.add(fmt.Errorf("%s must be a date like 2026-03-01, not %s", name, short(v)))
	}
	return t
}

// syntax reads the query syntax (plain or bleve).
func (p *params) syntax() ranking.Syntax {
	syn, err := ranking.ParseSyntax(p.q.Get("syntax"))
	if err != nil {
		p.add(fmt.Errorf("syntax must be plain or bleve, not %s", short(p.q.Get("syntax"))))
	}
	return syn
}

// members reads how many members of a cluster to show, from 0 to
// ranking.MaxMembers; 0 if absent.
func (p *params) members() int {
	v := p.q.Get("members")
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > ranking.MaxMembers {
		p.add(fmt.Errorf("members must be a number from 0 to %d, not %s", ranking.MaxMembers, short(v)))
	}
	return n
}

// choice reads a parameter of two values, off and on: true for on, and
// for an absent one if byDefault; false, and a problem naming the
// values allowed (want), for any other value.
func (p *params) choice(name, off, on string, byDefault bool, want string) bool {
	switch v := p.q.Get(name); v {
	case on:
		return true
	case off:
		return false
	case "":
		return byDefault
	default:
		p.add(fmt.Errorf("%s must be %s, not %s", name, want, short(v)))
		return false
	}
}

// unknown adds a problem naming the first of the parameters (in sorted
// order) that is not a search parameter, and how many more there are.
func (p *params) unknown() {
	var unknown []string
	for name := range p.q {
		if !slices.Contains(searchParams, name) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		return
	}
	slices.Sort(unknown)
	more := ""
	if len(unknown) > 1 {
		more = fmt.Sprintf(" and %d more", len(unknown)-1)
	}
	p.add(fmt.Errorf("unknown parameter %s%s (known: %s)", short(unknown[0]), more, strings.Join(searchParams, ", ")))
}

// result returns the problems (the first maxProblems of them, and how
// many more there are) wrapping errBadRequest; nil if none.
func (p *params) result() error {
	err := p.err
	if es := problems(err); len(es) > maxProblems {
		err = errors.Join(append(es[:maxProblems:maxProblems], fmt.Errorf("and %d more problems", len(es)-maxProblems))...)
	}
	if err != nil {
		err = fmt.Errorf("%w: %w", errBadRequest, err)
	}
	return err
}

// maxProblems is the most problems of a request an error names.
const maxProblems = 3

// problems flattens the errors joined (errors.Join) in err.
func problems(err error) []error {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		if err == nil {
			return nil
		}
		return []error{err}
	}
	var out []error
	for _, e := range j.Unwrap() {
		out = append(out, problems(e)...)
	}
	return out
}

// short quotes the beginning of a value a request sent, at most
// maxQuoted bytes of it: an error's size does not depend on what was
// sent (a value of 4 KiB of invalid bytes quoted whole was 16 kB, every
// parameter so 60 kB).
func short(v string) string {
	if len(v) <= maxQuoted {
		return strconv.Quote(v)
	}
	cut := maxQuoted
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return strconv.Quote(v[:cut]) + "…"
}

// maxQuoted is the most bytes of a value an error quotes.
const maxQuoted = 32

// searchParams are the parameters of a search: a misspelled one is an
// error, not a filter silently ignored.
var searchParams = []string{"q", "syntax", "host", "section", "type", "lang", "modified", "from", "to", "dated", "since", "until",
	"page", "size", "after", "sort", "members", "filter", "facets", "user"}

// filterParams are the search parameters a new query keeps: the
// filters and the order.
var filterParams = []string{"host", "section", "type", "lang", "modified", "from", "to", "dated", "since", "until", "sort", "filter"}

// maxPage is the deepest result page: page p costs a window of 3·p·size
// hits.
const maxPage = 100

// page is the data every template gets.
type page struct {
	Title     string
	Keep      [][2]string // filters a new query keeps (hidden fields of the search form)
	User      string
	Admin     bool // the user may see the status page
	DemoUsers []DemoUser
	Path      string      // for the user switcher: the escaped path
	Params    [][2]string // and the query parameters to keep
	Query     string
	Syntax    string // "bleve" when the query is in bleve's syntax
	Error     string
	Data      any
}

func (srv *Server) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	u := who(r)
	if p.User == "" {
		p.User = u.name
	}
	p.Admin = u.admin
	p.Path = r.URL.EscapedPath()
	for k, vs := range r.URL.Query() {
		if k != "user" {
			for _, v := range vs {
				p.Params = append(p.Params, [2]string{k, v})
			}
		}
	}
	slices.SortFunc(p.Params, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	p.DemoUsers = nil
	if srv.opts.GroupsHeader == "" {
		p.DemoUsers = srv.opts.DemoUsers
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if err := srv.tmpl.ExecuteTemplate(w, name, p); err != nil {
		srv.opts.Logger.Error("rendering", "template", name, "err", err)
	}
}

// searchView is the search page's data.
type searchView struct {
	Result  *ranking.Result
	Start   int                         // rank of the first hit
	Similar map[string][]indexer.Member // cluster → the other visible members
	Prev    string
	Next    string
	Pages   []pageLink // the numbered pages around this one
	// Omitted: the page lists the omitted near-duplicates too (filter=0);
	// Expand links to that listing, Collapse back to one hit per cluster.
	Omitted          bool
	Expand, Collapse string
	// ByDate: sorted by date; SortDate and SortRelevance link to each order.
	ByDate                  bool
	SortDate, SortRelevance string
	// Facets are the result's facets as links that filter by a value;
	// Chips the filters in force, each with a link that drops it.
	Facets []facetView
	Chips  []chip
	// Suggestion is the query with its misspelled words corrected
	// ("Did you mean"), linked by SuggestionLink; "" if none.
	Suggestion, SuggestionLink string
}

// A facetView is a facet shown: its name and values.
type facetView struct {
	Name   string
	Values []facetLink
}

// A facetLink is a facet value with its count and the link that filters
// by it.
type facetLink struct {
	Value, Link string
	Count       int
}

// A chip is a filter in force and the link without it.
type chip struct {
	Name, Value, Drop string
}

// facetLinks returns the facets of a result as links from the query q,
// and the chips of q's filters.
func facetLinks(q url.Values, facets map[string][]ranking.FacetValue) ([]facetView, []chip) {
	link := func(set, drop string, v string) string {
		c := maps.Clone(q)
		c.Del("page")
		c.Del("after")
		if drop != "" {
			c.Del(drop)
		} else {
			c.Set(set, v)
		}
		return "/?" + c.Encode()
	}
	var views []facetView
	for _, name := range ranking.Facets {
		if q.Get(name) != "" || len(facets[name]) < 2 {
			continue // filtered by it already, or nothing to choose
		}
		fv := facetView{Name: name}
		for _, v := range facets[name] {
			fv.Values = append(fv.Values, facetLink{Value: v.Value, Count: v.Count, Link: link(name, "", v.Value)})
		}
		views = append(views, fv)
	}
	var chips []chip
	for _, name := range []string{"host", "section", "type", "lang", "modified", "from", "to", "dated", "since", "until"} {
		if v := q.Get(name); v != "" {
			chips = append(chips, chip{Name: name, Value: v, Drop: link("", name, "")})
		}
	}
	return views, chips
}

func (srv *Server) search(r *http.Request, endpoint string) (*ranking.Result, ranking.Request, error) {
	start := time.Now()
	req, err := request(r, who(r).groups)
	var res *ranking.Result
	if err == nil {
		res, err = srv.s.Search(r.Context(), req)
	}
	srv.latency.WithLabelValues(endpoint).Observe(time.Since(start).Seconds())
	srv.queries.WithLabelValues(endpoint, outcome(err)).Inc()
	return res, req, err
}

// outcome is the metrics label of a request's error.
func outcome(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, ranking.ErrTooBroad):
		return "too_broad"
	case isTimeout(err):
		return "timeout"
	case errors.Is(err, ranking.ErrQuery), errors.Is(err, ranking.ErrQueryTooLong), errors.Is(err, errBadRequest), errors.Is(err, ranking.ErrCursor):
		return "invalid"
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	return "error"
}

func isTimeout(err error) bool {
	return errors.Is(err, ranking.ErrTimeout) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, worddiff.ErrBusy)
}

func (srv *Server) searchPage(w http.ResponseWriter, r *http.Request) {
	p := page{Title: "Search", Query: r.URL.Query().Get("q"), Syntax: r.URL.Query().Get("syntax")}
	for _, name := range filterParams {
		if v := r.URL.Query().Get(name); v != "" {
			p.Keep = append(p.Keep, [2]string{name, v})
		}
	}
	if _, ok := r.URL.Query()["q"]; !ok {
		srv.render(w, r, http.StatusOK, "search.html", p)
		return
	}
	res, req, err := srv.search(r, "search")
	if err != nil {
		srv.pageError(w, r, "search.html", p, err)
		return
	}
	view := searchView{Result: res, Similar: map[string][]indexer.Member{}, Start: (res.Page-1)*res.Size + 1}
	for _, h := range res.Hits {
		if h.Similar == 0 || req.Omitted {
			continue
		}
		ms, err := srv.s.Members(r.Context(), h.Cluster, who(r).groups, ranking.ByRelevance, req.Query)
		if err != nil {
			srv.pageError(w, r, "search.html", p, err)
			return
		}
		view.Similar[h.Cluster] = slices.DeleteFunc(ms, func(m indexer.Member) bool { return m.ID == h.ID })
	}
	link := func(pg int) string {
		v := r.URL.Query()
		v.Del("after")
		v.Set("page", strconv.Itoa(pg))
		return "/?" + v.Encode()
	}
	if res.Page > 1 {
		view.Prev = link(res.Page - 1)
	}
	if res.More && res.Page < maxPage {
		// The next page follows the cursor: it stays in place while
		// the index changes.
		v := r.URL.Query()
		v.Del("after")
		v.Set("page", strconv.Itoa(res.Page+1))
		v.Set("after", res.Cursor)
		view.Next = "/?" + v.Encode()
	}
	view.Pages = pageLinks(res.Page, lastPage(res.Total, res.AtLeast, res.Exact, res.Size, res.Page, res.More), link, view.Next)
	view.Omitted, view.ByDate = req.Omitted, req.ByDate
	view.Facets, view.Chips = facetLinks(r.URL.Query(), res.Facets)
	if sug, _ := srv.suggestion(r, res); sug != "" {
		q := r.URL.Query()
		q.Set("q", sug)
		q.Del("page")
		q.Del("after")
		view.Suggestion, view.SuggestionLink = sug, "/?"+q.Encode()
	}
	order := func(v string) string {
		q := r.URL.Query()
		q.Del("page")
		q.Del("after")
		q.Set("sort", v)
		return "/?" + q.Encode()
	}
	view.SortDate, view.SortRelevance = order("date"), order("relevance")
	filter := func(v string) string {
		q := r.URL.Query()
		q.Del("page")
		q.Del("after")
		q.Set("filter", v)
		if v == "1" {
			q.Del("filter")
		}
		return "/?" + q.Encode()
	}
	if req.Omitted {
		view.Collapse = filter("1")
	} else if slices.ContainsFunc(res.Hits, func(h ranking.Hit) bool { return h.Similar > 0 }) {
		view.Expand = filter("0")
	}
	p.Data = view
	srv.render(w, r, http.StatusOK, "search.html", p)
}

// pageError renders an HTML page with the error, with its status.
func (srv *Server) pageError(w http.ResponseWriter, r *http.Request, name string, p page, err error) {
	status := srv.errorStatus(err)
	srv.count(err)
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	p.Error = srv.errorText(err)
	srv.render(w, r, status, name, p)
}

// count counts a request's error in Stats.
func (srv *Server) count(err error) {
	switch {
	case errors.Is(err, ranking.ErrTooBroad):
		srv.tooBroad.Add(1)
	case isTimeout(err):
		srv.timeouts.Add(1)
	}
}

func (srv *Server) errorText(err error) string {
	switch {
	case errors.Is(err, ranking.ErrQueryTooLong), errors.Is(err, ranking.ErrQuery), errors.Is(err, ranking.ErrTooBroad), errors.Is(err, ranking.ErrCursor):
		return strings.TrimPrefix(err.Error(), "ranking: ")
	case isTimeout(err):
		return fmt.Sprintf("This took too long (over %v) and was stopped; try a more specific query, or again in a moment.", srv.opts.Timeout)
	case errors.Is(err, ranking.ErrNotFound):
		return "Not found."
	case errors.Is(err, errBadRequest):
		return strings.TrimPrefix(err.Error(), errBadRequest.Error()+": ")
	}
	return "Something went wrong; the error is logged."
}

func (srv *Server) errorStatus(err error) int {
	switch {
	case errors.Is(err, ranking.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, ranking.ErrQuery), errors.Is(err, ranking.ErrQueryTooLong), errors.Is(err, ranking.ErrTooBroad),
		errors.Is(err, errBadRequest), errors.Is(err, ranking.ErrCursor):
		return http.StatusBadRequest
	case isTimeout(err):
		return http.StatusServiceUnavailable
	case errors.Is(err, context.Canceled):
		return 499 // the client went away (nginx's code): nobody reads it
	}
	return http.StatusInternalServerError
}

// errBadRequest marks invalid parameters.
var errBadRequest = errors.New("bad request")

// clusterView is the cluster page's data.
type clusterView struct {
	ID      string
	Sort    string
	Members []indexer.Member
	// Contained: for a member that is a part of a larger document the
	// user may see, that document (containedIn), by member id.
	Contained map[string]*indexer.Member
}

func (srv *Server) members(r *http.Request) (clusterView, error) {
	order, err := ranking.ParseOrder(r.URL.Query().Get("sort"))
	if err != nil {
		return clusterView{}, fmt.Errorf("%w: %v", errBadRequest, err)
	}
	id := r.PathValue("id")
	ms, err := srv.s.Members(r.Context(), id, who(r).groups, order, r.URL.Query().Get("q"))
	view := clusterView{ID: id, Sort: r.URL.Query().Get("sort"), Members: ms, Contained: map[string]*indexer.Member{}}
	for _, m := range ms {
		if in, ok := srv.containedIn(r, m.ID); ok {
			view.Contained[m.ID] = &in
		}
	}
	return view, err
}

// containedIn returns the larger document the document id is a part of
// (Options.ContainedIn), if the user may see it: it is looked up among
// the members of its cluster the user may see, so that nothing shows
// what they may not.
func (srv *Server) containedIn(r *http.Request, id string) (indexer.Member, bool) {
	if srv.opts.ContainedIn == nil {
		return indexer.Member{}, false
	}
	in, inCluster, ok := srv.opts.ContainedIn(id)
	if !ok {
		return indexer.Member{}, false
	}
	ms, err := srv.s.Members(r.Context(), inCluster, who(r).groups, ranking.ByRelevance, "")
	if err != nil {
		return indexer.Member{}, false
	}
	for _, m := range ms {
		if m.ID == in {
			return m, true
		}
	}
	return indexer.Member{}, false
}

func (srv *Server) clusterPage(w http.ResponseWriter, r *http.Request) {
	view, err := srv.members(r)
	p := page{Title: "Similar pages", Query: r.URL.Query().Get("q")}
	if err != nil {
		srv.pageError(w, r, "cluster.html", p, err)
		return
	}
	p.Data = view
	srv.render(w, r, http.StatusOK, "cluster.html", p)
}

func (srv *Server) status() Status {
	if srv.opts.Status != nil {
		return srv.opts.Status()
	}
	var st Status
	if n, err := srv.s.Store().SearchableCount(); err == nil {
		st.Searchable = n
	}
	return st
}

const adminOnly = "The status pages, /api/stats and /metrics count every document, access-controlled ones included: they are for administrators."

// adminOnly lets only administrators through to h.
func (srv *Server) adminOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !who(r).admin {
			srv.refuse(w, r, http.StatusForbidden, adminOnly)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func (srv *Server) statusPage(w http.ResponseWriter, r *http.Request) {
	srv.render(w, r, http.StatusOK, "status.html", page{Title: "Status", Data: srv.status()})
}

// JSON API.

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (srv *Server) apiError(w http.ResponseWriter, err error) {
	status := srv.errorStatus(err)
	srv.count(err)
	if status == http.StatusInternalServerError {
		srv.opts.Logger.Error("api request failed", "err", err)
	}
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	writeJSON(w, status, map[string]string{"error": srv.errorText(err)})
}

// relativeScore returns score as a share of top, the score of the
// page's first hit (0 if top is not positive). A tf-idf score is
// multiplied by a query norm computed from every query term's document
// frequency in the whole index — a word only pages the user may not see
// hold weighs in it, a word no page holds does not — so an absolute
// score told a guest whether such a word exists. The norm is one factor
// for every hit of a search, and the share cancels it; rounded to six
// decimals, so that the last bits of the floating-point division, where
// the norm still shows, do not.
func relativeScore(score, top float64) float64 {
	if top <= 0 {
		return 0
	}
	return math.Round(score/top*1e6) / 1e6
}

// apiHit is a search result in the JSON API.
type apiHit struct {
	ranking.Hit
	Snippet     string `json:"snippet"`
	SnippetHTML string `json:"snippet_html"`
}

func (srv *Server) apiSearch(w http.ResponseWriter, r *http.Request) {
	res, _, err := srv.search(r, "api")
	if err != nil {
		srv.apiError(w, err)
		return
	}
	hits := make([]apiHit, 0, len(res.Hits))
	top := 0.0
	if len(res.Hits) > 0 {
		top = res.Hits[0].Score
	}
	for _, h := range res.Hits {
		h.Score = relativeScore(h.Score, top)
		var b strings.Builder
		for _, s := range h.Snippet {
			if s.Match {
				b.WriteString("<mark>" + template.HTMLEscapeString(s.Text) + "</mark>")
			} else {
				b.WriteString(template.HTMLEscapeString(s.Text))
			}
		}
		hits = append(hits, apiHit{Hit: h, Snippet: h.SnippetText(), SnippetHTML: b.String()})
	}
	out := map[string]any{"total": res.Total, "exact": res.Exact, "page": res.Page, "size": res.Size, "hits": hits, "more": res.More}
	if !res.Exact {
		out["at_least"] = res.AtLeast
	}
	if res.More {
		out["cursor"] = res.Cursor
	}
	if res.Facets != nil {
		out["facets"] = res.Facets
	}
	switch sug, failed := srv.suggestion(r, res); {
	case sug != "":
		out["suggestion"] = sug
	case failed:
		out["suggestion_unavailable"] = true
	}
	if res.Truncated {
		out["truncated"] = true
	}
	writeJSON(w, http.StatusOK, out)
}

// suggestion returns the spelling suggestion for a search with fewer
// results than a page, or with a word no page the user may see holds as
// typed (ranking.Searcher.Misspelled), in the languages the user reads
// (Accept-Language); "" if none. Failed says it could
// not be made (the search for near words took too long or was too
// broad): the page then goes without one, and the API says so, so that a
// missing suggestion is not taken for a word spelled right.
func (srv *Server) suggestion(r *http.Request, res *ranking.Result) (sug string, failed bool) {
	q := r.URL.Query()
	if q.Get("syntax") == "bleve" || q.Get("q") == "" {
		return "", false
	}
	if res.Total >= res.Size && !srv.s.Misspelled(r.Context(), q.Get("q"), who(r).groups) {
		return "", false
	}
	sug, err := srv.s.SuggestIn(r.Context(), q.Get("q"), who(r).groups, lang.Accepted(r.Header.Get("Accept-Language")))
	if err != nil {
		return "", true
	}
	return sug, false
}

// apiSuggest answers /api/suggest?q=: completions of what the user is
// typing, from the pages they may see.
func (srv *Server) apiSuggest(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	for name := range q {
		if name != "q" && name != "user" { // user: the demo user, as for /api/search (identify)
			srv.apiError(w, fmt.Errorf("%w: unknown parameter %q (known: q, user)", errBadRequest, name))
			return
		}
	}
	cs, err := srv.s.Complete(r.Context(), q.Get("q"), who(r).groups)
	if err != nil {
		srv.apiError(w, err)
		return
	}
	if cs == nil {
		cs = []ranking.Completion{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"q": q.Get("q"), "completions": cs})
}

func (srv *Server) apiCluster(w http.ResponseWriter, r *http.Request) {
	view, err := srv.members(r)
	if err != nil {
		srv.apiError(w, err)
		return
	}
	type member struct {
		ID           string    `json:"id"`
		URL          string    `json:"url"`
		Title        string    `json:"title"`
		Master       bool      `json:"master"`
		Indexed      bool      `json:"indexed"`
		LastModified time.Time `json:"last_modified,omitzero"`
		Length       int       `json:"length"`
	}
	out := make([]member, 0, len(view.Members))
	for _, m := range view.Members {
		out = append(out, member{m.ID, m.URL, m.Title, m.Master, m.Indexed, m.LastModified, m.Length})
	}
	writeJSON(w, http.StatusOK, map[string]any{"cluster": view.ID, "members": out})
}

func (srv *Server) apiDoc(w http.ResponseWriter, r *http.Request) {
	d, err := srv.s.Document(r.PathValue("id"), who(r).groups)
	if err != nil {
		srv.apiError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": d.ID, "url": d.URL, "title": d.Title, "host": d.Host,
		"cluster": d.Cluster, "master": d.Master, "last_modified": d.LastModified, "headings": d.Headings, "body": d.Body})
}

func (srv *Server) apiStats(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, srv.status())
}
