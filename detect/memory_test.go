package detect

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/doppel-search/doppel/detect/api"
)

var large = flag.Bool("large", false, "TestMemoryUnderLargeBodies: 32 clients instead of 4")

// maxServiceRSS is the most memory (peak resident size) the service may
// take under TestMemoryUnderLargeBodies: issue 36's bound for any input.
const maxServiceRSS = 512 << 20

// TestMemoryUnderLargeBodies runs the service in a child process with
// its default budget (Options.MaxInflightBytes) and sends it, all at
// once, 4 bodies of 1,000 documents of 4,500 words (24 MB; 32 with
// -args -large) — half of them with "Expect: 100-continue", half
// without, one sent without a Content-Length — and one body over
// api.MaxBodyBytes. Every client is answered 200, 413 (the body over the
// limit) or 503 with Retry-After, at least one is placed, and the
// child's peak resident size (VmHWM) stays at most 512 MB. On main
// 5216513, before the byte budget, 12 such bodies took doppel detect to
// 669-742 MB (docs/measurements.md).
func TestMemoryUnderLargeBodies(t *testing.T) {
	if testing.Short() {
		t.Skip("places several bodies of 26 MB")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc/self/status to read the peak resident size from")
	}
	clients := 4
	if *large {
		clients = 32
	}
	bodies := [2][]byte{largeBody(0), largeBody(1)}
	huge := []byte(`{"documents":[{"id":"huge","text":"` + strings.Repeat("w ", api.MaxBodyBytes/2) + `"}]}`)
	dir := t.TempDir()
	child, addr := startMemoryChild(t, dir)
	start := time.Now()
	statuses := make([]int, clients+1)
	errs := make([]error, clients+1)
	var wg sync.WaitGroup
	for i := range clients + 1 {
		wg.Go(func() {
			body, expect, chunked := bodies[i%2], i%2 == 0, i == 1
			if i == clients {
				body = huge
			}
			statuses[i], errs[i] = postLarge(addr, body, expect, chunked)
		})
	}
	wg.Wait()
	took := time.Since(start)
	peak := child.stop(t)
	counts := map[int]int{}
	for i, st := range statuses {
		counts[st]++
		switch {
		case errs[i] != nil:
			t.Errorf("client %d: %v", i, errs[i])
		case i == clients && st != http.StatusRequestEntityTooLarge:
			t.Errorf("the body over the limit: %d; want 413", st)
		case i < clients && st != http.StatusOK && st != http.StatusServiceUnavailable:
			t.Errorf("client %d: %d; want 200 or 503", i, st)
		}
	}
	t.Logf("%d clients of %d MB and one of %d MB: answers %v in %v; the service's peak RSS %d MB", clients, len(bodies[0])>>20, len(huge)>>20, counts, took.Round(time.Millisecond), peak>>20)
	if counts[http.StatusOK] == 0 {
		t.Errorf("no body was placed: %v", counts)
	}
	if peak > maxServiceRSS {
		t.Errorf("the service peaked at %d MB; want at most %d MB", peak>>20, maxServiceRSS>>20)
	}
}

// largeBody returns a batch of 1,000 documents of 4,500 words drawn
// from 5,000 (about 26 MB), with ids of set k; with DOPPEL_DETECT_MEMORY_WORDS=short,
// of 11,000 words of two letters (about 32 MB: the most shingles a byte).
func largeBody(k int) []byte {
	n, word := 4500, func(r *rand.Rand) string { return fmt.Sprintf("w%d", r.IntN(5000)) }
	if os.Getenv("DOPPEL_DETECT_MEMORY_WORDS") == "short" {
		n, word = 11_000, func(r *rand.Rand) string { return string([]byte{byte('a' + r.IntN(26)), byte('a' + r.IntN(26))}) }
	}
	r := rand.New(rand.NewPCG(uint64(k), 7))
	var b bytes.Buffer
	b.WriteString(`{"documents":[`)
	for i := range 1000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"d%d-%d","text":"`, k, i)
		for j := range n {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(word(r))
		}
		b.WriteString(`"}`)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// postLarge POSTs body to the service at addr on a connection of its own
// (with "Expect: 100-continue" if expect; without a Content-Length if
// chunked) and returns the status; a 503 must carry Retry-After.
func postLarge(addr string, body []byte, expect, chunked bool) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), memoryTime())
	defer cancel()
	var rd io.Reader = bytes.NewReader(body)
	if chunked {
		rd = io.MultiReader(rd) // hides the length: sent chunked
	}
	req, err := http.NewRequestWithContext(ctx, "POST", "http://"+addr+"/v1/documents", rd)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if expect {
		req.Header.Set("Expect", "100-continue")
	}
	tr := &http.Transport{ExpectContinueTimeout: 10 * time.Second, DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") == "" {
		return resp.StatusCode, fmt.Errorf("503 without Retry-After: %.200s", raw)
	}
	if resp.StatusCode != http.StatusOK && !bytes.Contains(raw, []byte(`"error"`)) {
		return resp.StatusCode, fmt.Errorf("%d without a reason: %.200s", resp.StatusCode, raw)
	}
	return resp.StatusCode, nil
}

// memoryTime bounds TestMemoryUnderLargeBodies' child: 120 s, or
// DOPPEL_DETECT_MEMORY_SECONDS on a machine too busy for that.
func memoryTime() time.Duration {
	if n, err := strconv.Atoi(os.Getenv("DOPPEL_DETECT_MEMORY_SECONDS")); err == nil && n > 0 {
		return time.Duration(n) * time.Second
	}
	return 120 * time.Second
}

// A memoryChild is TestMemoryChild running: it stops when its
// standard input closes.
type memoryChild struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   bytes.Buffer
	dir   string
}

// startMemoryChild starts TestMemoryChild serving a new service in dir
// and returns it with the address it listens on.
func startMemoryChild(t *testing.T, dir string) (*memoryChild, string) {
	t.Helper()
	c := &memoryChild{cmd: exec.Command(os.Args[0], "-test.run=^TestMemoryChild$", "-test.count=1"), dir: dir}
	c.cmd.Env = append(os.Environ(), "DOPPEL_DETECT_MEMORY_DIR="+dir)
	var err error
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	c.cmd.Stdout, c.cmd.Stderr = &c.out, &c.out
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { c.cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		c.cmd.Process.Kill()
		<-exited
	})
	deadline := time.After(memoryTime())
	for {
		if addr, err := os.ReadFile(filepath.Join(dir, "addr")); err == nil && len(addr) > 0 {
			return c, string(addr)
		}
		select {
		case <-exited:
			t.Fatalf("the child service stopped:\n%s", c.out.String())
		case <-deadline:
			t.Fatalf("the child service did not start:\n%s", c.out.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// stop closes the child's standard input, waits for it to write its
// peak resident size and returns that, in bytes.
func (c *memoryChild) stop(t *testing.T) int64 {
	t.Helper()
	c.stdin.Close()
	path := filepath.Join(c.dir, "peak")
	deadline := time.Now().Add(memoryTime())
	for {
		raw, err := os.ReadFile(path)
		if kb, perr := strconv.ParseInt(string(raw), 10, 64); err == nil && perr == nil {
			return kb << 10
		}
		if time.Now().After(deadline) {
			t.Fatalf("the child service left no peak:\n%s", c.out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestMemoryChild is the child of TestMemoryUnderLargeBodies: it serves
// a service in DOPPEL_DETECT_MEMORY_DIR on a loopback port, which it
// writes to the file addr there, until its standard input closes; then
// it writes its peak resident size (VmHWM, in KiB) to the file peak.
// DOPPEL_DETECT_MEMORY_BUDGET sets its Options.MaxInflightBytes.
func TestMemoryChild(t *testing.T) {
	dir := os.Getenv("DOPPEL_DETECT_MEMORY_DIR")
	if dir == "" {
		t.Skip("run by TestMemoryUnderLargeBodies")
	}
	var opts Options
	if n, err := strconv.Atoi(os.Getenv("DOPPEL_DETECT_MEMORY_BUDGET")); err == nil {
		opts.MaxInflightBytes = n // to measure what the budget does
	}
	s, err := Open(filepath.Join(dir, "data"), opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: s.Handler(slog.New(slog.DiscardHandler)), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	if err := os.WriteFile(filepath.Join(dir, "addr"), []byte(ln.Addr().String()), 0o644); err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, os.Stdin) // until the parent closes it
	srv.Close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Written whole, then renamed: the parent never reads half of it.
	tmp := filepath.Join(dir, "peak.tmp")
	if err := os.WriteFile(tmp, []byte(strconv.FormatInt(peakKB(), 10)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "peak")); err != nil {
		t.Fatal(err)
	}
}

// peakKB is the process's peak resident size in KiB (VmHWM), 0 if
// unknown.
func peakKB() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return 0
}
