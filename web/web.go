// Package web serves Doppel's search: an HTML UI (search page with
// collapsed results, cluster pages with a "what differs" view, a status
// page) and a JSON API, as one http.Handler. Every page and answer is
// filtered by the requesting user's access groups (package ranking), and
// every string is escaped by html/template or encoding/json.
//
// Who the user is: with Options.GroupsHeader set, the user's groups are
// read from that request header (comma-separated), which a trusted
// reverse proxy in front of Doppel sets after authenticating the user —
// do not expose the server directly then, or anybody can claim any group.
// Otherwise, with Options.DemoUsers, the visitor picks a demo user (the
// "user" query parameter, remembered in a cookie). Otherwise everybody is
// anonymous and sees public documents only.
package web

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/ranking"
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
	ClusterSizes map[int]int `json:"cluster_sizes"` // cluster size → clusters
	Hamming      map[int]int `json:"hamming"`       // SimHash distance member–master → members
}

// Options configures a Server.
type Options struct {
	// GroupsHeader is the trusted request header carrying the user's
	// access groups, comma-separated (e.g. "X-Doppel-Groups").
	GroupsHeader string
	// DemoUsers, when GroupsHeader is empty, lets visitors pick a user;
	// the first is the default.
	DemoUsers []DemoUser
	// Status returns the status page's numbers; nil shows only what the
	// index knows.
	Status func() Status
	// Text returns the full text of a document, near-duplicates that were
	// not indexed included, for the "what differs" view; nil falls back to
	// the index (indexed documents only).
	Text func(id string) (string, bool)
	// AdminGroups may see the status page, /api/stats and /metrics, whose
	// counts and charts cover every document, access-controlled ones
	// included.
	// Empty: everybody may (for crawls without access groups).
	AdminGroups []string
	// Logger receives request errors. Default slog.Default().
	Logger *slog.Logger
}

// A Server is the search UI and API. Create it with New.
type Server struct {
	s        *ranking.Searcher
	opts     Options
	mux      *http.ServeMux
	tmpl     *template.Template
	registry *prometheus.Registry
	queries  *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

// New returns a Server over s.
func New(s *ranking.Searcher, opts Options) (*Server, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	tmpl, err := template.New("").Funcs(template.FuncMap{
		"add": func(a, b int) int { return a + b },
		"date": func(t time.Time) string {
			if t.IsZero() {
				return ""
			}
			return t.Format("2 Jan 2006")
		},
		"bars":        bars,
		"pathEscape":  url.PathEscape,
		"chartHeight": func(n int) int { return max(22*n, 22) },
	}).ParseFS(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	srv := &Server{s: s, opts: opts, mux: http.NewServeMux(), tmpl: tmpl, registry: prometheus.NewRegistry()}
	srv.queries = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "doppel_queries_total",
		Help: "Queries answered, by endpoint and outcome."}, []string{"endpoint", "outcome"})
	srv.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "doppel_query_duration_seconds",
		Help: "Query latency, by endpoint.", Buckets: prometheus.ExponentialBuckets(0.0005, 2, 14)}, []string{"endpoint"})
	srv.registry.MustRegister(srv.queries, srv.latency,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "doppel_index_documents", Help: "Documents in the index that can be results."},
			func() float64 { return float64(srv.status().Searchable) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "doppel_clusters", Help: "Near-duplicate clusters."},
			func() float64 { return float64(srv.status().Clusters) }))
	srv.routes()
	return srv, nil
}

func (srv *Server) routes() {
	srv.mux.HandleFunc("GET /{$}", srv.searchPage)
	srv.mux.HandleFunc("GET /cluster/{id}", srv.clusterPage)
	srv.mux.HandleFunc("GET /diff/{id}", srv.diffPage)
	srv.mux.HandleFunc("GET /status", srv.statusPage)
	srv.mux.HandleFunc("GET /api/search", srv.apiSearch)
	srv.mux.HandleFunc("GET /api/cluster/{id}", srv.apiCluster)
	srv.mux.HandleFunc("GET /api/doc/{id}", srv.apiDoc)
	srv.mux.HandleFunc("GET /api/stats", srv.apiStats)
	srv.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok\n") })
	metrics := promhttp.HandlerFor(srv.registry, promhttp.HandlerOpts{})
	srv.mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		if _, groups := srv.user(w, r); !srv.admin(groups) { // the gauges count every document
			http.Error(w, adminOnly, http.StatusForbidden)
			return
		}
		metrics.ServeHTTP(w, r)
	})
}

// ServeHTTP implements http.Handler.
func (srv *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:")
	srv.mux.ServeHTTP(w, r)
}

// user returns the requesting user's name (for display) and groups; it
// may set the demo-user cookie.
func (srv *Server) user(w http.ResponseWriter, r *http.Request) (string, []string) {
	if h := srv.opts.GroupsHeader; h != "" {
		var groups []string
		for _, g := range strings.Split(r.Header.Get(h), ",") {
			if g = strings.TrimSpace(g); g != "" && g != indexer.PublicGroup {
				groups = append(groups, g)
			}
		}
		return strings.Join(groups, ", "), groups
	}
	if len(srv.opts.DemoUsers) == 0 {
		return "", nil
	}
	name := r.URL.Query().Get("user")
	if name != "" {
		http.SetCookie(w, &http.Cookie{Name: "doppel_user", Value: url.QueryEscape(name), Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode})
	} else if c, err := r.Cookie("doppel_user"); err == nil {
		name, _ = url.QueryUnescape(c.Value)
	}
	for _, u := range srv.opts.DemoUsers {
		if u.Name == name {
			return u.Name, u.Groups
		}
	}
	u := srv.opts.DemoUsers[0]
	return u.Name, u.Groups
}

// request reads a search request from the URL.
func request(r *http.Request, groups []string) (ranking.Request, error) {
	q := r.URL.Query()
	req := ranking.Request{Query: q.Get("q"), Host: q.Get("host"), Groups: groups}
	var err error
	atoi := func(name string) int {
		v := q.Get(name)
		if v == "" {
			return 0
		}
		n, e := strconv.Atoi(v)
		if e != nil || n < 1 {
			err = errors.Join(err, fmt.Errorf("%s must be a positive number, not %q", name, v))
		}
		return n
	}
	date := func(name string) time.Time {
		v := q.Get(name)
		if v == "" {
			return time.Time{}
		}
		t, e := time.Parse("2006-01-02", v)
		if e != nil {
			err = errors.Join(err, fmt.Errorf("%s must be a date like 2026-03-01, not %q", name, v))
		}
		return t
	}
	syn, e := ranking.ParseSyntax(q.Get("syntax"))
	if e != nil {
		err = errors.Join(err, fmt.Errorf("syntax must be plain or bleve, not %q", q.Get("syntax")))
	}
	req.Syntax = syn
	req.Page, req.Size = atoi("page"), atoi("size")
	req.Since, req.Until = date("since"), date("until")
	if req.Size > 100 {
		err = errors.Join(err, fmt.Errorf("size must be at most 100"))
	}
	return req, err
}

// page is the data every template gets.
type page struct {
	Title     string
	User      string
	DemoUsers []DemoUser
	Path      string      // for the user switcher: the escaped path
	Params    [][2]string // and the query parameters to keep
	Query     string
	Syntax    string // "bleve" when the query is in bleve's syntax
	Error     string
	Data      any
}

func (srv *Server) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
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
}

func (srv *Server) search(w http.ResponseWriter, r *http.Request, endpoint string) (*ranking.Result, ranking.Request, []string, string, error) {
	start := time.Now()
	name, groups := srv.user(w, r)
	req, err := request(r, groups)
	var res *ranking.Result
	if err == nil {
		res, err = srv.s.Search(r.Context(), req)
	}
	srv.latency.WithLabelValues(endpoint).Observe(time.Since(start).Seconds())
	outcome := "ok"
	if err != nil {
		outcome = "error"
	}
	srv.queries.WithLabelValues(endpoint, outcome).Inc()
	return res, req, groups, name, err
}

func (srv *Server) searchPage(w http.ResponseWriter, r *http.Request) {
	p := page{Title: "Search", Query: r.URL.Query().Get("q"), Syntax: r.URL.Query().Get("syntax")}
	if _, ok := r.URL.Query()["q"]; !ok {
		p.User, _ = srv.user(w, r)
		srv.render(w, r, http.StatusOK, "search.html", p)
		return
	}
	res, req, groups, name, err := srv.search(w, r, "search")
	p.User = name
	if err != nil {
		p.Error = srv.errorText(err)
		srv.render(w, r, srv.errorStatus(err), "search.html", p)
		return
	}
	view := searchView{Result: res, Similar: map[string][]indexer.Member{}, Start: (res.Page-1)*res.Size + 1}
	for _, h := range res.Hits {
		if h.Similar == 0 {
			continue
		}
		ms, err := srv.s.Members(r.Context(), h.Cluster, groups, ranking.ByRelevance, req.Query)
		if err != nil {
			srv.fail(w, err)
			return
		}
		view.Similar[h.Cluster] = slices.DeleteFunc(ms, func(m indexer.Member) bool { return m.ID == h.ID })
	}
	link := func(pg int) string {
		v := r.URL.Query()
		v.Set("page", strconv.Itoa(pg))
		return "/?" + v.Encode()
	}
	if res.Page > 1 {
		view.Prev = link(res.Page - 1)
	}
	if res.Page*res.Size < res.Total {
		view.Next = link(res.Page + 1)
	}
	p.Data = view
	srv.render(w, r, http.StatusOK, "search.html", p)
}

func (srv *Server) errorText(err error) string {
	switch {
	case errors.Is(err, ranking.ErrQueryTooLong), errors.Is(err, ranking.ErrQuery):
		return strings.TrimPrefix(err.Error(), "ranking: ")
	case errors.Is(err, ranking.ErrNotFound):
		return "Not found."
	case srv.errorStatus(err) == http.StatusBadRequest:
		return err.Error()
	}
	return "Something went wrong; the error is logged."
}

func (srv *Server) errorStatus(err error) int {
	switch {
	case errors.Is(err, ranking.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, ranking.ErrQuery), errors.Is(err, ranking.ErrQueryTooLong), errors.Is(err, errBadRequest):
		return http.StatusBadRequest
	}
	var joined interface{ Unwrap() []error }
	if errors.As(err, &joined) { // request parameter errors
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

// errBadRequest marks invalid parameters.
var errBadRequest = errors.New("bad request")

func (srv *Server) fail(w http.ResponseWriter, err error) {
	srv.opts.Logger.Error("request failed", "err", err)
	http.Error(w, "internal error", http.StatusInternalServerError)
}

// clusterView is the cluster page's data.
type clusterView struct {
	ID      string
	Sort    string
	Members []indexer.Member
}

func (srv *Server) members(w http.ResponseWriter, r *http.Request) (clusterView, string, error) {
	name, groups := srv.user(w, r)
	order, err := ranking.ParseOrder(r.URL.Query().Get("sort"))
	if err != nil {
		return clusterView{}, name, fmt.Errorf("%w: %v", errBadRequest, err)
	}
	id := r.PathValue("id")
	ms, err := srv.s.Members(r.Context(), id, groups, order, r.URL.Query().Get("q"))
	return clusterView{ID: id, Sort: r.URL.Query().Get("sort"), Members: ms}, name, err
}

func (srv *Server) clusterPage(w http.ResponseWriter, r *http.Request) {
	view, name, err := srv.members(w, r)
	p := page{Title: "Similar pages", User: name, Query: r.URL.Query().Get("q")}
	if err != nil {
		p.Error = srv.errorText(err)
		srv.render(w, r, srv.errorStatus(err), "cluster.html", p)
		return
	}
	p.Data = view
	srv.render(w, r, http.StatusOK, "cluster.html", p)
}

// diffView is the what-differs page's data.
type diffView struct {
	Member, Master indexer.Member
	Edits          []Edit
	Same           bool
}

// text returns a document's full text, if the user may see it.
func (srv *Server) text(id string) (string, bool) {
	if srv.opts.Text != nil {
		return srv.opts.Text(id)
	}
	d, err := srv.s.Index().Document(id)
	if err != nil || d == nil {
		return "", false
	}
	return d.Body, true
}

func (srv *Server) diffPage(w http.ResponseWriter, r *http.Request) {
	name, groups := srv.user(w, r)
	p := page{Title: "What differs", User: name}
	id := r.PathValue("id")
	cluster := r.URL.Query().Get("cluster")
	ms, err := srv.s.Members(r.Context(), cluster, groups, ranking.ByRelevance, "")
	var view diffView
	if err == nil {
		err = fmt.Errorf("%w: %q in cluster %q", ranking.ErrNotFound, id, cluster)
		for _, m := range ms {
			if m.ID == id {
				view.Member, err = m, nil
			}
		}
	}
	if err == nil {
		// The master, or if the user may not see it, the first visible
		// member: the user compares only what they may see.
		view.Master = ms[0]
		a, okA := srv.text(view.Master.ID)
		b, okB := srv.text(view.Member.ID)
		if !okA || !okB {
			err = fmt.Errorf("%w: text of %q", ranking.ErrNotFound, id)
		} else {
			view.Edits = Diff(a, b)
			view.Same = len(view.Edits) <= 1 && (len(view.Edits) == 0 || view.Edits[0].Op == '=')
		}
	}
	if err != nil {
		p.Error = srv.errorText(err)
		srv.render(w, r, srv.errorStatus(err), "diff.html", p)
		return
	}
	p.Data = view
	srv.render(w, r, http.StatusOK, "diff.html", p)
}

func (srv *Server) status() Status {
	if srv.opts.Status != nil {
		return srv.opts.Status()
	}
	var st Status
	req := bleve.NewSearchRequestOptions(srv.s.Index().Searchable(bleve.NewMatchAllQuery()), 0, 0, false)
	if res, err := srv.s.Index().Bleve().Search(req); err == nil {
		st.Searchable = int(res.Total)
	}
	return st
}

// admin reports whether a user with groups may see collection-wide
// numbers.
func (srv *Server) admin(groups []string) bool {
	if len(srv.opts.AdminGroups) == 0 {
		return true
	}
	for _, g := range groups {
		if slices.Contains(srv.opts.AdminGroups, g) {
			return true
		}
	}
	return false
}

const adminOnly = "The status page counts every document, access-controlled ones included: it is for administrators."

func (srv *Server) statusPage(w http.ResponseWriter, r *http.Request) {
	name, groups := srv.user(w, r)
	if !srv.admin(groups) {
		srv.render(w, r, http.StatusForbidden, "status.html", page{Title: "Status", User: name, Error: adminOnly})
		return
	}
	srv.render(w, r, http.StatusOK, "status.html", page{Title: "Status", User: name, Data: srv.status()})
}

// JSON API.

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (srv *Server) apiError(w http.ResponseWriter, err error) {
	status := srv.errorStatus(err)
	if status == http.StatusInternalServerError {
		srv.opts.Logger.Error("api request failed", "err", err)
	}
	writeJSON(w, status, map[string]string{"error": srv.errorText(err)})
}

// apiHit is a search result in the JSON API.
type apiHit struct {
	ranking.Hit
	Snippet     string `json:"snippet"`
	SnippetHTML string `json:"snippet_html"`
}

func (srv *Server) apiSearch(w http.ResponseWriter, r *http.Request) {
	res, _, _, _, err := srv.search(w, r, "api")
	if err != nil {
		srv.apiError(w, err)
		return
	}
	hits := make([]apiHit, 0, len(res.Hits))
	for _, h := range res.Hits {
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
	out := map[string]any{"total": res.Total, "exact": res.Exact, "page": res.Page, "size": res.Size, "hits": hits}
	if res.Truncated {
		out["truncated"] = true
	}
	writeJSON(w, http.StatusOK, out)
}

func (srv *Server) apiCluster(w http.ResponseWriter, r *http.Request) {
	view, _, err := srv.members(w, r)
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
	_, groups := srv.user(w, r)
	d, err := srv.s.Document(r.PathValue("id"), groups)
	if err != nil {
		srv.apiError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": d.ID, "url": d.URL, "title": d.Title, "host": d.Host,
		"cluster": d.Cluster, "master": d.Master, "last_modified": d.LastModified, "headings": d.Headings, "body": d.Body})
}

func (srv *Server) apiStats(w http.ResponseWriter, r *http.Request) {
	if _, groups := srv.user(w, r); !srv.admin(groups) {
		writeJSON(w, http.StatusForbidden, map[string]string{"error": adminOnly})
		return
	}
	writeJSON(w, http.StatusOK, srv.status())
}
