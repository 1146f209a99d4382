package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// doppel runs the command line in-process and returns the exit status,
// stdout and stderr.
func doppel(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func readLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("output line %q: %v", line, err)
		}
		out = append(out, v)
	}
	return out
}

const manual = "To work from home connect to the corporate network through the VPN client and sign in with your network account and the code from your authenticator app"

func TestDedupContract(t *testing.T) {
	in := writeFile(t, "docs.jsonl", strings.Join([]string{
		`{"id":"a","text":"` + manual + `","url":"http://intranet/a"}`,
		`{"id":"n","text":"The canteen renovation is finished and the terrace is open"}`,
		`{"id":"b","text":"` + manual + ` today","title":"copy"}`,
		`{"id":"c","text":"caf` + "\xe9" + ` ` + manual + `"}`,
		`{"id":"empty","text":""}`,
	}, "\n"))
	for _, clustering := range []string{"online", "star"} {
		t.Run(clustering, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "clusters.jsonl")
			pairs := filepath.Join(t.TempDir(), "pairs.jsonl")
			code, _, stderr := doppel(t, "dedup", "--in", in, "--out", out, "--pairs", pairs, "--clustering", clustering)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			lines := readLines(t, out)
			wantIDs := []string{"a", "n", "b", "c", "empty"}
			if len(lines) != len(wantIDs) {
				t.Fatalf("%d output lines, want one per input document (%d)", len(lines), len(wantIDs))
			}
			cluster := map[string]string{}
			for i, l := range lines {
				if l["id"] != wantIDs[i] || l["cluster"] == "" || l["master"] == "" {
					t.Errorf("line %d = %v, want id %s with cluster and master", i+1, l, wantIDs[i])
				}
				cluster[l["id"].(string)] = l["cluster"].(string)
			}
			if cluster["a"] != cluster["b"] || cluster["a"] != cluster["c"] || cluster["a"] == cluster["n"] || cluster["empty"] == cluster["a"] {
				t.Errorf("clusters = %v: want a, b, c together and n, empty apart", cluster)
			}
			if p := readLines(t, pairs); len(p) != 3 {
				t.Errorf("pairs = %v, want a-b, a-c, b-c", p)
			}
			for _, want := range []string{"5 documents", "3 clusters", "1 unsignable", "1 repaired"} {
				if !strings.Contains(stderr, want) {
					t.Errorf("summary %q lacks %q", stderr, want)
				}
			}
		})
	}
}

func TestDedupBadInput(t *testing.T) {
	tests := []struct {
		name, input, want string
	}{
		{"invalid json", "{\"id\":\"a\",\"text\":\"x\"}\n{\"id\":\"b\",\"text\":\"y\"}\n{\"id\":", "line 3: invalid JSON"},
		{"missing id", "{\"id\":\"a\",\"text\":\"x\"}\n{\"text\":\"y\"}\n", `line 2: missing "id"`},
		{"missing text", "{\"id\":\"a\"}\n", `line 1: missing "text"`},
		{"duplicate id", "{\"id\":\"a\",\"text\":\"x\"}\n{\"id\":\"a\",\"text\":\"y\"}\n", "line 2: duplicate id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := writeFile(t, "docs.jsonl", tt.input)
			dir := t.TempDir()
			out := filepath.Join(dir, "clusters.jsonl")
			code, _, stderr := doppel(t, "dedup", "--in", in, "--out", out, "--pairs", filepath.Join(dir, "pairs.jsonl"))
			if code == 0 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want failure mentioning %q", code, stderr, tt.want)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("failed run left %d files in the output directory", len(entries))
			}
		})
	}
}

func TestUsageErrors(t *testing.T) {
	tests := [][]string{
		{},
		{"nonsense"},
		{"dedup"},
		{"dedup", "--in", "x", "--out", "y", "--no-such-flag"},
		{"dedup", "--in", "x", "--out", "y", "extra"},
	}
	for _, args := range tests {
		if code, _, _ := doppel(t, args...); code != 2 {
			t.Errorf("doppel %q: exit %d, want 2", args, code)
		}
	}
	for _, args := range [][]string{
		{"dedup", "--in", "x", "--out", "y", "--method", "magic"},
		{"dedup", "--in", "/nonexistent/docs.jsonl", "--out", filepath.Join(t.TempDir(), "o")},
	} {
		if code, _, stderr := doppel(t, args...); code != 1 || stderr == "" {
			t.Errorf("doppel %q: exit %d, stderr %q; want 1 with a message", args, code, stderr)
		}
	}
}

func TestStatsSaveAndLoad(t *testing.T) {
	in := writeFile(t, "docs.jsonl", `{"id":"a","text":"`+manual+`"}`+"\n"+`{"id":"b","text":"`+manual+`"}`)
	dir := t.TempDir()
	statsPath := filepath.Join(dir, "df.stats")
	if code, _, stderr := doppel(t, "dedup", "--in", in, "--out", filepath.Join(dir, "1.jsonl"), "--save-stats", statsPath, "--method", "imatch"); code != 0 {
		t.Fatalf("save: %s", stderr)
	}
	if code, _, stderr := doppel(t, "dedup", "--in", in, "--out", filepath.Join(dir, "2.jsonl"), "--stats", statsPath, "--method", "imatch"); code != 0 {
		t.Fatalf("load: %s", stderr)
	}
	one, _ := os.ReadFile(filepath.Join(dir, "1.jsonl"))
	two, _ := os.ReadFile(filepath.Join(dir, "2.jsonl"))
	if !bytes.Equal(one, two) {
		t.Error("loaded statistics give different clusters than the saved ones")
	}
	os.WriteFile(statsPath, []byte("DPLSTAT1 truncated"), 0o644)
	if code, _, stderr := doppel(t, "dedup", "--in", in, "--out", filepath.Join(dir, "3.jsonl"), "--stats", statsPath); code != 1 || !strings.Contains(stderr, "corrupt") {
		t.Errorf("truncated stats: exit %d, %q; want a corruption error", code, stderr)
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestDedupMaxShingleDocs(t *testing.T) {
	var tw []string // 400 distinct navigation words
	for i := range 400 {
		tw = append(tw, fmt.Sprintf("nav%c%c", 'a'+i%26, 'a'+i/26))
	}
	template := strings.Join(tw, " ")
	var lines []string
	for i, extra := range []string{"quarterly results are out", "new bicycle scheme launched", "fire drill next month", "library opening hours changed"} {
		lines = append(lines, fmt.Sprintf(`{"id":"p%d","text":"%s %s"}`, i, template, extra))
	}
	in := writeFile(t, "docs.jsonl", strings.Join(lines, "\n"))
	clusters := func(extra ...string) int {
		out := filepath.Join(t.TempDir(), "c.jsonl")
		code, _, stderr := doppel(t, append([]string{"dedup", "--in", in, "--out", out}, extra...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		ids := map[any]bool{}
		for _, l := range readLines(t, out) {
			ids[l["cluster"]] = true
		}
		return len(ids)
	}
	if n := clusters(); n != 1 {
		t.Fatalf("without the filter: %d clusters, want 1 (the pages share only a template)", n)
	}
	if n := clusters("--max-shingle-docs", "2"); n != 4 {
		t.Errorf("with --max-shingle-docs 2: %d clusters, want 4", n)
	}
}

// TestDedupMaxFanout: with many copies of one page, --max-fanout bounds
// the pairs each copy reports (the first copies only) without changing the
// cluster; -1 reports every pair.
func TestDedupMaxFanout(t *testing.T) {
	var lines []string
	for i := range 40 {
		lines = append(lines, fmt.Sprintf(`{"id":"c%d","text":"the printer on the third floor jams when the paper tray is overfilled so open the front cover"}`, i))
	}
	in := writeFile(t, "docs.jsonl", strings.Join(lines, "\n"))
	for _, c := range []struct {
		fanout string
		pairs  int
	}{{"4", 0 + 1 + 2 + 3 + 4*36}, {"-1", 40 * 39 / 2}} {
		dir := t.TempDir()
		out, pairs := filepath.Join(dir, "c.jsonl"), filepath.Join(dir, "p.jsonl")
		code, _, stderr := doppel(t, "dedup", "--in", in, "--out", out, "--pairs", pairs, "--quiet", "--max-fanout", c.fanout)
		if code != 0 {
			t.Fatalf("--max-fanout %s: exit %d: %s", c.fanout, code, stderr)
		}
		masters := map[any]bool{}
		for _, l := range readLines(t, out) {
			masters[l["master"]] = true
		}
		if n := len(readLines(t, pairs)); n != c.pairs || len(masters) != 1 || !masters["c0"] {
			t.Errorf("--max-fanout %s: %d pairs, masters %v; want %d pairs, master c0", c.fanout, n, masters, c.pairs)
		}
	}
}

// hrHits runs an API search and counts the results under /hr/.
func hrHits(t *testing.T, req *http.Request) int {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Hits []struct{ URL string } `json:"hits"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, h := range r.Hits {
		if strings.Contains(h.URL, "/hr/") {
			n++
		}
	}
	return n
}

// TestNoCommandOverwritesItsInput: an output that is an input, or another
// output — the same path, a symbolic link, a hard link — is refused before
// anything is read or written, and the input is left as it was.
func TestNoCommandOverwritesItsInput(t *testing.T) {
	dir := t.TempDir()
	input := "{\"id\":\"a\",\"text\":\"the travel policy reimburses hotels\"}\n"
	in := filepath.Join(dir, "docs.jsonl")
	if err := os.WriteFile(in, []byte(input), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.jsonl")
	hard := filepath.Join(dir, "hard.jsonl")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	out := filepath.Join(dir, "out.jsonl")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"out is the input", []string{"--out", in}, "--out " + in + " is the input --in"},
		{"pairs is the input", []string{"--out", out, "--pairs", in}, "--pairs " + in + " is the input --in"},
		{"out through a symbolic link", []string{"--out", link}, "is the input --in"},
		{"out through a hard link", []string{"--out", hard}, "is the input --in"},
		{"out through ..", []string{"--out", filepath.Join(sub, "..", "docs.jsonl")}, "is the input --in"},
		{"pairs is out", []string{"--out", out, "--pairs", out}, "--out and --pairs name the same file"},
		{"save-stats is the input", []string{"--out", out, "--save-stats", in}, "--save-stats " + in + " is the input --in"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := doppel(t, append([]string{"dedup", "--in", in}, tc.args...)...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tc.want)
			}
			if data, err := os.ReadFile(in); err != nil || string(data) != input {
				t.Fatalf("the input changed: %q, %v", data, err)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("a refused run wrote %s", out)
			}
		})
	}
	// export --out into the crawl's own state is refused too.
	data := filepath.Join(dir, "crawl")
	os.Mkdir(data, 0o755)
	pagesDB := filepath.Join(data, "pages.db")
	os.WriteFile(pagesDB, []byte("state"), 0o644)
	if code, _, stderr := doppel(t, "export", "--data", data, "--out", pagesDB); code != 2 || !strings.Contains(stderr, "is the input the crawl's pages.db") {
		t.Errorf("export --out onto pages.db: exit %d, %q", code, stderr)
	}
	if got, _ := os.ReadFile(pagesDB); string(got) != "state" {
		t.Error("export replaced the crawl's page store")
	}
	// Distinct files are fine.
	if code, _, stderr := doppel(t, "dedup", "--in", in, "--out", out, "--pairs", filepath.Join(dir, "pairs.jsonl")); code != 0 {
		t.Errorf("distinct outputs: exit %d, %s", code, stderr)
	}
}
