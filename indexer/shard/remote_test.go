package shard_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/indexer/shard"
)

// TestRemote: an index of shards served over HTTP answers every read as
// the local shards do — documents, members, counts, languages, ids, term
// shares — and refuses writes; shards given in the wrong order are
// refused; a shard's closed index and a search past its deadline fail
// with the errors a local index gives.
func TestRemote(t *testing.T) {
	c := newCorpus(9, 60)
	p := newPair(t, indexer.Skip, c, 4)
	r := serve(t, p.shards)
	ctx := context.Background()

	for id := range c.docs {
		want, err := p.shards.Document(id)
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.Document(id)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Document(%s) = %+v, local %+v", id, got, want)
		}
	}
	clusters := []string{"c000", "c001", "c002", "c003", "c010", "nope"}
	wm, err := p.shards.MembersOfContext(ctx, clusters)
	if err != nil {
		t.Fatal(err)
	}
	gm, err := r.MembersOfContext(ctx, clusters)
	if err != nil {
		t.Fatal(err)
	}
	for _, cl := range clusters {
		if !reflect.DeepEqual(gm[cl], wm[cl]) {
			t.Errorf("members of %s: %+v, local %+v", cl, gm[cl], wm[cl])
		}
	}
	for name, f := range map[string]func(s *shard.Index) (any, error){
		"SearchableCount": func(s *shard.Index) (any, error) { return s.SearchableCount() },
		"Indexed":         func(s *shard.Index) (any, error) { return s.Indexed() },
		"DocCount":        func(s *shard.Index) (any, error) { return s.DocCount() },
		"Languages":       func(s *shard.Index) (any, error) { return s.Languages() },
		"EachID": func(s *shard.Index) (any, error) {
			var ids []string
			err := s.EachID(func(id string) error { ids = append(ids, id); return nil })
			return ids, err
		},
		"TermShares": func(s *shard.Index) (any, error) {
			share, release, err := s.TermShares()
			if err != nil {
				return nil, err
			}
			defer release()
			return []float64{share("appl"), share("river"), share("zeppelin")}, nil
		},
	} {
		want, err := f(p.shards)
		if err != nil {
			t.Fatal(err)
		}
		got, err := f(r)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) || reflect.ValueOf(want).IsZero() {
			t.Errorf("%s = %v, local %v", name, got, want)
		}
	}
	if err := r.Add(ctx, doc("x", "t"), indexer.Placement{Cluster: "c", Master: "x"}); !errors.Is(err, indexer.ErrReadOnly) {
		t.Errorf("Add over remote shards: %v, want ErrReadOnly", err)
	}

	// Shards in the wrong order.
	var urls []string
	for i := range 2 {
		srv, err := shard.NewServer(p.shards.Shard(i))
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(srv)
		defer hs.Close()
		urls = append(urls, hs.URL)
	}
	if _, err := shard.Dial(ctx, []string{urls[1], urls[0]}, nil); !errors.Is(err, shard.ErrShardCount) {
		t.Errorf("Dial of shards 1, 0 (of 4): %v, want ErrShardCount", err)
	}

	// A search past its deadline.
	dl, cancel := context.WithDeadline(ctx, time.Now().Add(-time.Second))
	defer cancel()
	if _, err := r.Search(dl, bleve.NewSearchRequest(indexer.TextQuery("apple"))); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("search past its deadline: %v", err)
	}
	// The shards' index closed.
	p.shards.Close()
	if _, err := r.Document("d000-0"); !errors.Is(err, indexer.ErrClosed) {
		t.Errorf("Document from a closed shard: %v, want ErrClosed", err)
	}
	if _, err := r.MembersOfContext(ctx, []string{"c000"}); !errors.Is(err, indexer.ErrClosed) {
		t.Errorf("members from a closed shard: %v, want ErrClosed", err)
	}
}

// TestOpenShard: a shard directory opened alone, as a process serving
// it opens it, takes the policy its writer recorded, and serves what the
// whole index held; a directory that is no shard is refused.
func TestOpenShard(t *testing.T) {
	dir := t.TempDir()
	s, err := shard.Open(dir, 2, indexer.Options{Policy: indexer.All})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i, id := range []string{"m", "c1", "c2"} {
		if err := s.Add(ctx, doc(id, "travel policy hotels"), indexer.Placement{Cluster: "c", Master: "m", Duplicate: i > 0}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Add(ctx, doc("x", "printer toner"), indexer.Placement{Cluster: "cx", Master: "x"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	var urls []string
	for i := range 2 {
		x, err := shard.OpenShard(filepath.Join(dir, fmt.Sprintf("shard-%03d", i)))
		if err != nil {
			t.Fatal(err)
		}
		defer x.Close()
		srv, err := shard.NewServer(x)
		if err != nil {
			t.Fatal(err)
		}
		if k, of := srv.Shard(); k != i || of != 2 {
			t.Errorf("shard %d says it is %d of %d", i, k, of)
		}
		hs := httptest.NewServer(srv)
		defer hs.Close()
		urls = append(urls, hs.URL)
	}
	r, err := shard.Dial(ctx, urls, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if n, err := r.SearchableCount(); err != nil || n != 4 {
		t.Errorf("SearchableCount under All = %d, %v; want 4", n, err)
	}
	plain := t.TempDir()
	x, err := indexer.Open(plain, indexer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x.Close()
	if _, err := shard.OpenShard(plain); !errors.Is(err, shard.ErrNotSharded) {
		t.Errorf("OpenShard of an index not sharded: %v", err)
	}
}
