package frontier

import (
	"fmt"
	"slices"
	"time"
)

// Queue is the frontier as the crawler uses it: a priority queue of URLs
// with a seen-set, leases for the URLs in flight and scheduled revisits.
// [Frontier], a bbolt file, is the embedded implementation; a distributed
// one (a Redis Cluster, hosts hashed into lanes) implements the same
// contract, which the suite in crawler/frontier/frontiertest checks.
//
// Contract:
//
//   - Order. A claim (NextWhere) takes the pending URL with the highest
//     priority, the oldest among equals (FIFO): the position of a URL is
//     the moment it was queued (Add, Requeue, Reprioritize, Due), and it
//     keeps that position while it waits.
//   - At most once. A URL (the string as given: normalize it first) is
//     queued at most once ever: an Add of a URL that is pending, in flight
//     or done is a no-op, reported as not added. Only Requeue and a due
//     revisit (Schedule, then Due) queue a seen URL again.
//   - Commit. A [Batch] carries changes; Commit applies them in the order
//     made, all of them or, after an error, none (it validates the whole
//     batch first: [Batch.Validate]). Once Commit returns, the changes are
//     durable (they survive the process; the bbolt implementation fsyncs
//     unless Options.NoSync) and every later call of any client sees them.
//     Commit is where writes are batched: a crawler commits the links and
//     done marks of a group of pages at once.
//   - Leases. A claim hands out one URL and leases it: the URL is in flight
//     (Stats.InFlight, State InFlight) until a committed Done or Requeue of
//     it ends the lease; no other claim hands it out meanwhile. A claim
//     must be atomic — taking the earliest eligible URL and leasing it is
//     one step, so two workers never get the same URL — and it is never
//     batched. A lease is not a completion: if its holder dies (a killed
//     process, a Close without Done) the URL returns to the queue with its
//     priority and position, and is handed out again (at least once up to
//     Done, exactly once after it). The bbolt implementation keeps leases
//     in memory only, so a claim costs no write and a restart finds them
//     pending; a distributed implementation records the holder and an
//     expiry with the lease and returns a dead worker's leases.
//   - Pacing. Per-host pacing is the caller's: NextWhere offers pending
//     URLs in queue order to the caller's accept function, which may take
//     a per-host slot for the URL it accepts. An implementation may instead
//     pace server-side (hosts hashed into lanes, a claim that takes the
//     earliest eligible URL and re-arms its host in one atomic script) and
//     offer only URLs it considers eligible; accept keeps its veto.
//   - Payloads. Payloads reads the payloads of pending, unleased URLs;
//     Replace (in a Batch) gives such a URL a new payload if its payload
//     is still the one read, keeping its priority and position: a crawler
//     lowers the depth of a queued URL a shorter path reached, and two
//     clients replacing at once never undo each other's change.
//   - Revisits. Schedule (in a Batch) records a revisit time per URL,
//     replacing the one before; Due moves the revisits due back to the
//     queue in one atomic step; NextDue tells when the next one is due.
//   - Concurrency. A Queue is safe for concurrent use by multiple
//     goroutines; callbacks (accept, All's and Scheduled's fn) must not
//     call the Queue.
type Queue interface {
	// Commit applies the batch's changes in order, atomically and
	// durably (see the contract), and reports for each Add in order
	// whether its URL was new. An invalid batch (an empty URL) returns
	// an error wrapping ErrBadRequest and applies nothing. Commit does
	// not change the batch.
	Commit(b *Batch) (added []bool, err error)

	// NextWhere claims (leases) the first pending URL, in queue order,
	// that accept accepts (nil accepts all), looking at no more than
	// limit pending URLs (0: no limit); URLs in flight are skipped and
	// not counted. accept sees each URL looked at once, in queue order,
	// with its payload (not to be kept); once it returns true, NextWhere
	// returns that URL and calls accept no more. It returns ErrEmpty when
	// no URL is pending (in flight ones do not count), and ErrNotReady
	// when URLs are pending but accept took none of those looked at.
	NextWhere(accept func(url string, payload []byte) bool, limit int) (Item, error)

	// Due moves every revisit scheduled at or before now to the queue, at
	// its scheduled priority and payload and a fresh position, and
	// returns how many URLs it queued. The revisit of a URL pending or in
	// flight is consumed without queuing it twice; a revisit of a URL
	// never seen queues it (it is seen from then on).
	Due(now time.Time) (int, error)

	// NextDue returns the earliest scheduled revisit not yet moved by
	// Due, and false if there is none (or it cannot be read).
	NextDue() (time.Time, bool)

	// SeenAll reports for each of urls whether it was ever queued or
	// marked done (pending, in flight or done), from one consistent
	// state.
	SeenAll(urls []string) ([]bool, error)

	// Payloads returns for each of urls its payload if it is pending and
	// not leased, else nil (as for a pending URL queued without one).
	Payloads(urls []string) ([][]byte, error)

	// All calls fn for every URL seen, in byte order of the URL, with its
	// state and, for a done URL, its outcome; it stops at the first error
	// fn returns and returns it.
	All(fn func(url string, state State, outcome string) error) error

	// Scheduled calls fn for every revisit not yet due-moved, in time
	// order, stopping at the first error fn returns and returning it.
	Scheduled(fn func(url string, at time.Time) error) error

	// Stats returns the counters: pending (not leased) URLs, leased ones,
	// done ones and scheduled revisits.
	Stats() (Stats, error)

	// Close ends this client. Leases it holds are not completed: they
	// return to the queue for the next client (see the contract).
	Close() error
}

var _ Queue = (*Frontier)(nil)

// A Paced queue paces hosts itself, for every client (see Pacing in the
// Queue contract): a claim takes no URL of a host before its delay since
// the host's last claim has passed, nor before a pause ends. Its claims
// may then lose a URL that accept accepted to another client and go on
// with the next: the caller gives back what accept took for a URL not
// returned.
type Paced interface {
	// Pace sets host's delay between claims (0: the queue's default) and
	// pauses it until until (zero: no pause), for every client.
	Pace(host string, delay time.Duration, until time.Time) error
	// NextReady returns the earliest time a host with pending URLs may
	// be claimed, as the last claim saw it, and false if none has any.
	NextReady() (time.Time, bool)
}

// A Shared queue is one that several crawlers (workers) use at once, each
// with a client of its own. On top of pacing its hosts' claims (Paced) it
// spaces every request to a host, whoever sends it: a page's, robots.txt's,
// a sitemap's (Start, End); it takes back a claimed URL whose host's turn went
// to another request (Release); it tells how many URLs other clients
// have in flight (InFlightElsewhere); and it keeps what the crawlers learn
// per host — robots.txt, the answer for a missing page, the sitemaps read
// — for all of them (Take, Put), so that one fetches it and the others
// read it.
type Shared interface {
	Paced
	// Start reports whether a request to host may start: if it may now,
	// Start records the start and returns (0, true); if the caller holds
	// a claim and the host's turn comes within the frontier's ahead (see
	// Paced), it may record the start at the turn and return (wait,
	// true): the request goes wait from now, without asking again; else
	// it returns how long to wait before asking again and false. For a
	// host with a delay, a request may start when no other is in flight
	// (End), the delay has passed since the last one started and since
	// it was sent at the latest (End's sent: so the host sees its
	// requests at least the delay apart, however long one took to
	// leave), and its pause has ended; claimed says that the caller holds
	// a claim of a URL of the host (NextWhere returned it) not yet spent
	// on a request, else the request must also wait until the host's next
	// claim is due (a claim re-arms its host for the request it stands
	// for). A start re-arms the host at its time + its delay.
	Start(host string, claimed bool) (wait time.Duration, started bool, err error)
	// End records that a request Start let go was answered, or failed,
	// and sent, how long after its start the request was sent at the
	// latest — after the Start call that let it go began, plus the wait
	// of a start recorded ahead (the time to its answer if that is not
	// known): the host's next request may start now, and its delay after
	// that sending. Call it for every request Start let go, and for a
	// start recorded ahead whose request was not sent.
	End(host string, sent time.Duration) error
	// Release gives a URL this client claimed back to the queue at its
	// position, with its priority and payload, its lease ended and its
	// host's turn spent: the crawler used the turn for another request of
	// the host (robots.txt) and fetches the URL at a later claim.
	Release(url string) error
	// InFlightElsewhere returns the number of URLs leased to other
	// clients: a crawler with nothing in flight, facing an empty queue,
	// waits while their pages may still queue links.
	InFlightElsewhere() (int, error)
	// Take returns what a client Put under host and name (known), or else
	// takes the right to learn it for hold (mine) unless another client
	// holds it (neither known nor mine: ask again later). A holder that
	// does not Put within hold loses the right to the next that asks.
	Take(host, name string, hold time.Duration) (value []byte, known, mine bool, err error)
	// Put keeps value under host and name for ttl, for every client, and
	// ends the right Take gave.
	Put(host, name string, value []byte, ttl time.Duration) error
}

// Op is the kind of a [Change].
type Op uint8

// The kinds of change a Batch carries.
const (
	OpAdd          Op = iota + 1 // queue URL with Priority and Payload if never seen
	OpDone                       // mark URL done with Outcome, ending its lease
	OpRequeue                    // queue URL again at the end of Priority with Payload, ending its lease
	OpReprioritize               // move a pending, unleased URL to Priority at a fresh position
	OpSchedule                   // record a revisit of URL at At with Priority and Payload
	OpReplace                    // give a pending, unleased URL whose payload is Old the payload Payload
)

// String returns the name of the Batch method that makes the change.
func (o Op) String() string {
	switch o {
	case OpAdd:
		return "Add"
	case OpDone:
		return "Done"
	case OpRequeue:
		return "Requeue"
	case OpReprioritize:
		return "Reprioritize"
	case OpSchedule:
		return "Schedule"
	case OpReplace:
		return "Replace"
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// A Change is one change in a [Batch], as an implementation of [Queue]
// reads it to apply it. Fields a kind does not use are zero.
type Change struct {
	Op       Op
	URL      string
	Priority int       // Add, Requeue, Reprioritize, Schedule
	Payload  []byte    // Add, Requeue, Schedule, Replace; not to be modified
	Old      []byte    // Replace: the payload it replaces; not to be modified
	Outcome  string    // Done
	At       time.Time // Schedule
}

// Changes returns the batch's changes in the order they were made, for
// an implementation of [Queue] to apply.
func (b *Batch) Changes() []Change { return slices.Clone(b.ops) }

// Validate reports whether the batch may be committed: every change needs
// a URL. Errors wrap ErrBadRequest. An implementation calls it before
// applying anything.
func (b *Batch) Validate() error {
	for i, c := range b.ops {
		if c.URL == "" {
			return fmt.Errorf("%w: change %d (%v): empty URL", ErrBadRequest, i, c.Op)
		}
	}
	return nil
}
