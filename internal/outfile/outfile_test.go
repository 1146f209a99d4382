package outfile

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestTargets writes to every kind of target and checks that what the
// name stands for is written and never replaced by something else.
func TestTargets(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "out.jsonl")
	os.WriteFile(regular, []byte("old\n"), 0o600)
	linkToRegular := filepath.Join(dir, "link.jsonl")
	os.Symlink(regular, linkToRegular)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	linkToFifo := filepath.Join(dir, "stdout") // as /dev/stdout is a link to a pipe or a terminal
	os.Symlink(fifo, linkToFifo)
	linkToNull := filepath.Join(dir, "null")
	os.Symlink(os.DevNull, linkToNull)

	for _, tc := range []struct {
		name, path string
		read       func(t *testing.T) string // what the target holds after the write
		check      func(t *testing.T)        // what must still be there
	}{
		{"regular file", regular, file(regular), mode(regular, 0)},
		{"new file", filepath.Join(dir, "new"), file(filepath.Join(dir, "new")), mode(filepath.Join(dir, "new"), 0)},
		{"link to a regular file", linkToRegular, file(regular), mode(linkToRegular, os.ModeSymlink)},
		{"named pipe", fifo, nil, mode(fifo, os.ModeNamedPipe)},
		{"link to a named pipe", linkToFifo, nil, mode(linkToFifo, os.ModeSymlink)},
		{"link to a device", linkToNull, nil, func(t *testing.T) {
			mode(linkToNull, os.ModeSymlink)(t)
			mode(os.DevNull, os.ModeCharDevice|os.ModeDevice)(t)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got chan string
			if tc.read == nil && tc.path != linkToNull { // a pipe: read it as the write goes
				got = make(chan string, 1)
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
			}
			if err := WriteFile(tc.path, nil, []byte("new\n")); err != nil {
				t.Fatal(err)
			}
			if got != nil {
				if s := <-got; s != "new\n" {
					t.Errorf("the pipe's reader got %q, want %q", s, "new\n")
				}
			}
			if tc.read != nil {
				if s := tc.read(t); s != "new\n" {
					t.Errorf("the file holds %q, want %q", s, "new\n")
				}
			}
			tc.check(t)
		})
	}
}

func file(path string) func(t *testing.T) string {
	return func(t *testing.T) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
}

// mode checks that path (not followed) has the type bits want.
func mode(path string, want os.FileMode) func(t *testing.T) {
	return func(t *testing.T) {
		info, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Mode().Type(); got != want {
			t.Errorf("%s has type %v, want %v", path, got, want)
		}
	}
}

func TestStdout(t *testing.T) {
	var buf bytes.Buffer
	dir := t.TempDir()
	t.Chdir(dir)
	if err := WriteFile("-", &buf, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "new\n" {
		t.Errorf("stdout got %q", buf.String())
	}
	if _, err := os.Lstat(filepath.Join(dir, "-")); err == nil {
		t.Error(`"-" created a file named "-"`)
	}
}

func TestAbortKeepsOldFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out")
	os.WriteFile(path, []byte("old\n"), 0o644)
	f, err := Create(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("partial"))
	f.Abort()
	if b, _ := os.ReadFile(path); string(b) != "old\n" {
		t.Errorf("after Abort the file holds %q", b)
	}
}
