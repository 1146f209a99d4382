package hook

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/internal/checkfile"
	"github.com/doppel-search/doppel/page"
)

// The files of a state directory (Open): the pages store of package
// crawler/pages (every page processed, its cluster, and the anchor texts
// learned for each URL), and a snapshot of the detector with the site
// statistics, in a checkfile.
const (
	stateRecords  = "pages.db"
	stateSnapshot = "hook.snap"
	stateMagic    = "DPHOOKS1"
)

// ErrState is wrapped by every error of Open for a state directory that
// cannot be used: a damaged file (the error names it, and what to remove
// to start again), or one held by another process.
var ErrState = errors.New("hook: state directory cannot be used")

// state is a hook's state directory: the pages store, the records and
// anchor texts not committed yet (batch, under mu), and what the snapshot
// on disk covers.
type state struct {
	dir     string
	store   *pages.Store
	mu      sync.Mutex
	batch   pages.Batch
	lastRev uint64 // the revision of the last record committed
	snapRev uint64 // the revision of the last record the snapshot on disk reflects
	snapped bool   // a snapshot is on disk
}

// snapHeader is what a snapshot holds beside the detector.
type snapHeader struct {
	Rev       uint64          `json:"rev"`       // the last record it reflects
	Lang      string          `json:"lang"`      // the preferred language learnt (Options.Language)
	Templates json.RawMessage `json:"templates"` // clean.Templates.MarshalBinary
}

// Open returns a Hook whose state lives in the directory dir (created if
// need be), for a crawl run as a new process each time — a nightly job:
// the pages processed, their clusters, the anchor texts learnt for each
// URL, the detector (dedup.Web) and the site-template statistics. A Hook
// opened on the directory a Hook of an earlier process flushed goes on
// where that one stopped: a page seen again is a new version (an update,
// not an addition), a page that now answers 404 or 410 is removed from
// the index, and the pages SourceDoc hands back are read from the
// directory. Call Flush after each crawl (it saves the state) and Close
// at the end.
//
// The pages are kept in a crawler/pages store (bbolt, one fsynced
// transaction at each Flush); the detector and the statistics in a
// snapshot written after it (atomically replaced, with a checksum). After
// a kill -9 the directory holds what the last Flush saved — and, if the
// process died between the two, the pages of that Flush, which Open puts
// through the detector again. A damaged file gives an error wrapping
// ErrState that names it.
//
// Options.Detector, Recorder, Source, AtTurn and NoDedup must be unset:
// the state directory provides the first three, and the others are
// package crawler's.
func Open(dir string, opts Options) (*Hook, error) {
	if err := openable(opts); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrState, err)
	}
	if err := missingRecords(dir); err != nil {
		return nil, err
	}
	store, err := pages.Open(filepath.Join(dir, stateRecords), pages.Options{})
	if err != nil {
		return nil, fmt.Errorf("%w: %v (another process may have it open; if it is damaged, remove the directory and start again: every page is then new)", ErrState, err)
	}
	h, err := openState(&state{dir: dir, store: store}, opts)
	if err != nil {
		return nil, errors.Join(err, store.Close())
	}
	return h, nil
}

// missingRecords returns an error if the state directory dir holds a
// snapshot but not the pages store it was written after: a new, empty
// store would silently lose every page the snapshot's detector holds.
func missingRecords(dir string) error {
	_, serr := os.Stat(filepath.Join(dir, stateSnapshot))
	_, rerr := os.Stat(filepath.Join(dir, stateRecords))
	if serr == nil && errors.Is(rerr, fs.ErrNotExist) {
		return fmt.Errorf("%w: %s is missing, but %s is there (remove the directory to start again: every page is then new)",
			ErrState, filepath.Join(dir, stateRecords), stateSnapshot)
	}
	return nil
}

// openable returns an error naming the first option Open sets itself or
// does not take.
func openable(opts Options) error {
	for _, o := range []struct {
		name string
		set  bool
	}{{"Detector", opts.Detector != nil}, {"Recorder", opts.Recorder != nil}, {"Source", opts.Source != nil},
		{"AtTurn", opts.AtTurn != nil}, {"NoDedup", opts.NoDedup}} {
		if o.set {
			return fmt.Errorf("hook: Open keeps the detector and the pages in its directory: Options.%s must not be set", o.name)
		}
	}
	return nil
}

// openState makes the Hook of an opened state: its detector and
// statistics read from the snapshot, the pages recorded after it put
// through the detector again.
func openState(st *state, opts Options) (*Hook, error) {
	det, hdr, err := st.readSnapshot()
	if err != nil {
		return nil, err
	}
	opts.Detector, opts.Recorder, opts.Source = det, RecorderFunc(st.record), st.page
	h, err := New(opts)
	if err != nil {
		return nil, errors.Join(err, det.Close())
	}
	h.state = st
	h.links = newLinkState(st.store.Anchors)
	if hdr != nil {
		if err := h.opts.Templates.UnmarshalBinary(hdr.Templates); err != nil {
			return nil, errors.Join(st.damaged(stateSnapshot, err), det.Close())
		}
		h.language(hdr.Lang)
	}
	if err := h.restore(); err != nil {
		return nil, errors.Join(st.damaged(stateRecords, err), det.Close())
	}
	return h, nil
}

// damaged is the error for a file of the state directory that cannot be
// read.
func (st *state) damaged(file string, err error) error {
	return fmt.Errorf("%w: %s is damaged: %v (remove %s to start again: every page is then new)", ErrState,
		filepath.Join(st.dir, file), err, st.dir)
}

// readSnapshot returns the detector of the snapshot, with its header, or
// a new detector and no header if there is none — or one written by
// another version of package dedup, whose pages are then all put through
// the new detector again.
func (st *state) readSnapshot() (*dedup.Detector, *snapHeader, error) {
	payload, err := checkfile.Read(filepath.Join(st.dir, stateSnapshot), stateMagic)
	if errors.Is(err, fs.ErrNotExist) {
		det, err := dedup.New(nil, dedup.Web())
		return det, nil, err
	}
	if err != nil {
		return nil, nil, st.damaged(stateSnapshot, err)
	}
	if len(payload) < 8 || uint64(len(payload)-8) < binary.LittleEndian.Uint64(payload) {
		return nil, nil, st.damaged(stateSnapshot, errors.New("no header"))
	}
	n := binary.LittleEndian.Uint64(payload)
	var hdr snapHeader
	if err := json.Unmarshal(payload[8:8+n], &hdr); err != nil {
		return nil, nil, st.damaged(stateSnapshot, err)
	}
	det, err := dedup.ReadSnapshot(bytes.NewReader(payload[8+n:]), dedup.Web())
	if errors.Is(err, dedup.ErrSnapshotMismatch) {
		det, err := dedup.New(nil, dedup.Web())
		return det, nil, err
	}
	if err != nil {
		return nil, nil, st.damaged(stateSnapshot, err)
	}
	st.snapRev, st.snapped = hdr.Rev, true
	return det, &hdr, nil
}

// restore reads every record: the anchor texts of each page to the
// anchor statistics, and the pages recorded after the snapshot (all of
// them without one) through the detector and the site statistics again,
// those gone out of the detector.
func (h *Hook) restore() error {
	st := h.state
	ctx := context.Background()
	return st.store.Each(func(r pages.Record) error {
		st.lastRev = max(st.lastRev, r.Rev)
		for _, a := range r.Anchors {
			h.opts.Anchors.Observe(a, r.URL)
		}
		if r.Rev <= st.snapRev {
			return nil
		}
		if r.Status == pages.Fetched {
			if r.Lang != "" {
				h.language(r.Lang)
			}
			_, err := h.Replay(ctx, FromRecord(r), false)
			return err
		}
		if _, held := h.opts.Detector.Fingerprint(r.URL); held {
			_, err := h.opts.Detector.Remove(r.URL)
			return err
		}
		return nil
	})
}

// record is the state's Recorder: the page's record, in the batch the
// next Flush commits.
func (st *state) record(p Page) error {
	r := Record(p)
	r.FetchedAt = time.Now().UTC()
	st.mu.Lock()
	defer st.mu.Unlock()
	if p.Arrived { // a restore puts it through the detector after the pages recorded before it
		st.batch.Move(r)
	} else {
		st.batch.Put(r)
	}
	return nil
}

// page is the state's PageSource: the latest record of url, in the batch
// or the store, if it is a page processed and not gone.
func (st *state) page(url string) (Page, bool, error) {
	st.mu.Lock()
	r, ok := st.batch.Pending(url)
	st.mu.Unlock()
	if !ok {
		var err error
		if r, ok, err = st.store.Get(url); err != nil {
			return Page{}, false, err
		}
	}
	if !ok || r.Status != pages.Fetched {
		return Page{}, false, nil
	}
	return FromRecord(r), true, nil
}

// gone records that the page of url is gone, if it was recorded, keeping
// its anchor texts for the anchor statistics of a restore.
func (st *state) gone(url string) error {
	p, ok, err := st.page(url)
	if err != nil || !ok {
		return err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.batch.Put(pages.Record{Page: page.Page{URL: url, Anchors: p.Anchors}, Status: pages.Gone, FetchedAt: time.Now().UTC()})
	return nil
}

// save commits the records and anchor texts since the last save, then,
// if any page was recorded, replaces the snapshot: the detector, the
// site statistics and the preferred language, with the revision of the
// last record. It holds h.mu, so that no page goes through the detector
// meanwhile.
func (h *Hook) save() error {
	st := h.state
	h.mu.Lock()
	defer h.mu.Unlock()
	st.mu.Lock()
	h.links.save(&st.batch)
	stored, err := st.store.Commit(&st.batch)
	if err == nil {
		st.batch = pages.Batch{}
	}
	st.mu.Unlock()
	if err != nil {
		return fmt.Errorf("hook: saving the pages: %w", err)
	}
	for _, r := range stored {
		st.lastRev = max(st.lastRev, r.Rev)
	}
	if st.snapped && st.lastRev == st.snapRev {
		return nil
	}
	templates, err := h.opts.Templates.MarshalBinary()
	if err != nil {
		return err
	}
	hdr, err := json.Marshal(snapHeader{Rev: st.lastRev, Lang: h.language(""), Templates: templates})
	if err != nil {
		return err
	}
	err = checkfile.Write(filepath.Join(st.dir, stateSnapshot), stateMagic, func(w io.Writer) error {
		if _, err := w.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(hdr)))); err != nil {
			return err
		}
		if _, err := w.Write(hdr); err != nil {
			return err
		}
		return h.opts.Detector.WriteSnapshot(w)
	})
	if err != nil {
		return fmt.Errorf("hook: saving the detector: %w", err)
	}
	st.snapRev, st.snapped = st.lastRev, true
	return nil
}

// Close saves the state of a hook of Open as Flush does (flushing the
// index first, unless it is closed already: indexer.Index.Close flushes)
// and closes its directory; the Hook must not be used after. For a hook
// of New or Attach it does nothing.
func (h *Hook) Close() error {
	if h.state == nil {
		return nil
	}
	var err error
	if h.opts.Index != nil {
		if err = h.opts.Index.Flush(context.Background()); errors.Is(err, indexer.ErrClosed) {
			err = nil
		}
	}
	if err == nil || errors.Is(err, indexer.ErrUserDocument) {
		err = errors.Join(err, h.save())
	}
	return errors.Join(err, h.state.store.Close(), h.opts.Detector.Close())
}
