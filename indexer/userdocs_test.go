package indexer_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/doppel-search/doppel/indexer"
)

// TestUserDocumentSameWindow: a user's program that indexes its pages
// under their URLs, the ids Doppel indexes under, in a batch of its own
// written while Doppel's documents of the same ids wait for Flush (or
// after Doppel's were written by a full batch): Flush refuses Doppel's
// with an error naming the id and the fix, the user's documents stay as
// the user wrote them, Doppel's other pages are written, and no member
// record is left for the refused ids.
func TestUserDocumentSameWindow(t *testing.T) {
	for _, tc := range []struct {
		name      string
		batchSize int // 1: Doppel's document is written by Add, before the user's batch
	}{{"pending at the user's batch", 0}, {"written before the user's batch", 1}} {
		t.Run(tc.name, func(t *testing.T) { testUserDocumentSameWindow(t, tc.batchSize) })
	}
}

func testUserDocumentSameWindow(t *testing.T, batchSize int) {
	ctx := context.Background()
	m := userMapping()
	if err := indexer.AddTo(m); err != nil {
		t.Fatal(err)
	}
	idx := indexUserDocs(t, m)
	records, err := bleve.NewMemOnly(indexer.RecordsMapping())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { records.Close() })
	ix, err := indexer.Wrap(idx, indexer.Options{Records: records, BatchSize: batchSize})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	const clash, other = "http://intranet/travel", "http://intranet/parking"
	for _, id := range []string{clash, other} {
		d := indexer.Doc{ID: id, URL: id, Title: "Doppel's " + id, Body: "Doppel's copy of the page: mileage and permits."}
		if err := ix.Add(ctx, d, indexer.Placement{Cluster: "c-" + id, Master: id}); err != nil {
			t.Fatalf("Add %s: %v", id, err)
		}
	}
	user := idx.NewBatch() // the user's own crawl, the same night
	if err := user.Index(clash, map[string]any{"content": "Travel claims go to the kestrel desk.", "category": "travel"}); err != nil {
		t.Fatal(err)
	}
	if err := idx.Batch(user); err != nil {
		t.Fatal(err)
	}
	err = ix.Flush(ctx)
	if !errors.Is(err, indexer.ErrUserDocument) || !strings.Contains(err.Error(), clash) || !strings.Contains(err.Error(), `"page:"+url`) {
		t.Fatalf("Flush = %v; want ErrUserDocument naming %s and the fix", err, clash)
	}
	if err := ix.Flush(ctx); err != nil {
		t.Errorf("Flush again = %v; want nil (the refusal is reported once)", err)
	}
	sd, err := idx.Document(clash)
	if err != nil || sd == nil {
		t.Fatalf("the user's document: %v, %v", sd, err)
	}
	fields := map[string]bool{}
	sd.VisitFields(func(f index.Field) { fields[f.Name()] = true })
	if fields[indexer.FieldCluster] || fields[indexer.FieldBody] {
		t.Errorf("the document under %s has Doppel's fields %v: the user's was replaced", clash, fields)
	}
	q := bleve.NewMatchQuery("kestrel") // on _all, analyzed as the user's document was
	if res, err := idx.Search(bleve.NewSearchRequest(q)); err != nil || len(res.Hits) != 1 || res.Hits[0].ID != clash {
		t.Errorf("the user's query for their document: %v (%v)", res, err)
	}
	if d, err := ix.Document(other); err != nil || d == nil || d.Cluster != "c-"+other {
		t.Errorf("Doppel's other page: %+v (%v), want it written", d, err)
	}
	for id, want := range map[string]int{clash: 0, other: 1} {
		if ms, err := ix.Members("c-" + id); err != nil || len(ms) != want {
			t.Errorf("members of %s's cluster: %+v (%v), want %d", id, ms, err, want)
		}
	}
}
