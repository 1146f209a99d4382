package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A namedPath is a file a command reads or writes, with the flag (or the
// role) that named it.
type namedPath struct{ name, path string }

// checkOutputs refuses to run a command whose output would replace one of
// its inputs or another of its outputs: the same file after resolving
// symbolic links (os.SameFile for files that exist, so hard links count;
// the resolved absolute path for files to be created). Empty paths are
// ignored.
func checkOutputs(inputs, outputs []namedPath) error {
	var errs []error
	for i, out := range outputs {
		if out.path == "" {
			continue
		}
		for _, in := range inputs {
			if in.path != "" && sameFile(out.path, in.path) {
				errs = append(errs, fmt.Errorf("%s %s is the input %s: it would be overwritten", out.name, out.path, in.name))
			}
		}
		for _, other := range outputs[:i] {
			if other.path != "" && sameFile(out.path, other.path) {
				errs = append(errs, fmt.Errorf("%s and %s name the same file %s", other.name, out.name, out.path))
			}
		}
	}
	return errors.Join(errs...)
}

// sameFile reports whether paths a and b name the same file.
func sameFile(a, b string) bool {
	ia, erra := os.Stat(a)
	ib, errb := os.Stat(b)
	if erra == nil && errb == nil {
		return os.SameFile(ia, ib)
	}
	return resolved(a) == resolved(b)
}

// resolved returns path absolute, with the links in its directory (and in
// itself, if it exists) resolved.
func resolved(path string) string {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		path = p
	} else if dir, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		path = filepath.Join(dir, filepath.Base(path))
	}
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return filepath.Clean(path)
}

// checkOutside refuses outputs inside the data directory dir, whose
// stores (the index's files included) they could replace. Empty paths and
// "-" (standard output) are ignored.
func checkOutside(dir string, outputs []namedPath) error {
	if dir == "" {
		return nil
	}
	root := resolved(dir) + string(filepath.Separator)
	var errs []error
	for _, out := range outputs {
		if out.path == "" || out.path == "-" {
			continue
		}
		if strings.HasPrefix(resolved(out.path), root) {
			errs = append(errs, fmt.Errorf("%s %s is inside the data directory %s: it could replace one of its stores", out.name, out.path, dir))
		}
	}
	return errors.Join(errs...)
}
