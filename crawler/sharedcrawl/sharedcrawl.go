// Package sharedcrawl opens what the workers of one crawl share on a
// Redis Cluster, under the crawl's name: the frontier
// (crawler/frontier/redisfrontier), the near-duplicate detector's
// signatures (dedup/signatures/redissig, under dedup.NewShared), the
// page log (crawler/pagelog) and the roll of workers (crawler/fleet).
// A worker runs a crawler.Crawler with [Crawl.Options], whose [Worker]
// (a crawler.Share) appends what the worker commits to the page log; one
// follower (crawler.Follower) reads the page log, from [Crawl.Reader],
// into the crawl's records and index. Every worker and the follower open the
// crawl with the same name and the same detector settings.
package sharedcrawl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/doppel-search/doppel/crawler"
	"github.com/doppel-search/doppel/crawler/fleet/redisfleet"
	"github.com/doppel-search/doppel/crawler/frontier/redisfrontier"
	"github.com/doppel-search/doppel/crawler/pagelog"
	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/dedup/signatures/redissig"
)

// Options configure [Open]. The zero value is usable.
type Options struct {
	// Name is the crawl's name, the prefix of its keys: letters, digits
	// and ":_.-". Default "doppel".
	Name string
	// Worker names this worker's leases and its entry in the roll; unique
	// among the workers up. Default: host name and process id.
	Worker string
	// Similarity is the detector's (crawler.Options.Similarity); every
	// worker must use the same.
	Similarity dedup.Similarity
	// Lease is how long a worker that stopped answering holds its URLs
	// and its detector number before the others take them over. Default
	// 30 s.
	Lease time.Duration
	// Replicas is how many replicas must have each change to the frontier
	// and the page log before it counts (Redis WAIT), when a master has
	// that many online: 1 on a cluster with replicas, so that a master's
	// failure loses nothing acknowledged. Default 0.
	Replicas int
}

// namePattern is what a crawl's name may hold: redissig's prefixes.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9:_.-]+$`)

// CheckName reports whether name may name a crawl (Options.Name): empty
// (the default) or letters, digits and ":_.-".
func CheckName(name string) error {
	if name != "" && !namePattern.MatchString(name) {
		return fmt.Errorf("sharedcrawl: crawl name %q may only hold letters, digits and \":_.-\"", name)
	}
	return nil
}

// A Crawl is what one worker or follower shares of a crawl.
type Crawl struct {
	Name       string
	Worker     string
	Frontier   *redisfrontier.Frontier // a worker's, or where a follower schedules revisits
	Signatures *redissig.Signatures
	Detector   *dedup.Detector // nil for a follower
	Log        *pagelog.Log
	Roll       *redisfleet.Roll

	rdb redis.UniversalClient
}

// Open opens the shared parts of the crawl opts.Name on rdb (a
// *redis.ClusterClient, or a single server in tests) for a worker.
func Open(ctx context.Context, rdb redis.UniversalClient, opts Options) (*Crawl, error) {
	c, err := OpenFollower(ctx, rdb, opts)
	if err != nil {
		return nil, err
	}
	dopts := dedup.Web()
	dopts.Similarity = opts.Similarity
	if c.Detector, err = dedup.NewShared(nil, dopts, c.Signatures); err != nil {
		c.Frontier.Close()
		return nil, err
	}
	return c, nil
}

// claimAhead is how long before a host's turn a worker may claim one of
// its URLs (at most half the host's delay; redisfrontier.Options.Ahead):
// the claim's round trips to the cluster (a peek of every lane, the
// claim) then overlap the host's delay, and the gate's one Start call,
// which records the request's start at the turn, comes before it too. With every claim at its turn, two
// workers at 5 requests/s on a machine at load 34–50 sent 4.11–4.15 page
// requests/s where one machine sent 4.55–4.58.
const claimAhead = 100 * time.Millisecond

// OpenFollower opens what the follower of the crawl opts.Name uses: the
// signatures (for the fates of the log's numbers), the log, the roll and
// the frontier (to schedule revisits in: crawler.OpenFollower with
// FollowerOptions).
func OpenFollower(ctx context.Context, rdb redis.UniversalClient, opts Options) (*Crawl, error) {
	if opts.Name == "" {
		opts.Name = "doppel"
	}
	if err := CheckName(opts.Name); err != nil {
		return nil, err
	}
	if opts.Worker == "" {
		host, _ := os.Hostname()
		opts.Worker = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	dopts := dedup.Web()
	dopts.Similarity = opts.Similarity
	cfg := dopts.SharedConfig()
	c := &Crawl{Name: opts.Name, Worker: opts.Worker, rdb: rdb}
	var err error
	if c.Signatures, err = redissig.Open(ctx, rdb, cfg.Limits, redissig.Options{Prefix: opts.Name + ":sig", HammingK: cfg.HammingK,
		Lease: opts.Lease, Context: ctx}); err != nil {
		return nil, err
	}
	if c.Log, err = pagelog.Open(ctx, rdb, pagelog.Options{Prefix: opts.Name, Replicas: opts.Replicas}); err != nil {
		return nil, err
	}
	if c.Roll, err = redisfleet.New(rdb, redisfleet.Options{Prefix: opts.Name}); err != nil {
		return nil, err
	}
	if c.Frontier, err = redisfrontier.New(rdb, redisfrontier.Options{Prefix: c.Name, Holder: c.Worker, Lease: opts.Lease,
		Replicas: opts.Replicas, Context: ctx, Ahead: claimAhead}); err != nil {
		return nil, err
	}
	return c, nil
}

// Options returns opts with the crawl's frontier and its Worker (the
// shared detector and the page log), for crawler.Open. The crawler
// closes the frontier; Close closes the detector.
func (c *Crawl) Options(opts crawler.Options) crawler.Options {
	opts.Frontier = c.Frontier
	opts.Share = NewWorker(c.Detector, c.Log)
	return opts
}

// FollowerOptions returns opts with the crawl's frontier, for
// crawler.OpenFollower: the follower schedules the revisits there, and
// closes it.
func (c *Crawl) FollowerOptions(opts crawler.Options) crawler.Options {
	opts.Frontier = c.Frontier
	return opts
}

// Reader returns a reader of the page log from position from (a
// Follower's Position), in the detector's order: the entries a
// crawler.Follower applies.
func (c *Crawl) Reader(from uint32) crawler.Entries {
	return Entries(c.Log.Reader(pagelog.FatesOf(c.Signatures), from, pagelog.ReaderOptions{}))
}

// Settled returns the first number of the detector's order that is
// neither committed nor given up: once every worker has stopped, a
// follower whose position reached it has applied the whole crawl.
func (c *Crawl) Settled(ctx context.Context) (uint32, error) {
	turn, _, _, err := c.Signatures.Outcomes(ctx, 0, 1)
	return turn, err
}

// optionsKey is the key of the crawl's options.
func (c *Crawl) optionsKey() string { return "{" + c.Name + "}:options" }

// Announce keeps opts as the crawl's options unless a worker announced
// them first (the first wins; every worker is given the same), for the
// follower to save with the records (Announced). It returns the options
// in force.
func (c *Crawl) Announce(ctx context.Context, opts crawler.Options) (crawler.Options, error) {
	data, err := json.Marshal(opts)
	if err != nil {
		return opts, err
	}
	if _, err := c.rdb.SetNX(ctx, c.optionsKey(), data, 0).Result(); err != nil {
		return opts, fmt.Errorf("sharedcrawl: announcing the crawl's options: %w", err)
	}
	got, ok, err := c.Announced(ctx)
	if err != nil || !ok {
		return opts, errors.Join(err, errors.New("sharedcrawl: the crawl's options are gone"))
	}
	return got, nil
}

// Announced returns the crawl's options as the first worker announced
// them, and false if none has yet.
func (c *Crawl) Announced(ctx context.Context) (crawler.Options, bool, error) {
	data, err := c.rdb.Get(ctx, c.optionsKey()).Bytes()
	if errors.Is(err, redis.Nil) {
		return crawler.Options{}, false, nil
	}
	if err != nil {
		return crawler.Options{}, false, fmt.Errorf("sharedcrawl: reading the crawl's options: %w", err)
	}
	opts, err := crawler.ParseConfig(data)
	if err != nil {
		return crawler.Options{}, false, fmt.Errorf("sharedcrawl: the crawl's options: %w", err)
	}
	return opts, true, nil
}

// Close closes the shared detector (not the frontier, which the crawler
// closes).
func (c *Crawl) Close() error {
	if c.Detector == nil {
		return nil
	}
	return c.Detector.Close()
}
