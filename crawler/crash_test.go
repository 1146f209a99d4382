package crawler

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/doppel-search/doppel/internal/demosite"
)

// The kill test runs the crawl in a child process (this test binary,
// re-executed) and kills it with SIGKILL mid-crawl.
const (
	childEnv = "DOPPEL_CRAWL_CHILD"
	childDir = "DOPPEL_CRAWL_DIR"
)

func TestMain(m *testing.M) {
	if seed := os.Getenv(childEnv); seed != "" {
		opts := testOptions(seed)
		opts.Delay = 5 * time.Millisecond // slow enough to be killed mid-crawl
		c, err := Open(os.Getenv(childDir), opts)
		if err == nil {
			err = c.Run(context.Background())
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// outcome is what a finished crawl amounts to: every URL's status, the
// cluster partition (each page with its master) and the searchable URLs.
type outcome struct {
	status     map[string]string
	master     map[string]string
	searchable []string
}

func outcomeOf(t *testing.T, c *Crawler) outcome {
	t.Helper()
	o := outcome{status: map[string]string{}, master: map[string]string{}, searchable: searchable(t, c)}
	for u, r := range records(t, c) {
		o.status[u] = string(r.Status)
	}
	for _, a := range c.Detector().Assignments() {
		o.master[a.ID] = a.Master
	}
	return o
}

func (o outcome) diff(p outcome) string {
	var out []string
	if !maps.Equal(o.status, p.status) {
		out = append(out, fmt.Sprintf("statuses differ: %d vs %d URLs", len(o.status), len(p.status)))
		for u, s := range o.status {
			if p.status[u] != s {
				out = append(out, fmt.Sprintf("  %s: %q vs %q", u, s, p.status[u]))
			}
		}
	}
	if !maps.Equal(o.master, p.master) {
		out = append(out, "clusters differ")
		for u, m := range o.master {
			if p.master[u] != m {
				out = append(out, fmt.Sprintf("  %s: master %s vs %s", u, m, p.master[u]))
			}
		}
	}
	if !slices.Equal(o.searchable, p.searchable) {
		out = append(out, fmt.Sprintf("searchable differ: %v vs %v", o.searchable, p.searchable))
	}
	return strings.Join(out, "\n")
}

func TestKillAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("kill-and-resume crawls the demo site several times; skipped with -short")
	}
	ref := newSite(t, demosite.Handler())
	want := outcomeOf(t, crawl(t, t.TempDir(), testOptions(ref.URL+"/")))
	if len(want.status) < 20 {
		t.Fatalf("reference crawl recorded only %d URLs", len(want.status))
	}

	for _, killAfter := range []int{3, 40, 150} {
		t.Run(fmt.Sprintf("kill after %d requests", killAfter), func(t *testing.T) {
			s := newSite(t, demosite.Handler())
			seed := s.URL + "/"
			dir := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), childEnv+"="+seed, childDir+"="+dir)
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(time.Minute)
			for {
				if _, n := s.hitsWhere(func(string) bool { return true }); n >= killAfter {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatal("the child crawl made too few requests")
				}
				time.Sleep(time.Millisecond)
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("child was not killed mid-crawl: %v", err)
			}
			_, before := s.hitsWhere(func(string) bool { return true })

			// Resume: Open without seeds takes the saved options.
			opts := testOptions("")
			opts.Seeds = nil
			got := outcomeOf(t, crawl(t, dir, opts))
			if d := want.diff(got.withHost(s.URL, ref.URL)); d != "" {
				t.Errorf("resumed crawl differs from the uninterrupted one:\n%s", d)
			}
			// No page is fetched twice, except the ones fetched but not
			// committed at the kill — in the workers' hands (Parallelism),
			// in the result queue (2 × Parallelism) or in the group being
			// committed — and robots.txt and the soft-404 probe, which
			// each process fetches once.
			s.mu.Lock()
			defer s.mu.Unlock()
			again := 0
			for p, n := range s.hits {
				if p == "/robots.txt" || strings.HasPrefix(p, "/doppel-probe-") {
					continue
				}
				if n > 2 {
					t.Errorf("%s requested %d times", p, n)
				}
				if n == 2 {
					again++
				}
			}
			if limit := 3*opts.Parallelism + maxGroup; again > limit {
				t.Errorf("%d pages fetched again after the kill (at %d requests), want at most %d", again, before, limit)
			}
			t.Logf("%d pages fetched again after the kill at %d requests", again, before)
		})
	}
}

// withHost rewrites the outcome's URLs from one test server to another.
func (o outcome) withHost(from, to string) outcome {
	re := func(s string) string { return strings.Replace(s, from, to, 1) }
	p := outcome{status: map[string]string{}, master: map[string]string{}}
	for u, s := range o.status {
		p.status[re(u)] = s
	}
	for u, m := range o.master {
		p.master[re(u)] = re(m)
	}
	for _, u := range o.searchable {
		p.searchable = append(p.searchable, re(u))
	}
	slices.Sort(p.searchable)
	return p
}

func TestInterruptAndResume(t *testing.T) {
	ref := newSite(t, demosite.Handler())
	want := outcomeOf(t, crawl(t, t.TempDir(), testOptions(ref.URL+"/")))

	s := newSite(t, demosite.Handler())
	dir := t.TempDir()
	c, err := Open(dir, testOptions(s.URL+"/"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for {
			if _, n := s.hitsWhere(func(string) bool { return true }); n >= 10 {
				cancel() // what Ctrl-C does in `doppel crawl`
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	if err := c.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted Run returned %v, want context.Canceled", err)
	}
	if st := c.Stats(); st.Queued == 0 {
		t.Fatalf("nothing left to do after the interruption: %+v", st)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	got := outcomeOf(t, crawl(t, dir, Options{NoSync: true}))
	if d := want.diff(got.withHost(s.URL, ref.URL)); d != "" {
		t.Errorf("resumed crawl differs from the uninterrupted one:\n%s", d)
	}
}
