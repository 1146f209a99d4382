package crawler

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/google/renameio/v2"

	"github.com/doppel-search/doppel/crawler/frontier"
	"github.com/doppel-search/doppel/crawler/hook"
	"github.com/doppel-search/doppel/crawler/pagelog"
	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/indexer"
)

// A Follower keeps the records and the search index of a crawl shared
// among workers (Options.Share): it reads the crawl's page log in the
// shared detector's order and records and indexes each page as its worker
// placed it (hook.Place), and records each group's decisions. Its data
// directory is an ordinary crawl directory, which OpenView (doppel
// serve) reads, and the index in it may be sharded (Options.Shards).
//
// It keeps its position in the log (the file follow.pos) after the
// records and the index it has applied are durable, and resumes from it
// when opened again: a crash re-applies what was applied after it, which
// changes nothing (a record put again, a document added again with the
// same place). A Follower is the only writer of its directory.
type Follower struct {
	dir   string
	opts  Options
	pages *pages.Store
	index Store
	hook  *hook.Hook
	front frontier.Queue // empty: the crawl's frontier is the workers'; for View

	batch     pages.Batch
	pending   int       // entries applied since the last flush
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
// order (*pagelog.Reader).
type Entries interface {
	// Next returns the next entry, waiting while the next number is
	// pending, until ctx ends.
	Next(ctx context.Context) (pagelog.Entry, error)
	// Position returns the number after the last entry returned.
	Position() uint32
}

// positionFile holds a Follower's durable position (8 bytes: the
// position, and its complement, little endian).
const positionFile = "follow.pos"

// OpenFollower opens (or creates) the data directory dir of a shared
// crawl's records and index. opts are the crawl's options, saved in dir
// as Open saves them (a later OpenFollower with no Seeds uses the saved
// ones); Share and Frontier are not used.
func OpenFollower(dir string, opts Options) (*Follower, error) {
	opts.Share, opts.Frontier = nil, nil
	opts, err := resolveOptions(dir, opts)
	if err != nil {
		return nil, err
	}
	if err := makeDir(dir); err != nil {
		return nil, err
	}
	f := &Follower{dir: dir, opts: opts, lastFlush: time.Now()}
	if f.pos, err = readPosition(dir); err != nil {
		return nil, err
	}
	if f.front, err = frontier.Open(filepath.Join(dir, frontierFile), frontier.Options{NoSync: opts.NoSync, LockTimeout: lockTimeout}); err != nil {
		return nil, inUse(dir, err)
	}
	if f.pages, err = pages.Open(filepath.Join(dir, pagesFile), pages.Options{NoSync: opts.NoSync, Timeout: lockTimeout}); err != nil {
		f.front.Close()
		return nil, inUse(dir, err)
	}
	if f.index, err = openIndex(dir, opts.Shards, indexer.Options{Policy: opts.Policy, NoAutoFlush: true,
		Source: indexer.SourceFunc(func(ctx context.Context, id string) (*indexer.Doc, error) { return f.hook.SourceDoc(ctx, id) })}); err != nil {
		f.pages.Close()
		f.front.Close()
		return nil, inUse(dir, err)
	}
	if f.hook, err = hook.New(hook.Options{Index: f.index, Source: f.recorded, Language: opts.Language, NoDedup: true}); err != nil {
		f.Close()
		return nil, err
	}
	if err := saveOptions(dir, opts); err != nil {
		f.Close()
		return nil, err
	}
	// The site statistics the index leaves template text out by.
	err = f.pages.Each(func(r pages.Record) error {
		if r.Status == pages.Fetched {
			f.hook.Observe(hook.FromRecord(r))
		}
		return nil
	})
	if err != nil {
		f.Close()
		return nil, err
	}
	f.n.position.Store(f.pos)
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
func (f *Follower) View() *View {
	return &View{opts: f.opts, pages: f.pages, front: f.front, index: f.index}
}

// Follow applies the entries of es, which must start at Position, until
// ctx ends, making them durable every 1000 pages and at least every
// Options.RefreshInterval while entries wait; then it makes what it
// applied durable and returns ctx's error. trim, if not nil, is called
// with each new durable position (pagelog.Log.Trim: the entries behind
// the only reader may go). An entry it cannot read is an error, which
// stops it (the position stays before the entry).
func (f *Follower) Follow(ctx context.Context, es Entries, trim func(ctx context.Context, below uint32) error) error {
	for {
		wait := f.opts.RefreshInterval
		if f.pending > 0 {
			wait -= time.Since(f.lastFlush)
		}
		if wait <= 0 {
			if err := f.flush(ctx, es.Position(), trim); err != nil {
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
				if err := f.flush(ctx, es.Position(), trim); err != nil {
					return err
				}
			}
		case ctx.Err() != nil:
			if err := f.flush(context.WithoutCancel(ctx), es.Position(), trim); err != nil {
				return err
			}
			return ctx.Err()
		case errors.Is(err, context.DeadlineExceeded):
			if err := f.flush(ctx, es.Position(), trim); err != nil {
				return err
			}
		default:
			return fmt.Errorf("crawler: reading the page log: %w", err)
		}
	}
}

// apply records and indexes one entry.
func (f *Follower) apply(ctx context.Context, e pagelog.Entry) error {
	var le logEntry
	if err := json.Unmarshal(e.Payload, &le); err != nil {
		return err
	}
	for _, d := range le.Decisions {
		if d.URL == "" || d.Status == pages.Fetched {
			return fmt.Errorf("a decision without URL or of a fetched page (%q)", d.URL)
		}
		if prev, ok, err := f.latest(d.URL); err != nil {
			return err
		} else if ok && prev.Status == pages.Fetched {
			continue // fetched by another worker since
		}
		f.batch.Put(d)
		f.n.decisions.Add(1)
	}
	f.pending += len(le.Decisions)
	if le.Page == nil {
		return nil
	}
	rec := le.Page.Record
	if rec.URL == "" || rec.Status != pages.Fetched || rec.Cluster == "" {
		return fmt.Errorf("a page entry without URL or cluster (%q)", rec.URL)
	}
	f.batch.Put(rec)
	if le.Page.Master == rec.URL {
		f.batch.SetMaster(rec.Cluster, rec.URL)
	}
	if err := f.hook.Place(ctx, le.Page.page()); err != nil {
		return err
	}
	f.pending++
	f.n.pages.Add(1)
	return nil
}

// flush commits the records applied, then the index, then the position
// pos, and trims the log behind it.
func (f *Follower) flush(ctx context.Context, pos uint32, trim func(context.Context, uint32) error) error {
	if f.pending > 0 || !f.batch.Empty() {
		if _, err := f.pages.Commit(&f.batch); err != nil {
			return fmt.Errorf("crawler: recording the log's pages: %w", err)
		}
		f.batch = pages.Batch{}
		if err := f.index.Flush(ctx); err != nil {
			return fmt.Errorf("crawler: indexing the log's pages: %w", err)
		}
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

// latest returns the record of url, pending or stored.
func (f *Follower) latest(url string) (pages.Record, bool, error) {
	if rec, ok := f.batch.Pending(url); ok {
		return rec, true, nil
	}
	return f.pages.Get(url)
}

// recorded returns the page recorded for url: the hook's page source.
func (f *Follower) recorded(url string) (hook.Page, bool, error) {
	rec, ok, err := f.latest(url)
	if err != nil || !ok || rec.Status != pages.Fetched {
		return hook.Page{}, false, err
	}
	return hook.FromRecord(rec), true, nil
}

// Close closes the stores (call it after Follow has returned).
func (f *Follower) Close() error {
	var errs []error
	if f.index != nil {
		errs = append(errs, f.index.Close())
	}
	return errors.Join(append(errs, f.pages.Close(), f.front.Close())...)
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
