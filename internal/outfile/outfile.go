// Package outfile writes a file a user names on the command line without
// ever replacing what the name stands for by something else:
//
//   - "-" is standard output;
//   - a special file (a device such as /dev/stdout's target, a named pipe,
//     a socket), or a symbolic link to one, is opened and written in
//     place;
//   - a regular file, new or existing, is written to a temporary file
//     beside it that replaces it atomically on Commit (a failed run
//     leaves the old file, or none); a symbolic link to a regular file
//     stays a link: its target is replaced.
//
// Only the last case can be undone: a run that fails after writing to
// standard output or a special file has written part of its output.
package outfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/google/renameio/v2"
)

// Stdout is the name that stands for standard output.
const Stdout = "-"

// A File is an output being written. It is not safe for concurrent use.
type File struct {
	w       io.Writer
	pending *renameio.PendingFile // a regular file: replaced on Commit
	special *os.File              // a special file: closed on Commit
	done    bool
}

// Create starts writing path (see the package doc); stdout is what "-"
// writes to (os.Stdout if nil).
func Create(path string, stdout io.Writer) (*File, error) {
	if path == Stdout {
		if stdout == nil {
			stdout = os.Stdout
		}
		return &File{w: stdout}, nil
	}
	target := path
	if t, err := filepath.EvalSymlinks(path); err == nil {
		target = t
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("outfile: %w", err)
	}
	if info, err := os.Stat(target); err == nil && !info.Mode().IsRegular() {
		if info.IsDir() {
			return nil, fmt.Errorf("outfile: %s is a directory", path)
		}
		f, err := os.OpenFile(target, os.O_WRONLY, 0)
		if err != nil {
			return nil, fmt.Errorf("outfile: %w", err)
		}
		return &File{w: f, special: f}, nil
	}
	p, err := renameio.NewPendingFile(target, renameio.WithPermissions(0o644), renameio.WithExistingPermissions())
	if err != nil {
		return nil, fmt.Errorf("outfile: creating %s: %w", path, err)
	}
	return &File{w: p, pending: p}, nil
}

// Write writes to the output.
func (f *File) Write(p []byte) (int, error) { return f.w.Write(p) }

// Commit finishes the output: a regular file is synced and renamed into
// place, a special file closed.
func (f *File) Commit() error {
	if f.done {
		return nil
	}
	f.done = true
	switch {
	case f.pending != nil:
		if err := f.pending.CloseAtomicallyReplace(); err != nil {
			f.pending.Cleanup()
			return fmt.Errorf("outfile: %w", err)
		}
	case f.special != nil:
		if err := f.special.Close(); err != nil {
			return fmt.Errorf("outfile: %w", err)
		}
	}
	return nil
}

// Abort discards a regular file's output (the target is left untouched)
// and closes a special file. It does nothing after Commit.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	switch {
	case f.pending != nil:
		f.pending.Cleanup()
	case f.special != nil:
		f.special.Close()
	}
}

// WriteFile writes data to path as Create and Commit do.
func WriteFile(path string, stdout io.Writer, data []byte) error {
	f, err := Create(path, stdout)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return fmt.Errorf("outfile: writing %s: %w", path, err)
	}
	return f.Commit()
}
