package jsonl

import (
	"bufio"
	"encoding/json"
	"fmt"

	"github.com/google/renameio/v2"
)

// A Writer writes JSON values one per line to a temporary file that
// replaces the target path only on [Writer.Commit], so that a failed or
// interrupted run never leaves a file that looks complete. It is not safe
// for concurrent use.
type Writer struct {
	path string
	f    *renameio.PendingFile
	bw   *bufio.Writer
	enc  *json.Encoder
}

// Create starts writing path.
func Create(path string) (*Writer, error) {
	f, err := renameio.NewPendingFile(path, renameio.WithPermissions(0o644))
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
		w.f.Cleanup()
		return fmt.Errorf("jsonl: writing %s: %w", w.path, err)
	}
	if err := w.f.CloseAtomicallyReplace(); err != nil {
		w.f.Cleanup()
		return fmt.Errorf("jsonl: committing %s: %w", w.path, err)
	}
	return nil
}

// Abort discards everything written; the target path is left untouched. It
// is safe to call after Commit (it then does nothing).
func (w *Writer) Abort() { w.f.Cleanup() }
