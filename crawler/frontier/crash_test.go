package frontier

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The crash test runs this test binary as a child process (TestHelperProcess)
// that crawls a fake frontier and is killed with SIGKILL at a random moment.
const (
	envHelper = "FRONTIER_CRASH_HELPER"
	envDB     = "FRONTIER_CRASH_DB"
	envLog    = "FRONTIER_CRASH_LOG"
	envSeed   = "FRONTIER_CRASH_SEED"
	crashURLs = 150
)

func crashURL(i int) string { return fmt.Sprintf("http://h/page/%03d", i) }

// TestHelperProcess is not a test: it is the child of TestCrashRecovery.
// It opens the frontier (fsync on), then interleaves adding the URLs with
// popping and marking Done, appending "got URL" after each pop and "done URL"
// after each successful Done to the log (unbuffered writes survive SIGKILL).
func TestHelperProcess(t *testing.T) {
	if os.Getenv(envHelper) != "1" {
		t.Skip("helper process for TestCrashRecovery")
	}
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(2)
	}
	seed, _ := strconv.ParseUint(os.Getenv(envSeed), 10, 64)
	rng := rand.New(rand.NewPCG(seed, 7))
	f, err := Open(os.Getenv(envDB), Options{})
	if err != nil {
		fail(err)
	}
	logf, err := os.OpenFile(os.Getenv(envLog), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		fail(err)
	}
	fmt.Println("ready")
	pop := func() bool {
		it, err := f.Next()
		if errors.Is(err, ErrEmpty) {
			return false
		}
		if err != nil {
			fail(err)
		}
		fmt.Fprintf(logf, "got %s\n", it.URL)
		if rng.IntN(10) < 8 { // else: left in flight, as if still being fetched
			if err := f.Done(it.URL, "ok"); err != nil {
				fail(err)
			}
			fmt.Fprintf(logf, "done %s\n", it.URL)
		}
		return true
	}
	for i := range crashURLs {
		if _, err := f.Add(crashURL(i), i%4, nil); err != nil {
			fail(err)
		}
		if rng.IntN(2) == 0 {
			pop()
		}
	}
	for pop() {
	}
	os.Exit(0)
}

// TestCrashRecovery kills a child process using the frontier at random
// points and checks after each kill that the file opens, nothing is in
// flight, no URL handed out was lost, and no URL marked done is handed out
// again; after two kills on the same file it drains the frontier and checks
// every URL ends done exactly once. Several trials vary the kill timing.
func TestCrashRecovery(t *testing.T) {
	if os.Getenv(envHelper) == "1" {
		t.Skip("in helper")
	}
	trials := 4
	if testing.Short() {
		trials = 2
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	killed := 0
	for trial := range trials {
		dir := t.TempDir()
		db, logPath := filepath.Join(dir, "f.db"), filepath.Join(dir, "log")
		for round := range 2 {
			delay := time.Duration(rng.IntN(60)) * time.Millisecond
			if runHelper(t, db, logPath, trial*2+round, delay) {
				killed++
			}
			checkCrashInvariants(t, db, logPath, false)
		}
		checkCrashInvariants(t, db, logPath, true)
	}
	if killed == 0 {
		t.Error("no helper was killed while running: the test exercised nothing")
	}
}

// runHelper starts TestHelperProcess, kills it delay after it is ready and
// reports whether it was killed (rather than having finished).
func runHelper(t *testing.T, db, logPath string, seed int, delay time.Duration) bool {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), envHelper+"=1", envDB+"="+db, envLog+"="+logPath,
		envSeed+"="+strconv.Itoa(seed))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "ready\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("helper did not start: %q, %v", line, err)
	}
	time.Sleep(delay)
	cmd.Process.Kill()
	werr := cmd.Wait()
	var exit *exec.ExitError
	if werr == nil {
		t.Logf("helper %d finished before the kill at %v", seed, delay)
		return false
	}
	if !errors.As(werr, &exit) || exit.ExitCode() != -1 {
		t.Fatalf("helper %d failed: %v", seed, werr)
	}
	t.Logf("helper %d killed after %v", seed, delay)
	return true
}

// checkCrashInvariants reopens the frontier and checks it against the log.
// With drain, it also finishes the crawl and checks every URL ends done.
func checkCrashInvariants(t *testing.T, db, logPath string, drain bool) {
	t.Helper()
	f, err := Open(db, Options{})
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer f.Close()
	got, done := map[string]bool{}, map[string]bool{}
	if data, err := os.ReadFile(logPath); err == nil {
		for l := range strings.Lines(string(data)) {
			op, u, ok := strings.Cut(strings.TrimSuffix(l, "\n"), " ")
			switch {
			case !ok || !strings.HasSuffix(l, "\n"):
				// torn last line: ignore
			case op == "got":
				if done[u] {
					t.Fatalf("%s handed out again after Done", u)
				}
				got[u] = true
			case op == "done":
				done[u] = true
			}
		}
	}
	st, _ := f.Stats()
	if st.InFlight != 0 {
		t.Fatalf("after reopen %d URLs still in flight", st.InFlight)
	}
	states := map[string]State{}
	var scan Stats
	f.All(func(u string, s State, _ string) error {
		states[u] = s
		switch s {
		case Pending:
			scan.Pending++
		case Done:
			scan.Done++
		default:
			t.Errorf("%s in state %v after reopen", u, s)
		}
		return nil
	})
	if scan != st {
		t.Fatalf("Stats %+v disagree with a scan %+v", st, scan)
	}
	for u := range got {
		if _, ok := states[u]; !ok {
			t.Fatalf("%s was handed out, then lost", u)
		}
	}
	for u := range done {
		if states[u] != Done {
			t.Fatalf("%s was marked done, now %v", u, states[u])
		}
	}
	if !drain {
		return
	}
	for i := range crashURLs {
		if _, err := f.Add(crashURL(i), 0, nil); err != nil {
			t.Fatal(err)
		}
	}
	for {
		it, err := f.Next()
		if errors.Is(err, ErrEmpty) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if done[it.URL] || states[it.URL] == Done {
			t.Fatalf("%s handed out again after Done", it.URL)
		}
		if err := f.Done(it.URL, "ok"); err != nil {
			t.Fatal(err)
		}
	}
	if st, _ := f.Stats(); st != (Stats{Done: crashURLs}) {
		t.Fatalf("after draining Stats = %+v, want all %d done", st, crashURLs)
	}
}
