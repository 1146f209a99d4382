package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/doppel-search/doppel/crawler"
	"github.com/doppel-search/doppel/crawler/fleet"
	"github.com/doppel-search/doppel/crawler/fleet/redisfleet"
	"github.com/doppel-search/doppel/crawler/report"
	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/indexer/shard"
	"github.com/doppel-search/doppel/internal/settings"
	"github.com/doppel-search/doppel/page/sitename"
	"github.com/doppel-search/doppel/ranking"
	"github.com/doppel-search/doppel/web"
	"github.com/redis/go-redis/v9"
)

// serveSettings are doppel serve's settings: its flags and its
// configuration file (--config).
type serveSettings struct {
	Data        string   `json:"data" flag:"data" help:"the crawl's data {directory} (required unless --shards)"`
	Shards      []string `json:"shards" flag:"shards" sep:"," help:"search the index in shards other processes serve (doppel shard), at these comma-separated base {URLs}, shard 0 first, instead of the data directory's index"`
	IndexShards int      `json:"index_shards" flag:"index-shards" help:"with --redis and --data: keep a new directory's index of the shared crawl in {N} bleve shards, routed by cluster (doppel shard serves each)"`
	Addr        string   `json:"addr" flag:"addr" help:"listen {address}"`
	sharedSettings
	identitySettings
}

// serveDefaults returns doppel serve's default settings.
func serveDefaults() serveSettings {
	return serveSettings{Addr: "127.0.0.1:8080", sharedSettings: sharedDefaults(),
		identitySettings: identitySettings{Options: *(&web.Options{}).EnsureDefaults()}}
}

// runServe serves the search UI and API over a crawl's data directory,
// or over shards other processes serve.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	c := defineConfig(fs, serveDefaults(), true)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: doppel serve --data DIR [--shards URLS] [--redis ADDRS [--crawl NAME]] [--addr 127.0.0.1:8080] [--groups-header H [--trusted-proxies CIDRS] | --demo-users SPEC]\n"+
			"                   [--admin-groups G | --admin-addr 127.0.0.1:8081] [--config FILE]\n"+
			"       doppel serve --shards URLS [flags]\n\n"+
			"Serves the search UI and JSON API over a crawl, read-only: it opens the crawl's records and index\n"+
			"without rebuilding anything, so it answers at once. A crawl running in another process holds the\n"+
			"data directory; search it with doppel crawl --serve instead. An index in shards (doppel crawl\n"+
			"--shards N) is searched as one; with --shards, the shards are those other processes serve (doppel\n"+
			"shard), and the data directory, if given, supplies the records (page texts, status numbers).\n"+
			"With --redis and --data, DIR is the records and index of the crawl NAME that doppel worker\n"+
			"processes share on that Redis Cluster: serve keeps them, reading the crawl's page log in the\n"+
			"shared detector's order (resuming where it stopped), serves them as they grow, and its status\n"+
			"page lists the workers. With --redis and --shards alone, the status page lists the workers.\n"+
			"Without --groups-header or\n"+
			"--demo-users every visitor is anonymous and sees public documents only. The groups header is\n"+
			"believed only from --trusted-proxies (default: none); repeated, the request is refused.\n"+
			"The status page, /api/stats and /metrics are for --admin-groups, or on --admin-addr.\n"+
			"Every flag is also a setting of the configuration file (--config), which --print-config prints\n"+
			"(with the request timeout and the longest query, which only the file sets).\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	s, err := c.load(stderr)
	if err != nil {
		return err
	}
	id, err := s.identity()
	if err == nil {
		err = s.validate()
	}
	if err != nil {
		return err
	}
	if c.print {
		return writeSettings(stdout, s)
	}
	if err := s.check(fs, stderr); err != nil {
		return err
	}
	if len(s.Redis) > 0 && s.Data != "" {
		return serveShared(ctx, &s, id, stdout, stderr)
	}
	return serveCrawl(ctx, &s, id, stdout, stderr)
}

// check refuses settings missing or out of place, as usage errors.
func (s *serveSettings) check(fs *flag.FlagSet, stderr io.Writer) error {
	switch {
	case s.Data == "" && len(s.Shards) == 0:
		fmt.Fprintln(stderr, "doppel serve: --data or --shards is required")
		usageHint(fs, stderr)
	case s.IndexShards != 0 && (len(s.Redis) == 0 || s.Data == "" || s.IndexShards < 1):
		fmt.Fprintln(stderr, "doppel serve: --index-shards N (N ≥ 1) is for a shared crawl's directory: give --redis and --data")
	case len(s.Redis) > 0 && s.Data != "" && len(s.Shards) > 0:
		fmt.Fprintln(stderr, "doppel serve: --redis with --data keeps the crawl's index in DIR; --shards is not for it")
	default:
		return nil
	}
	return errUsage
}

// validate refuses what a configuration file may give and the flags
// refuse: a link map web.ParseShareLink refuses, a demo user without a
// name.
func (s *serveSettings) validate() error {
	var errs []error
	for _, l := range s.Links {
		if _, err := web.ParseShareLink(l.Prefix + "=" + l.Target); err != nil {
			errs = append(errs, fmt.Errorf("links: %w", err))
		}
	}
	for _, u := range s.DemoUsers {
		if strings.TrimSpace(u.Name) == "" {
			errs = append(errs, errors.New("demo_users: a user without a name"))
		}
	}
	return errors.Join(errs...)
}

// serveCrawl serves the crawl in s.Data, or the shards other processes
// serve (with the records in s.Data, if given), and, with --redis, lists
// the shared crawl's workers on its status page.
func serveCrawl(ctx context.Context, s *serveSettings, opts identity, stdout, stderr io.Writer) error {
	var remote *shard.Index
	var err error
	if len(s.Shards) > 0 {
		dial, cancel := context.WithTimeout(ctx, 10*time.Second)
		remote, err = shard.Dial(dial, s.Shards, shardClient())
		cancel()
		if err != nil {
			return err
		}
		defer remote.Close()
	}
	var v *crawler.View
	switch {
	case s.Data != "" && remote != nil:
		v, err = crawler.OpenViewWith(s.Data, remote)
	case s.Data != "":
		v, err = crawler.OpenView(s.Data)
	}
	if err != nil {
		return err
	}
	store := indexer.Searcher(remote)
	if v != nil {
		defer v.Close()
		store = v.Store()
	}
	var roll *redisfleet.Roll
	if len(s.Redis) > 0 {
		rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: s.Redis})
		defer rdb.Close()
		if roll, err = redisfleet.New(rdb, redisfleet.Options{Prefix: s.Crawl}); err != nil {
			return err
		}
	}
	return serve(ctx, v, store, roll, s.Addr, opts, stdout, stderr)
}

// identity is who visitors are and who administers, from the flags.
type identity struct {
	web       web.Options // GroupsHeader, TrustedProxies, DemoUsers, AdminGroups, Links
	adminAddr string      // the administrators' listener, if any
	// demoAnywhere serves demo users on an address that is not
	// loopback (--demo-users-anywhere).
	demoAnywhere bool
}

// identitySettings are the settings that say who a visitor is and who
// administers: those of web.Options (its tags declare their flags) and
// the command's own.
type identitySettings struct {
	web.Options
	DemoUsersAnywhere bool   `json:"demo_users_anywhere" flag:"demo-users-anywhere" help:"serve --demo-users on an address that is not loopback: anybody who connects picks any user and reads what that user may"`
	AdminAddr         string `json:"admin_addr" flag:"admin-addr" help:"also serve the status page, /api/stats and /metrics, to anybody who connects, on this loopback {address} (e.g. 127.0.0.1:8081)"`
}

// identity returns the identity the settings say, refusing an
// administrators' listener off loopback.
func (s identitySettings) identity() (identity, error) {
	if s.AdminAddr != "" && !isLoopback(s.AdminAddr) {
		return identity{}, fmt.Errorf("--admin-addr %s: give a loopback address such as 127.0.0.1:8081 (anybody who connects sees every document's counts; elsewhere use --admin-groups)", s.AdminAddr)
	}
	return identity{web: s.Options, adminAddr: s.AdminAddr, demoAnywhere: s.DemoUsersAnywhere}, nil
}

// identityFlags defines the flags that say who a visitor is and who
// administers (identitySettings), and returns a function that reads them
// after parsing.
func identityFlags(fs *flag.FlagSet) func() (identity, error) {
	flags := settings.Register[identitySettings](fs, flagParsers...)
	return func() (identity, error) {
		var s identitySettings
		if err := flags.Apply(&s); err != nil {
			return identity{}, err
		}
		return s.identity()
	}
}

// splitList splits a comma-separated list, dropping blanks.
func splitList(s string) []string {
	var out []string
	for _, g := range strings.Split(s, ",") {
		if g = strings.TrimSpace(g); g != "" {
			out = append(out, g)
		}
	}
	return out
}

// check returns why serving on addr with these identity settings would
// not keep users apart, if it would not: a groups header believed from
// no proxy (every request anonymous, the header a trap for whoever
// expects it to work), or demo users — whom anybody picks — on an
// address others can reach, unless asked for.
func (id identity) check(addr string) error {
	if id.web.GroupsHeader != "" && len(id.web.TrustedProxies) == 0 {
		return fmt.Errorf("--groups-header %s is believed only from --trusted-proxies, and none is given: give your reverse proxy's address (127.0.0.1 for a proxy on this host), and let only it reach %s", id.web.GroupsHeader, addr)
	}
	if len(id.web.DemoUsers) > 0 && id.web.GroupsHeader == "" && !isLoopback(addr) && !id.demoAnywhere {
		return fmt.Errorf("demo users on %s, not a loopback address: anybody who connects could pick any user and read what that user may; serve them on 127.0.0.1, or add --demo-users-anywhere", addr)
	}
	return nil
}

// parseTrustedProxies parses "10.0.0.5,192.168.1.0/24,::1"; empty gives
// nil (web's default: no proxy is trusted).
func parseTrustedProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, p := range splitList(s) {
		if pre, err := netip.ParsePrefix(p); err == nil {
			out = append(out, pre.Masked())
			continue
		}
		a, err := netip.ParseAddr(p)
		if err != nil {
			return nil, fmt.Errorf("%q is neither an IP address nor a CIDR network", p)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}

// isLoopback reports whether a listen address names a loopback host
// ("localhost" included); an empty host (all interfaces) is not.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback()
}

// parseDemoUsers parses "name=group,group;name=…".
func parseDemoUsers(spec string) ([]web.DemoUser, error) {
	var users []web.DemoUser
	for _, part := range strings.Split(spec, ";") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		name, groups, ok := strings.Cut(part, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, fmt.Errorf("%q is not name=group,group", part)
		}
		u := web.DemoUser{Name: name}
		for _, g := range strings.Split(groups, ",") {
			if g = strings.TrimSpace(g); g != "" {
				u.Groups = append(u.Groups, g)
			}
		}
		users = append(users, u)
	}
	return users, nil
}

// serve runs the web server over store — with the crawl's records, if
// v is not nil — until ctx is done.
func serve(ctx context.Context, v *crawler.View, store indexer.Searcher, roll *redisfleet.Roll, addr string, id identity, stdout, stderr io.Writer) error {
	ln, err := listen(v, store, nil, roll, addr, id, stdout, stderr)
	if err != nil {
		return err
	}
	return ln.serve(ctx)
}

// A server is the search UI (and the administrators' listener, if any)
// listening, not yet serving.
type server struct {
	hs  []*http.Server
	lns []net.Listener
}

// listen binds addr (and the admin address) and prepares the web server
// over the search index store, with web.HTTPServer's connection limits:
// with the crawl's records v (nil: none — no page texts, no status
// numbers). With live, the crawl running in this process, the status
// page and /api/stats show its hosts and its course and /metrics its
// counters (see withLiveCrawl). With roll, the workers of a crawl shared
// on a Redis Cluster are listed there too.
func listen(v *crawler.View, store indexer.Searcher, live *crawler.Crawler, roll *redisfleet.Roll, addr string, id identity, stdout, stderr io.Writer) (*server, error) {
	srv, err := newWeb(v, store, live, roll, id)
	if err != nil {
		return nil, err
	}
	if err := id.check(addr); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", addr, err)
	}
	s := &server{hs: []*http.Server{web.HTTPServer(srv, web.HTTPOptions{})}, lns: []net.Listener{ln}}
	fmt.Fprintf(stdout, "Search UI: http://%s/  (JSON API under /api/, metrics at /metrics; Ctrl-C stops)\n", ln.Addr())
	if id.adminAddr != "" {
		aln, err := net.Listen("tcp", id.adminAddr)
		if err != nil {
			ln.Close()
			return nil, fmt.Errorf("listening on %s: %w", id.adminAddr, err)
		}
		s.hs = append(s.hs, web.HTTPServer(srv.AdminHandler(), web.HTTPOptions{}))
		s.lns = append(s.lns, aln)
		fmt.Fprintf(stdout, "Status for administrators: http://%s/status  (/api/stats, /metrics)\n", aln.Addr())
	}
	return s, nil
}

// newWeb returns the web server over store, with the crawl's records v,
// the live crawl and the roll of workers as listen takes them.
func newWeb(v *crawler.View, store indexer.Searcher, live *crawler.Crawler, roll *redisfleet.Roll, id identity) (*web.Server, error) {
	opts := id.web
	if v != nil {
		opts.Text = v.Text
		opts.ContainedIn = v.ContainedIn
		opts.SiteNames = cachedSiteNames(v, time.Minute)
		opts.Fetched = v.FetchedAt
		opts.Status = cachedStatus(v, 5*time.Second)
		opts.Duplicates = cachedReport(v, time.Minute)
	}
	if live != nil {
		withLiveCrawl(&opts, live)
	}
	if roll != nil {
		opts.Status = withWorkers(opts.Status, roll)
	}
	return web.New(ranking.New(store, ranking.Options{}), opts)
}

// serve serves until ctx is done, then shuts down gracefully.
func (s *server) serve(ctx context.Context) error {
	errc := make(chan error, len(s.hs))
	for i, hs := range s.hs {
		go func() { errc <- hs.Serve(s.lns[i]) }()
	}
	select {
	case err := <-errc:
		s.shutdown()
		return err
	case <-ctx.Done():
		return s.shutdown()
	}
}

func (s *server) shutdown() error {
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var errs []error
	for _, hs := range s.hs {
		if err := hs.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// cachedStatus computes the status page's numbers at most once per ttl.
func cachedStatus(v *crawler.View, ttl time.Duration) func() web.Status {
	var mu sync.Mutex
	var last web.Status
	var at time.Time
	return func() web.Status {
		mu.Lock()
		defer mu.Unlock()
		if !at.IsZero() && time.Since(at) < ttl {
			return last
		}
		if s, err := v.Summary(); err == nil {
			last = web.Status{Documents: s.Fetched, Clusters: s.Clusters, Duplicates: s.Duplicates, Queued: s.Queued,
				Errors: s.Errors, Gone: s.Gone, Searchable: s.Searchable, Skipped: max(0, min(s.Duplicates, s.Fetched-s.Indexed)), // pages waiting for a flush are no near-duplicates
				ClusterSizes: s.ClusterSizes, Hamming: s.Hamming}
		}
		at = time.Now()
		return last
	}
}

// cachedReport computes the duplicates report at most once per ttl (it
// reads every record); an error is returned, and tried again next time.
func cachedReport(v *crawler.View, ttl time.Duration) func() (*report.Report, error) {
	var mu sync.Mutex
	var last *report.Report
	var at time.Time
	return func() (*report.Report, error) {
		mu.Lock()
		defer mu.Unlock()
		if last != nil && time.Since(at) < ttl {
			return last, nil
		}
		r, err := report.Build(v, v.Store(), report.Options{})
		if err != nil {
			return nil, err
		}
		last, at = r, time.Now()
		return r, nil
	}
}

// cachedSiteNames returns the site names of v's hosts (View.SiteNames),
// learned again at most every ttl; the last ones learned (none at first)
// while the records cannot be read.
func cachedSiteNames(v *crawler.View, ttl time.Duration) func() *sitename.Names {
	var mu sync.Mutex
	var last *sitename.Names
	var at time.Time
	return func() *sitename.Names {
		mu.Lock()
		defer mu.Unlock()
		if !at.IsZero() && time.Since(at) < ttl {
			return last
		}
		at = time.Now()
		if n, err := v.SiteNames(); err == nil {
			last = n
		}
		return last
	}
}

// withWorkers returns status with the roll's workers added, and their
// report as a whole (status nil: those alone). A roll that cannot be read
// (the cluster down) leaves them out of that answer.
func withWorkers(status func() web.Status, roll *redisfleet.Roll) func() web.Status {
	return func() web.Status {
		var st web.Status
		if status != nil {
			st = status()
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if ws, err := roll.Workers(ctx); err == nil {
			total := fleet.Total(ws)
			st.Workers, st.Fleet = ws, &total
		}
		return st
	}
}
