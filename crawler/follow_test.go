package crawler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/page"
)

// fakeLog is a page log's entries in memory: Next returns them in order,
// then waits for ctx.
type fakeLog struct {
	entries []LogEntry
	next    int
	kill    int    // kill the process (SIGKILL) when asked for entry kill (0: never)
	start   uint32 // the position before the first entry
}

func (l *fakeLog) Next(ctx context.Context) (LogEntry, error) {
	if l.kill > 0 && l.next == l.kill {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}
	if l.next == len(l.entries) {
		<-ctx.Done()
		return LogEntry{}, ctx.Err()
	}
	l.next++
	return l.entries[l.next-1], nil
}

func (l *fakeLog) Position() uint32 {
	if l.next == 0 {
		return l.start
	}
	return l.entries[l.next-1].N + 1
}

// from returns the entries from position pos on.
func (l *fakeLog) from(pos uint32) *fakeLog {
	out := &fakeLog{kill: l.kill, start: pos}
	for _, e := range l.entries {
		if e.N >= pos {
			out.entries = append(out.entries, e)
		}
	}
	return out
}

func pageEntry(n uint32, url, text string) LogEntry {
	rec := pages.Record{Page: page.Page{URL: url, Title: "Title of " + url, Blocks: []string{text}, Text: text},
		Status: pages.Fetched, FetchedAt: time.Unix(1, 0).UTC()}
	return LogEntry{N: n, Handed: Handed{Page: &rec}}
}

func decisionEntry(n uint32, recs ...pages.Record) LogEntry {
	return LogEntry{N: n, Handed: Handed{Decisions: recs}, Note: true}
}

func anchorsEntry(n uint32, anchors map[string][]string) LogEntry {
	return LogEntry{N: n, Handed: Handed{Anchors: anchors}, Note: true}
}

// mustJSON returns v in JSON.
func mustJSON(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return data
}

// TestFollower: a Follower records and indexes a shared crawl's log as
// its own detector places each page (a copy hidden under its master, a
// master taken over), indexes a page with the anchor texts found before
// it, records the decisions but never over a fetched page, keeps
// its position, resumes from it, re-applies what a crash lost without a
// change, and refuses a damaged position.
func TestFollower(t *testing.T) {
	const a, b, c, d = "http://h/a", "http://h/a/print", "http://h/private/c", "http://h/d"
	log := &fakeLog{entries: []LogEntry{
		pageEntry(0, b, "the annual leave policy of the company in full"),
		pageEntry(1, a, "the annual leave policy of the company in full"), // takes the cluster over
		decisionEntry(3, pages.Record{Page: page.Page{URL: c}, Status: pages.Skipped, Reason: "disallowed by robots.txt"},
			pages.Record{Page: page.Page{URL: d}, Status: pages.Failed, Reason: "HTTP 503", Transient: true}),
		anchorsEntry(4, map[string][]string{d: {"Expenses form"}}),
		pageEntry(5, d, "the travel expenses form and how to fill it in"),
		decisionEntry(6, pages.Record{Page: page.Page{URL: d}, Status: pages.Failed, Reason: "HTTP 500"}), // a stale worker's
	}}
	dir := filepath.Join(t.TempDir(), "crawl")
	opts := Options{Seeds: []string{"http://h/"}, NoSync: true, RefreshInterval: time.Hour}
	follow := func(es *fakeLog) *Follower {
		t.Helper()
		f, err := OpenFollower(dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- f.Follow(ctx, es, nil) }()
		for f.Stats().Position < 7 {
			time.Sleep(time.Millisecond)
		}
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("Follow: %v", err)
		}
		return f
	}
	check := func(f *Follower) {
		t.Helper()
		if f.Position() != 7 {
			t.Errorf("position %d, want 7", f.Position())
		}
		want := map[string]string{a: "fetched " + a + " true", b: "fetched " + a + " false", c: "skipped  false", d: "fetched " + d + " true"}
		got := map[string]string{}
		err := f.View().Entries(func(e Entry) error {
			got[e.URL] = strings.Join([]string{e.Status, e.Master, map[bool]string{true: "true", false: "false"}[e.Indexed]}, " ")
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for u, w := range want {
			if got[u] != w {
				t.Errorf("%s: %q, want %q", u, got[u], w)
			}
		}
		if len(got) != len(want) {
			t.Errorf("%d URLs recorded, want %d: %v", len(got), len(want), got)
		}
	}
	f := follow(log)
	if st := f.Stats(); st.Pages != 3 || st.Decisions != 2 {
		t.Errorf("stats %+v: want 3 pages and 2 decisions (the stale one left out)", st)
	}
	check(f)
	if rec, _, err := f.c.pages.Get(d); err != nil || !slices.Contains(rec.Anchors, "Expenses form") {
		t.Errorf("%s recorded with anchors %q (%v), want the anchor text another worker found", d, rec.Anchors, err)
	}
	f.Close()

	// Reopened without seeds: the saved options and the position.
	f, err := OpenFollower(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Position() != 7 {
		t.Errorf("reopened at %d, want 7", f.Position())
	}
	f.Close()

	// A crash before the position was kept: everything applied again.
	if err := os.Remove(filepath.Join(dir, positionFile)); err != nil {
		t.Fatal(err)
	}
	f = follow(log.from(0))
	check(f)
	f.Close()

	if err := os.WriteFile(filepath.Join(dir, positionFile), []byte("garbage!"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenFollower(dir, Options{}); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("a damaged position: %v", err)
	}
}

// The follower kill test runs a Follower in a child process (this test
// binary, re-executed) and kills it with SIGKILL mid-log.
const (
	followChildEnv = "DOPPEL_FOLLOW_CHILD" // the child's data directory
	followKillAt   = "DOPPEL_FOLLOW_KILL_AT"
	// followKillRecluster: the child kills itself once a re-clustering
	// has changed records (committed) and index (not flushed).
	followKillRecluster = "DOPPEL_FOLLOW_KILL_RECLUSTER"
)

// bigLog is a shared crawl's log of n pages: every third page with a
// printer-friendly copy logged after it, some copies before their
// original (a master taken over), a decision every seventh number.
func bigLog(n int) *fakeLog {
	words := strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango")
	text := func(i int) string {
		var b strings.Builder
		for j := range 40 {
			b.WriteString(words[(i*7+j*j+j*i)%len(words)] + " ")
			b.WriteString(words[(i+j)%len(words)] + "x ")
		}
		return b.String()
	}
	l := &fakeLog{}
	num := uint32(0)
	add := func(e LogEntry) {
		e.N = num
		l.entries = append(l.entries, e)
		num += 2 // a number given up between: the reader skipped it
	}
	for i := range n {
		orig, print := fmt.Sprintf("http://h/p%d", i), fmt.Sprintf("http://h/p%d/print", i)
		if i%3 == 0 && i%2 == 0 {
			add(pageEntry(0, print, text(i)))
		}
		add(pageEntry(0, orig, text(i)))
		if i%3 == 0 && i%2 == 1 {
			add(pageEntry(0, print, text(i)+" printed"))
		}
		if i%7 == 0 {
			add(decisionEntry(0, pages.Record{Page: page.Page{URL: fmt.Sprintf("http://h/private/%d", i)}, Status: pages.Skipped, Reason: "disallowed by robots.txt"}))
		}
	}
	return l
}

// followAll follows es in dir until its last entry is applied.
func followAll(t testing.TB, dir string, es *fakeLog, opts Options) *Follower {
	f, err := OpenFollower(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	es = es.from(f.Position())
	end := f.Position()
	if len(es.entries) > 0 {
		end = es.entries[len(es.entries)-1].N + 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Follow(ctx, es, nil) }()
	for f.Stats().Position < end {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // idle: the last re-clustering
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	return f
}

// followOptions are the kill test's: a flush after nearly every entry, so
// that a kill falls between any two steps.
func followOptions() Options {
	return Options{Seeds: []string{"http://h/"}, NoSync: true, RefreshInterval: 2 * time.Millisecond}
}

// followChild follows bigLog in dir and is killed where the environment
// says; it exits only if it is not.
func followChild(dir string) {
	es := bigLog(300)
	if k, err := strconv.Atoi(os.Getenv(followKillAt)); err == nil {
		es.kill = k
	}
	if os.Getenv(followKillRecluster) != "" {
		testHookRecluster = func() { syscall.Kill(os.Getpid(), syscall.SIGKILL) }
	}
	f, err := OpenFollower(dir, followOptions())
	if err == nil {
		err = f.Follow(context.Background(), es.from(f.Position()), nil)
	}
	fmt.Fprintln(os.Stderr, "not killed:", err)
	os.Exit(1)
}

// followOutcome is what a follower's directory amounts to: every URL's
// status, master and whether it is indexed.
func followOutcome(t *testing.T, f *Follower) map[string]string {
	out := map[string]string{}
	err := f.View().Entries(func(e Entry) error {
		out[e.URL] = fmt.Sprint(e.Status, " ", e.Master, " ", e.Indexed)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFollowerKilled: a follower killed mid-log — between two entries, or
// after a re-clustering's records and before its index flush — and opened
// again ends as one that was never killed: every URL's status, master and
// place in the index.
func TestFollowerKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("kills child processes")
	}
	log := bigLog(300)
	ref := followAll(t, t.TempDir(), log, followOptions())
	want := followOutcome(t, ref)
	ref.Close()
	for _, tc := range []struct {
		name string
		env  string
	}{
		{"entry 97", followKillAt + "=97"},
		{"entry 251", followKillAt + "=251"},
		{"recluster", followKillRecluster + "=1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "f")
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), followChildEnv+"="+dir, tc.env)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("the child was not killed: %v: %s", err, out)
			}
			killedAt, err := readPosition(dir)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("killed at position %d of %d", killedAt, log.entries[len(log.entries)-1].N+1)
			f := followAll(t, dir, log, followOptions())
			defer f.Close()
			if f.Position() == 0 {
				t.Error("the killed follower kept no position")
			}
			got := followOutcome(t, f)
			for u, w := range want {
				if got[u] != w {
					t.Errorf("%s: %q after the kill, %q unkilled", u, got[u], w)
				}
			}
			if len(got) != len(want) {
				t.Errorf("%d URLs after the kill, %d unkilled", len(got), len(want))
			}
		})
	}
}
