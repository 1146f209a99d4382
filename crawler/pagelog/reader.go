package pagelog

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// A Fate is what became of a document number.
type Fate uint8

// The fates of a document number.
const (
	// Pending: neither committed nor given up yet; its worker may still
	// commit it.
	Pending Fate = iota
	// Committed: its worker committed it; its entry is delivered.
	Committed
	// GivenUp: it will never be committed (its worker gave it up, or its
	// lease ran out); its entry, if any, is skipped.
	GivenUp
)

// String returns the fate's name.
func (f Fate) String() string {
	switch f {
	case Pending:
		return "pending"
	case Committed:
		return "committed"
	case GivenUp:
		return "given up"
	}
	return fmt.Sprintf("Fate(%d)", uint8(f))
}

// An Outcome is what became of a document number: its fate and, if it
// is committed, its cluster.
type Outcome struct {
	Fate Fate
	// Cluster is the id of the committed number's cluster ("" for the
	// others, or if the Fates do not know it).
	Cluster string
}

// Fates says what became of document numbers: the shared detector's
// turns ([FatesOf] for redissig), or a fake in tests. A fate other than
// Pending must be final, and so must a committed number's cluster.
type Fates interface {
	// Fates returns the outcomes of the numbers from, …, from+count-1.
	Fates(ctx context.Context, from uint32, count int) ([]Outcome, error)
}

// ErrMissing is returned by [Reader.Next] for a committed number without
// an entry: the log lost it (its master failed before a replica had it;
// see Options.Replicas) or it was trimmed while a reader still needed
// it.
var ErrMissing = errors.New("pagelog: a committed number has no entry")

// ReaderOptions configures [Log.Reader]. The zero value is usable.
type ReaderOptions struct {
	// Batch is how many numbers a reader asks the fates of, and reads the
	// entries of, in one round trip each. Default 256.
	Batch int
	// Poll is the longest a reader waits before asking again about a
	// pending number (it starts at a few milliseconds and doubles).
	// Default 200 ms.
	Poll time.Duration
}

// An Entry is what [Reader.Next] returns of a committed number.
type Entry struct {
	N       uint32 // the document number
	Cluster string // its cluster's id, as the Fates say (see FatesOf)
	Payload []byte // what its worker appended
}

// A Reader reads a log's entries in number order: those of the committed
// numbers, each once, skipping the numbers given up and waiting on the
// pending ones. It is not safe for concurrent use.
type Reader struct {
	log   *Log
	fates Fates
	opts  ReaderOptions

	pos  uint32  // the number after the last entry returned
	scan uint32  // the next number whose fate is not known final
	buf  []Entry // entries read, not yet returned
}

// Reader returns a reader of l from number from (a position the caller
// kept, [Reader.Position]; 0 for the start), asking fates what became of
// each number.
func (l *Log) Reader(fates Fates, from uint32, opts ReaderOptions) *Reader {
	if opts.Batch <= 0 {
		opts.Batch = 256
	}
	if opts.Poll <= 0 {
		opts.Poll = 200 * time.Millisecond
	}
	return &Reader{log: l, fates: fates, opts: opts, pos: from, scan: from}
}

// Position returns the number the reader is at: every committed number
// below it has been returned by Next (and every number below it is
// committed or given up). A reader made from it returns the entries Next
// would return next.
func (r *Reader) Position() uint32 {
	if len(r.buf) == 0 {
		return r.scan
	}
	return r.pos
}

// Next returns the next committed number's entry (its number, its
// cluster and its payload), in strictly increasing number order, skipping
// the numbers given up and waiting (polling, from a few milliseconds up
// to ReaderOptions.Poll) while the next number is pending. It returns
// ctx's error if ctx ends first, [ErrMissing] for a committed number
// without an entry (the reader stays before it), or an error of the fates
// or of Redis.
func (r *Reader) Next(ctx context.Context) (Entry, error) {
	for wait := 2 * time.Millisecond; len(r.buf) == 0; wait = min(2*wait, r.opts.Poll) {
		progressed, err := r.fill(ctx)
		if err != nil {
			return Entry{}, err
		}
		if progressed {
			wait = time.Millisecond
			continue
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return Entry{}, ctx.Err()
		}
	}
	e := r.buf[0]
	r.buf = r.buf[1:]
	r.pos = e.N + 1
	return e, nil
}

// fill asks the fates of the numbers from r.scan and reads the entries of
// the committed ones up to the first pending one. It reports whether
// r.scan moved.
func (r *Reader) fill(ctx context.Context) (bool, error) {
	fates, err := r.fates.Fates(ctx, r.scan, r.opts.Batch)
	if err != nil {
		return false, fmt.Errorf("pagelog: fates from %d: %w", r.scan, err)
	}
	var committed []uint32
	var clusters []string
	settled := 0
	for i, f := range fates {
		if f.Fate == Pending {
			break
		}
		if f.Fate == Committed {
			committed = append(committed, r.scan+uint32(i))
			clusters = append(clusters, f.Cluster)
		}
		settled++
	}
	if len(committed) > 0 {
		// The fates were read first: an entry is appended before its
		// number is committed, so a committed number's entry is there.
		payloads, err := r.log.read(ctx, committed)
		if err != nil {
			return false, err
		}
		for i, n := range committed {
			if payloads[i] == nil {
				r.scan = n // the reader stays before it
				if len(r.buf) == 0 {
					return false, fmt.Errorf("%w: %d", ErrMissing, n)
				}
				return true, nil // the entries before it first
			}
			r.buf = append(r.buf, Entry{N: n, Cluster: clusters[i], Payload: payloads[i]})
		}
	}
	r.scan += uint32(settled)
	return settled > 0, nil
}
