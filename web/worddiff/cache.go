package worddiff

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// ErrBusy means a comparison did not start: Options.MaxConcurrent were
// under way for longer than Options.Diff.Timeout.
var ErrBusy = errors.New("worddiff: too many comparisons under way")

// CacheOptions configures a Cache. The zero value means the defaults.
type CacheOptions struct {
	// Diff configures the comparisons.
	Diff Options
	// MaxEntries is how many results are kept (least recently used go
	// first). Default 256.
	MaxEntries int
	// MaxBytes bounds the text of the results kept, in bytes. Default
	// 16 MiB.
	MaxBytes int
	// MaxConcurrent is how many comparisons run at once; more wait, up to
	// Options.Diff.Timeout, then give ErrBusy. Default GOMAXPROCS.
	MaxConcurrent int
}

// Stats are a Cache's counters since NewCache.
type Stats struct {
	Computed uint64 // comparisons run
	TooLarge uint64 // comparisons that gave ErrTooLarge (counted in Computed)
	Busy     uint64 // comparisons that did not start (ErrBusy)
	Hits     uint64 // answers from the cache
	Shared   uint64 // answers from a comparison another caller started
	Entries  int    // results kept now
	Bytes    int    // text of the results kept now
}

// A Cache computes diffs and keeps the recent ones. It is safe for
// concurrent use.
type Cache struct {
	opts CacheOptions

	mu      sync.Mutex
	lru     *list.List               // of *entry, most recent first
	byKey   map[string]*list.Element // of lru
	flights map[string]*flight
	bytes   int
	running chan struct{} // a token per comparison running

	computed, tooLarge, busy, hits, shared atomic.Uint64
}

type entry struct {
	key   string
	res   Result
	err   error // nil or ErrTooLarge: a comparison's own outcome
	bytes int
}

// flight is a comparison under way.
type flight struct {
	done chan struct{}
	res  Result
	err  error
}

// EnsureDefaults sets every zero field to its default (each field's doc
// says which) and returns o.
func (o *CacheOptions) EnsureDefaults() *CacheOptions {
	o.Diff.EnsureDefaults()
	if o.MaxEntries <= 0 {
		o.MaxEntries = 256
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = 16 << 20
	}
	if o.MaxConcurrent <= 0 {
		o.MaxConcurrent = runtime.GOMAXPROCS(0)
	}
	return o
}

// NewCache returns an empty Cache.
func NewCache(opts CacheOptions) *Cache {
	opts.EnsureDefaults()
	return &Cache{opts: opts, lru: list.New(), byKey: map[string]*list.Element{}, flights: map[string]*flight{},
		running: make(chan struct{}, opts.MaxConcurrent)}
}

// Options returns the options in effect, defaults applied.
func (c *Cache) Options() CacheOptions { return c.opts }

// Diff returns the diff cached under key, or compares the texts that texts
// returns (called at most once per comparison). Callers asking for one key
// at the same time share one comparison, which runs on its own for up to
// Options.Diff.Timeout: a caller whose ctx ends first gets ctx's error,
// and the comparison goes on for the others and the cache. Results and
// ErrTooLarge are kept; errors from texts and ErrBusy are not. key must
// identify the texts (say, the two documents' ids and versions). Results
// are shared between callers: do not modify their Edits.
func (c *Cache) Diff(ctx context.Context, key string, texts func() (a, b string, err error)) (Result, error) {
	c.mu.Lock()
	if el, ok := c.byKey[key]; ok {
		c.lru.MoveToFront(el)
		e := el.Value.(*entry)
		c.mu.Unlock()
		c.hits.Add(1)
		return e.res, e.err
	}
	f, ok := c.flights[key]
	if ok {
		c.shared.Add(1)
	} else {
		f = &flight{done: make(chan struct{})}
		c.flights[key] = f
		go c.run(key, f, texts)
	}
	c.mu.Unlock()
	select {
	case <-f.done:
		return f.res, f.err
	case <-ctx.Done():
		return Result{}, fmt.Errorf("worddiff: %w", ctx.Err())
	}
}

func (c *Cache) run(key string, f *flight, texts func() (string, string, error)) {
	defer close(f.done)
	err := c.compare(f, texts)
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.flights, key)
	if err != nil {
		f.err = err
		return
	}
	if errors.Is(f.err, ErrTooLarge) {
		c.tooLarge.Add(1)
	}
	e := &entry{key: key, res: f.res, err: f.err, bytes: len(key)}
	for _, ed := range f.res.Edits {
		e.bytes += len(ed.Text) + 32
	}
	if e.bytes > c.opts.MaxBytes {
		return
	}
	c.byKey[key] = c.lru.PushFront(e)
	c.bytes += e.bytes
	for c.lru.Len() > c.opts.MaxEntries || c.bytes > c.opts.MaxBytes {
		old := c.lru.Remove(c.lru.Back()).(*entry)
		delete(c.byKey, old.key)
		c.bytes -= old.bytes
	}
}

// compare waits for a token and runs the comparison into f; it returns
// an error that is not the comparison's own (not to be cached).
func (c *Cache) compare(f *flight, texts func() (string, string, error)) error {
	wait := time.NewTimer(c.opts.Diff.Timeout)
	defer wait.Stop()
	select {
	case c.running <- struct{}{}:
	case <-wait.C:
		c.busy.Add(1)
		return fmt.Errorf("%w (%d)", ErrBusy, c.opts.MaxConcurrent)
	}
	defer func() { <-c.running }()
	a, b, err := texts()
	if err != nil {
		return err
	}
	c.computed.Add(1)
	f.res, f.err = Diff(context.Background(), a, b, c.opts.Diff)
	return nil
}

// Stats returns the counters.
func (c *Cache) Stats() Stats {
	c.mu.Lock()
	n, b := c.lru.Len(), c.bytes
	c.mu.Unlock()
	return Stats{Computed: c.computed.Load(), TooLarge: c.tooLarge.Load(), Busy: c.busy.Load(), Hits: c.hits.Load(), Shared: c.shared.Load(),
		Entries: n, Bytes: b}
}
