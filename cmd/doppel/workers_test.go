package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler/fleet"
	"github.com/doppel-search/doppel/internal/redistest"
)

// TestServeWorkers: doppel serve --redis lists the workers of a shared
// crawl on its status page and in /api/stats — each with its state and
// counters, and the whole — and escapes what workers call themselves.
func TestServeWorkers(t *testing.T) {
	rc := redistest.Start(t, 3, 0)
	rdb := rc.Client()
	roll, err := fleet.New(rdb, fleet.Options{Prefix: "tw"})
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
	if code, _, stderr := doppel(t, "crawl", "--once", "--data", data, "--config", cfg); code != 0 {
		t.Fatalf("crawl: %s", stderr)
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
	for _, want := range []string{`<table id="workers">`, `<td class="id">w1</td>`, `&lt;script&gt;x&lt;/script&gt;`, `<tr id="fleet">`} {
		if !strings.Contains(page, want) {
			t.Errorf("status page lacks %s", want)
		}
	}
	if strings.Contains(page, "<script>x</script>") {
		t.Error("status page shows a worker's id unescaped")
	}
}
