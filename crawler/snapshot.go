package crawler

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/internal/checkfile"
)

// Names in the data directory: the detector's snapshot and the file of
// its verification sets.
const (
	snapshotFile  = "detector.snap"
	setsFile      = "detector.sets"
	snapshotMagic = "DPDETSN1"
	// snapshotMin is the fewest pages committed since the last snapshot
	// for which a running crawl writes one (see maybeSnapshot).
	snapshotMin = 2000
)

// A snapHeader is what a snapshot holds beside the detector: the
// revision of the last record it reflects, and the re-clustering
// counters then (see maybeRecluster).
type snapHeader struct {
	rev                         uint64
	sinceRecluster, reclustered int
}

// snapshots is the committer's restore and snapshot state: how replay
// restored the crawl after a restart, and the detector's snapshot (see
// writeSnapshot). The committer's part; touched only by the committer
// goroutine.
type snapshots struct {
	dir           string      // the data directory the snapshot is written to
	snap          *snapHeader // what the snapshot the detector was read from said (nil: none)
	snapRev       uint64      // the revision of the last record the last snapshot written (or read) reflects
	sinceSnapshot int         // pages committed since
	opened        Opened      // how replay restored the crawl
}

// headerBytes is the size of an encoded snapHeader.
const headerBytes = 24

// openDetector returns the crawl's detector: read from the snapshot in
// dir when there is one written with the same options (with its header),
// else new and empty (header nil), its sets file emptied. A snapshot that
// cannot be used is logged and ignored: the records are replayed instead.
func openDetector(dir string, opts dedup.Options) (*dedup.Detector, *snapHeader, error) {
	opts.SetsFile = filepath.Join(dir, setsFile)
	payload, err := checkfile.Read(filepath.Join(dir, snapshotFile), snapshotMagic)
	if err == nil && len(payload) < headerBytes {
		err = fmt.Errorf("%w: no header", checkfile.ErrCorrupt)
	}
	if err == nil {
		var det *dedup.Detector
		h := &snapHeader{rev: binary.LittleEndian.Uint64(payload), sinceRecluster: int(binary.LittleEndian.Uint64(payload[8:])),
			reclustered: int(binary.LittleEndian.Uint64(payload[16:]))}
		if det, err = dedup.ReadSnapshot(bytes.NewReader(payload[headerBytes:]), opts); err == nil {
			return det, h, nil
		}
	}
	if !errors.Is(err, fs.ErrNotExist) {
		slog.Warn("crawler: the detector's snapshot cannot be used; replaying every recorded page", "dir", dir, "err", err)
	}
	det, err := dedup.New(nil, opts)
	return det, nil, err
}

// writeSnapshot writes the detector's state with the revision of the
// last committed record (lastRev): every change the detector holds has
// its record committed by then (the record writer has been waited for),
// and every record up to lastRev is in the detector. It is replaced
// atomically, so a crash leaves the old snapshot or the new one.
func (c *committer) writeSnapshot() error {
	if c.opts.NoDedup || c.snap != nil && c.lastRev == c.snapRev {
		return nil
	}
	start := time.Now()
	err := checkfile.Write(filepath.Join(c.dir, snapshotFile), snapshotMagic, func(w io.Writer) error {
		hdr := binary.LittleEndian.AppendUint64(nil, c.lastRev)
		hdr = binary.LittleEndian.AppendUint64(hdr, uint64(c.sinceRecluster))
		hdr = binary.LittleEndian.AppendUint64(hdr, uint64(c.reclustered))
		if _, err := w.Write(hdr); err != nil {
			return err
		}
		return c.hook.Detector().WriteSnapshot(w)
	})
	if err != nil {
		return fmt.Errorf("crawler: writing the detector's snapshot: %w", err)
	}
	c.snapRev, c.sinceSnapshot = c.lastRev, 0
	if c.snap == nil {
		c.snap = &snapHeader{}
	}
	slog.Debug("crawler: detector snapshot written", "rev", c.lastRev, "seconds", time.Since(start).Seconds())
	return nil
}

// maybeSnapshot writes a snapshot when a quarter as many pages as the
// detector held at the last re-clustering (and at least snapshotMin) have
// been committed since the last one, so that a restart replays few pages
// and the cost stays proportional to the pages crawled.
func (c *committer) maybeSnapshot() error {
	if c.sinceSnapshot < max(snapshotMin, c.reclustered/4) {
		return nil
	}
	if err := c.waitRecords(); err != nil {
		return err
	}
	return c.writeSnapshot()
}
