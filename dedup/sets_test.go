package dedup

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSetFile: every set put is read back as put, whether it is still in
// the write buffer or written, across several writes, after a slot is
// given a new set, and after sync; the file then holds every byte.
func TestSetFile(t *testing.T) {
	s, err := newSetFile(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.f.Close()
	r := rand.New(rand.NewPCG(3, 4))
	want := map[uint32][]uint64{}
	check := func(when string) {
		t.Helper()
		for slot, set := range want {
			if got := s.get(slot, int(slot%2)); !slices.Equal(got, set) {
				t.Fatalf("%s: slot %d: got %d values, want %d (equal: %v)", when, slot, len(got), len(set), slices.Equal(got, set))
			}
		}
	}
	const slots = 3000 // 3000 sets of up to 200 values: about 2.4 MB, two writes and a buffer
	for slot := range uint32(slots) {
		set := make([]uint64, r.IntN(200))
		for i := range set {
			set[i] = r.Uint64()
		}
		s.put(slot, set)
		want[slot] = set
		if slot%500 == 0 {
			check("while putting")
		}
	}
	if len(s.pending) == 0 || s.end == int64(len(s.pending)) {
		t.Fatalf("pending %d of %d bytes: want some written, some buffered", len(s.pending), s.end)
	}
	check("after putting")
	s.put(7, []uint64{1, 2, 3}) // a new version of slot 7
	want[7] = []uint64{1, 2, 3}
	check("after a new version")
	if err := s.sync(); err != nil {
		t.Fatal(err)
	}
	if len(s.pending) != 0 {
		t.Fatalf("sync left %d bytes pending", len(s.pending))
	}
	if fi, err := s.f.Stat(); err != nil || fi.Size() != s.end {
		t.Fatalf("file holds %v bytes (%v), want %d", fi.Size(), err, s.end)
	}
	check("after sync")
	if s.err != nil {
		t.Fatal(s.err)
	}
}
