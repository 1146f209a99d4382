package shard

import (
	"context"
	"fmt"
	"testing"

	"github.com/doppel-search/doppel/indexer"
)

// TestCompact: a sharded index compacts each shard: one segment a shard
// and no deleted record afterwards, summed over the shards, every
// document still there. (Scorch merges such small segments itself as it
// goes: the merging of many is indexer's TestCompact.)
func TestCompact(t *testing.T) {
	x, err := Open(t.TempDir(), 2, indexer.Options{NoAutoFlush: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	ctx := context.Background()
	for round := range 3 {
		for i := range 20 {
			id := fmt.Sprintf("d%02d", i)
			d := indexer.Doc{ID: id, URL: "http://intra/" + id, Title: fmt.Sprintf("Page %d round %d", i, round), Body: "text of " + id}
			if err := x.Add(ctx, d, indexer.Placement{ID: id, Cluster: id, Master: id}); err != nil {
				t.Fatal(err)
			}
		}
		if err := x.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	before, err := x.Segments()
	if err != nil || before.Segments < 2 || before.Records < 40 {
		t.Fatalf("Segments = %+v, %v: want at least a segment a shard and 40 records", before, err)
	}
	c, err := x.Compact(ctx, indexer.CompactOptions{})
	if err != nil || c.Before != before || c.After.Segments != 2 || c.After.Deleted != 0 || c.After.Records != before.Records {
		t.Errorf("Compact = %+v, %v; before %+v", c, err, before)
	}
	if n, err := x.Indexed(); err != nil || n != 20 {
		t.Errorf("Indexed = %d, %v; want 20", n, err)
	}
}
