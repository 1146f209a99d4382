package crawler

import (
	"context"
	"errors"
	"sync"
)

// A crawlRun is one Run (or, kept alive, Watch) of a crawl: it wires
// the crawl's parts around a dispatcher of its own — the committer's
// goroutine, the sitemap reader's and Parallelism fetch goroutines, each
// taking URLs from the dispatcher, fetching them and handing the results
// to the committer — and waits for them to end.
type crawlRun struct {
	c    *Crawler
	keep bool // Watch: the crawl stays alive for revisits
}

// run runs the crawl until it is over (see Crawler.Run, Watch).
func (r crawlRun) run(ctx context.Context) error {
	c, keep := r.c, r.keep
	cm := c.commit
	if err := cm.queueSeeds(); err != nil {
		return err
	}
	defer c.n.health.sampling(c.Stats)() // samples now, while the crawl runs and at its end
	// Two results a fetch goroutine: pages fetched wait for the committer,
	// which queues their links and decides their priorities, rather than
	// the dispatcher handing out URLs ahead of what those pages taught.
	// (Room for a whole group, 64, let the goroutines run on while the
	// committer synced, 4 % sooner on Rust's documentation, but a wiki's
	// crawl then fetched its pages later among its requests:
	// TestWikiRequestsPerPage failed 10 times in 40 on a busy machine.)
	results := make(chan *result, 2*c.opts.Parallelism)
	budget := func(fresh int) bool { return c.n.requests.Load()+int64(fresh) < int64(c.opts.MaxPages) }
	d := newDispatcher(ctx, c.front, c.turns, c.pacer, c.fatal, budget, keep)
	c.running.Store(d)
	defer c.running.Store(nil)
	cm.writer = newRecordWriter(c.pages, cm.lastRev)
	var committed sync.WaitGroup
	committed.Go(func() { cm.commitLoop(results, d) })
	col := c.fetch.collector(ctx)
	c.n.health.countBodies(col)
	var fetches, readers sync.WaitGroup // the fetch goroutines, the sitemap reader
	d.begin()                           // the first reading of the sitemaps
	readers.Go(func() { c.maps.read(ctx, d, results, keep) })
	for range c.opts.Parallelism {
		fetches.Go(func() { c.fetch.loop(ctx, col, d, results) })
	}
	fetches.Wait()
	readers.Wait()
	close(results)
	committed.Wait()
	flushErr := cm.finish(ctx.Err() == nil)
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := errors.Join(d.err, c.fatal.fatalErr(), flushErr); err != nil {
		return err
	}
	if !keep && c.n.fetched.Load() == 0 {
		return cm.role.fetchedNothing()
	}
	return nil
}
