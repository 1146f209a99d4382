package redisfrontier_test

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/doppel-search/doppel/crawler/frontier"
	"github.com/doppel-search/doppel/crawler/frontier/redisfrontier"
	"github.com/doppel-search/doppel/internal/testrig/redistest"
)

func open(t *testing.T, rdb redis.UniversalClient, opts redisfrontier.Options) *redisfrontier.Frontier {
	t.Helper()
	f, err := redisfrontier.New(rdb, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func commit(t *testing.T, q frontier.Queue, b *frontier.Batch) {
	t.Helper()
	if _, err := q.Commit(b); err != nil {
		t.Fatal(err)
	}
}

// TestPolitenessAcrossWorkers: three workers claim as fast as they can
// from two hosts with a delay of their own and one without; no host is
// claimed twice within its delay, whoever claims.
func TestPolitenessAcrossWorkers(t *testing.T) {
	c := redistest.Start(t, 3, 0)
	rdb := c.Client()
	delays := map[string]time.Duration{"slow.example": 150 * time.Millisecond, "slower.example": 250 * time.Millisecond, "fast.example": 0}
	var workers []*redisfrontier.Frontier
	for i := range 3 {
		workers = append(workers, open(t, rdb, redisfrontier.Options{Prefix: "polite", Holder: fmt.Sprint("w", i)}))
	}
	var b frontier.Batch
	for host, d := range delays {
		if err := workers[0].Pace(host, d, time.Time{}); err != nil {
			t.Fatal(err)
		}
		for i := range 5 {
			b.Add(fmt.Sprintf("http://%s/%d", host, i), 0, nil)
		}
	}
	commit(t, workers[0], &b)
	// A claim is made at some moment between the asking (before) and
	// the answer (after), which a busy machine can stretch far apart.
	type claim struct {
		host          string
		before, after time.Time
	}
	var (
		mu     sync.Mutex
		claims []claim
		wg     sync.WaitGroup
	)
	deadline := time.Now().Add(time.Minute) // a bound against a hang: the claims end when the frontier is empty
	for _, w := range workers {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				before := time.Now()
				it, err := w.NextWhere(nil, 0)
				if errors.Is(err, frontier.ErrEmpty) {
					return
				}
				if errors.Is(err, frontier.ErrNotReady) {
					time.Sleep(5 * time.Millisecond)
					continue
				}
				if err != nil {
					t.Error(err)
					return
				}
				after := time.Now()
				mu.Lock()
				claims = append(claims, claim{strings.Split(it.URL, "/")[2], before, after})
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(claims) != 15 {
		t.Fatalf("%d claims, want 15", len(claims))
	}
	for host, d := range delays {
		var cs []claim
		for _, c := range claims {
			if c.host == host {
				cs = append(cs, c)
			}
		}
		// Two claims of one host are at least its delay apart. Each is
		// known only to lie within [before, after]: two claims are proven
		// too close when even the farthest moments of their intervals are
		// less than the delay apart (less a little for the clock's reading).
		for i := range cs {
			for j := i + 1; j < len(cs); j++ {
				farthest := max(cs[j].after.Sub(cs[i].before), cs[i].after.Sub(cs[j].before))
				if farthest < d-5*time.Millisecond {
					t.Errorf("%s claimed twice within %v; its delay is %v", host, farthest, d)
				}
			}
		}
	}
}

const childEnv = "REDISFRONTIER_CHILD"

// TestKilledWorker: a worker (a process of its own) claims a URL and is
// killed; once its lease has run out, the URL is claimed again by
// another worker — not before — at its place in the queue.
func TestKilledWorker(t *testing.T) {
	if spec := os.Getenv(childEnv); spec != "" {
		child(spec)
		return
	}
	c := redistest.Start(t, 3, 0)
	rdb := c.Client()
	q := open(t, rdb, redisfrontier.Options{Prefix: "killed", Holder: "survivor"})
	var b frontier.Batch
	b.Add("http://a.example/first", 5, []byte("p1"))
	b.Add("http://b.example/second", 1, []byte("p2"))
	commit(t, q, &b)

	const lease = 800 * time.Millisecond
	cmd := exec.Command(os.Args[0], "-test.run", "^TestKilledWorker$")
	cmd.Env = append(os.Environ(), childEnv+"="+strings.Join(c.Addrs(), ",")+"|"+lease.String())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "claimed ") {
		t.Fatalf("child said %q, %v", line, err)
	}
	claimedAt := time.Now()
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if got := strings.TrimSpace(strings.TrimPrefix(line, "claimed ")); got != "http://a.example/first" {
		t.Fatalf("the child claimed %s, want the first URL", got)
	}
	it, err := q.NextWhere(nil, 0)
	if err != nil || it.URL != "http://b.example/second" {
		t.Fatalf("claimed %q, %v; want the second URL while the first is leased", it.URL, err)
	}
	for {
		it, err = q.NextWhere(nil, 0)
		if err == nil {
			break
		}
		if !errors.Is(err, frontier.ErrEmpty) && !errors.Is(err, frontier.ErrNotReady) {
			t.Fatal(err)
		}
		if time.Since(claimedAt) > time.Minute { // generous: a busy machine stretches the wait
			t.Fatalf("the dead worker's URL is not back %v after its claim", time.Since(claimedAt))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if since := time.Since(claimedAt); since < lease-100*time.Millisecond {
		t.Errorf("the URL was claimed again %v after the dead worker's claim, within its lease %v", since, lease)
	}
	if it.URL != "http://a.example/first" || it.Priority != 5 || string(it.Payload) != "p1" {
		t.Errorf("claimed again %+v, want the first URL with its priority and payload", it)
	}
	st, err := q.Stats()
	if err != nil || st != (frontier.Stats{InFlight: 2}) {
		t.Errorf("Stats = %+v, %v; want 2 in flight", st, err)
	}
}

// child claims one URL, says which, and waits to be killed.
func child(spec string) {
	addrs, leaseS, _ := strings.Cut(spec, "|")
	lease, _ := time.ParseDuration(leaseS)
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: strings.Split(addrs, ",")})
	q, err := redisfrontier.New(rdb, redisfrontier.Options{Prefix: "killed", Holder: "doomed", Lease: lease})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	it, err := q.NextWhere(nil, 0)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println("claimed", it.URL)
	select {}
}

// TestMasterFailover: a crawl's frontier on three masters with a replica
// each (changes acknowledged by a replica, Options.Replicas) loses
// nothing and hands out nothing twice when a master is killed midway:
// every URL is claimed once and done once.
func TestMasterFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("starts six redis-server processes and fails one over")
	}
	c := redistest.Start(t, 3, 1)
	rdb := c.Client()
	q := open(t, rdb, redisfrontier.Options{Prefix: "failover", Replicas: 1})
	const hosts, perHost = 40, 10
	var b frontier.Batch
	for h := range hosts {
		for i := range perHost {
			b.Add(fmt.Sprintf("http://h%d.example/%d", h, i), i%3, nil)
		}
	}
	commit(t, q, &b)
	claimed := map[string]int{}
	step := func(n int) {
		for range n {
			it, err := q.NextWhere(nil, 0)
			if err != nil {
				t.Fatalf("claim %d: %v", len(claimed), err)
			}
			claimed[it.URL]++
			var done frontier.Batch
			done.Done(it.URL, "fetched")
			commit(t, q, &done)
		}
	}
	step(150)
	c.KillMaster(c.Masters()[0])
	step(hosts*perHost - 150)
	if _, err := q.NextWhere(nil, 0); !errors.Is(err, frontier.ErrEmpty) {
		t.Errorf("after every URL: %v, want ErrEmpty", err)
	}
	for u, n := range claimed {
		if n != 1 {
			t.Errorf("%s claimed %d times", u, n)
		}
	}
	if len(claimed) != hosts*perHost {
		t.Errorf("%d URLs claimed, want %d", len(claimed), hosts*perHost)
	}
	st, err := q.Stats()
	if err != nil || st != (frontier.Stats{Done: hosts * perHost}) {
		t.Errorf("Stats = %+v, %v; want %d done", st, err, hosts*perHost)
	}
	n := 0
	if err := q.All(func(_ string, s frontier.State, outcome string) error {
		if s != frontier.Done || outcome != "fetched" {
			t.Errorf("state %v %q", s, outcome)
		}
		n++
		return nil
	}); err != nil || n != hosts*perHost {
		t.Errorf("All saw %d URLs, %v", n, err)
	}
}

// TestPause: a host paused (Retry-After) is claimed by no worker before
// the pause ends; other hosts go on meanwhile.
func TestPause(t *testing.T) {
	c := redistest.Start(t, 3, 0)
	rdb := c.Client()
	a := open(t, rdb, redisfrontier.Options{Prefix: "pause", Holder: "a"})
	other := open(t, rdb, redisfrontier.Options{Prefix: "pause", Holder: "b"})
	var b frontier.Batch
	b.Add("http://busy.example/1", 9, nil)
	b.Add("http://calm.example/1", 0, nil)
	commit(t, a, &b)
	until := time.Now().Add(400 * time.Millisecond)
	if err := a.Pace("busy.example", 0, until); err != nil {
		t.Fatal(err)
	}
	it, err := other.NextWhere(nil, 0)
	if err != nil || it.URL != "http://calm.example/1" {
		t.Fatalf("claimed %q, %v; want the host not paused, though its priority is lower", it.URL, err)
	}
	for {
		it, err := other.NextWhere(nil, 0)
		if err == nil {
			if it.URL != "http://busy.example/1" || time.Now().Before(until.Add(-10*time.Millisecond)) {
				t.Fatalf("claimed %s at %v, the pause ends at %v", it.URL, time.Now(), until)
			}
			return
		}
		if !errors.Is(err, frontier.ErrNotReady) {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestShared: what workers share beyond the queue (frontier.Shared), on
// one cluster.
func TestShared(t *testing.T) {
	c := redistest.Start(t, 3, 0)
	rdb := c.Client()

	// Every request to a host passes Start: a request of a claim goes at
	// once, but then no other, claimed or not, while it is in flight
	// (until End), nor before the host's delay has passed since it was
	// sent (End's sent, from its Start call); one without a claim also
	// waits for the host's next claim.
	t.Run("start", func(t *testing.T) {
		const delay = 300 * time.Millisecond
		a := open(t, rdb, redisfrontier.Options{Prefix: "start", Holder: "a", Delay: delay})
		b := open(t, rdb, redisfrontier.Options{Prefix: "start", Holder: "b", Delay: delay})
		var batch frontier.Batch
		batch.Add("http://h.example/1", 0, nil)
		batch.Add("http://h.example/2", 0, nil)
		commit(t, a, &batch)
		if _, err := a.NextWhere(nil, 0); err != nil {
			t.Fatal(err)
		}
		// The claim re-armed the host: no request without a claim.
		if wait, started, err := b.Start("h.example", false); err != nil || started || wait <= 0 || wait > delay {
			t.Fatalf("a start without a claim right after a claim: wait %v, started %v, %v; want a wait in (0, %v]", wait, started, err, delay)
		}
		if wait, started, err := a.Start("h.example", true); err != nil || !started || wait != 0 {
			t.Fatalf("the claim's request: wait %v, started %v, %v; want started now", wait, started, err)
		}
		// In flight: no second request, claimed or not.
		time.Sleep(delay + 50*time.Millisecond) // the host takes its time to answer
		for _, claimed := range []bool{true, false} {
			if wait, started, err := b.Start("h.example", claimed); err != nil || started || wait <= 0 {
				t.Fatalf("a request (claimed %v) while one is in flight: wait %v, started %v, %v; want a wait", claimed, wait, started, err)
			}
		}
		// Answered after its delay, sent 10 ms after its start: the next
		// request may go at once (spaced from the answer, it waited a
		// whole delay more).
		if err := a.End("h.example", 10*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		before := time.Now()
		if wait, started, err := b.Start("h.example", true); err != nil || !started || wait != 0 {
			t.Fatalf("a request after the one before was sent its delay ago and answered: wait %v, started %v, %v; want started now", wait, started, err)
		}
		// That start re-armed the host for claims as well.
		if _, err := a.NextWhere(nil, 0); !errors.Is(err, frontier.ErrNotReady) {
			t.Errorf("a claim right after a start: %v, want ErrNotReady", err)
		}
		// Answered at once but sent 40 ms after its start: the next waits
		// the delay from that sending, not from its start.
		time.Sleep(50 * time.Millisecond)
		if err := b.End("h.example", 40*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		wait, started, err := a.Start("h.example", true)
		after := time.Now()
		if err != nil || started || wait <= 0 || wait > delay {
			t.Fatalf("a request right after the one before was answered: wait %v, started %v, %v; want a wait in (0, %v]", wait, started, err, delay)
		}
		if from := after.Add(wait).Sub(before); from < delay+40*time.Millisecond-5*time.Millisecond {
			t.Errorf("the next request may start %v after the one before, which was sent 40 ms after its start, under a delay of %v", from, delay)
		}
		// A pause holds for a claim's request too.
		if err := a.Pace("p.example", 0, time.Now().Add(delay)); err != nil {
			t.Fatal(err)
		}
		if wait, started, err := a.Start("p.example", true); err != nil || started || wait <= 0 {
			t.Errorf("a request to a paused host: wait %v, started %v, %v; want a wait", wait, started, err)
		}
	})

	// With Ahead, a host's URL may be claimed that long before its turn
	// (not earlier), and its request still waits for the turn: Start
	// records its start at the turn.
	t.Run("ahead", func(t *testing.T) {
		const (
			delay = 400 * time.Millisecond
			ahead = 150 * time.Millisecond
		)
		a := open(t, rdb, redisfrontier.Options{Prefix: "ahead", Holder: "a", Delay: delay, Ahead: ahead})
		b := open(t, rdb, redisfrontier.Options{Prefix: "ahead", Holder: "b", Delay: delay, Ahead: ahead})
		var batch frontier.Batch
		batch.Add("http://h.example/1", 0, nil)
		batch.Add("http://h.example/2", 0, nil)
		commit(t, a, &batch)
		before := time.Now()
		if _, err := a.NextWhere(nil, 0); err != nil {
			t.Fatal(err)
		}
		if wait, started, err := a.Start("h.example", true); err != nil || !started || wait != 0 {
			t.Fatalf("the first claim's request: wait %v, started %v, %v; want started now", wait, started, err)
		}
		if err := a.End("h.example", 0); err != nil {
			t.Fatal(err)
		}
		// Its turn comes a delay after the first request was sent: a
		// claim waits until ahead before it.
		if _, err := b.NextWhere(nil, 0); !errors.Is(err, frontier.ErrNotReady) {
			t.Fatalf("a claim right after the first request: %v, want ErrNotReady", err)
		}
		time.Sleep(delay - ahead + 50*time.Millisecond)
		it, err := b.NextWhere(nil, 0)
		if elapsed := time.Since(before); elapsed < delay-10*time.Millisecond && err != nil {
			t.Fatalf("a claim %v after the first, %v before the host's turn: %v, want it claimed", elapsed, delay-elapsed, err)
		}
		if err != nil || it.URL != "http://h.example/2" {
			t.Fatalf("the second claim: %v %v", it.URL, err)
		}
		// Claimed within ahead of its turn, its start is recorded at the
		// turn, in one call: the request goes then without asking again.
		wait, started, err := b.Start("h.example", true)
		after := time.Now()
		if err != nil || !started {
			t.Fatalf("the second claim's request, within ahead of its turn: wait %v, started %v, %v; want its start recorded", wait, started, err)
		}
		if gap := after.Add(wait).Sub(before); gap < delay-5*time.Millisecond {
			t.Errorf("the second request's start recorded %v after the first, under a delay of %v", gap, delay)
		}
		// Until then and until its end, it counts as in flight: another
		// claim's request waits for a delay after it.
		if w, started, err := a.Start("h.example", true); err != nil || started || time.Now().Add(w).Before(after.Add(wait+delay-5*time.Millisecond)) {
			t.Errorf("a request while a start is recorded ahead: wait %v, started %v, %v; want a wait past that start + the delay", w, started, err)
		}
		time.Sleep(wait)
		if err := b.End("h.example", 0); err != nil {
			t.Fatal(err)
		}
	})

	// Release gives a claimed URL back at its position, with its
	// priority and payload; only its holder may.
	t.Run("release", func(t *testing.T) {
		a := open(t, rdb, redisfrontier.Options{Prefix: "release", Holder: "a"})
		b := open(t, rdb, redisfrontier.Options{Prefix: "release", Holder: "b"})
		var batch frontier.Batch
		batch.Add("http://h.example/first", 3, []byte("p1"))
		batch.Add("http://h.example/second", 3, []byte("p2"))
		commit(t, a, &batch)
		it, err := a.NextWhere(nil, 0)
		if err != nil || it.URL != "http://h.example/first" {
			t.Fatalf("claimed %q, %v", it.URL, err)
		}
		if err := b.Release(it.URL); err == nil {
			t.Error("a worker released a URL another holds")
		}
		if err := a.Release(it.URL); err != nil {
			t.Fatal(err)
		}
		if st, err := a.Stats(); err != nil || st != (frontier.Stats{Pending: 2}) {
			t.Errorf("Stats = %+v, %v; want 2 pending", st, err)
		}
		it, err = b.NextWhere(nil, 0)
		if err != nil || it.URL != "http://h.example/first" || it.Priority != 3 || string(it.Payload) != "p1" {
			t.Errorf("claimed %+v, %v; want the first URL again, with its priority and payload", it, err)
		}
	})

	// InFlightElsewhere counts the other workers' leases.
	t.Run("elsewhere", func(t *testing.T) {
		a := open(t, rdb, redisfrontier.Options{Prefix: "elsewhere", Holder: "a"})
		b := open(t, rdb, redisfrontier.Options{Prefix: "elsewhere", Holder: "b"})
		var batch frontier.Batch
		for i := range 3 {
			batch.Add(fmt.Sprintf("http://h%d.example/", i), 0, nil)
		}
		commit(t, a, &batch)
		for _, w := range []*redisfrontier.Frontier{a, b, b} {
			if _, err := w.NextWhere(nil, 0); err != nil {
				t.Fatal(err)
			}
		}
		for _, w := range []struct {
			q    *redisfrontier.Frontier
			want int
		}{{a, 2}, {b, 1}} {
			if n, err := w.q.InFlightElsewhere(); err != nil || n != w.want {
				t.Errorf("%s: %d in flight elsewhere, %v; want %d", w.q.Holder(), n, err, w.want)
			}
		}
	})

	// Take and Put: one worker learns a host's robots.txt, the others wait
	// for it and then read it; a holder that never puts loses the right.
	t.Run("take", func(t *testing.T) {
		a := open(t, rdb, redisfrontier.Options{Prefix: "take", Holder: "a"})
		b := open(t, rdb, redisfrontier.Options{Prefix: "take", Holder: "b"})
		take := func(q *redisfrontier.Frontier, host string, hold time.Duration) (string, bool, bool) {
			t.Helper()
			v, known, mine, err := q.Take(host, "robots", hold)
			if err != nil {
				t.Fatal(err)
			}
			return string(v), known, mine
		}
		if _, known, mine := take(a, "h.example", time.Minute); known || !mine {
			t.Fatalf("the first to ask: known %v, mine %v; want mine", known, mine)
		}
		if _, known, mine := take(a, "h.example", time.Minute); known || !mine {
			t.Errorf("its holder asking again: known %v, mine %v; want mine", known, mine)
		}
		if _, known, mine := take(b, "h.example", time.Minute); known || mine {
			t.Errorf("another worker while it is learnt: known %v, mine %v; want neither", known, mine)
		}
		if err := a.Put("h.example", "robots", []byte("User-agent: *"), time.Minute); err != nil {
			t.Fatal(err)
		}
		if v, known, _ := take(b, "h.example", time.Minute); !known || v != "User-agent: *" {
			t.Errorf("after Put: %q, known %v", v, known)
		}
		if err := a.Put("e.example", "robots", nil, time.Minute); err != nil {
			t.Fatal(err)
		}
		if v, known, _ := take(b, "e.example", time.Minute); !known || v != "" {
			t.Errorf("an empty value: %q, known %v", v, known)
		}
		take(a, "gone.example", 100*time.Millisecond)
		time.Sleep(200 * time.Millisecond)
		if _, known, mine := take(b, "gone.example", time.Minute); known || !mine {
			t.Errorf("after the holder's time ran out: known %v, mine %v; want mine", known, mine)
		}
	})
}

// TestNextDueRead: NextDue keeps its answer a moment (it costs round
// trips to every master), but this client's own schedules and due moves
// are seen at once, and another client's within a second.
func TestNextDueRead(t *testing.T) {
	c := redistest.Start(t, 3, 0)
	rdb := c.Client()
	a := open(t, rdb, redisfrontier.Options{Prefix: "nextdue", Holder: "a"})
	b := open(t, rdb, redisfrontier.Options{Prefix: "nextdue", Holder: "b"})
	if _, ok := a.NextDue(); ok {
		t.Fatal("a revisit due in an empty frontier")
	}
	at := time.Now().Add(time.Hour).Truncate(time.Millisecond)
	var batch frontier.Batch
	batch.Schedule("http://h.example/own", at, 0, nil)
	commit(t, a, &batch)
	if due, ok := a.NextDue(); !ok || !due.Equal(at) {
		t.Errorf("right after its own schedule: NextDue %v %v, want %v", due, ok, at)
	}
	sooner := at.Add(-30 * time.Minute)
	batch = frontier.Batch{}
	batch.Schedule("http://g.example/other", sooner, 0, nil)
	commit(t, b, &batch)
	deadline := time.Now().Add(time.Second)
	for {
		due, ok := a.NextDue()
		if ok && due.Equal(sooner) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a second after another client's schedule: NextDue %v %v, want %v", due, ok, sooner)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n, err := a.Due(sooner); err != nil || n != 1 {
		t.Fatalf("Due: %d, %v; want 1", n, err)
	}
	if due, ok := a.NextDue(); !ok || !due.Equal(at) {
		t.Errorf("right after its own due move: NextDue %v %v, want %v", due, ok, at)
	}
}
