// Package admit decides which URLs a crawl may fetch: the crawl's scope
// (hosts and URL prefixes), robots.txt, the trap rules of package traps,
// redirects, canonical URLs and soft 404s. It knows nothing of the
// frontier or the page store: the crawler asks it about each URL and
// records what it answers.
//
// Every refusal carries its reason as a value ([Decision.Reason]), the
// text that `doppel export` shows.
package admit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/temoto/robotstxt"

	"github.com/doppel-search/doppel/crawler/clean"
	"github.com/doppel-search/doppel/crawler/traps"
	"github.com/doppel-search/doppel/crawler/urlnorm"
)

// Reasons given for refusals that other packages test for.
const (
	ReasonRobots   = "disallowed by robots.txt"
	ReasonExcluded = "excluded by the crawl's pattern" // followed by the pattern
	ReasonView     = "not fetched: its URL is"         // followed by the view (urlnorm.View)
	ReasonSoft404  = "soft 404: the page is the host's answer for missing pages"
)

// Options configures an Admission. AllowedHosts is required; the zero
// value of every other field is its default.
type Options struct {
	// Folders are the local folders and SMB shares' folders a crawl may
	// read, as URL prefixes ("file:///srv/share/",
	// "smb://files.example/reports/"), normalized as URLs are; a file or
	// smb URL outside them is out of scope, and a link to one is refused
	// (ReasonOutsideFolders). Default none: no file or smb URL is.
	Folders []string
	// Client supplies the Transport (and Jar) robots.txt is fetched
	// with; its timeout and redirect policy are Timeout and MaxRedirects.
	// Default nil: http.DefaultTransport.
	Client *http.Client
	// AllowedHosts are the hosts (host or host:port) the crawl may fetch.
	AllowedHosts []string
	// AllowedPrefixes, if set, also limit the crawl to URLs starting with
	// one of them, both as spelt and with their paths decoded
	// (urlnorm.DecodedPath): a link under a prefix whose decoded path
	// leaves it ("/docs/..%2Fadmin/") is refused.
	AllowedPrefixes []string
	// Exclude are URL patterns the crawl leaves out: a link whose
	// normalized URL one of them matches (anywhere in it, unless
	// anchored) is refused (ReasonExcluded) and never fetched. See
	// CompileExclude. Default none.
	Exclude []*regexp.Regexp
	// FetchViews fetches the URLs urlnorm.View recognises as another form
	// of a page (a listing's sort orders, print, share and feed views).
	// Default false: they are refused (ReasonView).
	FetchViews bool
	// IgnoreRobots disables robots.txt. Default false.
	IgnoreRobots bool
	// UserAgent is sent with robots.txt and probe requests, and matched
	// against robots.txt groups. Default "DoppelBot/1.0".
	UserAgent string
	// Timeout bounds the robots.txt and soft-404 probe requests.
	// Default 10s.
	Timeout time.Duration
	// MaxBodyBytes bounds the soft-404 probe's body. Default 5 MiB.
	MaxBodyBytes int
	// MaxRedirects is the longest redirect chain followed. Default 5.
	MaxRedirects int
	// Traps configures the trap rules.
	Traps traps.Options
	// Norm configures URL normalization.
	Norm urlnorm.Options
	// RobotsTTL is how long a host's robots.txt is trusted before it is
	// fetched again (RFC 9309 asks for no more than a day). Default 24h.
	RobotsTTL time.Duration
	// OnRobots, if set, is called each time a host's robots.txt has been
	// read (also when it is missing or ignored) with the host's root URL
	// (scheme and host) and what robots.txt says for Doppel's user agent.
	OnRobots func(root *url.URL, r Robots)
	// Shared, if set, is where the crawlers that crawl one site together
	// keep what admission learns per host — its robots.txt and its answer
	// for a page that does not exist — so that one of them fetches it and
	// the others read it (a frontier.Shared is one). Admission then learns
	// a host when the crawler is about to fetch one of its pages (Learn,
	// one request at a time), not when it decides about a link: Link
	// decides by robots.txt as this crawler knows it (a link to a host not
	// learnt yet is followed, and Allowed decides when it is fetched).
	// Default nil: Link fetches robots.txt and probes, once per host.
	Shared Shared
}

// Shared keeps what crawlers learn per host, for all of them (see
// Options.Shared). frontier.Shared is one.
type Shared interface {
	// Take returns what a crawler Put under host and name (known), or
	// else gives this crawler the right to learn it for hold (mine),
	// unless another crawler holds that right (neither).
	Take(host, name string, hold time.Duration) (value []byte, known, mine bool, err error)
	// Put keeps value under host and name for ttl and ends the right
	// Take gave.
	Put(host, name string, value []byte, ttl time.Duration) error
}

// A Step is what Learn did.
type Step int

// The steps of Learn.
const (
	// Known: admission knows what it needs of the host; fetch the page.
	Known Step = iota
	// Fetched: Learn made a request to the host (robots.txt or the
	// probe), which took the page's turn: fetch it at a later turn.
	Fetched
	// Busy: another crawler is learning the host: ask again later.
	Busy
)

// maxRobotsBytes is how much of a robots.txt is read, parsed and kept in
// Options.Shared (the rest is ignored):
// RFC 9309 asks crawlers to parse at least 500 KiB.
const maxRobotsBytes = 512 << 10

// Robots is what a host's robots.txt says beyond allow and disallow.
type Robots struct {
	CrawlDelay time.Duration // for our user agent's group; 0 if none
	Sitemaps   []string      // absolute sitemap URLs it names
}

// A Verdict is what to do with a URL.
type Verdict int

// The verdicts.
const (
	Follow Verdict = iota // fetch it
	Refuse                // record it as skipped, with the reason, and never fetch it
	Ignore                // out of scope or not a web URL: neither fetch nor record
)

// A Decision is the verdict on one URL, normalized.
type Decision struct {
	URL     string // normalized; empty when the input does not normalize
	Verdict Verdict
	Reason  string // why, for Refuse and Ignore
}

// An Admission decides about URLs. It is safe for concurrent use; it
// fetches robots.txt (and probes for the soft-404 page) once per host,
// when it first decides about a URL of that host.
type Admission struct {
	opts     Options
	client   *http.Client
	guard    *traps.Guard
	families *traps.Families
	yields   *traps.Yields
	soft     *traps.SoftNotFound
	// folders are Options.Folders normalized; decodedPrefixes are
	// Options.AllowedPrefixes, each decoded (decodedForm).
	folders, decodedPrefixes []string

	mu     sync.Mutex
	robots map[string]*hostRobots
	// links keeps what each recent link's URL alone decides.
	links keyCache
}

type hostRobots struct {
	mu      sync.Mutex            // held while fetching
	fetched time.Time             // zero: not yet
	data    *robotstxt.RobotsData // nil: everything allowed
	probed  bool                  // with Options.Shared: the soft-404 answer is learnt
}

// EnsureDefaults sets every zero field to its default (each field's doc
// says which) and returns o.
func (o *Options) EnsureDefaults() *Options {
	if o.UserAgent == "" {
		o.UserAgent = "DoppelBot/1.0"
	}
	if o.Timeout == 0 {
		o.Timeout = 10 * time.Second
	}
	if o.MaxBodyBytes == 0 {
		o.MaxBodyBytes = clean.DefaultMaxBytes
	}
	if o.MaxRedirects == 0 {
		o.MaxRedirects = 5
	}
	if o.RobotsTTL == 0 {
		o.RobotsTTL = 24 * time.Hour
	}
	return o
}

// New returns an Admission.
func New(opts Options) *Admission {
	opts.EnsureDefaults()
	client := &http.Client{Timeout: opts.Timeout, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) > opts.MaxRedirects {
			return http.ErrUseLastResponse
		}
		return nil
	}}
	if opts.Client != nil {
		client.Transport, client.Jar = opts.Client.Transport, opts.Client.Jar
	}
	var folders, decoded []string
	for _, f := range opts.Folders {
		if n, err := urlnorm.Normalize(f, opts.Norm); err == nil && strings.HasSuffix(f, "/") == strings.HasSuffix(n, "/") {
			f = n
		}
		folders = append(folders, f)
	}
	for _, p := range opts.AllowedPrefixes {
		if u, err := url.Parse(p); err == nil {
			p = decodedForm(u)
		}
		decoded = append(decoded, p)
	}
	return &Admission{
		folders:         folders,
		decodedPrefixes: decoded,
		opts:            opts,
		client:          client,
		guard:           traps.NewGuard(opts.Traps, urlnorm.Template),
		families:        traps.NewFamilies(opts.Traps),
		yields:          traps.NewYields(opts.Traps),
		soft:            traps.NewSoftNotFound(0),
		robots:          map[string]*hostRobots{},
	}
}

// Normalize normalizes a URL with the Admission's options.
func (a *Admission) Normalize(raw string) (string, error) { return urlnorm.Normalize(raw, a.opts.Norm) }

// ReasonOutsideFolders is the reason a file or smb URL outside the
// crawl's Folders is refused with.
const ReasonOutsideFolders = "outside the crawl's folders"

// InScope reports whether u may be crawled at all: http or https, an
// allowed host, an allowed prefix (by its spelling and by its path
// decoded, see urlnorm.DecodedPath); or a file or smb URL in one of the
// Folders. u is a normalized URL.
func (a *Admission) InScope(u *url.URL) bool {
	in, _ := a.scope(u)
	return in
}

// scope reports whether the normalized URL u is in scope and, when it is
// not, why it is refused rather than ignored: a file or smb URL outside
// the Folders (a share's page or link leads out of its folder), an http
// URL under an allowed prefix by its spelling but not once its path is
// decoded ("/docs/..%2Fadmin"). Other URLs out of scope (other hosts)
// are ignored: refusal is "".
func (a *Admission) scope(u *url.URL) (in bool, refusal string) {
	if u.Scheme == "file" || u.Scheme == "smb" {
		s := u.String()
		for _, f := range a.folders {
			if strings.HasPrefix(s, f) {
				return true, ""
			}
		}
		return false, ReasonOutsideFolders
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return false, ""
	}
	hostOK := false
	for _, h := range a.opts.AllowedHosts {
		if strings.EqualFold(u.Host, h) {
			hostOK = true
			break
		}
	}
	if !hostOK {
		return false, ""
	}
	if len(a.opts.AllowedPrefixes) == 0 {
		return true, ""
	}
	s, decoded := u.String(), decodedForm(u)
	for i, p := range a.opts.AllowedPrefixes {
		if !strings.HasPrefix(s, p) {
			continue
		}
		if strings.HasPrefix(decoded, a.decodedPrefixes[i]) {
			return true, ""
		}
		refusal = "its path leaves the allowed prefix " + p + " once decoded"
	}
	return false, refusal
}

// decodedForm returns u with its path as a server may read it
// (urlnorm.DecodedPath), its scheme and host lowercased: what an allowed
// prefix is compared with once decoded.
func decodedForm(u *url.URL) string {
	s := strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) + urlnorm.DecodedPath(u)
	if u.RawQuery != "" || u.ForceQuery {
		s += "?" + u.RawQuery
	}
	return s
}

// Seed normalizes a seed URL and checks that it is in scope.
func (a *Admission) Seed(raw string) (string, error) {
	u, err := a.Normalize(raw)
	if err != nil {
		return "", fmt.Errorf("admit: seed %q: %w", raw, err)
	}
	if pu, err := url.Parse(u); err != nil || !a.InScope(pu) {
		return "", fmt.Errorf("admit: seed %s is outside the allowed hosts and prefixes", u)
	}
	return u, nil
}

// Link decides about a discovered link: Ignore if it does not normalize or
// is out of scope; Refuse if an Exclude pattern matches it, it is a view
// of another page (urlnorm.View, unless FetchViews), robots.txt
// disallows it, a trap rule refuses its shape, or its path template or
// family is a trap; else Follow. It may fetch the
// host's robots.txt. Whether the URL was seen before is the caller's
// business.
func (a *Admission) Link(raw string) Decision {
	k := a.keys(raw)
	if k.verdict != Follow {
		return Decision{URL: k.url, Verdict: k.verdict, Reason: k.reason}
	}
	u := k.url
	if !a.robotsAllow(k.parsed) {
		return Decision{URL: u, Verdict: Refuse, Reason: ReasonRobots}
	}
	if k.trap != "" {
		return Decision{URL: u, Verdict: Refuse, Reason: k.trap}
	}
	if ok, reason := a.guard.Count(k.template); !ok {
		return Decision{URL: u, Verdict: Refuse, Reason: reason}
	}
	if reason, trapped := a.trapped(k.template, k.typed, k.shape); trapped {
		return Decision{URL: u, Verdict: Refuse, Reason: reason}
	}
	return Decision{URL: u, Verdict: Follow}
}

// Redirect decides about the target of a redirect from the URL from,
// reached after hops redirects: Follow the normalized target, or Refuse
// with the reason (chain too long, target out of scope). An unusable
// Location is an error.
func (a *Admission) Redirect(from, location string, hops int) (Decision, error) {
	base, err := url.Parse(from)
	if err != nil {
		return Decision{}, fmt.Errorf("admit: redirect from %q: %w", from, err)
	}
	target, err := urlnorm.Resolve(base, location, a.opts.Norm)
	if err != nil {
		return Decision{}, fmt.Errorf("redirect to an unusable location %q", location)
	}
	if hops+1 > a.opts.MaxRedirects {
		return Decision{URL: target, Verdict: Refuse, Reason: fmt.Sprintf("redirect chain longer than %d", a.opts.MaxRedirects)}, nil
	}
	if tu, err := url.Parse(target); err != nil || !a.InScope(tu) {
		return Decision{URL: target, Verdict: Refuse, Reason: "redirect out of scope to " + target}, nil
	}
	return Decision{URL: target, Verdict: Follow}, nil
}

// Canonical returns the normalized canonical URL a page at u names, if it
// is another URL in scope.
func (a *Admission) Canonical(u, canonical string) (string, bool) {
	if canonical == "" {
		return "", false
	}
	canon, err := a.Normalize(canonical)
	if err != nil || canon == u {
		return "", false
	}
	if cu, err := url.Parse(canon); err != nil || !a.InScope(cu) {
		return "", false
	}
	return canon, true
}

// SoftNotFound reports whether text, served by host with status 200, is
// the host's answer for a page that does not exist.
func (a *Admission) SoftNotFound(host, text string) bool { return a.soft.Is(host, text) }

// Template returns the path template of u (urlnorm.Template), the key of
// the per-template trap statistics.
func (a *Admission) Template(u string) string { return urlnorm.Template(u) }

// Observe counts a fetched page of u's template, in the near-duplicate
// cluster cluster (see traps.Families), and reports whether it made the
// template a trap.
func (a *Admission) Observe(u string, v traps.Verdict, cluster string) bool {
	return a.families.Observe(urlnorm.Template(u), v, cluster)
}

// Trapped reports whether u's path template is a trap, or its family
// (urlnorm.Shape) stopped for yielding nothing (see ObserveYield): a URL
// queued before is not fetched either.
func (a *Admission) Trapped(u string) (reason string, trapped bool) {
	return a.trapped(urlnorm.Template(u), urlnorm.TypeShape(u), urlnorm.Shape(u))
}

// trapped is Trapped of a URL of the template, type shape and shape
// given (urlnorm.Template, TypeShape, Shape).
func (a *Admission) trapped(template, typed, shape string) (reason string, trapped bool) {
	if reason, trapped = a.families.Trapped(template); trapped {
		return reason, true
	}
	if typed != "" {
		if reason, trapped = a.yields.Stopped(typed); trapped {
			return reason, true
		}
	}
	return a.yields.Stopped(shape)
}

// Family returns u's family (urlnorm.Shape), the key of what the crawl
// learns its requests yield.
func (a *Admission) Family(u string) string { return urlnorm.Shape(u) }

// ObserveYield counts a request of u and what it yielded (a page kept
// or a URL not known before, a copy, nothing), with why, for its family
// (urlnorm.Shape) and, if useful or of another type (traps.WhyType),
// its file type's (urlnorm.TypeShape: every *.gz of the host). It reports whether the request demoted u's family (its
// URLs are fetched after every other) and whether it stopped it
// (Trapped), see traps.Yields.
func (a *Admission) ObserveYield(u string, o traps.Outcome, why string) (demoted, stopped bool) {
	if t := urlnorm.TypeShape(u); t != "" && (o == traps.Useful || why == traps.WhyType) {
		a.yields.Observe(t, o, why)
	}
	return a.yields.Observe(urlnorm.Shape(u), o, why)
}

// Demoted reports whether u's family, or its file type's, is demoted:
// their requests have yielded nothing.
func (a *Admission) Demoted(u string) bool {
	if t := urlnorm.TypeShape(u); t != "" && a.yields.Demoted(t) {
		return true
	}
	return a.yields.Demoted(urlnorm.Shape(u))
}

// Families returns the URL families demoted or stopped so far
// ("demoted" or "stopped", by urlnorm.Shape).
func (a *Admission) Families() map[string]string { return a.yields.Families() }

// CompileExclude compiles URL patterns for Options.Exclude: Go regular
// expressions (RE2 syntax), matched against the normalized URL. An error
// names the first pattern that does not compile.
func CompileExclude(patterns []string) ([]*regexp.Regexp, error) {
	res := make([]*regexp.Regexp, 0, len(patterns))
	for _, p := range patterns {
		if p == "" {
			return nil, errors.New("an empty pattern would exclude every URL")
		}
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("pattern %q: %w", p, err)
		}
		res = append(res, re)
	}
	return res, nil
}

// HasDuplicates reports whether u's path template has produced a copy.
func (a *Admission) HasDuplicates(u string) bool {
	return a.families.HasDuplicates(urlnorm.Template(u))
}

// robotsAllow reports whether robots.txt allows u (always, with
// IgnoreRobots). The first call for a host fetches and caches its
// robots.txt (following up to MaxRedirects redirects, as RFC 9309 asks)
// and learns its soft-404 answer; only one request of each is made per
// host, whatever the number of concurrent callers. After RobotsTTL the
// next call fetches robots.txt again.
func (a *Admission) robotsAllow(u *url.URL) bool {
	if u.Scheme == "file" || u.Scheme == "smb" { // a folder has no robots.txt, sitemaps or soft 404s
		return true
	}
	hr := a.host(u.Host)
	if a.opts.Shared != nil {
		return a.knownAllow(hr, u)
	}
	hr.mu.Lock()
	if hr.fetched.IsZero() || time.Since(hr.fetched) > a.opts.RobotsTTL {
		first := hr.fetched.IsZero()
		if !a.opts.IgnoreRobots {
			hr.data = a.fetchRobots(u)
		}
		hr.fetched = time.Now()
		if first {
			a.learnSoft404(u)
		}
		if a.opts.OnRobots != nil {
			a.opts.OnRobots(&url.URL{Scheme: u.Scheme, Host: u.Host}, robotsOf(hr.data, a.opts.UserAgent))
		}
	}
	data := hr.data
	hr.mu.Unlock()
	return data == nil || data.TestAgent(u.EscapedPath(), a.opts.UserAgent)
}

// host returns the robots.txt state of host, made if new.
func (a *Admission) host(name string) *hostRobots {
	a.mu.Lock()
	defer a.mu.Unlock()
	hr := a.robots[name]
	if hr == nil {
		hr = &hostRobots{}
		a.robots[name] = hr
	}
	return hr
}

// knownAllow reports whether robots.txt, as hr knows it, allows u
// (everything is allowed on a host not learnt yet).
func (a *Admission) knownAllow(hr *hostRobots, u *url.URL) bool {
	hr.mu.Lock()
	data := hr.data
	hr.mu.Unlock()
	return a.opts.IgnoreRobots || data == nil || data.TestAgent(u.EscapedPath(), a.opts.UserAgent)
}

// Allowed reports whether robots.txt, as this crawler knows it, allows
// the URL u: with Options.Shared, after Learn, before fetching u.
func (a *Admission) Allowed(u string) bool {
	pu, err := url.Parse(u)
	if err != nil {
		return false
	}
	if pu.Scheme != "http" && pu.Scheme != "https" {
		return true
	}
	return a.knownAllow(a.host(pu.Host), pu)
}

// Learn makes known to this crawler, with Options.Shared, what admission
// must know of u's host before one of its pages is fetched — its
// robots.txt (again after RobotsTTL), then its answer for a page that
// does not exist — making at most one request: it reads what another crawler
// put in Shared, or else fetches it (with ctx) and puts it there, unless
// another crawler is fetching it. It returns Known when the page may be
// fetched (ask Allowed), Fetched when it made a request and Busy when
// another crawler is learning the host. Without Shared, or for a URL
// that is not http or https, it returns Known. Interrupted by ctx, it
// returns ctx's error and keeps nothing.
func (a *Admission) Learn(ctx context.Context, u *url.URL) (Step, error) {
	if a.opts.Shared == nil || u.Scheme != "http" && u.Scheme != "https" {
		return Known, nil
	}
	hr := a.host(u.Host)
	hr.mu.Lock()
	defer hr.mu.Unlock()
	if hr.fetched.IsZero() || time.Since(hr.fetched) > a.opts.RobotsTTL {
		step := Known
		if !a.opts.IgnoreRobots {
			var v []byte
			var err error
			v, step, err = a.learn(ctx, u.Host, "robots "+u.Scheme, func() []byte {
				status, body := a.robotsFile(ctx, u)
				return append([]byte(strconv.Itoa(status)+"\n"), body...)
			})
			if err != nil || step == Busy {
				return step, err
			}
			hr.data = decodeRobots(v)
		}
		hr.fetched = time.Now()
		if a.opts.OnRobots != nil {
			a.opts.OnRobots(&url.URL{Scheme: u.Scheme, Host: u.Host}, robotsOf(hr.data, a.opts.UserAgent))
		}
		if step == Fetched {
			return step, nil
		}
	}
	if hr.probed {
		return Known, nil
	}
	v, step, err := a.learn(ctx, u.Host, "soft404 "+u.Scheme, func() []byte {
		if text, ok := a.probe(ctx, u); ok {
			return []byte("1" + text)
		}
		return nil
	})
	if err != nil || step == Busy {
		return step, err
	}
	if len(v) > 0 {
		a.soft.Learn(u.Host, string(v[1:]))
	}
	hr.probed = true
	return step, nil
}

// learn returns what the crawlers know under name for host: read from
// Options.Shared (Known), or fetched with fetch and put there (Fetched);
// Busy while another crawler fetches it. What a fetch interrupted by ctx
// got is not kept.
func (a *Admission) learn(ctx context.Context, host, name string, fetch func() []byte) ([]byte, Step, error) {
	v, known, mine, err := a.opts.Shared.Take(host, name, 2*a.opts.Timeout)
	switch {
	case err != nil:
		return nil, Known, fmt.Errorf("admit: %w", err)
	case known:
		return v, Known, nil
	case !mine:
		return nil, Busy, nil
	}
	v = fetch()
	if err := ctx.Err(); err != nil {
		return nil, Fetched, err
	}
	if err := a.opts.Shared.Put(host, name, v, a.opts.RobotsTTL); err != nil {
		return nil, Known, fmt.Errorf("admit: %w", err)
	}
	return v, Fetched, nil
}

// decodeRobots reads robots.txt as learn keeps it: the status, a line
// feed and the body; nil (everything allowed) when it was not read.
func decodeRobots(v []byte) *robotstxt.RobotsData {
	line, body, ok := bytes.Cut(v, []byte("\n"))
	if !ok {
		return nil
	}
	status, err := strconv.Atoi(string(line))
	if err != nil || status == 0 {
		return nil
	}
	data, err := robotstxt.FromStatusAndBytes(status, body)
	if err != nil {
		return nil
	}
	return data
}

func robotsOf(data *robotstxt.RobotsData, agent string) Robots {
	if data == nil {
		return Robots{}
	}
	r := Robots{Sitemaps: data.Sitemaps}
	if g := data.FindGroup(agent); g != nil {
		r.CrawlDelay = g.CrawlDelay
	}
	return r
}

func (a *Admission) get(ctx context.Context, rawURL string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", a.opts.UserAgent)
	return a.client.Do(req)
}

// fetchRobots fetches and parses u's host's robots.txt, its first
// maxRobotsBytes only (robotstxt.FromResponse would read a body of any
// size: 100 MB of rules took the crawl to 1 GB).
func (a *Admission) fetchRobots(u *url.URL) *robotstxt.RobotsData {
	status, body := a.robotsFile(context.Background(), u)
	if status == 0 {
		return nil // unreachable robots.txt: everything allowed
	}
	data, err := robotstxt.FromStatusAndBytes(status, body)
	if err != nil {
		return nil
	}
	return data
}

// robotsFile fetches u's host's robots.txt: its status (0 if it was not
// reached) and its first maxRobotsBytes.
func (a *Admission) robotsFile(ctx context.Context, u *url.URL) (int, []byte) {
	resp, err := a.get(ctx, u.Scheme+"://"+u.Host+"/robots.txt")
	if err != nil {
		return 0, nil
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxRobotsBytes))
	if err != nil {
		return 0, nil
	}
	return resp.StatusCode, body
}

// learnSoft404 asks the host for a page that cannot exist; if it answers
// 200, that answer is the host's soft-404 page.
func (a *Admission) learnSoft404(u *url.URL) {
	if text, ok := a.probe(context.Background(), u); ok {
		a.soft.Learn(u.Host, text)
	}
}

// probe asks u's host for a page that cannot exist and returns the text
// of its answer if it is 200.
func (a *Admission) probe(ctx context.Context, u *url.URL) (string, bool) {
	resp, err := a.get(ctx, u.Scheme+"://"+u.Host+"/doppel-probe-"+strconv.FormatInt(time.Now().UnixNano(), 36)+".html")
	if err != nil {
		return "", false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", false
	}
	page, err := clean.Parse(io.LimitReader(resp.Body, int64(a.opts.MaxBodyBytes)), u, clean.Options{})
	if err != nil {
		return "", false
	}
	return page.Text, true
}

// Restore counts a URL admitted before a restart against its template's
// budget (Options.Traps.MaxPerTemplate), without deciding anything.
func (a *Admission) Restore(u string) { a.guard.Admit(u) }
