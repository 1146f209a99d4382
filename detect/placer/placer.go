// Package placer sends a search engine's batch of writes — documents
// indexed, documents deleted, in order — to the near-duplicate service
// (doppel detect) and returns where every document the batch touched is
// at the end: its cluster, master and canonical flag, the fields the
// engine's copy of it must hold. It is what the engine recipes
// (detect/esbulk, detect/solrupdate) share.
package placer

import (
	"context"
	"errors"

	"github.com/doppel-search/doppel/detect/api"
	"github.com/doppel-search/doppel/detect/client"
)

// A Write is one write of the engine's batch: a document indexed, or,
// with Delete, the document ID deleted.
type Write struct {
	Delete bool
	Doc    client.Document // with Delete, only its ID
}

// A Place is where a document is after the batch.
type Place struct {
	Cluster   string
	Master    string
	Canonical bool
	// Gone says the document was deleted (or was never sent to the
	// service): the engine holds no copy to change.
	Gone bool
}

// Fields returns the near-duplicate fields an engine's copy of the
// document holds: dup_cluster (collapse on it), dup_master (the id of
// the copy that stands for the cluster) and dup_canonical (filter on it
// to leave out the copies).
func (p Place) Fields() map[string]any {
	return map[string]any{"dup_cluster": p.Cluster, "dup_master": p.Master, "dup_canonical": p.Canonical}
}

// Apply sends writes to the service in order — consecutive documents in
// one request — and returns the place of every document they touched:
// the documents written and deleted, and the others their answers
// changed (a master demoted, members re-pointed or moved). A deleted id
// the service does not hold is Gone, not an error.
func Apply(ctx context.Context, c *client.Client, writes []Write) (map[string]Place, error) {
	places := map[string]Place{}
	var pending []client.Document
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		answers, err := c.Put(ctx, pending)
		if err != nil {
			return err
		}
		for _, a := range answers {
			record(places, a)
		}
		pending = pending[:0]
		return nil
	}
	for _, w := range writes {
		if !w.Delete {
			pending = append(pending, w.Doc)
			continue
		}
		if err := flush(); err != nil {
			return nil, err
		}
		a, err := c.Delete(ctx, w.Doc.ID)
		switch {
		case errors.Is(err, client.ErrNotFound):
			places[w.Doc.ID] = Place{Gone: true}
		case err != nil:
			return nil, err
		default:
			record(places, a)
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return places, nil
}

// record sets the places an answer gives: its document's, then its
// changes'.
func record(places map[string]Place, a api.Answer) {
	if a.Status == api.Removed {
		places[a.ID] = Place{Gone: true}
	} else {
		places[a.ID] = Place{Cluster: a.Cluster, Master: a.Master, Canonical: a.Canonical}
	}
	for _, ch := range a.Changes {
		places[ch.ID] = Place{Cluster: ch.Cluster, Master: ch.Master, Canonical: ch.Canonical}
	}
}
