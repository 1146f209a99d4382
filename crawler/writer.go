package crawler

import (
	"sync"
	"time"

	"github.com/doppel-search/doppel/crawler/pages"
)

// A recordWriter commits the committer's page-store batches in the
// background, in order, so that the committer goes on with the next group
// — links queued, fetch goroutines released — while a group's records are
// written. The batches handed in while one is committed (up to
// writerQueue) are committed next in one transaction, as one batch
// (pages.Batch.Append): what committing them one by one stores, with one
// fsync; the committer waits to hand one in only when writerQueue
// batches wait already.
// A URL is marked done in the frontier only after its record is committed
// (takeDone hands those URLs back), and the index is flushed only after
// the records it holds are committed (wait).
type recordWriter struct {
	store pages.Records
	jobs  chan recordJob
	quit  sync.WaitGroup

	mu        sync.Mutex
	idle      *sync.Cond
	queued    int            // batches handed in and not yet committed
	pending   []pages.Batch  // those batches, oldest first
	unwritten map[string]int // URL → batches holding a record of it, not yet committed
	done      []doneMark     // URLs whose records are committed, not yet marked done
	lastRev   uint64         // revision of the last committed record
	err       error          // the first commit error
}

type recordJob struct {
	batch pages.Batch
	done  []doneMark
}

// writerQueue is how many batches may wait for the record writer before
// the committer waits to hand in another: they are committed together,
// so a slow disk costs fewer transactions rather than the committer's
// time, and the memory they hold is bounded (at most writerQueue groups
// of maxGroup pages).
const writerQueue = 8

// A doneMark is a URL to mark done in the frontier, with its outcome and,
// for a fetched page, when to fetch it again (and the depth it was found
// at, for the links found then).
type doneMark struct {
	url, outcome string
	revisit      time.Time
	depth        int
	listing      bool // the page is a listing: its revisit goes first (PriorityListingRevisit)
}

func newRecordWriter(store pages.Records, lastRev uint64) *recordWriter {
	w := &recordWriter{store: store, jobs: make(chan recordJob, writerQueue), unwritten: map[string]int{}, lastRev: lastRev}
	w.idle = sync.NewCond(&w.mu)
	w.quit.Go(w.run)
	return w
}

func (w *recordWriter) run() {
	for j := range w.jobs {
		jobs := w.more([]recordJob{j})
		b := jobs[0].batch
		if len(jobs) > 1 {
			b = pages.Batch{}
			for i := range jobs {
				b.Append(&jobs[i].batch)
			}
		}
		stored, err := w.store.Commit(&b)
		w.mu.Lock()
		if err != nil && w.err == nil {
			w.err = err
		}
		if err == nil && len(stored) > 0 {
			w.lastRev = max(w.lastRev, stored[len(stored)-1].Rev)
		}
		for _, j := range jobs {
			if err == nil {
				w.done = append(w.done, j.done...)
			}
			for _, u := range j.batch.URLs() {
				if w.unwritten[u]--; w.unwritten[u] <= 0 {
					delete(w.unwritten, u)
				}
			}
		}
		w.pending = w.pending[len(jobs):]
		w.queued -= len(jobs)
		w.idle.Broadcast()
		w.mu.Unlock()
	}
}

// more appends to jobs the jobs already waiting, without waiting for
// more.
func (w *recordWriter) more(jobs []recordJob) []recordJob {
	for {
		select {
		case j, ok := <-w.jobs:
			if !ok {
				return jobs
			}
			jobs = append(jobs, j)
		default:
			return jobs
		}
	}
}

// write hands in a batch and the URLs to mark done once it is committed.
// It blocks while writerQueue earlier batches wait to be written.
func (w *recordWriter) write(b pages.Batch, done []doneMark) {
	w.mu.Lock()
	w.queued++
	w.pending = append(w.pending, b)
	for _, u := range b.URLs() {
		w.unwritten[u]++
	}
	w.mu.Unlock()
	w.jobs <- recordJob{b, done}
}

// unwrittenOf reports, for each of urls, whether a batch handed in but not
// yet committed holds a record of it.
func (w *recordWriter) unwrittenOf(urls []string) []bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]bool, len(urls))
	for i, u := range urls {
		out[i] = w.unwritten[u] > 0
	}
	return out
}

// unwrittenRecord returns the latest record of url handed in and not yet
// committed, if any.
func (w *recordWriter) unwrittenRecord(url string) (pages.Record, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.unwritten[url] == 0 {
		return pages.Record{}, false
	}
	for i := len(w.pending) - 1; i >= 0; i-- {
		if r, ok := w.pending[i].Pending(url); ok {
			return r, true
		}
	}
	return pages.Record{}, false
}

// unwrittenAnchors returns the anchor texts of links to url in the
// batches handed in and not yet committed, oldest first.
func (w *recordWriter) unwrittenAnchors(url string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, b := range w.pending {
		out = append(out, b.PendingAnchors(url)...)
	}
	return out
}

// takeDone returns the URLs whose records are committed since the last
// call, and the first error of any commit.
func (w *recordWriter) takeDone() ([]doneMark, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	d := w.done
	w.done = nil
	return d, w.err
}

// hasDone reports whether URLs wait to be marked done (takeDone).
func (w *recordWriter) hasDone() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.done) > 0
}

// wait waits until every batch handed in is committed and returns the
// last record's revision and the first error.
func (w *recordWriter) wait() (uint64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.queued > 0 {
		w.idle.Wait()
	}
	return w.lastRev, w.err
}

// close waits for the batches handed in and stops the writer.
func (w *recordWriter) close() {
	close(w.jobs)
	w.quit.Wait()
}
