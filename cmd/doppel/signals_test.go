package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInterrupts: the first signal cancels; the same signal sent again at
// once (GNU timeout's second delivery) or within forceAfter is the same
// interrupt; one forceAfter or more after the first forces the stop, with
// that signal.
func TestInterrupts(t *testing.T) {
	for _, c := range []struct {
		name   string
		gaps   []time.Duration // before each signal after the first
		forced bool
	}{
		{"one", nil, false},
		{"twice at once", []time.Duration{0}, false},
		{"three within the window", []time.Duration{10 * time.Millisecond, 500 * time.Millisecond}, false},
		{"a second one later", []time.Duration{forceAfter}, true},
		{"at once, then later", []time.Duration{0, 2 * forceAfter}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			clock := time.Date(2026, 11, 29, 5, 0, 0, 0, time.UTC)
			sigs := make(chan os.Signal)
			cancels, done := 0, make(chan struct{})
			var forced os.Signal
			go func() {
				defer close(done)
				interrupts(sigs, func() { cancels++ }, func() time.Time { return clock },
					func(s os.Signal) { forced = s })
			}()
			sigs <- os.Interrupt
			for _, g := range c.gaps {
				clock = clock.Add(g)
				select {
				case sigs <- syscall.SIGTERM:
				case <-done: // forced already: nothing reads on
				}
			}
			close(sigs)
			<-done
			if cancels != 1 {
				t.Errorf("cancel called %d times, want once", cancels)
			}
			if (forced != nil) != c.forced {
				t.Errorf("forced %v, want forced %v", forced, c.forced)
			}
			if c.forced && forced != syscall.SIGTERM {
				t.Errorf("forced with %v, want the later signal (SIGTERM)", forced)
			}
		})
	}
}

// asDoppel set to 1 makes the test binary the doppel command (TestMain
// calls main), for the tests that signal a real process.
const asDoppel = "DOPPEL_TEST_AS_COMMAND"

// TestSignalTwiceAtOnce: a crawl sent SIGINT twice 20 ms apart, as
// `timeout -s INT` sends it to the command and its process group, stops
// as for one: it prints its summary and exits 0 (a kept-alive crawl
// stopped by a signal), where the second signal used to kill it first.
func TestSignalTwiceAtOnce(t *testing.T) {
	site := sharedDemo(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "crawl", "--seed", site+"/", "--data", filepath.Join(t.TempDir(), "data"), "--delay", "0")
	cmd.Env = append(os.Environ(), asDoppel+"=1")
	var stdout strings.Builder
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The first progress line says the crawl is under way.
	line, err := bufio.NewReader(stderr).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		t.Fatalf("no progress line: %v", err)
	}
	go io.Copy(io.Discard, stderr)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("crawl after two SIGINTs 20 ms apart: %v (first progress line %q; stdout %q)", err, line, stdout.String())
	}
	if !strings.Contains(stdout.String(), "requests:") {
		t.Errorf("no summary after two SIGINTs 20 ms apart; stdout:\n%s", stdout.String())
	}
}
