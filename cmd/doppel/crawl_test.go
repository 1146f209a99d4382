package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler"
	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/internal/demosite"
)

func demoServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(demosite.Handler())
	t.Cleanup(srv.Close)
	return srv.URL
}

// summaryValue reads "name: N" from a crawl summary.
func summaryValue(t *testing.T, summary, name string) int {
	t.Helper()
	m := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(name) + `:\s+(\d+)`).FindStringSubmatch(summary)
	if m == nil {
		t.Fatalf("summary lacks %q:\n%s", name, summary)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

func exportEntries(t *testing.T, dir string) []crawler.Entry {
	t.Helper()
	code, stdout, stderr := doppel(t, "export", "--data", dir)
	if code != 0 {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	var out []crawler.Entry
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var raw map[string]any
		if err := json.Unmarshal([]byte(line), &raw); err != nil {
			t.Fatalf("export line %q: %v", line, err)
		}
		for _, field := range []string{"url", "status", "indexed"} {
			if _, ok := raw[field]; !ok {
				t.Fatalf("export line lacks %q: %s", field, line)
			}
		}
		var e crawler.Entry
		json.Unmarshal([]byte(line), &e)
		out = append(out, e)
	}
	return out
}

func TestCrawlAndExport(t *testing.T) {
	_, dir, stdout := crawled(t, fullCrawl) // exit 0, or crawled fails the test
	entries := exportEntries(t, dir)
	count := map[string]int{}
	for _, e := range entries {
		count[e.Status]++
		switch e.Status {
		case "fetched":
			if e.Cluster == "" || e.Master == "" || e.FetchedAt == nil {
				t.Errorf("fetched entry without cluster, master or time: %+v", e)
			}
			if e.Master == e.URL && !e.Indexed {
				t.Errorf("a master that is not indexed: %+v", e)
			}
			if e.Master != e.URL && !e.Indexed {
				count["skipped copies"]++
			}
		case "skipped", "error":
			if e.Reason == "" {
				t.Errorf("%s entry without reason: %+v", e.Status, e)
			}
		}
	}
	if count["skipped copies"] == 0 {
		t.Error("under skip, no near-duplicate was left out of the index")
	}
	if got, want := count["fetched"], summaryValue(t, stdout, "pages fetched"); got != want {
		t.Errorf("export has %d fetched, summary says %d", got, want)
	}
	if got, want := count["skipped"], summaryValue(t, stdout, "skipped"); got != want {
		t.Errorf("export has %d skipped, summary says %d", got, want)
	}
	dups := 0
	for _, e := range entries {
		if e.Status == "fetched" && e.Master != e.URL {
			dups++
		}
	}
	if want := summaryValue(t, stdout, "near-duplicates"); dups != want || dups == 0 {
		t.Errorf("export has %d near-duplicates, summary says %d", dups, want)
	}
	if summaryValue(t, stdout, "searchable") != count["fetched"]-dups {
		t.Errorf("searchable documents != fetched - near-duplicates:\n%s", stdout)
	}

	// --out writes the same lines to a file.
	out := filepath.Join(t.TempDir(), "export.jsonl")
	if code, _, stderr := doppel(t, "export", "--data", dir, "--out", out); code != 0 {
		t.Fatalf("export --out: exit %d: %s", code, stderr)
	}
	if lines := readLines(t, out); len(lines) != len(entries) {
		t.Errorf("--out wrote %d lines, stdout had %d", len(lines), len(entries))
	}
}

func TestCrawlBudgetThenResume(t *testing.T) {
	site := demoServer(t)
	dir := t.TempDir()
	code, stdout, stderr := doppel(t, "crawl", "--once", "--seed", site+"/", "--data", dir, "--max-pages", "5", "--delay", "0")
	if code != 3 {
		t.Fatalf("exit %d, want 3 (stopped at the page budget): %s", code, stderr)
	}
	if n, kept := summaryValue(t, stdout, "requests"), summaryValue(t, stdout, "pages fetched"); n != 5 || kept < 1 || kept > 5 {
		t.Errorf("%d requests and %d pages kept with --max-pages 5", n, kept)
	}
	if summaryValue(t, stdout, "queued") == 0 {
		t.Error("nothing queued after a budget-limited crawl")
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "stopped:           at the page budget, 5 requests (--max-pages)") {
		t.Errorf("the summary's last line does not say the budget stopped the crawl: %q\n%s", last, stdout)
	}
	queued := 0
	for _, e := range exportEntries(t, dir) {
		if e.Status == crawler.StatusQueued {
			queued++
		}
	}
	if queued != summaryValue(t, stdout, "queued") {
		t.Errorf("export lists %d queued URLs, summary %d", queued, summaryValue(t, stdout, "queued"))
	}
	// Resume without seeds, with a bigger budget.
	code, stdout, stderr = doppel(t, "crawl", "--once", "--data", dir, "--max-pages", "100")
	// 100 requests, unless the site has fewer URLs: then all of them,
	// and the crawl was not stopped by its budget.
	n, q := summaryValue(t, stdout, "requests"), summaryValue(t, stdout, "queued")
	if n != 100 && (n < 5 || n > 100 || q != 0) {
		t.Errorf("after resuming made %d requests in all with %d queued, want 100 (or all, nothing queued)", n, q)
	}
	if want := map[bool]int{true: 3, false: 0}[q > 0]; code != want {
		t.Errorf("resume: exit %d with %d queued, want %d: %s", code, q, want, stderr)
	}
}

func TestCrawlErrors(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, "bad.json", `{"seeds": ["http://127.0.0.1:1/"], "max_pagez": 3}`)
	badDelay := writeFile(t, "delay.json", `{"seeds": ["http://127.0.0.1:1/"], "delay": 100}`)
	badPolicy := writeFile(t, "policy.json", `{"seeds": ["http://127.0.0.1:1/"], "policy": "drop"}`)
	badDelayString := writeFile(t, "delay2.json", `{"seeds": ["http://127.0.0.1:1/"], "delay": "fast"}`)
	badTimeout := writeFile(t, "timeout.json", `{"seeds": ["http://127.0.0.1:1/"], "timeout": "10"}`)
	badType := writeFile(t, "type.json", `{"seeds": ["http://127.0.0.1:1/"], "traps": {"max_segments": "12"}}`)
	trailing := writeFile(t, "trailing.json", `{"seeds": ["http://127.0.0.1:1/"]} {"max_pages": 3}`)
	noSeeds := writeFile(t, "noseeds.json", `{"delay": "1s"}`)
	empty := writeFile(t, "empty.json", "")
	policyNumber := writeFile(t, "policy2.json", `{"policy": 1}`)
	negative := writeFile(t, "negative.json", `{"seeds": ["http://127.0.0.1:1/"], "max_pages": -5}`)
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no data", []string{"crawl", "--seed", "http://127.0.0.1:1/"}, 2, "--data is required"},
		{"unknown flag", []string{"crawl", "--data", dir, "--sede", "x"}, 2, "flag provided but not defined"},
		{"nothing to resume", []string{"crawl", "--data", filepath.Join(dir, "new")}, 1, "no earlier crawl"},
		{"unknown config field", []string{"crawl", "--data", dir, "--config", bad}, 1, `unknown field "max_pagez"`},
		{"bad duration", []string{"crawl", "--data", dir, "--config", badDelay}, 1, `delay must be a Go duration string such as "250ms", not a number`},
		{"bad duration string", []string{"crawl", "--data", dir, "--config", badDelayString}, 1, `delay: "fast" is not a Go duration such as "250ms"`},
		{"duration without unit", []string{"crawl", "--data", dir, "--config", badTimeout}, 1, `timeout: "10" is not a Go duration`},
		{"wrong type", []string{"crawl", "--data", dir, "--config", badType}, 1, "traps.max_segments must be int, not a string"},
		{"empty config", []string{"crawl", "--data", dir, "--config", empty}, 1, "empty.json: empty file"},
		{"policy as a number", []string{"crawl", "--data", dir, "--config", policyNumber}, 1, `policy must be "skip", "hidden" or "all", not a number`},
		{"data after the config", []string{"crawl", "--data", dir, "--config", trailing}, 1, "unexpected data after the JSON object"},
		{"missing config", []string{"crawl", "--data", dir, "--config", filepath.Join(dir, "nope.json")}, 1, "no such file"},
		{"resume with options", []string{"crawl", "--data", dir, "--delay", "1s", "--max-pages", "3"}, 2, "--delay would be ignored"},
		{"resume with a config", []string{"crawl", "--data", dir, "--config", noSeeds}, 2, "--config would be ignored"},
		{"zero pages", []string{"crawl", "--data", dir, "--seed", "http://127.0.0.1:1/", "--max-pages", "0"}, 2, "--max-pages must be at least 1"},
		{"negative parallelism", []string{"crawl", "--data", dir, "--seed", "http://127.0.0.1:1/", "--parallelism", "-1"}, 2, "--parallelism must be at least 1"},
		{"bad delay flag", []string{"crawl", "--data", dir, "--seed", "http://127.0.0.1:1/", "--delay", "fast"}, 2, "invalid value"},
		{"extra argument", []string{"crawl", "--data", dir, "http://127.0.0.1:1/"}, 2, "unexpected arguments"},
		{"bad policy in config", []string{"crawl", "--data", dir, "--config", badPolicy}, 1, "want skip, hidden or all"},
		{"bad policy flag", []string{"crawl", "--data", dir, "--seed", "http://127.0.0.1:1/", "--policy", "drop"}, 1, "want skip, hidden or all"},
		{"relative seed", []string{"crawl", "--data", dir, "--seed", "intranet/"}, 1, "not an absolute http, https, file or smb URL"},
		{"ftp seed", []string{"crawl", "--data", filepath.Join(dir, "ftp"), "--seed", "ftp://x/"}, 1, `seeds: "ftp://x/" is not an absolute http, https, file or smb URL`},
		{"negative pages in a config", []string{"crawl", "--data", filepath.Join(dir, "neg"), "--config", negative}, 1, "max_pages must not be negative, not -5"},
		{"bad similarity", []string{"crawl", "--data", dir, "--seed", "http://127.0.0.1:1/", "--similarity", "jaccard"}, 1, "unknown similarity"},
		{"admin address without serving", []string{"crawl", "--data", dir, "--seed", "http://127.0.0.1:1/", "--admin-addr", "127.0.0.1:8081"}, 2, "--admin-addr only applies with --serve"},
		{"admin groups without serving", []string{"crawl", "--data", dir, "--seed", "http://127.0.0.1:1/", "--admin-groups", "it", "--demo-users", "a=it"}, 2, "--admin-groups, --demo-users only applies with --serve"},
		{"bad exclude pattern", []string{"crawl", "--data", filepath.Join(dir, "ex"), "--seed", "http://127.0.0.1:1/", "--exclude", "(edit"}, 1, `exclude: pattern "(edit"`},
		{"resume with an exclude pattern", []string{"crawl", "--data", dir, "--exclude", "/Special:"}, 2, "--exclude would be ignored"},
		{"export without data", []string{"export"}, 2, "--data is required"},
		{"export of nothing", []string{"export", "--data", filepath.Join(dir, "none")}, 1, "no earlier crawl"},
		{"export with an argument", []string{"export", "--data", dir, "extra"}, 2, "unexpected arguments"},
		{"check without data", []string{"check"}, 2, "--data is required"},
		{"check of nothing", []string{"check", "--data", filepath.Join(dir, "none")}, 1, "no earlier crawl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := doppel(t, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.msg) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, tc.code, tc.msg)
			}
		})
	}
	for _, d := range []string{"none", "ftp", "neg"} {
		if _, err := os.Stat(filepath.Join(dir, d)); err == nil {
			t.Errorf("a refused command created %s", d)
		}
	}
}

// TestBadSeeds: a crawl none of whose seeds can be fetched exits 1
// within 5 s with one line naming the reason, and creates nothing outside
// an existing parent directory.
func TestBadSeeds(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + l.Addr().String() + "/"
	l.Close()
	notFound := httptest.NewServer(http.NotFoundHandler())
	defer notFound.Close()
	dir := t.TempDir()
	for _, tc := range []struct {
		name, seed, reason string
	}{
		{"refused", refused, refused + ": connection refused"},
		{"typo", notFound.URL + "/hoem/", notFound.URL + "/hoem/: HTTP 404"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := doppel(t, "crawl", "--once", "--seed", tc.seed, "--data", filepath.Join(dir, tc.name))
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			last := lines[len(lines)-1]
			if code != 1 || !strings.Contains(last, "no seed could be fetched: "+tc.reason) {
				t.Errorf("exit %d, last line %q; want 1 naming %q\n%s", code, last, tc.reason, stderr)
			}
			if !strings.Contains(stdout, "errors:            1") {
				t.Errorf("the summary does not count the failed seed:\n%s", stdout)
			}
		})
	}
	code, _, stderr := doppel(t, "crawl", "--seed", refused, "--data", filepath.Join(dir, "no", "such", "dir"))
	if code != 1 || !strings.Contains(stderr, filepath.Join(dir, "no", "such")+" does not exist") {
		t.Errorf("--data under a missing parent: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "no")); err == nil {
		t.Error("--data under a missing parent created it")
	}
}

// TestUsageErrorIsShort: a misspelled flag prints the error and one line,
// not the flags.
func TestUsageErrorIsShort(t *testing.T) {
	for _, cmd := range []string{"crawl", "serve", "export", "check", "dedup", "eval", "extract", "demo"} {
		code, _, stderr := doppel(t, cmd, "--sede", "x")
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if code != 2 || len(lines) != 2 || !strings.Contains(lines[0], "flag provided but not defined: -sede") ||
			lines[1] != `run "doppel `+cmd+` -h" for its flags` {
			t.Errorf("%s --sede: exit %d, stderr %q", cmd, code, stderr)
		}
	}
	if code, _, stderr := doppel(t, "crawl", "-h"); code != 0 || !strings.Contains(stderr, "--max-pages") {
		t.Errorf("crawl -h: exit %d, no flags: %q", code, stderr)
	}
}

func TestConfigFile(t *testing.T) {
	path := writeFile(t, "crawl.json", crawler.ExampleConfig)
	opts, err := loadConfig(path)
	if err != nil {
		t.Fatalf("the documented example config does not load: %v", err)
	}
	if opts.Delay != 100*time.Millisecond || opts.Timeout != 10*time.Second || opts.Policy != indexer.Skip ||
		opts.Traps.MaxDuplicatesPerTemplate != 20 || len(opts.Groups) != 1 || opts.Groups[0].Groups[0] != "hr" ||
		len(opts.AllowedHosts) != 2 || opts.MaxBodyBytes != 5242880 || opts.NoDedup {
		t.Errorf("example config read as %+v", opts)
	}
	// Absent durations take the defaults; "0s" means no delay.
	for _, tc := range []struct {
		config string
		delay  time.Duration
	}{
		{`{}`, 0},
		{`{"delay": "0s"}`, -1},
		{`{"delay": "1.5s", "timeout": "2m"}`, 1500 * time.Millisecond},
	} {
		opts, err := loadConfig(writeFile(t, "c.json", tc.config))
		if err != nil || opts.Delay != tc.delay {
			t.Errorf("%s: delay %v, %v; want %v", tc.config, opts.Delay, err, tc.delay)
		}
	}
	// Flags override the file.
	site := demoServer(t)
	cfg := writeFile(t, "small.json", `{"seeds": ["`+site+`/"], "max_pages": 3, "delay": "1ms", "policy": "hidden"}`)
	dir := t.TempDir()
	code, stdout, stderr := doppel(t, "crawl", "--once", "--data", dir, "--config", cfg, "--max-pages", "4")
	if code != 3 {
		t.Fatalf("exit %d, want 3 (the page budget): %s", code, stderr)
	}
	if n := summaryValue(t, stdout, "requests"); n != 4 || !strings.Contains(stdout, "policy hidden") {
		t.Errorf("config + flag override:\n%s", stdout)
	}
}

func TestCrawlInterruptedResumes(t *testing.T) {
	site := demoServer(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr bytes.Buffer
	var fetched atomic.Bool
	go func() {
		// Cancel once the crawl has recorded something: what Ctrl-C does.
		for !fetched.Load() {
			if _, err := os.Stat(filepath.Join(dir, "crawl.json")); err == nil {
				time.Sleep(20 * time.Millisecond)
				fetched.Store(true)
			}
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	code := run(ctx, []string{"crawl", "--once", "--seed", site + "/", "--data", dir, "--delay", "5ms"}, &stdout, &stderr)
	if code != 130 || !strings.Contains(stderr.String(), "run the same command again to resume") {
		t.Fatalf("interrupted crawl: exit %d, stderr %q; want 130 and the resume hint", code, stderr.String())
	}
	first := summaryValue(t, stdout.String(), "pages fetched")
	code, out, errOut := doppel(t, "crawl", "--once", "--data", dir)
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, errOut)
	}
	if total := summaryValue(t, out, "pages fetched"); total <= first || summaryValue(t, out, "queued") != 0 {
		t.Errorf("resumed crawl: %d pages after %d before the interruption, want more and nothing queued:\n%s", total, first, out)
	}
}

func TestProgressLogLines(t *testing.T) {
	defer func(d time.Duration) { progressInterval = d }(progressInterval)
	progressInterval = 20 * time.Millisecond
	site := demoServer(t)
	code, _, stderr := doppel(t, "crawl", "--once", "--seed", site+"/", "--data", t.TempDir(), "--delay", "2ms")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := 0
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, "msg=crawl") && strings.Contains(l, "fetched=") && strings.Contains(l, "pages_per_s=") {
			lines++
		}
	}
	if lines < 2 {
		t.Errorf("%d progress log lines, want several:\n%s", lines, stderr)
	}
	if strings.Contains(stderr, "\r") {
		t.Error("terminal redraws written to a non-terminal")
	}
}

func TestServe(t *testing.T) {
	site := demoServer(t)
	dir := t.TempDir()
	cfg := writeFile(t, "c.json", `{"seeds": ["`+site+`/"], "delay": "1ms", "groups": [{"prefix": "`+site+`/hr/", "groups": ["hr"]}]}`)
	if code, _, stderr := doppel(t, "crawl", "--once", "--data", dir, "--config", cfg); code != 0 {
		t.Fatalf("crawl: %s", stderr)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--data", dir, "--addr", "127.0.0.1:0", "--groups-header", "X-Groups", "--trusted-proxies", "127.0.0.1", "--admin-groups", "admin"}, &stdout, &stderr)
	}()
	base := searchUI(t, &stdout, &stderr, "serve did not start")
	count := func(groups string) int {
		req, _ := http.NewRequest("GET", base+"api/search?q=hr&size=100", nil)
		req.Header.Set("X-Groups", groups)
		return hrHits(t, req)
	}
	if a, b := count(""), count("hr"); a != 0 || b == 0 {
		t.Errorf("HR pages: anonymous %d, hr %d", a, b)
	}
	resp, err := http.Get(base + "api/stats")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("api/stats for anonymous: %d, want 403", resp.StatusCode)
	}
	resp.Body.Close()
	req, _ := http.NewRequest("GET", base+"api/stats", nil)
	req.Header.Set("X-Groups", "admin")
	if resp, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	var st struct {
		Documents, Searchable, Clusters, Skipped int
		ClusterSizes                             map[string]int `json:"cluster_sizes"`
	}
	json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	if st.Documents == 0 || st.Clusters == 0 || st.Skipped == 0 || st.Searchable+st.Skipped > st.Documents || len(st.ClusterSizes) < 2 {
		t.Errorf("stats %+v", st)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("serve exit %d: %s", code, stderr.String())
	}
}

func TestParseDemoUsers(t *testing.T) {
	users, err := parseDemoUsers("guest=; alice=hr,it ;")
	if err != nil || len(users) != 2 || users[0].Name != "guest" || len(users[0].Groups) != 0 ||
		users[1].Name != "alice" || strings.Join(users[1].Groups, ",") != "hr,it" {
		t.Errorf("parseDemoUsers = %+v, %v", users, err)
	}
	if _, err := parseDemoUsers("nobody"); err == nil {
		t.Error("a user without = was accepted")
	}
}

func TestProgressTerminalLine(t *testing.T) {
	defer func(d time.Duration) { redrawInterval = d }(redrawInterval)
	site := demoServer(t)
	c, err := crawler.Open(t.TempDir(), crawler.Options{Seeds: []string{site + "/"}, Delay: 2 * time.Millisecond, MaxPages: 60, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	// Stopped before the first redraw: nothing at all, not even a newline.
	redrawInterval = time.Hour
	var buf bytes.Buffer
	reportProgress(c, &buf, true, time.Now())()
	if buf.Len() != 0 {
		t.Errorf("progress stopped before drawing wrote %q", buf.String())
	}

	redrawInterval = 10 * time.Millisecond
	stop := reportProgress(c, &buf, true, time.Now())
	if err := c.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	stop()
	out := buf.String()
	if !strings.HasSuffix(out, "\n") || strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, "\r") {
		t.Fatalf("want one line redrawn with \\r and ended by a newline, got %q", out)
	}
	line := regexp.MustCompile(`^requests \d+  fetched \d+  queued \d+  unique \d+  near-duplicates \d+  skipped \d+  errors \d+  \d+\.\d pages/s *$`)
	redraws := strings.Split(strings.TrimSuffix(out, "\n"), "\r")[1:]
	for _, r := range redraws {
		if !line.MatchString(r) {
			t.Errorf("progress line %q", r)
		}
	}
	if len(redraws) < 2 {
		t.Errorf("%d redraws, want several: %q", len(redraws), out)
	}
}

func TestExportWhileCrawlRuns(t *testing.T) {
	dir := t.TempDir()
	c, err := crawler.Open(dir, crawler.Options{Seeds: []string{"http://127.0.0.1:1/"}, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if code, _, stderr := doppel(t, "export", "--data", dir); code != 1 || !strings.Contains(stderr, "in use by another process") {
		t.Errorf("export of a data directory in use: exit %d, %q; want 1 and the crawler's in-use error", code, stderr)
	}
}

// TestCrawlServe: doppel crawl --serve serves the index being built, from
// the crawl's own process: results appear while the crawl runs, the crawl
// ends with its summary and the server stays up until Ctrl-C, merging the
// index's segments meanwhile (the same results after).
func TestCrawlServe(t *testing.T) {
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(5 * time.Millisecond) // a crawl of a few seconds
		demosite.Handler().ServeHTTP(w, r)
	}))
	defer slow.Close()
	cfg := writeFile(t, "c.json", `{"seeds": ["`+slow.URL+`/"], "delay": "0s", "parallelism": 1, "refresh_interval": "200ms"}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"crawl", "--once", "--data", t.TempDir(), "--config", cfg, "--serve", "127.0.0.1:0"}, &stdout, &stderr)
	}()
	base := searchUI(t, &stdout, &stderr, "crawl --serve did not start serving")
	total := func() int {
		resp, err := http.Get(base + "api/search?q=")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var res struct{ Total int }
		if err := json.NewDecoder(resp.Body).Decode(&res); err != nil || resp.StatusCode != 200 {
			t.Fatalf("api/search: %d, %v", resp.StatusCode, err)
		}
		return res.Total
	}
	// While the crawl runs, the searchable set grows.
	during := 0 // the fewest results seen while the crawl ran
	for deadline := time.Now().Add(time.Minute); !strings.Contains(stdout.String(), "pages fetched:"); time.Sleep(20 * time.Millisecond) {
		if n := total(); n > 0 && (during == 0 || n < during) {
			during = n
		}
		if time.Now().After(deadline) {
			t.Fatal("the crawl did not finish")
		}
	}
	after := total()
	if during == 0 || during >= after {
		t.Errorf("results during the crawl: at first %d, after: %d; want some during, more after", during, after)
	}
	if !strings.Contains(stdout.String(), "still serving") {
		t.Errorf("no word that the server goes on: %s", stdout.String())
	}
	// While it serves, the index is merged: the compaction's line follows.
	compacted := regexp.MustCompile(`(?m)^compacted: +(\d+ segments \(\d+ deleted records\) into \d+ in [0-9.]+ s|nothing to merge)`)
	for deadline := time.Now().Add(time.Minute); !compacted.MatchString(stdout.String()); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no compaction while serving:\n%s", stdout.String())
		}
	}
	if n := total(); n != after {
		t.Errorf("%d results after the compaction, %d before", n, after)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d after Ctrl-C: %s", code, stderr.String())
	}
}

// TestRunKeepsSearchFresh: doppel run crawls, serves search from the same
// process and keeps the index fresh: a page changed on the site is
// searchable by its new text and no longer by its old one, without a
// restart; Ctrl-C stops it with exit status 0 and a summary of revisits.
func TestRunKeepsSearchFresh(t *testing.T) {
	var mu sync.Mutex
	text := "The quarterly sailing regatta starts at the marina on Saturday morning."
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, `<html><head><title>Home</title></head><body><main><p>Club news and events.</p><a href="/events">Events</a></main></body></html>`)
		case "/events":
			fmt.Fprintf(w, `<html><head><title>Events</title></head><body><main><p>%s</p></main></body></html>`, text)
		default:
			http.NotFound(w, r)
		}
	}))
	defer site.Close()
	cfg := writeFile(t, "c.json", `{"seeds": ["`+site.URL+`/"], "delay": "0s", "refresh_interval": "100ms",
		"revisit": {"min_interval": "100ms", "max_interval": "300ms", "prior": "200ms", "sitemaps": "-1s"}}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"run", "--data", t.TempDir(), "--config", cfg, "--addr", "127.0.0.1:0"}, &stdout, &stderr)
	}()
	base := searchUI(t, &stdout, &stderr, "doppel run did not start serving")
	found := func(q string) int {
		resp, err := http.Get(base + "api/search?q=" + url.QueryEscape(q))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var res struct{ Total int }
		if err := json.NewDecoder(resp.Body).Decode(&res); err != nil || resp.StatusCode != 200 {
			t.Fatalf("api/search: %d, %v", resp.StatusCode, err)
		}
		return res.Total
	}
	waitFor := func(what string, ok func() bool) {
		for deadline := time.Now().Add(20 * time.Second); !ok(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within 20 s; stderr:\n%s", what, stderr.String())
			}
		}
	}
	waitFor("the regatta page searchable", func() bool { return found("regatta") == 1 })
	mu.Lock()
	text = "The summer barbecue moves to the courtyard behind the boathouse this year."
	mu.Unlock()
	waitFor("the changed page searchable by its new text", func() bool { return found("barbecue") == 1 })
	if n := found("regatta"); n != 0 {
		t.Errorf("the old text still finds %d pages", n)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("doppel run stopped with exit %d: %s", code, stderr.String())
	}
	if n := summaryValue(t, stdout.String(), "revisits"); n < 1 || !strings.Contains(stdout.String(), "changed") {
		t.Errorf("summary:\n%s", stdout.String())
	}
}

// searchUI waits for the "Search UI: URL" line a serving command prints
// and returns the URL; what fails says what did not start.
func searchUI(t *testing.T, stdout, stderr *syncBuffer, what string) string {
	t.Helper()
	ui := regexp.MustCompile(`Search UI: (http://[0-9.:]+/)`)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if m := ui.FindStringSubmatch(stdout.String()); m != nil {
			return m[1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s", what, stderr.String())
		}
	}
}
