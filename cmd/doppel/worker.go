package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/doppel-search/doppel/crawler"
	"github.com/doppel-search/doppel/crawler/fleet"
	"github.com/doppel-search/doppel/crawler/fleet/redisfleet"
	"github.com/doppel-search/doppel/crawler/sharedcrawl"
	"github.com/doppel-search/doppel/internal/settings"
	"github.com/doppel-search/doppel/internal/ticker"
	"github.com/doppel-search/doppel/web"
)

// sharedSettings name a crawl shared on a Redis Cluster.
type sharedSettings struct {
	Redis    []string      `json:"redis" flag:"redis" sep:"," help:"the Redis Cluster the crawl is shared on, comma-separated {addresses} (any of its nodes)"`
	Crawl    string        `json:"crawl" flag:"crawl" help:"the shared crawl's {name} on --redis, its key prefix (default \"doppel\")"`
	Lease    time.Duration `json:"lease" flag:"lease" help:"how long a worker that stopped answering holds its URLs and its detector turn before the others take them over"`
	Replicas int           `json:"replicas" flag:"replicas" help:"replicas of a master that must have each change to the frontier and the page log before it counts (fewer if fewer are online; 0: none)"`
}

// sharedDefaults returns the default sharedSettings.
func sharedDefaults() sharedSettings { return sharedSettings{Lease: 30 * time.Second, Replicas: 1} }

// open opens the shared crawl, as a worker (or, with follower, as the
// follower), with the detector's similarity.
func (s *sharedSettings) open(ctx context.Context, worker string, opts crawler.Options, follower bool) (*sharedcrawl.Crawl, *redis.ClusterClient, error) {
	if err := sharedcrawl.CheckName(s.Crawl); err != nil {
		return nil, nil, err
	}
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: s.Redis})
	// Fail at once on a cluster that cannot be reached, rather than after
	// the stores' retries through a failover (30 s).
	ping, cancel := context.WithTimeout(ctx, 10*time.Second)
	err := rdb.Ping(ping).Err()
	cancel()
	if err != nil {
		rdb.Close()
		return nil, nil, fmt.Errorf("cannot reach the Redis Cluster at %s: %w", strings.Join(s.Redis, ","), err)
	}
	so := sharedcrawl.Options{Name: s.Crawl, Worker: worker, Similarity: opts.Similarity, Lease: s.Lease, Replicas: s.Replicas}
	var sc *sharedcrawl.Crawl
	if follower {
		sc, err = sharedcrawl.OpenFollower(ctx, rdb, so)
	} else {
		sc, err = sharedcrawl.Open(ctx, rdb, so)
	}
	if err != nil {
		rdb.Close()
		return nil, nil, fmt.Errorf("the shared crawl on %s: %w", strings.Join(s.Redis, ","), err)
	}
	return sc, rdb, nil
}

// runWorker is `doppel worker`: one worker of a crawl shared on a Redis
// Cluster.
func runWorker(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	w, err := parseWorker(args, stderr)
	if err != nil {
		return err
	}
	if w.f.printConfig {
		return writeConfig(stdout, w.opts)
	}
	sc, rdb, err := w.sf.open(ctx, w.sf.ID, w.opts, false)
	if err != nil {
		return err
	}
	defer rdb.Close()
	defer sc.Close()
	c, err := w.openCrawl(ctx, sc, stderr)
	if err != nil {
		return err
	}
	defer c.Close()
	return w.crawl(ctx, c, sc, stdout, stderr)
}

// workerSettings are doppel worker's own settings: the shared crawl it
// joins, and itself. Its crawl settings are crawler.Options's.
type workerSettings struct {
	sharedSettings
	ID     string `json:"id" flag:"id" help:"this worker's {name} in the crawl, unique among the workers up (default: host name and process id)"`
	Status string `json:"status" flag:"status" help:"serve this worker's status page, /api/stats and /metrics on this loopback {address} (e.g. 127.0.0.1:8091)"`
}

// workerArgs are `doppel worker`'s flags, parsed and checked.
type workerArgs struct {
	f    *crawlFlags
	sf   workerSettings
	opts crawler.Options
}

// parseWorker parses and checks `doppel worker`'s flags.
func parseWorker(args []string, stderr io.Writer) (*workerArgs, error) {
	fs, f := newCrawlFlags(stderr)
	fs.Init("worker", flag.ContinueOnError)
	w := &workerArgs{f: f}
	own := settings.Register[workerSettings](fs, settings.Defaults(workerSettings{sharedSettings: sharedDefaults()}))
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: doppel worker --redis ADDRS [--crawl NAME] --data DIR --seed URL [--seed URL…] [--status ADDR] [crawl flags]\n\n"+
			"Joins the crawl NAME shared on a Redis Cluster: fetches URLs from its shared frontier (politeness\n"+
			"per host holds across every worker), assigns their near-duplicate clusters with the shared\n"+
			"detector and hands each page and decision to the crawl's page log, which `doppel serve --redis`\n"+
			"reads into the crawl's records and index. DIR keeps this worker's own records (for its decisions\n"+
			"and its restart). Workers may join and leave at any time: a worker killed mid-crawl holds its\n"+
			"URLs for --lease, then the others fetch them. Give every worker the same seeds and options (the\n"+
			"first worker's are the crawl's). Stops when Ctrl-C (or, with --once, when the crawl has nothing\n"+
			"left to fetch); kept running, it fetches the revisits serve --redis schedules.\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return nil, err
	}
	w.sf = workerSettings{sharedSettings: sharedDefaults()}
	if err := own.Apply(&w.sf); err != nil {
		return nil, err
	}
	var err error
	if w.opts, err = f.options(fs); err != nil {
		return nil, err
	}
	if f.printConfig { // the crawl's options only: neither Redis nor a data directory is needed
		return w, checkCrawlCounts(fs, stderr)
	}
	if err := w.check(fs, stderr); err != nil {
		return nil, err
	}
	return w, nil
}

// check refuses flags missing or out of place.
func (w *workerArgs) check(fs *flag.FlagSet, stderr io.Writer) error {
	var missing []string
	if len(w.sf.Redis) == 0 {
		missing = append(missing, "--redis")
	}
	if w.f.data == "" {
		missing = append(missing, "--data")
	}
	if len(w.opts.Seeds) == 0 {
		missing = append(missing, "--seed (every worker is given the seeds; those already queued are not queued again)")
	}
	if w.f.serveAddr != "" {
		fmt.Fprintln(stderr, "doppel worker: --serve is not a worker flag (a worker keeps no index: search with doppel serve --redis)")
		return errUsage
	}
	if len(missing) > 0 {
		fmt.Fprintf(stderr, "doppel worker: %v required\n", missing)
		usageHint(fs, stderr)
		return errUsage
	}
	if w.sf.Status != "" && !isLoopback(w.sf.Status) {
		return fmt.Errorf("--status %s: give a loopback address such as 127.0.0.1:8091 (the page shows the crawl's counts to anybody who connects)", w.sf.Status)
	}
	return checkCrawlCounts(fs, stderr)
}

// openCrawl announces this worker's options to the shared crawl and opens
// its own crawl with the crawl's options (the first worker's).
func (w *workerArgs) openCrawl(ctx context.Context, sc *sharedcrawl.Crawl, stderr io.Writer) (*crawler.Crawler, error) {
	crawl, err := sc.Announce(ctx, w.opts)
	if err != nil {
		return nil, err
	}
	if crawl.Similarity != w.opts.Similarity {
		return nil, fmt.Errorf("crawl %q judges copies by %s; this worker was given %s: give every worker the same options", sc.Name, crawl.Similarity, w.opts.Similarity)
	}
	if mine, theirs := announced(w.opts), announced(crawl); mine != theirs {
		fmt.Fprintf(stderr, "doppel worker: crawl %q has the options its first worker announced, which differ from this worker's flags: using the crawl's\n", sc.Name)
	}
	return crawler.Open(w.f.data, sc.Options(crawl))
}

// crawl joins the crawl's roll, with a status page if asked, crawls until
// stopped (or, with --once, done), leaves and prints the counts.
func (w *workerArgs) crawl(ctx context.Context, c *crawler.Crawler, sc *sharedcrawl.Crawl, stdout, stderr io.Writer) error {
	host, _ := os.Hostname()
	me := fleet.Worker{ID: sc.Worker, Host: host, PID: os.Getpid()}
	var srv *server
	var err error
	if w.sf.Status != "" {
		if srv, err = listenStatus(c, sc.Roll, w.sf.Status); err != nil {
			return err
		}
		me.StatusURL = "http://" + srv.lns[0].Addr().String() + "/status"
	}
	member, err := sc.Roll.Join(ctx, me, func() fleet.Report { return workerReport(c) })
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "worker %s joined crawl %q on %s\n", sc.Worker, sc.Name, strings.Join(w.sf.Redis, ","))
	if srv != nil {
		fmt.Fprintf(stdout, "Status: %s  (/api/stats, /metrics)\n", me.StatusURL)
	}
	serveCtx, stopServing := context.WithCancel(context.Background())
	served := make(chan error, 1)
	if srv != nil {
		go func() { served <- srv.serve(serveCtx) }()
	}
	start := time.Now()
	stop := reportProgress(c, stderr, isTerminal(stderr), start)
	if w.f.once {
		err = c.Run(ctx)
	} else {
		err = c.Watch(ctx)
	}
	stop()
	stopServing()
	if srv != nil {
		err = errors.Join(err, <-served)
	}
	leave, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = errors.Join(err, member.Leave(leave))
	st := c.Stats()
	fmt.Fprintf(stdout, "pages fetched:     %d (unique %d, near-duplicates %d)\nskipped:           %d\nerrors:            %d\nelapsed:           %s\n",
		st.Fetched, st.Unique, st.Duplicates, st.Skipped, st.Errors, time.Since(start).Round(time.Millisecond))
	switch {
	case !w.f.once && ctx.Err() != nil:
		return ignoreCanceled(err)
	case ctx.Err() != nil:
		return errInterrupted
	}
	return err
}

// announced returns opts as a crawl announces them, to compare.
func announced(opts crawler.Options) string {
	data, _ := json.Marshal(opts)
	return string(data)
}

// ignoreCanceled drops the context cancellation a stopped Watch returns.
func ignoreCanceled(err error) error {
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// workerReport is what a worker tells the roll at each beat.
func workerReport(c *crawler.Crawler) fleet.Report {
	st := c.Stats()
	return fleet.Report{
		Counters: map[string]int64{"fetched": st.Fetched, "failed": st.Errors, "skipped": st.Skipped, "unique": st.Unique, "duplicates": st.Duplicates},
		Gauges:   map[string]int64{"in_flight": int64(st.InFlight)},
	}
}

// listenStatus binds addr for a worker's status page, /api/stats and
// /metrics: its live crawl, with the roll's workers.
func listenStatus(c *crawler.Crawler, roll *redisfleet.Roll, addr string) (*server, error) {
	srv, err := newWeb(c.View(), c.Store(), c, roll, identity{})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", addr, err)
	}
	return &server{hs: []*http.Server{web.HTTPServer(srv.AdminHandler(), web.HTTPOptions{})}, lns: []net.Listener{ln}}, nil
}

// serveShared serves the crawl shared on the Redis Cluster of s while
// keeping its records and index in s.Data (a new index in s.IndexShards
// bleve shards, if above 1): a crawler.Follower reads the crawl's page
// log into it, from where it stopped, and the search answers from what it
// has applied.
func serveShared(ctx context.Context, s *serveSettings, id identity, stdout, stderr io.Writer) error {
	data := s.Data
	sc, rdb, err := s.open(ctx, "", crawler.Options{}, true)
	if err != nil {
		return err
	}
	defer rdb.Close()
	opts, err := crawlOptions(ctx, sc, data, stderr)
	if err != nil {
		return err
	}
	opts.Shards = s.IndexShards
	f, err := crawler.OpenFollower(data, sc.FollowerOptions(opts))
	if err != nil {
		return err
	}
	defer f.Close()
	v := f.View()
	srv, err := listen(v, v.Store(), nil, sc.Roll, s.Addr, id, stdout, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "following crawl %q on %s into %s from position %d\n", sc.Name, strings.Join(s.Redis, ","), data, f.Position())
	followCtx, stopFollowing := context.WithCancel(ctx)
	defer stopFollowing()
	followed := make(chan error, 1)
	go func() { followed <- f.Follow(followCtx, sc.Reader(f.Position()), sc.Log.Trim) }()
	served := make(chan error, 1)
	go func() { served <- srv.serve(followCtx) }()
	stop := reportFollow(f, stderr)
	defer stop()
	var errs []error
	select {
	case err := <-followed: // ctx done, or the log cannot be read
		stopFollowing()
		errs = append(errs, ignoreCanceled(err), <-served)
	case err := <-served:
		stopFollowing()
		errs = append(errs, err, ignoreCanceled(<-followed))
	}
	st := f.Stats()
	fmt.Fprintf(stdout, "followed: %d pages and %d decisions recorded, position %d\n", st.Pages, st.Decisions, f.Position())
	return errors.Join(errs...)
}

// crawlOptions returns the options of the shared crawl sc for the
// follower's directory data: those saved there, or the ones the first
// worker announced (waiting for one to join).
func crawlOptions(ctx context.Context, sc *sharedcrawl.Crawl, data string, stderr io.Writer) (crawler.Options, error) {
	if _, err := os.Stat(filepath.Join(data, "crawl.json")); err == nil {
		return crawler.Options{}, nil // OpenFollower resumes with the saved ones
	}
	for waited := false; ; waited = true {
		opts, ok, err := sc.Announced(ctx)
		if err != nil || ok {
			return opts, err
		}
		if !waited {
			fmt.Fprintf(stderr, "waiting for the first worker of crawl %q (doppel worker --redis … --crawl %s)\n", sc.Name, sc.Name)
		}
		select {
		case <-ctx.Done():
			return crawler.Options{}, errInterrupted
		case <-time.After(time.Second):
		}
	}
}

// reportFollow logs the follower's progress every progressInterval until
// the returned function is called.
func reportFollow(f *crawler.Follower, w io.Writer) (stop func()) {
	logger := slog.New(slog.NewTextHandler(w, nil))
	return ticker.Every(progressInterval, func() {
		st := f.Stats()
		logger.Info("follow", "pages", st.Pages, "decisions", st.Decisions, "position", st.Position)
	})
}

// redisLog takes go-redis's own messages (each failed dial of its pool,
// which it retries) to slog at debug level: the commands report the error
// that stops them, once.
type redisLog struct{}

// Printf logs the message at debug level.
func (redisLog) Printf(ctx context.Context, format string, v ...any) {
	slog.DebugContext(ctx, "redis: "+fmt.Sprintf(format, v...))
}

func init() { redis.SetLogger(redisLog{}) }
