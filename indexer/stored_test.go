package indexer

import (
	"context"
	"fmt"
	"testing"
)

// TestStoredReader reads a document's stored fields by its internal
// number, in an on-disk index of several segments and in memory.
func TestStoredReader(t *testing.T) {
	x, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	ctx := context.Background()
	for batch := range 3 { // a segment each
		for i := range 5 {
			id := fmt.Sprintf("d%d-%d", batch, i)
			if err := x.Add(ctx, Doc{ID: id, URL: "http://intra/" + id, Host: "intra", Title: "t " + id, Body: "b", Lang: "de"},
				Placement{Cluster: "c" + id, Master: id}); err != nil {
				t.Fatal(err)
			}
		}
		if err := x.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	adv, err := x.Bleve().Advanced()
	if err != nil {
		t.Fatal(err)
	}
	r, err := adv.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sr := NewStoredReader(r)
	if sr == nil {
		t.Fatal("no StoredReader over a scorch index")
	}
	for _, id := range []string{"d0-0", "d1-3", "d2-4"} {
		iid, err := r.InternalID(id)
		if err != nil || iid == nil {
			t.Fatalf("%s: internal id %v, %v", id, iid, err)
		}
		got := map[string]string{}
		found, err := sr.Visit(iid, func(f string, v []byte) { got[f] = string(v) })
		if err != nil || !found {
			t.Fatalf("%s: found %v, %v", id, found, err)
		}
		if got["_id"] != id || got[FieldURL] != "http://intra/"+id || got[FieldCluster] != "c"+id || got[FieldMaster] != "T" || got[FieldLang] != "de" {
			t.Errorf("%s: %q", id, got)
		}
	}
	if found, _ := sr.Visit([]byte{0, 0, 0, 0, 0, 0, 1, 0}, func(string, []byte) {}); found {
		t.Error("document 256 of 30 found")
	}
}
