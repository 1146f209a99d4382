// Package frontier is the crawler's persistent priority frontier: a queue of
// URLs to fetch, stored in a bbolt file, that survives Ctrl-C and kill -9 and
// plugs into colly as a queue storage ([queue.Storage]).
//
// [Queue] is the frontier as the crawler uses it, with its contract (order,
// at most once, atomic and durable batches, leases for the URLs in flight,
// pacing, revisits); [Frontier] is its embedded implementation, and the
// suite in crawler/frontier/frontiertest checks any implementation against
// the contract. A Frontier's own contract:
//
//   - Priority: higher priority is fetched first; equal priorities are
//     fetched in insertion order (FIFO). Through colly the priority is the
//     request context key [PriorityKey] ("doppel.priority"), default 0.
//   - At most once: a URL (the string as given; normalize it first with
//     crawler/urlnorm) is enqueued at most once ever. Adding a URL that is
//     pending, in flight or done is a no-op. Only [Frontier.Due] (a scheduled
//     revisit) puts a done URL back in the queue.
//   - Crash safety: every state change is one bbolt transaction, fsynced
//     unless Options.NoSync; a [Batch] makes many changes in one. A popped
//     URL is in flight until [Frontier.Done], in memory only: on disk it
//     stays pending, so popping costs no commit and a restart finds every
//     URL that was in flight back in the queue with its original priority
//     and position, because its page was not recorded. A crawl
//     killed at any point therefore resumes losing no URL and never
//     re-fetching one marked done. (A page fetched but not yet marked done
//     when the process died is fetched again: at-least-once up to Done,
//     exactly-once after it.)
//   - Recrawl: [Frontier.Schedule] records a revisit time per URL and
//     [Frontier.Due] moves the due ones back to the queue, so a recrawl
//     scheduler only has to call Schedule after Done and Due periodically.
//
// On disk, bucket "pending" maps (inverted priority, sequence), both
// big-endian, to (URL, payload), so a cursor's first key is the next URL
// ("inflight", the same, is only read: files of earlier versions wrote
// popped URLs there, and Open returns them to "pending"); bucket "urls" maps
// URL to its state; "revisit" maps (time, URL) to a priority and
// "revisit-url" URL to its time; "meta" holds the counters.
//
// A Frontier is safe for concurrent use by multiple goroutines: bbolt
// serializes writers, and readers see committed states only. A claim
// (Next) does not wait for a Commit being written and synced: it reads
// the last committed state and passes over the URLs that Commit changes
// (waiting for it only when those are all it finds).
package frontier
