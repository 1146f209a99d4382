package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestTutorial runs docs/tutorial.md's commands as written, on the demo
// intranet served by the test instead of `doppel demo --site-only`, and
// checks what the page says a reader sees: copies found, a series whose
// newest month stands, one printing result with its two copies, the
// grievance procedure for hr-staff and not for guest.
func TestTutorial(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the demo intranet twice")
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "tutorial.md"))
	if err != nil {
		t.Fatal(err)
	}
	site := demoServer(t)
	work := t.TempDir()
	// The page's placeholders: the demo site's address, data directories,
	// files it writes, the search addresses.
	fix := strings.NewReplacer("http://127.0.0.1:8000", site, "./intranet2", filepath.Join(work, "intranet2"),
		"./intranet", filepath.Join(work, "intranet"), "groups.json", filepath.Join(work, "groups.json"),
		"127.0.0.1:8080", "127.0.0.1:0", "127.0.0.1:8090", "127.0.0.1:0")
	var lines []string
	for _, l := range strings.Split(fencedBlocks(string(doc))["sh"], "\n") {
		lines = append(lines, fix.Replace(strings.TrimSuffix(strings.TrimSpace(l), " &")))
	}
	var servers []string
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "echo '"):
			body, file, _ := strings.Cut(strings.TrimPrefix(l, "echo '"), "' > ")
			if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		case strings.HasPrefix(l, "./doppel crawl ") || strings.HasPrefix(l, "./doppel report "):
			code, stdout, stderr := doppel(t, shellFields(t, strings.TrimPrefix(l, "./doppel "))...)
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", l, code, stderr)
			}
			if strings.HasPrefix(l, "./doppel crawl ") && summaryValue(t, stdout, "near-duplicates") == 0 {
				t.Errorf("%s: no near-duplicates found:\n%s", l, stdout)
			}
			if strings.HasPrefix(l, "./doppel report ") && !regexp.MustCompile(`maintenance-2026-12\.html\s+IT maintenance window, December 2026`).MatchString(stdout) {
				t.Errorf("the report does not show the maintenance series' newest month as its master:\n%s", stdout)
			}
		case strings.HasPrefix(l, "./doppel serve "):
			servers = append(servers, startServe(t, shellFields(t, strings.TrimPrefix(l, "./doppel "))))
		case strings.HasPrefix(l, "./doppel run "), strings.HasPrefix(l, "go build"), strings.HasPrefix(l, "curl "),
			strings.HasPrefix(l, "./doppel demo --site-only"), l == "":
			// run keeps crawling: its flags are checked by TestHelp; the
			// build, the site and the curl line are what the test does itself.
		default:
			t.Errorf("the tutorial has a command this test does not know: %q", l)
		}
	}
	if len(servers) != 2 {
		t.Fatalf("%d serve commands in the tutorial, want 2 (without and with the groups rule)", len(servers))
	}
	search := func(base, user, q string) (total int, first string, similar int) {
		resp, err := http.Get(base + "api/search?q=" + q + "&user=" + user)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var ans struct {
			Total int
			Hits  []struct {
				URL     string
				Similar int
			}
		}
		if err := json.NewDecoder(resp.Body).Decode(&ans); err != nil {
			t.Fatal(err)
		}
		if len(ans.Hits) > 0 {
			first, similar = ans.Hits[0].URL, ans.Hits[0].Similar
		}
		return ans.Total, first, similar
	}
	if _, first, similar := search(servers[0], "guest", "printing"); !strings.HasSuffix(first, "/manual/printing.html") || similar != 2 {
		t.Errorf("printing: first %s with %d similar; the tutorial says the printing page with 2 similar", first, similar)
	}
	if total, _, _ := search(servers[1], "guest", "grievance"); total != 0 {
		t.Errorf("grievance as guest after the groups rule: %d results, the tutorial says none", total)
	}
	if total, first, _ := search(servers[1], "hr-staff", "grievance"); total == 0 || !strings.Contains(first, "/hr/grievance") {
		t.Errorf("grievance as hr-staff: %d results, first %s; the tutorial says the grievance procedure", total, first)
	}
}

// shellFields splits a command line at spaces, reading single-quoted
// words as one.
func shellFields(t *testing.T, line string) []string {
	t.Helper()
	var out []string
	for _, m := range regexp.MustCompile(`'[^']*'|\S+`).FindAllString(line, -1) {
		out = append(out, strings.Trim(m, "'"))
	}
	return out
}

// startServe runs a serve command line in-process until the test ends
// and returns its search address.
func startServe(t *testing.T, args []string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, args, &stdout, &stderr) }()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("serve exit %d: %s", code, stderr.String())
		}
	})
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if m := regexp.MustCompile(`Search UI: (http://[0-9.:]+/)`).FindStringSubmatch(stdout.String()); m != nil {
			return m[1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start: %s %s", stdout.String(), stderr.String())
		}
	}
}
