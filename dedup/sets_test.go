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

// TestSetFileCache: sets read again come from the cache as they were
// put, through many wraps of its ring; a set get returned for one buffer
// stays intact while the other buffer reads set after set; a new version
// and a renumbering are never answered with the old set.
func TestSetFileCache(t *testing.T) {
	s, err := newSetFile(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.f.Close()
	r := rand.New(rand.NewPCG(5, 6))
	const slots = 400
	want := make([][]uint64, slots)
	for slot := range uint32(slots) {
		set := make([]uint64, r.IntN(setCacheWords/40)) // about 80 sets fill the ring
		for i := range set {
			set[i] = r.Uint64()
		}
		s.put(slot, set)
		want[slot] = set
	}
	s.flush()
	for round := range 3 {
		held := uint32(r.IntN(slots))
		kept := s.get(held, 0)
		for range 2 * slots {
			slot := uint32(r.IntN(slots))
			if got := s.get(slot, 1); !slices.Equal(got, want[slot]) {
				t.Fatalf("round %d: slot %d: %d values, want %d (equal: %v)", round, slot, len(got), len(want[slot]), slices.Equal(got, want[slot]))
			}
			if !slices.Equal(kept, want[held]) {
				t.Fatalf("round %d: the set of slot %d held in buffer 0 changed while buffer 1 read", round, held)
			}
		}
		if len(s.cache.where) == 0 {
			t.Fatalf("round %d: the cache keeps no set", round)
		}
		s.put(held, []uint64{uint64(round)}) // a new version
		want[held] = []uint64{uint64(round)}
		if got := s.get(held, 0); !slices.Equal(got, want[held]) {
			t.Fatalf("round %d: slot %d after a new version: %v, want %v", round, held, got, want[held])
		}
	}
	// Renumber: slot i takes the set of slot slots−1−i.
	docs := make([]*record, slots)
	for i := range docs {
		docs[i] = &record{slot: uint32(slots - 1 - i), spilled: true}
	}
	for i := range uint32(slots) {
		s.get(i, int(i%2)) // in the cache under the old numbers
	}
	s.renumber(docs)
	for i := range uint32(slots) {
		if got := s.get(i, int(i%2)); !slices.Equal(got, want[slots-1-i]) {
			t.Fatalf("after renumbering: slot %d: %d values, want those of old slot %d (%d)", i, len(got), slots-1-i, len(want[slots-1-i]))
		}
	}
	if s.err != nil {
		t.Fatal(s.err)
	}
}
