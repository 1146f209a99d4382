package crawler

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/doppel-search/doppel/crawler/admit"
	"github.com/doppel-search/doppel/crawler/extract"
	"github.com/doppel-search/doppel/crawler/frontier"
	"github.com/doppel-search/doppel/crawler/hook"
	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/crawler/polite"
	"github.com/doppel-search/doppel/crawler/share"
	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/indexer/shard"
)

// Priorities of queued URLs (higher is crawled first).
const (
	PrioritySeed      = 100 // seeds, and canonical URLs named by a page
	PriorityListing   = 11  // a link found on a page with unique content to a further page of a listing (see Crawler doc)
	PriorityUnique    = 10  // a link found on a page with unique content
	PriorityDuplicate = 0   // a link found on a near-duplicate page
	PriorityFamily    = -5  // a link whose host and path template has produced near-duplicates
	// PriorityUseless: a link of a URL family whose requests have yielded
	// nothing (always noindex, copies, listings or redirects of nothing
	// new, errors: see traps.Yields), fetched after every other.
	PriorityUseless = -20
)

// Group commit and index flush policy.
const (
	// maxGroup is the most pages (and other outcomes) committed together:
	// their links queued in one frontier transaction, their records in
	// one page-store transaction.
	maxGroup = 64
	// flushPages: the index is flushed (and the flush watermark moved)
	// after this many fetched pages, or Options.RefreshInterval after the
	// last flush if pages are waiting. Each flush makes the pages
	// searchable; bigger flushes cost bleve less merging.
	flushPages = 1000
)

// paceAhead is how long before a host's turn its next request may be
// handed to a fetch goroutine when no other host may be asked now
// (polite.Options.Ahead, at most half the delay; dispatcher.look): the
// request then waits for the turn in the pacer's Send and goes out when
// it comes, not when a busy machine next wakes the dispatcher. On
// the kit's living site at one request each 200 ms the hosts stood ready
// 4 % of the time with no request sent (pace_idle_s, a loaded machine).
const paceAhead = 50 * time.Millisecond

// Stats counts what a crawl has done. Fetched, Unique, Duplicates,
// Skipped and Errors count records, across restarts; the revisit
// counters count what this process did.
type Stats struct {
	// Requests counts the requests for URLs not fetched before (pages
	// kept, fetches skipped or failed, retries): what MaxPages bounds.
	// Across restarts, a URL recorded after a request counts once.
	Requests   int64
	Fetched    int64 // pages fetched and processed (distinct pages, in the index's sense)
	Unique     int64 // fetched pages that founded a cluster
	Duplicates int64 // fetched pages that joined a cluster
	Skipped    int64 // URLs recorded as skipped (robots, traps, redirects, binary, canonical…)
	Errors     int64 // URLs whose fetch failed
	Queued     int   // URLs waiting in the frontier
	Scheduled  int   // fetched pages with a revisit scheduled
	// InFlight counts the URLs this process has taken from the frontier
	// (or sitemaps it is reading) and not yet committed: 0 between runs.
	InFlight int

	Revisits     int64 // fetches of pages fetched before
	NotModified  int64 // revisits answered 304 Not Modified
	Unchanged    int64 // revisits whose content had not changed (the server sent it all the same)
	Trivial      int64 // revisits that found a trivial change (SimHash within TrivialBits)
	Changed      int64 // revisits that found a real change
	Gone         int64 // revisits that found the page gone (404, 410, a redirect…): removed from the index
	Retries      int64 // fetches put back for a retry after a transient failure
	SitemapHints int64 // fetched pages whose sitemap lastmod made them due at once
	LinksLeft    int64 // fetched pages due at once because a revisited listing stopped linking to them
}

// A Crawler crawls into a data directory: Open, Run (again after a
// restart to resume), Close. Run must not be called concurrently; Stats,
// Health, Hosts, History, View and Index may be used at any time, also
// while Run runs.
//
// A Crawler coordinates five parts, each in files of its own with the
// stores and options it needs:
//
//   - the fetcher (fetch.go): fetches one URL with colly, parses, checks
//     admission and prepares the page (Parse, Prepare); one loop per
//     fetch goroutine, Parallelism of them.
//   - the dispatcher (dispatch.go): hands out frontier items, each with a
//     request slot of its host (package polite), until the crawl is over.
//   - the committer (commit.go, with the record writer in writer.go):
//     assigns clusters, records and indexes pages, queues links, in
//     groups; one goroutine. Its link planning is in links.go and
//     yield.go, its records in record.go, its revisit planning in
//     revisit.go, its re-clustering in recluster.go, its rebuild after a
//     restart in replay.go.
//   - the sitemap reader (sitemaps.go): reads the hosts' sitemaps for new
//     and changed pages.
//   - the view (view.go): reads the stores without the write side.
//
// Open chooses once what a crawl shared among worker processes does
// differently: the committer's role (role.go; sharedworker.go for a
// worker of a shared crawl), its detector's keeper (keeper.go) and the
// host turns on a shared frontier (turns.go). Each Run or Watch is a
// crawlRun (run.go).
type Crawler struct {
	opts  Options
	front frontier.Queue
	pages *pages.Store
	index Store
	pacer *polite.Pacer // per-host request slots, shared by the fetches and the sitemap reader
	// turns: how requests take their host's turns, on the crawl's own
	// frontier or on one other workers share (hostTurns).
	turns hostTurns
	n     *counters
	fatal *fatal

	commit *committer
	fetch  *fetcher
	maps   *sitemaps
	// files reads the file URLs of the seeds' folders.
	files *share.Folders
	// running is the dispatcher of the Run in progress, nil between runs.
	running atomic.Pointer[dispatcher]
}

// counters are what Stats reports: written by the parts, read at any
// time. Fetched, Unique, Duplicates, Skipped and Errors count records
// (across restarts: replay counts them again); the others count what this
// process did.
type counters struct {
	fetched, unique, dups, skipped, errs, requests atomic.Int64

	revisits, notModified, unchanged, trivial, changed, gone, retries, sitemapHints, linksLeft atomic.Int64

	health health // Health, Hosts and History (health.go)
}

// fatal holds the first storage error, which stops the crawl.
type fatal struct {
	mu  sync.Mutex
	err error
}

func (f *fatal) setFatal(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil {
		f.err = fmt.Errorf("crawler: storage failed: %w", err)
	}
}

// stop records err, unwrapped, as the error that stops the crawl (the
// first one wins).
func (f *fatal) stop(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil {
		f.err = err
	}
}

func (f *fatal) fatalErr() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// Open opens (or creates) the crawl state in dir. Options are saved in dir
// (crawl.json) on the first Open; a later Open with no Seeds uses the saved
// options, so a crawl resumes with the settings it started with. Open
// reads the near-duplicate detector from its snapshot in dir (written at
// the end of every run and as the crawl grows) and replays the pages
// recorded after it in crawl order — every recorded page when there is no
// usable snapshot — and brings the index up to date with them (see
// Crawler.Opened).
func Open(dir string, opts Options) (*Crawler, error) {
	start := time.Now()
	opts, err := takeCredentials(opts)
	if err != nil {
		return nil, err
	}
	opts, err = resolveOptions(dir, opts)
	if err != nil {
		return nil, err
	}
	if err := makeDir(dir); err != nil {
		return nil, err
	}
	if opts.SMB == nil {
		opts.SMB = &share.Transport{}
	}
	c := &Crawler{opts: opts, n: &counters{}, fatal: &fatal{},
		pacer: polite.New(polite.Options{Parallelism: opts.HostParallelism, Delay: max(opts.Delay, 0), Ahead: paceAhead}),
		files: &share.Folders{Paths: opts.folderPaths(), FollowLinksOutside: opts.FollowLinksOutside}}
	if c.front, err = openFrontier(dir, opts, c.pacer); err != nil {
		return nil, err
	}
	c.turns = newHostTurns(c.front)
	if c.pages, err = pages.Open(filepath.Join(dir, pagesFile), pages.Options{NoSync: opts.NoSync, Timeout: lockTimeout}); err != nil {
		c.front.Close()
		return nil, inUse(dir, err)
	}
	cm := &committer{opts: &c.opts, front: c.front, pages: c.pages, pacer: c.pacer, counters: c.n, fatal: c.fatal,
		linkPlan:    linkPlan{queued: map[string][]string{}, shaped: map[string][]string{}, yields: yields{}},
		revisitPlan: revisitPlan{recrawl: newRecrawl(opts.Revisit)}, snapshots: snapshots{dir: dir}}
	cm.role, cm.keeper = newRoles(&c.opts, cm)
	if c.index, err = openIndexChecked(dir, opts.Shards, indexer.Options{Policy: opts.Policy, NoAutoFlush: true,
		Source: indexer.SourceFunc(func(ctx context.Context, id string) (*indexer.Doc, error) { return cm.hook.SourceDoc(ctx, id) })}); err != nil {
		c.front.Close()
		c.pages.Close()
		return nil, inUse(dir, err)
	}
	if err := cm.role.checkStores(dir, c.pages, c.index); err != nil {
		c.index.Close()
		c.front.Close()
		c.pages.Close()
		return nil, damaged(dir, err)
	}
	cm.index = c.index
	c.maps = newSitemaps(&c.opts, c.pages, c.pacer, c.turns, c.n, c.fatal)
	aopts := admitOptions(opts, c.turns, c.maps.onRobots)
	adm := admit.New(aopts)
	c.maps.admit, cm.admit = adm, adm
	if cm.hook, cm.snap, err = newHook(c, dir, cm); err != nil {
		c.Close()
		return nil, err
	}
	c.commit = cm
	c.fetch = &fetcher{opts: &c.opts, admit: adm, hook: cm.hook, pages: c.pages, pacer: c.pacer, turns: c.turns, maps: c.maps, fatal: c.fatal, files: c.files}
	if err := saveOptions(dir, opts); err != nil {
		c.Close()
		return nil, err
	}
	if err := cm.replay(); err != nil {
		c.Close()
		return nil, damaged(dir, err)
	}
	cm.opened.Duration = time.Since(start)
	return c, nil
}

// openFrontier checks that the data directory dir has its stores (none
// if new), then returns the crawl's frontier — Options.Frontier, if given,
// else its own, opened — which, if paced, is handed the hosts' pace.
func openFrontier(dir string, opts Options, pacer *polite.Pacer) (frontier.Queue, error) {
	for _, name := range []string{pagesFile, frontierFile} {
		if name == frontierFile && opts.Frontier != nil {
			continue
		}
		if err := missing(dir, name); err != nil {
			return nil, damaged(dir, err)
		}
	}
	front := opts.Frontier
	if front == nil {
		var err error
		if front, err = frontier.Open(filepath.Join(dir, frontierFile), frontier.Options{NoSync: opts.NoSync, LockTimeout: lockTimeout}); err != nil {
			return nil, inUse(dir, err)
		}
	}
	if p, ok := front.(frontier.Paced); ok {
		pacer.OnPace(func(host string, delay time.Duration, until time.Time) {
			if err := p.Pace(host, delay, until); err != nil {
				slog.Warn("crawler: the frontier did not take a host's pace", "host", host, "err", err)
			}
		})
	}
	return front, nil
}

// admitOptions are the options of the crawl's admission, robots.txt
// handed to onRobots, hosts learnt as turns says (hostTurns.admission:
// on a shared frontier, once among the workers, each request at its
// host's turn).
func admitOptions(opts Options, turns hostTurns, onRobots func(*url.URL, admit.Robots)) admit.Options {
	aopts := admit.Options{AllowedHosts: opts.AllowedHosts, AllowedPrefixes: opts.AllowedPrefixes,
		IgnoreRobots: opts.IgnoreRobots, UserAgent: opts.UserAgent, Timeout: opts.Timeout, MaxBodyBytes: opts.MaxBodyBytes,
		MaxRedirects: opts.MaxRedirects, Traps: opts.Traps, Norm: opts.norm(), OnRobots: onRobots, Client: opts.Client,
		Folders: opts.folders(), FetchViews: opts.FetchViews}
	aopts.Exclude, _ = admit.CompileExclude(opts.Exclude) // valid: resolveOptions validated them
	turns.admission(&aopts, opts.Client)
	return aopts
}

// Opened describes how Open restored a crawl's state.
type Opened struct {
	Pages        int           // fetched pages recorded
	Replayed     int           // of them, pages signed and put through the detector again
	FromSnapshot bool          // the detector was read from its snapshot (see Options)
	Duration     time.Duration // the time Open took
}

// Opened returns how Open restored the crawl's state: a crawl whose
// detector was read from its snapshot replays only the pages recorded
// after it.
func (c *Crawler) Opened() Opened { return c.commit.opened }

// Names in the data directory.
const (
	frontierFile = "frontier.db"
	pagesFile    = "pages.db"
	indexDir     = "index"
	lockTimeout  = 2 * time.Second
)

// makeDir creates the data directory dir if it does not exist, but not
// its parents: a misspelled parent is an error, not a new tree.
func makeDir(dir string) error {
	if info, err := os.Stat(dir); err == nil {
		if !info.IsDir() {
			return fmt.Errorf("crawler: data directory %s is a file", dir)
		}
		return nil
	}
	parent := filepath.Dir(filepath.Clean(dir))
	if info, err := os.Stat(parent); err != nil || !info.IsDir() {
		return fmt.Errorf("crawler: cannot create data directory %s: %s does not exist", dir, parent)
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("crawler: %w", err)
	}
	return nil
}

// inUse returns err as a user reads it: a lock another process holds, a
// damaged store (see damaged), or err itself.
func inUse(dir string, err error) error {
	if errors.Is(err, bolterrors.ErrTimeout) {
		return fmt.Errorf("crawler: data directory %s is in use by another process: %w", dir, err)
	}
	return damaged(dir, err)
}

// newHook returns the hook a crawl processes pages with: the crawl's
// detector settings, the detector its keeper gives (cm.keeper.openHook:
// read from its snapshot in the data directory dir if it has a usable
// one, with the verification sets in a file in dir; or a shared crawl's),
// recording with cm.record (and reading records back with
// cm.recordedPage), indexing into c.index; stylesheets are fetched with
// c's politeness and page budget (styles).
func newHook(c *Crawler, dir string, cm *committer) (*hook.Hook, *snapHeader, error) {
	opts := &c.opts
	// A stylesheet takes one request of the page budget as the Run's
	// dispatcher decides its pages': none between runs or once it is spent.
	spend := func() bool {
		d := c.running.Load()
		return d != nil && d.spend(&c.n.requests)
	}
	hopts := hook.Options{Index: c.index, MaxBodyBytes: opts.MaxBodyBytes, MaxLinks: opts.MaxLinksPerPage, Language: opts.Language,
		Documents: extract.Limits{MaxBytes: opts.MaxDocumentBytes}, PreferDocuments: opts.PreferDocuments,
		Groups: opts.groupsFor, NoDedup: opts.NoDedup, Recorder: hook.RecorderFunc(cm.record), Source: cm.recordedPage,
		Styles: newStyles(opts, cm.admit, c.pacer, c.turns, spend).source()}
	return cm.keeper.openHook(hopts, dir)
}

// Close closes the stores and the folders and logs off the SMB sessions.
// In-flight URLs are fetched again by the next Run.
func (c *Crawler) Close() error {
	var det error
	if c.commit != nil && c.commit.hook != nil {
		det = c.commit.keeper.close(c.commit.hook.Detector())
	}
	return errors.Join(c.index.Close(), c.pages.Close(), c.front.Close(), c.opts.SMB.Close(), c.files.Close(), det)
}

// Stats returns the counters so far.
func (c *Crawler) Stats() Stats {
	n := c.n
	st := Stats{Requests: n.requests.Load(), Fetched: n.fetched.Load(), Unique: n.unique.Load(), Duplicates: n.dups.Load(),
		Skipped: n.skipped.Load(), Errors: n.errs.Load(),
		Revisits: n.revisits.Load(), NotModified: n.notModified.Load(), Unchanged: n.unchanged.Load(),
		Trivial: n.trivial.Load(), Changed: n.changed.Load(), Gone: n.gone.Load(), Retries: n.retries.Load(),
		SitemapHints: n.sitemapHints.Load(), LinksLeft: n.linksLeft.Load()}
	if fs, err := c.front.Stats(); err == nil {
		st.Queued, st.Scheduled = fs.Pending, fs.Scheduled
	}
	if d := c.running.Load(); d != nil {
		d.mu.Lock()
		st.InFlight = d.inflight
		d.mu.Unlock()
	}
	return st
}

// Options returns the options in effect (defaults filled in).
func (c *Crawler) Options() Options { return c.opts }

// Index returns the crawl's search index if it is one bleve index (nil
// if it is sharded; see Store). Pages become searchable when the crawl
// flushes it: every 1000 pages, at least every RefreshInterval, and at
// the end.
func (c *Crawler) Index() *indexer.Index {
	x, _ := c.index.(*indexer.Index)
	return x
}

// Store returns the crawl's search index, one bleve index or shards of
// one.
func (c *Crawler) Store() Store { return c.index }

// A Store is a crawl's search index, both sides: one bleve index
// ([*indexer.Index]) or shards of one ([*shard.Index]).
type Store interface {
	indexer.Writer
	indexer.Searcher
	// Indexed returns how many documents the index holds.
	Indexed() (int, error)
	// EachID calls fn with the id of every document, in id order.
	EachID(fn func(id string) error) error
}

// openIndex opens the crawl's search index in dir under opts: sharded
// if it is (with its count; shards, if not 0, must agree), or if shards
// is above 1 and there is none yet; one bleve index otherwise.
func openIndex(dir string, shards int, opts indexer.Options) (Store, error) {
	path := filepath.Join(dir, indexDir)
	if shard.IsSharded(path) || shards > 1 {
		return shard.Open(path, shards, opts)
	}
	return indexer.Open(path, opts)
}

// Detector returns the crawl's near-duplicate detector. It is written by
// Run; read it when Run is not running.
func (c *Crawler) Detector() *dedup.Detector { return c.commit.hook.Detector() }

// Run crawls until the frontier has nothing left to fetch now, the page
// budget is spent or ctx is done, and flushes the index. Revisits that
// are due are fetched too (MaxPages counts distinct pages, so revisits go
// on after it is spent); later ones are left scheduled for the next Run
// or Watch. Interrupted, Run returns ctx.Err() and leaves the state
// resumable: call Run again (after Open, in a new process) to go on.
//
// Parallelism fetch goroutines pop the frontier — each URL with a request
// slot of its host: at most HostParallelism at once and per Delay, one at
// a time Crawl-delay apart if robots.txt asks, none while a Retry-After
// lasts — fetch, parse, check admission and sign pages; one committer
// assigns clusters, records and indexes them in the order it receives
// them, committing up to 64 of them at a time, while the fetch goroutines
// go on.
func (c *Crawler) Run(ctx context.Context) error { return crawlRun{c: c}.run(ctx) }

// Watch crawls as Run does and then keeps the crawl fresh until ctx is
// done: each page is fetched again when its revisit falls due (see
// RevisitOptions), the sitemaps are read every Revisit.Sitemaps, and new
// pages found on the way are crawled while the page budget lasts. It
// returns ctx.Err() when ctx is done, with the state resumable.
func (c *Crawler) Watch(ctx context.Context) error { return crawlRun{c: c, keep: true}.run(ctx) }

// NextRevisit returns when the earliest scheduled revisit is due, and
// false if none is scheduled.
func (c *Crawler) NextRevisit() (time.Time, bool) { return c.front.NextDue() }

// BudgetSpent reports whether a crawl with these counters has made its
// maxPages requests (Options.MaxPages) with URLs still queued: it stopped
// at its page budget, not because nothing was left to fetch.
func (s Stats) BudgetSpent(maxPages int) bool {
	return s.Requests >= int64(maxPages) && s.Queued > 0
}
