package placer_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/detect"
	"github.com/doppel-search/doppel/detect/client"
	"github.com/doppel-search/doppel/detect/placer"
)

const notice = "The office is closed on Friday for the annual staff meeting. Please book leave through the portal before " +
	"Thursday and tell your manager. The meeting starts at nine in the main hall and lunch is served at noon. Bring the " +
	"quarterly report, your questions for the board and a pen. Visitors sign in at the front desk and wear a badge."

// TestApply: the places after a batch are each document's last — a
// document demoted by a later one of the batch, one deleted after it was
// written, an id the service never held — and take in documents of
// earlier batches that the batch re-pointed.
func TestApply(t *testing.T) {
	s, err := detect.Open(t.TempDir(), detect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	srv := httptest.NewServer(s.Handler(nil))
	defer srv.Close()
	c, _ := client.New(srv.URL, nil)
	ctx := context.Background()
	if _, err := placer.Apply(ctx, c, []placer.Write{{Doc: client.Document{ID: "old", Text: notice, Date: "2020-01-01"}}}); err != nil {
		t.Fatal(err)
	}
	places, err := placer.Apply(ctx, c, []placer.Write{
		{Doc: client.Document{ID: "a", Text: notice, Date: "2024-01-01"}},
		{Doc: client.Document{ID: "b", Text: notice, Date: "2025-01-01"}},
		{Doc: client.Document{ID: "short-lived", Text: strings.ToUpper(notice)}},
		{Delete: true, Doc: client.Document{ID: "short-lived"}},
		{Delete: true, Doc: client.Document{ID: "never-sent"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	cl := places["b"].Cluster
	want := map[string]placer.Place{
		"old":         {Cluster: cl, Master: "b"},
		"a":           {Cluster: cl, Master: "b"},
		"b":           {Cluster: cl, Master: "b", Canonical: true},
		"short-lived": {Gone: true},
		"never-sent":  {Gone: true},
	}
	if cl == "" || len(places) != len(want) {
		t.Fatalf("places %+v; want %+v", places, want)
	}
	for id, w := range want {
		if places[id] != w {
			t.Errorf("%s: %+v; want %+v", id, places[id], w)
		}
	}
	if f := places["b"].Fields(); f["dup_cluster"] != cl || f["dup_master"] != "b" || f["dup_canonical"] != true {
		t.Errorf("b's fields: %v", f)
	}
}
