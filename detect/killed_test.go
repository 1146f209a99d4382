package detect

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/doppel-search/doppel/detect/api"
	"github.com/doppel-search/doppel/detect/client"
)

// The child of TestKilled: a service on the directory named in its
// environment, serving on a loopback port it writes to a file there.
// With envHangOn set, it stops for good once it has logged a batch
// holding that document id, before applying it, and says so in a file
// "hung" there.
const (
	envKilledDir = "DOPPEL_DETECT_KILLED_DIR"
	envHangOn    = "DOPPEL_DETECT_HANG_ON"
)

func TestKilledServiceProcess(t *testing.T) {
	dir := os.Getenv(envKilledDir)
	if dir == "" {
		t.Skip("the child of TestKilled")
	}
	s, err := Open(dir, Options{SnapshotEvery: 700})
	if err != nil {
		t.Fatal(err)
	}
	if id := os.Getenv(envHangOn); id != "" {
		s.afterLog = func(ops []*op) {
			for _, o := range ops {
				if o.id() == id {
					os.WriteFile(filepath.Join(dir, "hung"), nil, 0o600)
					select {}
				}
			}
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "addr.tmp"), []byte(ln.Addr().String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "addr.tmp"), filepath.Join(dir, "addr")); err != nil {
		t.Fatal(err)
	}
	t.Fatal(http.Serve(ln, s.Handler(nil))) // until killed
}

// killedRun is the requests of TestKilled: batches of documents, each
// followed by the removal of one document of the batch before.
func killedRun() [][]api.Document {
	var batches [][]api.Document
	for b := range 9 {
		var batch []api.Document
		for i := range 250 {
			n := b*250 + i
			doc := api.Document{ID: fmt.Sprint("doc", n), Text: edit(text(uint64(n%97), 150), n)}
			if n%3 == 0 {
				doc.Date = fmt.Sprintf("20%02d-%02d-01", n%30, 1+n%12)
			}
			if n%11 == 0 && n > 250 { // a new version of an earlier document
				doc.ID = fmt.Sprint("doc", n-250)
			}
			batch = append(batch, doc)
		}
		batches = append(batches, batch)
	}
	return batches
}

// apply sends batch b of the run, then removes a document of batch b-1.
func applyBatch(ctx context.Context, c *client.Client, batches [][]api.Document, b int) error {
	if _, err := c.Put(ctx, batches[b]); err != nil {
		return err
	}
	if b > 0 {
		if _, err := c.Delete(ctx, batches[b-1][b].ID); err != nil && !errors.Is(err, client.ErrNotFound) {
			return err
		}
	}
	return nil
}

// TestKilled: a service process killed (SIGKILL) while it reads a batch,
// and twice once it has logged a batch but not applied it (around
// snapshots: one every 700 changes), restarted on its directory and
// sent the interrupted requests again, ends with every document's
// cluster, master and member count those of a service never
// interrupted.
func TestKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	ctx := context.Background()
	batches := killedRun()

	ref := open(t, t.TempDir())
	defer ref.Close()
	refSrv := http.Server{Handler: ref.Handler(nil)}
	refLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go refSrv.Serve(refLn)
	defer refSrv.Close()
	refClient, _ := client.New("http://"+refLn.Addr().String(), nil)
	for b := range batches {
		if err := applyBatch(ctx, refClient, batches, b); err != nil {
			t.Fatal(err)
		}
	}

	dir := t.TempDir()
	// Batch 2 is killed 5 ms in (while it is read or signed); batches 4
	// and 6 once logged, before they are applied and answered.
	kills := map[int]time.Duration{2: 5 * time.Millisecond, 4: -1, 6: -1}
	hangOn := func(from int) string {
		for b := from; b < len(batches); b++ {
			if kills[b] < 0 {
				return batches[b][0].ID
			}
		}
		return ""
	}
	child, c := startChild(t, dir, hangOn(0))
	killed := 0
	for b := 0; b < len(batches); b++ {
		delay, kill := kills[b]
		if !kill {
			if err := applyBatch(ctx, c, batches, b); err != nil {
				t.Fatal(err)
			}
			continue
		}
		delete(kills, b)
		before, _ := c.Stats(ctx)
		done := make(chan error, 1)
		go func() { done <- applyBatch(ctx, c, batches, b) }()
		if delay > 0 {
			time.Sleep(delay)
		} else {
			for _, err := os.Stat(filepath.Join(dir, "hung")); err != nil; _, err = os.Stat(filepath.Join(dir, "hung")) {
				time.Sleep(5 * time.Millisecond)
			}
			os.Remove(filepath.Join(dir, "hung"))
		}
		child.Process.Kill()
		child.Wait()
		err := <-done
		killed++
		t.Logf("batch %d: killed (%v): the client saw %v", b, map[bool]string{true: delay.String() + " in", false: "once logged"}[delay > 0], err)
		child, c = startChild(t, dir, hangOn(b+1))
		after, err := c.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		switch after.Documents {
		case before.Documents:
			t.Logf("batch %d was not logged before the kill", b)
		case before.Documents + countNew(batches, b), before.Documents + countNew(batches, b) - 1:
			t.Logf("batch %d was logged before the kill (its removal %v)", b, after.Documents != before.Documents+countNew(batches, b))
		default:
			t.Errorf("batch %d: %d documents before, %d after the restart: neither none of the batch nor all of it", b, before.Documents, after.Documents)
		}
		b-- // send it again
	}
	defer func() { child.Process.Kill(); child.Wait() }()
	if killed != 3 {
		t.Fatalf("killed %d times; want 3", killed)
	}
	var want, got strings.Builder
	for _, batch := range batches {
		for _, doc := range batch {
			for _, out := range []struct {
				c *client.Client
				b *strings.Builder
			}{{refClient, &want}, {c, &got}} {
				a, err := out.c.Get(ctx, doc.ID)
				if err != nil && !errors.Is(err, client.ErrNotFound) {
					t.Fatal(err)
				}
				fmt.Fprintf(out.b, "%s %s %s %d %v\n", doc.ID, a.Cluster, a.Master, a.Members, a.Canonical)
			}
		}
	}
	if got.String() != want.String() {
		t.Errorf("after the kills:\n%s\nuninterrupted:\n%s", diffLines(got.String(), want.String()), "")
	}
	st, _ := refClient.Stats(ctx)
	if st.Clusters >= st.Documents {
		t.Errorf("reference %+v: no cluster of copies; the test tests nothing", st)
	}
}

// countNew returns how many ids batch b adds that no batch before it
// has.
func countNew(batches [][]api.Document, b int) int {
	seen := map[string]bool{}
	for _, batch := range batches[:b] {
		for _, d := range batch {
			seen[d.ID] = true
		}
	}
	n := 0
	for _, d := range batches[b] {
		if !seen[d.ID] {
			seen[d.ID] = true
			n++
		}
	}
	return n
}

// startChild starts the service process on dir and returns it and its
// client, once it listens.
func startChild(t *testing.T, dir, hangOn string) (*exec.Cmd, *client.Client) {
	t.Helper()
	os.Remove(filepath.Join(dir, "addr"))
	child := exec.Command(os.Args[0], "-test.run=^TestKilledServiceProcess$")
	child.Env = append(os.Environ(), envKilledDir+"="+dir, envHangOn+"="+hangOn)
	child.Stdout, child.Stderr = os.Stdout, os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		addr, err := os.ReadFile(filepath.Join(dir, "addr"))
		if err == nil {
			c, err := client.New("http://"+string(addr), nil)
			if err != nil {
				t.Fatal(err)
			}
			return child, c
		}
		if time.Now().After(deadline) {
			child.Process.Kill()
			t.Fatal("the child service did not start in a minute")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// diffLines returns the lines of got that differ from want's.
func diffLines(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	var b strings.Builder
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			b.WriteString("got  " + g[i] + "\nwant " + w[i] + "\n")
		}
	}
	return b.String() + "lines: " + strconv.Itoa(len(g)) + " vs " + strconv.Itoa(len(w))
}
