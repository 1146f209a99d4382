package shard_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/indexer/indextest"
	"github.com/doppel-search/doppel/indexer/shard"
)

// TestConformance runs the index conformance suite against a sharded
// index of one shard and of four.
func TestConformance(t *testing.T) {
	for _, n := range []int{1, 4} {
		t.Run(fmt.Sprint(n, "shards"), func(t *testing.T) {
			indextest.Run(t, func(t *testing.T, opts indexer.Options) indextest.Subject {
				s, err := shard.Open(t.TempDir(), n, opts)
				if err != nil {
					t.Fatal(err)
				}
				return s
			})
		})
	}
}

// TestConformanceRemote runs the suite against four shards written here
// and searched over HTTP: each shard served on loopback, read through
// Dial.
func TestConformanceRemote(t *testing.T) {
	indextest.Run(t, func(t *testing.T, opts indexer.Options) indextest.Subject {
		s, err := shard.Open(t.TempDir(), 4, opts)
		if err != nil {
			t.Fatal(err)
		}
		return remoteSubject{s, serve(t, s)}
	})
}

// remoteSubject writes through local shards and reads through remote
// ones.
type remoteSubject struct {
	w *shard.Index
	r *shard.Index
}

func (s remoteSubject) Add(ctx context.Context, d indexer.Doc, p indexer.Placement) error {
	return s.w.Add(ctx, d, p)
}
func (s remoteSubject) Remove(ctx context.Context, ch indexer.Change) error {
	return s.w.Remove(ctx, ch)
}
func (s remoteSubject) Update(ctx context.Context, d indexer.Doc, ch indexer.Change) error {
	return s.w.Update(ctx, d, ch)
}
func (s remoteSubject) Flush(ctx context.Context) error { return s.w.Flush(ctx) }
func (s remoteSubject) FlushAsync() func() error        { return s.w.FlushAsync() }
func (s remoteSubject) Close() error                    { return s.w.Close() }
func (s remoteSubject) Search(ctx context.Context, req *bleve.SearchRequest) (*bleve.SearchResult, error) {
	return s.r.Search(ctx, req)
}
func (s remoteSubject) Mapping() mapping.IndexMapping            { return s.r.Mapping() }
func (s remoteSubject) Document(id string) (*indexer.Doc, error) { return s.r.Document(id) }
func (s remoteSubject) MembersOfContext(ctx context.Context, clusters []string) (map[string][]indexer.Member, error) {
	return s.r.MembersOfContext(ctx, clusters)
}
func (s remoteSubject) TermShares() (func(string) float64, func(), error) { return s.r.TermShares() }
func (s remoteSubject) SearchableCount() (int, error)                     { return s.r.SearchableCount() }
