package dedup

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"
)

// TestHotSets checks the keeping of sets read again and again: nothing
// on a first read, a set kept on its second, the bytes kept never over
// the limit, a set read since the clock last passed it outliving one
// that was not, a set handed out unchanged after it is dropped, and drop
// and reset.
func TestHotSets(t *testing.T) {
	set := func(slot uint32, n int) []uint64 {
		s := make([]uint64, n)
		for i := range s {
			s[i] = uint64(slot)<<32 | uint64(i)
		}
		return s
	}
	h := &hotSets{max: 8 * 40} // room for 40 values
	read := func(slot uint32, n int) {
		if h.wants(slot, n) {
			h.add(slot, set(slot, n))
		}
	}
	read(1, 10)
	if _, ok := h.get(1); ok {
		t.Fatal("a set kept on its first read")
	}
	read(1, 10)
	got, ok := h.get(1)
	if !ok || !slices.Equal(got, set(1, 10)) {
		t.Fatalf("after a second read: %v, %v", got, ok)
	}
	if h.wants(2, 11) || h.wants(2, 11) { // over a quarter of the limit
		t.Fatal("a set over a quarter of the limit would be kept")
	}
	for slot := uint32(2); slot < 6; slot++ { // 1 is read since: it stays
		read(slot, 10)
		read(slot, 10)
		if h.bytes > h.max {
			t.Fatalf("%d bytes kept, limit %d", h.bytes, h.max)
		}
	}
	if _, ok := h.get(1); !ok {
		t.Error("a set read since the clock passed it was dropped first")
	}
	if _, ok := h.get(2); ok {
		t.Error("the oldest set not read since is still kept")
	}
	if !slices.Equal(got, set(1, 10)) {
		t.Error("a set handed out changed")
	}
	h.drop(1)
	if _, ok := h.get(1); ok || h.bytes != 8*30 {
		t.Errorf("after drop: kept %v, %d bytes, want 240", ok, h.bytes)
	}
	h.reset()
	if _, ok := h.get(5); ok || h.bytes != 0 || h.wants(5, 10) {
		t.Error("reset kept a set or a first read")
	}
}

// TestHotSetsAhead runs AddSeq with the sets on disk and the sets read
// again and again kept in memory under limits from a few sets (dropped
// and read again all along) to all of them, and checks results, counters
// and clusters against adding one document at a time with no set kept.
func TestHotSetsAhead(t *testing.T) {
	docs := aheadCorpus(11)
	opts := Options{LSHOnly: true, SetsDir: t.TempDir()}
	want, wantStats, wantAssigned := sequentially(t, opts, docs)
	for _, limit := range []int64{8 << 10, 64 << 10, hotSetsMax} {
		for _, workers := range []int{1, 2, 4} {
			d, err := New(nil, opts)
			if err != nil {
				t.Fatal(err)
			}
			d.sets.hot.max = limit
			var got []Result
			if err := d.AddAll(context.Background(), docs, workers, func(r Result) error {
				got = append(got, r)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("limit %d, %d workers", limit, workers)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: results differ from adding one document at a time", name)
			}
			if st := d.Stats(); st != wantStats {
				t.Errorf("%s: stats %+v, want %+v", name, st, wantStats)
			}
			if a := d.Assignments(); !reflect.DeepEqual(a, wantAssigned) {
				t.Errorf("%s: assignments differ", name)
			}
			if h := &d.sets.hot; h.hits == 0 || h.bytes > limit {
				t.Errorf("%s: %d sets given from memory, %d bytes kept", name, h.hits, h.bytes)
			}
			d.Close()
		}
	}
}
