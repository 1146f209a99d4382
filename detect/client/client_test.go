package client_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/doppel-search/doppel/detect/api"
	"github.com/doppel-search/doppel/detect/client"
)

// TestClient: Put splits a slice larger than a request's limit and
// answers every document in order; a refused request is an *Error with
// the service's reason; an unknown id is ErrNotFound; New refuses a
// base that is not an http(s) URL.
func TestClient(t *testing.T) {
	base, stop := service()
	defer stop()
	c, err := client.New(base, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	docs := make([]client.Document, api.MaxBatch+5)
	for i := range docs {
		docs[i] = client.Document{ID: fmt.Sprint("d", i), Text: fmt.Sprintf("document number %d of the test", i)}
	}
	answers, err := c.Put(ctx, docs)
	if err != nil {
		t.Fatal(err)
	}
	if len(answers) != len(docs) || answers[len(docs)-1].ID != docs[len(docs)-1].ID {
		t.Fatalf("%d answers for %d documents", len(answers), len(docs))
	}
	if st, err := c.Stats(ctx); err != nil || st.Documents != len(docs) {
		t.Errorf("stats %+v, %v; want %d documents", st, err, len(docs))
	}

	// An id that is a URL, with slashes, a space and a query.
	const url = "http://intranet/a b/c?d=e#f"
	if _, err := c.Put(ctx, []client.Document{{ID: url, Text: "a page with a URL for an id"}}); err != nil {
		t.Fatal(err)
	}
	if a, err := c.Get(ctx, url); err != nil || a.ID != url || a.Master != url {
		t.Errorf("Get(%q): %+v, %v", url, a, err)
	}
	if a, err := c.Delete(ctx, url); err != nil || a.Status != api.Removed {
		t.Errorf("Delete(%q): %+v, %v", url, a, err)
	}

	_, err = c.Put(ctx, []client.Document{{Text: "no id"}})
	var e *client.Error
	if !errors.As(err, &e) || e.Status != 400 || e.Reason != "detect: documents[0]: missing id" {
		t.Errorf("a document without an id: %v; want 400 saying it is missing", err)
	}
	if _, err := c.Get(ctx, "no/such id"); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("Get of an unknown id: %v; want ErrNotFound", err)
	}
	if _, err := c.Delete(ctx, "no such id"); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("Delete of an unknown id: %v; want ErrNotFound", err)
	}
	for _, bad := range []string{"", "127.0.0.1:9300", "ftp://x/"} {
		if _, err := client.New(bad, nil); err == nil {
			t.Errorf("New(%q): no error", bad)
		}
	}
}
