package sharedcrawl

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/doppel-search/doppel/crawler"
	"github.com/doppel-search/doppel/crawler/pagelog"
	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/dedup"
)

// The page log's entries on the wire: what a worker hands on
// (crawler.Handed) in JSON, appended by a Worker and read back by
// Entries for the crawler.Follower.

// PageLog is where a Worker appends: *pagelog.Log.
type PageLog interface {
	// Append adds the entry of document number n, before n is committed.
	Append(ctx context.Context, n uint32, payload []byte) error
	// AppendNote adds a note under number n, before n is given up.
	AppendNote(ctx context.Context, n uint32, payload []byte) error
}

// A Worker is what a worker process of a shared crawl hands its commits
// to (crawler.Share): it appends each page's record at its turn to the
// page log, and each group's decisions, anchor texts and revisits as a
// note under a number of their own (dedup.Detector.Aside).
type Worker struct {
	det *dedup.Detector
	log PageLog
}

// NewWorker returns the Worker that hands a worker's commits on to log,
// in the order of det, the workers' shared detector
// (dedup.NewShared).
func NewWorker(det *dedup.Detector, log PageLog) *Worker { return &Worker{det: det, log: log} }

// Detector returns the shared detector.
func (w *Worker) Detector() *dedup.Detector { return w.det }

// AtTurn appends the record of the page numbered n.
func (w *Worker) AtTurn(n uint32, rec pages.Record) error {
	payload, err := json.Marshal(crawler.Handed{Page: &rec})
	if err != nil {
		return err
	}
	return w.log.Append(context.Background(), n, payload)
}

// HandOn appends a group's decisions, anchor texts and revisits as a
// note under a number of their own.
func (w *Worker) HandOn(ctx context.Context, h crawler.Handed) error {
	payload, err := json.Marshal(h)
	if err != nil {
		return err
	}
	return w.det.Aside(func(n uint32) error { return w.log.AppendNote(ctx, n, payload) })
}

// Entries returns r's entries as a crawler.Follower reads them.
func Entries(r *pagelog.Reader) crawler.Entries { return entries{r} }

// entries are a page log reader's entries as crawler.LogEntry values.
type entries struct{ r *pagelog.Reader }

// Next returns the next entry (pagelog.Reader.Next), read from its
// JSON.
func (es entries) Next(ctx context.Context) (crawler.LogEntry, error) {
	e, err := es.r.Next(ctx)
	if err != nil {
		return crawler.LogEntry{}, err
	}
	le := crawler.LogEntry{N: e.N, Cluster: e.Cluster, Note: e.Note}
	if err := json.Unmarshal(e.Payload, &le.Handed); err != nil {
		return le, fmt.Errorf("sharedcrawl: page log entry %d: %w", e.N, err)
	}
	return le, nil
}

// Position returns the number after the last entry returned.
func (es entries) Position() uint32 { return es.r.Position() }
