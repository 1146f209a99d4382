package crawler

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/renameio/v2"

	"github.com/doppel-search/doppel/crawler/frontier"
	"github.com/doppel-search/doppel/crawler/login"
	"github.com/doppel-search/doppel/crawler/share"
	"github.com/doppel-search/doppel/crawler/traps"
	"github.com/doppel-search/doppel/crawler/urlnorm"
	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/indexer"
)

// DefaultMaxPages is Options.MaxPages's default: requests enough for an
// intranet's sites, not a bound a real crawl meets by surprise.
const DefaultMaxPages = 100_000

// Options configures a crawl. The zero value of each field means the
// default documented on it; only Seeds is required. Its tags are the
// only spelling of each setting (package internal/settings): json, its
// key in a configuration file and crawl.json (ParseConfig, MarshalJSON);
// flag and help, `doppel crawl`'s flag for it.
type Options struct {
	// Seeds are the URLs the crawl starts from. Required.
	Seeds []string `json:"seeds" flag:"seed" help:"start {URL} (repeatable); without it, the crawl saved in --data resumes"`
	// AllowedHosts limits the crawl to these hosts (host or host:port).
	// Default: the hosts of the seeds.
	AllowedHosts []string `json:"allowed_hosts"`
	// AllowedPrefixes, if set, also limits the crawl to URLs starting
	// with one of these prefixes.
	AllowedPrefixes []string `json:"allowed_prefixes"`
	// Exclude are URL patterns the crawl leaves out: Go regular
	// expressions (RE2 syntax) matched anywhere in the normalized URL
	// unless anchored ("[?&]action=(edit|history)", "/Special:",
	// "^https://wiki\\.example/private/"). A link one matches is
	// recorded as skipped ("excluded by the crawl's pattern …") and never
	// fetched. Default none.
	Exclude []string `json:"exclude" flag:"exclude,append" help:"leave out URLs this Go regular {pattern} matches, e.g. '[?&]action=(edit|history)' (repeatable; adds to the config file's)"`
	// FetchViews fetches the URLs whose shape says they show another page
	// in another form (urlnorm.View): a file listing's sort orders
	// ("?C=M;O=A"), print, share and feed views. Default false: they are
	// recorded as skipped without a request.
	FetchViews bool `json:"fetch_views" flag:"fetch-views" help:"also fetch the URLs whose shape says they show another page: a listing's sort orders (?C=M;O=A), print, share and feed views (default: recorded as skipped, not requested)"`
	// FollowLinksOutside follows the symbolic links of a local folder
	// (a file:// seed's) whose targets lie outside it: a linked file is
	// read, a linked folder crawled as if it were inside. Default false:
	// such a link is refused and recorded as skipped ("a symbolic link
	// leads out of the crawl's folder"). Links out of the folder by URL
	// ("../", "%2e%2e/", "..%2f") and link loops are refused either way.
	// An SMB share's links are its server's (see package share).
	FollowLinksOutside bool `json:"follow_links_outside" flag:"follow-links-outside" help:"follow the symbolic links of a local folder (file:// seed) that lead out of it (default: refused and recorded as skipped)"`
	// MaxDepth is the most links followed from a seed. Default 10.
	MaxDepth int `json:"max_depth" flag:"max-depth" help:"links followed from a seed (default 10)"`
	// MaxPages is how many requests the crawl makes for URLs not fetched
	// before, in all, across restarts: pages kept, and fetches skipped
	// (noindex, a canonical URL elsewhere, a listing, another type, a
	// redirect) or failed, retries included. robots.txt, the soft-404
	// probe and sitemaps aside, and revisits of pages already fetched do
	// not count. Default 100,000: an intranet's size, with the trap bounds
	// (MaxDepth, the per-family yields) keeping an endless site in check.
	MaxPages int `json:"max_pages" flag:"max-pages" help:"requests for new URLs in all, across restarts (default 100000)"`
	// IgnoreRobots disables robots.txt. Default false: robots.txt is
	// honoured.
	IgnoreRobots bool `json:"ignore_robots" flag:"ignore-robots" help:"do not honour robots.txt"`
	// Delay is the pause between requests to one host. Default 100ms;
	// negative means none (for crawling your own test server).
	Delay time.Duration `json:"delay" zero:"none" flag:"delay" help:"pause between requests (default 100ms; 0: none)"`
	// Parallelism is the number of requests in flight at once. Default 2.
	Parallelism int `json:"parallelism" flag:"parallelism" help:"requests in flight (default 2)"`
	// HostParallelism is the most requests in flight to one host (1 when
	// its robots.txt sets a Crawl-delay). Default: Parallelism.
	HostParallelism int `json:"host_parallelism"`
	// Timeout is the request timeout. Default 10s.
	Timeout time.Duration `json:"timeout"`
	// MaxBodyBytes is the largest HTML or text body processed; a larger
	// one is cut there (the page is marked truncated). Default 5 MiB.
	MaxBodyBytes int `json:"max_body_bytes"`
	// MaxDocumentBytes is the largest document (PDF, DOCX, PPTX, XLSX,
	// ODT, ODP, ODS) read; a larger one is recorded as skipped ("too
	// large"). Its other bounds are crawler/extract's defaults. Default
	// 50 MiB.
	MaxDocumentBytes int `json:"max_document_bytes"`
	// MaxLinksPerPage is the most links of one page considered, the first
	// in document order; a page with more is fetched with the reason
	// "links: the first N of M followed". Default 10,000 (Heritrix keeps
	// 6,000 per page; Nutch, for the web, 100): an intranet's generated
	// indexes hold thousands, and a page of 100,000 links cost 313 MB
	// and 23 s. Negative: no bound.
	MaxLinksPerPage int `json:"max_links_per_page"`
	// PreferDocuments makes a document the master of its cluster before
	// an HTML page with the same text. Default false: the HTML page.
	PreferDocuments bool `json:"prefer_documents"`
	// UserAgent is sent with every request. Default "DoppelBot/1.0".
	UserAgent string `json:"user_agent" flag:"user-agent" help:"User-Agent header (default DoppelBot/1.0)"`
	// MaxRedirects is the longest redirect chain followed. Default 5.
	MaxRedirects int `json:"max_redirects"`
	// Traps bounds crawler traps (see package traps).
	Traps traps.Options `json:"traps"`
	// DropParams lists query parameters removed from URLs (tracking and
	// session ids). Default: urlnorm's defaults.
	DropParams []string `json:"drop_params"`
	// Policy says what happens to near-duplicates in the index. Default
	// indexer.Skip.
	Policy indexer.Policy `json:"policy" choices:"skip hidden all" flag:"policy" help:"near-duplicates: skip (default), hidden or all"`
	// Similarity is how two pages are judged copies (see
	// dedup.Web): dedup.Resemblance, the same text up to small
	// edits (default), or dedup.Cosine, the same vocabulary, for sites
	// whose copies carry spam-like scattered word edits — it also joins
	// distinct pages that share their words, such as the pages of an API
	// reference.
	Similarity dedup.Similarity `json:"similarity" choices:"resemblance cosine" flag:"similarity" help:"what makes pages copies: resemblance (default; the same text up to small edits) or cosine (the same words: for spam-like edits, joins API pages that share their vocabulary)"`
	// Language is the language whose pages are preferred as masters of
	// their clusters, before the detector's master policy (the newest page
	// of a series, else the shortest URL: dedup.Web) (a BCP 47
	// tag such as "en" or "da"; compared by its primary subtag); of those, a page whose
	// URL names no language section or that language's ("/manual/en/")
	// before one in another language's section ("/manual/da/", which
	// keeps untranslated English pages). A page's language is the
	// hreflang of an alternate link to itself, else its <html lang> or
	// Content-Language, else the language its text is in, and the
	// section its URL names only where the text agrees (lang.Of).
	// Default "": the language of the first page the crawl processes
	// that has one — its seed's if it declares one, else whichever page
	// is processed first. Of a cluster with no page in it, a page in its
	// own language's section comes first (hook.Options.Language).
	Language string `json:"language" flag:"language" help:"language whose pages are preferred as masters of their clusters (e.g. en; default: the first page's that declares one, the seed's if it does)"`
	// Groups assigns access groups to documents by URL prefix; the first
	// matching rule wins. Default: no groups (public).
	Groups []GroupRule `json:"groups"`
	// NoDedup turns near-duplicate detection off: every page is indexed
	// as its own cluster. For measuring what detection costs. Default
	// false.
	NoDedup bool `json:"no_dedup"`
	// Revisit configures recrawling: when each fetched page is fetched
	// again (see RevisitOptions).
	Revisit RevisitOptions `json:"revisit"`
	// MaxRetries is how often a URL is fetched again after a transient
	// failure (a timeout, a refused connection, HTTP 5xx, 429) before it
	// is recorded as an error. Default 3.
	MaxRetries int `json:"max_retries"`
	// RetryBackoff is the wait before the first retry; each next one
	// waits twice as long (a Retry-After header, if longer, wins).
	// Default 10s.
	RetryBackoff time.Duration `json:"retry_backoff"`
	// RefreshInterval is how soon fetched pages become searchable: the
	// index is flushed every 1000 pages, and at least this often while
	// pages wait. Shorter costs bleve more merging. Default 10s.
	RefreshInterval time.Duration `json:"refresh_interval"`
	// NoSync skips fsync on the state stores: a killed process loses
	// nothing, a power loss may. For tests and benchmarks. Default false.
	NoSync bool `json:"-"`
	// Shards, above 1, keeps a new crawl's search index in that many
	// bleve shards (package indexer/shard: routed by cluster, searched
	// as one index). The layout is the index's own: an index that exists
	// keeps it (a sharded one records its count, which another count
	// here contradicts: Open fails), so it is not saved with the other
	// options. Default 0: one bleve index, or the index as it is.
	Shards int `json:"-" flag:"shards" help:"keep a new crawl's index in {N} bleve shards, routed by cluster (default 1; a crawl keeps the count it was created with)"`
	// Frontier is the crawl's frontier. Default nil: the embedded one, a
	// file in the crawl's directory. A shared one (package redisfrontier:
	// a Redis Cluster) lets several workers crawl one site together, each
	// with a directory of its own; if it paces hosts itself
	// (frontier.Paced), every host's Crawl-delay and Retry-After pauses
	// go to it as well, for every worker; if it is a frontier.Shared,
	// every request to a host passes its gate and the workers learn each
	// host's robots.txt, soft-404 answer and sitemaps once among them
	// (see "Workers on a shared frontier" in the package doc). The
	// crawler closes it.
	Frontier frontier.Queue `json:"-"`
	// Share makes the crawler one worker of a crawl shared among workers
	// (with Frontier a frontier.Shared): clusters are assigned by the
	// workers' shared detector and each page, at its turn, and each
	// decision are handed on to it (sharedcrawl's Worker: to the shared
	// page log), from which a Follower keeps the crawl's records and
	// index (see Share). Not saved: pass it on each Open. Default nil: a
	// crawl of its own.
	Share Share `json:"-"`
	// Client is the HTTP client every request of the crawl goes through
	// — pages, robots.txt, sitemaps — for a proxy, TLS settings, a cookie
	// jar or a test's RoundTripper: its Transport and Jar are used; the
	// timeout and redirect policy are the crawl's own (Timeout; redirects
	// are queued as links). Not saved in crawl.json: pass it again on each
	// Open. Default nil: http.DefaultTransport (pages keep the cookies
	// their answers set, in memory, as colly does).
	Client *http.Client `json:"-"`
	// SMB reads smb:// URLs (SMB/CIFS shares) with its credentials; never
	// saved. Default nil: guest sessions.
	SMB *share.Transport `json:"-"`
	// Logins sign the crawl in to sites behind a login (HTTP Basic, NTLM,
	// a login form, fixed headers; see package login), and give the pages
	// fetched with a login its access groups (after a GroupRule matching
	// the page). Credentials in a seed URL (http://user:password@host/)
	// are taken out of it into Logins by Open, before anything is stored
	// or shown. Never saved: pass them again on each Open. Default nil:
	// none.
	Logins *login.Set `json:"-"`
}

// client returns an HTTP client with the crawl's Transport and Jar (see
// Client), wrapped in via if it is not nil (its requests still signed in
// by Logins), and the given timeout and redirect policy.
func (o *Options) client(timeout time.Duration, redirect func(*http.Request, []*http.Request) error, via func(http.RoundTripper) http.RoundTripper) *http.Client {
	c := &http.Client{Timeout: timeout, CheckRedirect: redirect}
	if o.Client != nil {
		c.Transport, c.Jar = o.Client.Transport, o.Client.Jar
	}
	if via != nil {
		c.Transport = via(c.Transport)
	}
	c.Transport = o.Logins.Transport(c.Transport)
	return c
}

const optionsFile = "crawl.json"

// resolveOptions returns the options a crawl in dir runs with: opts if it
// has seeds, else those saved by an earlier Open (with opts.MaxPages, if
// set, and opts.NoSync).
func resolveOptions(dir string, opts Options) (Options, error) {
	if len(opts.Seeds) == 0 {
		path := filepath.Join(dir, optionsFile)
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			if lostOptions(dir) {
				return opts, fmt.Errorf("crawler: %s is missing (the crawl's options; its records are there): pass the seeds again to replace it", path)
			}
			return opts, errors.New("crawler: no seeds, and no earlier crawl in " + dir + " to resume")
		}
		if err != nil {
			return opts, fmt.Errorf("crawler: %w", err)
		}
		saved, err := ParseConfig(data)
		if err != nil {
			return opts, fmt.Errorf("crawler: %s is damaged (%v); pass the seeds again to replace it", path, err)
		}
		saved.NoSync, saved.Client, saved.SMB, saved.Logins, saved.Shards, saved.Frontier, saved.Share = opts.NoSync, opts.Client, opts.SMB, opts.Logins, opts.Shards, opts.Frontier, opts.Share
		if opts.MaxPages != 0 {
			saved.MaxPages = opts.MaxPages
		}
		opts = saved
	}
	if err := opts.Validate(); err != nil {
		return opts, err
	}
	if len(opts.Seeds) == 0 {
		return opts, errors.New("crawler: no seeds")
	}
	return *opts.EnsureDefaults(), nil
}

// lostOptions reports whether dir holds a crawl's records without its
// options file.
func lostOptions(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, pagesFile))
	return err == nil
}

// takeCredentials returns opts with the credentials of its seeds
// (http://user:password@host/) taken out into Logins: a seed keeps its
// scheme, host and path, the credentials sign in to its host for this
// Open only. The caller's Seeds are not changed.
func takeCredentials(opts Options) (Options, error) {
	seeds := slices.Clone(opts.Seeds)
	for i, s := range seeds {
		u, err := url.Parse(s)
		if err != nil || u.User == nil {
			continue
		}
		if opts.Logins == nil {
			opts.Logins = &login.Set{}
		}
		if seeds[i], err = opts.Logins.TakeCredentials(s); err != nil {
			return opts, fmt.Errorf("crawler: seed %s: %w", redacted(s), err)
		}
	}
	opts.Seeds = seeds
	return opts, nil
}

// saveOptions writes o to dir atomically, for a later Open to resume with.
func saveOptions(dir string, o Options) error {
	data, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		return err
	}
	if err := renameio.WriteFile(filepath.Join(dir, optionsFile), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("crawler: saving options: %w", err)
	}
	return nil
}

// RevisitOptions configure when fetched pages are fetched again. The zero
// value of each field means its default.
type RevisitOptions struct {
	// Policy is "adaptive" (default: each page's change rate learned
	// from its history, the budget divided to keep the most pages fresh),
	// "uniform" (every page at the same interval) or "nutch" (Apache
	// Nutch's AdaptiveFetchSchedule); see package schedule.
	Policy string `json:"policy"`
	// Budget is the revisits per second the schedule plans for, across
	// the crawl. Default: half of what politeness allows one host
	// (HostParallelism ÷ Delay ÷ 2: 10/s with the defaults; 10/s without
	// a delay), leaving room for new pages.
	Budget float64 `json:"budget"`
	// MinInterval is the shortest interval of a page. Default 1 hour.
	MinInterval time.Duration `json:"min_interval"`
	// MaxInterval is the longest interval of a page. Default 30 days.
	MaxInterval time.Duration `json:"max_interval"`
	// Prior is the change interval assumed for a page before its
	// history says otherwise. Default 1 day.
	Prior time.Duration `json:"prior"`
	// CopyFactor multiplies the interval of a near-duplicate that is not
	// its cluster's master: a cluster is kept fresh through its master,
	// and its copies are fetched again when the master changes. Default 4.
	CopyFactor float64 `json:"copy_factor"`
	// TrivialBits is the largest SimHash distance between two versions of
	// a page that counts as a trivial change (a date line, a counter):
	// the page is updated, but its interval is not shortened. Default 3.
	TrivialBits int `json:"trivial_bits"`
	// Sitemaps is how often the sitemaps (named in robots.txt, or
	// /sitemap.xml) are read: their pages are queued, and a page whose
	// lastmod is newer than the copy is fetched at once. Default 1 hour;
	// negative: never.
	Sitemaps time.Duration `json:"sitemaps" zero:"none"`
}

// A GroupRule gives the documents under URL Prefix the access Groups.
type GroupRule struct {
	Prefix string   `json:"prefix"`
	Groups []string `json:"groups"`
}

// EnsureDefaults sets every zero field to its default (each field's doc
// says which) and returns r. (Options.EnsureDefaults sets Budget from the
// crawl's Delay first, when there is one.)
func (r *RevisitOptions) EnsureDefaults() *RevisitOptions {
	if r.Policy == "" {
		r.Policy = "adaptive"
	}
	if r.Budget == 0 {
		r.Budget = 10
	}
	if r.MinInterval == 0 {
		r.MinInterval = time.Hour
	}
	if r.MaxInterval == 0 {
		r.MaxInterval = 30 * 24 * time.Hour
	}
	if r.Prior == 0 {
		r.Prior = 24 * time.Hour
	}
	if r.CopyFactor == 0 {
		r.CopyFactor = 4
	}
	if r.TrivialBits == 0 {
		r.TrivialBits = 3
	}
	if r.Sitemaps == 0 {
		r.Sitemaps = time.Hour
	}
	return r
}

// EnsureDefaults sets every zero field to its default (each field's doc
// says which) and returns o; AllowedHosts defaults to the hosts of the
// seeds (those that parse: Validate reports the others).
func (o *Options) EnsureDefaults() *Options {
	o.ensurePace()
	if o.Revisit.Budget == 0 && o.Delay > 0 {
		// Half of what the hosts' slots can fetch: revisits leave room
		// for new pages.
		o.Revisit.Budget = float64(o.HostParallelism) / o.Delay.Seconds() / 2
	}
	o.Revisit.EnsureDefaults()
	o.ensureFetch()
	o.Traps.EnsureDefaults()
	setDefault(&o.MaxRedirects, 5)
	if len(o.AllowedHosts) == 0 {
		for _, s := range o.Seeds {
			if u, err := url.Parse(s); err == nil && u.Host != "" {
				o.AllowedHosts = append(o.AllowedHosts, strings.ToLower(u.Host))
			}
		}
	}
	return o
}

// ensurePace sets the defaults of the crawl's extent and pace: depth,
// pages, delay, parallelism and retries.
func (o *Options) ensurePace() {
	setDefault(&o.MaxDepth, 10)
	setDefault(&o.MaxPages, DefaultMaxPages)
	switch {
	case o.Delay == 0:
		o.Delay = 100 * time.Millisecond
	case o.Delay < 0:
		o.Delay = -1 // none; a fixed value so that the saved options read back the same
	}
	setDefault(&o.Parallelism, 2)
	setDefault(&o.HostParallelism, o.Parallelism)
	setDefault(&o.MaxRetries, 3)
	setDefault(&o.RetryBackoff, 10*time.Second)
}

// ensureFetch sets the defaults of each fetch and of the index's
// refresh: timeout, sizes, links per page, user agent.
func (o *Options) ensureFetch() {
	setDefault(&o.Timeout, 10*time.Second)
	setDefault(&o.RefreshInterval, 10*time.Second)
	setDefault(&o.MaxDocumentBytes, 50<<20)
	setDefault(&o.MaxBodyBytes, 5<<20)
	setDefault(&o.MaxLinksPerPage, 10000)
	setDefault(&o.UserAgent, "DoppelBot/1.0")
}

// setDefault sets *p to v if it is the zero value.
func setDefault[T comparable](p *T, v T) {
	var zero T
	if *p == zero {
		*p = v
	}
}

// folders returns the local folders and share folders the file and smb
// seeds name (a seed's
// folder: itself if it ends with "/", else its parent), as normalized
// file URL prefixes: the scope of a crawl of file URLs.
func (o Options) folders() []string {
	var out []string
	for _, s := range o.Seeds {
		u, err := urlnorm.Normalize(s, o.norm())
		if err != nil || !strings.HasPrefix(u, "file://") && !strings.HasPrefix(u, "smb://") {
			continue
		}
		out = append(out, u[:strings.LastIndex(u, "/")+1])
	}
	return out
}

// folderPaths returns the local folders the file seeds name (see
// folders), as paths: what the crawl's file transport serves.
func (o Options) folderPaths() []string {
	var out []string
	for _, f := range o.folders() {
		if u, err := url.Parse(f); err == nil && u.Scheme == "file" {
			out = append(out, u.Path)
		}
	}
	return out
}

// norm returns the URL normalization options.
func (o Options) norm() urlnorm.Options { return urlnorm.Options{DropParams: o.DropParams} }

// groupsFor returns the access groups of rawURL: the first GroupRule's
// that matches it, else those of the login it is fetched with, else none.
func (o Options) groupsFor(rawURL string) []string {
	for _, r := range o.Groups {
		if strings.HasPrefix(rawURL, r.Prefix) {
			return r.Groups
		}
	}
	if groups, ok := o.Logins.Groups(rawURL); ok {
		return groups
	}
	return nil
}
