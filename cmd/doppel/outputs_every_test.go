package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// An output is a flag of a command that names a file it writes: args
// runs the command with the flag naming path (the data directory and
// inputs are given), and looks says whether bytes are what it writes.
type output struct {
	name  string
	args  func(path string) []string
	looks func([]byte) bool
}

// isJSONLines, isGzip (pprof profiles), isTrace and isStats recognize
// what each output holds.
func isJSONLines(b []byte) bool {
	return bytes.HasPrefix(b, []byte(`{"`)) && bytes.HasSuffix(b, []byte("}\n"))
}
func isGzip(b []byte) bool  { return bytes.HasPrefix(b, []byte{0x1f, 0x8b}) }
func isTrace(b []byte) bool { return bytes.HasPrefix(b, []byte("go 1.")) }
func isStats(b []byte) bool { return bytes.HasPrefix(b, []byte("DPLSTAT1")) }

// everyOutput lists every flag of cmd/doppel that names an output file,
// the commands run on the crawl in data and the documents in docs.
func everyOutput(data, docs string) []output {
	crawl := func(flag string) func(string) []string {
		return func(p string) []string { return []string{"crawl", "--once", "--data", data, flag, p} }
	}
	dedup := func(flag string) func(string) []string {
		return func(p string) []string {
			args := []string{"dedup", "--in", docs, "--quiet"}
			if flag != "--out" {
				args = append(args, "--out", filepath.Join(filepath.Dir(docs), "clusters.jsonl"))
			}
			return append(args, flag, p)
		}
	}
	return []output{
		{"export --out", func(p string) []string { return []string{"export", "--data", data, "--out", p} }, isJSONLines},
		{"dedup --out", dedup("--out"), isJSONLines},
		{"dedup --pairs", dedup("--pairs"), isJSONLines},
		{"dedup --save-stats", dedup("--save-stats"), isStats},
		{"dedup --cpuprofile", dedup("--cpuprofile"), isGzip},
		{"dedup --memprofile", dedup("--memprofile"), isGzip},
		{"crawl --cpuprofile", crawl("--cpuprofile"), isGzip},
		{"crawl --memprofile", crawl("--memprofile"), isGzip},
		{"crawl --trace", crawl("--trace"), isTrace},
	}
}

// TestEveryOutput runs every command that writes a file a user names
// (everyOutput) with that name standing for each kind of target: "-"
// (standard output: no file named "-"), a named pipe and a symbolic link
// to one (as /dev/stdout is a link to a pipe or terminal: written in
// place, never replaced), a symbolic link to the user's own file (the
// link stays, its target gets the output), an existing file (replaced by
// the output, as documented), a directory and a file inside the crawl's
// data directory (refused with an error naming the flag, nothing
// changed).
func TestEveryOutput(t *testing.T) {
	site := demoServer(t)
	data := filepath.Join(t.TempDir(), "data")
	if code, _, stderr := doppel(t, "crawl", "--once", "--seed", site+"/", "--data", data, "--delay", "0", "--max-pages", "5"); code != 0 && code != 3 {
		t.Fatalf("crawl: exit %d: %s", code, stderr)
	}
	docs := writeFile(t, "docs.jsonl", `{"id":"a","text":"`+manual+`"}`+"\n"+`{"id":"b","text":"`+manual+` today"}`+"\n")
	for _, out := range everyOutput(data, docs) {
		t.Run(strings.ReplaceAll(out.name, " ", ""), func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			run := func(path string) (int, string, string) {
				return runNoPanic(t, t.Context(), out.args(path)...)
			}

			var code int
			var stdout, stderr string
			osStdout := captureStdout(t, func() { code, stdout, stderr = run("-") })
			if code != 0 && code != 3 || !holds(out.looks, stdout+osStdout) {
				t.Errorf("%s -: exit %d (%s), stdout %.40q; want the output on stdout", out.name, code, stderr, stdout)
			}
			if _, err := os.Lstat("-"); err == nil {
				t.Errorf(`%s - created a file named "-"`, out.name)
			}

			fifo := filepath.Join(dir, "fifo")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skip("no named pipes here:", err)
			}
			link := filepath.Join(dir, "stdout")
			if err := os.Symlink(fifo, link); err != nil {
				t.Fatal(err)
			}
			for _, target := range []string{fifo, link} {
				got := readPipe(fifo)
				if code, _, stderr := run(target); code != 0 && code != 3 {
					t.Fatalf("%s %s: exit %d: %s", out.name, target, code, stderr)
				}
				if b := <-got; !out.looks(b) {
					t.Errorf("%s %s: the pipe's reader got %.40q; want the output", out.name, target, b)
				}
			}
			sameType(t, link, os.ModeSymlink)
			sameType(t, fifo, os.ModeNamedPipe)

			mine := filepath.Join(dir, "mine.txt")
			os.WriteFile(mine, []byte("the user's own file\n"), 0o600)
			toMine := filepath.Join(dir, "to-mine")
			os.Symlink(mine, toMine)
			if code, _, stderr := run(toMine); code != 0 && code != 3 {
				t.Fatalf("%s LINK: exit %d: %s", out.name, code, stderr)
			}
			sameType(t, toMine, os.ModeSymlink)
			if b, _ := os.ReadFile(mine); !out.looks(b) {
				t.Errorf("%s LINK: its target holds %.40q; want the output", out.name, b)
			}

			existing := filepath.Join(dir, "existing")
			os.WriteFile(existing, []byte("old\n"), 0o600)
			if code, _, stderr := run(existing); code != 0 && code != 3 {
				t.Fatalf("%s EXISTING: exit %d: %s", out.name, code, stderr)
			}
			if b, _ := os.ReadFile(existing); !out.looks(b) {
				t.Errorf("%s EXISTING: it holds %.40q; want the output", out.name, b)
			}

			refused := map[string]string{"a directory": dir}
			if !strings.HasPrefix(out.name, "dedup") {
				refused["a file in the data directory"] = filepath.Join(data, "index", "index_meta.json")
			}
			for what, path := range refused {
				before := snapshotTree(t, data)
				code, _, stderr := run(path)
				flag := strings.Fields(out.name)[1]
				if code == 0 || code == 3 || !strings.Contains(stderr, flag) {
					t.Errorf("%s naming %s (%s): exit %d, stderr %q; want an error naming %s", out.name, what, path, code, stderr, flag)
				}
				if after := snapshotTree(t, data); after != before && what != "a directory" {
					t.Errorf("%s naming %s changed the data directory", out.name, what)
				}
				if info, err := os.Stat(dir); err != nil || !info.IsDir() {
					t.Fatalf("%s naming %s: the directory is gone: %v", out.name, what, err)
				}
			}
		})
	}
}

// holds reports whether the output looks recognizes starts somewhere in
// s (standard output, after what else a command prints there).
func holds(looks func([]byte) bool, s string) bool {
	for i := range len(s) {
		if looks([]byte(s[i:])) {
			return true
		}
	}
	return false
}

// captureStdout runs fn and returns what it wrote to os.Stdout (where a
// writer without the command's stdout, such as --save-stats, sends "-").
func captureStdout(t *testing.T, fn func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	got := make(chan []byte, 1)
	go func() { b, _ := io.ReadAll(r); got <- b }()
	func() {
		defer func() { os.Stdout = old }()
		fn()
	}()
	w.Close()
	b := <-got
	r.Close()
	return string(b)
}

// readPipe reads the named pipe at path to its end in a goroutine.
func readPipe(path string) <-chan []byte {
	got := make(chan []byte, 1)
	go func() {
		f, err := os.Open(path)
		if err != nil {
			got <- []byte(err.Error())
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- b
	}()
	return got
}

// sameType fails the test unless path is still of type want.
func sameType(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	if info, err := os.Lstat(path); err != nil || info.Mode().Type() != want {
		t.Errorf("%s after the runs: %v; want type %v (never replaced)", path, err, want)
	}
}

// snapshotTree returns the names and sizes of the files under dir.
func snapshotTree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			info, _ := d.Info()
			b.WriteString(p)
			if info != nil && strings.HasSuffix(p, ".json") {
				data, _ := os.ReadFile(p)
				b.Write(data)
			}
			b.WriteByte('\n')
		}
		return nil
	})
	return b.String()
}
