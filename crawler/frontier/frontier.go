package frontier

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocolly/colly/v2/queue"
	bolt "go.etcd.io/bbolt"

	"github.com/doppel-search/doppel/internal/storecheck"
)

// PriorityKey is the colly request-context key holding a request's priority:
// a JSON number (or a decimal string) that [Frontier.AddRequest] reads.
// Higher is fetched first; absent means 0.
const PriorityKey = "doppel.priority"

// Sentinel errors, for errors.Is.
var (
	// ErrEmpty is returned by GetRequest and Next when nothing is pending,
	// as queue.Storage asks ("returns error if the queue is empty").
	ErrEmpty = errors.New("frontier: queue is empty")
	// ErrBadRequest means AddRequest got bytes that are not a colly
	// request with a URL and a numeric priority, or Add got an empty URL.
	ErrBadRequest = errors.New("frontier: bad request")
	// ErrCorrupt means a stored queue item does not decode.
	ErrCorrupt = errors.New("frontier: corrupt queue item")
	// ErrNotReady is returned by NextWhere when URLs are pending but none
	// of those it looked at was ready.
	ErrNotReady = errors.New("frontier: no pending URL is ready")
)

// State is the lifecycle state of a URL in the frontier.
type State uint8

// The states of a URL. A URL goes Pending → InFlight → Done; Open moves
// InFlight back to Pending; Due moves Done back to Pending.
const (
	Pending  State = 1 // queued, not yet handed out
	InFlight State = 2 // handed out by GetRequest/Next, not yet Done
	Done     State = 3 // recorded by the crawler, with an outcome string
)

// String returns "pending", "inflight" or "done".
func (s State) String() string {
	switch s {
	case Pending:
		return "pending"
	case InFlight:
		return "inflight"
	case Done:
		return "done"
	}
	return "State(" + strconv.Itoa(int(s)) + ")"
}

// Options configures a Frontier. The zero value is the safe default.
type Options struct {
	// NoSync skips fsync after each transaction: the file then survives a
	// killed process but not a power loss or kernel crash. For tests and
	// benchmarks only. Default false (fsync every state change).
	NoSync bool
	// LockTimeout bounds how long Open waits for the file lock held by
	// another process. Default (0) 5s.
	LockTimeout time.Duration
	// ReadOnly opens an existing frontier for reading (Stats, Seen, All)
	// beside other readers: nothing is recovered, writes fail. Default
	// false.
	ReadOnly bool
}

// Stats counts URLs by state. It is a value: a snapshot.
type Stats struct {
	Pending   int // URLs waiting to be fetched (QueueSize)
	InFlight  int // URLs handed out and not yet Done
	Done      int // URLs marked Done
	Scheduled int // revisits recorded by Schedule and not yet Due
}

// Item is a pending URL handed out by [Frontier.Next].
type Item struct {
	URL      string
	Priority int
	Payload  []byte // as given to Add or AddRequest; nil for a revisit
}

// Frontier is a persistent priority queue of URLs with a seen-set. It is
// safe for concurrent use by multiple goroutines. Open it with [Open] and
// Close it when done; only one process may have it open.
type Frontier struct {
	db  *bolt.DB
	wmu sync.Mutex // serializes writers
	// cmu serializes claims (NextWhere) with the writers' reads of them
	// and with the end of a write, so that stats match the committed
	// state. Commit holds it only at the start and the end of its
	// transaction, so that claims go on while it is written and synced;
	// the other writers hold it throughout.
	cmu   sync.Mutex
	stats atomic.Pointer[Stats] // committed counters, claims included, read without locking
	// claimed holds the URLs handed out by Next and not yet Done (the in
	// flight ones) with their pending keys. A claim is not written: on
	// disk the URL stays pending, which is where Open would put it back
	// anyway, so handing out a URL costs no transaction. Under cmu.
	claimed map[string][]byte
	// busy holds the URLs of the Commit being written, which a claim
	// meanwhile (reading the state before it) must not take: the batch
	// may move them in the queue or complete their claims. Under cmu.
	busy map[string]bool
}

var _ queue.Storage = (*Frontier)(nil)

var (
	bPending    = []byte("pending")
	bInFlight   = []byte("inflight")
	bURLs       = []byte("urls")
	bRevisit    = []byte("revisit")
	bRevisitURL = []byte("revisit-url")
	bMeta       = []byte("meta")
	kCounts     = []byte("counts")
)

// Open opens or creates the frontier file at path and recovers it: every
// URL left in flight by a previous process (killed or not) is returned to
// the queue with its original priority and position.
// Cost: O(in-flight URLs · log n).
func Open(path string, opts Options) (*Frontier, error) {
	timeout := opts.LockTimeout
	if timeout == 0 {
		timeout = 5 * time.Second
	}
	db, err := storecheck.OpenBolt(path, 0o644, &bolt.Options{Timeout: timeout, NoSync: opts.NoSync, ReadOnly: opts.ReadOnly})
	if err != nil {
		return nil, fmt.Errorf("frontier: open %s: %w", path, err)
	}
	f := &Frontier{db: db, claimed: map[string][]byte{}, busy: map[string]bool{}}
	var st Stats
	if opts.ReadOnly {
		err = db.View(func(tx *bolt.Tx) error {
			if tx.Bucket(bURLs) == nil || tx.Bucket(bMeta) == nil {
				return errors.New("not a frontier")
			}
			st = loadCounts(tx)
			return nil
		})
	} else {
		err = db.Update(func(tx *bolt.Tx) error {
			for _, name := range [][]byte{bPending, bInFlight, bURLs, bRevisit, bRevisitURL, bMeta} {
				if _, err := tx.CreateBucketIfNotExists(name); err != nil {
					return err
				}
			}
			st = loadCounts(tx)
			return requeueInFlight(tx, &st)
		})
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("frontier: recover %s: %w", path, err)
	}
	f.stats.Store(&st)
	return f, nil
}

// requeueInFlight moves every in-flight item back to pending under its key.
func requeueInFlight(tx *bolt.Tx, st *Stats) error {
	inflight, pending, urls := tx.Bucket(bInFlight), tx.Bucket(bPending), tx.Bucket(bURLs)
	var keys, vals [][]byte
	if err := inflight.ForEach(func(k, v []byte) error {
		keys, vals = append(keys, bytes.Clone(k)), append(vals, bytes.Clone(v))
		return nil
	}); err != nil {
		return err
	}
	for i, k := range keys {
		u, _, err := decodeItem(vals[i])
		if err != nil {
			return err
		}
		if err := pending.Put(k, vals[i]); err != nil {
			return err
		}
		if err := urls.Put([]byte(u), stateValue(Pending, k)); err != nil {
			return err
		}
		if err := inflight.Delete(k); err != nil {
			return err
		}
	}
	st.InFlight -= len(keys)
	st.Pending += len(keys)
	if len(keys) > 0 {
		return putCounts(tx, *st)
	}
	return nil
}

// Close closes the file. In-flight URLs stay in flight on disk and return
// to the queue on the next Open.
func (f *Frontier) Close() error {
	if err := f.db.Close(); err != nil {
		return fmt.Errorf("frontier: close: %w", err)
	}
	return nil
}

// errNoChange makes update roll back a transaction that changed nothing,
// sparing its commit and fsync.
var errNoChange = errors.New("frontier: no change")

// update runs fn in one write transaction and publishes the counters it
// changed once the transaction has committed. Errors returned by fn pass
// through unchanged; bbolt's own are wrapped. st holds the counters as
// stored (claims not counted); after, if not nil, runs under the writer
// lock once the transaction has committed.
func (f *Frontier) update(fn func(tx *bolt.Tx, st *Stats) error, after func()) error {
	f.wmu.Lock()
	defer f.wmu.Unlock()
	f.cmu.Lock()
	defer f.cmu.Unlock()
	return f.write(fn, after)
}

// updateBusy is update for a write whose claims' reads lock cmu
// themselves (f.isClaimed): claims of URLs not in urls go on meanwhile,
// while the transaction is written and synced.
func (f *Frontier) updateBusy(urls []string, fn func(tx *bolt.Tx, st *Stats) error, after func()) error {
	f.wmu.Lock()
	defer f.wmu.Unlock()
	f.cmu.Lock()
	for _, u := range urls {
		f.busy[u] = true
	}
	st := f.storedCounts()
	f.cmu.Unlock()
	var fnErr error
	err := f.db.Update(func(tx *bolt.Tx) error {
		if fnErr = fn(tx, &st); fnErr != nil {
			return fnErr
		}
		if testHookCommit != nil {
			testHookCommit()
		}
		return putCounts(tx, st)
	})
	f.cmu.Lock()
	defer f.cmu.Unlock()
	clear(f.busy)
	return f.ended(st, fnErr, err, after)
}

// testHookCommit, when set (by the tests), runs in Commit's write
// transaction before it is committed.
var testHookCommit func()

// write runs fn in one write transaction; call under wmu and cmu.
func (f *Frontier) write(fn func(tx *bolt.Tx, st *Stats) error, after func()) error {
	st := f.storedCounts()
	var fnErr error
	err := f.db.Update(func(tx *bolt.Tx) error {
		if fnErr = fn(tx, &st); fnErr != nil {
			return fnErr
		}
		return putCounts(tx, st)
	})
	return f.ended(st, fnErr, err, after)
}

// ended ends a write transaction: its error, or after and the counters
// st published. Call under wmu and cmu.
func (f *Frontier) ended(st Stats, fnErr, err error, after func()) error {
	if fnErr == errNoChange {
		return nil
	}
	if fnErr != nil {
		return fnErr
	}
	if err != nil {
		return fmt.Errorf("frontier: %w", err)
	}
	if after != nil {
		after()
	}
	f.publish(st)
	return nil
}

// storedCounts returns the counters as stored: the published ones without
// the claims. Call under cmu.
func (f *Frontier) storedCounts() Stats {
	st := *f.stats.Load()
	st.Pending += len(f.claimed)
	st.InFlight -= len(f.claimed)
	return st
}

// publish makes st (as stored) with the current claims the counters Stats
// returns. Call under cmu.
func (f *Frontier) publish(st Stats) {
	st.Pending -= len(f.claimed)
	st.InFlight += len(f.claimed)
	f.stats.Store(&st)
}

// Init implements queue.Storage. It does nothing: Open has already
// created and recovered the frontier.
func (f *Frontier) Init() error { return nil }

// AddRequest implements queue.Storage: it enqueues a colly-serialized
// request under its URL with the priority in its context key PriorityKey.
// A URL already pending, in flight or done is silently ignored (nil).
// Errors wrap ErrBadRequest for undecodable requests. Cost: one write
// transaction, O(log n) plus the JSON decoding.
func (f *Frontier) AddRequest(req []byte) error {
	var r struct {
		URL string
		Ctx map[string]any
	}
	if err := json.Unmarshal(req, &r); err != nil {
		return fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	prio, err := priorityOf(r.Ctx[PriorityKey])
	if err != nil {
		return err
	}
	_, err = f.Add(r.URL, prio, req)
	return err
}

// priorityOf reads a context priority: JSON number, decimal string or absent.
func priorityOf(v any) (int, error) {
	switch p := v.(type) {
	case nil:
		return 0, nil
	case float64:
		return int(p), nil
	case string:
		n, err := strconv.Atoi(p)
		if err != nil {
			return 0, fmt.Errorf("%w: priority %q: %w", ErrBadRequest, p, err)
		}
		return n, nil
	}
	return 0, fmt.Errorf("%w: priority of type %T", ErrBadRequest, v)
}

// Add enqueues url with the given priority (higher first) and payload
// (returned by GetRequest; nil makes GetRequest synthesize a colly GET
// request). It reports whether the URL was new: a URL already pending, in
// flight or done is not added again. Errors wrap ErrBadRequest for an empty
// URL. Cost: O(log n); a read transaction for a known URL, else one write
// transaction.
func (f *Frontier) Add(url string, priority int, payload []byte) (added bool, err error) {
	var b Batch
	b.Add(url, priority, payload)
	res, err := f.Commit(&b)
	return err == nil && res[0], err
}

// Reprioritize gives a pending URL a new priority, at a fresh FIFO
// position among its new equals, keeping its payload, and reports whether
// the URL was pending; a URL in any other state is left alone. The crawler
// uses it to demote queued URLs of a family that turned out to be
// near-duplicates. Cost: one write transaction, O(log n).
func (f *Frontier) Reprioritize(url string, priority int) (bool, error) {
	moved := false
	err := f.update(func(tx *bolt.Tx, st *Stats) error {
		var err error
		if moved, err = f.reprioritize(tx, st, url, priority, f.heldClaimed); err == nil && !moved {
			return errNoChange
		}
		return err
	}, nil)
	return moved && err == nil, err
}

// reprioritize moves a pending URL not claimed; call under wmu.
func (f *Frontier) reprioritize(tx *bolt.Tx, st *Stats, url string, priority int, claimed func(string) bool) (bool, error) {
	key, payload, err := f.pendingItem(tx, url, claimed)
	if err != nil || key == nil {
		return false, err
	}
	payload = bytes.Clone(payload)
	if err := tx.Bucket(bPending).Delete(key); err != nil {
		return false, fmt.Errorf("frontier: %w", err)
	}
	st.Pending--
	return true, enqueue(tx, st, url, priority, payload)
}

// Seen reports whether url has ever been added (pending, in flight or
// done). Cost: one read transaction, O(log n).
func (f *Frontier) Seen(url string) (bool, error) {
	seen, err := f.SeenAll([]string{url})
	if err != nil {
		return false, err
	}
	return seen[0], nil
}

// SeenAll reports, for each of urls, whether it has ever been added, in
// one read transaction. Cost: O(len(urls)·log n).
func (f *Frontier) SeenAll(urls []string) ([]bool, error) {
	seen := make([]bool, len(urls))
	err := f.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bURLs)
		var key []byte // one buffer for the keys: Get keeps none
		for i, u := range urls {
			key = append(key[:0], u...)
			seen[i] = b.Get(key) != nil
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("frontier: %w", err)
	}
	return seen, nil
}

// A Batch collects frontier changes for [Queue.Commit] ([Frontier.Commit]),
// which applies them in order, all or none: a crawler queues the links of a
// group of pages, and marks the group's URLs done, with one commit each.
// The zero value is empty. A Batch is not safe for concurrent use.
type Batch struct {
	ops []Change
}

// Add queues url as Frontier.Add does: only if it was never seen.
func (b *Batch) Add(url string, priority int, payload []byte) {
	b.ops = append(b.ops, Change{Op: OpAdd, URL: url, Priority: priority, Payload: payload})
}

// Done marks url done as Frontier.Done does.
func (b *Batch) Done(url, outcome string) {
	b.ops = append(b.ops, Change{Op: OpDone, URL: url, Outcome: outcome})
}

// Requeue puts url back in the queue at the end of its priority, with a
// new payload, whatever its state: a popped URL to fetch again later (a
// retry after a transient failure), or a done one. Its claim, if popped,
// ends with the commit.
func (b *Batch) Requeue(url string, priority int, payload []byte) {
	b.ops = append(b.ops, Change{Op: OpRequeue, URL: url, Priority: priority, Payload: payload})
}

// Reprioritize moves a pending url as Frontier.Reprioritize does.
func (b *Batch) Reprioritize(url string, priority int) {
	b.ops = append(b.ops, Change{Op: OpReprioritize, URL: url, Priority: priority})
}

// Schedule records a revisit of url as Frontier.Schedule does, with a
// payload that Due queues the URL with (nil: none).
func (b *Batch) Schedule(url string, at time.Time, priority int, payload []byte) {
	b.ops = append(b.ops, Change{Op: OpSchedule, URL: url, At: at, Priority: priority, Payload: payload})
}

// Replace gives url the payload payload if it is pending, not leased,
// and its payload is still old (as Payloads read it), keeping its
// priority and position; otherwise it changes nothing.
func (b *Batch) Replace(url string, old, payload []byte) {
	b.ops = append(b.ops, Change{Op: OpReplace, URL: url, Old: old, Payload: payload})
}

// Len returns the number of changes in the batch.
func (b *Batch) Len() int { return len(b.ops) }

// Commit applies the batch in one write transaction (none if it would
// change nothing) and reports, for each Add in order, whether its URL was
// new. After an error nothing of the batch is applied. Errors wrap
// ErrBadRequest for an empty URL. Cost: one transaction, O(log n) per
// change.
func (f *Frontier) Commit(b *Batch) (added []bool, err error) {
	if err := b.Validate(); err != nil {
		return nil, err
	}
	nAdd := 0
	for _, o := range b.ops {
		if o.Op == OpAdd {
			nAdd++
		}
	}
	if nAdd == len(b.ops) { // only adds: spare the write transaction when all are known
		known, err := f.allSeen(b.ops)
		if err != nil {
			return nil, err
		}
		if known {
			return make([]bool, nAdd), nil
		}
	}
	added = make([]bool, nAdd)
	urls := make([]string, len(b.ops))
	for i, o := range b.ops {
		urls[i] = o.URL
	}
	err = f.updateBusy(urls, func(tx *bolt.Tx, st *Stats) error {
		clear(added)
		return f.apply(tx, st, b.ops, added, f.isClaimed)
	}, func() { f.release(b.ops) })
	if err != nil {
		return nil, err
	}
	return added, nil
}

// allSeen reports whether every URL of ops was seen before.
func (f *Frontier) allSeen(ops []Change) (bool, error) {
	urls := make([]string, len(ops))
	for i, o := range ops {
		urls[i] = o.URL
	}
	seen, err := f.SeenAll(urls)
	if err != nil {
		return false, err
	}
	return !slices.Contains(seen, false), nil
}

// release ends the claims that a committed batch's Done and Requeue
// changes complete. Call under wmu and cmu.
func (f *Frontier) release(ops []Change) {
	for _, o := range ops {
		if o.Op == OpDone || o.Op == OpRequeue {
			delete(f.claimed, o.URL)
		}
	}
}

// apply applies ops in order in tx, setting added[i] for the i-th Add
// whose URL was new, and returns errNoChange if nothing changed;
// claimed tells whether a URL is claimed. Call under wmu.
func (f *Frontier) apply(tx *bolt.Tx, st *Stats, ops []Change, added []bool, claimed func(string) bool) error {
	a := applier{f: f, tx: tx, st: st, added: added, fresh: map[string]bool{}, claimed: claimed}
	for _, o := range ops {
		if err := a.apply(o); err != nil {
			return err
		}
	}
	if err := a.flush(); err != nil {
		return err
	}
	if !a.changed {
		return errNoChange
	}
	return nil
}

// An applier applies a batch's changes in one write transaction. The
// states of the URLs its adds queue are written in key order when a
// change that reads URL states comes, or at the end (see putStates).
type applier struct {
	f       *Frontier
	tx      *bolt.Tx
	st      *Stats
	added   []bool // one flag per Add of the batch
	nAdd    int    // Adds applied so far
	changed bool
	newURLs []urlState      // states of URLs queued since the last flush
	fresh   map[string]bool // their URLs
	claimed func(url string) bool
}

// apply applies one change.
func (a *applier) apply(o Change) error {
	switch o.Op {
	case OpAdd:
		return a.add(o)
	case OpSchedule:
		a.changed = true
		return schedule(a.tx, a.st, o.URL, o.At, o.Priority, o.Payload)
	}
	// Done, Requeue and Reprioritize read URL states: write the new ones
	// first.
	if err := a.flush(); err != nil {
		return err
	}
	switch o.Op {
	case OpDone:
		a.changed = true
		return done(a.tx, a.st, o.URL, o.Outcome)
	case OpRequeue:
		a.changed = true
		return requeue(a.tx, a.st, o.URL, o.Priority, o.Payload)
	case OpReplace:
		return a.replace(o)
	}
	moved, err := a.f.reprioritize(a.tx, a.st, o.URL, o.Priority, a.claimed)
	a.changed = a.changed || moved
	return err
}

// replace gives a pending, unclaimed URL whose payload is o.Old the
// payload o.Payload, at the same queue key.
func (a *applier) replace(o Change) error {
	key, payload, err := a.f.pendingItem(a.tx, o.URL, a.claimed)
	if err != nil || key == nil || !bytes.Equal(payload, o.Old) {
		return err
	}
	if err := a.tx.Bucket(bPending).Put(key, encodeItem(o.URL, o.Payload)); err != nil {
		return fmt.Errorf("frontier: replace %.80q: %w", o.URL, err)
	}
	a.changed = true
	return nil
}

// pendingItem returns the queue key and payload of url if it is pending
// and not claimed (nil key otherwise). The key is a copy, the payload
// valid for the transaction.
func (f *Frontier) pendingItem(tx *bolt.Tx, url string, claimed func(string) bool) (key, payload []byte, err error) {
	v := tx.Bucket(bURLs).Get([]byte(url))
	if v == nil || State(v[0]) != Pending || claimed(url) {
		return nil, nil, nil
	}
	key = bytes.Clone(v[1:])
	item := tx.Bucket(bPending).Get(key)
	if item == nil {
		return nil, nil, fmt.Errorf("%w: pending %.80q has no queue entry", ErrCorrupt, url)
	}
	if _, payload, err = decodeItem(item); err != nil {
		return nil, nil, err
	}
	return key, payload, nil
}

// Payloads returns for each of urls its payload if it is pending and not
// claimed, else nil, in one read transaction. Cost: O(len(urls)·log n).
func (f *Frontier) Payloads(urls []string) ([][]byte, error) {
	out := make([][]byte, len(urls))
	f.cmu.Lock() // claims
	defer f.cmu.Unlock()
	err := f.db.View(func(tx *bolt.Tx) error {
		for i, u := range urls {
			_, payload, err := f.pendingItem(tx, u, f.heldClaimed)
			if err != nil {
				return err
			}
			out[i] = bytes.Clone(payload)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("frontier: %w", err)
	}
	return out, nil
}

// heldClaimed tells whether url is claimed; call under cmu.
func (f *Frontier) heldClaimed(url string) bool {
	_, ok := f.claimed[url]
	return ok
}

// isClaimed tells whether url is claimed, under cmu.
func (f *Frontier) isClaimed(url string) bool {
	f.cmu.Lock()
	defer f.cmu.Unlock()
	return f.heldClaimed(url)
}

// add queues the URL of an Add if it was never seen.
func (a *applier) add(o Change) error {
	i := a.nAdd
	a.nAdd++
	if a.fresh[o.URL] || a.tx.Bucket(bURLs).Get([]byte(o.URL)) != nil {
		return nil
	}
	k, err := push(a.tx, a.st, o.URL, o.Priority, o.Payload)
	if err != nil {
		return err
	}
	a.newURLs = append(a.newURLs, urlState{o.URL, stateValue(Pending, k)})
	a.fresh[o.URL] = true
	a.added[i], a.changed = true, true
	return nil
}

// flush writes the states of the URLs queued since the last flush.
func (a *applier) flush() error {
	err := putStates(a.tx, a.newURLs)
	a.newURLs = nil
	clear(a.fresh)
	return err
}

// A urlState is the state of a URL to write in bucket "urls".
type urlState struct {
	url   string
	state []byte
}

// putStates writes URL states in key order: bbolt inserts keys into a page
// by shifting the ones after them, so many keys in random order cost
// quadratic time in one transaction.
func putStates(tx *bolt.Tx, states []urlState) error {
	slices.SortFunc(states, func(a, b urlState) int { return strings.Compare(a.url, b.url) })
	urls := tx.Bucket(bURLs)
	for _, s := range states {
		if err := urls.Put([]byte(s.url), s.state); err != nil {
			return fmt.Errorf("frontier: add %.80q: %w", s.url, err)
		}
	}
	return nil
}

// push puts url in the pending queue with a fresh sequence number and
// returns its queue key; the caller records the URL's state.
func push(tx *bolt.Tx, st *Stats, url string, priority int, payload []byte) ([]byte, error) {
	pending := tx.Bucket(bPending)
	seq, err := pending.NextSequence()
	if err != nil {
		return nil, fmt.Errorf("frontier: %w", err)
	}
	k := itemKey(priority, seq)
	if err := pending.Put(k, encodeItem(url, payload)); err != nil {
		return nil, fmt.Errorf("frontier: add %.80q: %w", url, err)
	}
	st.Pending++
	return k, nil
}

// enqueue puts url in pending with a fresh sequence number and marks it so.
func enqueue(tx *bolt.Tx, st *Stats, url string, priority int, payload []byte) error {
	k, err := push(tx, st, url, priority, payload)
	if err != nil {
		return err
	}
	if err := tx.Bucket(bURLs).Put([]byte(url), stateValue(Pending, k)); err != nil {
		return fmt.Errorf("frontier: add %.80q: %w", url, err)
	}
	return nil
}

// Next hands out the pending URL with the highest priority (the oldest
// among equals) and marks it in flight. Call Done once its page is
// recorded; until then a restart hands it out again. The in-flight mark
// is not written — on disk the URL stays pending, which is where a
// restart would return it anyway — so Next costs a read transaction and
// O(in flight + log n), not a commit. It returns ErrEmpty when nothing
// is pending.
func (f *Frontier) Next() (Item, error) {
	return f.NextWhere(nil, 0)
}

// NextWhere is Next for the first pending item, in priority order, that
// ready accepts (nil accepts every item), looking at no more than limit
// pending items (0: no limit). ready sees each item's URL and payload (it
// must not keep the payload) and may take a resource for the item it
// accepts (a crawler's per-host request slot): it is called once per item
// looked at, under the frontier's lock, and must not call the Frontier.
// It returns ErrEmpty when nothing is pending, and ErrNotReady when URLs
// are pending but ready accepted none of those looked at.
func (f *Frontier) NextWhere(ready func(url string, payload []byte) bool, limit int) (Item, error) {
	for {
		if f.stats.Load().Pending == 0 {
			return Item{}, ErrEmpty
		}
		it, busy, err := f.nextWhere(ready, limit)
		if !busy || !errors.Is(err, ErrEmpty) && !errors.Is(err, ErrNotReady) {
			return it, err
		}
		// It passed over URLs of the Commit being written: wait for it
		// and look again rather than answer that nothing is ready.
		f.wmu.Lock()
		//lint:ignore SA2001 an empty critical section: it waits for the writer
		f.wmu.Unlock()
	}
}

// nextWhere is one look of NextWhere, under cmu; busy says whether it
// passed over a URL of the Commit being written.
func (f *Frontier) nextWhere(ready func(url string, payload []byte) bool, limit int) (_ Item, busy bool, _ error) {
	f.cmu.Lock()
	defer f.cmu.Unlock()
	var it Item
	found, looked := false, 0
	err := f.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bPending).Cursor()
		for k, v := c.First(); k != nil && (limit <= 0 || looked < limit); k, v = c.Next() {
			u, payload, err := decodeItem(v)
			if err != nil {
				return err
			}
			if _, inFlight := f.claimed[u]; inFlight {
				continue
			}
			if f.busy[u] {
				busy = true
				continue
			}
			looked++
			if ready != nil && !ready(u, payload) {
				continue
			}
			it = Item{URL: u, Priority: keyPriority(k), Payload: bytes.Clone(payload)}
			f.claimed[u] = bytes.Clone(k)
			found = true
			return nil
		}
		return nil
	})
	switch {
	case err != nil:
		return Item{}, busy, fmt.Errorf("frontier: %w", err)
	case !found && looked == 0:
		return Item{}, busy, ErrEmpty
	case !found:
		return Item{}, busy, ErrNotReady
	}
	st := *f.stats.Load()
	st.Pending--
	st.InFlight++
	f.stats.Store(&st)
	return it, busy, nil
}

// NextDue returns the earliest revisit time Schedule recorded and not yet
// moved by Due, and false if there is none. Cost: one read transaction.
func (f *Frontier) NextDue() (time.Time, bool) {
	var at time.Time
	ok := false
	f.db.View(func(tx *bolt.Tx) error {
		if k, _ := tx.Bucket(bRevisit).Cursor().First(); k != nil {
			at, ok = time.Unix(0, unsortable(k[:8])), true
		}
		return nil
	})
	return at, ok
}

// Scheduled calls fn for every scheduled revisit, in time order, stopping
// at the first error fn returns. fn must not call the Frontier's writing
// methods. Cost: O(scheduled).
func (f *Frontier) Scheduled(fn func(url string, at time.Time) error) error {
	return f.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bRevisit).ForEach(func(k, _ []byte) error {
			return fn(string(k[8:]), time.Unix(0, unsortable(k[:8])))
		})
	})
}

// GetRequest implements queue.Storage: Next, returning the payload given to
// AddRequest or Add. For a URL added without payload (Add with nil, or a
// revisit from Due) it returns a colly GET request for the URL carrying its
// priority. It returns ErrEmpty when nothing is pending (colly's queue
// skips errors; its in-memory storage returns nil, nil instead).
// Cost: as Next.
func (f *Frontier) GetRequest() ([]byte, error) {
	it, err := f.Next()
	if err != nil {
		return nil, err
	}
	if len(it.Payload) > 0 {
		return it.Payload, nil
	}
	b, err := json.Marshal(struct {
		URL    string
		Method string
		Ctx    map[string]any
	}{it.URL, "GET", map[string]any{PriorityKey: it.Priority}})
	if err != nil {
		return nil, fmt.Errorf("frontier: %w", err)
	}
	return b, nil
}

// QueueSize implements queue.Storage: the number of pending URLs.
// Cost: O(1), no transaction.
func (f *Frontier) QueueSize() (int, error) { return f.stats.Load().Pending, nil }

// Stats returns the committed counters. Cost: O(1), no transaction.
func (f *Frontier) Stats() (Stats, error) { return *f.stats.Load(), nil }

// Done marks url done with an outcome (free text such as "fetched" or
// "skipped: robots.txt"), whatever its state: an in-flight or pending URL
// leaves the queue, a done URL gets the new outcome, and an unknown URL is
// recorded as done, so it will never be enqueued. Call it after the page is
// durably recorded. Cost: one write transaction, O(log n).
func (f *Frontier) Done(url string, outcome string) error {
	var b Batch
	b.Done(url, outcome)
	_, err := f.Commit(&b)
	return err
}

func done(tx *bolt.Tx, st *Stats, url, outcome string) error {
	if err := leave(tx, st, url); err != nil {
		return err
	}
	if err := tx.Bucket(bURLs).Put([]byte(url), stateValue(Done, []byte(outcome))); err != nil {
		return fmt.Errorf("frontier: done %.80q: %w", url, err)
	}
	st.Done++
	return nil
}

func requeue(tx *bolt.Tx, st *Stats, url string, priority int, payload []byte) error {
	if err := leave(tx, st, url); err != nil {
		return err
	}
	return enqueue(tx, st, url, priority, payload)
}

// leave takes url out of its state (queue entry and count), if it has one.
func leave(tx *bolt.Tx, st *Stats, url string) error {
	urls := tx.Bucket(bURLs)
	if v := urls.Get([]byte(url)); v != nil {
		state, key := State(v[0]), bytes.Clone(v[1:])
		var err error
		switch state {
		case Pending:
			err = tx.Bucket(bPending).Delete(key)
			st.Pending--
		case InFlight:
			err = tx.Bucket(bInFlight).Delete(key)
			st.InFlight--
		case Done:
			st.Done--
		}
		if err != nil {
			return fmt.Errorf("frontier: %w", err)
		}
	}
	return nil
}

// Schedule records that url should be fetched again at time at with the
// given priority, replacing any revisit already scheduled for it. The URL's
// state does not change until Due moves it to the queue; an unknown URL is
// allowed (it then first appears in All when due). Cost: one write
// transaction, O(log n).
func (f *Frontier) Schedule(url string, at time.Time, priority int) error {
	var b Batch
	b.Schedule(url, at, priority, nil)
	_, err := f.Commit(&b)
	return err
}

func schedule(tx *bolt.Tx, st *Stats, url string, at time.Time, priority int, payload []byte) error {
	revisit, byURL := tx.Bucket(bRevisit), tx.Bucket(bRevisitURL)
	if old := byURL.Get([]byte(url)); old != nil {
		if err := revisit.Delete(append(bytes.Clone(old), url...)); err != nil {
			return fmt.Errorf("frontier: %w", err)
		}
		st.Scheduled--
	}
	tk := sortable(at.UnixNano())
	if err := revisit.Put(append(tk, url...), append(sortable(int64(priority)), payload...)); err != nil {
		return fmt.Errorf("frontier: schedule %.80q: %w", url, err)
	}
	if err := byURL.Put([]byte(url), tk); err != nil {
		return fmt.Errorf("frontier: schedule %.80q: %w", url, err)
	}
	st.Scheduled++
	return nil
}

// Due moves every revisit scheduled at or before now back to the queue
// (state Pending, a fresh FIFO position at its scheduled priority) and
// returns how many it moved. A due URL that is still pending or in flight
// is not queued twice: its revisit is consumed, and a pending one waiting
// at a lower priority than the revisit's is raised to it (a fresh
// position, its payload kept), so an urgent revisit does not wait behind
// the backlog its URL happened to be queued in. Cost: one write
// transaction, O(k·log n) for k due revisits.
func (f *Frontier) Due(now time.Time) (int, error) {
	moved := 0
	err := f.update(func(tx *bolt.Tx, st *Stats) error {
		moved = 0
		revisit, byURL, urls := tx.Bucket(bRevisit), tx.Bucket(bRevisitURL), tx.Bucket(bURLs)
		limit := sortable(now.UnixNano())
		var keys, prios [][]byte
		c := revisit.Cursor()
		for k, v := c.First(); k != nil && bytes.Compare(k[:8], limit) <= 0; k, v = c.Next() {
			keys, prios = append(keys, bytes.Clone(k)), append(prios, bytes.Clone(v))
		}
		for i, k := range keys {
			u := string(k[8:])
			if err := revisit.Delete(k); err != nil {
				return fmt.Errorf("frontier: %w", err)
			}
			if err := byURL.Delete(k[8:]); err != nil {
				return fmt.Errorf("frontier: %w", err)
			}
			st.Scheduled--
			prio := int(unsortable(prios[i][:8]))
			if v := urls.Get(k[8:]); v != nil {
				switch State(v[0]) {
				case Pending:
					if len(v) > 1 && keyPriority(v[1:]) < prio {
						if _, err := f.reprioritize(tx, st, u, prio, f.heldClaimed); err != nil {
							return err
						}
					}
					continue
				case InFlight:
					continue
				case Done:
					st.Done--
				}
			}
			var payload []byte
			if len(prios[i]) > 8 {
				payload = prios[i][8:]
			}
			if err := enqueue(tx, st, u, prio, payload); err != nil {
				return err
			}
			moved++
		}
		return nil
	}, nil)
	return moved, err
}

// All calls fn for every URL the frontier has seen, in byte order of the
// URL, with its state and (for Done) its outcome, and stops at the first
// error fn returns, returning it. fn runs inside a read transaction: it must
// not call the Frontier's writing methods. Cost: O(n).
func (f *Frontier) All(fn func(url string, state State, outcome string) error) error {
	f.cmu.Lock()
	inFlight := maps.Clone(f.claimed)
	f.cmu.Unlock()
	return f.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bURLs).ForEach(func(k, v []byte) error {
			if err := checkState(k, v); err != nil {
				return err
			}
			state, outcome := State(v[0]), ""
			switch _, claimed := inFlight[string(k)]; {
			case state == Done:
				outcome = string(v[1:])
			case claimed:
				state = InFlight
			}
			return fn(string(k), state, outcome)
		})
	})
}

// checkState checks a URL's stored state v.
func checkState(url, v []byte) error {
	if len(v) == 0 || State(v[0]) < Pending || State(v[0]) > Done {
		return fmt.Errorf("%w: state of %.200q", ErrCorrupt, url)
	}
	return nil
}

// Verify reads every stored URL state and queue item and checks that they
// decode and agree. An error wrapping ErrCorrupt says the file is
// damaged. Cost: one read of the whole file.
func (f *Frontier) Verify() error {
	return f.db.View(func(tx *bolt.Tx) error {
		if err := tx.Bucket(bURLs).ForEach(checkState); err != nil {
			return err
		}
		for _, name := range [][]byte{bPending, bInFlight} {
			err := tx.Bucket(name).ForEach(func(k, v []byte) error {
				u, _, err := decodeItem(v)
				if err != nil || len(k) != 16 {
					return fmt.Errorf("%w: %s item %x", ErrCorrupt, name, k)
				}
				if tx.Bucket(bURLs).Get([]byte(u)) == nil {
					return fmt.Errorf("%w: %s item %.200q is not a known URL", ErrCorrupt, name, u)
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// itemKey orders by descending priority, then ascending sequence.
func itemKey(priority int, seq uint64) []byte {
	k := make([]byte, 16)
	binary.BigEndian.PutUint64(k, ^(uint64(int64(priority)) ^ 1<<63))
	binary.BigEndian.PutUint64(k[8:], seq)
	return k
}

func keyPriority(k []byte) int {
	return int(int64(^binary.BigEndian.Uint64(k) ^ 1<<63))
}

// sortable encodes n so that byte order is numeric order.
func sortable(n int64) []byte {
	return binary.BigEndian.AppendUint64(make([]byte, 0, 8), uint64(n)^1<<63)
}

func unsortable(b []byte) int64 { return int64(binary.BigEndian.Uint64(b) ^ 1<<63) }

func stateValue(s State, rest []byte) []byte {
	return append([]byte{byte(s)}, rest...)
}

// encodeItem stores uvarint(len(url)) url payload.
func encodeItem(url string, payload []byte) []byte {
	b := binary.AppendUvarint(make([]byte, 0, binary.MaxVarintLen64+len(url)+len(payload)), uint64(len(url)))
	return append(append(b, url...), payload...)
}

func decodeItem(v []byte) (url string, payload []byte, err error) {
	n, w := binary.Uvarint(v)
	if w <= 0 || uint64(len(v)-w) < n {
		return "", nil, ErrCorrupt
	}
	url, payload = string(v[w:w+int(n)]), v[w+int(n):]
	if len(payload) == 0 {
		payload = nil
	}
	return url, payload, nil
}

func loadCounts(tx *bolt.Tx) Stats {
	v := tx.Bucket(bMeta).Get(kCounts)
	if len(v) != 32 {
		return Stats{}
	}
	return Stats{
		Pending:   int(binary.BigEndian.Uint64(v)),
		InFlight:  int(binary.BigEndian.Uint64(v[8:])),
		Done:      int(binary.BigEndian.Uint64(v[16:])),
		Scheduled: int(binary.BigEndian.Uint64(v[24:])),
	}
}

func putCounts(tx *bolt.Tx, st Stats) error {
	v := make([]byte, 0, 32)
	for _, n := range []int{st.Pending, st.InFlight, st.Done, st.Scheduled} {
		v = binary.BigEndian.AppendUint64(v, uint64(n))
	}
	return tx.Bucket(bMeta).Put(kCounts, v)
}
