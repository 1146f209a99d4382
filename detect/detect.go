// Package detect is the near-duplicate service for other search engines
// (doppel detect): it takes documents by id, places each in a
// near-duplicate cluster with the crawl's detector (dedup.Web), and
// answers its cluster, master and member count and the changes other
// documents undergo — a master handed over, members re-pointed — which
// an external index applies to stay in step. It is idempotent by id (the
// same fields again change nothing; new ones are an update), keeps what
// it accepted in a data directory before applying it (a restart, even
// after kill -9, gives the same answers), and serves HTTP/JSON
// (Handler; messages in package detect/api, Go client in detect/client).
package detect

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/dedup/signatures"
	"github.com/doppel-search/doppel/detect/api"
	"github.com/doppel-search/doppel/internal/storecheck"
)

// Options configure [Open]. The zero value is usable.
type Options struct {
	// Shared, if set, keeps the detector's signatures there, shared with
	// every other service and crawl worker opened on it
	// (dedup.NewShared; redissig on a Redis Cluster). Shared signatures
	// support new documents only: an update of a stored id or a removal
	// is refused ([ErrShared]). Default nil: embedded, in the data
	// directory.
	Shared signatures.Shared `json:"-"`
	// SnapshotEvery is how many logged changes the detector's snapshot
	// may lag behind: a restart applies at most that many again. Default
	// 50,000.
	SnapshotEvery int `json:"snapshot_every" flag:"snapshot-every" help:"changes between the detector's snapshots: a restart applies at most this many again"`
	// Similarity is the detector's (dedup.Options.Similarity): every
	// service and worker on one Shared uses the same. Default
	// Resemblance.
	Similarity dedup.Similarity `json:"similarity" choices:"resemblance cosine" flag:"similarity" help:"the detector's similarity: resemblance (of word 5-shingles) or cosine (of word sets); every sharer of --redis uses the same"`
	// MaxInflightBytes bounds the bytes of the POST bodies the Handler
	// reads, decodes and places at once, by their Content-Length (a body
	// without one counts as api.MaxBodyBytes until it is read): a request
	// that would pass it waits up to a second, then gets 503. A body
	// costs several times its size while it is placed (its text decoded,
	// signed, logged): 32 MiB kept doppel detect near 300 MB of memory
	// (docs/security.md). Default DefaultMaxInflightBytes (32 MiB); less
	// than api.MaxBodyBytes is raised to it, so that a body of the
	// largest size can be admitted.
	MaxInflightBytes int `json:"max_inflight_bytes" flag:"max-inflight-bytes" help:"bytes of request bodies read and placed at once; more waits up to a second, then gets 503 (at least 33554432, a whole body)"`
}

// Errors of a [Service].
var (
	// ErrNotFound: no document is stored under the id.
	ErrNotFound = errors.New("detect: no such document")
	// ErrShared: an update or removal on shared signatures
	// (Options.Shared), which support new documents only.
	ErrShared = errors.New("detect: updates and removals are not supported on shared signatures")
)

// An InputError is a request the service refuses, with the reason;
// nothing of it was applied.
type InputError struct{ Reason string }

func (e *InputError) Error() string { return "detect: " + e.Reason }

// A Service places documents in near-duplicate clusters and keeps them
// in a data directory. It is safe for concurrent use: documents are
// signed concurrently and applied one batch at a time.
type Service struct {
	dir   string
	opts  Options
	store *store
	d     *dedup.Detector

	mu      sync.RWMutex // guards what follows; write-held while a batch is applied
	m       *mirror
	snapSeq uint64 // the last op the snapshot covers
	broken  error  // the error that stopped applying (errBroken)

	// afterLog, if set, is called with each batch once it is logged,
	// before it is applied (TestKilled stops there).
	afterLog func([]*op)
}

// Open opens the service kept in dir (created if need be): the detector
// is read from its snapshot and the changes logged after it are applied
// again; without a snapshot, the whole log is. When the snapshot cannot
// be read (another version of package dedup wrote it) and the log is
// trimmed, every stored document is added again, in the order it was
// last changed: the clusters may then differ from before.
func Open(dir string, opts Options) (*Service, error) {
	if opts.SnapshotEvery <= 0 {
		opts.SnapshotEvery = 50_000
	}
	switch {
	case opts.MaxInflightBytes == 0:
		opts.MaxInflightBytes = DefaultMaxInflightBytes
	case opts.MaxInflightBytes < api.MaxBodyBytes:
		opts.MaxInflightBytes = api.MaxBodyBytes
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("detect: %w", err)
	}
	st, err := openStore(dir)
	if err != nil {
		return nil, err
	}
	s := &Service{dir: dir, opts: opts, store: st, m: newMirror()}
	path := filepath.Join(dir, dbFile)
	if err := storecheck.Protect(path, s.load); err != nil {
		st.close()
		if errors.Is(err, errBadRecord) {
			err = storecheck.Damaged(path, err)
		}
		if errors.Is(err, storecheck.ErrDamaged) {
			return nil, damaged(err)
		}
		return nil, err
	}
	return s, nil
}

// detectorOptions returns the crawl's detector options (dedup.Web) with
// the service's similarity.
func (s *Service) detectorOptions() dedup.Options {
	o := dedup.Web()
	o.Similarity = s.opts.Similarity
	return o
}

// load makes the detector and the mirror from the snapshot, the log and
// the stored documents.
func (s *Service) load() error {
	o := s.detectorOptions()
	if s.opts.Shared != nil {
		d, err := dedup.NewShared(nil, o, s.opts.Shared)
		if err != nil {
			return err
		}
		s.d = d
		// The clusters are shared: the mirror starts from every
		// worker's assignments, then follows this service's inserts.
		s.m.load(d)
		return s.store.docs(func(o *op) error {
			if st := s.m.docs[o.Doc.ID]; st != nil {
				st.sum = o.Sum
			}
			return nil
		})
	}
	o.SetsFile = filepath.Join(s.dir, setsFile)
	d, seq, err := readSnapshot(s.dir, o)
	switch {
	case err == nil:
		s.d, s.snapSeq = d, seq
		s.m.load(d)
		if err := s.store.replay(seq, s.replayOp); err != nil {
			return err
		}
	case errors.Is(err, os.ErrNotExist) || errors.Is(err, dedup.ErrSnapshotMismatch) || errors.Is(err, dedup.ErrSnapshotCorrupt):
		if s.d, err = dedup.New(nil, o); err != nil {
			return err
		}
		if s.store.complete() {
			err = s.store.replay(0, s.replayOp)
		} else {
			err = s.rebuild()
		}
		if err != nil {
			return err
		}
	default:
		return fmt.Errorf("detect: reading the snapshot: %w", err)
	}
	// Every stored document's fields, to tell an unchanged one.
	n := 0
	err = s.store.docs(func(o *op) error {
		st := s.m.docs[o.Doc.ID]
		if st == nil {
			return fmt.Errorf("%w: document %q is stored but not in the detector", errBadRecord, o.Doc.ID)
		}
		st.sum = o.Sum
		n++
		return nil
	})
	if err == nil && n != len(s.m.docs) {
		err = fmt.Errorf("%w: %d documents stored, %d in the detector", errBadRecord, n, len(s.m.docs))
	}
	return err
}

// rebuild adds every stored document to the empty detector, in the
// order of their last change, and takes a snapshot.
func (s *Service) rebuild() error {
	var ops []*op
	if err := s.store.docs(func(o *op) error { ops = append(ops, o); return nil }); err != nil {
		return err
	}
	sortOps(ops)
	for _, o := range ops {
		if err := s.replayOp(o); err != nil {
			return err
		}
	}
	if len(ops) == 0 {
		return nil
	}
	return s.snapshot()
}

// replayOp applies a logged op again.
func (s *Service) replayOp(o *op) error {
	var p *dedup.Prepared
	if o.Delete == "" {
		doc, err := toDedup(o.Doc)
		if err != nil {
			return err
		}
		if p, err = s.d.Prepare(doc); err != nil {
			return err
		}
	}
	_, err := s.apply(o, p)
	return err
}

// Put places docs, in order, and answers for each. A document whose id
// is stored with the same fields is Unchanged; with other fields it is
// updated. Bad input (an empty or long id, a bad date, too many
// documents) is refused with an [*InputError] and nothing is applied.
// What Put answers is logged, and synced, before it is applied.
func (s *Service) Put(ctx context.Context, docs []api.Document) ([]api.Answer, error) {
	if err := checkBatch(docs); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	signed := s.sign(docs)
	defer signed.close()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.broken != nil {
		return nil, s.broken
	}
	ops := make([]*op, 0, len(docs))
	sums := map[string]uint64{} // the batch's latest version of each id
	for _, doc := range docs {
		sum := docSum(doc)
		prev, ok := sums[doc.ID]
		if !ok {
			if st := s.m.docs[doc.ID]; st != nil {
				prev, ok = st.sum, true
			}
		}
		if ok && prev == sum {
			ops = append(ops, nil)
			continue
		}
		if ok && s.opts.Shared != nil {
			return nil, fmt.Errorf("%w: document %s is stored with other fields", ErrShared, quote(doc.ID))
		}
		sums[doc.ID] = sum
		ops = append(ops, &op{Doc: doc, Sum: sum})
	}
	logged := make([]*op, 0, len(ops))
	for _, o := range ops {
		if o != nil {
			logged = append(logged, o)
		}
	}
	if len(logged) > 0 {
		if err := s.store.append(logged); err != nil {
			return nil, err
		}
		if s.afterLog != nil {
			s.afterLog(logged)
		}
	}
	answers := make([]api.Answer, len(docs))
	for i, o := range ops {
		p, err := signed.take(i)
		if o == nil {
			answers[i] = s.m.answer(docs[i].ID, api.Unchanged)
			continue
		}
		if err == nil {
			answers[i], err = s.apply(o, p)
		}
		if err != nil {
			s.broken = fmt.Errorf("%w: %v", errBroken, err)
			return nil, s.broken
		}
	}
	return answers, s.maybeSnapshot()
}

// Delete removes the document id and answers the changes to the others.
func (s *Service) Delete(ctx context.Context, id string) (api.Answer, error) {
	if err := checkID(id); err != nil {
		return api.Answer{}, err
	}
	if err := ctx.Err(); err != nil {
		return api.Answer{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.broken != nil {
		return api.Answer{}, s.broken
	}
	if s.m.docs[id] == nil {
		return api.Answer{}, fmt.Errorf("%w: %s", ErrNotFound, quote(id))
	}
	if s.opts.Shared != nil {
		return api.Answer{}, ErrShared
	}
	o := &op{Delete: id}
	if err := s.store.append([]*op{o}); err != nil {
		return api.Answer{}, err
	}
	a, err := s.apply(o, nil)
	if err != nil {
		s.broken = fmt.Errorf("%w: %v", errBroken, err)
		return api.Answer{}, s.broken
	}
	return a, s.maybeSnapshot()
}

// Get answers where the document id is (status Stored), or ErrNotFound.
func (s *Service) Get(id string) (api.Answer, error) {
	if err := checkID(id); err != nil {
		return api.Answer{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.m.docs[id] == nil {
		return api.Answer{}, fmt.Errorf("%w: %s", ErrNotFound, quote(id))
	}
	return s.m.answer(id, api.Stored), nil
}

// Stats counts what the service holds.
func (s *Service) Stats() api.Stats {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.opts.Shared != nil {
		return api.Stats{Documents: len(s.m.docs), Shared: true}
	}
	return api.Stats{Documents: len(s.m.docs), Clusters: len(s.m.clusters)}
}

// Snapshot writes the detector's snapshot now and trims the log it
// covers (Close does too).
func (s *Service) Snapshot() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snapshot()
}

// Close writes a snapshot and closes the data directory.
func (s *Service) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var err error
	if s.broken == nil {
		err = s.snapshot()
	}
	return errors.Join(err, s.d.Close(), s.store.close())
}

// maybeSnapshot takes a snapshot when the log has grown past
// Options.SnapshotEvery since the last.
func (s *Service) maybeSnapshot() error {
	if s.store.last()-s.snapSeq < uint64(s.opts.SnapshotEvery) {
		return nil
	}
	return s.snapshot()
}

// snapshot writes the detector's snapshot and trims the log; the caller
// holds s.mu.
func (s *Service) snapshot() error {
	if s.opts.Shared != nil {
		return nil
	}
	seq := s.store.last()
	if seq == s.snapSeq {
		return nil
	}
	if err := writeSnapshot(s.dir, s.d, seq); err != nil {
		return fmt.Errorf("detect: snapshot: %w", err)
	}
	s.snapSeq = seq
	return s.store.trim(seq)
}

// A signing is a batch's documents being signed on up to GOMAXPROCS
// goroutines, in order, so that the first ones can be applied while
// the rest are signed (as Detector.AddSeq overlaps them). At most
// signAhead documents are signed and not yet taken (take): a signed
// document holds its text's shingle set and more, several times the
// text, so a batch of 1,000 long documents signed all at once took
// about 200 MB where the batch itself was 26 MB.
type signing struct {
	out   []*dedup.Prepared
	errs  []error
	done  []chan struct{} // done[i] is closed once out[i] or errs[i] is set
	ahead chan struct{}   // a token per document signed and not yet taken
	stop  chan struct{}   // closed when nobody takes any more: the signers stop
}

// signAhead is how many documents of a batch may be signed ahead of
// those applied: enough to keep every core signing.
func signAhead() int { return 4 * runtime.GOMAXPROCS(0) }

// sign starts signing docs (checked by checkBatch). The caller takes
// every document in order (take), or calls close to stop the signers.
func (s *Service) sign(docs []api.Document) *signing {
	sg := &signing{out: make([]*dedup.Prepared, len(docs)), errs: make([]error, len(docs)), done: make([]chan struct{}, len(docs)),
		ahead: make(chan struct{}, signAhead()), stop: make(chan struct{})}
	for i := range sg.done {
		sg.done[i] = make(chan struct{})
	}
	var next atomic.Int64
	for range min(runtime.GOMAXPROCS(0), len(docs)) {
		go func() {
			for {
				select {
				case sg.ahead <- struct{}{}:
				case <-sg.stop:
					return
				}
				i := int(next.Add(1) - 1)
				if i >= len(docs) {
					return
				}
				doc, err := toDedup(docs[i])
				if err == nil {
					sg.out[i], err = s.d.Prepare(doc)
				}
				sg.errs[i] = err
				close(sg.done[i])
			}
		}()
	}
	return sg
}

// take waits for document i to be signed and hands it over: the signing
// keeps it no longer, and signs one more.
func (sg *signing) take(i int) (*dedup.Prepared, error) {
	<-sg.done[i]
	p, err := sg.out[i], sg.errs[i]
	sg.out[i] = nil
	<-sg.ahead
	return p, err
}

// close stops the signers once the documents being signed are done.
func (sg *signing) close() { close(sg.stop) }

// apply applies op o (p: its document signed) to the detector and the
// mirror and answers for its document; the caller holds s.mu.
func (s *Service) apply(o *op, p *dedup.Prepared) (api.Answer, error) {
	if o.Delete != "" {
		ch, err := s.d.Remove(o.Delete)
		if err != nil {
			return api.Answer{}, err
		}
		return s.m.removed(s.d, ch), nil
	}
	if _, stored := s.d.Fingerprint(o.Doc.ID); stored {
		ch, err := s.d.Update(p)
		if err != nil {
			return api.Answer{}, err
		}
		return s.m.updated(s.d, ch, o.Sum), nil
	}
	res, err := s.d.Insert(p)
	if err != nil {
		return api.Answer{}, err
	}
	return s.m.inserted(s.d, res, o.Sum), nil
}

// checkBatch refuses an empty or too large batch and bad documents.
func checkBatch(docs []api.Document) error {
	switch {
	case len(docs) == 0:
		return &InputError{"no documents"}
	case len(docs) > api.MaxBatch:
		return &InputError{fmt.Sprintf("%d documents; at most %d a request", len(docs), api.MaxBatch)}
	}
	for i, doc := range docs {
		if err := checkID(doc.ID); err != nil {
			return &InputError{fmt.Sprintf("documents[%d]: %s", i, err.(*InputError).Reason)}
		}
		if _, err := parseDate(doc.Date); err != nil {
			return &InputError{fmt.Sprintf("documents[%d] (%s): %v", i, quote(doc.ID), err)}
		}
	}
	return nil
}

// checkID refuses an empty or too long id.
func checkID(id string) error {
	switch {
	case id == "":
		return &InputError{"missing id"}
	case len(id) > api.MaxIDBytes:
		return &InputError{fmt.Sprintf("id of %d bytes; at most %d", len(id), api.MaxIDBytes)}
	}
	return nil
}

// parseDate parses a document's date: RFC 3339, or YYYY-MM-DD; "" is
// the zero time.
func parseDate(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("date %s is neither RFC 3339 nor YYYY-MM-DD", quote(s))
	}
	return t, nil
}

// toDedup returns the detector's document for doc: the title is weighed
// as a crawled page's title is (Tagged).
func toDedup(doc api.Document) (dedup.Document, error) {
	t, err := parseDate(doc.Date)
	if err != nil {
		return dedup.Document{}, err
	}
	return dedup.Document{ID: doc.ID, Text: doc.Text, Title: doc.Title, Tagged: doc.Title, URL: doc.URL, Time: t}, nil
}

// docSum hashes every field of doc: equal sums, the same document.
func docSum(doc api.Document) uint64 {
	h := xxhash.New()
	for _, f := range []string{doc.ID, doc.Text, doc.Title, doc.URL, doc.Date, doc.Lang} {
		h.WriteString(f)
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// sortOps sorts ops by number.
func sortOps(ops []*op) {
	slices.SortFunc(ops, func(a, b *op) int { return cmp.Compare(a.Seq, b.Seq) })
}
