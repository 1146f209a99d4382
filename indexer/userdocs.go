package indexer

import (
	"fmt"
	"maps"
	"slices"
)

// The checks that keep a user's own documents (in a user's index, see
// [AddTo]) from being replaced or deleted by Doppel's, whose ids are page
// URLs: a user's program indexes its pages under the same URLs if nothing
// tells it otherwise. Add, Update and Remove refuse the id of a document
// of the user's that the index holds (notUsers); a document of the user's
// indexed after Add checked its id and before Doppel's batch is written —
// by a batch of the user's in the same window — is found when the batch
// is written (dropUsers), and one that replaced a document of Doppel's
// written since the last Flush is found by Flush (windowUsers).

// isUsers reports whether the index holds a document of the user's own
// under id: a stored document that is not Doppel's. Cost: a
// stored-document load.
func (x *Index) isUsers(id string) (bool, error) {
	sd, err := x.idx.Document(id)
	if err != nil {
		return false, fmt.Errorf("indexer: load %q: %w", id, err)
	}
	if sd == nil {
		return false, nil
	}
	d, err := fromStored(id, sd)
	return err != nil || d.Cluster == "", nil
}

// userDocError is the error for Doppel's documents ids, refused because
// they are documents of the user's: it names the first and the fix.
func userDocError(ids []string) error {
	ids = slices.Sorted(slices.Values(ids))
	more := ""
	if len(ids) > 1 {
		more = fmt.Sprintf(" (and %d more)", len(ids)-1)
	}
	return fmt.Errorf("%w: %q%s: Doppel indexes each page under its URL, and your index holds a document of yours under that id, "+
		"which is left as it was; Doppel's is not in the index. Give your documents ids of their own (a prefix: \"page:\"+url), "+
		"or give Doppel an index of its own (indexer.Open)", ErrUserDocument, ids[0], more)
}

// dropUsers takes out of the pending batch of a user's index the
// documents of Doppel's whose id is now a document of the user's (and
// their member and difference records out of the records' batch): the
// batch is made again from x.docs without them. Their ids are kept for
// Flush's error (x.clashed). x.mu is held.
func (x *Index) dropUsers() error {
	if !x.split {
		return nil
	}
	var clash []string
	for id := range x.docs {
		user, err := x.isUsers(id)
		if err != nil {
			return err
		}
		if user {
			clash = append(clash, id)
		}
	}
	if len(clash) == 0 {
		return nil
	}
	for _, id := range clash {
		delete(x.docs, id)
		delete(x.pending, id)
		x.dropRecords(id)
	}
	batch := x.idx.NewBatch()
	for _, id := range slices.Sorted(maps.Keys(x.docs)) {
		if d := x.docs[id]; d == nil {
			batch.Delete(id)
		} else if err := batch.Index(id, toData(d, x.lists)); err != nil {
			return fmt.Errorf("indexer: index %q: %w", id, err)
		}
	}
	x.batch = batch
	x.cache = nil
	return nil
}

// dropRecords deletes, in the records' batch, the member record and the
// difference record of id (a later operation of a bleve batch on an id
// replaces the earlier ones), and notes id for Flush's error.
func (x *Index) dropRecords(id string) {
	x.rbatch.Delete(memberPrefix + id)
	x.rbatch.Delete(id)
	x.clashed = append(x.clashed, id)
}

// windowUsers finds, in a user's index, the documents of Doppel's written
// since the last Flush (x.window) and not pending now whose id is now a
// document of the user's — a batch of the user's written after Doppel's
// replaced them — and deletes their member and difference records. x.mu
// is held.
func (x *Index) windowUsers() error {
	for _, id := range slices.Sorted(maps.Keys(x.window)) {
		if _, pending := x.docs[id]; pending {
			continue
		}
		user, err := x.isUsers(id)
		if err != nil {
			return err
		}
		if user {
			x.dropRecords(id)
		}
	}
	return nil
}

// noteWritten notes, in a user's index, the documents of Doppel's of a batch
// just written (docs), for Flush's windowUsers.
func (x *Index) noteWritten(docs map[string]*Doc) {
	if !x.split {
		return
	}
	if x.window == nil {
		x.window = map[string]bool{}
	}
	for id, d := range docs {
		if d != nil {
			x.window[id] = true
		}
	}
}

// takeClashes returns the error for the ids noted since it was last
// called, if any, and forgets them.
func (x *Index) takeClashes() error {
	if len(x.clashed) == 0 {
		return nil
	}
	err := userDocError(x.clashed)
	x.clashed = nil
	return err
}

// flushWindow is Flush's write: flush after windowUsers, then the window
// closed and the error for the ids refused since the last Flush. x.mu is
// held.
func (x *Index) flushWindow() error {
	if x.split {
		if err := x.windowUsers(); err != nil {
			return err
		}
	}
	if err := x.flush(); err != nil {
		return err
	}
	clear(x.window)
	return x.takeClashes()
}
