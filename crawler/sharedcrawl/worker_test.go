package sharedcrawl

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler"
	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/page"
)

// appended is a PageLog that keeps what is appended.
type appended struct {
	n        []uint32
	payloads [][]byte
}

func (a *appended) Append(_ context.Context, n uint32, payload []byte) error {
	a.n, a.payloads = append(a.n, n), append(a.payloads, payload)
	return nil
}

func (a *appended) AppendNote(context.Context, uint32, []byte) error { return nil }

// TestWorkerAtTurn: a Worker appends a page's record under its number as
// JSON that reads back to the same crawler.Handed.
func TestWorkerAtTurn(t *testing.T) {
	log := &appended{}
	w := NewWorker(nil, log)
	rec := pages.Record{Page: page.Page{URL: "http://h/a", Title: "A", Blocks: []string{"the text"}, Text: "the text"}, Cluster: "c1",
		Status: pages.Fetched, FetchedAt: time.Unix(7, 0).UTC(), ETag: `"e1"`, Links: []string{"http://h/b"}}
	if err := w.AtTurn(42, rec); err != nil {
		t.Fatal(err)
	}
	if len(log.n) != 1 || log.n[0] != 42 {
		t.Fatalf("appended under %v, want [42]", log.n)
	}
	var got crawler.Handed
	if err := json.Unmarshal(log.payloads[0], &got); err != nil {
		t.Fatal(err)
	}
	if want := (crawler.Handed{Page: &rec}); !reflect.DeepEqual(got, want) {
		t.Errorf("read back %+v, want %+v", got.Page, rec)
	}
}
