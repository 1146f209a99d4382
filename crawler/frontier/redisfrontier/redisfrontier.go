// Package redisfrontier is the crawler's frontier ([frontier.Queue]) on a
// Redis Cluster (or a single Redis server), shared by every worker of a
// distributed crawl.
//
// Hosts are hashed into lanes; every key of a lane shares one hash tag, so
// each lane lives on one master and each step on it is one atomic Lua
// script (lane.lua). Per lane: the hosts with pending URLs by the time
// their next URL may be claimed, a queue per host (priority, then the
// order queued), the URL states, the leases of URLs in flight and the
// scheduled revisits. A claim is one script: the URL must still be
// pending and its host due (or due within Options.Ahead), and the host is
// re-armed at its turn (or now, if later) plus its delay (Pace:
// Crawl-delay, Retry-After, backoff), by the server's clock, so per-host
// politeness holds across every worker. A lease expires unless
// its holder renews it (a goroutine does, every third of Options.Lease):
// the URLs of a worker that died return to their queues at their
// positions, where the next claim in their lane finds them.
//
// Beyond the queue (frontier.Shared), every request to a host, whoever
// sends it — a page's, robots.txt's, a sitemap's — passes Start, a
// script on the host's lane that lets it go, for a host with a delay,
// once no other is in flight and the delay has passed since the last
// one was sent (End tells when, at the latest, as an offset from its
// Start), by the server's clock: a claim spaces the claims, Start and
// End the requests as the host sees them, however late a request left
// after its Start. A claim whose
// turn went to another request of its host is given back (Release). And
// what the workers learn per host (robots.txt, the soft-404 answer, the
// sitemaps read) is kept in the host's lane (Take, Put): one worker
// fetches it, the others read it.
//
// Order: a claim offers the first URLs of the hosts whose turn it is, in
// every lane, merged by priority and then by the order they were queued
// (one sequence for the whole frontier), so with no host waiting the
// order is the embedded frontier's. Atomicity: a Commit's changes to one
// lane are applied in one script, all or none; a batch over several lanes
// is applied lane by lane (Redis Cluster runs no transaction across
// masters), each part idempotent for the crawler, which fetches again a
// URL whose Done was lost.
package redisfrontier

import (
	"cmp"
	"context"
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/redis/go-redis/v9"

	"github.com/doppel-search/doppel/crawler/frontier"
	"github.com/doppel-search/doppel/internal/redisx"
)

//go:embed lane.lua
var laneSource string

var lane = redis.NewScript(laneSource)

// Options configures a Frontier. The zero value is usable.
type Options struct {
	// Prefix namespaces the frontier's keys: workers of one crawl share
	// it. Default "doppel".
	Prefix string
	// Lanes is the number of lanes hosts are hashed into; every worker of
	// a crawl must use the same. More lanes spread a crawl over more
	// masters; a claim reads every lane. Default 16.
	Lanes int
	// Lease is how long a claimed URL stays leased to a worker that no
	// longer renews it. Default 30 s.
	Lease time.Duration
	// Delay is the time between two claims of one host unless Pace gave
	// the host its own. Default 0.
	Delay time.Duration
	// Holder names this worker's leases. Default: host name, process id
	// and the time it started.
	Holder string
	// Lookahead bounds the hosts per lane, and the URLs per host, a claim
	// looks at: every claim reads them all, so a large one costs the
	// servers and the worker (at 1,000 hosts on 16 lanes, 64 took 4
	// workers from 60 to 43 pages/s). Default 16.
	Lookahead int
	// Context bounds every call to Redis. Default context.Background().
	Context context.Context
	// Replicas is the number of replicas that must have each change
	// before a call returns (Redis WAIT), when its master has that many
	// online: 1 on a cluster with replicas, so that a change survives its
	// master's failure. A master left without replicas after a failover
	// waits for none until one joins. Default 0.
	Replicas int
	// Retry is how long a call is retried while the cluster is failing
	// over (connection refused, CLUSTERDOWN, TRYAGAIN). Default 30 s.
	Retry time.Duration
	// Ahead is how long before a host's turn a claim may take one of its
	// URLs (at most half the host's delay): Start then records its
	// request's start at the turn and tells the wait, so that a claim's
	// round trips (a peek of every lane, the claim, Start) come before the
	// turn rather than after it. The host's requests stay its delay apart
	// (Start); its claims come its delay apart less Ahead. Default 0: a
	// claim at the turn.
	Ahead time.Duration
}

// Frontier is a frontier.Queue on Redis. It is safe for concurrent use.
type Frontier struct {
	rdb  redis.UniversalClient
	opts Options
	ctx  context.Context

	tokens atomic.Uint64 // claims made, naming each
	ready  atomic.Int64  // the earliest time (ms) a host may be claimed, as the last peek saw it; -1 none

	shardsMu sync.Mutex
	shards   map[string]int // master address → its online replicas
	shardsAt time.Time      // when shards was read

	dueMu   sync.Mutex
	dueAt   time.Time // when NextDue's answer was read; zero: read again
	dueNext time.Time // that answer
	dueOK   bool

	stop chan struct{}
	wg   sync.WaitGroup
	once sync.Once
}

var (
	_ frontier.Queue  = (*Frontier)(nil)
	_ frontier.Shared = (*Frontier)(nil)
)

// New returns the frontier stored in rdb (a *redis.ClusterClient, or a
// *redis.Client for one server) under opts.Prefix, and starts renewing
// its leases. The caller owns rdb and closes it after Close.
func New(rdb redis.UniversalClient, opts Options) (*Frontier, error) {
	var err error
	if opts.Prefix, err = redisx.Prefix("redisfrontier", opts.Prefix); err != nil {
		return nil, err
	}
	if opts.Lanes <= 0 {
		opts.Lanes = 16
	}
	if opts.Lease <= 0 {
		opts.Lease = 30 * time.Second
	}
	if opts.Lookahead <= 0 {
		opts.Lookahead = 16
	}
	if opts.Holder == "" {
		host, _ := os.Hostname()
		opts.Holder = fmt.Sprintf("%s:%d:%d", host, os.Getpid(), time.Now().UnixNano())
	}
	if opts.Context == nil {
		opts.Context = context.Background()
	}
	if opts.Retry <= 0 {
		opts.Retry = 30 * time.Second
	}

	f := &Frontier{rdb: rdb, opts: opts, ctx: opts.Context, stop: make(chan struct{})}
	f.ready.Store(-1)
	if err := rdb.Ping(f.ctx).Err(); err != nil {
		return nil, fmt.Errorf("redisfrontier: %w", err)
	}
	f.wg.Go(f.renew)
	return f, nil
}

// Holder returns the name this worker's leases carry.
func (f *Frontier) Holder() string { return f.opts.Holder }

// hostOf returns the host a URL is paced by, lower case ("" if it has
// none).
func hostOf(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return strings.ToLower(p.Host)
}

// laneOf returns the lane of a host.
func (f *Frontier) laneOf(host string) int {
	return int(xxhash.Sum64String(host) % uint64(f.opts.Lanes))
}

// key returns the key that routes lane l's scripts (its counters).
func (f *Frontier) key(l int) string { return fmt.Sprintf("{%s:%d}:n", f.opts.Prefix, l) }

// laneKey returns the name of lane l's key with suffix s.
func (f *Frontier) laneKey(l int, s string) string {
	return fmt.Sprintf("{%s:%d}:%s", f.opts.Prefix, l, s)
}

// seqKey is the frontier's sequence counter.
func (f *Frontier) seqKey() string { return "{" + f.opts.Prefix + "}:seq" }

// priorityKey encodes a priority so that byte order is descending
// priority.
func priorityKey(p int) []byte {
	return binary.BigEndian.AppendUint64(nil, ^(uint64(p) ^ 1<<63))
}

// keyPriority decodes priorityKey.
func keyPriority(k string) int { return int(^binary.BigEndian.Uint64([]byte(k[:8])) ^ 1<<63) }

// queueKey is a URL's position: its priority, then the sequence number.
func queueKey(p int, seq uint64) string {
	return string(binary.BigEndian.AppendUint64(priorityKey(p), seq))
}

// sequence reserves n numbers of the frontier's sequence and returns the
// first.
func (f *Frontier) sequence(n int) (uint64, error) {
	var last int64
	if err := f.retry(func() (err error) {
		last, err = f.rdb.IncrBy(f.ctx, f.seqKey(), int64(n)).Result()
		return err
	}); err != nil {
		return 0, err
	}
	return uint64(last) - uint64(n) + 1, nil
}

// laneCall is one script call on a lane.
type laneCall struct {
	lane int
	args []any
}

// run runs the calls and returns their results in order, retrying
// through a failover for up to Options.Retry. Every script is one atomic
// step, and each is safe to repeat: a repeated Add is not queued twice, a
// repeated claim is recognised by its token.
func (f *Frontier) run(calls []laneCall) ([]any, error) {
	var out []any
	err := f.retry(func() (err error) {
		out, err = f.runOnce(calls)
		return err
	})
	return out, err
}

// pipelined sends the commands fn queues as one pipeline, through retry
// (fn may be called again: it must set every result it keeps).
func (f *Frontier) pipelined(fn func(redis.Pipeliner) error) error {
	return f.retry(func() error {
		_, err := f.rdb.Pipelined(f.ctx, fn)
		return err
	})
}

// retry calls op until it succeeds, fails for good or Options.Retry has
// passed, reloading the cluster's slots between tries: every call the
// frontier makes goes through it, so a failover never stops a crawl that
// one more try would have carried on. The error is prefixed with the
// package's name.
func (f *Frontier) retry(op func() error) error {
	deadline := time.Now().Add(f.opts.Retry)
	for wait := 50 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		err := op()
		if err == nil {
			return nil
		}
		if !transient(err) || time.Now().After(deadline) {
			return fmt.Errorf("redisfrontier: %w", err)
		}
		if cc, ok := f.rdb.(*redis.ClusterClient); ok {
			cc.ReloadState(f.ctx)
		}
		select {
		case <-time.After(wait):
		case <-f.ctx.Done():
			return fmt.Errorf("redisfrontier: %w", f.ctx.Err())
		}
	}
}

// waitTimeout bounds a WAIT for replicas, below go-redis's read timeout.
const waitTimeout = 2 * time.Second

// errReplicas means fewer replicas than Options.Replicas acknowledged a
// change in time.
var errReplicas = errors.New("replicas lag")

// onlineReplicas returns the number of online replicas of each master,
// read at most every second.
func (f *Frontier) onlineReplicas(cc *redis.ClusterClient) (map[string]int, error) {
	f.shardsMu.Lock()
	defer f.shardsMu.Unlock()
	if time.Since(f.shardsAt) < time.Second {
		return f.shards, nil
	}
	m, err := redisx.OnlineReplicas(f.ctx, cc)
	if err != nil {
		return nil, err
	}
	f.shards, f.shardsAt = m, time.Now()
	return m, nil
}

// transient: a call may be retried — a failover (redisx.Transient) or
// replicas that lag behind.
func transient(err error) bool { return errors.Is(err, errReplicas) || redisx.Transient(err) }

// runOnce runs the calls, pipelined per master (each pipeline ends with a
// WAIT for Options.Replicas), and returns their results in order. A script
// the server does not have (a master after a failover) is sent whole.
func (f *Frontier) runOnce(calls []laneCall) ([]any, error) {
	groups, err := f.byMaster(calls)
	if err != nil {
		return nil, err
	}
	cmds := make([]*redis.Cmd, len(calls))
	for _, g := range groups {
		again, err := f.runMaster(g, calls, cmds)
		if err != nil {
			return nil, err
		}
		if again {
			return f.runOnce(calls)
		}
	}
	out := make([]any, len(calls))
	for i := range calls {
		v, err := cmds[i].Result()
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// masterCalls are the calls runOnce sends to one master in one pipeline.
type masterCalls struct {
	client   redis.Cmdable
	addr     string
	idx      []int // of the calls
	replicas int   // to WAIT for
}

// byMaster groups the calls by the master of their lane's key, each to
// WAIT for as many of Options.Replicas as it has online; one group of
// every call if the client is not a cluster's or no replica is asked for.
func (f *Frontier) byMaster(calls []laneCall) ([]*masterCalls, error) {
	cc, ok := f.rdb.(*redis.ClusterClient)
	if !ok || f.opts.Replicas <= 0 {
		g := &masterCalls{client: f.rdb, replicas: f.opts.Replicas}
		for i := range calls {
			g.idx = append(g.idx, i)
		}
		return []*masterCalls{g}, nil
	}
	var groups []*masterCalls
	byAddr := map[string]*masterCalls{}
	for i, c := range calls {
		m, err := cc.MasterForKey(f.ctx, f.key(c.lane))
		if err != nil {
			return nil, err
		}
		g := byAddr[m.Options().Addr]
		if g == nil {
			g = &masterCalls{client: m, addr: m.Options().Addr}
			byAddr[m.Options().Addr] = g
			groups = append(groups, g)
		}
		g.idx = append(g.idx, i)
	}
	online, err := f.onlineReplicas(cc)
	if err != nil {
		return nil, err
	}
	for _, g := range groups {
		g.replicas = min(f.opts.Replicas, online[g.addr])
	}
	return groups, nil
}

// runMaster sends g's calls in one pipeline, setting their commands in
// cmds, and waits for its replicas. It reports again if the master lacked
// the script: it is loaded, and every call must be run again (its other
// calls were refused too, and each is safe to repeat).
func (f *Frontier) runMaster(g *masterCalls, calls []laneCall, cmds []*redis.Cmd) (again bool, err error) {
	var wait *redis.Cmd
	_, err = g.client.Pipelined(f.ctx, func(p redis.Pipeliner) error {
		for _, i := range g.idx {
			cmds[i] = lane.EvalSha(f.ctx, p, []string{f.key(calls[i].lane)}, calls[i].args...)
		}
		if g.replicas > 0 {
			wait = p.Do(f.ctx, "WAIT", g.replicas, waitTimeout.Milliseconds())
		}
		return nil
	})
	if err != nil && !redis.HasErrorPrefix(err, "NOSCRIPT") {
		return false, err
	}
	for _, i := range g.idx {
		if err := cmds[i].Err(); err != nil && redis.HasErrorPrefix(err, "NOSCRIPT") {
			if err := lane.Load(f.ctx, g.client).Err(); err != nil {
				return false, err
			}
			return true, nil
		}
	}
	if wait != nil {
		if n, err := wait.Int64(); err != nil || n < int64(g.replicas) {
			f.shardsMu.Lock()
			f.shardsAt = time.Time{} // read the replicas again
			f.shardsMu.Unlock()
			return false, fmt.Errorf("%w: %d of %d replicas of %s acknowledged a change (%v)", errReplicas, n, g.replicas, g.addr, err)
		}
	}
	return false, nil
}

// allLanes returns one call per lane with the same arguments.
func (f *Frontier) allLanes(args ...any) []laneCall {
	calls := make([]laneCall, f.opts.Lanes)
	for l := range calls {
		calls[l] = laneCall{l, args}
	}
	return calls
}

// Commit applies the batch: each lane's changes in one script, in order.
// See the package doc for batches over several lanes.
func (f *Frontier) Commit(b *frontier.Batch) ([]bool, error) {
	if err := b.Validate(); err != nil {
		return nil, err
	}
	defer f.dueChanged() // its schedules, its moves and drops of revisits
	ops := b.Changes()
	fresh := 0
	for _, o := range ops {
		if o.Op == frontier.OpAdd || o.Op == frontier.OpRequeue || o.Op == frontier.OpReprioritize {
			fresh++
		}
	}
	var seq uint64
	if fresh > 0 {
		var err error
		if seq, err = f.sequence(fresh); err != nil {
			return nil, err
		}
	}
	byLane := map[int]int{} // lane → index in calls
	var calls []laneCall
	var addLane []int // per Add, its lane
	for _, o := range ops {
		host := hostOf(o.URL)
		l := f.laneOf(host)
		i, ok := byLane[l]
		if !ok {
			i = len(calls)
			byLane[l] = i
			calls = append(calls, laneCall{l, []any{"commit"}})
		}
		var name, key, data, at string
		switch o.Op {
		case frontier.OpAdd, frontier.OpRequeue, frontier.OpReprioritize:
			name = map[frontier.Op]string{frontier.OpAdd: "add", frontier.OpRequeue: "requeue", frontier.OpReprioritize: "reprioritize"}[o.Op]
			key, data = queueKey(o.Priority, seq), string(o.Payload)
			seq++
			if o.Op == frontier.OpAdd {
				addLane = append(addLane, l)
			}
		case frontier.OpDone:
			name, data = "done", o.Outcome
		case frontier.OpReplace:
			name, key, data = "replace", string(o.Old), string(o.Payload)
		case frontier.OpSchedule:
			name, key, data = "schedule", string(priorityKey(o.Priority)), string(o.Payload)
			at = strconv.FormatInt(o.At.UnixMilli(), 10) + "|" + strconv.FormatInt(o.At.UnixNano(), 10)
		default:
			return nil, fmt.Errorf("%w: unknown change %v", frontier.ErrBadRequest, o.Op)
		}
		calls[i].args = append(calls[i].args, name, o.URL, host, key, data, at)
	}
	res, err := f.run(calls)
	if err != nil {
		return nil, err
	}
	flags := make([][]any, len(res))
	for i, r := range res {
		flags[i], _ = r.([]any)
	}
	added := make([]bool, len(addLane))
	next := make([]int, len(calls))
	for i, l := range addLane {
		c := byLane[l]
		if next[c] >= len(flags[c]) {
			return nil, fmt.Errorf("redisfrontier: lane %d answered %d add flags", l, len(flags[c]))
		}
		added[i] = flags[c][next[c]] == int64(1)
		next[c]++
	}
	return added, nil
}

// candidate is a pending URL a claim may take.
type candidate struct {
	lane    int
	member  string // queue key and URL
	payload string
}

// NextWhere claims the first pending URL, among the first URLs of the
// hosts whose turn it is (merged by priority and position), that accept
// accepts. If another worker claims a URL accept accepted first, it goes
// on with the next: the caller gives back what accept took for a URL it
// did not get. It returns ErrEmpty when no URL is pending and ErrNotReady
// when URLs are pending but none was claimed (their hosts wait, or accept
// took none).
func (f *Frontier) NextWhere(accept func(url string, payload []byte) bool, limit int) (frontier.Item, error) {
	for {
		it, lost, err := f.next(accept, limit)
		if err == nil || !lost || !errors.Is(err, frontier.ErrNotReady) {
			return it, err
		}
		// Every URL accepted went to other workers: look again.
	}
}

// next is one round of NextWhere: it also reports whether a claim of a
// URL accept accepted was lost to another worker.
func (f *Frontier) next(accept func(url string, payload []byte) bool, limit int) (it frontier.Item, lost bool, err error) {
	per := f.opts.Lookahead
	if limit > 0 {
		per = min(per, limit)
	}
	res, err := f.run(f.allLanes("peek", per, per, f.opts.Ahead.Milliseconds(), f.opts.Delay.Milliseconds()))
	if err != nil {
		return frontier.Item{}, false, err
	}
	pending, ready := int64(0), int64(-1)
	var cands []candidate
	for l, r := range res {
		a, _ := r.([]any)
		if len(a) < 2 {
			return frontier.Item{}, false, fmt.Errorf("redisfrontier: lane %d: bad peek answer", l)
		}
		n, _ := a[0].(int64)
		pending += n
		if at, _ := a[1].(int64); at >= 0 && (ready < 0 || at < ready) {
			ready = at
		}
		for i := 2; i+1 < len(a); i += 2 {
			m, _ := a[i].(string)
			p, _ := a[i+1].(string)
			if len(m) >= 16 {
				cands = append(cands, candidate{l, m, p})
			}
		}
	}
	f.ready.Store(ready)
	if pending == 0 {
		return frontier.Item{}, false, frontier.ErrEmpty
	}
	slices.SortFunc(cands, func(a, b candidate) int { return cmp.Compare(a.member, b.member) })
	for i, c := range cands {
		if limit > 0 && i >= limit {
			break
		}
		u := c.member[16:]
		if accept != nil && !accept(u, []byte(c.payload)) {
			continue
		}
		token := strconv.FormatUint(f.tokens.Add(1), 10)
		got, err := f.run([]laneCall{{c.lane, []any{"claim", u, f.opts.Holder, f.opts.Lease.Milliseconds(), f.opts.Delay.Milliseconds(), token, f.opts.Ahead.Milliseconds()}}})
		if err != nil {
			return frontier.Item{}, false, err
		}
		if got[0] == int64(1) {
			var payload []byte
			if c.payload != "" {
				payload = []byte(c.payload)
			}
			return frontier.Item{URL: u, Priority: keyPriority(c.member), Payload: payload}, false, nil
		}
		lost = true
	}
	return frontier.Item{}, lost, frontier.ErrNotReady
}

// Pace sets host's delay between claims (Crawl-delay; 0: Options.Delay)
// and pauses it until until (Retry-After, backoff; zero: no pause), for
// every worker: it implements frontier.Paced.
func (f *Frontier) Pace(host string, delay time.Duration, until time.Time) error {
	host = strings.ToLower(host)
	var ms int64
	if !until.IsZero() {
		ms = until.UnixMilli()
	}
	_, err := f.run([]laneCall{{f.laneOf(host), []any{"pace", host, max(delay, 0).Milliseconds(), ms}}})
	return err
}

// Start reports whether a request to host may start, by the server's
// clock — for a host with a delay: none in flight, its delay passed since
// the last one started and since it was sent (End) — if so now, it
// records the start, re-arms the host at now + its delay and returns (0,
// true); a claim whose turn comes within Options.Ahead gets its start
// recorded at the turn and (the time to it, true), one round trip
// instead of two; else it returns how long to wait and false. Times are
// kept to the microsecond. A request not ended within Options.Lease
// counts as ended. It implements frontier.Shared.
func (f *Frontier) Start(host string, claimed bool) (time.Duration, bool, error) {
	host = strings.ToLower(host)
	flag := "0"
	if claimed {
		flag = "1"
	}
	res, err := f.run([]laneCall{{f.laneOf(host), []any{"start", host, f.opts.Delay.Milliseconds(), flag, f.opts.Lease.Milliseconds(), f.opts.Ahead.Milliseconds()}}})
	if err != nil {
		return 0, false, err
	}
	r, _ := res[0].([]any)
	if len(r) != 2 {
		return 0, false, fmt.Errorf("redisfrontier: start of %s: unexpected reply %v", host, res[0])
	}
	started, _ := r[0].(int64)
	us, _ := r[1].(int64)
	return time.Duration(us) * time.Microsecond, started == 1, nil
}

// End records that a request to host that Start let go was answered (or
// failed), sent at the latest sent after its recorded start: the host's
// next request may start now, its delay after that sending. It
// implements frontier.Shared.
func (f *Frontier) End(host string, sent time.Duration) error {
	host = strings.ToLower(host)
	us := (max(sent, 0) + time.Microsecond - 1) / time.Microsecond // rounded up
	_, err := f.run([]laneCall{{f.laneOf(host), []any{"end", host, f.opts.Delay.Milliseconds(), int64(us)}}})
	return err
}

// Release gives back a URL this worker claimed, to its queue at its
// position, its lease ended. It implements frontier.Shared.
func (f *Frontier) Release(u string) error {
	res, err := f.run([]laneCall{{f.laneOf(hostOf(u)), []any{"unclaim", u, f.opts.Holder}}})
	if err != nil {
		return err
	}
	if res[0] != int64(1) {
		return fmt.Errorf("redisfrontier: release of %.80q: not leased to %s", u, f.opts.Holder)
	}
	return nil
}

// InFlightElsewhere returns the number of URLs leased to other workers.
// It implements frontier.Shared.
func (f *Frontier) InFlightElsewhere() (int, error) {
	res, err := f.run(f.allLanes("held", f.opts.Holder))
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range res {
		if a, _ := r.([]any); len(a) == 2 {
			all, _ := a[0].(int64)
			mine, _ := a[1].(int64)
			n += int(all - mine)
		}
	}
	return n, nil
}

// Take returns what a worker put under host and name, or else gives this
// worker the right to learn it for hold, unless another holds it. It
// implements frontier.Shared. Values live in the host's lane, under the
// frontier's prefix.
func (f *Frontier) Take(host, name string, hold time.Duration) (value []byte, known, mine bool, err error) {
	host = strings.ToLower(host)
	res, err := f.run([]laneCall{{f.laneOf(host), []any{"take", name + ":" + host, f.opts.Holder, max(hold.Milliseconds(), 1)}}})
	if err != nil {
		return nil, false, false, err
	}
	a, _ := res[0].([]any)
	if len(a) == 0 {
		return nil, false, false, fmt.Errorf("redisfrontier: bad take answer")
	}
	switch a[0] {
	case int64(1):
		if len(a) > 1 {
			v, _ := a[1].(string)
			return []byte(v), true, false, nil
		}
		return []byte{}, true, false, nil
	case int64(2):
		return nil, false, true, nil
	}
	return nil, false, false, nil
}

// Put keeps value under host and name for ttl, for every worker. It
// implements frontier.Shared.
func (f *Frontier) Put(host, name string, value []byte, ttl time.Duration) error {
	host = strings.ToLower(host)
	_, err := f.run([]laneCall{{f.laneOf(host), []any{"put", name + ":" + host, string(value), max(ttl.Milliseconds(), 1)}}})
	return err
}

// NextReady returns the earliest time a host with pending URLs may be
// claimed, as the last claim saw it (by the Redis servers' clocks):
// Options.Ahead before its turn.
func (f *Frontier) NextReady() (time.Time, bool) {
	ms := f.ready.Load()
	if ms < 0 {
		return time.Time{}, false
	}
	return time.UnixMilli(ms).Add(-f.opts.Ahead), true
}

// Due moves every revisit due at now to the queue.
func (f *Frontier) Due(now time.Time) (int, error) {
	defer f.dueChanged()
	ms := now.UnixMilli()
	counts, err := f.run(f.allLanes("duecount", ms))
	if err != nil {
		return 0, err
	}
	total := 0
	for _, c := range counts {
		n, _ := c.(int64)
		total += int(n)
	}
	if total == 0 {
		return 0, nil
	}
	seq, err := f.sequence(total)
	if err != nil {
		return 0, err
	}
	var calls []laneCall
	for l, c := range counts {
		n, _ := c.(int64)
		if n == 0 {
			continue
		}
		args := []any{"due", ms, n}
		for range n {
			args = append(args, string(binary.BigEndian.AppendUint64(nil, seq)))
			seq++
		}
		calls = append(calls, laneCall{l, args})
	}
	res, err := f.run(calls)
	if err != nil {
		return 0, err
	}
	moved := 0
	for _, r := range res {
		n, _ := r.(int64)
		moved += int(n)
	}
	return moved, nil
}

// revisit is a scheduled revisit as read back.
type revisit struct {
	url string
	at  time.Time
}

// revisits reads the scheduled revisits of every lane (at most n of each,
// the earliest; 0: all), in time order then URL order: two pipelines,
// one for every lane's revisits and one for their times.
func (f *Frontier) revisits(n int64) ([]revisit, error) {
	ranges := make([]*redis.StringSliceCmd, f.opts.Lanes)
	if err := f.pipelined(func(p redis.Pipeliner) error {
		for l := range ranges {
			ranges[l] = p.ZRange(f.ctx, f.laneKey(l, "t"), 0, n-1)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	times := make([]*redis.SliceCmd, f.opts.Lanes)
	if err := f.pipelined(func(p redis.Pipeliner) error {
		for l, r := range ranges {
			if urls := r.Val(); len(urls) > 0 {
				times[l] = p.HMGet(f.ctx, f.laneKey(l, "ti"), urls...)
			}
		}
		return nil
	}); err != nil {
		return nil, err
	}
	var out []revisit
	for l, r := range ranges {
		if times[l] == nil {
			continue
		}
		vals := times[l].Val()
		for i, u := range r.Val() {
			s, ok := vals[i].(string)
			if !ok {
				continue // moved by a Due between the two reads
			}
			ns, err := strconv.ParseInt(s[:max(strings.IndexByte(s, '|'), 0)], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%w: revisit of %.80q", frontier.ErrCorrupt, u)
			}
			out = append(out, revisit{u, time.Unix(0, ns)})
		}
	}
	slices.SortFunc(out, func(a, b revisit) int {
		return cmp.Or(a.at.Compare(b.at), strings.Compare(a.url, b.url))
	})
	return out, nil
}

// dueRead is how long NextDue's answer is kept. A crawler asks before
// every look at the queue, and each answer costs two round trips to every
// master: on a loaded machine they took half a worker's dispatcher's time
// (8,556 answers in 164 s, a mean 20 ms each, on two workers at load
// 30–37). So a revisit scheduled by another client (the follower, which
// schedules them all) is seen up to dueRead late; this client's own
// schedules and due moves are seen at once.
const dueRead = 250 * time.Millisecond

// NextDue returns the earliest revisit not yet due-moved, as read at most
// dueRead ago unless this client has scheduled or moved revisits since.
func (f *Frontier) NextDue() (time.Time, bool) {
	f.dueMu.Lock()
	defer f.dueMu.Unlock()
	if !f.dueAt.IsZero() && time.Since(f.dueAt) < dueRead {
		return f.dueNext, f.dueOK
	}
	rs, err := f.revisits(1)
	if err != nil {
		return time.Time{}, false
	}
	f.dueAt, f.dueNext, f.dueOK = time.Now(), time.Time{}, len(rs) > 0
	if f.dueOK {
		f.dueNext = rs[0].at
	}
	return f.dueNext, f.dueOK
}

// dueChanged has NextDue read the revisits again.
func (f *Frontier) dueChanged() {
	f.dueMu.Lock()
	f.dueAt = time.Time{}
	f.dueMu.Unlock()
}

// Scheduled calls fn for every revisit not yet due-moved, in time order.
func (f *Frontier) Scheduled(fn func(url string, at time.Time) error) error {
	rs, err := f.revisits(0)
	if err != nil {
		return err
	}
	for _, r := range rs {
		if err := fn(r.url, r.at); err != nil {
			return err
		}
	}
	return nil
}

// SeenAll reports for each URL whether it was ever queued or done.
func (f *Frontier) SeenAll(urls []string) ([]bool, error) {
	cmds := make([]*redis.BoolCmd, len(urls))
	err := f.pipelined(func(p redis.Pipeliner) error {
		for i, u := range urls {
			cmds[i] = p.HExists(f.ctx, f.laneKey(f.laneOf(hostOf(u)), "s"), u)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]bool, len(urls))
	for i, c := range cmds {
		out[i] = c.Val()
	}
	return out, nil
}

// Payloads returns for each URL its payload if it is pending and not
// leased, else nil.
func (f *Frontier) Payloads(urls []string) ([][]byte, error) {
	cmds := make([]*redis.StringCmd, len(urls))
	err := f.retry(func() error {
		_, err := f.rdb.Pipelined(f.ctx, func(p redis.Pipeliner) error {
			for i, u := range urls {
				cmds[i] = p.HGet(f.ctx, f.laneKey(f.laneOf(hostOf(u)), "s"), u)
			}
			return nil
		})
		if errors.Is(err, redis.Nil) { // an unknown URL; any other error wins
			err = nil
			for _, c := range cmds {
				if e := c.Err(); e != nil && !errors.Is(e, redis.Nil) {
					return e
				}
			}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(urls))
	for i, c := range cmds {
		if payload, ok := pendingPayload(c.Val()); ok && len(payload) > 0 {
			out[i] = []byte(payload)
		}
	}
	return out, nil
}

// pendingPayload returns the payload of a URL's record (lane.lua: state
// byte, 16-byte queue key, host's length in 2 bytes, host, payload) if
// its state is pending.
func pendingPayload(rec string) (string, bool) {
	if len(rec) < 19 || rec[0] != 'P' {
		return "", false
	}
	start := 19 + int(rec[17])<<8 + int(rec[18])
	if start > len(rec) {
		return "", false
	}
	return rec[start:], true
}

// All calls fn for every URL seen, in byte order of the URL.
func (f *Frontier) All(fn func(url string, state frontier.State, outcome string) error) error {
	type entry struct {
		url, outcome string
		state        frontier.State
	}
	var all []entry
	for l := range f.opts.Lanes {
		var lane []entry
		if err := f.retry(func() error {
			lane = lane[:0]
			it := f.rdb.HScan(f.ctx, f.laneKey(l, "s"), 0, "", 1000).Iterator()
			for it.Next(f.ctx) {
				u := it.Val()
				if !it.Next(f.ctx) {
					break
				}
				lane = append(lane, entry{url: u, outcome: it.Val()})
			}
			return it.Err()
		}); err != nil {
			return err
		}
		for _, e := range lane {
			v := e.outcome
			switch {
			case strings.HasPrefix(v, "P"):
				e.state, e.outcome = frontier.Pending, ""
			case strings.HasPrefix(v, "F"):
				e.state, e.outcome = frontier.InFlight, ""
			case strings.HasPrefix(v, "D"):
				e.state, e.outcome = frontier.Done, v[1:]
			default:
				return fmt.Errorf("%w: state of %.80q", frontier.ErrCorrupt, e.url)
			}
			all = append(all, e)
		}
	}
	slices.SortFunc(all, func(a, b entry) int { return strings.Compare(a.url, b.url) })
	for _, e := range all {
		if err := fn(e.url, e.state, e.outcome); err != nil {
			return err
		}
	}
	return nil
}

// Stats sums the lanes' counters.
func (f *Frontier) Stats() (frontier.Stats, error) {
	cmds := make([]*redis.MapStringStringCmd, f.opts.Lanes)
	err := f.pipelined(func(p redis.Pipeliner) error {
		for l := range cmds {
			cmds[l] = p.HGetAll(f.ctx, f.key(l))
		}
		return nil
	})
	if err != nil {
		return frontier.Stats{}, err
	}
	var st frontier.Stats
	for _, c := range cmds {
		m := c.Val()
		n := func(k string) int { v, _ := strconv.Atoi(m[k]); return v }
		st.Pending += n("pending")
		st.InFlight += n("inflight")
		st.Done += n("done")
		st.Scheduled += n("scheduled")
	}
	return st, nil
}

// renew extends this worker's leases every third of the lease time until
// Close.
func (f *Frontier) renew() {
	t := time.NewTicker(f.opts.Lease / 3)
	defer t.Stop()
	for {
		select {
		case <-f.stop:
			return
		case <-t.C:
			f.run(f.allLanes("renew", f.opts.Holder, f.opts.Lease.Milliseconds()))
		}
	}
}

// Close stops renewing and returns this worker's leases to the queue. It
// does not close the Redis client.
func (f *Frontier) Close() error {
	var err error
	f.once.Do(func() {
		close(f.stop)
		f.wg.Wait()
		_, err = f.run(f.allLanes("release", f.opts.Holder))
	})
	return err
}
