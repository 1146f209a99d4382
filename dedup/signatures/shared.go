package signatures

import (
	"context"
	"errors"
)

// Errors of a [Shared].
var (
	// ErrLost: the document number was given up by other workers (its
	// lease ran out before it was committed): the caller inserts the
	// document again under a new number.
	ErrLost = errors.New("signatures: document number lost (its lease ran out)")
	// ErrDuplicate: another document of the same id is committed.
	ErrDuplicate = errors.New("signatures: document id already committed")
)

// Shared is the state several Detectors (workers, in one process or on
// many machines) share to cluster one collection: the candidate lists, the
// cluster assignment, each document's record (what verifying it as a
// candidate needs: package dedup encodes it) and the SimHash neighbour
// tables. A Detector made with it (dedup.NewShared) keeps none of these in
// memory.
//
// # Serial equivalence
//
// Documents are numbered in one sequence shared by every worker ([Begin])
// and committed in that order: a document is committed only when every
// document numbered before it is committed or given up. Reading and
// deciding run in parallel; the commit of document n checks nothing, but
// a worker reads again at its turn (in [Wait], in the round trip that
// waits) whatever a document committed since its first read may have
// changed, and decides again if it did. The clusters are then exactly
// those one Detector inserting the committed documents in number order
// makes: two workers never found two clusters for copies of one page
// (the later one, at its turn, sees the earlier one's cluster among its
// candidates), and a master is elected (taken over) once, by the document
// whose commit does it.
//
// A number is leased to the worker that took it: [Wait] renews the lease,
// and a worker that finds the document before it unrenewed past its lease
// gives that number up for it (its worker, if alive, gets [ErrLost] and
// starts again). A worker that dies holds the others up for at most its
// lease.
//
// A commit is applied in two steps: the assignment, atomically, then the
// document's entries in the lists it has keys in and its fingerprint in
// the tables. What the second step does is recorded in the first (the
// commit's log), and the second step is made in the round trip of the
// next reads that must see it: the committing worker's next Read, or the
// Wait of whichever worker's turn comes next, whichever comes first (a
// list applies a document's entry once). So a worker that dies after its
// commit loses nothing, and a commit costs one round trip.
type Shared interface {
	// Config returns the limits of the lists and the largest Hamming
	// distance the neighbour tables answer: the Detector's must be the
	// same.
	Config() SharedConfig
	// Begin takes the next document number, leased to the caller, and
	// reports whether it is settled: every document before it committed
	// and applied, or to be applied by this Shared's next Read, so that
	// what the caller reads is final and it need not Wait.
	Begin(ctx context.Context) (doc uint32, settled bool, err error)
	// Read runs r in one round trip, after applying (in it) this
	// Shared's commits not known applied.
	Read(ctx context.Context, r *Read) error
	// Wait blocks until every document before doc is committed or given
	// up, renewing doc's lease, applies the commits not known to be
	// applied, and then runs r (nil: nothing) as Read does, in the round
	// trip that applies them. It returns ErrLost if doc was given up.
	Wait(ctx context.Context, doc uint32, r *Read) error
	// Commit assigns c.Doc, at its turn; it is added to its lists and the
	// neighbour tables as the package documentation says. It returns the
	// document's cluster number and its id bits, ErrLost if the number
	// was given up, or ErrDuplicate (the number is then given up). The
	// master of c.Join is compared and set: if it is not c.Expect, the
	// number is given up (ErrLost), so that a master is elected once, by
	// a document verified against the master it replaces.
	Commit(ctx context.Context, c *Commit) (group uint32, hash uint64, err error)
	// Abandon gives up doc: it is never committed. It returns ErrLost if
	// doc was no longer leased to the caller (given up already, its lease
	// run out, or committed).
	Abandon(ctx context.Context, doc uint32) error
	// Assignments calls fn with every committed document in number order.
	Assignments(ctx context.Context, fn func(Assigned) error) error
	// Stats returns the counters of the lists of one kind.
	Stats(ctx context.Context, kind Kind) (Stats, error)
}

// SharedConfig is what every worker of a [Shared] must agree on.
type SharedConfig struct {
	Limits   Limits
	HammingK int // the neighbour tables find fingerprints within this distance
}

// A Read is what a worker reads of a [Shared] in one round trip, and the
// record it stores with it: the fields above Neighbours are asked, those
// from Neighbours on are answered, one for each asked, in order.
type Read struct {
	// Doc and Record: store Record as the record of document Doc (none
	// if Record is nil).
	Doc    uint32
	Record []byte
	// Near: fingerprints whose neighbours to read: the fingerprints in
	// the tables that agree with one of them on at least one of the
	// HammingK+1 blocks of the tables (a superset of those within
	// HammingK).
	Near []uint64
	// Keys: lists to read.
	Keys []Key
	// Groups: clusters to read; with Members, their members too.
	Groups  []uint32
	Members bool
	// Docs: records to read.
	Docs []uint32

	Neighbours [][]Neighbour
	Lists      []List
	Refs       []Ref
	Records    [][]byte // nil for a document never stored
}

// A Neighbour is a fingerprint in the neighbour tables and the document
// it was listed under.
type Neighbour struct {
	Fingerprint uint64
	Doc         uint32
}

// A List is the list of a key: its entries in order, or none; Stopped
// says it is a stop key.
type List struct {
	Entries []Entry
	Stopped bool
}

// Known reports whether the key has a list or is a stop key.
func (l List) Known() bool { return len(l.Entries) > 0 || l.Stopped }

// A Ref is what a worker reads of a cluster: its master, the 64 bits of
// its id and, when asked, its members in order of joining with whether
// each joined through the edit allowance.
type Ref struct {
	Master  uint32
	Hash    uint64
	Members []Member
}

// A Member is a document of a cluster.
type Member struct {
	Doc    uint32
	Edited bool
}

// A Commit is the assignment of one document and what adds it to the
// lists.
type Commit struct {
	Doc uint32
	ID  string // the document's id, unique among those committed
	// Join is the cluster the document joins; NoCluster founds one, with
	// the first of Hashes not taken by a cluster as its id bits.
	Join   uint32
	Hashes []uint64
	Master bool   // it becomes the master of Join
	Edited bool   // it joins Join through the edit allowance
	Expect uint32 // the master of Join it was verified against
	// Keys are the lists it is added to, in order, with its cluster as
	// the entries' group.
	Keys []Key
	// Table: its Fingerprint goes into the neighbour tables.
	Table       bool
	Fingerprint uint64
}

// Assigned is one committed document, as [Shared.Assignments] gives it.
type Assigned struct {
	Doc      uint32
	ID       string
	Group    uint32 // its cluster
	Hash     uint64 // the id bits of its cluster
	Master   uint32 // the master of its cluster
	MasterID string // the master's id
	Edited   bool   // joined through the edit allowance
}
