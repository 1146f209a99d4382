// Package pagelog is the path from the workers of a distributed crawl to
// the records and the index: a log on a Redis Cluster of what each
// document changes there (an opaque payload: its record and its index
// change), tagged with the document's number in the shared detector's
// order, and read back in that order; and of the notes of the crawl (a
// URL skipped or failed), in the same order.
//
// # Protocol
//
// A worker decides a document's cluster with the shared detector (at its
// turn, dedup.NewShared over redissig), then [Log.Append]s the document's
// payload under its number n, then commits n: dedup's
// Detector.InsertTurn calls its atTurn there, with n and the Result the
// commit makes. A reader (a shard writer) reads the log in number order
// ([Reader.Next]), asking a [Fates] what became of each number, and gets
// each committed number's cluster with its payload ([Entry]; indexer/shard's
// Route takes it): entry n is delivered once n is committed, a
// number given up (never committed) is skipped whether or not a page
// entry was appended for it (a note is delivered: see Notes), and the
// reader waits on a number still pending. So the records and the index
// follow the detector's serial order whatever worker dies where:
//
//   - it dies before its append: its number is given up when its lease
//     runs out, and there is nothing to skip;
//   - it dies between its append and its commit: its number is given up,
//     and its entry is skipped;
//   - it dies after its commit: its entry is there, appended before.
//
// An append is idempotent per number (the first entry is kept, a page
// entry or a note), so a retried append is delivered once. Because a
// reader asks a number's fate before reading its entry, a committed
// number's entry is always found, unless the log lost it: a master failed
// before a replica had it (use Options.Replicas) or it was trimmed;
// [Reader.Next] then returns [ErrMissing].
//
// A reader's position is its caller's to keep ([Reader.Position]): a
// shard writer persists it with what it applied, and resumes from it
// after a crash ([Log.Reader] from that number). Entries below every
// reader's position may be deleted ([Log.Trim]).
//
// # Notes
//
// Workers also make records that are not documents for the detector: a
// URL skipped (robots.txt, a refused link) or failed. They reach the
// readers in the same number order (a URL's failure, then its later
// successful fetch, are applied in that order) as notes: the worker takes
// a number (Begin), [Log.AppendNote]s the record under it, then gives the
// number up (Abandon). A reader delivers a note whatever its number's
// fate, given up or committed (Entry.Note; a note is a complete fact on
// its own, its number only orders it), and still skips a number given up
// without one. It reads the entries of the numbers given up with those of
// the committed ones (one round trip a batch), after their fates: a note
// appended after a reader has read past its number (by a worker slower
// than its lease) is lost to that reader, though never delivered twice or
// out of order; so a worker appends its note before it abandons its
// number, within its lease.
//
// # Layout
//
// Number n is in shard n mod Options.Shards (a hash tag
// "{prefix/shard}"), so consecutive numbers, which workers append at
// about the same time, are written to every master; a shard keeps its
// entries in hashes of Options.Chunk numbers each, which a trim deletes
// whole. An entry's value is its kind, one byte ('p' a page entry, 'n' a
// note), then its payload. Each append is one script on its shard (an
// append below the shard's trim mark is refused: a late worker cannot
// bring back what was trimmed), followed, with Options.Replicas, by a
// WAIT on the same connection. Calls are retried through a failover for
// up to Options.Retry.
package pagelog

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/doppel-search/doppel/internal/redisx"
)

var (
	//go:embed log.lua
	logSource string
	logScript = redis.NewScript(logSource)
)

// ErrConfig is returned by [Open] when the log under the prefix was
// opened with other shards or chunks.
var ErrConfig = errors.New("pagelog: the log was opened with another configuration")

// Options configures [Open]. The zero value is usable.
type Options struct {
	// Prefix namespaces the keys: the workers and readers of one crawl
	// share it. No braces. Default "doppel" (redisx.DefaultPrefix); the
	// keys are "{prefix/log/shard}:…".
	Prefix string
	// Shards is the number of hash tags the entries are spread over.
	// Every worker and reader must use the same. Default 16.
	Shards int
	// Chunk is the number of a shard's entries kept in one hash (a trim
	// deletes a hash whose entries are all below its mark). Every worker
	// and reader must use the same. Default 1024.
	Chunk int
	// Replicas is the number of replicas that must have an append before
	// Append returns (Redis WAIT), when its master has that many online:
	// 1 on a cluster with replicas, so that an acknowledged append
	// survives its master's failure. A master left without replicas after
	// a failover waits for none until one joins. Default 0.
	Replicas int
	// Retry is how long a call is retried through a failover. Default
	// 30 s.
	Retry time.Duration
}

// Log is a page log on Redis. It is safe for concurrent use.
type Log struct {
	rdb  redis.UniversalClient
	opts Options
	base string // "prefix/log"

	mu       sync.Mutex
	online   map[string]int // master address → its online replicas
	onlineAt time.Time
}

// Open returns the log kept in rdb (a *redis.ClusterClient, or a
// *redis.Client for one server) under opts.Prefix. Every worker and
// reader opens it with the same Shards and Chunk; the first one records
// them, and a later one with others gets [ErrConfig]. The caller owns
// rdb.
func Open(ctx context.Context, rdb redis.UniversalClient, opts Options) (*Log, error) {
	prefix, err := redisx.Prefix("pagelog", opts.Prefix)
	if err != nil {
		return nil, err
	}
	opts.Prefix = prefix
	if opts.Shards <= 0 {
		opts.Shards = 16
	}
	if opts.Chunk <= 0 {
		opts.Chunk = 1024
	}
	if opts.Retry <= 0 {
		opts.Retry = 30 * time.Second
	}
	l := &Log{rdb: rdb, opts: opts, base: prefix + "/log"}
	config := fmt.Sprintf("shards=%d chunk=%d", opts.Shards, opts.Chunk)
	var got string
	err = l.retry(ctx, func() error {
		if err := rdb.SetNX(ctx, l.configKey(), config, 0).Err(); err != nil {
			return err
		}
		got, err = rdb.Get(ctx, l.configKey()).Result()
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("pagelog: %w", err)
	}
	if got != config {
		return nil, fmt.Errorf("%w: %s, not %s", ErrConfig, got, config)
	}
	return l, nil
}

// Options returns the options in effect, defaults filled in.
func (l *Log) Options() Options { return l.opts }

// configKey returns the key of the log's configuration.
func (l *Log) configKey() string { return "{" + l.base + "}:config" }

// shardOf returns the shard of number n.
func (l *Log) shardOf(n uint32) int { return int(n % uint32(l.opts.Shards)) }

// shardPrefix returns the prefix of shard s's keys, "{prefix/log/s}:".
func (l *Log) shardPrefix(s int) string { return "{" + l.base + "/" + strconv.Itoa(s) + "}:" }

// chunkKey returns the key of the hash holding n's entry.
func (l *Log) chunkKey(n uint32) string {
	span := uint64(l.opts.Shards) * uint64(l.opts.Chunk)
	return l.shardPrefix(l.shardOf(n)) + strconv.FormatUint(uint64(n)/span, 10)
}

// trimKey returns the key of shard s's trim mark.
func (l *Log) trimKey(s int) string { return l.shardPrefix(s) + "trim" }

// field returns n as a hash field.
func field(n uint32) string { return strconv.FormatUint(uint64(n), 10) }

var (
	// errReplicas means fewer replicas than Options.Replicas acknowledged
	// an append in time.
	errReplicas = errors.New("replicas lag")
	// errLoaded means a server lacked the script, now loaded: the call is
	// run again.
	errLoaded = errors.New("script loaded")
)

// transient: a call may be retried — a failover, replicas that lag, a
// script just loaded.
func transient(err error) bool {
	return errors.Is(err, errReplicas) || errors.Is(err, errLoaded) || redisx.Transient(err)
}

// retry runs call, again through a failover for up to Options.Retry.
func (l *Log) retry(ctx context.Context, call func() error) error {
	deadline := time.Now().Add(l.opts.Retry)
	for wait := 20 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		err := call()
		if err == nil || !transient(err) || time.Now().After(deadline) {
			return err
		}
		if cc, ok := l.rdb.(*redis.ClusterClient); ok {
			cc.ReloadState(ctx)
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// waitTimeout bounds a WAIT for replicas, below go-redis's read timeout.
const waitTimeout = 2 * time.Second

// replicasOf returns how many replicas an append to master addr waits
// for: Options.Replicas, or fewer if the master has fewer online (read
// at most every second).
func (l *Log) replicasOf(ctx context.Context, cc *redis.ClusterClient, addr string) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if time.Since(l.onlineAt) >= time.Second {
		m, err := redisx.OnlineReplicas(ctx, cc)
		if err != nil {
			return 0, err
		}
		l.online, l.onlineAt = m, time.Now()
	}
	return min(l.opts.Replicas, l.online[addr]), nil
}

// Append adds payload to the log as the page entry of document number
// n, before the worker commits n. An entry already there for n (a page
// entry or a note) is kept (a retried append changes nothing), and an
// append below the trim mark of n's shard is dropped (n's fate was
// settled and every reader is past it); both return nil. With
// Options.Replicas, Append returns once that many replicas have the
// entry.
func (l *Log) Append(ctx context.Context, n uint32, payload []byte) error {
	if err := l.put(ctx, n, kindPage, payload); err != nil {
		return fmt.Errorf("pagelog: append %d: %w", n, err)
	}
	return nil
}

// AppendNote adds payload to the log as a note under number n: a record
// that is not a document for the detector (a URL skipped or failed),
// which readers deliver in number order whatever n's fate, committed or
// given up. The worker takes n (Begin), appends the note, then gives n up
// (Abandon). It must append before it abandons n, within n's lease: a
// reader that has found n given up and read past it before the note was
// there never delivers it (a note appended that late is lost, though
// never delivered twice or out of order). Like [Log.Append], an entry
// already there for n is kept, an append below the trim mark of n's shard
// is dropped, and with Options.Replicas AppendNote returns once that many
// replicas have the note.
func (l *Log) AppendNote(ctx context.Context, n uint32, payload []byte) error {
	if err := l.put(ctx, n, kindNote, payload); err != nil {
		return fmt.Errorf("pagelog: append note %d: %w", n, err)
	}
	return nil
}

// The kinds of entries: an entry's value in its hash is its kind, one
// byte, then its payload.
const (
	kindPage = 'p' // a page entry ([Log.Append])
	kindNote = 'n' // a note ([Log.AppendNote])
)

// decode splits a stored value v into its kind and its payload; ok is
// false if v has no known kind.
func decode(v []byte) (note bool, payload []byte, ok bool) {
	if len(v) == 0 || v[0] != kindPage && v[0] != kindNote {
		return false, nil, false
	}
	return v[0] == kindNote, v[1:], true
}

// put stores payload as the entry of kind kind of number n, unless n has
// one already or is below its shard's trim mark, retrying through a
// failover, and waits for Options.Replicas.
func (l *Log) put(ctx context.Context, n uint32, kind byte, payload []byte) error {
	keys := []string{l.chunkKey(n), l.trimKey(l.shardOf(n))}
	value := make([]byte, 1+len(payload))
	value[0] = kind
	copy(value[1:], payload)
	args := []any{"append", n, value}
	return l.retry(ctx, func() error {
		client, replicas := redis.Cmdable(l.rdb), l.opts.Replicas
		if cc, ok := l.rdb.(*redis.ClusterClient); ok && replicas > 0 {
			m, err := cc.MasterForKey(ctx, keys[0])
			if err != nil {
				return err
			}
			if replicas, err = l.replicasOf(ctx, cc, m.Options().Addr); err != nil {
				return err
			}
			client = m
		}
		var eval, wait *redis.Cmd
		_, err := client.Pipelined(ctx, func(p redis.Pipeliner) error {
			eval = logScript.EvalSha(ctx, p, keys, args...)
			if replicas > 0 {
				wait = p.Do(ctx, "WAIT", replicas, waitTimeout.Milliseconds())
			}
			return nil
		})
		if err := eval.Err(); redis.HasErrorPrefix(err, "NOSCRIPT") {
			if err := logScript.Load(ctx, client).Err(); err != nil {
				return err
			}
			return errLoaded
		}
		if err != nil {
			return err
		}
		if wait != nil {
			if got, err := wait.Int64(); err != nil || got < int64(replicas) {
				l.mu.Lock()
				l.onlineAt = time.Time{} // read the replicas again
				l.mu.Unlock()
				return fmt.Errorf("%w: %d of %d replicas acknowledged entry %d (%v)", errReplicas, got, replicas, n, err)
			}
		}
		return nil
	})
}

// read returns the stored values of the numbers ns (their kind, then
// their payload; see decode), nil for a number without an entry, in one
// pipelined round trip: one HMGET a chunk.
func (l *Log) read(ctx context.Context, ns []uint32) ([][]byte, error) {
	type chunk struct {
		idx    []int
		fields []string
		cmd    *redis.SliceCmd
	}
	var order []string
	chunks := map[string]*chunk{}
	for i, n := range ns {
		k := l.chunkKey(n)
		c := chunks[k]
		if c == nil {
			c = &chunk{}
			chunks[k] = c
			order = append(order, k)
		}
		c.idx = append(c.idx, i)
		c.fields = append(c.fields, field(n))
	}
	err := l.retry(ctx, func() error {
		_, err := l.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for _, k := range order {
				chunks[k].cmd = p.HMGet(ctx, k, chunks[k].fields...)
			}
			return nil
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("pagelog: read: %w", err)
	}
	out := make([][]byte, len(ns))
	for _, k := range order {
		c := chunks[k]
		for j, v := range c.cmd.Val() {
			if s, ok := v.(string); ok {
				out[c.idx[j]] = []byte(s)
			}
		}
	}
	return out, nil
}

// Trim deletes the entries of the numbers below below, on every shard:
// the caller passes the lowest position of every reader (no reader will
// ask for them again). An append below a shard's trim mark is dropped
// afterwards. Trimming below an earlier mark changes nothing.
func (l *Log) Trim(ctx context.Context, below uint32) error {
	err := l.retry(ctx, func() error {
		cmds, err := l.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for s := range l.opts.Shards {
				logScript.EvalSha(ctx, p, []string{l.trimKey(s)},
					"trim", below, s, l.opts.Shards, l.opts.Chunk, l.shardPrefix(s))
			}
			return nil
		})
		for _, c := range cmds {
			if redis.HasErrorPrefix(c.Err(), "NOSCRIPT") {
				if err := l.load(ctx); err != nil {
					return err
				}
				return errLoaded // each trim is safe to repeat
			}
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("pagelog: trim below %d: %w", below, err)
	}
	return nil
}

// load loads the script into every master.
func (l *Log) load(ctx context.Context) error {
	if cc, ok := l.rdb.(*redis.ClusterClient); ok {
		return cc.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
			return logScript.Load(ctx, m).Err()
		})
	}
	return logScript.Load(ctx, l.rdb).Err()
}
