package shard

import (
	"context"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/ranking/multiterm"
)

// A part is one shard as the sharded index reads it: a local one
// (localPart) or one another process serves (remotePart).
type part interface {
	// bleve returns the index the alias searches.
	bleve() bleve.Index
	document(id string) (*indexer.Doc, error)
	members(ctx context.Context, clusters []string) (map[string][]indexer.Member, error)
	// stats returns the shard's statistics for req (see localStats).
	stats(ctx context.Context, req *bleve.SearchRequest) (*Stats, error)
	// dict returns the shard's terms dr asks for, in term order.
	dict(ctx context.Context, dr dictRequest) (index.FieldDict, error)
	terms() (termCounter, error)
	searchable() (int, error)
	indexed() (int, error)
	docCount() (uint64, error)
	languages() (map[string]uint64, error)
	eachID(fn func(id string) error) error
	close() error
}

// A termCounter counts the shard's records holding a term in their text
// (FieldAll), from one snapshot until released.
type termCounter interface {
	docs() uint64
	count(term string) uint64
	release()
}

// A localPart is a shard in this process.
type localPart struct {
	ix *indexer.Index
	st *store
	m  mapping.IndexMapping
	// dicts keeps the dictionaries of visible terms its dictionary
	// requests read (see dictRequest); shared by the shards of an Index.
	dicts *multiterm.Dictionaries
}

func (p *localPart) bleve() bleve.Index { return p.ix.Bleve() }

func (p *localPart) document(id string) (*indexer.Doc, error) { return p.ix.Document(id) }

func (p *localPart) members(ctx context.Context, clusters []string) (map[string][]indexer.Member, error) {
	return p.ix.MembersOfContext(ctx, clusters)
}

// snapshot returns the shard's own current snapshot (not the reader
// reporting the whole index's statistics).
func (p *localPart) snapshot() (*scorch.IndexSnapshot, error) {
	snap := p.st.snapshot()
	if snap == nil {
		return nil, indexer.ErrClosed
	}
	return snap, nil
}

func (p *localPart) stats(ctx context.Context, req *bleve.SearchRequest) (*Stats, error) {
	snap, err := p.snapshot()
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	return localStats(ctx, snap, p.m, req)
}

func (p *localPart) dict(ctx context.Context, dr dictRequest) (index.FieldDict, error) {
	snap, err := p.snapshot()
	if err != nil {
		return nil, err
	}
	d, err := filteredDict(ctx, snap, p.m, p.dicts, dr)
	if err != nil {
		snap.Close()
		return nil, err
	}
	return &snapshotFieldDict{FieldDict: d, snap: snap}, nil
}

// A snapshotFieldDict is a dictionary that closes its snapshot with it.
type snapshotFieldDict struct {
	index.FieldDict
	snap *scorch.IndexSnapshot
}

// Close closes the dictionary and the snapshot.
func (d *snapshotFieldDict) Close() error {
	err := d.FieldDict.Close()
	d.snap.Close()
	return err
}

func (p *localPart) terms() (termCounter, error) {
	snap, err := p.snapshot()
	if err != nil {
		return nil, err
	}
	n, err := snap.DocCount()
	if err != nil {
		snap.Close()
		return nil, err
	}
	return &snapshotCounter{snap: snap, n: n}, nil
}

// A snapshotCounter counts terms in a snapshot.
type snapshotCounter struct {
	snap *scorch.IndexSnapshot
	n    uint64
}

func (c *snapshotCounter) docs() uint64 { return c.n }

func (c *snapshotCounter) count(term string) uint64 {
	tfr, err := c.snap.TermFieldReader(context.Background(), []byte(term), indexer.FieldAll, false, false, false)
	if err != nil {
		return 0
	}
	defer tfr.Close()
	return tfr.Count()
}

func (c *snapshotCounter) release() { c.snap.Close() }

func (p *localPart) searchable() (int, error) { return p.ix.SearchableCount() }

func (p *localPart) indexed() (int, error) { return p.ix.Indexed() }

func (p *localPart) docCount() (uint64, error) {
	snap, err := p.snapshot()
	if err != nil {
		return 0, err
	}
	defer snap.Close()
	return snap.DocCount()
}

func (p *localPart) languages() (map[string]uint64, error) {
	snap, err := p.snapshot()
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	return dictCounts(snap, indexer.FieldLang)
}

// dictCounts returns the terms of field in r with their counts.
func dictCounts(r index.IndexReader, field string) (map[string]uint64, error) {
	d, err := r.FieldDict(field)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	out := map[string]uint64{}
	for {
		e, err := d.Next()
		if err != nil {
			return nil, err
		}
		if e == nil {
			return out, nil
		}
		out[e.Term] += e.Count
	}
}

func (p *localPart) eachID(fn func(id string) error) error { return p.ix.EachID(fn) }

func (p *localPart) close() error { return p.ix.Close() }
