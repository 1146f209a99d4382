package dedup

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/doppel-search/doppel/dedup/cluster"
	"github.com/doppel-search/doppel/dedup/features"
	"github.com/doppel-search/doppel/dedup/hamming"
	"github.com/doppel-search/doppel/dedup/imatch"
	"github.com/doppel-search/doppel/dedup/minhash"
	"github.com/doppel-search/doppel/dedup/signatures"
	"github.com/doppel-search/doppel/dedup/simhash"
	"github.com/doppel-search/doppel/dedup/stats"
)

// A Document is the input to a [Detector].
type Document struct {
	ID      string    // unique, required
	Text    string    // the main content that is compared
	URL     string    // for the ShortestURL master policy; optional
	Title   string    // carried along, not compared (put it in Tagged to weigh it)
	Tagged  string    // title, headings and bold text: boosted in SimHash; optional
	Meta    []string  // metadata features such as "author:jane": weighted in SimHash; optional
	Time    time.Time // for the MostRecent master policy; optional
	Quality float64   // for the HighestQuality master policy; optional
	// Preference ranks the document as master before the policy does:
	// a member with a higher Preference is always the better master
	// (package crawler prefers pages in the language it started in).
	// Optional; default 0.
	Preference int
	// Extracted says the text was read out of a laid-out document (PDF,
	// DOCX, ODT, …: package crawler/extract), which carries what its
	// pages need and a web page does not. A pair with such a document is
	// also verified by containment (Options.Containment). Optional.
	Extracted bool
}

// A Pair is a detected near-duplicate pair: A arrived before B.
type Pair struct {
	A, B  string
	Score float64 // the similarity (or the method's score) that accepted the pair
}

// A Result is what the Detector decided for one document.
//
// Pairs lists, in arrival order, the earlier documents the document was
// verified to duplicate: of every cluster with a candidate among them (see
// [Options.MaxFanout]), the master when it is similar enough, and the
// similar ones among the cluster's first MaxFanout candidate members. While
// no fan-out limit is reached — as on the shared evaluation corpus — that
// is every near-duplicate the candidate sources find, as without limits.
// Past the limits, a document still pairs with the master of the cluster
// it joins, and with at most MaxFanout earlier members of any one cluster
// (the first ones to arrive, for exact copies of a page).
type Result struct {
	ID        string
	Cluster   cluster.ID // the cluster the document is in
	Master    string     // id of the cluster's master after the document was added
	Duplicate bool       // the document joined an existing cluster
	NewMaster bool       // it joined one and became its master (policy)
	// Demoted is, with NewMaster, the id of the master the document took
	// the cluster over from, now a member: an index that keeps masters
	// apart demotes it. "" otherwise.
	Demoted    string
	Unsignable bool // no signature could be computed: alone in its cluster
	// Edited says the document joined its cluster through
	// Options.EditAllowance: close to the master (a few small edits on a
	// short page) but below the Threshold. An index may want to keep such
	// a document searchable beside its master (package indexer does under
	// its Skip policy).
	Edited  bool
	Pairs   []Pair // earlier documents it was verified to duplicate (see below)
	Simhash uint64 // its SimHash signature; 0 when the method computes none
	// ContainedIn is the id of a larger document this one is a part of
	// (a chapter of the book that holds it), kept apart by the part rule
	// (see Detector.ContainedIn); "" if none was found. Parts are the
	// earlier documents found to be parts of this one.
	ContainedIn string
	Parts       []string
}

// Errors returned by [Detector.Add].
var (
	ErrEmptyID     = errors.New("dedup: empty document id")
	ErrDuplicateID = errors.New("dedup: document id already added")
)

// Stats counts what a Detector holds and has done. Read it with
// [Detector.Stats]. Documents, Clusters, Duplicates, Unsignable and Pairs
// describe what is stored now (removals take away what they added); the
// other counters only grow.
type Stats struct {
	Documents   int // documents stored
	Clusters    int // clusters
	Duplicates  int // documents that are not their cluster's master (Documents − Clusters)
	Unsignable  int // documents without a usable signature
	Pairs       int // near-duplicate pairs among the documents stored (for StarAssignments)
	Candidates  int // candidate pairs looked at
	Refreshes   int // statistics refreshes
	Reclusters  int // Recluster calls
	NewMasters  int // times a document took over as master (Insert; Update of a member)
	MasterTests int // similarity tests against masters that were not candidates

	// Removal and replacement (Remove, Update).
	Removed   int // documents removed
	Replaced  int // stored documents given a new version
	Unchanged int // new versions with the same content (Fingerprint.Content): attributes updated only
	Left      int // new versions that left their cluster and were inserted as new documents
	Elections int // masters elected because the master left its cluster
	Moved     int // members inserted again because the master elected is not a copy of theirs

	// The fan-out limits at work (Options.MaxFanout): all zero while no
	// limit is reached, as on the shared evaluation corpus.
	Capped    int // postings not stored: the signature already lists MaxFanout documents of the cluster
	StopKeys  int // signatures (I-Match, bands, super shingles, fingerprints) dropped as shared by too many clusters
	Skipped   int // candidates not verified: beyond MaxFanout members of one cluster
	DenseKeys int // SimHash fingerprints kept out of the Hamming index: more than 4·MaxFanout others within HammingK
}

// record is what the Detector keeps of a document: its signatures, not
// its text.
type record struct {
	member memberRef
	set    []uint64 // sorted verification set (shingles or cosine words)
	sigs   []imatch.Signature
	// more: the signatures only some methods keep; nil under exact
	// verification (the default hybrid) once the document is listed.
	more    *recordMore
	whole   uint64          // hash of the whole sketch, when banded: exact copies share it
	fp      simhash.Simhash // for candidates (the Hamming index) and the SimHash method
	change  simhash.Simhash // Fingerprint.Simhash and Result.Simhash: fp, or, without statistics, the stop words kept (signTerms)
	content uint64          // Fingerprint.Content
	// spilled: set is in the Detector's set file (Options.SetsDir) under
	// slot, not in memory.
	slot       uint32
	spilled    bool
	banded     bool // the document has band keys
	extracted  bool // Document.Extracted: pairs with it are verified by containment too
	unsignable bool
	edited     bool // joined its cluster through the edit allowance
}

// A memberRef is a record's cluster.Member in 24 bytes instead of 72:
// the id, and the whole member only when it has more than an id (a URL,
// a time, a quality or a preference) — a million documents of ids alone
// keep 48 MB less.
type memberRef struct {
	ID   string
	more *cluster.Member // nil: the member is its id alone
}

// refOf returns the memberRef of m.
func refOf(m cluster.Member) memberRef {
	if m == (cluster.Member{ID: m.ID}) {
		return memberRef{ID: m.ID}
	}
	return memberRef{ID: m.ID, more: &m}
}

// full returns the member.
func (m memberRef) full() cluster.Member {
	if m.more != nil {
		return *m.more
	}
	return cluster.Member{ID: m.ID}
}

// recordMore is what a record keeps of its MinHash signatures.
type recordMore struct {
	sketch minhash.Sketch // nil once signed when verification is exact (Hybrid, Exact)
	// bands: the LSH band keys, from signing until the document is
	// listed; then nil, and bandsOf computes them again from the set or
	// sketch (128 bytes a document less).
	bands  []uint64
	supers []uint64
	// seq: an extracted document's shingles in text order (see
	// replacedRun), kept while the document is; nil for others.
	seq []uint64
}

// sketch returns rec's MinHash sketch, if it keeps one.
func (rec *record) sketch() minhash.Sketch {
	if rec.more == nil {
		return nil
	}
	return rec.more.sketch
}

// bands returns rec's band keys while it keeps them (until it is
// listed); bandsOf gives them always.
func (rec *record) bands() []uint64 {
	if rec.more == nil {
		return nil
	}
	return rec.more.bands
}

// supers returns rec's super shingles (DSCSS).
func (rec *record) supers() []uint64 {
	if rec.more == nil {
		return nil
	}
	return rec.more.supers
}

// A Prepared document has been signed and awaits [Detector.Insert] or
// [Detector.Update].
type Prepared struct {
	doc        Document
	rec        *record
	generation int
	pre        *preVerified // what AddSeq found ahead of Insert; nil if nothing
}

// ID returns the prepared document's id.
func (p *Prepared) ID() string { return p.doc.ID }

// Fingerprint returns what identifies the prepared document's content, to
// compare with the stored version's ([Detector.Fingerprint]) before
// deciding to Update. Its Simhash depends on the statistics the Detector
// had when it was prepared (see [Detector.Refresh]).
func (p *Prepared) Fingerprint() Fingerprint {
	return Fingerprint{Content: p.rec.content, Simhash: uint64(p.rec.change)}
}

// A Detector assigns documents to near-duplicate clusters.
//
// Add (or Prepare then Insert) documents in arrival order; each is compared
// with the documents added before it. Remove takes a document out, and
// Replace (or Prepare then Update) gives a stored document a new version,
// keeping its cluster when the change is trivial. A Detector is safe for
// concurrent use: Prepare, which does the signing, runs concurrently;
// Insert, Remove, Update and Refresh are serialized.
//
// Memory: the signatures of every document stored (not its text, nor its
// LSH band keys, computed again from its set when it is removed), in the
// candidate lists too; a removed document, or the old place of one that
// left its cluster on Update, keeps about 40 bytes of bookkeeping (its
// place in the arrival order is never reused). The candidate lists and
// the cluster numbers are kept behind the interfaces of package
// signatures (Store, Clusters), in memory.
type Detector struct {
	opts Options

	mu         sync.RWMutex
	generation int // incremented by Refresh
	ext        *features.Extractor
	table      *stats.Table
	imatch     *imatch.Signer
	simhash    *simhash.Signer
	minhash    *minhash.Hasher

	// Documents by slot, in arrival order; a removed document leaves a nil
	// slot, never reused (arrival order is slot order).
	docs     []*record
	byID     map[string]uint32
	clusters *clusterTable
	adj      [][]int32 // verified near-duplicates of each document, for Star
	stamp    []uint32  // candidate dedup: stamp[i] == gen when doc i was seen
	gen      uint32
	stats    Stats

	// Candidate sources: bounded posting lists (Options.MaxFanout) whose
	// entries carry the document's cluster number, under keys of every
	// kind: SimHash fingerprints, I-Match signatures (lexicons of them),
	// LSH band hashes, whole-sketch hashes, super shingles.
	limits   signatures.Limits
	lists    signatures.Store
	lexicons int                                      // I-Match lexicons listed (kinds IMatch…IMatch+lexicons−1)
	hamming  *hamming.Index                           // each distinct fingerprint once, under its first document
	assigned signatures.Clusters                      // cluster number of each document, master of each cluster
	matches  []hamming.Match                          // reused query buffer
	groupOf  []int32                                  // per cluster number: its group of candidates in this Insert,
	groupGen []uint32                                 // if groupGen == gen
	seenGen  []uint32                                 // per cluster number: seen among the SimHash neighbours if == gen
	candBuf  []candidate                              // reused by candidates
	groupBuf []candidateGroup                         // reused by byCluster
	flatBuf  []uint32                                 // reused by byCluster
	keyBuf   []signatures.Key                         // reused by candidates
	scan     candidateScan                            // state of the candidates' Lookup
	collect  func(signatures.Key, []signatures.Entry) // d.scan.collect, bound once

	// noTakeover: no document takes a cluster over on joining it
	// (Recluster inserts star masters first).
	noTakeover bool
	// prefer: the master each document joins, by id (Recluster), when
	// it resembles it at least EditFloor, unless it resembles it less
	// than Threshold and another master at least Threshold (verify).
	prefer map[string]string
	// sets holds the verification sets on disk (Options.SetsDir,
	// SetsFile, or a temporary file once those kept in memory passed
	// Options.SetsMemory); nil: in the records.
	sets *setFile
	// setsKept is the bytes of verification sets kept in the records
	// (counted as they are kept, until they move to a temporary file).
	setsKept int64
	// tempSets: sets is the temporary file of Options.SetsMemory.
	tempSets bool
	// setsFail is why the sets could not move to a temporary file: they
	// stay in memory and every Insert reports it.
	setsFail error
	// parts: for a document a part of a larger one (ContainedIn), the
	// larger one's id and the share of the part's shingles it holds;
	// partBuf: the parts the last verify found.
	parts   map[string]container
	partBuf []part
	// remote: the Shared the Detector keeps its state in (NewShared),
	// and what it read of it for the insert under way; nil: in memory.
	remote *remote

	// Verification ahead of Insert (see preVerified): epoch moves on
	// with every change but an Insert; dirty stamps, by key hash, the
	// documents stored when a list last changed (nil until AddSeq makes
	// room for it); cur is the preVerified of the Insert under way;
	// serialVerify turns it off (the serial reference of benchmarks).
	epoch        uint64
	dirty        []uint32
	cur          *preVerified
	pre          preStats
	serialVerify bool
	// touched keeps what the Store's Touch returned (see toucher).
	touched uint64
	// hubs: the counts of the document being inserted against the long
	// sets' bases (see hubSets).
	hubs hubMemo
}

// A toucher is a Store that reads where keys are looked for all at once
// (signatures.Memory): the posting lists of a million documents are a
// table of hundreds of MB read at random, and index and preverify touch
// a document's keys before adding or reading them one by one.
type toucher interface {
	Touch(keys []signatures.Key) uint64
}

// clusterRef is what Insert needs of a cluster: the 64 bits of its id
// (which order clusters as their ids do) and its master.
type clusterRef struct {
	hash   uint64
	master uint32
}

// ref returns the id bits and master of cluster number g.
func (d *Detector) ref(g uint32) clusterRef {
	if d.remote != nil {
		return d.remote.ref(g)
	}
	return clusterRef{hash: d.clusters.hash[g], master: d.assigned.Master(g)}
}

// doc returns the record of document idx: in d.docs, or, on a Shared,
// as read for the insert under way.
func (d *Detector) doc(idx uint32) *record {
	if d.remote != nil {
		return d.remote.doc(idx)
	}
	return d.docs[idx]
}

// members returns the members of cluster number g in order of joining.
func (d *Detector) members(g uint32) []uint32 {
	if d.remote != nil {
		return d.remote.members(g)
	}
	return d.clusters.members(g)
}

// New returns a Detector that signs with the frozen statistics table
// (which may be nil or empty: I-Match then signs nothing, so with the
// I-Match methods every document is unsignable, and SimHash weights by term
// frequency alone).
func New(table *stats.Table, opts Options) (*Detector, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	o := *opts.EnsureDefaults()
	ext, err := features.New(o.Terms)
	if err != nil {
		return nil, err
	}
	d := &Detector{
		opts:   o,
		ext:    ext,
		byID:   map[string]uint32{},
		parts:  map[string]container{},
		limits: o.fanoutLimits(),
	}
	d.clusters = newClusterTable(d)
	d.lists = signatures.NewMemory(d.limits)
	d.assigned = &signatures.MemoryClusters{}
	d.collect = d.scan.collect
	if d.minhash, err = minhash.New(o.MinHash); err != nil {
		return nil, fmt.Errorf("dedup: %w", err)
	}
	if d.uses(SimHash) {
		if d.hamming, err = hamming.New(hamming.Options{MaxDistance: o.HammingK}); err != nil {
			return nil, fmt.Errorf("dedup: %w", err)
		}
	}
	if err := d.setTable(table); err != nil {
		return nil, err
	}
	if o.Method == Hybrid && o.Verify == Exact {
		switch {
		case o.SetsDir != "":
			d.sets, err = newSetFile(o.SetsDir)
		case o.SetsFile != "":
			d.sets, err = openSetFile(o.SetsFile, setsCheck{summed: true}, nil, nil)
		}
		if err != nil {
			return nil, err
		}
	}
	return d, nil
}

// uses reports whether the configured method needs the signature of m.
func (d *Detector) uses(m Method) bool {
	return d.opts.Method == m || d.opts.Method == Hybrid && (m == MinHash || !d.opts.LSHOnly && (m == SimHash || m == IMatchMulti))
}

func (d *Detector) setTable(t *stats.Table) error {
	var err error
	if d.uses(IMatch) || d.uses(IMatchMulti) {
		switch d.imatch, err = imatch.NewSigner(t, d.opts.IMatch); {
		case errors.Is(err, imatch.ErrNoStats):
			d.imatch = nil // no statistics: I-Match can sign nothing
		case err != nil:
			return fmt.Errorf("dedup: %w", err)
		}
		d.lists.Reset(d.imatchKinds()...) // signatures of the old table, if any
		d.lexicons = d.opts.IMatch.ExtraLexicons + 1
	}
	if d.uses(SimHash) {
		if d.simhash, err = simhash.NewSigner(t, d.opts.SimHash); err != nil {
			return fmt.Errorf("dedup: %w", err)
		}
	}
	d.table = t
	return nil
}

// Options returns the options in effect, defaults filled in.
func (d *Detector) Options() Options { return d.opts }

// Add signs doc and inserts it: Insert(Prepare(doc)).
func (d *Detector) Add(doc Document) (Result, error) {
	p, err := d.Prepare(doc)
	if err != nil {
		return Result{}, err
	}
	return d.Insert(p)
}

// Prepare computes doc's signatures without changing the Detector. It is
// safe to call from many goroutines at once; it is where the time goes.
// Cost: O(len(doc.Text) + shingles·sketch size).
func (d *Detector) Prepare(doc Document) (*Prepared, error) {
	if doc.ID == "" {
		return nil, ErrEmptyID
	}
	if d.remote != nil { // its signers never change
		return d.prepareWith(doc, d.remote.signers), nil
	}
	d.mu.RLock()
	s := d.signersNow()
	d.mu.RUnlock()
	return d.prepareWith(doc, s), nil
}

// signers are the table-dependent signers of one generation of
// statistics. Signers are immutable: a Refresh makes new ones.
type signers struct {
	generation int
	imatch     *imatch.Signer
	simhash    *simhash.Signer
	// stopless: the hybrid without a statistics table (a crawl's
	// detector): SimHash weighs terms by frequency alone, and its
	// candidates leave out stop words, which would outweigh the rest (see
	// signTerms).
	stopless bool
}

// signersNow returns the signers in use; the caller holds d.mu (read or
// write).
func (d *Detector) signersNow() signers {
	return signers{generation: d.generation, imatch: d.imatch, simhash: d.simhash, stopless: d.opts.Method == Hybrid && d.table.Docs() < 2}
}

// prepare signs doc; the caller holds d.mu (read or write).
func (d *Detector) prepare(doc Document) *Prepared { return d.prepareWith(doc, d.signersNow()) }

// prepareWith signs doc with the signers of s, without d.mu: what it
// reads of d besides s never changes after New.
func (d *Detector) prepareWith(doc Document, s signers) *Prepared {
	// Filters (stop words, stemming, numbers, dates) apply to everything
	// compared; with the default options tokens pass unchanged. The slice
	// of tokens is reused (none is kept).
	buf := tokenBufs.Get().(*[]string)
	all := features.AppendTokens((*buf)[:0], doc.Text)
	defer func() {
		if clear(all); cap(all) <= maxPooled {
			*buf = all[:0]
			tokenBufs.Put(buf)
		}
	}()
	tokens := d.ext.FilterTokens(all)
	rec := &record{member: refOf(cluster.Member{ID: doc.ID, URL: doc.URL, Time: doc.Time, Quality: doc.Quality, Preference: doc.Preference}), extracted: doc.Extracted}
	rec.content = contentHash(tokens, d.ext.FilterTokens(features.Tokens(doc.Tagged)), doc.Meta)
	if len(tokens) == 0 {
		rec.unsignable = true
		return &Prepared{doc: doc, rec: rec, generation: s.generation}
	}
	o := d.opts
	if d.uses(MinHash) || d.uses(DSCSS) || o.Method == Hybrid {
		var set []uint64
		if o.Similarity == Cosine {
			set = features.CosineWords(tokens)
		} else {
			set = d.shingleSet(tokens)
		}
		more := &recordMore{}
		if o.Method == Hybrid && o.Verify == Exact {
			// The sketch only gives band keys to find candidates, which
			// are then verified exactly: about one hash a shingle. It is
			// not kept (below), so its memory is reused.
			sk := sketchBufs.Get().(*minhash.Sketch)
			if len(*sk) != d.minhash.Size() {
				*sk = make(minhash.Sketch, d.minhash.Size())
			}
			more.sketch = d.minhash.FastTo(*sk, set)
			defer sketchBufs.Put(sk)
		} else {
			more.sketch = d.minhash.Sketch(set)
		}
		switch {
		case o.Method == DSCSS:
			more.supers = minhash.SuperShingles(more.sketch, 6)
		default:
			more.bands = minhash.Bands(more.sketch, o.Bands, o.Rows)
			if rec.banded = more.bands != nil; rec.banded {
				rec.whole = minhash.Bands(more.sketch, 1, len(more.sketch))[0]
			}
		}
		more.seq = d.order(doc, tokens)
		if o.Method == Hybrid && o.Verify == Exact {
			// Verification reads the set; the sketch has given its band
			// keys and is not kept (128 values: 1 KiB a document).
			rec.set, more.sketch = set, nil
		}
		rec.more = more
	}
	if s.imatch != nil || s.simhash != nil {
		s.signTerms(d.ext, rec, doc, d.ext.Features(tokens))
	}
	if (o.Method == IMatch || o.Method == IMatchMulti) && rec.sigs == nil {
		rec.unsignable = true
	}
	return &Prepared{doc: doc, rec: rec, generation: s.generation}
}

// tokenBufs and sketchBufs are the token slices and the MinHash sketches
// (under exact verification, which keeps none) of prepareWith, reused.
var (
	tokenBufs  = sync.Pool{New: func() any { return new([]string) }}
	sketchBufs = sync.Pool{New: func() any { return new(minhash.Sketch) }}
)

// shingleSet returns the sorted set of tokens' shingles, without the
// common ones when Options.MaxShingleDocs is set (unless that would leave
// nothing).
func (d *Detector) shingleSet(tokens []string) []uint64 {
	set := features.Set(features.Shingles(tokens, d.opts.ShingleWidth))
	if d.opts.MaxShingleDocs > 0 {
		if kept := minhash.DropCommon(slices.Clone(set), d.opts.CommonShingles, d.opts.MaxShingleDocs); len(kept) > 0 {
			return kept
		}
	}
	return set
}

// signTerms computes the table-dependent signatures (I-Match, SimHash) of
// rec from doc's features.
func (s signers) signTerms(ext *features.Extractor, rec *record, doc Document, feats []string) {
	rec.sigs = nil
	if s.imatch != nil {
		if sigs, err := s.imatch.Sign(feats); err == nil {
			rec.sigs = sigs
		}
	}
	if s.simhash != nil {
		var tagged []string
		if doc.Tagged != "" {
			tagged = ext.Features(ext.Terms(doc.Tagged))
		}
		rec.fp = s.simhash.Sign(simhash.Doc{Terms: feats, Tagged: tagged, Meta: doc.Meta})
		rec.change = rec.fp
		if s.stopless {
			// Without document frequencies the words of every page (the,
			// of, to) weigh most, and the fingerprints of unrelated pages
			// crowd together as a crawl grows: on 300k pages of one
			// site's text, 5 SimHash candidates a page by the end instead
			// of 0.1 (BenchmarkDetectorScale). The candidates' fingerprint
			// leaves them out; the one that tells a new version's small
			// edits (Fingerprint.Compare) keeps them, as those heavy
			// words are what keeps it steady.
			terms := slices.DeleteFunc(slices.Clone(feats), features.IsStopWord)
			rec.fp = s.simhash.Sign(simhash.Doc{Terms: terms, Tagged: tagged, Meta: doc.Meta})
		}
	}
}

// Insert adds a prepared document: finds its near-duplicates among the
// documents added before, puts it in a cluster and indexes it. Documents
// must have distinct ids (a removed id may be inserted again).
//
// Candidates — earlier documents sharing a signature — are verified
// cluster by cluster: the master first, which alone decides whether the
// document may join that cluster, then the cluster's candidate members, at
// most Options.MaxFanout of them, for Result.Pairs. Cost: O(candidates +
// verifications), and the fan-out limits bound both by a constant per
// document (about 30 signatures × 4·MaxFanout candidates), however many
// documents are stored and however many copies of one page they hold.
func (d *Detector) Insert(p *Prepared) (Result, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if p.generation != d.generation { // statistics were refreshed since Prepare
		p = d.prepare(p.doc)
	}
	if d.remote != nil {
		return d.remote.insert(p.rec, nil)
	}
	if _, dup := d.byID[p.rec.member.ID]; dup {
		return Result{}, fmt.Errorf("%w: %q", ErrDuplicateID, p.rec.member.ID)
	}
	d.cur = d.taken(p)
	res := d.insert(p.rec)
	d.cur, p.pre = nil, nil
	d.count()
	return res, d.setsErr()
}

// spill drops the band keys of the document in slot idx, now listed
// (bandsOf computes them again), and moves its verification set to the
// set file, if there is one; otherwise it counts the set kept in memory
// and, past Options.SetsMemory, moves every set to a temporary file.
// rec must be d.docs[idx].
func (d *Detector) spill(idx uint32, rec *record) {
	if m := rec.more; m != nil {
		if m.bands = nil; m.sketch == nil && m.supers == nil && m.seq == nil {
			rec.more = nil
		}
	}
	if rec.set == nil {
		return
	}
	if d.sets == nil {
		if d.setsKept += 8 * int64(len(rec.set)); d.setsKept > d.opts.SetsMemory && d.opts.SetsMemory > 0 {
			d.setsToDisk()
		}
		return
	}
	d.sets.put(idx, rec.set)
	rec.set, rec.slot, rec.spilled = nil, idx, true
}

// setsToDisk moves every verification set kept in the records to a new
// unlinked file in os.TempDir(), where later ones go too (see
// Options.SetsMemory). If the file cannot be made, the sets stay in
// memory and setsErr reports why.
func (d *Detector) setsToDisk() {
	if d.remote != nil || d.setsFail != nil {
		return
	}
	sets, err := newSetFile(os.TempDir())
	if err != nil {
		d.setsFail = fmt.Errorf("%w (the sets stay in memory: set TMPDIR, Options.SetsDir or --sets-dir)", err)
		return
	}
	d.sets, d.tempSets, d.setsKept = sets, true, 0
	for i, rec := range d.docs {
		if rec != nil && rec.set != nil {
			d.sets.put(uint32(i), rec.set)
			rec.set, rec.slot, rec.spilled = nil, uint32(i), true
		}
	}
}

// bandsOf returns rec's LSH band keys: those signing gave while it has
// them, else computed again from its sketch or, under exact verification
// (which keeps no sketch), from its set as signing did (the set file is
// read into buffer 0). Nil for a document without band keys. Cost: one
// sketch of the set, and a read, once the document is listed.
func (d *Detector) bandsOf(rec *record) []uint64 {
	switch {
	case !rec.banded:
		return nil
	case rec.bands() != nil:
		return rec.bands()
	case rec.sketch() != nil:
		return minhash.Bands(rec.sketch(), d.opts.Bands, d.opts.Rows)
	}
	return minhash.Bands(d.minhash.Fast(d.setOf(rec, 0)), d.opts.Bands, d.opts.Rows)
}

// setOf returns rec's verification set, from memory or the set file
// (into buffer i: 0 or 1).
func (d *Detector) setOf(rec *record, i int) []uint64 {
	if rec.spilled {
		return d.sets.get(rec.slot, i)
	}
	return rec.set
}

// setLen returns the size of rec's verification set without reading it.
func (d *Detector) setLen(rec *record) int {
	if rec.spilled {
		return d.sets.size(rec.slot)
	}
	return len(rec.set)
}

// setsErr returns the set file's first error, if any.
func (d *Detector) setsErr() error {
	if d.sets == nil {
		return d.setsFail
	}
	return d.sets.err
}

// insert gives rec a new slot, the last in arrival order, and a cluster.
func (d *Detector) insert(rec *record) Result {
	idx := uint32(len(d.docs))
	d.docs = append(d.docs, rec)
	d.stamp = append(d.stamp, 0)
	d.adj = append(d.adj, nil)
	d.byID[rec.member.ID] = idx
	d.stats.Documents++
	if rec.unsignable {
		d.stats.Unsignable++
	}
	res := d.assign(idx, rec, true)
	d.spill(idx, rec)
	return res
}

// count brings the counters of what is stored up to date.
func (d *Detector) count() {
	d.stats.Clusters = d.clusters.Len()
	d.stats.Duplicates = d.stats.Documents - d.stats.Clusters
}

// verified is a candidate verified to be a near-duplicate, with its score.
type verified struct {
	doc   uint32
	score float64
}

// assign puts document idx (rec), which is in no cluster and no candidate
// list, into the cluster whose master it resembles most, or a cluster of
// its own, and lists it as a candidate. With pairs it also verifies
// candidate members and records the pairs (Result.Pairs, and the
// adjacency StarAssignments reads); a document inserted again after its
// cluster split keeps the pairs it has.
func (d *Detector) assign(idx uint32, rec *record, pairs bool) Result {
	res := Result{ID: rec.member.ID, Simhash: uint64(rec.change)}
	if rec.unsignable {
		res.Unsignable = true
		res.Cluster = d.found(idx)
		res.Master = rec.member.ID
		return res
	}
	dec := d.decide(idx, rec, pairs)
	if dec.best >= 0 {
		g := uint32(dec.best)
		res.Duplicate = true
		res.Edited, res.NewMaster = dec.edited, dec.newMaster
		rec.edited = res.Edited
		res.Cluster = d.clusters.id(g)
		d.clusters.join(g, idx)
		d.assigned.Join(idx, g)
		if res.NewMaster {
			res.Demoted = d.docs[d.assigned.Master(g)].member.ID
			d.assigned.SetMaster(g, idx)
			d.stats.NewMasters++
		}
	} else {
		res.Cluster = d.found(idx)
	}
	res.Master = d.docs[d.assigned.Master(d.assigned.Of(idx))].member.ID
	res.ContainedIn, res.Parts = d.keepParts(rec.member.ID)
	if pairs {
		res.Pairs = d.link(idx, dec.found)
	}
	d.index(idx, rec, dec.dense)
	return res
}

// A decision is where a document goes, as decide finds it: the cluster
// it joins, and whether it takes it over, or a cluster of its own.
type decision struct {
	found     []verified // its near-duplicates (with pairs)
	best      int        // the number of the cluster it joins; -1: it founds one
	score     float64    // its similarity to best's master
	edited    bool       // it joins best through the edit allowance
	newMaster bool       // it becomes best's master
	dense     bool       // its fingerprint has a dense neighbourhood (see candidates)
}

// decide finds where document idx (rec), in no cluster and no candidate
// list, goes: into the cluster whose master it resembles most (verify),
// taking it over if the policy prefers it (mayLead), or into a cluster of
// its own. It changes no cluster nor list: what it reads is the
// Detector's, or, on a Shared, what was read for the insert. With pairs
// it verifies candidate members too (decision.found).
func (d *Detector) decide(idx uint32, rec *record, pairs bool) decision {
	found, best, score, dense := d.verify(idx, rec, pairs)
	dec := decision{found: found, best: best, score: score, dense: dense}
	if best >= 0 {
		dec.edited = d.opts.EditAllowance > 0 && score < d.opts.Threshold
		// mayLead is false unless the policy prefers rec to the master.
		dec.newMaster = !d.noTakeover && d.mayLead(rec, score, uint32(best))
	}
	return dec
}

// verify finds the candidates of rec (document idx) and verifies them
// cluster by cluster: the master, which alone decides whether rec may join
// the cluster, then, with members, at most MaxFanout candidate members. It
// returns the near-duplicates found, the number of the cluster whose
// master rec resembles most (ties to the smaller cluster id; -1 if none)
// with the score, and whether rec's fingerprint has a dense neighbourhood.
func (d *Detector) verify(idx uint32, rec *record, members bool) (found []verified, best int, bestScore float64, dense bool) {
	cands, dense := d.candidates(idx, rec)
	d.stats.Candidates += len(cands)
	d.partBuf = d.partBuf[:0]
	best, bestScore = -1, -1.0
	var bestHash uint64
	// A rejected master's score matters only to Recluster's preference
	// (at least EditFloor), a rejected member's not at all: see matchAbove.
	floor, masterFloor := d.acceptFloor(), d.acceptFloor()
	if d.prefer != nil {
		masterFloor = min(masterFloor, d.opts.EditFloor)
	}
	for _, g := range d.byCluster(cands) {
		ref := d.ref(g.cluster)
		if ref.master != idx { // idx is the master of its own cluster on Update
			if _, isCandidate := slices.BinarySearch(g.members, ref.master); !isCandidate {
				d.stats.MasterTests++
			}
			master := d.doc(ref.master)
			s, ok := d.verifyPair(rec, ref.master, master, masterFloor)
			if ok {
				found = append(found, verified{ref.master, s})
				if s > bestScore || s == bestScore && ref.hash < bestHash {
					best, bestScore, bestHash = int(g.cluster), s, ref.hash
				}
			} else {
				d.notePart(idx, rec, ref.master, master)
			}
		}
		if !members {
			continue
		}
		n := 0
		for i, m := range g.members {
			if m == ref.master {
				continue
			}
			if d.limits.PerGroup > 0 && n == d.limits.PerGroup {
				rest := g.members[i:]
				d.stats.Skipped += len(rest)
				if _, masterAmong := slices.BinarySearch(rest, ref.master); masterAmong {
					d.stats.Skipped--
				}
				break
			}
			n++
			if s, ok := d.verifyPair(rec, m, d.doc(m), floor); ok {
				found = append(found, verified{m, s})
			} else {
				d.notePart(idx, rec, m, d.doc(m))
			}
		}
	}
	if d.prefer != nil {
		found, best, bestScore = d.joinStar(rec, found, best, bestScore, masterFloor)
	}
	return found, best, bestScore, dense
}

// joinStar is verify's last step when Recluster inserts rec again: rec
// goes to the cluster of its star master (Recluster's prefer) if it
// resembles it at least EditFloor and keepsStar agrees, rather than to
// best (bestScore), the cluster whose master it resembles most among its
// candidates' clusters. The star master is verified whether or not it is
// one of rec's candidates: those are the documents inserted before rec
// that share a key with it, so with a star master that shares none —
// `_mm_maskz_fnmadd_round_ss` under x86_64/ and `_mm_maskz_fmadd_round_ss`
// under x86/, at 0.80 — whether rec saw it (through another member)
// depended on the order, and so did its cluster. floor is the master's
// floor (see verify); a near-duplicate found is added to found.
func (d *Detector) joinStar(rec *record, found []verified, best int, bestScore, floor float64) ([]verified, int, float64) {
	m, ok := d.byID[d.prefer[rec.member.ID]]
	if !ok || d.assigned.Master(d.assigned.Of(m)) != m {
		return found, best, bestScore
	}
	var s float64
	if i := slices.IndexFunc(found, func(v verified) bool { return v.doc == m }); i >= 0 {
		s = found[i].score
	} else if score, near := d.verifyPair(rec, m, d.docs[m], floor); near {
		s, found = score, append(found, verified{m, score})
	} else {
		s = score // as for a candidate cluster's master: at least EditFloor counts
	}
	if g := int(d.assigned.Of(m)); s >= d.opts.EditFloor && d.keepsStar(g, s, bestScore) {
		return found, g, s
	}
	return found, best, bestScore
}

// keepsStar reports whether a document joins Recluster's star master
// (the cluster preferred, -1 if none, which it resembles preferredScore)
// rather than the master it resembles most (bestScore): it does unless it
// is only an edited near-copy of the star's master and a copy (at the
// Threshold) of the other. `_mm_maskz_mul_round_sd` under x86/ joined the
// star of its sibling `_mm_maskz_add_round_sd` (0.85) away from its own
// copy under x86_64/ (0.90), and a result page showed both copies.
func (d *Detector) keepsStar(preferred int, preferredScore, bestScore float64) bool {
	return preferred >= 0 && (preferredScore >= d.opts.Threshold || bestScore < d.opts.Threshold)
}

// link records the near-duplicates found of document idx for
// StarAssignments and returns them as pairs in arrival order, each pair
// ordered by arrival.
func (d *Detector) link(idx uint32, found []verified) []Pair {
	pairs := d.pairsOf(idx, found)
	for _, v := range found {
		d.adj[idx] = append(d.adj[idx], int32(v.doc))
		d.adj[v.doc] = append(d.adj[v.doc], int32(idx))
	}
	d.stats.Pairs += len(pairs)
	return pairs
}

// pairsOf sorts the near-duplicates found of document idx in arrival
// order and returns them as pairs, each ordered by arrival.
func (d *Detector) pairsOf(idx uint32, found []verified) []Pair {
	slices.SortFunc(found, func(a, b verified) int { return cmp.Compare(a.doc, b.doc) })
	var pairs []Pair
	id := d.doc(idx).member.ID
	for _, v := range found {
		other := d.doc(v.doc).member.ID
		p := Pair{A: other, B: id, Score: v.score}
		if v.doc > idx {
			p.A, p.B = id, other
		}
		pairs = append(pairs, p)
	}
	return pairs
}

// mayLead reports whether rec, joining the cluster number g with
// similarity score to its master, may become the cluster's master if the master
// policy prefers it. Under the edit allowance it may only if it is a copy
// at the Threshold of the master and of every member that joined at the
// Threshold: an index leaves such members out as copies of the master
// (package indexer, policy Skip), and resemblance is not transitive — a
// copy of the old master need not be one of the new. A cluster of more
// than MaxFanout members keeps its master. Cost: O(cluster size)
// verifications when the policy prefers rec, none otherwise.
func (d *Detector) mayLead(rec *record, score float64, g uint32) bool {
	master := d.ref(g).master
	if !d.opts.Master.Better(rec.member.full(), d.doc(master).member.full()) {
		return false
	}
	if d.opts.EditAllowance == 0 {
		return true
	}
	members := d.members(g)
	if score < d.opts.Threshold || d.opts.MaxFanout > 0 && len(members) > d.opts.MaxFanout {
		return false
	}
	for _, m := range members {
		other := d.doc(m)
		if m == master || other.edited {
			continue
		}
		if s, ok := d.match(rec, other); !ok || s < d.opts.Threshold {
			return false
		}
	}
	return true
}

// found makes document idx the founder of a new cluster and returns its
// id.
func (d *Detector) found(idx uint32) cluster.ID {
	id := d.clusters.found(d.assigned.Found(idx), d.docs[idx].member.ID)
	d.groupOf = append(d.groupOf, 0)
	d.groupGen = append(d.groupGen, 0)
	d.seenGen = append(d.seenGen, 0)
	return id
}

// A candidateGroup is the candidates of one cluster.
type candidateGroup struct {
	cluster uint32
	size    int
	members []uint32 // in arrival order
}

// byCluster groups the candidates (in arrival order, from candidates) by
// cluster — the group their list entries carry, so the cluster
// assignment is not asked — clusters in order of their earliest
// candidate, members in arrival order. The result is valid until the next
// call. Cost: O(len(cands)); no allocation once the buffers have grown.
func (d *Detector) byCluster(cands []candidate) []candidateGroup {
	groups := d.groupBuf[:0]
	for _, c := range cands {
		cl := c.group()
		if d.groupGen[cl] != d.gen {
			d.groupGen[cl], d.groupOf[cl] = d.gen, int32(len(groups))
			groups = append(groups, candidateGroup{cluster: cl})
		}
		groups[d.groupOf[cl]].size++
	}
	d.flatBuf = fillGroups(groups, cands, d.flatBuf, func(cl uint32) int32 { return d.groupOf[cl] })
	d.groupBuf = groups
	return groups
}

// fillGroups lays the members of groups (their sizes counted) out in one
// array grown from flat, then fills them from cands in arrival order;
// index gives a cluster's group. It returns the array, to be kept for
// the next call.
func fillGroups(groups []candidateGroup, cands []candidate, flat []uint32, index func(uint32) int32) []uint32 {
	flat = slices.Grow(flat[:0], len(cands))[:len(cands)]
	off := 0
	for i := range groups {
		n := groups[i].size
		groups[i].members = flat[off : off : off+n]
		off += n
	}
	for _, c := range cands {
		g := &groups[index(c.group())]
		g.members = append(g.members, c.doc())
	}
	return flat
}

// A candidate is a document number and its cluster number, as a list
// entry gives them, in one integer that sorts in arrival order.
type candidate uint64

func (c candidate) doc() uint32   { return uint32(c >> 32) }
func (c candidate) group() uint32 { return uint32(c) }

// candidates returns the other documents that share a signature with
// rec, document self, as far as the posting lists hold them, without
// repeats, in arrival order, each with its cluster; and whether rec's
// fingerprint has a dense neighbourhood (more than 4·MaxFanout other
// fingerprints within HammingK). It reads every list in one Lookup: rec's fingerprint, its
// SimHash neighbours' nearest first, then its other keys.
func (d *Detector) candidates(self uint32, rec *record) (out []candidate, dense bool) {
	d.gen++
	d.stamp[self] = d.gen
	if pre, ok := d.preCandidates(); ok {
		return pre, false
	}
	keys := d.keyBuf[:0]
	near := 0
	if d.hamming != nil || d.remote != nil && d.uses(SimHash) {
		fp := uint64(rec.fp)
		var ms []hamming.Match
		ms, dense = d.neighbours(fp)
		keys = append(keys, signatures.Key{Kind: signatures.Fingerprint, Sum: fp})
		for _, m := range ms {
			keys = append(keys, signatures.Key{Kind: signatures.Fingerprint, Sum: m.Fingerprint})
		}
		near = len(ms)
	}
	keys = d.appendKeys(keys, rec)
	d.keyBuf = keys
	d.scan = candidateScan{d: d, near: near, out: d.candBuf[:0]}
	if d.remote != nil {
		d.remote.lookup(keys, d.collect)
	} else {
		d.lists.Lookup(keys, d.collect)
	}
	out = d.scan.out
	d.candBuf, d.scan.out = out, nil
	slices.Sort(out)
	return out, dense
}

// candidateScan is the state of one candidates call, in the Detector so
// that the Lookup callback (d.collect) is bound once.
type candidateScan struct {
	d        *Detector
	pos      int         // lists seen so far
	near     int         // lists 1…near are those of SimHash neighbours, nearest first
	clusters int         // clusters seen among the neighbours' lists
	out      []candidate // the candidates
}

// collect takes the documents of one list as candidates. Of the SimHash
// neighbours' lists it takes those of the nearest, until they have shown
// documents of 4·MaxFanout clusters.
func (s *candidateScan) collect(_ signatures.Key, list []signatures.Entry) {
	d := s.d
	i := s.pos
	s.pos++
	if i >= 1 && i <= s.near {
		if d.limits.MaxLen > 0 && s.clusters >= d.limits.MaxLen {
			return
		}
		for _, e := range list {
			if d.seenGen[e.Group] != d.gen {
				d.seenGen[e.Group] = d.gen
				s.clusters++
			}
		}
	}
	stamp, gen, out := d.stamp, d.gen, s.out
	for _, e := range list {
		if stamp[e.ID] != gen {
			stamp[e.ID] = gen
			out = append(out, candidate(e.ID)<<32|candidate(e.Group))
		}
	}
	s.out = out
}

// appendKeys appends the keys of rec other than its fingerprint to keys:
// its I-Match signatures, band hashes and whole-sketch hash, super
// shingles, in that order.
func (d *Detector) appendKeys(keys []signatures.Key, rec *record) []signatures.Key {
	for i, sig := range rec.sigs {
		if i < d.lexicons && !sig.IsZero() {
			keys = append(keys, signatures.IMatchKey(i, sig))
		}
	}
	if rec.banded {
		for _, b := range d.bandsOf(rec) {
			keys = append(keys, signatures.Key{Kind: signatures.Band, Sum: b})
		}
		keys = append(keys, signatures.Key{Kind: signatures.Sketch, Sum: rec.whole})
	}
	for _, sh := range rec.supers() {
		keys = append(keys, signatures.Key{Kind: signatures.Super, Sum: sh})
	}
	return keys
}

// imatchKinds returns the key kinds of the I-Match lexicons listed.
func (d *Detector) imatchKinds() []signatures.Kind {
	kinds := make([]signatures.Kind, d.lexicons)
	for i := range kinds {
		kinds[i] = signatures.IMatch + signatures.Kind(i)
	}
	return kinds
}

// kinds returns every kind of key the Detector lists.
func (d *Detector) kinds() []signatures.Kind {
	return append([]signatures.Kind{signatures.Fingerprint, signatures.Band, signatures.Sketch, signatures.Super}, d.imatchKinds()...)
}

// neighbours returns the indexed fingerprints other than fp within
// HammingK of it, nearest first, and whether there are more than
// 4·MaxFanout of them (a dense neighbourhood). The result is valid until
// the next call. Cost: one Hamming query.
func (d *Detector) neighbours(fp uint64) (near []hamming.Match, dense bool) {
	if d.remote != nil {
		d.matches = d.remote.appendQuery(d.matches[:0], fp, d.opts.HammingK)
	} else {
		d.matches = d.hamming.AppendQuery(d.matches[:0], fp, d.opts.HammingK)
	}
	near = slices.DeleteFunc(d.matches, func(m hamming.Match) bool { return m.Fingerprint == fp })
	return near, d.limits.MaxLen > 0 && len(near) > d.limits.MaxLen
}

// match decides whether a and b are near duplicates under the configured
// method, and with what score: the exact score of a pair it accepts, and
// of a rejected pair that scores at least the lower of Threshold and
// EditFloor (what callers compare a rejected pair's score with); below
// that, a score still below it (see matchAbove).
func (d *Detector) match(a, b *record) (float64, bool) {
	return d.matchAbove(a, b, min(d.opts.Threshold, d.opts.EditFloor))
}

// matchAbove is match, where a rejected pair's score need only be exact
// when it is at least floor: below, it is some score below floor, and
// exact verification (Hybrid, resemblance) stops as soon as the pair can
// no longer reach floor, or does not read b's set at all when the sizes
// alone rule it out. floor must be at most the lowest score match accepts
// by (acceptFloor).
func (d *Detector) matchAbove(a, b *record, floor float64) (float64, bool) {
	switch d.opts.Method {
	case SimHash:
		dist := a.fp.Distance(b.fp)
		return 1 - float64(dist)/64, dist <= d.opts.HammingK
	case IMatch:
		ok := len(a.sigs) > 0 && len(b.sigs) > 0 && a.sigs[0] == b.sigs[0] && !a.sigs[0].IsZero()
		return 1, ok
	case IMatchMulti:
		return matchLexicons(a, b)
	case MinHash:
		s := a.sketch().Jaccard(b.sketch())
		return s, s >= d.opts.Threshold
	case DSCSS:
		n := minhash.SharedSuperShingles(a.supers(), b.supers())
		return float64(n) / 6, n >= 2
	}
	return d.matchHybrid(a, b, floor, d)
}

// A setSource gives the verification sets of records: the Detector
// itself (setOf, which keeps its set cache up to date, under the write
// lock) or a preReader (read-only, under the read lock).
type setSource interface {
	set(rec *record, i int) []uint64
	// hubMemo returns the source's memo of a document's counts against
	// the long sets' bases (see hubSets).
	hubMemo() *hubMemo
}

// set is setOf, for matching under the write lock.
func (d *Detector) set(rec *record, i int) []uint64 { return d.setOf(rec, i) }

// hubMemo returns the memo of matching under the write lock.
func (d *Detector) hubMemo() *hubMemo { return &d.hubs }

// acceptFloor is the lowest resemblance at which matchShingles accepts a
// pair that is not twins: Threshold, or EditFloor under the edit
// allowance when it is lower.
func (d *Detector) acceptFloor() float64 {
	if d.opts.EditAllowance > 0 {
		return min(d.opts.Threshold, d.opts.EditFloor)
	}
	return d.opts.Threshold
}

// matchLexicons is match for IMatchMulti: the share of lexicons whose
// signatures agree, a match if any does.
func matchLexicons(a, b *record) (float64, bool) {
	n := 0
	for i := range min(len(a.sigs), len(b.sigs)) {
		if a.sigs[i] == b.sigs[i] && !a.sigs[i].IsZero() {
			n++
		}
	}
	return float64(n) / float64(max(len(a.sigs), 1)), n > 0
}

// matchHybrid is match for Hybrid: the similarity the options verify by
// (floor: see matchAbove).
func (d *Detector) matchHybrid(a, b *record, floor float64, src setSource) (float64, bool) {
	o := &d.opts
	var s float64
	switch {
	case o.Verify == Estimate && o.Similarity == Cosine:
		j := a.sketch().Jaccard(b.sketch())
		s = 2 * j / (1 + j) // the cosine of two equal-sized sets with that Jaccard
	case o.Verify == Estimate:
		s = a.sketch().Jaccard(b.sketch())
	case o.Similarity == Cosine:
		s = cosineOf(src.set(a, 0), src.set(b, 1))
	default:
		return d.matchShingles(a, b, floor, src)
	}
	return s, s >= o.Threshold
}

// cosineOf returns the cosine similarity of two sets of cosine words: 1
// for equal sets too small for cosine, 0 for other small ones.
func cosineOf(a, b []uint64) float64 {
	switch {
	case len(a) >= features.MinCosineWords && len(b) >= features.MinCosineWords:
		return features.Cosine(a, b)
	case len(a) > 0 && slices.Equal(a, b):
		return 1 // too few words for cosine, but the same words: exact duplicates
	}
	return 0
}

// matchShingles is matchHybrid on the exact Jaccard similarity of the
// shingle sets of a and b, with the edit allowance, and, when one of the
// two is an extracted document (twins), with containment: see twinScore.
// Below floor (see matchAbove) it stops counting the shared shingles,
// and, when the sizes of the sets rule the pair out, does not read them.
// Twins are always counted to the end.
func (d *Detector) matchShingles(a, b *record, floor float64, src setSource) (float64, bool) {
	twins := a.extracted || b.extracted
	na, nb := d.setLen(a), d.setLen(b)
	need := 0
	if !twins {
		need = interNeeded(na, nb, floor)
	}
	if need > min(na, nb) { // J ≤ min/max < floor: no need to read the sets
		return jaccard(min(na, nb), na, nb), false
	}
	if !twins {
		if inter, ok := d.hubInter(a, b, src.hubMemo()); ok { // exact: see hubSets
			if inter < need {
				return jaccard(inter, na, nb), false
			}
			return d.judgeShingles(inter, na, nb, false)
		}
	}
	inter, ok := features.IntersectionAtLeast(src.set(a, 0), src.set(b, 1), need)
	if !ok { // inter is an upper bound below need: J < floor
		return jaccard(inter, na, nb), false
	}
	s, ok := d.judgeShingles(inter, na, nb, twins)
	if ok && twins && jaccard(inter, na, nb) < d.opts.Threshold && d.replacedRun(a, b, src) {
		return s, false // a passage replaced: two versions (see replacedRun)
	}
	return s, ok
}

// judgeShingles decides a pair of shingle sets of sizes na and nb sharing
// inter shingles: see matchShingles.
func (d *Detector) judgeShingles(inter, na, nb int, twins bool) (float64, bool) {
	o := &d.opts
	union := na + nb - inter
	if union == 0 {
		return 0, false
	}
	s := float64(inter) / float64(union)
	if s >= o.Threshold {
		return s, true
	}
	if twins && o.Containment > 0 {
		if c, ok := twinScore(inter, na, nb, o.Threshold, o.Containment); ok {
			return c, true
		}
	}
	if o.EditAllowance > 0 {
		// A few small edits on a short page: see Options.EditAllowance.
		differ := union - inter
		return s, s >= o.EditFloor && differ <= o.EditAllowance*2*o.ShingleWidth
	}
	return s, false
}

// jaccard is the resemblance of two sets of sizes na and nb sharing inter
// elements, computed as judgeShingles does; 0 for two empty sets.
func jaccard(inter, na, nb int) float64 {
	if union := na + nb - inter; union > 0 {
		return float64(inter) / float64(union)
	}
	return 0
}

// interNeeded returns the fewest shared elements two sets of sizes na and
// nb need for their resemblance, computed as judgeShingles does, to be at
// least floor: min(na, nb)+1 when no overlap reaches it, 0 when floor ≤ 0
// or both sets are empty.
func interNeeded(na, nb int, floor float64) int {
	if floor <= 0 || na+nb == 0 {
		return 0
	}
	reaches := func(k int) bool { return float64(k)/float64(na+nb-k) >= floor }
	k := min(max(int(math.Ceil(floor*float64(na+nb)/(1+floor))), 0), min(na, nb)+1)
	for k > 0 && reaches(k-1) {
		k--
	}
	for k <= min(na, nb) && !reaches(k) {
		k++
	}
	return k
}

// twinScore decides, by Broder's containment, whether two shingle sets
// of sizes na and nb sharing inter shingles are one text and its version
// in another format: the share of either set found in the other (its
// containment) is at least floor, and of one of them at least threshold
// — what is left over is a format's furniture (a page's navigation, a
// PDF's printed link targets, an index), a bounded share of each. It
// returns the larger containment as the pair's score, at least
// threshold.
//
// A part is not a twin (a partial copy: a chapter of the book that holds
// it, a page and a document that appends a section to it). A set
// contained in the other whose other holds much more (its containment
// below floor) is one. So is a set almost wholly contained in the other
// when the other's leftover is more than partWhole times its own and the
// other's containment is below threshold: furniture is scattered through
// a text — a header or a link target of k words inserted into the other
// adds k+w−1 shingles to it and breaks w−1 of this one's, so each side
// loses a comparable share — while a passage the other adds in one place
// (an appended section) breaks at most w−1 shingles of this one however
// long it is.
func twinScore(inter, na, nb int, threshold, floor float64) (float64, bool) {
	if na == 0 || nb == 0 {
		return 0, false
	}
	ca, cb := float64(inter)/float64(na), float64(inter)/float64(nb)
	hi, lo := max(ca, cb), min(ca, cb)
	if hi < threshold || lo < floor {
		return hi, false
	}
	if lo < threshold && (1-lo) > partWhole*(1-hi) {
		return hi, false // a part of the other: see above
	}
	return hi, true
}

// partWhole is how many times the smaller set's leftover the larger's
// must exceed, below the threshold, for the smaller to be a part of the
// larger rather than its twin (see twinScore): 4, as furniture of up to
// 12 words an insertion costs the larger set at most (12+4)/4 = 4 times
// what it costs the smaller one (5-shingles).
const partWhole = 4

// index makes rec, document idx, findable as a candidate, within the
// fan-out limits. A new fingerprint with a dense neighbourhood stays out
// of the Hamming index (exact copies still find it by its posting list).
func (d *Detector) index(idx uint32, rec *record, dense bool) {
	if d.hamming != nil {
		d.indexFingerprint(idx, uint64(rec.fp), dense)
	}
	e := signatures.Entry{ID: idx, Group: d.assigned.Of(idx)}
	d.keyBuf = d.appendKeys(d.keyBuf[:0], rec)
	if t, ok := d.lists.(toucher); ok {
		d.touched += t.Touch(d.keyBuf)
	}
	for _, k := range d.keyBuf {
		d.lists.Add(k, e)
		if d.dirty != nil {
			d.markDirty(dirtyHash(k), idx)
		}
	}
}

// indexFingerprint lists document idx under its fingerprint fp and puts a
// new fingerprint into the Hamming index, once, unless dense.
func (d *Detector) indexFingerprint(idx uint32, fp uint64, dense bool) {
	k := signatures.Key{Kind: signatures.Fingerprint, Sum: fp}
	if !d.lists.Known(k) && !dense {
		// Cannot fail: the fingerprint is new and uses all 64 bits.
		_ = d.hamming.Insert(uint64(idx), fp)
	}
	d.lists.Add(k, signatures.Entry{ID: idx, Group: d.assigned.Of(idx)})
}

// Refresh switches to new collection statistics and re-signs every stored
// document with them, so that stored and new documents are comparable
// again. The Detector keeps signatures, not texts: doc must return the
// document with the given id as it was added. Clusters already formed are
// kept. If doc fails, Refresh returns its error and the Detector keeps the
// old statistics. doc is asked only for the documents stored (not those
// removed), in their latest version. Cost: O(stored text).
func (d *Detector) Refresh(ctx context.Context, t *stats.Table, doc func(id string) (Document, error)) error {
	if d.remote != nil {
		return ErrShared
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.epoch++ // what was verified ahead no longer holds (see preVerified)
	docs := make([]Document, len(d.docs))
	for i, rec := range d.docs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if rec == nil {
			continue
		}
		var err error
		if docs[i], err = doc(rec.member.ID); err != nil {
			return fmt.Errorf("dedup: refresh: document %q: %w", rec.member.ID, err)
		}
	}
	if err := d.setTable(t); err != nil {
		return err
	}
	if d.hamming != nil {
		h, err := hamming.New(hamming.Options{MaxDistance: d.opts.HammingK})
		if err != nil {
			return fmt.Errorf("dedup: %w", err)
		}
		d.hamming = h
		d.lists.Reset(signatures.Fingerprint)
	}
	for i, rec := range d.docs {
		if rec == nil {
			continue
		}
		tokens := d.ext.FilterTokens(features.Tokens(docs[i].Text))
		if len(tokens) == 0 {
			continue
		}
		d.signersNow().signTerms(d.ext, rec, docs[i], d.ext.Features(tokens))
		if o := d.opts.Method; o == IMatch || o == IMatchMulti {
			rec.unsignable = rec.sigs == nil
		}
		if d.hamming != nil {
			dense := false
			if d.limits.MaxLen > 0 && !d.lists.Known(signatures.Key{Kind: signatures.Fingerprint, Sum: uint64(rec.fp)}) {
				_, dense = d.neighbours(uint64(rec.fp))
			}
			d.indexFingerprint(uint32(i), uint64(rec.fp), dense)
		}
		for j, sig := range rec.sigs {
			if !sig.IsZero() {
				d.lists.Add(signatures.IMatchKey(j, sig), signatures.Entry{ID: uint32(i), Group: d.assigned.Of(uint32(i))})
			}
		}
	}
	d.generation++
	d.stats.Refreshes++
	return nil
}

// Table returns the statistics table in use.
func (d *Detector) Table() *stats.Table {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.table
}

// Stats returns a snapshot of the counters. A Detector made with
// NewShared counts what it did itself (the documents it inserted, the
// clusters it founded, ...), with Capped and StopKeys of the shared lists
// and no DenseKeys.
func (d *Detector) Stats() Stats {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.remote != nil {
		return d.sharedStats()
	}
	s := d.stats
	for _, kind := range d.kinds() {
		ls := d.lists.Stats(kind)
		s.Capped += ls.Capped
		s.StopKeys += ls.Stops
	}
	if d.hamming != nil {
		fs := d.lists.Stats(signatures.Fingerprint)
		s.DenseKeys = fs.Keys + fs.Stops - d.hamming.Len()
	}
	return s
}

// Cluster returns a copy of the cluster id, or false if there is none.
func (d *Detector) Cluster(id cluster.ID) (cluster.Cluster, bool) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.remote != nil {
		all, _ := d.sharedClusters()
		for _, c := range all {
			if c.ID == id {
				return c, true
			}
		}
		return cluster.Cluster{}, false
	}
	c := d.clusters.Get(id)
	if c == nil {
		return cluster.Cluster{}, false
	}
	return *c, true
}

// Clusters returns a copy of every cluster, in order of creation.
// Cost: O(documents).
func (d *Detector) Clusters() []cluster.Cluster {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.remote != nil {
		all, _ := d.sharedClusters()
		return all
	}
	all := d.clusters.All()
	out := make([]cluster.Cluster, len(all))
	for i, c := range all {
		out[i] = *c
	}
	return out
}

// An Assignment places one document in a cluster.
type Assignment struct {
	ID      string
	Cluster cluster.ID
	Master  string
	// Edited says the document is in its cluster through the edit
	// allowance, as Result.Edited (online assignments only).
	Edited bool
}

// Assignments returns the online clusters of every document stored, in
// arrival order: the cluster each document joined when it was added (by
// similarity to that cluster's master; or later, see [Detector.Remove]
// and [Detector.Update]) and the cluster's current master. A document
// that left its cluster on Update arrived anew.
func (d *Detector) Assignments() []Assignment {
	if d.remote != nil {
		return slices.Collect(d.AllAssignments())
	}
	d.mu.RLock()
	n := len(d.byID)
	d.mu.RUnlock()
	return slices.AppendSeq(make([]Assignment, 0, n), d.AllAssignments())
}

// AllAssignments yields what Assignments returns, one at a time, without
// a slice of them all (a million documents' output is written as it is
// read). The detector is read-locked while the loop runs: its body must
// not add to it.
func (d *Detector) AllAssignments() iter.Seq[Assignment] {
	if d.remote != nil {
		return d.sharedAssignments()
	}
	return func(yield func(Assignment) bool) {
		d.mu.RLock()
		defer d.mu.RUnlock()
		for i, rec := range d.docs {
			if rec != nil && !yield(d.assignment(uint32(i))) {
				return
			}
		}
	}
}

// assignment returns the online assignment of the stored document idx.
func (d *Detector) assignment(idx uint32) Assignment {
	rec := d.docs[idx]
	g := d.assigned.Of(idx)
	master := d.docs[d.assigned.Master(g)].member.ID
	return Assignment{ID: rec.member.ID, Cluster: d.clusters.id(g), Master: master, Edited: rec.edited && master != rec.member.ID}
}

// StarAssignments re-clusters every document added so far by the star
// algorithm ([cluster.Star]) over all the near-duplicate pairs found: the
// documents with the most near-duplicates become masters, ties broken by
// the master policy, then by id, and every other document joins a master it is itself
// a near-duplicate of. This needs the whole batch, so cluster ids depend on
// it; unlike the online clusters, a member of one cluster is never pulled
// into the cluster of an older near-duplicate whose master it does not
// resemble. It returns one Assignment per document in arrival order and
// does not change the online clusters. Cost: O(n log n + pairs), n the
// slots (documents stored and removed).
func (d *Detector) StarAssignments() []Assignment {
	if d.remote != nil {
		return nil
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	// A removed document has no pairs left: a star of its own, skipped.
	masters := cluster.Star(len(d.docs), d.adj, d.starBetter)
	out := make([]Assignment, 0, len(d.byID))
	for i, m := range masters {
		if d.docs[i] == nil {
			continue
		}
		id := d.docs[m].member.ID
		out = append(out, Assignment{ID: d.docs[i].member.ID, Cluster: cluster.IDFor(id), Master: id})
	}
	return out
}

// AddAll adds docs in order: [Detector.AddSeq] over the slice.
func (d *Detector) AddAll(ctx context.Context, docs []Document, workers int, fn func(Result) error) error {
	return d.AddSeq(ctx, func(yield func(Document, error) bool) {
		for _, doc := range docs {
			if !yield(doc, nil) {
				return
			}
		}
	}, workers, fn)
}

// AddSeq adds the documents docs yields, in order, and calls fn with each
// result in input order. Up to workers goroutines (workers < 1 means 1)
// sign documents ahead while the documents before them are inserted, so
// signing and insertion overlap; they also find and verify each
// document's candidates among those already stored, which Insert then
// takes over as far as they still hold (the same results as Add, one
// document after the other). Only a few hundred documents are held at a
// time, so docs may be larger than memory. It stops at the first error
// docs yields or Add or fn returns, or when ctx is done.
func (d *Detector) AddSeq(ctx context.Context, docs iter.Seq2[Document, error], workers int, fn func(Result) error) error {
	workers = max(workers, 1)
	d.enablePreverify()
	ctx, cancel := context.WithCancel(ctx)
	jobs := make(chan *signBatch)
	order := make(chan *signBatch, 2*workers) // batches in input order, signed or being signed
	// phase keeps the signing goroutines' verification ahead out of the
	// way of a batch's insertion: one hand-over of the lock a batch, not
	// one a document.
	var phase sync.RWMutex
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			var sc preScratch
			for b := range jobs {
				b.prepare(d, &phase, &sc)
			}
		})
	}
	var readErr error // set before order is closed
	go func() {
		defer close(order)
		defer close(jobs)
		b := newSignBatch()
		send := func() bool {
			for _, ch := range []chan *signBatch{order, jobs} {
				select {
				case ch <- b:
				case <-ctx.Done():
					return false
				}
			}
			b = newSignBatch()
			return true
		}
		for doc, err := range docs {
			if err != nil {
				readErr = err
				return
			}
			if b.docs = append(b.docs, doc); len(b.docs) == cap(b.docs) && !send() {
				return
			}
		}
		if len(b.docs) > 0 {
			send()
		}
	}()
	defer func() {
		cancel()
		for range order { // until the reader has stopped
		}
		wg.Wait()
	}()
	for b := range order {
		select {
		case <-b.done:
		case <-ctx.Done():
			return ctx.Err()
		}
		if err := b.insert(d, &phase, fn); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return readErr
}

// A signBatch is documents AddSeq signs together.
type signBatch struct {
	docs     []Document
	prepared []*Prepared
	errs     []error
	done     chan struct{} // closed once prepared and errs are set
}

// newSignBatch returns an empty batch with room for 64 documents.
func newSignBatch() *signBatch {
	return &signBatch{docs: make([]Document, 0, 64), done: make(chan struct{})}
}

// prepare signs the batch's documents, then finds and verifies their
// candidates among the documents stored (preverify), one document at a
// time under phase's read lock.
func (b *signBatch) prepare(d *Detector, phase *sync.RWMutex, sc *preScratch) {
	b.prepared, b.errs = make([]*Prepared, len(b.docs)), make([]error, len(b.docs))
	for i, doc := range b.docs {
		b.prepared[i], b.errs[i] = d.Prepare(doc)
	}
	for _, p := range b.prepared {
		if p != nil {
			phase.RLock()
			d.mu.RLock()
			d.preverify(p, sc)
			d.mu.RUnlock()
			phase.RUnlock()
		}
	}
	close(b.done)
}

// insert inserts the batch's documents in order under phase's write
// lock, calling fn with each result.
func (b *signBatch) insert(d *Detector, phase *sync.RWMutex, fn func(Result) error) error {
	phase.Lock()
	defer phase.Unlock()
	for i, p := range b.prepared {
		if b.errs[i] != nil {
			return fmt.Errorf("document %q: %w", b.docs[i].ID, b.errs[i])
		}
		res, err := d.Insert(p)
		if err != nil {
			return err
		}
		if err := fn(res); err != nil {
			return err
		}
	}
	return nil
}

// A TableBuilder builds the statistics tables a Detector needs from a
// corpus in one pass, with the same options as the Detector: term
// document frequencies always, shingle document frequencies when
// Options.MaxShingleDocs is set. It is not safe for concurrent use.
type TableBuilder struct {
	ext              *features.Extractor
	width            int
	terms, shingles  stats.Builder
	countingShingles bool
}

// NewTableBuilder returns a builder for the options of opts.
func NewTableBuilder(opts Options) (*TableBuilder, error) {
	ext, err := features.New(opts.Terms)
	if err != nil {
		return nil, err
	}
	o := *opts.EnsureDefaults()
	return &TableBuilder{ext: ext, width: o.ShingleWidth, countingShingles: o.MaxShingleDocs > 0}, nil
}

// Add counts the terms (and shingles) of one document's text.
func (tb *TableBuilder) Add(text string) {
	tokens := tb.ext.FilterTokens(features.Tokens(text))
	if tb.countingShingles {
		tb.shingles.AddHashes(features.Shingles(tokens, tb.width))
	}
	tb.terms.Add(tb.ext.Features(tokens))
}

// AddSeq counts the texts texts yields, as Add does each, on up to
// workers goroutines at once (workers < 1 means 1), each counting into
// tables of its own that are merged at the end: the tables are the same
// as Add's, whatever the workers. It stops at the first error texts
// yields, or when ctx is done.
func (tb *TableBuilder) AddSeq(ctx context.Context, texts iter.Seq2[string, error], workers int) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan []string)
	parts := make([]*TableBuilder, max(workers, 1))
	var wg sync.WaitGroup
	for i := range parts {
		part := &TableBuilder{ext: tb.ext, width: tb.width, countingShingles: tb.countingShingles}
		parts[i] = part
		wg.Go(func() {
			for batch := range jobs {
				for _, text := range batch {
					part.Add(text)
				}
			}
		})
	}
	var readErr error
	batch := make([]string, 0, 64)
	send := func() bool {
		select {
		case jobs <- batch:
			batch = make([]string, 0, 64)
			return true
		case <-ctx.Done():
			return false
		}
	}
	for text, err := range texts {
		if err != nil {
			readErr = err
			break
		}
		if batch = append(batch, text); len(batch) == cap(batch) && !send() {
			break
		}
	}
	if readErr == nil && len(batch) > 0 {
		send()
	}
	close(jobs)
	wg.Wait()
	if err := cmp.Or(readErr, ctx.Err()); err != nil {
		return err
	}
	for _, part := range parts {
		tb.terms.Merge(&part.terms)
		tb.shingles.Merge(&part.shingles)
	}
	return nil
}

// Table returns the frozen term table of the documents added so far.
func (tb *TableBuilder) Table() *stats.Table { return tb.terms.Table() }

// ShingleTable returns the frozen shingle table of the documents added so
// far; it is empty unless the options set MaxShingleDocs.
func (tb *TableBuilder) ShingleTable() *stats.Table { return tb.shingles.Table() }
