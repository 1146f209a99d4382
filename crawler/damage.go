package crawler

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/blevesearch/bleve/v2/util"
	bolt "go.etcd.io/bbolt"

	"github.com/doppel-search/doppel/crawler/frontier"
	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/indexer/shard"
	"github.com/doppel-search/doppel/internal/storecheck"
)

// ErrDamaged is wrapped by the error Open and OpenView return for a data
// directory one of whose stores is damaged: a file cut short, garbled,
// emptied or deleted, or stores that disagree (an index holding more
// documents than there are records). The error names the file and says
// to run `doppel check` (see Check and Repair).
var ErrDamaged = storecheck.ErrDamaged

// damaged returns err as the one line a user reads, if it reports a
// damaged file of the data directory dir; else err.
func damaged(dir string, err error) error {
	if err == nil {
		return nil
	}
	var de *damageError
	if errors.As(err, &de) {
		return err
	}
	var d *storecheck.Error
	switch {
	case errors.As(err, &d):
	case errors.Is(err, pages.ErrCorrupt):
		d = storecheck.Damaged(filepath.Join(dir, pagesFile), err)
	case errors.Is(err, frontier.ErrCorrupt):
		d = storecheck.Damaged(filepath.Join(dir, frontierFile), err)
	default:
		return err
	}
	return &damageError{dir: dir, d: d}
}

// Damage returns err, an error reading the crawl in the data directory
// dir, as the one line a user reads if it says a store is damaged: the
// file, what is wrong, and to run `doppel check`. Other errors are
// returned unchanged.
func Damage(dir string, err error) error { return damaged(dir, err) }

// A damageError is a damaged store of a data directory, as Open and
// OpenView report it.
type damageError struct {
	dir string
	d   *storecheck.Error
}

func (e *damageError) Error() string {
	return fmt.Sprintf("crawler: %s: run \"doppel check --data %s\" to report and repair it", describe(e.dir, e.d), e.dir)
}

func (e *damageError) Unwrap() error { return e.d }

// describe says which store of the data directory dir is damaged, and
// why: a file, or the index a file belongs to.
func describe(dir string, d *storecheck.Error) string {
	idx := filepath.Join(dir, indexDir)
	if rel, err := filepath.Rel(idx, d.Path); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		return fmt.Sprintf("the search index %s is damaged (its file %s: %v)", idx, rel, d.Err)
	}
	if d.Path == idx {
		return fmt.Sprintf("the search index %s is damaged (%v)", idx, d.Err)
	}
	return fmt.Sprintf("%s is damaged (%v)", d.Path, d.Err)
}

// missing returns a damage error if the earlier crawl in dir (its
// options file exists) has lost the store file name; nil if it is there
// or there was no earlier crawl.
func missing(dir, name string) error {
	if _, err := os.Stat(filepath.Join(dir, optionsFile)); err != nil {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, name)); errors.Is(err, fs.ErrNotExist) {
		return &storecheck.Error{Path: filepath.Join(dir, name), Err: errors.New("the file is missing")}
	}
	return nil
}

// checkIndexFiles checks the files of the index at path before bleve
// reads them: every bbolt file (scorch's root.bolt) and the segments its
// latest snapshot names (files a crash left half-written, which scorch
// removes when it opens, are not read).
func checkIndexFiles(path string) error {
	return filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".bolt") {
			return nil
		}
		db, err := storecheck.OpenBolt(p, 0o600, boltReadOnly())
		if err != nil {
			return err
		}
		var segments []string
		err = db.View(func(tx *bolt.Tx) error {
			snaps := tx.Bucket(util.BoltSnapshotsBucket)
			if snaps == nil {
				return nil
			}
			k, _ := snaps.Cursor().Last()
			if k == nil {
				return nil
			}
			last := snaps.Bucket(k)
			if last == nil {
				return nil
			}
			return last.ForEachBucket(func(name []byte) error {
				if seg := last.Bucket(name); seg != nil {
					if file := seg.Get(util.BoltPathKey); file != nil {
						segments = append(segments, filepath.Join(filepath.Dir(p), filepath.Base(string(file))))
					}
				}
				return nil
			})
		})
		if cerr := db.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return storecheck.Damaged(p, err)
		}
		for _, seg := range segments {
			if err := storecheck.Segment(seg); err != nil {
				return err
			}
		}
		return nil
	})
}

// agree checks that the index and the records can belong together: the
// index holds no more documents than there are records, and is not empty
// while the records say pages were indexed. A failure names the store
// that lost data (pages.db, or the index).
func agree(dir string, recs *pages.Store, index Store) error {
	idx := filepath.Join(dir, indexDir)
	return storecheck.Protect(idx, func() error {
		n, err := index.Indexed()
		if err != nil {
			return storecheck.Damaged(idx, err)
		}
		records, err := recs.Len()
		if err != nil {
			return err
		}
		if n > records {
			return &storecheck.Error{Path: filepath.Join(dir, pagesFile),
				Err: fmt.Errorf("it holds %d records, the search index %d documents", records, n)}
		}
		if n > 0 {
			return nil
		}
		through, err := recs.IndexedThrough()
		if err != nil || through == 0 {
			return err
		}
		lost := errors.New("lost")
		err = recs.Each(func(r pages.Record) error {
			if r.Status == pages.Fetched && r.Rev <= through {
				return lost
			}
			return nil
		})
		if errors.Is(err, lost) {
			return &storecheck.Error{Path: idx, Err: errors.New("it is empty, but the records say pages were indexed")}
		}
		return err
	})
}

// boltReadOnly is how a bbolt file of the index is opened for its check.
func boltReadOnly() *bolt.Options { return &bolt.Options{ReadOnly: true, Timeout: lockTimeout} }

// openIndexChecked opens the index as openIndex does after checking its
// files, a panic while bleve reads them turned into a damage error.
func openIndexChecked(dir string, shards int, opts indexer.Options) (Store, error) {
	path := filepath.Join(dir, indexDir)
	if err := checkIndexFiles(path); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, optionsFile)); err == nil {
		// A crawl's index has gone: bleve would start an empty one.
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, &storecheck.Error{Path: path, Err: errors.New("its folder is missing")}
		}
		// bleve would start an empty index in the folder.
		meta := filepath.Join(path, "index_meta.json")
		if _, err := os.Stat(meta); errors.Is(err, fs.ErrNotExist) && !shard.IsSharded(path) {
			return nil, &storecheck.Error{Path: meta, Err: errors.New("the file is missing")}
		}
	}
	var s Store
	err := storecheck.Protect(path, func() error {
		var err error
		s, err = openIndex(dir, shards, opts)
		return err
	})
	if err != nil && !errors.Is(err, ErrDamaged) && indexDamage(err) {
		err = storecheck.Damaged(path, err)
	}
	return s, err
}

// indexDamage reports whether an error opening an index says it is
// damaged (not locked, not absent).
func indexDamage(err error) bool {
	msg := err.Error()
	return !strings.Contains(msg, "timeout") && !strings.Contains(msg, "no index there") &&
		!errors.Is(err, fs.ErrPermission) && !errors.Is(err, shard.ErrNotSharded) && !errors.Is(err, shard.ErrShardCount) &&
		!errors.Is(err, indexer.ErrMapping)
}
