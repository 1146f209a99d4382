// Package pagestest is the conformance suite of [pages.Records]: the
// behaviour every implementation of the crawler's page store shares — the
// embedded bbolt [pages.Store] and any other. An implementation's tests
// call [Run] with an [Opener]:
//
//	func TestConformance(t *testing.T) {
//		pagestest.Run(t, func(t *testing.T, dir string) pages.Records {
//			s, err := pages.Open(filepath.Join(dir, "pages.db"), pages.Options{NoSync: true})
//			if err != nil {
//				t.Fatal(err)
//			}
//			return s
//		})
//	}
package pagestest

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/internal/testrig/storetest"
)

// An Opener opens the store whose state lives under dir, a directory of
// the test's own: a file-based implementation keeps its files there, a
// server-based one derives its namespace (a key prefix) from it, so that
// tests never share state. The first Open of a dir finds an empty store;
// an Open after the previous client's Close finds what it committed. The
// suite closes every store it opens. Open fails the test (t.Fatal) if it
// cannot open.
type Opener func(t *testing.T, dir string) pages.Records

// Run runs the conformance suite against the implementation that open
// opens, one subtest per behaviour of the [pages.Records] contract.
func Run(t *testing.T, open Opener) {
	tests := []struct {
		name string
		run  func(t *testing.T, open Opener)
	}{
		{"Empty", testEmpty},
		{"RoundTrip", testRoundTrip},
		{"Numbering", testNumbering},
		{"Each", testEach},
		{"Known", testKnown},
		{"Placements", testPlacements},
		{"Anchors", testAnchors},
		{"Masters", testMasters},
		{"IndexedThrough", testIndexedThrough},
		{"BatchAtomic", testBatchAtomic},
		{"BatchUnchanged", testBatchUnchanged},
		{"Persistence", testPersistence},
		{"Concurrent", testConcurrent},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, open) })
	}
}

// A harness holds the store under test (s) and reopens it.
type harness struct {
	t  *testing.T
	s  pages.Records
	sh *storetest.Harness[pages.Records]
}

// start opens a fresh store, closed when the test ends.
func start(t *testing.T, open Opener) *harness {
	t.Helper()
	sh := storetest.Start(t, open)
	return &harness{t: t, s: sh.Store(), sh: sh}
}

// reopen closes the store and opens its state again.
func (h *harness) reopen() {
	h.t.Helper()
	h.s = h.sh.Reopen()
}

// rec returns a record of url with status.
func rec(url string, status pages.Status) pages.Record {
	var r pages.Record
	r.URL, r.Status = url, status
	return r
}

// text returns a fetched record of url with text.
func text(url, text string) pages.Record {
	r := rec(url, pages.Fetched)
	r.Text = text
	return r
}

// commit commits b and checks it returned one stored record per put.
func (h *harness) commit(b *pages.Batch) []pages.Record {
	h.t.Helper()
	stored, err := h.s.Commit(b)
	if err != nil {
		h.t.Fatalf("Commit: %v", err)
	}
	if len(stored) != b.Len() {
		h.t.Fatalf("Commit returned %d records for %d put", len(stored), b.Len())
	}
	for i, u := range b.URLs() {
		if stored[i].URL != u {
			h.t.Fatalf("Commit returned %s at %d, where %s was put", stored[i].URL, i, u)
		}
	}
	return stored
}

// put commits one record and returns it as stored.
func (h *harness) put(r pages.Record) pages.Record {
	h.t.Helper()
	var b pages.Batch
	b.Put(r)
	return h.commit(&b)[0]
}

// get returns the record of url, failing the test if there is none.
func (h *harness) get(url string) pages.Record {
	h.t.Helper()
	r, ok, err := h.s.Get(url)
	if err != nil || !ok {
		h.t.Fatalf("Get(%s) = %v, %v", url, ok, err)
	}
	return r
}

// numbers returns "url seq/rev" for records.
func numbers(records ...pages.Record) []string {
	var out []string
	for _, r := range records {
		out = append(out, fmt.Sprintf("%s %d/%d", r.URL, r.Seq, r.Rev))
	}
	return out
}

// each returns Each's records as "url seq/rev text".
func (h *harness) each() []string {
	h.t.Helper()
	var out []string
	if err := h.s.Each(func(r pages.Record) error {
		out = append(out, fmt.Sprintf("%s %d/%d %s", r.URL, r.Seq, r.Rev, r.Text))
		return nil
	}); err != nil {
		h.t.Fatalf("Each: %v", err)
	}
	return out
}

// checkEach checks Each against want ("url seq/rev text").
func (h *harness) checkEach(want ...string) {
	h.t.Helper()
	if got := h.each(); !slices.Equal(got, want) {
		h.t.Fatalf("Each = %q\nwant %q", got, want)
	}
}

// watermark returns IndexedThrough.
func (h *harness) watermark() uint64 {
	h.t.Helper()
	w, err := h.s.IndexedThrough()
	if err != nil {
		h.t.Fatalf("IndexedThrough: %v", err)
	}
	return w
}

// masters returns Masters.
func (h *harness) masters() map[string]string {
	h.t.Helper()
	m, err := h.s.Masters()
	if err != nil {
		h.t.Fatalf("Masters: %v", err)
	}
	return m
}

// anchors returns Anchors(url).
func (h *harness) anchors(url string) []string {
	h.t.Helper()
	a, err := h.s.Anchors(url)
	if err != nil {
		h.t.Fatalf("Anchors(%s): %v", url, err)
	}
	return a
}

// sameRecord reports whether a and b hold the same values, times compared
// as instants.
func sameRecord(a, b pages.Record) bool {
	if !a.FetchedAt.Equal(b.FetchedAt) || !a.LastModified.Equal(b.LastModified) {
		return false
	}
	a.FetchedAt, b.FetchedAt = time.Time{}, time.Time{}
	a.LastModified, b.LastModified = time.Time{}, time.Time{}
	return reflect.DeepEqual(a, b)
}

// testEmpty: a new store has no record, anchor, master or watermark.
func testEmpty(t *testing.T, open Opener) {
	h := start(t, open)
	if _, ok, err := h.s.Get("http://x/a"); ok || err != nil {
		t.Errorf("Get on an empty store = %v, %v", ok, err)
	}
	if k, err := h.s.Known([]string{"http://x/a", "http://x/b"}); err != nil || !slices.Equal(k, []bool{false, false}) {
		t.Errorf("Known on an empty store = %v, %v", k, err)
	}
	if a := h.anchors("http://x/a"); a != nil {
		t.Errorf("Anchors on an empty store = %q", a)
	}
	if m := h.masters(); len(m) != 0 {
		t.Errorf("Masters on an empty store = %v", m)
	}
	if w := h.watermark(); w != 0 {
		t.Errorf("IndexedThrough on an empty store = %d", w)
	}
	h.checkEach()
	if stored := h.commit(&pages.Batch{}); len(stored) != 0 {
		t.Errorf("Commit of an empty batch = %v", stored)
	}
	if r := h.put(rec("http://x/a", pages.Fetched)); r.Seq != 1 || r.Rev != 1 {
		t.Errorf("first record %d/%d, want 1/1 (an empty batch takes no number)", r.Seq, r.Rev)
	}
}

// full returns a record with every kind of field set.
func full(url string) pages.Record {
	r := rec(url, pages.Fetched)
	r.Seq, r.Rev = 77, 88 // ignored
	r.Reason = "because"
	r.FetchedAt = time.Date(2026, 3, 2, 10, 0, 0, 123456789, time.UTC)
	r.LastModified = time.Date(2026, 2, 1, 9, 0, 0, 0, time.UTC)
	r.Host = "x"
	r.Title = "A page"
	r.Headings = []string{"One", "Two"}
	r.Blocks = []string{"first block", "second block"}
	r.Text = "first block"
	r.Groups = []string{"staff"}
	r.Lang = "en"
	r.Anchors = []string{"link"}
	r.Truncated = true
	r.Simhash = 1<<63 | 5
	r.Cluster = "c1"
	r.ETag = `"v1"`
	r.Modified = "Sun, 01 Feb 2026 09:00:00 GMT"
	r.Hash = 42
	r.LinkHash = 7
	r.Links = []string{"http://x/b", "http://x/c"}
	r.Transient = true
	return r
}

// testRoundTrip: Get returns what Commit stored, every field, with its
// numbers; an unknown URL has no record.
func testRoundTrip(t *testing.T, open Opener) {
	h := start(t, open)
	in := full("http://x/a")
	stored := h.put(in)
	want := in
	want.Seq, want.Rev = 1, 1
	if !sameRecord(stored, want) {
		t.Errorf("Commit returned\n%+v\nwant\n%+v", stored, want)
	}
	if got := h.get("http://x/a"); !sameRecord(got, want) {
		t.Errorf("Get =\n%+v\nwant\n%+v", got, want)
	}
	if _, ok, err := h.s.Get("http://x/none"); ok || err != nil {
		t.Errorf("Get of an unknown URL = %v, %v", ok, err)
	}
	replaced := rec("http://x/a", pages.Skipped)
	replaced.Reason = "near-duplicate"
	h.put(replaced)
	want = replaced
	want.Seq, want.Rev = 1, 2
	if got := h.get("http://x/a"); !sameRecord(got, want) {
		t.Errorf("Get after a replacement =\n%+v\nwant\n%+v (nothing of the old record)", got, want)
	}
}
