package indexer

import (
	"encoding/binary"
	"sort"

	"github.com/blevesearch/bleve/v2/index/scorch"
	index "github.com/blevesearch/bleve_index_api"
)

// A StoredReader reads the stored fields of the documents a search
// matched, by their internal numbers, from the reader of that search
// (search.SearchContext.IndexReader): one decompression of the document's
// stored fields, where doc values cost one decompressed chunk per field.
// Package ranking reads so the keys of the hits it keeps.
type StoredReader struct {
	segs    []*scorch.SegmentSnapshot
	offsets []uint64
}

// NewStoredReader returns a StoredReader over reader, or nil if reader
// is not a scorch index's (an upside-down index, or another store). A
// reader that wraps a scorch snapshot and has its segments (package
// indexer/shard's) is one.
func NewStoredReader(reader index.IndexReader) *StoredReader {
	snap, ok := reader.(interface {
		Segments() []*scorch.SegmentSnapshot
	})
	if !ok {
		return nil
	}
	r := &StoredReader{segs: snap.Segments()}
	var running uint64
	for _, s := range r.segs {
		r.offsets = append(r.offsets, running)
		running += s.Segment().Count()
	}
	return r
}

// Visit calls visit with each stored field of the document id (an
// internal number of the reader's), "_id" first; a value is valid only
// during the call. It reports whether the document was found.
func (r *StoredReader) Visit(id index.IndexInternalID, visit func(field string, value []byte)) (bool, error) {
	if len(id) != 8 {
		return false, nil
	}
	num := binary.BigEndian.Uint64(id)
	i := sort.Search(len(r.offsets), func(i int) bool { return r.offsets[i] > num }) - 1
	if i < 0 {
		return false, nil
	}
	found := false
	err := r.segs[i].VisitDocument(num-r.offsets[i], func(field string, _ byte, value []byte, _ []uint64) bool {
		found = true
		visit(field, value)
		return true
	})
	return found, err
}
