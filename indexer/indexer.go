package indexer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Errors returned by the indexer; test with errors.Is.
var (
	ErrEmptyID  = errors.New("indexer: empty document id")
	ErrReserved = errors.New("indexer: document id uses the reserved prefix " + memberPrefix)
	ErrMismatch = errors.New("indexer: result is for another document")
	ErrCluster  = errors.New("indexer: result has no cluster")
	ErrClosed   = errors.New("indexer: index closed")
	ErrPolicy   = errors.New("indexer: unknown policy")
	ErrMapping  = errors.New("indexer: index mapping lacks Doppel's types (create it with indexer.Mapping)")
	ErrCorrupt  = errors.New("indexer: corrupt stored document")
	ErrReadOnly = errors.New("indexer: index opened read-only")
	// ErrRecords: Wrap was given a user's own index (a mapping AddTo
	// extended) without Options.Records, or Options.Records lacks the
	// member type.
	ErrRecords = errors.New("indexer: a user's own index needs Options.Records, an index created with indexer.RecordsMapping, for member and difference records")
	// ErrUserDocument: Add, Update or Remove was given the id of one of
	// the user's own documents in a user's index (see [AddTo]); it is
	// left as it is.
	ErrUserDocument = errors.New("indexer: the id is a document of the user's own, not Doppel's")
	// ErrUnavailable: Remove or Update needs a document the index does
	// not hold (a near-duplicate left out under Skip that becomes master,
	// or moves) and Options.Source has none (or is not set).
	ErrUnavailable = errors.New("indexer: document neither in the index nor in Options.Source")
)

// lockTimeout bounds how long Open waits for another process that has the
// index open (a writer excludes everybody, readers exclude writers).
const lockTimeout = "5s"

// DefaultBatchSize is the number of documents per bleve batch when
// Options.BatchSize is zero.
const DefaultBatchSize = 200

// Options configure an [Index]. The zero value is the default.
type Options struct {
	// Policy for near-duplicates. Default: Skip. It applies to documents
	// added from now on; reopening with another policy does not rewrite
	// documents already indexed.
	Policy Policy
	// BatchSize is the number of documents added, updated or removed
	// after which Add, Update or Remove writes the pending batch — or,
	// while FlushAsync is writing one, the first of them after that write
	// is done. Default: DefaultBatchSize (200). Must not be negative.
	BatchSize int
	// NoAutoFlush makes Add, Update and Remove never write: only Flush
	// and FlushAsync do. A caller that keeps its own durable record of
	// what it adds (package crawler) flushes after that record is
	// durable, so the index is never ahead of it. Default false.
	NoAutoFlush bool
	// ReadOnly opens an existing index for searching only, beside other
	// readers; Add and Flush return ErrReadOnly. Default false.
	ReadOnly bool
	// IndexType is the bleve index type Open creates a new index with
	// (an index that exists keeps its own). Default scorch's; package
	// indexer/shard gives its shards one of its own, whose searches
	// score as the whole sharded index would.
	IndexType string
	// Source returns the documents the index does not hold — the
	// near-duplicates Skip leaves out — when a change of master means
	// they must be indexed: the master elected when one is removed or
	// changes away (Remove, Update), members moved to other clusters, and
	// members the new master's access groups do not cover (on every
	// hand-over, Add's take-over included). Default nil: Remove and
	// Update fail with ErrUnavailable when they need such a document, and
	// a member that should be indexed after a hand-over stays out
	// (counted in Stats.Unavailable).
	Source Source
	// Records is the index member records and difference records are
	// written to when Wrap is given a user's own index — one whose
	// mapping [AddTo] extended — so that the user's queries and counts
	// never see them (see [Wrap]). Create it with [RecordsMapping]; it is
	// the caller's, as the user's index is: Close leaves both open.
	// Must be nil for an index created with [Mapping], which holds its
	// records itself.
	Records bleve.Index
}

// A Source returns documents by id for an [Index] (see Options.Source).
type Source interface {
	// Doc returns the document id as it should be indexed (its latest
	// version, access groups and Simhash), or nil and no error if the
	// source does not have it.
	Doc(ctx context.Context, id string) (*Doc, error)
}

// SourceFunc adapts a function to a Source.
type SourceFunc func(ctx context.Context, id string) (*Doc, error)

// Doc calls f(ctx, id).
func (f SourceFunc) Doc(ctx context.Context, id string) (*Doc, error) { return f(ctx, id) }

// EnsureDefaults sets every zero field to its default (each field's doc
// says which) and returns o.
func (o *Options) EnsureDefaults() *Options {
	if o.BatchSize == 0 {
		o.BatchSize = DefaultBatchSize
	}
	return o
}

// Validate reports an unknown policy (wrapping ErrPolicy) or a negative
// batch size.
func (o Options) Validate() error {
	var errs []error
	if o.Policy < Skip || o.Policy > All {
		errs = append(errs, fmt.Errorf("%w %d", ErrPolicy, int(o.Policy)))
	}
	if o.BatchSize < 0 {
		errs = append(errs, fmt.Errorf("indexer: negative batch size %d", o.BatchSize))
	}
	return errors.Join(errs...)
}

// A Doc is a document to index. Cluster and Master are overwritten by
// [Index.Add] from the Placement.
type Doc struct {
	ID       string   // unique, required; must not start with "doppel.member/"
	URL      string   // keyword
	Host     string   // keyword
	Title    string   // text, boosted at query time
	Headings []string // text
	Body     string   // text, stored for snippets
	// Template holds the main-content blocks left out of Body as site
	// template (text many pages share, such as "Available on x86-64
	// only"): stored, not searched. A difference record compares Body
	// and Template, so a near-duplicate's template text its master lacks
	// stays findable. Optional.
	Template     []string
	Anchors      []string  // anchor texts of links pointing to the document, text
	LastModified time.Time // datetime; zero means unknown (not indexed)
	Groups       []string  // access groups, keywords
	Lang         string    // language (a primary subtag such as "en"), keyword; "" if unknown
	Type         string    // a document's format ("pdf", "docx", …), keyword; "" for an HTML page
	Simhash      uint64    // indexed as 16 hex digits
	Cluster      string    // near-duplicate cluster id
	Master       bool      // the document is its cluster's master
	// Diff says the Doc is a difference record, not the whole document:
	// a near-duplicate left out under Skip, with only what its master
	// lacks — its title and headings if they differ, its anchor texts
	// the master lacks, and the body blocks the master does not hold
	// (see [Difference]). Set by the Index; ignored in Add.
	Diff bool
}

// A Member is one document of a cluster, indexed or not.
type Member struct {
	ID           string
	URL          string
	Title        string
	Indexed      bool      // the document is in the index (searchable)
	Master       bool      // the document is the cluster's master
	Groups       []string  // access groups; empty means public
	LastModified time.Time // zero if unknown
	Length       int       // bytes of body text
	// Edited says the document joined its cluster through the detector's
	// edit allowance (Placement.Edited): close to the master, not a
	// copy. Always false for masters, and in indexes created before the
	// field existed (see Index.Update).
	Edited bool
	// Lang is the document's language ("" if unknown): a result page
	// shows the member in the user's language for its cluster.
	Lang string
	// Type is the document's format ("pdf", "docx", …; "" for an HTML
	// page), shown beside it.
	Type string
}

// Stats counts what an Index has done since it was opened.
type Stats struct {
	Docs    int // documents accepted by Add, Update, and again for members moved by Remove and Update
	Masters int // of those, added as their cluster's master
	Indexed int // of those, put in the index (masters and, under Hidden and All, near-duplicates)
	Skipped int // of those, near-duplicates left out of the index (Skip)
	Diffs   int // of those, with a difference record indexed (Skip; see Difference)
	Demoted int // former masters demoted when another document took over
	Batches int // batches written
	Pending int // documents waiting for the next Flush

	Removed     int // documents removed (Remove)
	Updated     int // documents given a new version (Update)
	Promoted    int // members made master because their master left (Remove, Update)
	Reviewed    int // members indexed or left out anew after a hand-over, as the new master's groups cover them or not
	Unavailable int // members that should be indexed after a hand-over, with no document in the index or the Source
}

// An Index is a bleve index with Doppel's documents and member records.
//
// An Index is safe for concurrent use: Add, Flush, Members, Stats and
// Close are serialized by a mutex; searches ([Index.Search], or through
// [Index.Bleve]) run concurrently and see what was flushed. It implements
// [Searcher] and [Writer].
type Index struct {
	mu   sync.Mutex
	idx  bleve.Index
	opts Options
	// rec holds member and difference records: idx itself, or, for a
	// user's own index, Options.Records. search is what Search reads:
	// idx, or an alias of idx and rec.
	rec, search bleve.Index
	// split: rec is not idx. owned: Close closes idx.
	split, owned bool
	// shut is closed, for the methods that do not take mu (Search).
	shut atomic.Bool
	// batch holds the pending changes of idx, rbatch those of rec (the
	// same batch unless split).
	batch, rbatch *bleve.Batch
	// Pending state, reset by a successful Flush.
	docs    map[string]*Doc      // id → doc indexed in the batch (nil: deleted)
	pending map[string]memberRec // id → member record in the batch
	// cache holds members of clusters read since the last member write
	// (any write clears it): result pages read the same clusters again
	// and again, and member records share compressed storage chunks with
	// large documents.
	cache  map[string][]Member
	stats  Stats
	closed bool
	// writing is the batch FlushAsync is writing in the background, if
	// any: until it is in the index, its documents and member records
	// are read from here (under the pending batch's).
	writing *written
	// editedKnown: the mapping stores Member.Edited (indexes created
	// before it existed do not).
	editedKnown bool
	// diffKnown: the mapping has FieldDiff (indexes created before it
	// existed get no difference records).
	diffKnown bool
	// lists and rlists say how the mappings of idx and rec take word
	// lists (an index made before they were joined takes lists).
	lists, rlists wordLists
	// In a user's index (split): window holds the ids of Doppel's
	// documents written since the last Flush, and clashed those refused
	// since as documents of the user's (userdocs.go).
	window  map[string]bool
	clashed []string
}

// written is a batch being written by FlushAsync.
type written struct {
	batch   *bleve.Batch
	rbatch  *bleve.Batch
	docs    map[string]*Doc
	pending map[string]memberRec
	done    chan struct{}
	err     error
}

type memberRec struct {
	cluster string
	Member
	deleted bool // the record is deleted in the batch
}

// Open opens the index in dir, or creates it (a scorch index with
// [Mapping]) if dir holds none. dir is created if needed. With
// Options.ReadOnly the index must exist. The caller must Close the Index.
func Open(dir string, opts Options) (*Index, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	opts.EnsureDefaults()
	var idx bleve.Index
	var err error
	switch _, serr := os.Stat(filepath.Join(dir, "index_meta.json")); {
	case opts.ReadOnly && serr != nil:
		return nil, fmt.Errorf("indexer: open %s: no index there", dir)
	case opts.ReadOnly:
		idx, err = bleve.OpenUsing(dir, map[string]any{"read_only": true, "bolt_timeout": lockTimeout})
	case serr == nil:
		idx, err = bleve.OpenUsing(dir, map[string]any{"bolt_timeout": lockTimeout})
	default:
		idx, err = bleve.NewUsing(dir, Mapping(), cmp.Or(opts.IndexType, scorch.Name), scorch.Name, map[string]any{"bolt_timeout": lockTimeout})
	}
	if err != nil {
		return nil, fmt.Errorf("indexer: open %s: %w", dir, err)
	}
	x, err := Wrap(idx, opts)
	if err != nil {
		return nil, errors.Join(err, idx.Close())
	}
	x.owned = true
	return x, nil
}

// Wrap returns an Index writing to idx, an existing bleve index created
// with one of two kinds of mapping:
//
//   - Doppel's own, [Mapping] (possibly extended with types of the
//     caller's): idx holds Doppel's documents, difference records and
//     member records, and Options.Records must be nil. This is what
//     [Open] creates.
//   - A user's own mapping that [AddTo] extended: idx is the user's
//     index and holds their documents and Doppel's; member and
//     difference records go to Options.Records, so that the user's
//     queries, match-all listings and DocCount see only their documents
//     and Doppel's whole documents. A document and its member record are
//     then written by two batches, idx's first: after a crash between
//     them the records are behind, and adding again what was added
//     after the last successful Flush (the replay the [Writer] contract
//     asks for anyway) brings them level.
//
// Wrap returns an error wrapping [ErrMapping] if idx's mapping has
// neither, and [ErrRecords] if a user's index comes without
// Options.Records (or with one lacking the member type). Close never
// closes idx or Options.Records: the caller that created them closes
// them after the Index (an Index from Open closes its own).
//
// Wrap also mends the mapping of an index created before the language
// types named their analyzers per field (see [Mapping]), in memory, so
// that queries on _all are analyzed by the index's default analyzer;
// call it before searching idx.
func Wrap(idx bleve.Index, opts Options) (*Index, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	opts.EnsureDefaults()
	im, ok := idx.Mapping().(*mapping.IndexMappingImpl)
	if !ok || im.TypeMapping[DocType] == nil {
		return nil, ErrMapping
	}
	x := &Index{idx: idx, opts: opts, rec: idx, search: idx}
	rm := im
	switch {
	case im.TypeMapping[MemberType] != nil && opts.Records != nil:
		return nil, fmt.Errorf("%w: Options.Records is for a user's own index (see AddTo); this one holds its records itself", ErrRecords)
	case im.TypeMapping[MemberType] == nil:
		if opts.Records == nil {
			return nil, ErrRecords
		}
		rm, ok = opts.Records.Mapping().(*mapping.IndexMappingImpl)
		if !ok || rm.TypeMapping[MemberType] == nil || rm.TypeMapping[DocType] == nil {
			return nil, fmt.Errorf("%w: Options.Records lacks Doppel's types", ErrRecords)
		}
		x.rec, x.split = opts.Records, true
		x.search = bleve.NewIndexAlias(idx, opts.Records)
	}
	moveLanguageDefaults(im)
	moveLanguageDefaults(rm)
	x.editedKnown = rm.TypeMapping[MemberType].Properties[fieldMemberEdited] != nil
	x.diffKnown = im.TypeMapping[DocType].Properties[FieldDiff] != nil
	x.lists, x.rlists = wordListsOf(im), wordListsOf(rm)
	x.reset()
	return x, nil
}

func (x *Index) reset() {
	x.batch = x.idx.NewBatch()
	x.rbatch = x.batch
	if x.split {
		x.rbatch = x.rec.NewBatch()
	}
	x.docs = map[string]*Doc{}
	x.pending = map[string]memberRec{}
	x.stats.Pending = 0
}

// Add indexes d at the placement r. r.ID must be d.ID (or empty) and r.Cluster
// must be set; d.Cluster and d.Master are taken from r (d is the master iff
// r.Master == d.ID). The master is indexed; a near-duplicate follows the
// policy. When d is the master of a cluster that has other members
// (r.Duplicate: it took the cluster over, or it is a new version of the
// master), the policy is applied to every other member again against d (a
// hand-over): a former master is demoted — deleted from the index under
// Skip if d's groups cover its own, re-indexed with master=false
// otherwise — and under Skip a copy is indexed or left out as d's groups
// cover it or not (a copy d does not cover needs its document from
// Options.Source). Adding an id again replaces it.
//
// Add writes the batch when it holds Options.BatchSize documents. Cost:
// O(size of d) to analyze, plus, on a hand-over, one search for the
// cluster's members and a stored-document load for each member whose
// state changes.
func (x *Index) Add(ctx context.Context, d Doc, r Placement) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkDoc(d.ID, r); err != nil {
		return err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.writable(); err != nil {
		return err
	}
	if err := x.notUsers(d.ID); err != nil {
		return err
	}
	if err := x.add(ctx, d, r); err != nil {
		return err
	}
	return x.autoFlush()
}

// CheckID returns the error Remove would return for the document id
// before changing anything ([ErrEmptyID], [ErrReserved]), or nil: for a
// [Writer] over several indexes (package indexer/shard), which checks a
// change before it writes any of them.
func CheckID(id string) error { return checkID(id) }

// CheckPlacement returns the error Add would return for the document
// id at the placement r before changing anything ([ErrEmptyID],
// [ErrReserved], [ErrMismatch], [ErrCluster]), or nil; see [CheckID].
func CheckPlacement(id string, r Placement) error { return checkDoc(id, r) }

func checkID(id string) error {
	switch {
	case id == "":
		return ErrEmptyID
	case strings.HasPrefix(id, memberPrefix):
		return fmt.Errorf("%w: %q", ErrReserved, id)
	}
	return nil
}

func checkDoc(id string, r Placement) error {
	if err := checkID(id); err != nil {
		return err
	}
	switch {
	case r.ID != "" && r.ID != id:
		return fmt.Errorf("%w: doc %q, result %q", ErrMismatch, id, r.ID)
	case r.Cluster == "":
		return fmt.Errorf("%w: doc %q", ErrCluster, id)
	}
	return nil
}

// notUsers returns an error wrapping [ErrUserDocument] if id is a user's
// own document in a user's index (see [AddTo]), which Doppel must neither
// replace nor delete. Cost, on a user's index only: a stored-document
// load.
func (x *Index) notUsers(id string) error {
	if !x.split {
		return nil
	}
	if _, ok := x.docs[id]; ok {
		return nil
	}
	if x.writing != nil {
		if _, ok := x.writing.docs[id]; ok {
			return nil
		}
	}
	user, err := x.isUsers(id)
	if err != nil || !user {
		return err
	}
	return userDocError([]string{id})
}

// writable returns why the index may not be written, if it may not.
func (x *Index) writable() error {
	switch {
	case x.closed:
		return ErrClosed
	case x.opts.ReadOnly:
		return ErrReadOnly
	}
	return nil
}

// autoFlush writes the batch if it is full (and NoAutoFlush is not set),
// unless FlushAsync is writing one: bleve does not order concurrent
// batches, and the older one, landing last, would undo the newer one's
// changes (a document removed or re-indexed since would come back as it
// was). The first Add, Remove or Update after that write writes it.
func (x *Index) autoFlush() error {
	if x.stats.Pending >= x.opts.BatchSize && !x.opts.NoAutoFlush && x.writing == nil {
		return x.flush()
	}
	return nil
}

// add is Add without the checks, under x.mu.
func (x *Index) add(ctx context.Context, d Doc, r Placement) error {
	d.Cluster = r.Cluster
	d.Master = r.Master == d.ID
	if d.Simhash == 0 {
		d.Simhash = r.Simhash
	}
	if d.Master && r.Duplicate {
		if err := x.review(ctx, d.Cluster, &d, nil); err != nil {
			return err
		}
	}
	m := Member{ID: d.ID, URL: d.URL, Title: d.Title, Master: d.Master, Groups: d.Groups,
		LastModified: d.LastModified, Length: len(d.Body), Edited: r.Edited && !d.Master, Lang: d.Lang, Type: d.Type}
	keep := d.Master || x.opts.Policy != Skip || m.Edited
	var master *Doc
	if !keep { // under Skip, keep a copy some users could see without seeing the master
		var err error
		if master, err = x.load(r.Master); err != nil {
			return err
		}
		keep = master != nil && !Covers(master.Groups, d.Groups) // an unknown master was demoted meanwhile: skip
	}
	if keep {
		if err := x.index(&d); err != nil {
			return err
		}
		m.Indexed = true
		x.stats.Indexed++
	} else {
		if err := x.skip(&d, master); err != nil {
			return err
		}
		x.stats.Skipped++
	}
	if err := x.putMember(d.Cluster, m); err != nil {
		return err
	}
	x.stats.Docs++
	if d.Master {
		x.stats.Masters++
	}
	x.stats.Pending++
	return nil
}

// review applies the policy again to every member of cluster but master
// and those in skip, against master: former masters are demoted; under
// Skip a member stays out of the index only if it is a copy (not Edited)
// and the master's groups cover its own. A member to index whose
// document is neither in the index nor in Options.Source stays out,
// counted in Stats.Unavailable. A member that leaves the index keeps a
// difference record against master; one that was out already keeps the
// record it has (against an earlier master of the cluster: its own text
// stays findable). In an index whose mapping does not store
// Member.Edited, an indexed member stays indexed (it may be an edited
// one).
func (x *Index) review(ctx context.Context, cluster string, master *Doc, skip []string) error {
	ms, err := x.members(cluster)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if m.ID == master.ID || slices.Contains(skip, m.ID) {
			continue
		}
		if err := x.reviewMember(ctx, cluster, master, m); err != nil {
			return err
		}
	}
	return nil
}

// reviewMember is review's step for one member m of cluster, not master:
// it decides whether m stays in the index, indexes or leaves it out
// accordingly, and writes its member record if its state changed,
// counting a demotion or a review.
func (x *Index) reviewMember(ctx context.Context, cluster string, master *Doc, m Member) error {
	wasMaster, wasIndexed := m.Master, m.Indexed
	m.Master = false
	m.Edited = m.Edited && !wasMaster
	var err error
	switch keep := x.keepOnReview(master.Groups, m, wasMaster, wasIndexed); {
	case keep && wasIndexed && !wasMaster: // as it is
	case keep:
		m.Indexed, err = x.reindex(ctx, cluster, m.ID, wasMaster)
	default:
		m.Indexed, err = false, x.leaveOut(m.ID, master, wasIndexed)
	}
	if err != nil {
		return err
	}
	if m.Master == wasMaster && m.Indexed == wasIndexed {
		return nil
	}
	if err := x.putMember(cluster, m); err != nil {
		return err
	}
	if wasMaster {
		x.stats.Demoted++
	} else {
		x.stats.Reviewed++
	}
	return nil
}

// keepOnReview reports whether member m (its Master and Edited flags
// already cleared; wasMaster and wasIndexed as it stood) stays in the
// index under a master with the access groups groups: always but under
// Skip; under Skip if it is edited, if the master's groups do not cover
// its own, or if the mapping does not store Member.Edited and it is an
// indexed non-master (it may be an edited one).
func (x *Index) keepOnReview(groups []string, m Member, wasMaster, wasIndexed bool) bool {
	return x.opts.Policy != Skip || m.Edited || !Covers(groups, m.Groups) || !x.editedKnown && wasIndexed && !wasMaster
}

// reindex puts member id of cluster into the index as a non-master, its
// document from the batches, the index or Options.Source, and reports
// whether it is indexed. A member with no document anywhere is taken out
// instead, counted in Stats.Unavailable unless it was the master.
func (x *Index) reindex(ctx context.Context, cluster, id string, wasMaster bool) (bool, error) {
	d, err := x.fetch(ctx, id)
	if err != nil {
		return false, err
	}
	if d == nil {
		x.unindex(id)
		if !wasMaster {
			x.stats.Unavailable++
		}
		return false, nil
	}
	d.Cluster, d.Master = cluster, false
	if err := x.index(d); err != nil {
		return false, err
	}
	return true, nil
}

// leaveOut takes member id out of the index under Skip: if it was
// indexed, its document is replaced by its difference record against
// master (or deleted if it has none, or is not found); one that was out
// already keeps the record it has.
func (x *Index) leaveOut(id string, master *Doc, wasIndexed bool) error {
	if !wasIndexed {
		return nil
	}
	d, err := x.load(id)
	if err != nil {
		return err
	}
	if d == nil {
		x.unindex(id)
		return nil
	}
	return x.skip(d, master)
}

// fetch returns document id from the batches or the index, else from
// Options.Source, or nil if none has it.
func (x *Index) fetch(ctx context.Context, id string) (*Doc, error) {
	d, err := x.load(id)
	if err != nil || d != nil || x.opts.Source == nil {
		return d, err
	}
	if d, err = x.opts.Source.Doc(ctx, id); err != nil {
		return nil, fmt.Errorf("indexer: source: document %q: %w", id, err)
	}
	if d != nil {
		c := *d
		c.ID = id
		return &c, nil
	}
	return nil, nil
}

// need is fetch for a document that must be found.
func (x *Index) need(ctx context.Context, id string) (*Doc, error) {
	d, err := x.fetch(ctx, id)
	if err == nil && d == nil {
		err = fmt.Errorf("%w: %q", ErrUnavailable, id)
	}
	return d, err
}

// Remove takes the document ch.ID out of the index — its searchable
// document and its member record — as the detector's removal ch decided
// (dedup.Detector.Remove, converted by package hook), and follows the rest of ch: the master
// elected in its place is indexed as master (a hand-over: the policy is
// applied to the other members again against it, as Add does on a
// take-over) and the members moved to other clusters are added again
// where they went.
//
// The documents this needs that the index does not hold (under Skip: the
// elected master, moved members) come from Options.Source; if one is
// missing, Remove returns an error wrapping ErrUnavailable before changing
// anything. Cost: one delete; on an election, one search for the cluster's
// members, a load per member whose state changes, and an Add per moved
// member.
func (x *Index) Remove(ctx context.Context, ch Change) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkID(ch.ID); err != nil {
		return err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.writable(); err != nil {
		return err
	}
	if err := x.notUsers(ch.ID); err != nil {
		return err
	}
	if err := x.leave(ctx, ch, true); err != nil {
		return err
	}
	return x.autoFlush()
}

// Update re-indexes d, a new version of a stored document, as the
// detector's replacement ch decided (dedup.Detector.Update or Replace,
// converted by package hook): d
// is added again as ch.Placement says (Add: its document, master flag and
// member record replaced; a hand-over if it took its cluster over or is
// its master). If it left its cluster (ch.Left), the cluster is first
// handed over as by Remove. A document the detector did not hold
// (ch.Cluster empty) is simply added.
//
// Documents needed that the index does not hold come from Options.Source,
// as for Remove; ErrUnavailable before any change if one is missing.
// Cost: an Add, plus a Remove's hand-over when the document left.
func (x *Index) Update(ctx context.Context, d Doc, ch Change) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkDoc(d.ID, ch.Placement); err != nil {
		return err
	}
	if ch.ID != d.ID {
		return fmt.Errorf("%w: doc %q, change %q", ErrMismatch, d.ID, ch.ID)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.writable(); err != nil {
		return err
	}
	if err := x.notUsers(ch.ID); err != nil {
		return err
	}
	if ch.Left {
		if err := x.leave(ctx, ch, false); err != nil {
			return err
		}
	}
	if err := x.add(ctx, d, ch.Placement); err != nil {
		return err
	}
	x.stats.Updated++
	return x.autoFlush()
}

// leave applies what ch did to the cluster ch.ID was in: ch.ID's document
// and member record are deleted (when drop is set; Update adds them again
// instead), the elected master is promoted and the other members
// reviewed, and the moved members are added where they went. The
// documents that must be found are loaded before anything changes.
func (x *Index) leave(ctx context.Context, ch Change, drop bool) error {
	var master *Doc
	if ch.Elected && ch.Master != "" {
		var err error
		if master, err = x.need(ctx, ch.Master); err != nil {
			return err
		}
	}
	moved := make([]*Doc, len(ch.Moved))
	skip := []string{ch.ID}
	for i, r := range ch.Moved {
		var err error
		if moved[i], err = x.need(ctx, r.ID); err != nil {
			return err
		}
		skip = append(skip, r.ID)
	}
	if drop {
		x.unindex(ch.ID)
		x.dropMember(ch.ID)
		x.stats.Removed++
		x.stats.Pending++
	}
	if master != nil {
		cluster := ch.Cluster
		master.Cluster, master.Master = cluster, true
		if err := x.index(master); err != nil {
			return err
		}
		m := Member{ID: master.ID, URL: master.URL, Title: master.Title, Indexed: true, Master: true, Groups: master.Groups,
			LastModified: master.LastModified, Length: len(master.Body), Lang: master.Lang, Type: master.Type}
		if err := x.putMember(cluster, m); err != nil {
			return err
		}
		x.stats.Promoted++
		x.stats.Pending++
		if err := x.review(ctx, cluster, master, skip); err != nil {
			return err
		}
	}
	for i, r := range ch.Moved {
		if err := x.add(ctx, *moved[i], r); err != nil {
			return err
		}
	}
	return nil
}

func (x *Index) index(d *Doc) error {
	if err := x.batch.Index(d.ID, toData(d, x.lists)); err != nil {
		return fmt.Errorf("indexer: index %q: %w", d.ID, err)
	}
	if x.split {
		x.rbatch.Delete(d.ID) // its difference record, if it had one
	}
	x.docs[d.ID] = d
	return nil
}

// skip takes d, a near-duplicate under Skip, out of the index, leaving
// its difference record against master (nil: none) if it has one.
func (x *Index) skip(d, master *Doc) error {
	if !x.diffKnown || master == nil {
		x.unindex(d.ID)
		return nil
	}
	r := Difference(d, master)
	if r == nil {
		x.unindex(d.ID)
		return nil
	}
	if err := x.rbatch.Index(r.ID, toData(r, x.rlists)); err != nil {
		return fmt.Errorf("indexer: difference record %q: %w", r.ID, err)
	}
	if x.split {
		x.batch.Delete(r.ID) // the document, if it was indexed
	}
	x.docs[r.ID] = nil // not a document load may return
	x.stats.Diffs++
	return nil
}

func (x *Index) unindex(id string) {
	x.batch.Delete(id)
	if x.split {
		x.rbatch.Delete(id)
	}
	x.docs[id] = nil
}

func (x *Index) putMember(cluster string, m Member) error {
	if err := x.rbatch.Index(memberPrefix+m.ID, toMemberData(cluster, m)); err != nil {
		return fmt.Errorf("indexer: member record %q: %w", m.ID, err)
	}
	x.pending[m.ID] = memberRec{cluster: cluster, Member: m}
	x.cache = nil
	return nil
}

func (x *Index) dropMember(id string) {
	x.rbatch.Delete(memberPrefix + id)
	x.pending[id] = memberRec{deleted: true}
	x.cache = nil
}

// load returns the searchable document id from the pending batch or the
// index, or nil if it is in neither (a difference record is not the
// document).
func (x *Index) load(id string) (*Doc, error) {
	d, ok := x.docs[id]
	if !ok && x.writing != nil {
		d, ok = x.writing.docs[id]
	}
	if ok {
		if d == nil {
			return nil, nil
		}
		c := *d
		return &c, nil
	}
	sd, err := x.idx.Document(id)
	if err != nil {
		return nil, fmt.Errorf("indexer: load %q: %w", id, err)
	}
	if sd == nil {
		return nil, nil
	}
	d, err = fromStored(id, sd)
	if err != nil || d.Diff || d.Cluster == "" {
		return nil, err // a difference record, or a user's own document (see AddTo)
	}
	return d, nil
}

// Indexed returns how many documents are in the index (searchable or
// hidden), member records and difference records not counted. Pending
// documents are not counted until Flush.
func (x *Index) Indexed() (int, error) {
	if x.shut.Load() {
		return 0, ErrClosed
	}
	res, err := x.idx.Search(bleve.NewSearchRequestOptions(documents(), 0, 0, false))
	if err != nil {
		return 0, err
	}
	return int(res.Total), nil
}

// documents matches every whole document of Doppel's: neither member
// records, nor difference records, nor a user's own documents (see
// [AddTo]). Every document has a master field; those records have none.
func documents() query.Query {
	diff := bleve.NewBoolFieldQuery(true)
	diff.SetField(FieldDiff)
	q := bleve.NewBooleanQuery()
	q.AddMust(hasMaster())
	q.AddMustNot(diff)
	return q
}

// hasMaster matches the records with a master field, true or false:
// Doppel's documents and difference records. Its boost is 0.
func hasMaster() query.Query {
	var qs []query.Query
	for _, v := range []bool{true, false} {
		q := bleve.NewBoolFieldQuery(v)
		q.SetField(FieldMaster)
		qs = append(qs, q)
	}
	q := bleve.NewDisjunctionQuery(qs...)
	q.SetBoost(0)
	return q
}

// idPageSize is the number of ids EachID reads per search.
const idPageSize = 10000

// EachID calls fn with the id of every document in the index (searchable
// or hidden; member records and difference records are not documents), in
// id order, and stops at the first error fn returns. Documents not
// flushed yet are not included. Cost: one search per 10,000 ids.
func (x *Index) EachID(fn func(id string) error) error {
	if x.shut.Load() {
		return ErrClosed
	}
	q := documents()
	var after []string
	for {
		req := bleve.NewSearchRequestOptions(q, idPageSize, 0, false)
		req.SortBy([]string{"_id"})
		req.SearchAfter = after
		res, err := x.idx.Search(req)
		if err != nil {
			return fmt.Errorf("indexer: listing documents: %w", err)
		}
		for _, h := range res.Hits {
			if err := fn(h.ID); err != nil {
				return err
			}
		}
		if len(res.Hits) < idPageSize {
			return nil
		}
		after = []string{res.Hits[len(res.Hits)-1].ID}
	}
}

// Languages returns the languages of the index's documents (their
// [FieldLang] values, difference records included), most documents first,
// ties by name: read from the field's term dictionary, so it costs a walk
// over the languages, not over the documents. Counts may include
// documents deleted since the last segment merge, so a language all of
// whose documents were removed may stay listed until then.
func (x *Index) Languages() ([]string, error) {
	if x.shut.Load() {
		return nil, ErrClosed
	}
	dict, err := x.idx.FieldDict(FieldLang)
	if err != nil {
		return nil, fmt.Errorf("indexer: languages: %w", err)
	}
	type lang struct {
		name string
		n    uint64
	}
	var langs []lang
	for {
		e, err := dict.Next()
		if err != nil {
			dict.Close()
			return nil, fmt.Errorf("indexer: languages: %w", err)
		}
		if e == nil {
			break
		}
		if e.Count > 0 {
			langs = append(langs, lang{e.Term, e.Count})
		}
	}
	if err := dict.Close(); err != nil {
		return nil, fmt.Errorf("indexer: languages: %w", err)
	}
	slices.SortStableFunc(langs, func(a, b lang) int { return cmp.Compare(b.n, a.n) })
	out := make([]string, len(langs))
	for i, l := range langs {
		out[i] = l.name
	}
	return out, nil
}

// TermShares returns a function that gives the share of the index's
// documents (member records included, which hold no text) whose text — any
// field of bleve's composite _all field — holds an analyzed term, read from
// one snapshot of the index; call release when done. A term in many
// documents says little about which one a query wants (see
// userquery.Parser.Relaxed). Cost: one dictionary lookup per term.
func (x *Index) TermShares() (share func(term string) float64, release func(), err error) {
	if x.shut.Load() {
		return nil, nil, ErrClosed
	}
	adv, err := x.idx.Advanced()
	if err != nil {
		return nil, nil, fmt.Errorf("indexer: %w", err)
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, nil, fmt.Errorf("indexer: %w", err)
	}
	total, err := r.DocCount()
	if err != nil || total == 0 {
		r.Close()
		return func(string) float64 { return 0 }, func() {}, err
	}
	share = func(term string) float64 {
		tfr, err := r.TermFieldReader(context.Background(), []byte(term), FieldAll, false, false, false)
		if err != nil {
			return 0
		}
		defer tfr.Close()
		return float64(tfr.Count()) / float64(total)
	}
	return share, func() { r.Close() }, nil
}

// Holds reports whether the index holds document id — its member record,
// indexed or not — counting the changes accepted and not yet written
// (read your writes). Package indexer/shard asks it to find a copy of a
// document left on another shard. Cost: a lookup of the record's id.
func (x *Index) Holds(id string) (bool, error) {
	if checkID(id) != nil {
		return false, nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return false, ErrClosed
	}
	if rec, ok := x.pending[id]; ok {
		return !rec.deleted, nil
	}
	if x.writing != nil {
		if rec, ok := x.writing.pending[id]; ok {
			return !rec.deleted, nil
		}
	}
	adv, err := x.rec.Advanced()
	if err != nil {
		return false, fmt.Errorf("indexer: %w", err)
	}
	r, err := adv.Reader()
	if err != nil {
		return false, fmt.Errorf("indexer: %w", err)
	}
	defer r.Close()
	iid, err := r.InternalID(memberPrefix + id)
	if err != nil {
		return false, fmt.Errorf("indexer: looking up %q: %w", id, err)
	}
	return len(iid) > 0, nil
}

// DocCount returns how many records the index holds as written —
// documents, difference records and member records — the total
// [Index.TermShares] divides by. Cost: one reader.
func (x *Index) DocCount() (uint64, error) {
	if x.shut.Load() {
		return 0, ErrClosed
	}
	n, err := x.idx.DocCount()
	if err != nil {
		return 0, fmt.Errorf("indexer: %w", err)
	}
	return n, nil
}

// Document returns the indexed document id (from the pending batch or the
// index), or nil if it is not indexed.
func (x *Index) Document(id string) (*Doc, error) {
	if strings.HasPrefix(id, memberPrefix) {
		return nil, nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return nil, ErrClosed
	}
	return x.load(id)
}

// Flush writes the pending batch to the index, after the one FlushAsync
// may be writing. When it returns nil, every document added before is
// durable and searchable. On error the batch is kept and Flush may be
// retried. Cost: analysis is done by Add; Flush pays bleve's segment
// build and fsync.
//
// In a user's index (see [AddTo]), a document of Doppel's whose id is a
// document of the user's that was indexed after Add checked it (a batch
// of the user's in the same window) is not written, nor are its records,
// and the user's stays as it is; one the user's batch replaced after
// Doppel's was written since the last Flush loses its records. Flush then
// writes the rest and returns an error wrapping [ErrUserDocument] that
// names the first id and the fix.
func (x *Index) Flush(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	werr := x.lockIdle()
	defer x.mu.Unlock()
	switch {
	case x.closed:
		return ErrClosed
	case x.opts.ReadOnly:
		return ErrReadOnly
	case werr != nil:
		return werr
	}
	return x.flushWindow()
}

// FlushAsync starts writing the pending batch to the index in the
// background, after the one an earlier FlushAsync may still be writing,
// and returns at once with a function that waits for the write and
// returns its error. Meanwhile Add goes on into a new batch, and Members
// and Document see the batch being written. After an error the batch's
// documents are not in the index (a caller that records what it adds, as
// package crawler does, adds them again after a restart). Searches see
// the documents when the write is done.
func (x *Index) FlushAsync() (wait func() error) {
	werr := x.lockIdle()
	defer x.mu.Unlock()
	switch {
	case x.closed:
		return func() error { return ErrClosed }
	case x.opts.ReadOnly:
		return func() error { return ErrReadOnly }
	case werr != nil:
		return func() error { return werr }
	}
	if err := x.dropUsers(); err != nil {
		return func() error { return err }
	}
	clash := x.takeClashes()
	if x.empty() {
		return func() error { return clash }
	}
	w := &written{batch: x.batch, rbatch: x.rbatch, docs: x.docs, pending: x.pending, done: make(chan struct{})}
	x.writing = w
	x.reset()
	go func() {
		err := x.write(w.batch, w.rbatch)
		x.mu.Lock()
		if err != nil {
			w.err = fmt.Errorf("indexer: write batch: %w", err)
		} else {
			x.stats.Batches++
		}
		x.writing = nil
		x.cache = nil
		x.mu.Unlock()
		close(w.done)
	}()
	return func() error { <-w.done; return errors.Join(w.err, clash) }
}

// lockIdle locks x.mu once no batch is being written by FlushAsync, and
// returns the error of the write it waited for, if any. (Waiting, then
// locking, would let another FlushAsync start a write in between, which a
// write under the lock could overtake.)
func (x *Index) lockIdle() error {
	var err error
	for {
		x.mu.Lock()
		w := x.writing
		if w == nil {
			return err
		}
		x.mu.Unlock()
		<-w.done
		if err == nil {
			err = w.err
		}
	}
}

// empty reports whether nothing is pending.
func (x *Index) empty() bool { return x.batch.Size() == 0 && x.rbatch.Size() == 0 }

// write writes batch to idx, then (if split) rbatch to rec.
func (x *Index) write(batch, rbatch *bleve.Batch) error {
	if batch.Size() > 0 {
		if err := x.idx.Batch(batch); err != nil {
			return err
		}
	}
	if x.split && rbatch.Size() > 0 {
		return x.rec.Batch(rbatch)
	}
	return nil
}

func (x *Index) flush() error {
	if err := x.dropUsers(); err != nil {
		return err
	}
	if x.empty() {
		return nil
	}
	if err := x.write(x.batch, x.rbatch); err != nil {
		return fmt.Errorf("indexer: write batch: %w", err)
	}
	x.noteWritten(x.docs)
	x.stats.Batches++
	x.reset()
	return nil
}

// memberPageSize is the number of member records read per search.
const memberPageSize = 1000

// Members returns every document of cluster, including near-duplicates
// left out of the index and documents not flushed yet: the master first,
// then by id. It returns an empty slice for an unknown cluster. Cost: one
// search per 1000 members plus O(pending documents).
func (x *Index) Members(cluster string) ([]Member, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return nil, ErrClosed
	}
	return x.members(cluster)
}

func (x *Index) members(cluster string) ([]Member, error) {
	m, err := x.membersOf(context.Background(), []string{cluster})
	return m[cluster], err
}

// MembersOf returns the members of several clusters at once (cluster →
// members, as Members orders them), with one search.
func (x *Index) MembersOf(clusters []string) (map[string][]Member, error) {
	return x.MembersOfContext(context.Background(), clusters)
}

// MembersOfContext is MembersOf with a context, which the search for
// member records not cached honours (package ranking's deadline).
func (x *Index) MembersOfContext(ctx context.Context, clusters []string) (map[string][]Member, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return nil, ErrClosed
	}
	return x.membersOf(ctx, clusters)
}

func (x *Index) membersOf(ctx context.Context, clusters []string) (map[string][]Member, error) {
	out := map[string][]Member{}
	var missing []string
	for _, c := range clusters {
		if ms, ok := x.cache[c]; ok {
			out[c] = slices.Clone(ms)
		} else {
			missing = append(missing, c)
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	read, err := x.readMembers(ctx, missing)
	if err != nil {
		return nil, err
	}
	if x.cache == nil || len(x.cache) > maxCachedClusters {
		x.cache = map[string][]Member{}
	}
	for _, c := range missing {
		x.cache[c] = read[c]
		out[c] = slices.Clone(read[c])
	}
	return out, nil
}

// maxCachedClusters bounds the member cache.
const maxCachedClusters = 20000

func (x *Index) readMembers(ctx context.Context, clusters []string) (map[string][]Member, error) {
	out := map[string][]Member{}
	want := map[string]bool{}
	var qs []query.Query
	for _, c := range clusters {
		want[c] = true
		q := bleve.NewTermQuery(c)
		q.SetField(fieldMemberCluster)
		qs = append(qs, q)
	}
	byID := map[string]memberRec{}
	q := bleve.NewDisjunctionQuery(qs...)
	for from := 0; ; from += memberPageSize {
		req := bleve.NewSearchRequestOptions(q, memberPageSize, from, false)
		req.Fields = []string{fieldMemberCluster, fieldMemberURL, fieldMemberTitle, fieldMemberIndexed, fieldMemberMaster,
			fieldMemberGroups, fieldMemberModified, fieldMemberLength, fieldMemberEdited, fieldMemberLang, fieldMemberType}
		req.SortBy([]string{"_id"})
		res, err := x.rec.SearchInContext(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("indexer: members of %q: %w", clusters, err)
		}
		for _, h := range res.Hits {
			id := strings.TrimPrefix(h.ID, memberPrefix)
			cluster, _ := h.Fields[fieldMemberCluster].(string)
			url, _ := h.Fields[fieldMemberURL].(string)
			title, _ := h.Fields[fieldMemberTitle].(string)
			indexed, _ := h.Fields[fieldMemberIndexed].(bool)
			master, _ := h.Fields[fieldMemberMaster].(bool)
			length, _ := h.Fields[fieldMemberLength].(float64)
			edited, _ := h.Fields[fieldMemberEdited].(bool)
			lang, _ := h.Fields[fieldMemberLang].(string)
			typ, _ := h.Fields[fieldMemberType].(string)
			m := Member{ID: id, URL: url, Title: title, Indexed: indexed, Master: master, Length: int(length),
				Groups: stringsOf(h.Fields[fieldMemberGroups]), Edited: edited, Lang: lang, Type: typ}
			if s, ok := h.Fields[fieldMemberModified].(string); ok {
				m.LastModified, _ = time.Parse(time.RFC3339, s)
			}
			byID[id] = memberRec{cluster: cluster, Member: m}
		}
		if len(res.Hits) < memberPageSize {
			break
		}
	}
	overlay := func(pending map[string]memberRec) {
		for id, rec := range pending {
			if rec.deleted {
				delete(byID, id)
			} else {
				byID[id] = rec
			}
		}
	}
	if x.writing != nil { // the batch being written overrides the index
		overlay(x.writing.pending)
	}
	overlay(x.pending) // the batch overrides both
	for _, rec := range byID {
		if want[rec.cluster] {
			out[rec.cluster] = append(out[rec.cluster], rec.Member)
		}
	}
	for _, ms := range out {
		slices.SortFunc(ms, func(a, b Member) int {
			if a.Master != b.Master {
				if a.Master {
					return -1
				}
				return 1
			}
			return cmp.Compare(a.ID, b.ID)
		})
	}
	return out, nil
}

// Searchable restricts q to what a result page may show under the
// Index's policy when nobody's access groups matter: documents (member
// records never match), and under Skip and Hidden only masters. (Under
// Skip, a near-duplicate whose access groups some users have without the
// master's is indexed with master=false, so that it can represent the
// cluster for them: see package ranking.) The master clause has boost 0,
// so scores are those of q.
//
// On a user's own index (see [AddTo]) it also leaves out the user's
// documents.
func (x *Index) Searchable(q query.Query) query.Query {
	q = SearchableUnder(x.opts.Policy, q)
	if x.split && x.opts.Policy == All {
		bq := bleve.NewBooleanQuery()
		bq.AddMust(q, hasMaster())
		return bq
	}
	return q
}

// SearchableUnder is [Index.Searchable] for an index under policy.
func SearchableUnder(policy Policy, q query.Query) query.Query {
	kind := bleve.NewTermQuery(MemberType)
	kind.SetField(fieldKind)
	bq := bleve.NewBooleanQuery()
	bq.AddMust(q)
	bq.AddMustNot(kind)
	if policy != All {
		master := bleve.NewBoolFieldQuery(true)
		master.SetField(FieldMaster)
		master.SetBoost(0)
		bq.AddMust(master)
	}
	return bq
}

// Search runs a bleve search request on the index (with a user's own
// index, on it and Options.Records together, through a bleve
// IndexAlias), as what was flushed stands, under ctx (its deadline stops
// the search). The index holds
// member and difference records beside the documents: restrict req's
// query with [Index.Searchable], or with [VisibleTo] and a filter of
// member records as package ranking does. The optional clauses of
// req's boolean queries are searched as [GuardShould] says (a defect of
// bleve's). Safe for concurrent use.
func (x *Index) Search(ctx context.Context, req *bleve.SearchRequest) (*bleve.SearchResult, error) {
	if x.shut.Load() {
		return nil, ErrClosed
	}
	if g, changed := guard(req.Query); changed {
		c := *req
		c.Query = g
		req = &c
	}
	return x.search.SearchInContext(ctx, req)
}

// Mapping returns the index mapping (see [Mapping]): the analyzers a
// query parser needs.
func (x *Index) Mapping() mapping.IndexMapping { return x.idx.Mapping() }

// SearchableCount returns how many documents a result page may show, as the
// index stands: those [Index.Searchable] admits (masters; under All,
// every document). Cost: one search.
func (x *Index) SearchableCount() (int, error) {
	if x.shut.Load() {
		return 0, ErrClosed
	}
	res, err := x.search.Search(bleve.NewSearchRequestOptions(x.Searchable(bleve.NewMatchAllQuery()), 0, 0, false))
	if err != nil {
		return 0, fmt.Errorf("indexer: counting searchable documents: %w", err)
	}
	return int(res.Total), nil
}

// Bleve returns the underlying bleve index, for what Index does not
// offer (a library user's own document types, say). It holds member and
// difference records too, unless it is a user's own index (see [Wrap]).
// Writing Doppel's documents to it directly bypasses the Index's
// bookkeeping.
func (x *Index) Bleve() bleve.Index { return x.idx }

// Options returns the options the index was opened with, defaults
// applied.
func (x *Index) Options() Options { return x.opts }

// Stats returns the counters since Open.
func (x *Index) Stats() Stats {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.stats
}

// Close flushes the pending batch and closes the bleve index. Later calls
// return ErrClosed.
func (x *Index) Close() error {
	werr := x.lockIdle()
	defer x.mu.Unlock()
	if x.closed {
		return ErrClosed
	}
	x.closed = true
	x.shut.Store(true)
	if x.opts.ReadOnly {
		return x.closeOwned()
	}
	return errors.Join(werr, x.flushWindow(), x.closeOwned())
}

// closeOwned closes idx if the Index opened it (Open).
func (x *Index) closeOwned() error {
	if !x.owned {
		return nil
	}
	return x.idx.Close()
}

// PublicGroup is the value the groups field holds for a document without
// access groups (public), so that a query can select public documents. It
// is reserved: do not use it as a group name.
const PublicGroup = "doppel.public"

// Visible reports whether a user with the access groups user may see a
// document with the access groups doc: a document without groups is
// public; otherwise the user needs one of its groups.
func Visible(doc, user []string) bool {
	if len(doc) == 0 {
		return true
	}
	for _, g := range doc {
		if slices.Contains(user, g) {
			return true
		}
	}
	return false
}

// Covers reports whether everybody who may see a document with groups b
// may also see one with groups a.
func Covers(a, b []string) bool {
	if len(a) == 0 {
		return true
	}
	if len(b) == 0 {
		return false
	}
	for _, g := range b {
		if !slices.Contains(a, g) {
			return false
		}
	}
	return true
}

// VisibleTo returns a query matching the documents a user with the access
// groups user may see (public ones included). Its boost is 0: it filters,
// it does not score.
func VisibleTo(user []string) query.Query {
	var qs []query.Query
	for _, g := range append([]string{PublicGroup}, user...) {
		t := bleve.NewTermQuery(g)
		t.SetField(FieldGroups)
		qs = append(qs, t)
	}
	q := bleve.NewDisjunctionQuery(qs...)
	q.SetBoost(0)
	return q
}

// stringsOf reads a stored multi-valued field.
func stringsOf(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}
