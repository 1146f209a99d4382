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

// noSnapshot is the revision of a detector built empty, not read from a
// snapshot.
const noSnapshot = -1

// openDetector returns the crawl's detector: read from the snapshot in
// dir when there is one written with the same options (with the revision
// of the last record it reflects), else new and empty (noSnapshot), its
// sets file emptied. A snapshot that cannot be used is logged and
// ignored: the records are replayed instead.
func openDetector(dir string, opts dedup.Options) (*dedup.Detector, int64, error) {
	opts.SetsFile = filepath.Join(dir, setsFile)
	payload, err := checkfile.Read(filepath.Join(dir, snapshotFile), snapshotMagic)
	if err == nil && len(payload) < 8 {
		err = fmt.Errorf("%w: no revision", checkfile.ErrCorrupt)
	}
	if err == nil {
		var det *dedup.Detector
		rev := binary.LittleEndian.Uint64(payload)
		if det, err = dedup.ReadSnapshot(bytes.NewReader(payload[8:]), opts); err == nil {
			return det, int64(rev), nil
		}
	}
	if !errors.Is(err, fs.ErrNotExist) {
		slog.Warn("crawler: the detector's snapshot cannot be used; replaying every recorded page", "dir", dir, "err", err)
	}
	det, err := dedup.New(nil, opts)
	return det, noSnapshot, err
}

// writeSnapshot writes the detector's state with the revision of the
// last committed record (lastRev): every change the detector holds has
// its record committed by then (the record writer has been waited for),
// and every record up to lastRev is in the detector. It is replaced
// atomically, so a crash leaves the old snapshot or the new one.
func (c *committer) writeSnapshot() error {
	if c.opts.NoDedup || int64(c.lastRev) == c.snapRev {
		return nil
	}
	start := time.Now()
	err := checkfile.Write(filepath.Join(c.dir, snapshotFile), snapshotMagic, func(w io.Writer) error {
		if _, err := w.Write(binary.LittleEndian.AppendUint64(nil, c.lastRev)); err != nil {
			return err
		}
		return c.hook.Detector().WriteSnapshot(w)
	})
	if err != nil {
		return fmt.Errorf("crawler: writing the detector's snapshot: %w", err)
	}
	c.snapRev, c.sinceSnapshot = int64(c.lastRev), 0
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
	if c.writer != nil {
		rev, err := c.writer.wait()
		if err != nil {
			return err
		}
		c.lastRev = max(c.lastRev, rev)
	}
	return c.writeSnapshot()
}
