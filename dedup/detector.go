package dedup

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/doppel-search/doppel/dedup/cluster"
	"github.com/doppel-search/doppel/dedup/features"
	"github.com/doppel-search/doppel/dedup/hamming"
	"github.com/doppel-search/doppel/dedup/imatch"
	"github.com/doppel-search/doppel/dedup/minhash"
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
}

// A Pair is a detected near-duplicate pair: A arrived before B.
type Pair struct {
	A, B  string
	Score float64 // the similarity (or the method's score) that accepted the pair
}

// A Result is what the Detector decided for one document.
type Result struct {
	ID         string
	Cluster    cluster.ID // the cluster the document is in
	Master     string     // id of the cluster's master after the document was added
	Duplicate  bool       // the document joined an existing cluster
	NewMaster  bool       // it joined one and became its master (policy)
	Unsignable bool       // no signature could be computed: alone in its cluster
	Pairs      []Pair     // every earlier document it was verified to duplicate
	Simhash    uint64     // its SimHash signature; 0 when the method computes none
}

// Errors returned by [Detector.Add].
var (
	ErrEmptyID     = errors.New("dedup: empty document id")
	ErrDuplicateID = errors.New("dedup: document id already added")
)

// Stats counts what a Detector has done. Read it with [Detector.Stats].
type Stats struct {
	Documents   int // documents added
	Clusters    int // clusters
	Duplicates  int // documents that joined an existing cluster
	Unsignable  int // documents without a usable signature
	Pairs       int // near-duplicate pairs reported
	Candidates  int // candidate pairs looked at
	Refreshes   int // statistics refreshes
	NewMasters  int // times a new document took over as master
	MasterTests int // similarity tests against masters
}

// record is what the Detector keeps of a document: its signatures, not
// its text.
type record struct {
	member     cluster.Member
	set        []uint64 // sorted verification set (shingles or cosine words)
	sketch     minhash.Sketch
	bands      []uint64
	fp         simhash.Simhash
	sigs       []imatch.Signature
	supers     []uint64
	unsignable bool
}

// A Prepared document has been signed and awaits [Detector.Insert].
type Prepared struct {
	doc        Document
	rec        *record
	generation int
}

// A Detector assigns documents to near-duplicate clusters.
//
// Add (or Prepare then Insert) documents in arrival order; each is compared
// with the documents added before it. A Detector is safe for concurrent
// use: Prepare, which does the signing, runs concurrently; Insert and
// Refresh are serialized.
type Detector struct {
	opts Options

	mu         sync.RWMutex
	generation int // incremented by Refresh
	ext        *features.Extractor
	table      *stats.Table
	imatch     *imatch.Signer
	simhash    *simhash.Signer
	minhash    *minhash.Hasher

	docs     []*record
	byID     map[string]uint32
	hamming  *hamming.Index
	lsh      minhash.LSH
	sigIndex []map[imatch.Signature][]uint32 // one map per lexicon
	supers   map[uint64][]uint32
	clusters *cluster.Set
	adj      [][]int32 // verified near-duplicates of each document, for Star
	stamp    []uint32  // candidate dedup: stamp[i] == gen when doc i was seen
	gen      uint32
	stats    Stats
}

// New returns a Detector that signs with the frozen statistics table
// (which may be nil or empty: I-Match then signs nothing, so with the
// I-Match methods every document is unsignable, and SimHash weights by term
// frequency alone).
func New(table *stats.Table, opts Options) (*Detector, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	o := opts.withDefaults()
	ext, err := features.New(o.Terms)
	if err != nil {
		return nil, err
	}
	d := &Detector{
		opts:     o,
		ext:      ext,
		byID:     map[string]uint32{},
		clusters: cluster.NewSet(o.Master),
		supers:   map[uint64][]uint32{},
	}
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
	return d, nil
}

// uses reports whether the configured method needs the signature of m.
func (d *Detector) uses(m Method) bool {
	return d.opts.Method == m || d.opts.Method == Hybrid && (m == SimHash || m == IMatchMulti || m == MinHash)
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
		d.sigIndex = make([]map[imatch.Signature][]uint32, d.opts.IMatch.ExtraLexicons+1)
		for i := range d.sigIndex {
			d.sigIndex[i] = map[imatch.Signature][]uint32{}
		}
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
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.prepare(doc), nil
}

// prepare signs doc; the caller holds d.mu (read or write).
func (d *Detector) prepare(doc Document) *Prepared {
	// Filters (stop words, stemming, numbers, dates) apply to everything
	// compared; with the default options tokens pass unchanged.
	tokens := d.ext.FilterTokens(features.Tokens(doc.Text))
	rec := &record{member: cluster.Member{ID: doc.ID, URL: doc.URL, Time: doc.Time, Quality: doc.Quality}}
	if len(tokens) == 0 {
		rec.unsignable = true
		return &Prepared{doc: doc, rec: rec, generation: d.generation}
	}
	o := d.opts
	if d.uses(MinHash) || d.uses(DSCSS) || o.Method == Hybrid {
		var set []uint64
		if o.Similarity == Cosine {
			set = features.CosineWords(tokens)
		} else {
			set = d.shingleSet(tokens)
		}
		rec.sketch = d.minhash.Sketch(set)
		switch {
		case o.Method == DSCSS:
			rec.supers = minhash.SuperShingles(rec.sketch, 6)
		default:
			rec.bands = minhash.Bands(rec.sketch, o.Bands, o.Rows)
		}
		if o.Method == Hybrid && o.Verify == Exact {
			rec.set = set
		}
	}
	if d.imatch != nil || d.simhash != nil {
		d.signTerms(rec, doc, d.ext.Features(tokens))
	}
	if (o.Method == IMatch || o.Method == IMatchMulti) && rec.sigs == nil {
		rec.unsignable = true
	}
	return &Prepared{doc: doc, rec: rec, generation: d.generation}
}

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
func (d *Detector) signTerms(rec *record, doc Document, feats []string) {
	rec.sigs = nil
	if d.imatch != nil {
		if sigs, err := d.imatch.Sign(feats); err == nil {
			rec.sigs = sigs
		}
	}
	if d.simhash != nil {
		var tagged []string
		if doc.Tagged != "" {
			tagged = d.ext.Features(d.ext.Terms(doc.Tagged))
		}
		rec.fp = d.simhash.Sign(simhash.Doc{Terms: feats, Tagged: tagged, Meta: doc.Meta})
	}
}

// Insert adds a prepared document: finds its near-duplicates among the
// documents added before, puts it in a cluster and indexes it. Documents
// must have distinct ids. Cost: O(candidates · verification) — linear in
// the number of candidate pairs, not in the number of stored documents.
func (d *Detector) Insert(p *Prepared) (Result, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if p.generation != d.generation { // statistics were refreshed since Prepare
		p = d.prepare(p.doc)
	}
	rec := p.rec
	if _, dup := d.byID[rec.member.ID]; dup {
		return Result{}, fmt.Errorf("%w: %q", ErrDuplicateID, rec.member.ID)
	}
	idx := uint32(len(d.docs))
	d.docs = append(d.docs, rec)
	d.stamp = append(d.stamp, 0)
	d.adj = append(d.adj, nil)
	d.byID[rec.member.ID] = idx
	d.stats.Documents++
	res := Result{ID: rec.member.ID, Simhash: uint64(rec.fp)}
	if rec.unsignable {
		d.stats.Unsignable++
		res.Unsignable = true
		res.Cluster = d.clusters.Found(rec.member)
		res.Master = rec.member.ID
		d.stats.Clusters = d.clusters.Len()
		return res, nil
	}

	// Candidates → verified pairs.
	type verdict struct {
		score float64
		ok    bool
	}
	tested := map[uint32]verdict{}
	for _, c := range d.candidates(rec) {
		d.stats.Candidates++
		s, ok := d.match(rec, d.docs[c])
		tested[c] = verdict{s, ok}
		if ok {
			res.Pairs = append(res.Pairs, Pair{A: d.docs[c].member.ID, B: rec.member.ID, Score: s})
		}
	}

	// Join the cluster whose master is most similar, if any qualifies.
	var best cluster.ID
	bestScore := -1.0
	tried := map[cluster.ID]bool{}
	verified := res.Pairs[:len(res.Pairs):len(res.Pairs)] // master pairs appended below are not revisited
	for _, pr := range verified {
		cid, _ := d.clusters.Of(pr.A)
		if tried[cid] {
			continue
		}
		tried[cid] = true
		master := d.clusters.Get(cid).Master.ID
		mi := d.byID[master]
		v, seen := tested[mi]
		if !seen { // the master was not a candidate: verify it directly
			d.stats.MasterTests++
			v.score, v.ok = d.match(rec, d.docs[mi])
			tested[mi] = v
			if v.ok {
				res.Pairs = append(res.Pairs, Pair{A: master, B: rec.member.ID, Score: v.score})
			}
		}
		if v.ok && (v.score > bestScore || v.score == bestScore && cid < best) {
			best, bestScore = cid, v.score
		}
	}
	if bestScore >= 0 {
		res.Duplicate = true
		res.NewMaster = d.clusters.Join(best, rec.member)
		res.Cluster = best
		d.stats.Duplicates++
		if res.NewMaster {
			d.stats.NewMasters++
		}
	} else {
		res.Cluster = d.clusters.Found(rec.member)
	}
	res.Master = d.clusters.Get(res.Cluster).Master.ID
	slices.SortFunc(res.Pairs, func(a, b Pair) int { return int(d.byID[a.A]) - int(d.byID[b.A]) })
	for _, pr := range res.Pairs {
		other := int32(d.byID[pr.A])
		d.adj[idx] = append(d.adj[idx], other)
		d.adj[other] = append(d.adj[other], int32(idx))
	}
	d.stats.Pairs += len(res.Pairs)
	d.stats.Clusters = d.clusters.Len()
	d.index(idx, rec)
	return res, nil
}

// candidates returns the ids of earlier documents that may be near
// duplicates of rec, without repeats, in arrival order.
func (d *Detector) candidates(rec *record) []uint32 {
	d.gen++
	var out []uint32
	add := func(i uint32) {
		if d.stamp[i] != d.gen {
			d.stamp[i] = d.gen
			out = append(out, i)
		}
	}
	if d.hamming != nil {
		for _, m := range d.hamming.Query(uint64(rec.fp), d.opts.HammingK) {
			add(uint32(m.ID))
		}
	}
	for i, sig := range rec.sigs {
		if i < len(d.sigIndex) && !sig.IsZero() {
			for _, c := range d.sigIndex[i][sig] {
				add(c)
			}
		}
	}
	if rec.bands != nil {
		for _, c := range d.lsh.Candidates(rec.bands) {
			add(uint32(c))
		}
	}
	for _, s := range rec.supers {
		for _, c := range d.supers[s] {
			add(c)
		}
	}
	slices.Sort(out)
	return out
}

// match decides whether a and b are near duplicates under the configured
// method, and with what score.
func (d *Detector) match(a, b *record) (float64, bool) {
	o := d.opts
	switch o.Method {
	case SimHash:
		dist := a.fp.Distance(b.fp)
		return 1 - float64(dist)/64, dist <= o.HammingK
	case IMatch:
		ok := len(a.sigs) > 0 && len(b.sigs) > 0 && a.sigs[0] == b.sigs[0] && !a.sigs[0].IsZero()
		return 1, ok
	case IMatchMulti:
		n := 0
		for i := range min(len(a.sigs), len(b.sigs)) {
			if a.sigs[i] == b.sigs[i] && !a.sigs[i].IsZero() {
				n++
			}
		}
		return float64(n) / float64(max(len(a.sigs), 1)), n > 0
	case MinHash:
		s := a.sketch.Jaccard(b.sketch)
		return s, s >= o.Threshold
	case DSCSS:
		n := minhash.SharedSuperShingles(a.supers, b.supers)
		return float64(n) / 6, n >= 2
	}
	// Hybrid.
	var s float64
	switch {
	case o.Verify == Estimate && o.Similarity == Cosine:
		j := a.sketch.Jaccard(b.sketch)
		s = 2 * j / (1 + j) // the cosine of two equal-sized sets with that Jaccard
	case o.Verify == Estimate:
		s = a.sketch.Jaccard(b.sketch)
	case o.Similarity == Cosine:
		switch {
		case len(a.set) >= features.MinCosineWords && len(b.set) >= features.MinCosineWords:
			s = features.Cosine(a.set, b.set)
		case len(a.set) > 0 && slices.Equal(a.set, b.set):
			s = 1 // too few words for cosine, but the same words: exact duplicates
		}
	default:
		inter := features.Intersection(a.set, b.set)
		union := len(a.set) + len(b.set) - inter
		if union == 0 {
			return 0, false
		}
		s = float64(inter) / float64(union)
		if s < o.Threshold && o.EditAllowance > 0 {
			// A few small edits on a short page: see Options.EditAllowance.
			differ := union - inter
			return s, s >= o.EditFloor && differ <= o.EditAllowance*2*o.ShingleWidth
		}
	}
	return s, s >= o.Threshold
}

// index makes rec findable as a candidate.
func (d *Detector) index(idx uint32, rec *record) {
	if d.hamming != nil {
		// Cannot fail: ids are new and fingerprints use all 64 bits.
		_ = d.hamming.Insert(uint64(idx), uint64(rec.fp))
	}
	for i, sig := range rec.sigs {
		if i < len(d.sigIndex) && !sig.IsZero() {
			d.sigIndex[i][sig] = append(d.sigIndex[i][sig], idx)
		}
	}
	if rec.bands != nil {
		d.lsh.Insert(uint64(idx), rec.bands)
	}
	for _, s := range rec.supers {
		d.supers[s] = append(d.supers[s], idx)
	}
}

// Refresh switches to new collection statistics and re-signs every stored
// document with them, so that stored and new documents are comparable
// again. The Detector keeps signatures, not texts: doc must return the
// document with the given id as it was added. Clusters already formed are
// kept. If doc fails, Refresh returns its error and the Detector keeps the
// old statistics. Cost: O(stored text).
func (d *Detector) Refresh(ctx context.Context, t *stats.Table, doc func(id string) (Document, error)) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	docs := make([]Document, len(d.docs))
	for i, rec := range d.docs {
		if err := ctx.Err(); err != nil {
			return err
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
	}
	for i, rec := range d.docs {
		tokens := d.ext.FilterTokens(features.Tokens(docs[i].Text))
		if len(tokens) == 0 {
			continue
		}
		d.signTerms(rec, docs[i], d.ext.Features(tokens))
		if o := d.opts.Method; o == IMatch || o == IMatchMulti {
			rec.unsignable = rec.sigs == nil
		}
		if d.hamming != nil {
			_ = d.hamming.Insert(uint64(i), uint64(rec.fp))
		}
		for j, sig := range rec.sigs {
			if !sig.IsZero() {
				d.sigIndex[j][sig] = append(d.sigIndex[j][sig], uint32(i))
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

// Stats returns a snapshot of the counters.
func (d *Detector) Stats() Stats {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.stats
}

// Cluster returns a copy of the cluster id, or false if there is none.
func (d *Detector) Cluster(id cluster.ID) (cluster.Cluster, bool) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	c := d.clusters.Get(id)
	if c == nil {
		return cluster.Cluster{}, false
	}
	cp := *c
	cp.Members = slices.Clone(c.Members)
	return cp, true
}

// Clusters returns a copy of every cluster, in order of creation.
// Cost: O(documents).
func (d *Detector) Clusters() []cluster.Cluster {
	d.mu.RLock()
	defer d.mu.RUnlock()
	all := d.clusters.All()
	out := make([]cluster.Cluster, len(all))
	for i, c := range all {
		out[i] = *c
		out[i].Members = slices.Clone(c.Members)
	}
	return out
}

// An Assignment places one document in a cluster.
type Assignment struct {
	ID      string
	Cluster cluster.ID
	Master  string
}

// Assignments returns the online clusters of every document added, in
// arrival order: the cluster each document joined when it was added (by
// similarity to that cluster's master) and the cluster's current master.
func (d *Detector) Assignments() []Assignment {
	d.mu.RLock()
	defer d.mu.RUnlock()
	out := make([]Assignment, len(d.docs))
	for i, rec := range d.docs {
		cid, _ := d.clusters.Of(rec.member.ID)
		out[i] = Assignment{ID: rec.member.ID, Cluster: cid, Master: d.clusters.Get(cid).Master.ID}
	}
	return out
}

// StarAssignments re-clusters every document added so far by the star
// algorithm ([cluster.Star]) over all the near-duplicate pairs found: the
// documents with the most near-duplicates become masters, ties broken by
// the master policy, and every other document joins a master it is itself
// a near-duplicate of. This needs the whole batch, so cluster ids depend on
// it; unlike the online clusters, a member of one cluster is never pulled
// into the cluster of an older near-duplicate whose master it does not
// resemble. It returns one Assignment per document in arrival order and
// does not change the online clusters. Cost: O(n log n + pairs).
func (d *Detector) StarAssignments() []Assignment {
	d.mu.RLock()
	defer d.mu.RUnlock()
	better := func(a, b int) bool { return d.opts.Master.Better(d.docs[a].member, d.docs[b].member) }
	masters := cluster.Star(len(d.docs), d.adj, better)
	out := make([]Assignment, len(d.docs))
	for i, m := range masters {
		id := d.docs[m].member.ID
		out[i] = Assignment{ID: d.docs[i].member.ID, Cluster: cluster.IDFor(id), Master: id}
	}
	return out
}

// AddAll adds docs in order, preparing up to workers documents at once
// (workers < 1 means 1), and calls fn with each result in input order. It
// stops at the first error from Add or fn, or when ctx is done.
func (d *Detector) AddAll(ctx context.Context, docs []Document, workers int, fn func(Result) error) error {
	workers = max(workers, 1)
	const chunk = 256
	prepared := make([]*Prepared, chunk)
	errs := make([]error, chunk)
	for start := 0; start < len(docs); start += chunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		batch := docs[start:min(start+chunk, len(docs))]
		var wg sync.WaitGroup
		next := make(chan int)
		for range workers {
			wg.Go(func() {
				for i := range next {
					prepared[i], errs[i] = d.Prepare(batch[i])
				}
			})
		}
		for i := range batch {
			next <- i
		}
		close(next)
		wg.Wait()
		for i := range batch {
			if errs[i] != nil {
				return fmt.Errorf("document %q: %w", batch[i].ID, errs[i])
			}
			res, err := d.Insert(prepared[i])
			if err != nil {
				return err
			}
			if err := fn(res); err != nil {
				return err
			}
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
	o := opts.withDefaults()
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

// Table returns the frozen term table of the documents added so far.
func (tb *TableBuilder) Table() *stats.Table { return tb.terms.Table() }

// ShingleTable returns the frozen shingle table of the documents added so
// far; it is empty unless the options set MaxShingleDocs.
func (tb *TableBuilder) ShingleTable() *stats.Table { return tb.shingles.Table() }
