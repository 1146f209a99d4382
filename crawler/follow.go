package crawler

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/google/renameio/v2"
)

// A Follower keeps the records and the search index of a crawl shared
// among workers (Options.Share): it reads the crawl's page log in the
// shared detector's order and applies each entry as a one-machine crawl's
// committer applies a page: the page goes through the Follower's own
// detector (hook.Replay: in the shared order it decides exactly as the
// shared detector did), is recorded and indexed; each group's decisions
// are recorded (never over a page fetched since). As the crawl grows, and
// whenever the log pauses, it re-clusters as a one-machine crawl does
// (star clusters, records and index following), which the shared detector
// cannot: so the crawl's clusters are a one-machine crawl's. Its data
// directory is an ordinary crawl directory, which OpenView (doppel
// serve) reads, with the detector's snapshot; the index in it may be
// sharded (Options.Shards).
//
// It keeps its position in the log (the file follow.pos) after the
// records and the index it has applied are durable, and resumes from it
// when opened again (Open's replay restores the detector, as for any
// crawl): a crash re-applies what was applied after it, which changes
// nothing. A Follower is the only writer of its directory.
type Follower struct {
	dir string
	c   *Crawler

	pending   int       // pages, decisions and revisits applied since the last flush
	lastFlush time.Time // when the last flush ended
	pos       uint32    // durable: every committed number below it is recorded and indexed
	n         followCounters
}

// followCounters count what a Follower applied in this process.
type followCounters struct {
	pages, decisions atomic.Int64
	position         atomic.Uint32 // the position applied (not yet durable)
}

// FollowStats are a Follower's counters.
type FollowStats struct {
	Pages     int64  // fetched pages recorded and indexed by this process
	Decisions int64  // decisions (URLs skipped or failed) recorded
	Position  uint32 // the log position applied: every number below it is
}

// Entries are what a Follower reads: a page log's entries in number
// order (sharedcrawl's Reader, over a *pagelog.Reader).
type Entries interface {
	// Next returns the next entry, waiting while the next number is
	// pending, until ctx ends.
	Next(ctx context.Context) (LogEntry, error)
	// Position returns the number after the last entry returned.
	Position() uint32
}

// A LogEntry is one entry of a shared crawl's page log, as a worker
// handed it on: the page entry of a committed document number, or a
// note.
type LogEntry struct {
	N uint32 // the document number
	// Cluster is the committed number's cluster id ("" for a note).
	Cluster string
	Handed  Handed // what the worker handed on
	// Note: the entry is a note (decisions, anchors), not a page entry.
	Note bool
}

// positionFile holds a Follower's durable position (8 bytes: the
// position, and its complement, little endian).
const positionFile = "follow.pos"

// OpenFollower opens (or creates) the data directory dir of a shared
// crawl's records and index. opts are the crawl's options, saved in dir
// as Open saves them (a later OpenFollower with no Seeds uses the saved
// ones); Share is not used. opts.Frontier, if set, is the workers' shared
// frontier, in which the Follower schedules every page's revisits (with
// the copy's validators: the worker that claims one may not have the
// page's record) — it owns the revisit schedule, as it holds every record
// — and which Close closes; without it, nothing is revisited. The
// directory's own frontier stays empty.
func OpenFollower(dir string, opts Options) (*Follower, error) {
	schedule := opts.Frontier
	opts.Share, opts.Frontier = nil, nil
	pos, err := readPosition(dir)
	if err != nil {
		return nil, err
	}
	c, err := Open(dir, opts)
	if err != nil {
		return nil, err
	}
	c.commit.schedule = schedule
	f := &Follower{dir: dir, c: c, lastFlush: time.Now(), pos: pos}
	f.n.position.Store(pos)
	return f, nil
}

// Position returns the durable position: every committed number of the
// log below it is recorded and indexed. Read it before Follow, to make
// the reader Follow takes (pagelog.Log.Reader from it).
func (f *Follower) Position() uint32 { return f.pos }

// Stats returns the counters; safe to call while Follow runs.
func (f *Follower) Stats() FollowStats {
	return FollowStats{Pages: f.n.pages.Load(), Decisions: f.n.decisions.Load(), Position: f.n.position.Load()}
}

// View returns a View of the records and the index, valid until Close
// (for serving searches while following). Closing it does nothing.
func (f *Follower) View() *View { return f.c.View() }

// Follow applies the entries of es, which must start at Position, until
// ctx ends, making them durable every 1000 pages, decisions and revisits
// and at least every Options.RefreshInterval while entries wait (the
// revisits' next visits scheduled with them), and re-clustering as the
// crawl grows and when no entry came for a RefreshInterval; then it makes
// what it applied durable and returns ctx's error. trim, if not nil, is
// called with each new durable position (pagelog.Log.Trim: the entries
// behind the only reader may go). An entry it cannot read or apply is an
// error, which stops it (the position stays before the entry).
func (f *Follower) Follow(ctx context.Context, es Entries, trim func(ctx context.Context, below uint32) error) error {
	for {
		wait := f.c.opts.RefreshInterval
		if f.pending > 0 {
			wait -= time.Since(f.lastFlush)
		}
		if wait <= 0 {
			if err := f.flush(ctx, es.Position(), false, trim); err != nil {
				return err
			}
			continue
		}
		nctx, cancel := context.WithTimeout(ctx, wait)
		e, err := es.Next(nctx)
		cancel()
		switch {
		case err == nil:
			if err := f.apply(ctx, e); err != nil {
				return fmt.Errorf("crawler: log entry %d: %w", e.N, err)
			}
			f.n.position.Store(es.Position())
			if f.pending >= flushPages {
				if err := f.flush(ctx, es.Position(), false, trim); err != nil {
					return err
				}
			}
		case ctx.Err() != nil:
			if err := f.flush(context.WithoutCancel(ctx), es.Position(), false, trim); err != nil {
				return err
			}
			return ctx.Err()
		case errors.Is(err, context.DeadlineExceeded): // the log pauses
			if err := f.flush(ctx, es.Position(), f.pending == 0, trim); err != nil {
				return err
			}
		default:
			return fmt.Errorf("crawler: reading the page log: %w", err)
		}
	}
}

// apply applies one entry.
func (f *Follower) apply(ctx context.Context, e LogEntry) error {
	pages, decisions, err := f.c.commit.applyLogged(ctx, e.Handed)
	// A revisit counts: its record changed and its next visit waits
	// for the flush, which a crawl that only revisits (no page new, no
	// decision) would otherwise make only when the log pauses.
	f.pending += pages + decisions + len(e.Handed.Revisits)
	f.n.pages.Add(int64(pages))
	f.n.decisions.Add(int64(decisions))
	return err
}

// flush makes what was applied durable — records, then index — after
// re-clustering if the crawl has grown enough since the last time, or
// if idle and pages came since; then it keeps the position pos and trims
// the log behind it.
func (f *Follower) flush(ctx context.Context, pos uint32, idle bool, trim func(context.Context, uint32) error) error {
	if err := f.c.commit.flushLogged(ctx, idle); err != nil {
		return err
	}
	f.pending, f.lastFlush = 0, time.Now()
	if pos == f.pos {
		return nil
	}
	if err := writePosition(f.dir, pos); err != nil {
		return err
	}
	f.pos = pos
	if trim != nil {
		if err := trim(ctx, pos); err != nil {
			return fmt.Errorf("crawler: trimming the page log: %w", err)
		}
	}
	return nil
}

// Close closes the crawl directory and the shared frontier, if any (call
// it after Follow has returned).
func (f *Follower) Close() error {
	err := f.c.Close()
	if s := f.c.commit.schedule; s != nil {
		err = errors.Join(err, s.Close())
	}
	return err
}

// readPosition reads the position kept in dir, 0 if none.
func readPosition(dir string) (uint32, error) {
	data, err := os.ReadFile(filepath.Join(dir, positionFile))
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("crawler: %w", err)
	}
	if len(data) != 8 || binary.LittleEndian.Uint32(data) != ^binary.LittleEndian.Uint32(data[4:]) {
		return 0, fmt.Errorf("crawler: %s is damaged; remove it to read the page log from its start (what is recorded is applied again, which changes nothing)",
			filepath.Join(dir, positionFile))
	}
	return binary.LittleEndian.Uint32(data), nil
}

// writePosition replaces the position kept in dir.
func writePosition(dir string, pos uint32) error {
	data := binary.LittleEndian.AppendUint32(nil, pos)
	data = binary.LittleEndian.AppendUint32(data, ^pos)
	if err := renameio.WriteFile(filepath.Join(dir, positionFile), data, 0o644); err != nil {
		return fmt.Errorf("crawler: keeping the page log's position: %w", err)
	}
	return nil
}
