package indexer

import (
	"context"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
)

// A Searcher is the read side of a Doppel index: what package ranking
// and package web need to answer queries, and nothing of how the index is
// stored. [*Index] (one bleve index, the embedded default) is one
// implementation; shards of bleve searched through a bleve IndexAlias,
// local or served over HTTP (package indexer/shard), are another. Every implementation
// runs the conformance suite of package indexer/indextest.
//
// The contract:
//
//   - Concurrency. Every method is safe for concurrent use, by many
//     readers while one writer (a [Writer] on the same store) adds,
//     removes and flushes.
//   - What a search sees. Search, SearchableCount and TermShares see the
//     index as the last written batch left it: a document added, updated
//     or removed is seen (or stops being seen) by them only once the
//     batch holding the change is written — when the Writer's Flush
//     returns nil or FlushAsync's wait does, or earlier when the Writer
//     writes a full batch on its own (never with Options.NoAutoFlush). A
//     batch is seen whole or not at all: a document and its member record,
//     and a new master and the master it demotes, are never seen apart.
//   - Read your writes. Document and MembersOfContext on the store a
//     Writer writes see every change it accepted, written or not (a
//     hand-over needs the cluster as it stands). A read-only Searcher sees
//     what was written.
//   - What a search returns. The index holds documents (whole ones, and
//     under Skip difference records: [Doc.Diff]) and member records
//     ([MemberType]); a match-all query matches member records too, so
//     restrict queries with [VisibleTo] (member records have no groups)
//     or [Index.Searchable]. Hits carry the stored fields a request asks
//     for ([FieldURL], [FieldTitle], [FieldHost], [FieldCluster],
//     [FieldMaster], [FieldLastModified], [FieldBody], [FieldLang], as
//     their types are in [Mapping]: strings, a bool, an RFC 3339 date)
//     and its highlights, and sort by "_id", [FieldCluster] and
//     [FieldMaster] ("T"/"F") from doc values, which is how package
//     ranking collapses clusters without loading documents. Ties in
//     score are broken as the request's sort says, so paging is stable.
//   - Sharding. A sharded implementation keeps every record of a cluster
//     (its documents, difference records and member records) on one
//     shard, so that what must be seen together is written by one
//     shard's batch, and scores as one index would: collapsing compares
//     a member's score with its master's, and ranks clusters of
//     different shards against each other. (Bleve's IndexAlias with
//     search.GlobalScoring gathers statistics for BM25 only; Doppel
//     scores with TF-IDF, so package indexer/shard gives each shard's
//     reader the whole index's counts.)
//   - Errors. A search past ctx's deadline or cancellation fails (ranking
//     reports ErrTimeout); after Close, Document and MembersOfContext
//     return an error wrapping [ErrClosed] and Search an error. A missing
//     document is not an error: Document returns nil, nil.
type Searcher interface {
	// Search runs a bleve search request under ctx (its deadline stops
	// the search). See the contract above for what it sees and returns.
	Search(ctx context.Context, req *bleve.SearchRequest) (*bleve.SearchResult, error)
	// Mapping returns the index mapping ([Mapping], possibly extended):
	// the analyzers a query parser needs.
	Mapping() mapping.IndexMapping
	// Document returns the whole document id as stored, with its
	// cluster, master flag, access groups (nil when public) and every
	// stored field, or nil if it is not indexed (left out under Skip,
	// removed, or never added; a difference record is not the document).
	Document(id string) (*Doc, error)
	// MembersOfContext returns every member of each of clusters (cluster
	// → members, the master first, then by id), indexed or not, under
	// ctx; an unknown cluster has none.
	MembersOfContext(ctx context.Context, clusters []string) (map[string][]Member, error)
	// TermShares returns the share of the index's records whose text
	// holds an analyzed term, read from one snapshot (0 for a term in
	// none; more documents holding it, a larger share); call release
	// when done. A sharded implementation sums the counts of its shards.
	TermShares() (share func(term string) float64, release func(), err error)
	// SearchableCount returns how many documents a result page may show
	// when nobody's access groups matter: the masters, and under policy
	// All every whole document.
	SearchableCount() (int, error)
}

// A Writer is the write side of a Doppel index: what package crawler
// (through package hook) does to it. [*Index] is the embedded
// implementation; see [Searcher] for the read side.
//
// The contract:
//
//   - Batching. Add, Remove and Update are applied to a pending batch
//     in the order called; they need not be written until Flush. The
//     implementation may write a full batch on its own
//     (Options.BatchSize) unless Options.NoAutoFlush is set; then only
//     Flush, FlushAsync and Close write. A later batch is never
//     overtaken by an earlier one: the last change to an id wins.
//   - Atomicity. Everything one call does — a document and its member
//     record, a hand-over's demotions and promotions, a removal and the
//     election it causes — lands in the same batch, and a batch is
//     written whole or not at all (a sharded implementation: per shard,
//     keeping a cluster on one shard; see [Searcher]). An [*Index] over
//     a user's own index writes two batches, documents first, records
//     second, and relies on the replay below after a crash between them
//     (see [Wrap]).
//   - Durability and visibility. When Flush returns nil (or FlushAsync's
//     wait does), every change accepted before it is durable and seen by
//     searches. On error the batch's changes may be lost (Flush keeps
//     its batch for a retry; a failed FlushAsync loses it), and a
//     crash loses whatever was not flushed.
//   - Idempotence. Adding a document again replaces it (one document,
//     one member record), and removing a removed document changes
//     nothing, so that a caller recovering from a crash or a failed write
//     replays everything since the last successful Flush, in order,
//     without harm (package crawler replays its page records past a
//     flush watermark).
//   - Concurrency. Writes may come from one goroutine or several (they
//     are serialized); searches through a [Searcher] go on meanwhile.
//   - Errors. A call that fails its checks ([ErrEmptyID], [ErrReserved],
//     [ErrMismatch], [ErrCluster], a done ctx) or needs a document that
//     neither the index nor Options.Source has ([ErrUnavailable])
//     changes nothing. After Close every method (FlushAsync: its wait)
//     returns an error wrapping [ErrClosed]; on a store opened
//     read-only, every method but Close returns [ErrReadOnly].
type Writer interface {
	// Add indexes d at the placement r, applying the policy (see
	// [Index.Add]).
	Add(ctx context.Context, d Doc, r Placement) error
	// Remove takes the document ch.ID out and follows the rest of the
	// detector's change ch (see [Index.Remove]).
	Remove(ctx context.Context, ch Change) error
	// Update re-indexes d, a new version of a stored document, as ch
	// says (see [Index.Update]).
	Update(ctx context.Context, d Doc, ch Change) error
	// Flush writes the pending batch, after any FlushAsync is writing:
	// durable and searchable when it returns nil.
	Flush(ctx context.Context) error
	// FlushAsync starts writing the pending batch in the background and
	// returns a function waiting for the write and returning its error;
	// changes accepted meanwhile go into the next batch.
	FlushAsync() (wait func() error)
	// Close flushes the pending batch and releases the store.
	Close() error
}

// The bleve index implements both sides.
var (
	_ Searcher = (*Index)(nil)
	_ Writer   = (*Index)(nil)
)
