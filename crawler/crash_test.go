package crawler

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/internal/demosite"
)

// The kill test runs the crawl in a child process (this test binary,
// re-executed) and kills it with SIGKILL mid-crawl.
const (
	childEnv = "DOPPEL_CRAWL_CHILD"
	childDir = "DOPPEL_CRAWL_DIR"
	// childWatch: the child keeps its crawl alive (Watch) with the
	// revisit intervals of recrawlOptions, until it is killed.
	childWatch = "DOPPEL_CRAWL_WATCH"
	// childKillRecluster: the child kills itself once a re-clustering
	// has changed records (committed) and index (not flushed).
	childKillRecluster = "DOPPEL_CRAWL_KILL_RECLUSTER"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(followChildEnv); dir != "" {
		followChild(dir)
	}
	if seed := os.Getenv(childEnv); seed != "" {
		opts := testOptions(seed)
		opts.Delay = 5 * time.Millisecond // slow enough to be killed mid-crawl
		run := (*Crawler).Run
		if os.Getenv(childWatch) != "" {
			opts = recrawlOptions(seed)
			run = (*Crawler).Watch
		}
		if os.Getenv(childKillRecluster) != "" {
			opts.Parallelism = 1 // the chains' order: a re-clustering that moves pages
			testHookRecluster = func() { syscall.Kill(os.Getpid(), syscall.SIGKILL) }
		}
		c, err := Open(os.Getenv(childDir), opts)
		if err == nil {
			err = run(c, context.Background())
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	closeDemo()
	os.Exit(code)
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
	ref := crawledDemo(t)
	want := ref.want
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
			if d := want.diff(got.withHost(s.URL, ref.site.URL)); d != "" {
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

// TestKillDuringRecluster: a crawl killed when its final re-clustering
// has recorded the pages it moved but not flushed the index resumes to
// the clusters, masters and searchable pages of an uninterrupted crawl.
func TestKillDuringRecluster(t *testing.T) {
	order := []int{0, 2, 1} // online: a and c apart, b with a; re-clustered: one cluster around b
	ref := newSite(t, chainSite(4, order))
	opts := testOptions(ref.URL + "/")
	opts.Parallelism = 1
	want := outcomeOf(t, crawl(t, t.TempDir(), opts))

	s := newSite(t, chainSite(4, order))
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+s.URL+"/", childDir+"="+dir, childKillRecluster+"=1")
	cmd.Stderr = os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child was not killed in its re-clustering: %v", err)
	}
	resumed := testOptions("")
	resumed.Seeds = nil
	c, err := Open(dir, resumed)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got := outcomeOf(t, c)
	if d := want.diff(got.withHost(s.URL, ref.URL)); d != "" {
		t.Errorf("resumed crawl differs from the uninterrupted one:\n%s", d)
	}
	// The index agrees with the records: each chain's middle page is the
	// one searchable page of its cluster, with both ends as members.
	for f := range 4 {
		ms, err := c.Index().Members(recordsCluster(t, c, fmt.Sprintf("%s/f%d/b.html", s.URL, f)))
		if err != nil || len(ms) != 3 || !ms[0].Master || ms[0].URL != fmt.Sprintf("%s/f%d/b.html", s.URL, f) {
			t.Errorf("family %d: members %+v, %v", f, ms, err)
		}
	}
}

func recordsCluster(t *testing.T, c *Crawler, u string) string {
	t.Helper()
	r, ok, err := c.pages.Get(u)
	if err != nil || !ok {
		t.Fatalf("%s: %v, %v", u, ok, err)
	}
	return r.Cluster
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
	ref := crawledDemo(t).site
	want := crawledDemo(t).want

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

// TestKillDuringRecrawl kills a kept-alive crawl with SIGKILL while it
// revisits pages that keep changing (some, by whole sentences; a copy of
// one follows it), several times. After each kill the reopened crawl
// agrees with itself: every fetched page is recorded once, the index holds
// exactly the masters of the detector's clusters — each with the text of
// its latest record, none with an older version — and the records' cluster
// and master agree with the detector's. Each round kills the crawl once
// it has fetched /p/0 twice more (it revisits), so that a busy machine
// changes when it is killed, not whether the test passes.
func TestKillDuringRecrawl(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a recrawl several times; skipped with -short")
	}
	start := time.Now()
	version := func() int { return int(time.Since(start) / (150 * time.Millisecond)) }
	texts := []string{handbook, payroll, canteen}
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var i int
		switch _, err := fmt.Sscanf(r.URL.Path, "/p/%d", &i); {
		case r.URL.Path == "/":
			writePage(w, "home", "/p/0", "/p/1", "/p/2", "/p/3", "/p/4", "/p/5", "/copy/p/0")
		case err == nil && i < 6:
			v := version()
			text := fmt.Sprintf("Page %d. %s Revision marker rev%dx%d.", i, texts[(i+v)%3], v, i)
			if i%2 == 1 { // odd pages never change
				text = fmt.Sprintf("Page %d. %s", i, texts[i%3])
			}
			fmt.Fprintf(w, "<html><head><title>p%d</title></head><body><main><p>%s</p></main></body></html>", i, text)
		case r.URL.Path == "/copy/p/0":
			v := version()
			fmt.Fprintf(w, "<html><head><title>p0</title></head><body><main><p>Page 0. %s Revision marker rev%dx0.</p></main></body></html>", texts[v%3], v)
		default:
			http.NotFound(w, r)
		}
	}))
	dir := t.TempDir()
	for round := range 4 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"="+s.URL+"/", childDir+"="+dir, childWatch+"=1")
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// On a busy machine the child may take longer than the pause to
		// start: the pause runs from when it has written its options.
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(filepath.Join(dir, optionsFile)); err == nil || time.Now().After(deadline) {
				break
			}
		}
		// Killed once it has fetched /p/0 twice more this round (it
		// revisits), a little later each round: what is asserted is
		// that it revisits, not how fast.
		fetched := func() int {
			_, n := s.hitsWhere(func(p string) bool { return strings.HasPrefix(p, "/p/0") })
			return n
		}
		from := fetched()
		for deadline := time.Now().Add(time.Minute); fetched() < from+2; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("round %d: /p/0 was fetched %d times in a minute: the recrawl does not revisit it", round, fetched()-from)
			}
		}
		time.Sleep(time.Duration(round*97) * time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("round %d: the child was not killed mid-recrawl: %v", round, err)
		}

		c, err := Open(dir, Options{NoSync: true})
		if err != nil {
			t.Fatalf("round %d: reopening after the kill: %v", round, err)
		}
		recs := records(t, c)
		masters := map[string]bool{}
		for _, a := range c.Detector().Assignments() {
			if a.ID == a.Master {
				masters[a.ID] = true
			}
			if r := recs[a.ID]; r.Status != pages.Fetched || r.Cluster != string(a.Cluster) {
				t.Errorf("round %d: %s is in cluster %s of the detector, recorded %q in %q", round, a.ID, a.Cluster, r.Status, r.Cluster)
			}
		}
		got := searchable(t, c)
		if want := slices.Sorted(maps.Keys(masters)); !slices.Equal(got, want) {
			t.Errorf("round %d: searchable %v, want the detector's masters %v", round, got, want)
		}
		for u := range masters {
			r := recs[u]
			if i := strings.Index(r.Text, "rev"); i >= 0 {
				marker := strings.TrimSuffix(strings.Fields(r.Text[i:])[0], ".")
				if h := hits(t, c, marker); !slices.Contains(h, u) {
					t.Errorf("round %d: %s's recorded version %s does not find it (%v)", round, u, marker, h)
				}
			}
		}
		st := c.Stats()
		c.Close()
		t.Logf("round %d: %d pages, %d clusters", round, st.Fetched, len(masters))
	}
}
