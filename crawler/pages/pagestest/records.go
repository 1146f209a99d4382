package pagestest

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"

	"github.com/doppel-search/doppel/crawler/pages"
)

// testNumbering: new URLs take the next sequence number, a stored one
// keeps its own, a moved one takes the next; every record stored takes the
// next revision, in the order put; the caller's numbers are ignored.
func testNumbering(t *testing.T, open Opener) {
	h := start(t, open)
	steps := []struct {
		name string
		do   func(b *pages.Batch)
		want []string // "url seq/rev" as Commit returns them
	}{
		{"new", func(b *pages.Batch) {
			b.Put(rec("http://x/c", pages.Fetched))
			b.Put(rec("http://x/a", pages.Fetched))
			b.Put(rec("http://x/b", pages.Fetched))
		}, []string{"http://x/c 1/1", "http://x/a 2/2", "http://x/b 3/3"}},
		{"replaced", func(b *pages.Batch) { b.Put(text("http://x/c", "again")) }, []string{"http://x/c 1/4"}},
		{"numbers ignored", func(b *pages.Batch) {
			r := rec("http://x/a", pages.Fetched)
			r.Seq, r.Rev = 99, 99
			b.Put(r)
		}, []string{"http://x/a 2/5"}},
		{"moved", func(b *pages.Batch) {
			b.Move(text("http://x/b", "changed"))
			b.Put(text("http://x/b", "changed twice")) // keeps the new number
			b.Put(rec("http://x/d", pages.Skipped))
		}, []string{"http://x/b 4/6", "http://x/b 4/7", "http://x/d 5/8"}},
		{"moved new", func(b *pages.Batch) { b.Move(rec("http://x/e", pages.Fetched)) }, []string{"http://x/e 6/9"}},
		{"twice new", func(b *pages.Batch) {
			b.Put(text("http://x/f", "1"))
			b.Put(text("http://x/f", "2"))
		}, []string{"http://x/f 7/10", "http://x/f 7/11"}},
		{"no record", func(b *pages.Batch) {
			b.AddAnchors("http://x/a", "A")
			b.SetMaster("c1", "http://x/a")
			b.SetIndexedThrough(3)
		}, nil},
		{"after", func(b *pages.Batch) { b.Put(rec("http://x/g", pages.Failed)) }, []string{"http://x/g 8/12"}},
	}
	for _, s := range steps {
		var b pages.Batch
		s.do(&b)
		if got := numbers(h.commit(&b)...); !slices.Equal(got, s.want) {
			t.Fatalf("%s: Commit numbered %q, want %q", s.name, got, s.want)
		}
	}
	if r := h.get("http://x/b"); r.Seq != 4 || r.Rev != 7 || r.Text != "changed twice" {
		t.Errorf("Get(b) = %d/%d %q; want the last put, 4/7", r.Seq, r.Rev, r.Text)
	}
}

// testEach: Each replays the latest records in sequence order — not URL
// order, a moved record last — and stops at fn's error.
func testEach(t *testing.T, open Opener) {
	h := start(t, open)
	var b pages.Batch
	for _, u := range []string{"http://x/c", "http://x/a", "http://x/b"} {
		b.Put(text(u, "v1"))
	}
	h.commit(&b)
	h.put(text("http://x/c", "v2"))
	b = pages.Batch{}
	b.Move(text("http://x/a", "v2"))
	h.commit(&b)
	h.put(text("http://x/d", "v1"))
	h.checkEach("http://x/c 1/4 v2", "http://x/b 3/3 v1", "http://x/a 4/5 v2", "http://x/d 5/6 v1")
	stop, calls := errors.New("stop"), 0
	if err := h.s.Each(func(pages.Record) error { calls++; return stop }); !errors.Is(err, stop) || calls != 1 {
		t.Errorf("Each with a failing fn = %v after %d calls; want its error after 1", err, calls)
	}
}

// testKnown: Known reports records, in the order asked; anchors alone do
// not make a URL known.
func testKnown(t *testing.T, open Opener) {
	h := start(t, open)
	var b pages.Batch
	b.Put(rec("http://x/a", pages.Fetched))
	b.Put(rec("http://x/s", pages.Skipped))
	b.AddAnchors("http://x/anchored", "text")
	h.commit(&b)
	tests := []struct {
		urls []string
		want []bool
	}{
		{nil, []bool{}},
		{[]string{"http://x/a"}, []bool{true}},
		{[]string{"http://x/none", "http://x/s", "http://x/anchored", "http://x/a", "http://x/a"}, []bool{false, true, false, true, true}},
	}
	for _, tc := range tests {
		if got, err := h.s.Known(tc.urls); err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("Known(%q) = %v, %v; want %v", tc.urls, got, err, tc.want)
		}
	}
}

// testPlacements: Placements reads the status, cluster and simhash of the
// URLs with a record, as Get does, and leaves out those without one.
func testPlacements(t *testing.T, open Opener) {
	h := start(t, open)
	a := text("http://x/a", "some text")
	a.Cluster, a.Simhash = "c1", 42
	var b pages.Batch
	b.Put(a)
	b.Put(rec("http://x/s", pages.Skipped))
	b.AddAnchors("http://x/anchored", "text")
	h.commit(&b)
	pa := pages.Placement{URL: "http://x/a", Status: pages.Fetched, Cluster: "c1", Simhash: 42}
	ps := pages.Placement{URL: "http://x/s", Status: pages.Skipped}
	tests := []struct {
		urls []string
		want map[string]pages.Placement
	}{
		{nil, map[string]pages.Placement{}},
		{[]string{"http://x/a"}, map[string]pages.Placement{"http://x/a": pa}},
		{[]string{"http://x/none", "http://x/s", "http://x/anchored", "http://x/a", "http://x/a"},
			map[string]pages.Placement{"http://x/a": pa, "http://x/s": ps}},
	}
	for _, tc := range tests {
		if got, err := h.s.Placements(tc.urls); err != nil || !maps.Equal(got, tc.want) {
			t.Errorf("Placements(%q) = %v, %v; want %v", tc.urls, got, err, tc.want)
		}
	}
}

// testAnchors: anchor texts accumulate per URL across batches — distinct,
// non-empty, at most MaxAnchors, in the order first added.
func testAnchors(t *testing.T, open Opener) {
	h := start(t, open)
	many := make([]string, 0, pages.MaxAnchors+10)
	for i := range pages.MaxAnchors + 10 {
		many = append(many, fmt.Sprintf("text %d", i))
	}
	batches := [][]struct {
		url   string
		texts []string
	}{
		{{"http://x/a", []string{"Manual", "Manual", ""}}, {"http://x/b", many[:10]}},
		{{"http://x/a", []string{"User manual", "Manual"}}, {"http://x/b", many}},
		{{"http://x/a", []string{""}}, {"http://x/b", []string{"late"}}},
	}
	for _, batch := range batches {
		var b pages.Batch
		for _, a := range batch {
			b.AddAnchors(a.url, a.texts...)
		}
		h.commit(&b)
	}
	if a := h.anchors("http://x/a"); !slices.Equal(a, []string{"Manual", "User manual"}) {
		t.Errorf("anchors of a = %q; want [Manual, User manual]", a)
	}
	if a := h.anchors("http://x/b"); !slices.Equal(a, many[:pages.MaxAnchors]) {
		t.Errorf("anchors of b = %q; want the first %d", a, pages.MaxAnchors)
	}
	if a := h.anchors("http://x/none"); a != nil {
		t.Errorf("anchors of an unknown URL = %q", a)
	}
	if _, ok, _ := h.s.Get("http://x/a"); ok {
		t.Error("anchors made a record")
	}
}

// testMasters: the last master committed for a cluster wins.
func testMasters(t *testing.T, open Opener) {
	h := start(t, open)
	var b pages.Batch
	b.SetMaster("c1", "http://x/a")
	b.SetMaster("c2", "http://x/b")
	b.SetMaster("c1", "http://x/c") // same batch: the later wins
	h.commit(&b)
	b = pages.Batch{}
	b.SetMaster("c2", "http://x/d")
	b.SetMaster("c3", "http://x/e")
	h.commit(&b)
	want := map[string]string{"c1": "http://x/c", "c2": "http://x/d", "c3": "http://x/e"}
	if got := h.masters(); !maps.Equal(got, want) {
		t.Errorf("Masters = %v, want %v", got, want)
	}
}

// testIndexedThrough: the watermark last set wins, in a batch or alone; 0
// sets nothing.
func testIndexedThrough(t *testing.T, open Opener) {
	h := start(t, open)
	steps := []struct {
		name string
		do   func() error
		want uint64
	}{
		{"batch", func() error { var b pages.Batch; b.SetIndexedThrough(42); _, err := h.s.Commit(&b); return err }, 42},
		{"alone", func() error { return h.s.SetIndexedThrough(50) }, 50},
		{"lower", func() error { return h.s.SetIndexedThrough(10) }, 10},
		{"zero", func() error { return h.s.SetIndexedThrough(0) }, 10},
		{"with records", func() error {
			var b pages.Batch
			b.Put(rec("http://x/a", pages.Fetched))
			b.SetIndexedThrough(1)
			_, err := h.s.Commit(&b)
			return err
		}, 1},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if w := h.watermark(); w != s.want {
			t.Errorf("%s: IndexedThrough = %d, want %d", s.name, w, s.want)
		}
	}
}

// testBatchAtomic: a batch with a record without URL returns ErrNoURL and
// stores nothing of itself, nor takes a number.
func testBatchAtomic(t *testing.T, open Opener) {
	for _, at := range []int{0, 1, 2} {
		t.Run(fmt.Sprint(at), func(t *testing.T) {
			h := start(t, open)
			h.put(text("http://x/a", "v1"))
			var b pages.Batch
			good := []pages.Record{text("http://x/a", "v2"), text("http://x/new", "v1")}
			good = slices.Insert(good, at, rec("", pages.Fetched))
			for _, r := range good {
				b.Put(r)
			}
			b.AddAnchors("http://x/a", "anchor")
			b.SetMaster("c1", "http://x/a")
			b.SetIndexedThrough(1)
			if stored, err := h.s.Commit(&b); !errors.Is(err, pages.ErrNoURL) || stored != nil {
				t.Fatalf("Commit with an empty URL = %v, %v; want ErrNoURL", stored, err)
			}
			h.checkEach("http://x/a 1/1 v1")
			if a := h.anchors("http://x/a"); a != nil {
				t.Errorf("a failed batch stored anchors %q", a)
			}
			if m := h.masters(); len(m) != 0 {
				t.Errorf("a failed batch stored masters %v", m)
			}
			if w := h.watermark(); w != 0 {
				t.Errorf("a failed batch stored the watermark %d", w)
			}
			if r := h.put(rec("http://x/next", pages.Fetched)); r.Seq != 2 || r.Rev != 2 {
				t.Errorf("after a failed batch the next record is %d/%d, want 2/2", r.Seq, r.Rev)
			}
		})
	}
}

// testBatchUnchanged: Commit leaves the batch as it was: committing it
// again stores its records again, with new revisions.
func testBatchUnchanged(t *testing.T, open Opener) {
	h := start(t, open)
	var b pages.Batch
	b.Put(text("http://x/a", "v1"))
	b.Move(text("http://x/b", "v1"))
	b.AddAnchors("http://x/a", "A")
	first := numbers(h.commit(&b)...)
	if b.Len() != 2 || b.Latest("http://x/a") == nil || b.Latest("http://x/a").Seq != 0 || b.Empty() {
		t.Fatalf("Commit changed the batch: %d records, latest a %+v", b.Len(), b.Latest("http://x/a"))
	}
	second := numbers(h.commit(&b)...)
	if want := []string{"http://x/a 1/1", "http://x/b 2/2"}; !slices.Equal(first, want) {
		t.Errorf("first Commit %q, want %q", first, want)
	}
	if want := []string{"http://x/a 1/3", "http://x/b 3/4"}; !slices.Equal(second, want) {
		t.Errorf("second Commit of the same batch %q, want %q", second, want)
	}
	if a := h.anchors("http://x/a"); !slices.Equal(a, []string{"A"}) {
		t.Errorf("anchors = %q", a)
	}
}

// testPersistence: records, anchors, masters and the watermark survive a
// reopen, and numbering goes on where it stopped.
func testPersistence(t *testing.T, open Opener) {
	h := start(t, open)
	var b pages.Batch
	b.Put(full("http://x/a"))
	b.Put(text("http://x/b", "v1"))
	b.Put(text("http://x/c", "v1"))
	b.AddAnchors("http://x/b", "B", "Bee")
	b.SetMaster("c1", "http://x/a")
	b.SetIndexedThrough(2)
	h.commit(&b)
	b = pages.Batch{}
	b.Move(text("http://x/a", "moved"))
	h.commit(&b)
	h.reopen()
	h.checkEach("http://x/b 2/2 v1", "http://x/c 3/3 v1", "http://x/a 4/4 moved")
	if a := h.anchors("http://x/b"); !slices.Equal(a, []string{"B", "Bee"}) {
		t.Errorf("anchors after reopen = %q", a)
	}
	if m := h.masters(); !maps.Equal(m, map[string]string{"c1": "http://x/a"}) {
		t.Errorf("masters after reopen = %v", m)
	}
	if w := h.watermark(); w != 2 {
		t.Errorf("IndexedThrough after reopen = %d, want 2", w)
	}
	d := h.put(full("http://x/d"))
	if d.Seq != 5 || d.Rev != 5 {
		t.Errorf("after reopen the next record is %d/%d, want 5/5", d.Seq, d.Rev)
	}
	h.reopen()
	if got := h.get("http://x/d"); !sameRecord(got, d) {
		t.Errorf("Get(d) after reopen =\n%+v\nwant\n%+v", got, d)
	}
	if got := h.get("http://x/a"); got.Text != "moved" || got.Title != "" || got.Seq != 4 {
		t.Errorf("Get(a) after reopen = %+v, want the moved record", got)
	}
}

// testConcurrent: writers committing batches while readers replay share a
// store: every record is stored once with its own numbers, and every
// replay sees increasing sequence numbers.
func testConcurrent(t *testing.T, open Opener) {
	h := start(t, open)
	const writers, batches, perBatch = 4, 10, 5
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range batches {
				var b pages.Batch
				for j := range perBatch {
					b.Put(text(fmt.Sprintf("http://w%d/%d/%d", w, i, j), "x"))
				}
				stored, err := h.s.Commit(&b)
				if err != nil {
					t.Error(err)
					return
				}
				for j := 1; j < len(stored); j++ {
					if stored[j].Rev <= stored[j-1].Rev || stored[j].Seq <= stored[j-1].Seq {
						t.Errorf("numbers within a batch not increasing: %q", numbers(stored...))
					}
				}
			}
		})
	}
	for range 2 {
		wg.Go(func() {
			for range batches {
				var last uint64
				if err := h.s.Each(func(r pages.Record) error {
					if r.Seq <= last {
						return fmt.Errorf("seq %d met by Each after %d", r.Seq, last)
					}
					last = r.Seq
					return nil
				}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	const n = writers * batches * perBatch
	seqs, revs := map[uint64]bool{}, map[uint64]bool{}
	if err := h.s.Each(func(r pages.Record) error {
		seqs[r.Seq], revs[r.Rev] = true, true
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for i := uint64(1); i <= n; i++ {
		if !seqs[i] || !revs[i] {
			t.Fatalf("after %d concurrent puts, seq or rev %d missing (%d seqs, %d revs)", n, i, len(seqs), len(revs))
		}
	}
}
