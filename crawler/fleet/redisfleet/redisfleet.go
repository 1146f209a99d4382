// Package redisfleet keeps the roll of the workers that crawl one site
// together (package fleet's entries) on a Redis Cluster: each worker joins
// under an id, beats with its counters every Options.Beat, and leaves;
// anyone with the cluster's address reads the roll, which is what the
// status pages show for each worker and for the whole crawl.
//
// The roll is two hashes under the crawl's prefix (one hash tag, so one
// slot and one script a beat): the workers by id, and when each was last
// seen by the server's clock, so that machines whose clocks disagree
// still agree on who is lost. A worker is up while it beats, left once
// it has said so, and lost when it has not beaten for Options.Lost (its
// process killed, its machine gone, or cut off from the cluster): its URLs
// in flight come back to the frontier when their leases run out, not
// through the roll. Workers gone for Options.Keep are dropped from it.
package redisfleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/doppel-search/doppel/crawler/fleet"
	"github.com/doppel-search/doppel/internal/redisx"
	"github.com/redis/go-redis/v9"
)

// Options configure a Roll. The zero value is usable.
type Options struct {
	// Prefix is the crawl's key prefix, as the frontier's (default
	// "doppel"); it may not hold braces.
	Prefix string
	// Beat is how often a member reports (default 2 s).
	Beat time.Duration
	// Lost is how long without a beat makes a worker lost (default five
	// beats).
	Lost time.Duration
	// Keep is how long a worker that left or was lost stays on the roll
	// (default 24 h).
	Keep time.Duration
	// Logger gets a line when a beat fails (default slog.Default()).
	Logger *slog.Logger
}

// A Roll reads and joins the roll of one crawl.
type Roll struct {
	rdb  redis.UniversalClient
	opts Options
}

// ErrTaken is wrapped by Join's error when a worker of the same id is up.
var ErrTaken = errors.New("fleet: a worker of this id is up")

// New returns the roll of the crawl under opts.Prefix on rdb (a
// *redis.ClusterClient, or a *redis.Client for one server).
func New(rdb redis.UniversalClient, opts Options) (*Roll, error) {
	var err error
	if opts.Prefix, err = redisx.Prefix("fleet", opts.Prefix); err != nil {
		return nil, err
	}
	if opts.Beat <= 0 {
		opts.Beat = 2 * time.Second
	}
	if opts.Lost <= 0 {
		opts.Lost = 5 * opts.Beat
	}
	if opts.Keep <= 0 {
		opts.Keep = 24 * time.Hour
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Roll{rdb: rdb, opts: opts}, nil
}

func (r *Roll) workersKey() string { return "{" + r.opts.Prefix + "}:fleet" }
func (r *Roll) seenKey() string    { return "{" + r.opts.Prefix + "}:fleet:seen" }

// beat stores a worker's entry and, by the server's clock, when it was
// seen: KEYS workers, seen; ARGV id, entry (JSON), mode ("join": fail
// if the id was seen less than ARGV[4] ms ago and has not left; "beat";
// "leave": seen −1, left). It returns the server's time in ms.
var beat = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if ARGV[3] == 'join' then
  local seen = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '-1')
  if seen >= 0 and now - seen < tonumber(ARGV[4]) then
    return redis.error_reply('TAKEN ' .. tostring(now - seen))
  end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if ARGV[3] == 'leave' then
  redis.call('HSET', KEYS[2], ARGV[1], -1 - now)
else
  redis.call('HSET', KEYS[2], ARGV[1], now)
end
return now
`)

// A Member is a worker on the roll, beating until Leave.
type Member struct {
	roll   *Roll
	report func() fleet.Report

	mu     sync.Mutex
	w      fleet.Worker
	err    error // the last beat's error, nil once one succeeds
	stop   chan struct{}
	done   chan struct{}
	closed bool
}

// Join puts w on the roll (w.ID required; Started, Seen, State and
// Report are set here) and beats every Options.Beat with what report
// returns (nil: nothing) until Leave or ctx ends. It fails, wrapping
// ErrTaken, while a worker of the same id is up.
func (r *Roll) Join(ctx context.Context, w fleet.Worker, report func() fleet.Report) (*Member, error) {
	if w.ID == "" {
		return nil, errors.New("fleet: a worker needs an id")
	}
	if report == nil {
		report = func() fleet.Report { return fleet.Report{} }
	}
	m := &Member{roll: r, report: report, w: w, stop: make(chan struct{}), done: make(chan struct{})}
	m.w.Started, m.w.State = time.Now().UTC(), fleet.Up
	if err := m.store(ctx, "join"); err != nil {
		if s, ok := strings.CutPrefix(err.Error(), "TAKEN "); ok {
			return nil, fmt.Errorf("%w: %q was seen %s ms ago; a worker is lost after %v without a beat", ErrTaken, w.ID, s, r.opts.Lost)
		}
		return nil, fmt.Errorf("fleet: joining: %w", err)
	}
	go m.run(ctx)
	return m, nil
}

// store writes m's entry with the current counters.
func (m *Member) store(ctx context.Context, mode string) error {
	m.mu.Lock()
	m.w.Report = m.report()
	entry, err := json.Marshal(m.w)
	m.mu.Unlock()
	if err != nil {
		return err
	}
	r := m.roll
	return beat.Run(ctx, r.rdb, []string{r.workersKey(), r.seenKey()},
		m.w.ID, entry, mode, r.opts.Lost.Milliseconds()).Err()
}

func (m *Member) run(ctx context.Context) {
	defer close(m.done)
	tick := time.NewTicker(m.roll.opts.Beat)
	defer tick.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		err := m.store(ctx, "beat")
		m.mu.Lock()
		if err != nil && m.err == nil {
			m.roll.opts.Logger.Warn("fleet: beat failed; retrying at the next", "worker", m.w.ID, "err", err)
		}
		m.err = err
		m.mu.Unlock()
	}
}

// Err returns the error of the last beat, nil if it succeeded.
func (m *Member) Err() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err
}

// Leave stops the beats and marks the worker left, with its final
// report. Calling it again does nothing.
func (m *Member) Leave(ctx context.Context) error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	m.w.State = fleet.Left
	m.mu.Unlock()
	close(m.stop)
	<-m.done
	if err := m.store(ctx, "leave"); err != nil {
		return fmt.Errorf("fleet: leaving: %w", err)
	}
	return nil
}

// Workers returns the roll, by id: each worker with its state as of the
// server's clock now. Workers gone for longer than Options.Keep are
// dropped from the roll on the way.
func (r *Roll) Workers(ctx context.Context) ([]fleet.Worker, error) {
	now, err := r.rdb.Time(ctx).Result()
	if err != nil {
		return nil, fmt.Errorf("fleet: %w", err)
	}
	entries, err := r.rdb.HGetAll(ctx, r.workersKey()).Result()
	if err != nil {
		return nil, fmt.Errorf("fleet: %w", err)
	}
	seen, err := r.rdb.HGetAll(ctx, r.seenKey()).Result()
	if err != nil {
		return nil, fmt.Errorf("fleet: %w", err)
	}
	var out []fleet.Worker
	var drop []string
	for _, id := range slices.Sorted(maps.Keys(entries)) {
		var w fleet.Worker
		if err := json.Unmarshal([]byte(entries[id]), &w); err != nil {
			return nil, fmt.Errorf("fleet: worker %q: %w", id, err)
		}
		var ms int64
		fmt.Sscan(seen[id], &ms)
		w.State = fleet.Up
		if ms < 0 { // left at −1 − ms
			ms, w.State = -1-ms, fleet.Left
		}
		w.Seen = time.UnixMilli(ms).UTC()
		gone := now.Sub(w.Seen)
		if w.State == fleet.Up && gone >= r.opts.Lost {
			w.State = fleet.Lost
		}
		if w.State != fleet.Up && gone >= r.opts.Keep {
			drop = append(drop, id)
			continue
		}
		out = append(out, w)
	}
	if len(drop) > 0 {
		pipe := r.rdb.TxPipeline()
		pipe.HDel(ctx, r.workersKey(), drop...)
		pipe.HDel(ctx, r.seenKey(), drop...)
		if _, err := pipe.Exec(ctx); err != nil {
			return nil, fmt.Errorf("fleet: dropping old workers: %w", err)
		}
	}
	return out, nil
}
