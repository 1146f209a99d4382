package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler"
	"github.com/doppel-search/doppel/crawler/fleet"
	"github.com/doppel-search/doppel/crawler/fleet/redisfleet"
	"github.com/doppel-search/doppel/internal/testrig/redistest"
)

// TestServeWorkers: doppel serve --redis lists the workers of a shared
// crawl on its status page and in /api/stats — each with its state and
// counters, and the whole — and escapes what workers call themselves.
func TestServeWorkers(t *testing.T) {
	rc := redistest.Start(t, 3, 0)
	rdb := rc.Client()
	roll, err := redisfleet.New(rdb, redisfleet.Options{Prefix: "tw"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	report := func(fetched, inFlight int64) func() fleet.Report {
		return func() fleet.Report {
			return fleet.Report{Counters: map[string]int64{"fetched": fetched}, Gauges: map[string]int64{"in_flight": inFlight}}
		}
	}
	a, err := roll.Join(ctx, fleet.Worker{ID: "w1", Host: "m1"}, report(30, 2))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Leave(ctx)
	b, err := roll.Join(ctx, fleet.Worker{ID: "<script>x</script>", Host: "m2"}, report(12, 1))
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Leave(ctx); err != nil { // left: its pages count, nothing of it in flight
		t.Fatal(err)
	}

	site := demoServer(t)
	cfg := writeFile(t, "c.json", `{"seeds": ["`+site+`/"], "delay": "1ms", "max_pages": 50}`)
	data := t.TempDir()
	if code, _, stderr := doppel(t, "crawl", "--once", "--data", data, "--config", cfg); code != 3 { // 3: stopped at its 50 requests
		t.Fatalf("crawl: exit %d: %s", code, stderr)
	}
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--data", data, "--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0",
			"--redis", strings.Join(rc.Addrs(), ","), "--crawl", "tw"}, &stdout, &stderr)
	}()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("serve: exit %d: %s", code, stderr.String())
		}
	})
	var admin string
	for deadline := time.Now().Add(30 * time.Second); admin == ""; time.Sleep(10 * time.Millisecond) {
		if m := regexp.MustCompile(`Status for administrators: (http://[0-9.:]+)/status`).FindStringSubmatch(stdout.String()); m != nil {
			admin = m[1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start: %s %s", stdout.String(), stderr.String())
		}
	}
	get := func(path string) string {
		resp, err := http.Get(admin + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %s", path, resp.Status)
		}
		return string(body)
	}
	var st struct {
		Documents int
		Workers   []fleet.Worker
		Fleet     fleet.Report
	}
	if err := json.Unmarshal([]byte(get("/api/stats")), &st); err != nil {
		t.Fatal(err)
	}
	states := map[string]string{}
	for _, w := range st.Workers {
		states[w.ID] = w.State
	}
	if len(st.Workers) != 2 || states["w1"] != fleet.Up || states["<script>x</script>"] != fleet.Left {
		t.Fatalf("workers in /api/stats: %+v", st.Workers)
	}
	if st.Fleet.Counters["fetched"] != 42 || st.Fleet.Gauges["in_flight"] != 2 || st.Documents == 0 {
		t.Fatalf("/api/stats: documents %d, fleet %+v; want the crawl's pages, 42 fetched by the workers and 2 in flight", st.Documents, st.Fleet)
	}
	page := get("/status")
	for _, want := range []string{`<table id="workers"`, `<td class="id">w1</td>`, `&lt;script&gt;x&lt;/script&gt;`, `<tr id="fleet">`} {
		if !strings.Contains(page, want) {
			t.Errorf("status page lacks %s", want)
		}
	}
	if strings.Contains(page, "<script>x</script>") {
		t.Error("status page shows a worker's id unescaped")
	}
}

// TestWorkerCommands: two doppel worker processes' worth of commands
// crawl the demo intranet through a Redis Cluster while doppel serve
// --redis --data keeps the crawl's records and index, in two shards; what serve keeps
// is what doppel crawl keeps of the same site — every URL's status, the
// clusters, the masters and what the index holds — and each worker
// serves its own status page, which lists both.
func TestWorkerCommands(t *testing.T) {
	rc := redistest.Start(t, 3, 0)
	addrs := strings.Join(rc.Addrs(), ",")
	site := demoServer(t)
	// A delay that makes the crawl last a few seconds, for both workers.
	cfg := writeFile(t, "c.json", `{"seeds": ["`+site+`/"], "delay": "10ms", "max_pages": 1000, "refresh_interval": "200ms"}`)
	one := t.TempDir()
	if code, _, stderr := doppel(t, "crawl", "--once", "--data", one, "--config", cfg); code != 0 {
		t.Fatalf("crawl: %s", stderr)
	}
	want := exportEntries(t, one)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	shared := t.TempDir()
	var serveOut, serveErr syncBuffer
	served := make(chan int, 1)
	go func() {
		served <- run(ctx, []string{"serve", "--data", shared, "--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0",
			"--redis", addrs, "--crawl", "tc", "--index-shards", "2"}, &serveOut, &serveErr)
	}()
	// Worker a crawls one pass; worker b keeps watching until stopped.
	var aOut, aErr, bOut, bErr syncBuffer
	aDone, bDone := make(chan int, 1), make(chan int, 1)
	go func() {
		aDone <- run(ctx, []string{"worker", "--redis", addrs, "--crawl", "tc", "--data", t.TempDir(), "--config", cfg, "--once", "--id", "a"}, &aOut, &aErr)
	}()
	waitFor(t, &aOut, `worker a joined`)
	wctx, stopB := context.WithCancel(ctx)
	go func() {
		bDone <- run(wctx, []string{"worker", "--redis", addrs, "--crawl", "tc", "--data", t.TempDir(), "--config", cfg, "--id", "b",
			"--status", "127.0.0.1:0"}, &bOut, &bErr)
	}()
	if code := <-aDone; code != 0 {
		t.Fatalf("worker a: exit %d: %s", code, aErr.String())
	}
	status := waitFor(t, &bOut, `Status: (http://[0-9.:]+)/status`)
	fetched := 0
	for _, e := range want {
		if e.Status == "fetched" {
			fetched++
		}
	}
	admin := waitFor(t, &serveOut, `Status for administrators: (http://[0-9.:]+)/status`)
	var st struct {
		Documents int
		Workers   []fleet.Worker
	}
	for deadline := time.Now().Add(time.Minute); st.Documents != fetched; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("serve has %d documents, the crawl fetched %d: %s", st.Documents, fetched, serveErr.String())
		}
		getJSON(t, admin+"/api/stats", &st)
	}
	var mine struct {
		Documents int
		Workers   []fleet.Worker
	}
	getJSON(t, status+"/api/stats", &mine)
	if len(mine.Workers) != 2 || mine.Documents == 0 || mine.Documents == fetched {
		t.Errorf("worker b's status: %d documents of its own (of %d), workers %+v", mine.Documents, fetched, mine.Workers)
	}
	stopB()
	if code := <-bDone; code != 0 {
		t.Fatalf("worker b: exit %d: %s", code, bErr.String())
	}
	if strings.Contains(aErr.String()+bErr.String(), "differ") {
		t.Errorf("workers given the same options were told they differ: %s %s", aErr.String(), bErr.String())
	}
	// A worker that would judge copies otherwise is refused.
	code, _, stderr := doppel(t, "worker", "--redis", addrs, "--crawl", "tc", "--data", t.TempDir(), "--config", cfg, "--similarity", "cosine", "--once")
	if code != 1 || !strings.Contains(stderr, "judges copies by resemblance") {
		t.Errorf("a worker with another similarity: exit %d, %s", code, stderr)
	}
	cancel()
	if code := <-served; code != 0 {
		t.Fatalf("serve: exit %d: %s", code, serveErr.String())
	}
	if _, err := os.Stat(filepath.Join(shared, "index", "shards.json")); err != nil {
		t.Errorf("the shared crawl's index is not in shards: %v", err)
	}
	got := exportEntries(t, shared)
	byURL := map[string]crawler.Entry{}
	for _, e := range got {
		byURL[e.URL] = e
	}
	if len(got) != len(want) {
		t.Errorf("%d URLs in the shared crawl, %d in one machine's", len(got), len(want))
	}
	for _, w := range want {
		g := byURL[w.URL]
		if g.Status != w.Status || g.Reason != w.Reason || g.Master != w.Master || g.Indexed != w.Indexed {
			t.Errorf("%s: shared %s %q master %s indexed %v; one machine %s %q master %s indexed %v",
				w.URL, g.Status, g.Reason, g.Master, g.Indexed, w.Status, w.Reason, w.Master, w.Indexed)
		}
	}
}

// waitFor waits for pattern in out and returns its first group (or the
// match).
func waitFor(t *testing.T, out *syncBuffer, pattern string) string {
	t.Helper()
	re := regexp.MustCompile(pattern)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			return m[len(m)-1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q in %s", pattern, out.String())
		}
	}
}

// getJSON decodes the JSON answer of url into v.
func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

// TestWorkerErrors: doppel worker says what is missing or wrong, once,
// and does not start.
func TestWorkerErrors(t *testing.T) {
	data := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no redis", []string{"--data", data, "--seed", "http://127.0.0.1:9/"}, 2, "--redis"},
		{"no seed", []string{"--redis", "127.0.0.1:1", "--data", data}, 2, "--seed"},
		{"serve flag", []string{"--redis", "127.0.0.1:1", "--data", data, "--seed", "http://127.0.0.1:9/", "--serve", "127.0.0.1:0"}, 2, "keeps no index"},
		{"status off loopback", []string{"--redis", "127.0.0.1:1", "--data", data, "--seed", "http://127.0.0.1:9/", "--status", "0.0.0.0:8091"}, 1, "loopback"},
		{"bad crawl name", []string{"--redis", "127.0.0.1:1", "--crawl", "a{b}", "--data", data, "--seed", "http://127.0.0.1:9/"}, 1, "crawl name"},
		{"cluster down", []string{"--redis", "127.0.0.1:1", "--data", data, "--seed", "http://127.0.0.1:9/", "--once"}, 1, "connection refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := doppel(t, append([]string{"worker"}, tc.args...)...)
			if code != tc.code || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "pool.go") {
				t.Errorf("exit %d, want %d; stderr %q, want %q and no go-redis pool messages", code, tc.code, stderr, tc.want)
			}
		})
	}
}
