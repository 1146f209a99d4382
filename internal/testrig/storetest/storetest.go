// Package storetest holds what the stores' conformance suites share
// (crawler/frontier/frontiertest, crawler/pages/pagestest): a store under
// test in a directory of its own, closed when the test ends, and closed
// and opened again on the same state to check what survives; and
// [Unlocked], the check that a refused damaged file was left unlocked.
package storetest

import (
	"io"
	"testing"
)

// A Harness holds one store under test and the directory it reopens.
type Harness[S io.Closer] struct {
	t    *testing.T
	open func(t *testing.T, dir string) S
	dir  string
	cur  S
	live bool // cur is open
}

// Start opens a store in a fresh directory (t.TempDir) with open; the
// store is closed when the test ends.
func Start[S io.Closer](t *testing.T, open func(t *testing.T, dir string) S) *Harness[S] {
	t.Helper()
	h := &Harness[S]{t: t, open: open, dir: t.TempDir()}
	h.cur, h.live = open(t, h.dir), true
	t.Cleanup(func() {
		if h.live {
			h.cur.Close()
		}
	})
	return h
}

// Store returns the store open now.
func (h *Harness[S]) Store() S { return h.cur }

// Reopen closes the store (a Close error fails the test) and opens its
// directory again, returning the new store.
func (h *Harness[S]) Reopen() S {
	h.t.Helper()
	h.live = false
	if err := h.cur.Close(); err != nil {
		h.t.Fatalf("Close: %v", err)
	}
	h.cur, h.live = h.open(h.t, h.dir), true
	return h.cur
}
