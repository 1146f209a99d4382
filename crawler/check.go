package crawler

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/doppel-search/doppel/crawler/frontier"
	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/indexer/shard"
	"github.com/doppel-search/doppel/internal/checkfile"
	"github.com/doppel-search/doppel/internal/storecheck"
	"github.com/doppel-search/doppel/page"
)

// A StoreState is what Check found of one store of a data directory and,
// after Repair, what was done.
type StoreState struct {
	Name string // "crawl.json", "pages.db", "frontier.db", "index", "detector.snap", "detector.sets"
	Path string
	// Err says what is wrong with the store; nil if it is sound.
	Err error
	// Repair says what Repair did (or, from Check, would do) about it;
	// empty if nothing.
	Repair string
	// Lost says what the repair could not bring back; empty if nothing.
	Lost string
}

// Check opens every store of the data directory dir read-only and checks
// it (see Open): the options file, the records, the frontier, the search
// index (its files, and its document count against the records), the
// detector's snapshot and its verification sets (against the checksum
// the snapshot records). It changes nothing. The error is for a directory
// that holds no crawl, or is in use by a running crawl.
func Check(dir string) ([]StoreState, error) {
	if _, err := os.Stat(filepath.Join(dir, optionsFile)); err != nil {
		if _, perr := os.Stat(filepath.Join(dir, pagesFile)); perr != nil {
			return nil, fmt.Errorf("crawler: no earlier crawl in %s", dir)
		}
	}
	st := []StoreState{{Name: optionsFile}, {Name: pagesFile}, {Name: frontierFile}, {Name: indexDir}, {Name: snapshotFile}, {Name: setsFile}}
	for i := range st {
		st[i].Path = filepath.Join(dir, st[i].Name)
	}
	opts, err := resolveOptions(dir, Options{})
	if err != nil {
		st[0].Err = err
		st[0].Repair = "none: pass the seeds (and flags) of the crawl again to `doppel crawl`, which writes it anew"
	}
	recs, err := checkRecords(dir, &st[1])
	if err != nil {
		return nil, err
	}
	if recs != nil {
		defer recs.Close()
	}
	if err := checkFrontier(dir, &st[2]); err != nil {
		return nil, err
	}
	checkIndex(dir, opts, recs, &st[1], &st[3])
	checkDetector(&st[4], &st[5])
	plan(st)
	return st, nil
}

// checkDetector checks the detector's snapshot and, if it is sound, the
// verification sets file against it.
func checkDetector(snap, sets *StoreState) {
	payload, err := checkfile.Read(snap.Path, snapshotMagic)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return
	case err == nil && len(payload) < headerBytes:
		err = errors.New("no header")
	}
	if err != nil {
		snap.Err = storecheck.Damaged(snap.Path, err)
		return
	}
	err = dedup.CheckSetsFile(bytes.NewReader(payload[headerBytes:]), sets.Path)
	var se *dedup.SetsError
	switch {
	case errors.As(err, &se):
		sets.Err = &storecheck.Error{Path: sets.Path, Err: errors.New(se.Reason)}
	case err != nil:
		snap.Err = storecheck.Damaged(snap.Path, err)
	}
}

// checkRecords opens the records read-only and verifies them, setting
// st.Err if they are missing or damaged. It returns them open (nil if
// they could not be opened), and an error only if a running crawl holds
// them.
func checkRecords(dir string, st *StoreState) (*pages.Store, error) {
	recs, err := pages.Open(st.Path, pages.Options{ReadOnly: true, Timeout: lockTimeout})
	if err != nil {
		if !exists(st.Path) {
			err = &storecheck.Error{Path: st.Path, Err: errors.New("the file is missing")}
		}
		if errors.Is(err, bolterrors.ErrTimeout) {
			return nil, inUse(dir, err)
		}
		st.Err = err
		return nil, nil
	}
	if err := storecheck.Protect(st.Path, recs.Verify); err != nil {
		st.Err = damaged(dir, err)
	}
	return recs, nil
}

// checkFrontier opens the frontier read-only and verifies it, setting
// st.Err if it is missing or damaged; an error only if a running crawl
// holds it.
func checkFrontier(dir string, st *StoreState) error {
	front, err := frontier.Open(st.Path, frontier.Options{ReadOnly: true, LockTimeout: lockTimeout})
	if err != nil {
		if !exists(st.Path) {
			err = &storecheck.Error{Path: st.Path, Err: errors.New("the file is missing")}
		}
		if errors.Is(err, bolterrors.ErrTimeout) {
			return inUse(dir, err)
		}
		st.Err = err
		return nil
	}
	if err := storecheck.Protect(st.Path, front.Verify); err != nil {
		st.Err = damaged(dir, err)
	}
	front.Close()
	return nil
}

// checkIndex opens the search index read-only and, if the records
// (recs, recsSt) are sound, checks that the two agree, setting the
// error of the one found at fault.
func checkIndex(dir string, opts Options, recs *pages.Store, recsSt, st *StoreState) {
	idx, err := openIndexChecked(dir, 0, indexer.Options{Policy: opts.Policy, ReadOnly: true})
	switch {
	case err != nil && !exists(st.Path):
		st.Err = &storecheck.Error{Path: st.Path, Err: errors.New("its folder is missing")}
		return
	case err != nil:
		st.Err = err
		return
	}
	defer idx.Close()
	if recs == nil || recsSt.Err != nil {
		return
	}
	if err := agree(dir, recs, idx); err != nil {
		if d := (*storecheck.Error)(nil); errors.As(err, &d) && d.Path == recsSt.Path {
			recsSt.Err = err
		} else {
			st.Err = err
		}
	}
}

// exists reports whether path exists.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// plan fills in what Repair does about each damaged store.
func plan(st []StoreState) {
	recsOK, indexOK := st[1].Err == nil, st[3].Err == nil
	for i := range st {
		if st[i].Err == nil || st[i].Repair != "" {
			continue
		}
		switch st[i].Name {
		case pagesFile:
			if !indexOK {
				st[i].Repair = "none: the search index is damaged too; move the data directory aside and crawl again"
				continue
			}
			st[i].Repair = "rebuilt from the search index"
			st[i].Lost = "URLs skipped or failed, fetch times, validators (ETag, Last-Modified), revisit histories, links, " +
				"and near-duplicates the index left out (policy skip); a crawl fetches again only those with a revisit scheduled in the frontier"
		case frontierFile:
			if !recsOK {
				st[i].Repair = "none until pages.db is repaired"
				continue
			}
			st[i].Repair = "rebuilt from the records: every recorded URL done, revisits planned again"
			st[i].Lost = "URLs queued but not yet fetched (a crawl finds them again through the links of the pages it revisits)"
		case indexDir:
			if !recsOK {
				st[i].Repair = "none: pages.db is damaged too; move the data directory aside and crawl again"
				continue
			}
			st[i].Repair = "rebuilt from the records"
		case snapshotFile:
			st[i].Repair = "moved aside: the next crawl replays every recorded page"
		case setsFile:
			st[i].Repair = "moved aside with the detector's snapshot: the next crawl replays every recorded page, signing each again"
		}
	}
}

// Repair checks the data directory dir as Check does and rebuilds what it
// can from the stores that survive: the records from the search index,
// the index and the frontier from the records. A damaged file or folder
// is never overwritten: it is moved aside first, to NAME.damaged-TIME
// (TIME is now, as 20060102T150405). The states say what was done and
// what is lost. Repair needs the directory to itself (no crawl, serve or
// export running on it).
func Repair(dir string, now time.Time) ([]StoreState, error) {
	st, err := Check(dir)
	if err != nil {
		return nil, err
	}
	r := repair{dir: dir, suffix: ".damaged-" + now.UTC().Format("20060102T150405")}
	recs, front, idx, snap, sets := &st[1], &st[2], &st[3], &st[4], &st[5]
	if st[0].Err != nil {
		return st, nil // without the crawl's options nothing can be opened
	}
	rebuilt := false
	switch {
	case recs.Err != nil && idx.Err == nil:
		if err := r.records(recs); err != nil {
			return st, err
		}
		rebuilt = true
	case idx.Err != nil && recs.Err == nil:
		if err := r.index(idx); err != nil {
			return st, err
		}
		rebuilt = true
	}
	if front.Err != nil && (recs.Err == nil || rebuilt) {
		if err := r.aside(front); err != nil {
			return st, err
		}
		if err := frontierFromRecords(dir); err != nil {
			return st, err
		}
		rebuilt = true
	}
	if err := r.detector(snap, sets, rebuilt); err != nil {
		return st, err
	}
	if rebuilt {
		return st, reopen(dir)
	}
	return st, nil
}

// A repair is Repair's work on one data directory: a damaged store is
// moved aside to its name with suffix, then rebuilt.
type repair struct {
	dir, suffix string
}

// aside moves the store s aside, if it exists, and says so in s.Repair.
func (r repair) aside(s *StoreState) error {
	if !exists(s.Path) {
		return nil
	}
	if err := os.Rename(s.Path, s.Path+r.suffix); err != nil {
		return fmt.Errorf("crawler: moving %s aside: %w", s.Path, err)
	}
	s.Repair += "; the old one kept as " + filepath.Base(s.Path+r.suffix)
	return nil
}

// detector moves aside the detector's snapshot snap when it is damaged,
// when its verification sets are, or when the records were rebuilt (the
// snapshot reflects records that changed), and the sets when they are
// damaged: the next crawl replays every recorded page.
func (r repair) detector(snap, sets *StoreState, rebuilt bool) error {
	if sets.Err != nil {
		if err := r.aside(sets); err != nil {
			return err
		}
	}
	if snap.Err == nil && exists(snap.Path) {
		switch {
		case sets.Err != nil:
			snap.Repair = "moved aside, as its verification sets are damaged: the next crawl replays every recorded page"
		case rebuilt:
			snap.Repair = "moved aside, as the records changed: the next crawl replays every recorded page"
		}
	}
	if snap.Err != nil || snap.Repair != "" {
		return r.aside(snap)
	}
	return nil
}

// records rebuilds the records recs from the search index, saying in
// recs.Lost how many near-duplicates only the records knew.
func (r repair) records(recs *StoreState) error {
	if err := r.aside(recs); err != nil {
		return err
	}
	lostDups, err := recordsFromIndex(r.dir)
	if err != nil {
		return err
	}
	if lostDups > 0 {
		recs.Lost += fmt.Sprintf(" (%d near-duplicates here)", lostDups)
	}
	return nil
}

// index makes a new, empty search index in idx's place and sets the
// records' watermark to 0, so that Open indexes every record again.
func (r repair) index(idx *StoreState) error {
	if shard.IsSharded(idx.Path) {
		return fmt.Errorf("crawler: rebuilding a sharded index is not supported: move %s aside and run doppel crawl again", idx.Path)
	}
	if err := r.aside(idx); err != nil {
		return err
	}
	opts, err := loadOptions(r.dir)
	if err != nil {
		return err
	}
	x, err := indexer.Open(idx.Path, indexer.Options{Policy: opts.Policy})
	if err != nil {
		return err
	}
	if err := x.Close(); err != nil {
		return err
	}
	return resetWatermark(r.dir)
}

// reopen opens and closes the repaired crawl: Open replays the records —
// the detector, the revisit plan, and the index brought up to the
// records.
func reopen(dir string) error {
	c, err := Open(dir, Options{})
	if err != nil {
		return fmt.Errorf("crawler: reopening the repaired crawl: %w", err)
	}
	return c.Close()
}

// resetWatermark sets the records' index watermark to 0, so that Open
// indexes every record again.
func resetWatermark(dir string) error {
	recs, err := pages.Open(filepath.Join(dir, pagesFile), pages.Options{Timeout: lockTimeout})
	if err != nil {
		return inUse(dir, err)
	}
	return errors.Join(recs.ResetIndexedThrough(), recs.Close())
}

// recordsFromIndex writes a new pages.db in dir from the search index:
// a fetched record per whole document, in id order, its cluster's master
// as the index says. It returns how many near-duplicates the index lists
// as members without their text (left out under the skip policy), which
// are not restored.
func recordsFromIndex(dir string) (int, error) {
	opts, err := loadOptions(dir)
	if err != nil {
		return 0, err
	}
	index, err := openIndexChecked(dir, 0, indexer.Options{Policy: opts.Policy, ReadOnly: true})
	if err != nil {
		return 0, inUse(dir, err)
	}
	defer index.Close()
	recs, err := pages.Open(filepath.Join(dir, pagesFile), pages.Options{Timeout: lockTimeout})
	if err != nil {
		return 0, inUse(dir, err)
	}
	defer recs.Close()
	x, ok := index.(*indexer.Index)
	if !ok {
		return 0, errors.New("crawler: rebuilding the records from a sharded index is not supported")
	}
	var b pages.Batch
	clusters := map[string]bool{}
	restored := map[string]bool{}
	err = storecheck.Protect(filepath.Join(dir, indexDir), func() error {
		return x.EachID(func(id string) error {
			d, err := x.Document(id)
			if err != nil || d == nil {
				return err
			}
			b.Put(pages.Record{Page: page.Page{URL: d.URL, Host: d.Host, Title: d.Title, Headings: d.Headings,
				Blocks: append(indexer.Blocks(d.Body), d.Template...), Text: d.Body, LastModified: d.LastModified,
				Groups: d.Groups, Lang: d.Lang, Anchors: d.Anchors, Type: d.Type},
				Status: pages.Fetched, Simhash: d.Simhash, Cluster: d.Cluster})
			if d.Master {
				b.SetMaster(d.Cluster, d.URL)
			}
			clusters[d.Cluster], restored[d.URL] = true, true
			if b.Len() >= 1000 {
				if _, err := recs.Commit(&b); err != nil {
					return err
				}
				b = pages.Batch{}
			}
			return nil
		})
	})
	if err != nil {
		return 0, err
	}
	if _, err := recs.Commit(&b); err != nil {
		return 0, err
	}
	lost := 0
	for c := range clusters {
		ms, err := x.Members(c)
		if err != nil {
			return 0, err
		}
		for _, m := range ms {
			if !restored[m.URL] {
				lost++
			}
		}
	}
	// The index holds every record now: nothing to index again.
	n, err := recs.Len()
	if err != nil {
		return 0, err
	}
	if n > 0 {
		var rev uint64
		if err := recs.Each(func(r pages.Record) error { rev = max(rev, r.Rev); return nil }); err != nil {
			return 0, err
		}
		if err := recs.SetIndexedThrough(rev); err != nil {
			return 0, err
		}
	}
	return lost, nil
}

// frontierFromRecords writes a new frontier.db in dir: every recorded URL
// done, with its record's status as outcome.
func frontierFromRecords(dir string) error {
	recs, err := pages.Open(filepath.Join(dir, pagesFile), pages.Options{ReadOnly: true, Timeout: lockTimeout})
	if err != nil {
		return inUse(dir, err)
	}
	defer recs.Close()
	front, err := frontier.Open(filepath.Join(dir, frontierFile), frontier.Options{LockTimeout: lockTimeout})
	if err != nil {
		return inUse(dir, err)
	}
	var b frontier.Batch
	commit := func() error {
		_, err := front.Commit(&b)
		b = frontier.Batch{}
		return err
	}
	err = recs.Each(func(r pages.Record) error {
		b.Add(r.URL, 0, nil)
		b.Done(r.URL, string(r.Status))
		if b.Len() >= 2000 {
			return commit()
		}
		return nil
	})
	if err == nil {
		err = commit()
	}
	return errors.Join(err, front.Close())
}

// Sound reports whether every store was found sound.
func Sound(st []StoreState) bool {
	for _, s := range st {
		if s.Err != nil {
			return false
		}
	}
	return true
}

// Line is how `doppel check` prints a store's state: one line.
func (s StoreState) Line() string {
	if s.Err == nil && s.Repair == "" {
		return fmt.Sprintf("%-13s ok", s.Name)
	}
	if s.Err == nil {
		return fmt.Sprintf("%-13s ok; %s", s.Name, s.Repair)
	}
	msg := s.Err.Error()
	var d *storecheck.Error
	if errors.As(s.Err, &d) {
		msg = d.Err.Error()
		if d.Path != s.Path {
			if rel, err := filepath.Rel(s.Path, d.Path); err == nil && !strings.HasPrefix(rel, "..") {
				msg = rel + ": " + msg
			}
		}
	}
	line := fmt.Sprintf("%-13s damaged: %s", s.Name, msg)
	if s.Repair != "" {
		line += "; repair: " + s.Repair
	}
	if s.Lost != "" {
		line += "; lost: " + s.Lost
	}
	return line
}
