package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOutputsToStdoutAndSpecialFiles: "--out -" is standard output, and
// an output that is a special file (here a symbolic link to a named pipe,
// as /dev/stdout is a link to the terminal or a pipe) is written in place:
// the link stays a link, and the pipe's reader gets the output.
func TestOutputsToStdoutAndSpecialFiles(t *testing.T) {
	in := writeFile(t, "docs.jsonl", `{"id":"a","text":"`+manual+`"}`+"\n"+`{"id":"b","text":"`+manual+` today"}`+"\n")
	dir := t.TempDir()
	t.Chdir(dir)

	code, stdout, stderr := doppel(t, "dedup", "--in", in, "--out", "-")
	if code != 0 || strings.Count(stdout, `"id":`) != 2 {
		t.Errorf("dedup --out -: exit %d, stdout %q, stderr %q; want the two clusters lines on stdout", code, stdout, stderr)
	}
	if _, err := os.Lstat(filepath.Join(dir, "-")); err == nil {
		t.Error(`dedup --out - created a file named "-"`)
	}

	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	link := filepath.Join(dir, "stdout")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()
	code, _, stderr = doppel(t, "dedup", "--in", in, "--out", link)
	if code != 0 {
		t.Fatalf("dedup --out LINK-TO-PIPE: exit %d: %s", code, stderr)
	}
	if s := <-got; strings.Count(s, `"id":`) != 2 {
		t.Errorf("the pipe's reader got %q; want the two clusters lines", s)
	}
	for path, want := range map[string]os.FileMode{link: os.ModeSymlink, fifo: os.ModeNamedPipe} {
		if info, err := os.Lstat(path); err != nil || info.Mode().Type() != want {
			t.Errorf("%s after the run: %v, %v; want type %v (never replaced)", path, info.Mode(), err, want)
		}
	}
}

// TestExportToStdout: "doppel export --out -" prints the export.
func TestExportToStdout(t *testing.T) {
	site := demoServer(t)
	dir := filepath.Join(t.TempDir(), "data")
	if code, _, stderr := doppel(t, "crawl", "--once", "--seed", site+"/", "--data", dir, "--delay", "0", "--max-pages", "5"); code != 3 {
		t.Fatalf("crawl: exit %d: %s", code, stderr)
	}
	_, want, _ := doppel(t, "export", "--data", dir)
	t.Chdir(t.TempDir())
	code, got, stderr := doppel(t, "export", "--data", dir, "--out", "-")
	if code != 0 || got != want || want == "" {
		t.Errorf("export --out -: exit %d (%s), stdout %q; want %q", code, stderr, got, want)
	}
	if _, err := os.Lstat("-"); err == nil {
		t.Error(`export --out - created a file named "-"`)
	}
}
