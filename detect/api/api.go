// Package api holds the JSON messages of the near-duplicate service
// (package detect, doppel detect) and its limits, shared by the server
// and its Go client (package detect/client).
//
// The service answers, for each document it is given, its cluster, the
// cluster's master and member count, and the changes other documents
// undergo because of it — what an external index (Elasticsearch,
// OpenSearch, Solr, …) applies to stay in step:
//
//	POST   /v1/documents        {"documents": [Document, …]}  → {"results": [Answer, …]}
//	GET    /v1/documents/{id}   → Answer (status "stored")
//	DELETE /v1/documents/{id}   → Answer (status "removed")
//	GET    /v1/stats            → Stats
//
// A request the service refuses gets a 4xx status and an [Error] body
// saying why; nothing of it is applied.
package api

// Limits of a request. A larger body is refused with 413, a larger batch
// with 400, each with a reason; nothing of it is applied.
const (
	// MaxBodyBytes bounds the body of a POST: 32 MiB.
	MaxBodyBytes = 32 << 20
	// MaxBatch bounds the documents of one POST.
	MaxBatch = 1000
	// MaxIDBytes bounds a document id.
	MaxIDBytes = 1024
)

// A Document is a document to place in a cluster.
type Document struct {
	// ID names the document; required, at most MaxIDBytes bytes. The
	// service is idempotent by ID: the same ID with the same fields is
	// no change, with new fields an update.
	ID string `json:"id"`
	// Text is the content that is compared.
	Text string `json:"text"`
	// Title is weighed in the SimHash signature, as a crawled page's
	// title is; optional.
	Title string `json:"title,omitempty"`
	// URL breaks ties between masters (the shortest wins); optional.
	URL string `json:"url,omitempty"`
	// Date, RFC 3339 or YYYY-MM-DD, makes the newest copy the master;
	// optional (an undated document counts as older than any dated one).
	Date string `json:"date,omitempty"`
	// Lang is accepted and stored with the document's fields, not
	// compared; optional.
	Lang string `json:"lang,omitempty"`
}

// A Batch is the body of POST /v1/documents.
type Batch struct {
	Documents []Document `json:"documents"`
}

// Status says what a request did to a document.
type Status string

// The statuses of an [Answer].
const (
	Added     Status = "added"     // a new id
	Updated   Status = "updated"   // a stored id with new fields
	Unchanged Status = "unchanged" // a stored id with the same fields: nothing changed
	Removed   Status = "removed"   // DELETE: the document is gone
	Stored    Status = "stored"    // GET: where the document is
)

// An Answer is where a document is after a request.
type Answer struct {
	ID     string `json:"id"`
	Status Status `json:"status"`
	// Cluster names the document's near-duplicate cluster ("" once
	// removed); a document with no near-duplicate is alone in its own.
	Cluster string `json:"cluster,omitempty"`
	// Master is the id of the cluster's master: the document that stands
	// for the cluster in search results.
	Master string `json:"master,omitempty"`
	// Members counts the documents in the cluster, the master included.
	Members int `json:"members,omitempty"`
	// Canonical says the document is its cluster's master.
	Canonical bool `json:"canonical"`
	// Edited says the document joined its cluster through a few small
	// edits on a short page, below the similarity threshold.
	Edited bool `json:"edited,omitempty"`
	// Changes lists the other documents this request moved, re-pointed,
	// promoted or demoted, in the order they happened: an external index
	// sets each one's cluster, master and canonical flag as given.
	Changes []Change `json:"changes,omitempty"`
}

// ChangeKind says why a document appears in [Answer.Changes].
type ChangeKind string

// The kinds of change.
const (
	Demoted   ChangeKind = "demoted"   // it was its cluster's master and is a member now
	Promoted  ChangeKind = "promoted"  // it is its cluster's master now
	Repointed ChangeKind = "repointed" // a member whose cluster has a new master
	Moved     ChangeKind = "moved"     // it is in another cluster now (its master left and it is no copy of the new one)
)

// A Change is a document other than the one asked about whose place
// changed: its cluster, master and canonical flag after the change.
type Change struct {
	ID        string     `json:"id"`
	Kind      ChangeKind `json:"kind"`
	Cluster   string     `json:"cluster"`
	Master    string     `json:"master"`
	Canonical bool       `json:"canonical"`
}

// Results is the body of the answer to POST /v1/documents: one Answer
// per document, in the order of the batch.
type Results struct {
	Results []Answer `json:"results"`
}

// Stats is the body of GET /v1/stats.
type Stats struct {
	Documents int `json:"documents"` // documents stored
	Clusters  int `json:"clusters"`  // clusters (a document alone counts as one)
	// Shared says the detector's signatures are on a Redis Cluster,
	// shared with other services.
	Shared bool `json:"shared,omitempty"`
}

// Error is the body of a refused request.
type Error struct {
	Error string `json:"error"`
}
