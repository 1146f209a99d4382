// Package redissig keeps the near-duplicate Detector's signatures on a
// Redis Cluster (or one Redis server), shared by every worker of a
// distributed crawl: the candidate lists ([Store], a signatures.Store),
// the cluster assignment ([Clusters], a signatures.Clusters), and what a
// Detector made with dedup.NewShared needs beyond them ([Signatures], a
// signatures.Shared): each document's record, the SimHash neighbour
// tables, and the turns that make the workers' assignments those of one
// Detector inserting the documents in number order.
//
// # Layout
//
// The keys are spread over Options.Shards hash tags ("{prefix/shard}"),
// so over every master: a list lives in the shard of its key's hash, a
// document's record in the shard of its number, a bucket of the
// neighbour tables in the shard of its block. What must change together
// is one Lua script on one key's slot: an add to a list and its shard's
// counters (lists.lua). The assignment and the turns are in one hash tag
// ("{prefix}"), on one master: a commit is one script there
// (clusters.lua), a few bytes a document (its cluster, 4 bytes; 4 a
// member of a cluster of two or more; 12 a cluster; its id). A worker
// reads all of a document's lists, buckets, clusters or records in one
// pipelined round trip (go-redis sends each master its share at once).
//
// The neighbour tables are Manku et al.'s, with HammingK+1 blocks of the
// 64 bits: two fingerprints within HammingK agree on a whole block, so
// the fingerprints of a document's HammingK+1 buckets are a superset of
// its neighbours, which the Detector filters by distance. A bucket holds
// about n/2^(64/(K+1)) fingerprints of n: 15 at K = 3 and a million
// distinct fingerprints.
//
// # Protocol
//
// See [signatures.Shared]. Document numbers come from one counter (INCR);
// a number is leased (Options.Lease) and the commits are made in number
// order: the commit script runs only at the document's turn and passes
// the turn on. A worker waiting for its turn renews its lease in each
// poll, gives up the numbers before it whose lease ran out, and blocks on
// a list (BLPOP) on which the commit before it pushes the logs left. A
// commit's log (the lists and buckets its document goes into) is kept
// until known applied: the committing worker's next Read applies it first
// thing in its pipeline, or the worker whose turn comes next applies the
// logs left in the round trip that reads its candidates again, whichever
// comes first; a list applies a document's entry once (its commit guard:
// the last document applied through it). A commit compares and sets the
// master of the cluster it joins. [Signatures.Outcomes] tells a reader
// of the workers' output (package pagelog) which numbers are committed,
// in what cluster, and where the turn is.
//
// # Errors
//
// Calls are retried through a failover (connection refused, CLUSTERDOWN,
// TRYAGAIN, LOADING) for up to Options.Retry, and a script the server
// has not seen (a new master) is loaded and run again. Every call of a
// worker is safe to repeat except Begin, whose lost answer costs the
// others a lease's wait for the number it took; Store's Add and Remove,
// which carry no commit guard, may apply twice if an answer is lost. The
// store does not wait for replicas (no WAIT): a master that fails may
// lose its last writes, and the turns do not repair that. The methods of
// [Store] and [Clusters], whose interfaces return no errors, keep their
// first error for Err and return zero values after it.
package redissig

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/doppel-search/doppel/dedup/signatures"
	"github.com/doppel-search/doppel/internal/redisx"
)

var (
	//go:embed lists.lua
	listsSource string
	//go:embed clusters.lua
	clustersSource string

	listsScript    = redis.NewScript(listsSource)
	clustersScript = redis.NewScript(clustersSource)
)

// ErrConfig is returned by [Open] when the store under the prefix was
// opened with other limits, another Hamming distance or other shards.
var ErrConfig = errors.New("redissig: the store was opened with another configuration")

// Options configures [Open]. The zero value is usable.
type Options struct {
	// Prefix namespaces the keys: workers of one crawl share it. Letters,
	// digits and ":_.-" only. Default "doppel:sig".
	Prefix string
	// Shards is the number of hash tags lists, records and buckets are
	// spread over. Every worker must use the same. Default 256.
	Shards int
	// HammingK is the largest Hamming distance the neighbour tables
	// answer: the Detector's Options.HammingK. Default 3.
	HammingK int
	// Lease is how long a document number stays leased to a worker that
	// no longer renews it: how long a worker that died holds the others
	// up. It must exceed the time a worker takes to read and decide one
	// document. Default 10 s.
	Lease time.Duration
	// Retry is how long a call is retried through a failover. Default
	// 30 s.
	Retry time.Duration
	// Context bounds the calls of Store and Clusters (whose methods take
	// none). Default context.Background().
	Context context.Context
}

var prefixPattern = regexp.MustCompile(`^[A-Za-z0-9:_.-]+$`)

// Signatures is a signatures store on Redis: the shared state of
// dedup.NewShared ([signatures.Shared]), with its lists as a [Store] and
// its assignment as [Clusters]. It is safe for concurrent use.
type Signatures struct {
	rdb  redis.UniversalClient
	lim  signatures.Limits
	opts Options

	mu      sync.Mutex
	mine    []pending // commits of this Signatures not known applied, for the next Read to apply
	applied []uint32  // commits whose logs are known applied, for the next Begin or Commit to delete
}

var _ signatures.Shared = (*Signatures)(nil)

// Open returns the store kept in rdb (a *redis.ClusterClient, or a
// *redis.Client for one server) under opts.Prefix, with the lists'
// limits lim. Every worker opens it with the same limits and options;
// the first one records them, and a later one with others gets
// [ErrConfig]. The caller owns rdb.
func Open(ctx context.Context, rdb redis.UniversalClient, lim signatures.Limits, opts Options) (*Signatures, error) {
	if opts.Prefix == "" {
		opts.Prefix = "doppel:sig"
	}
	if !prefixPattern.MatchString(opts.Prefix) {
		return nil, fmt.Errorf("redissig: prefix %q: letters, digits and \":_.-\" only", opts.Prefix)
	}
	if opts.Shards <= 0 {
		opts.Shards = 256
	}
	if opts.HammingK == 0 {
		opts.HammingK = 3
	}
	if opts.HammingK < 0 || opts.HammingK > 16 {
		return nil, fmt.Errorf("redissig: Hamming distance %d not in [0, 16]", opts.HammingK)
	}
	if opts.Lease <= 0 {
		opts.Lease = 10 * time.Second
	}
	if opts.Retry <= 0 {
		opts.Retry = 30 * time.Second
	}
	if opts.Context == nil {
		opts.Context = context.Background()
	}
	s := &Signatures{rdb: rdb, lim: lim, opts: opts}
	config := fmt.Sprintf("pergroup=%d maxlen=%d hamming=%d shards=%d", lim.PerGroup, lim.MaxLen, opts.HammingK, opts.Shards)
	var got string
	err := s.pipe(ctx, func(p redis.Pipeliner) {
		p.SetNX(ctx, s.clusterKey("config"), config, 0)
	})
	if err == nil {
		got, err = rdb.Get(ctx, s.clusterKey("config")).Result()
	}
	if err != nil {
		return nil, fmt.Errorf("redissig: %w", err)
	}
	if got != config {
		return nil, fmt.Errorf("%w: %s, not %s", ErrConfig, got, config)
	}
	return s, nil
}

// Config returns the limits and the Hamming distance s was opened with.
func (s *Signatures) Config() signatures.SharedConfig {
	return signatures.SharedConfig{Limits: s.lim, HammingK: s.opts.HammingK}
}

// Options returns the options in effect, defaults filled in.
func (s *Signatures) Options() Options { return s.opts }

// tag returns the hash tag of shard i.
func (s *Signatures) tag(i uint64) string {
	return "{" + s.opts.Prefix + "/" + strconv.FormatUint(i%uint64(s.opts.Shards), 10) + "}"
}

// spread mixes a key's bits before they choose its shard.
func spread(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	return x
}

// listKey returns the key of the list of k.
func (s *Signatures) listKey(k signatures.Key) string {
	return s.tag(spread(k.Sum^uint64(k.Kind)<<48)) + ":" + strconv.Itoa(int(k.Kind)) + ":" + strconv.FormatUint(k.Sum, 16)
}

// countersKey returns the key of the counters of the shard of list key
// lk.
func countersKey(lk string) string { return lk[:strings.IndexByte(lk, '}')+1] + ":st" }

// recordKey returns the key of document doc's record.
func (s *Signatures) recordKey(doc uint32) string {
	return s.tag(uint64(doc)) + ":r:" + strconv.FormatUint(uint64(doc), 10)
}

// clusterKey returns the key named name of the assignment ("{prefix}:name").
func (s *Signatures) clusterKey(name string) string { return "{" + s.opts.Prefix + "}:" + name }

// pipe runs the commands build adds in one pipeline (see retry): build
// must add commands that are safe to repeat. It returns the first error
// of a command other than redis.Nil.
func (s *Signatures) pipe(ctx context.Context, build func(p redis.Pipeliner)) error {
	return s.retry(ctx, func() error {
		cmds, _ := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			build(p)
			return nil
		})
		return firstError(cmds)
	})
}

// retry runs call, and again after loading the scripts if a server lacked
// one, or through a failover for up to Options.Retry.
func (s *Signatures) retry(ctx context.Context, call func() error) error {
	deadline := time.Now().Add(s.opts.Retry)
	for wait := 20 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		err := call()
		switch {
		case err == nil:
			return nil
		case redis.HasErrorPrefix(err, "NOSCRIPT"):
			if err := s.load(ctx); err != nil {
				return err
			}
			continue
		case !redisx.Transient(err) || time.Now().After(deadline):
			return err
		}
		if cc, ok := s.rdb.(*redis.ClusterClient); ok {
			cc.ReloadState(ctx)
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// firstError returns the first error of cmds other than redis.Nil.
func firstError(cmds []redis.Cmder) error {
	for _, c := range cmds {
		if err := c.Err(); err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
	}
	return nil
}

// load loads the scripts into every master.
func (s *Signatures) load(ctx context.Context) error {
	one := func(ctx context.Context, c *redis.Client) error {
		if err := listsScript.Load(ctx, c).Err(); err != nil {
			return err
		}
		return clustersScript.Load(ctx, c).Err()
	}
	switch c := s.rdb.(type) {
	case *redis.ClusterClient:
		return c.ForEachMaster(ctx, one)
	case *redis.Client:
		return one(ctx, c)
	}
	if err := listsScript.Load(ctx, s.rdb).Err(); err != nil {
		return err
	}
	return clustersScript.Load(ctx, s.rdb).Err()
}

// eval runs one script call (see retry) and returns its result.
func (s *Signatures) eval(ctx context.Context, script *redis.Script, keys []string, args ...any) (any, error) {
	var v any
	err := s.retry(ctx, func() error {
		var err error
		v, err = script.EvalSha(ctx, s.rdb, keys, args...).Result()
		return err
	})
	return v, err
}

// cluster runs an operation of clusters.lua.
func (s *Signatures) cluster(ctx context.Context, args ...any) (any, error) {
	return s.eval(ctx, clustersScript, []string{s.clusterKey("turn")}, args...)
}

// forEachMaster calls fn with every master (the server itself for a
// single server).
func (s *Signatures) forEachMaster(ctx context.Context, fn func(ctx context.Context, c redis.UniversalClient) error) error {
	switch c := s.rdb.(type) {
	case *redis.ClusterClient:
		return c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error { return fn(ctx, m) })
	default:
		return fn(ctx, s.rdb)
	}
}

// Drop deletes every key under the prefix, on every master: the store is
// empty afterwards, configuration included. No worker may be using it.
func (s *Signatures) Drop(ctx context.Context) error {
	return s.forEachMaster(ctx, func(ctx context.Context, c redis.UniversalClient) error {
		for _, pattern := range []string{"{" + s.opts.Prefix + "/*}*", "{" + s.opts.Prefix + "}*"} {
			if err := deleteMatching(ctx, c, pattern); err != nil {
				return err
			}
		}
		return nil
	})
}

// deleteMatching deletes the keys of c that match pattern, one by one
// (they may be in several slots).
func deleteMatching(ctx context.Context, c redis.UniversalClient, pattern string) error {
	var keys []string
	iter := c.Scan(ctx, 0, pattern, 1000).Iterator()
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if err := iter.Err(); err != nil {
		return err
	}
	for len(keys) > 0 {
		n := min(len(keys), 1000)
		_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
			for _, k := range keys[:n] {
				p.Unlink(ctx, k)
			}
			return nil
		})
		if err != nil {
			return err
		}
		keys = keys[n:]
	}
	return nil
}
