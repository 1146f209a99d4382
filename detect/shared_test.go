package detect

import (
	"context"
	"errors"
	"testing"

	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/dedup/signatures/redissig"
	"github.com/doppel-search/doppel/detect/api"
	"github.com/doppel-search/doppel/internal/testrig/redistest"
)

// TestShared: two services on one Redis Cluster's signatures (as doppel
// detect --redis opens them) share the detector: a copy sent to one
// joins the cluster of the original sent to the other; the same
// document again is unchanged; an update or removal is refused with
// ErrShared. A restarted service knows every service's documents.
func TestShared(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Redis Cluster")
	}
	rc := redistest.Start(t, 3, 0)
	rdb := rc.Client()
	ctx := context.Background()
	cfg := dedup.Web().SharedConfig()
	openShared := func(dir string) *Service {
		sh, err := redissig.Open(ctx, rdb, cfg.Limits, redissig.Options{Prefix: "detect-test:sig", HammingK: cfg.HammingK})
		if err != nil {
			t.Fatal(err)
		}
		s, err := Open(dir, Options{Shared: sh})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	dirA := t.TempDir()
	a, b := openShared(dirA), openShared(t.TempDir())
	defer b.Close()
	base := text(5, 200)
	ra := put(t, a, api.Document{ID: "orig", Text: base})[0]
	rb := put(t, b, api.Document{ID: "copy", Text: edit(base, 3)}, api.Document{ID: "other", Text: text(6, 200)})
	if rb[0].Cluster != ra.Cluster || rb[0].Master != "orig" || rb[1].Cluster == ra.Cluster {
		t.Errorf("on the second service: copy %+v, other %+v; want copy in orig's cluster %s", rb[0], rb[1], ra.Cluster)
	}
	if again := put(t, a, api.Document{ID: "orig", Text: base})[0]; again.Status != api.Unchanged {
		t.Errorf("orig again: %s; want unchanged", again.Status)
	}
	if _, err := a.Put(ctx, []api.Document{{ID: "orig", Text: text(7, 200)}}); !errors.Is(err, ErrShared) {
		t.Errorf("an update on shared signatures: %v; want ErrShared", err)
	}
	if _, err := a.Delete(ctx, "orig"); !errors.Is(err, ErrShared) {
		t.Errorf("a removal on shared signatures: %v; want ErrShared", err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	a = openShared(dirA)
	defer a.Close()
	got, err := a.Get("copy")
	if err != nil || got.Cluster != ra.Cluster || got.Master != "orig" || got.Members != 2 {
		t.Errorf("the restarted first service on copy: %+v, %v; want orig's cluster, 2 members", got, err)
	}
}
