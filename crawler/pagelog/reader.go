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
	// Committed: its worker committed it; its entry (a page entry or a
	// note) is delivered.
	Committed
	// GivenUp: it will never be committed (its worker gave it up, or its
	// lease ran out); its note, if it has one, is delivered, and a page
	// entry is skipped.
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

// An Entry is what [Reader.Next] returns: the page entry of a committed
// number, or a note (of a committed number or of one given up).
type Entry struct {
	N uint32 // the document number
	// Cluster is the committed number's cluster id, as the Fates say (see
	// FatesOf); "" for a note.
	Cluster string
	Payload []byte // what its worker appended
	// Note: the entry is a note ([Log.AppendNote]), not a page entry.
	Note bool
}

// A Reader reads a log's entries in number order, each once: the page
// entries of the committed numbers and the notes, whether their number is
// committed or given up. It skips the page entries of the numbers given
// up and the numbers without an entry, and waits on the pending ones. It
// is not safe for concurrent use.
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

// Position returns the number the reader is at: every entry to deliver
// below it (a committed number's page entry, or a note) has been returned
// by Next, and every number below it is committed or given up. A reader made from
// it returns the entries Next would return next.
func (r *Reader) Position() uint32 {
	if len(r.buf) == 0 {
		return r.scan
	}
	return r.pos
}

// Next returns the next entry to deliver, in strictly increasing number
// order: a committed number's page entry (its number, its cluster and its
// payload) or a note (Entry.Note; its number and payload), whether its
// number is committed or given up. It skips the numbers given up without
// a note, and waits (polling, from a few milliseconds up to
// ReaderOptions.Poll) while the next number is pending. It returns ctx's
// error if ctx ends first, [ErrMissing] for a committed number without an
// entry (the reader stays before it), or an error of the fates or of
// Redis.
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
// the settled ones up to the first pending one, in one round trip: the
// committed ones' to deliver, the given-up ones' to find their notes. It
// reports whether r.scan moved.
func (r *Reader) fill(ctx context.Context) (bool, error) {
	fates, err := r.fates.Fates(ctx, r.scan, r.opts.Batch)
	if err != nil {
		return false, fmt.Errorf("pagelog: fates from %d: %w", r.scan, err)
	}
	settled := 0
	for settled < len(fates) && fates[settled].Fate != Pending {
		settled++
	}
	if settled == 0 {
		return false, nil
	}
	ns := make([]uint32, settled)
	for i := range ns {
		ns[i] = r.scan + uint32(i)
	}
	// The fates were read first: an entry is appended before its number
	// is committed, so a committed number's entry is there; and a note is
	// appended before its number is given up, by a worker within its
	// lease. A note appended later than this read is not delivered: the
	// reader is past it for good.
	values, err := r.log.read(ctx, ns)
	if err != nil {
		return false, err
	}
	for i, n := range ns {
		note, payload, ok := decode(values[i])
		if fates[i].Fate != Committed {
			if ok && note {
				r.buf = append(r.buf, Entry{N: n, Payload: payload, Note: true})
			}
			continue
		}
		if !ok {
			r.scan = n // the reader stays before it
			if len(r.buf) > 0 {
				return true, nil // the entries before it first
			}
			if values[i] == nil {
				return false, fmt.Errorf("%w: %d", ErrMissing, n)
			}
			return false, fmt.Errorf("pagelog: the entry of %d is of no known kind (%q)", n, values[i][:min(len(values[i]), 1)])
		}
		e := Entry{N: n, Payload: payload, Note: note}
		if !note {
			e.Cluster = fates[i].Cluster
		}
		r.buf = append(r.buf, e)
	}
	r.scan += uint32(settled)
	return true, nil
}
