package jsonl

import (
	"bufio"
	"encoding/json"
	"fmt"

	"io"

	"github.com/doppel-search/doppel/internal/outfile"
)

// A Writer writes JSON values one per line to a temporary file that
// replaces the target path only on [Writer.Commit], so that a failed or
// interrupted run never leaves a file that looks complete — or, for "-"
// and special files (a device, a pipe), to standard output or the file
// itself, in place (package outfile). It is not safe for concurrent use.
type Writer struct {
	path string
	f    *outfile.File
	bw   *bufio.Writer
	enc  *json.Encoder
}

// Create starts writing path; "-" is os.Stdout.
func Create(path string) (*Writer, error) { return CreateTo(path, nil) }

// CreateTo starts writing path; "-" is stdout (os.Stdout if nil).
func CreateTo(path string, stdout io.Writer) (*Writer, error) {
	f, err := outfile.Create(path, stdout)
	if err != nil {
		return nil, fmt.Errorf("jsonl: creating %s: %w", path, err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &Writer{path: path, f: f, bw: bw, enc: enc}, nil
}

// Write appends v as one JSON line.
func (w *Writer) Write(v any) error {
	if err := w.enc.Encode(v); err != nil {
		return fmt.Errorf("jsonl: writing %s: %w", w.path, err)
	}
	return nil
}

// Commit flushes, syncs and atomically renames the file into place.
func (w *Writer) Commit() error {
	if err := w.bw.Flush(); err != nil {
		w.f.Abort()
		return fmt.Errorf("jsonl: writing %s: %w", w.path, err)
	}
	if err := w.f.Commit(); err != nil {
		return fmt.Errorf("jsonl: committing %s: %w", w.path, err)
	}
	return nil
}

// Abort discards everything written to a regular file; the target path is
// left untouched (what went to standard output or a special file stays
// written). It is safe to call after Commit (it then does nothing).
func (w *Writer) Abort() { w.f.Abort() }
