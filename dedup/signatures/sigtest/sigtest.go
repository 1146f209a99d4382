// Package sigtest is the conformance suite of [signatures.Store] and
// [signatures.Clusters]: every implementation runs it from its tests,
//
//	func TestConformance(t *testing.T) {
//		sigtest.Run(t, func(t *testing.T, lim signatures.Limits) signatures.Store {
//			return mystore.Open(t.Context(), lim) // empty, with lim
//		})
//		sigtest.RunClusters(t, func(t *testing.T) signatures.Clusters {
//			return mystore.OpenClusters(t.Context()) // empty
//		})
//	}
//
// and passes it before the Detector may use it.
package sigtest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/doppel-search/doppel/dedup/signatures"
)

type (
	key     = signatures.Key
	entry   = signatures.Entry
	limits  = signatures.Limits
	store   = signatures.Store
	outcome = signatures.Outcome
)

// An Opener returns an empty Store with the given limits, cleaned up
// with t.
type Opener func(t *testing.T, lim signatures.Limits) signatures.Store

// Run runs every test of the Store suite against the Stores open
// returns, each subtest on a Store of its own.
func Run(t *testing.T, open Opener) {
	for _, tc := range []struct {
		name string
		test func(*testing.T, Opener)
	}{
		{"Limits", testLimits},
		{"GetInAddOrder", testGetInAddOrder},
		{"UnknownKey", testUnknownKey},
		{"PerGroupCap", testPerGroupCap},
		{"MaxLenStops", testMaxLenStops},
		{"KindsApart", testKindsApart},
		{"RemoveAndRefill", testRemoveAndRefill},
		{"RemoveLeavesStopKeys", testRemoveLeavesStopKeys},
		{"LookupEqualsGet", testLookupEqualsGet},
		{"Reset", testReset},
		{"AgainstReference", testAgainstReference},
		{"RemoveAgainstRebuilt", testRemoveAgainstRebuilt},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.test(t, open) })
	}
}

var (
	band = func(sum uint64) key { return key{Kind: signatures.Band, Sum: sum} }
	fp   = func(sum uint64) key { return key{Kind: signatures.Fingerprint, Sum: sum} }
)

// add adds e under k and fails unless the outcome is want.
func add(t *testing.T, s store, k key, e entry, want outcome) {
	t.Helper()
	if got := s.Add(k, e); got != want {
		t.Fatalf("Add(%v, %+v) = %v, want %v", k, e, got, want)
	}
}

// wantList fails unless the list of k is want (nil for none) and k is
// Known as known.
func wantList(t *testing.T, s store, k key, want []entry, known bool) {
	t.Helper()
	if got := s.Get(k); !slices.Equal(got, want) || (got == nil) != (want == nil) {
		t.Fatalf("Get(%v) = %v, want %v", k, got, want)
	}
	if got := s.Known(k); got != known {
		t.Fatalf("Known(%v) = %v, want %v", k, got, known)
	}
}

func testLimits(t *testing.T, open Opener) {
	for _, lim := range []limits{{}, {PerGroup: 3}, {MaxLen: 5}, {PerGroup: 2, MaxLen: 8}} {
		if got := open(t, lim).Limits(); got != lim {
			t.Errorf("opened with %+v, Limits() = %+v", lim, got)
		}
	}
}

func testGetInAddOrder(t *testing.T, open Opener) {
	for _, lim := range []limits{{}, {PerGroup: 4, MaxLen: 16}} {
		s := open(t, lim)
		want := []entry{{ID: 7, Group: 1}, {ID: 3, Group: 2}, {ID: 9, Group: 1}, {ID: 4, Group: 0}, {ID: 12, Group: 2}}
		for _, e := range want {
			add(t, s, band(1), e, signatures.Added)
		}
		wantList(t, s, band(1), want, true)
		if st := s.Stats(signatures.Band); st.Keys != 1 || st.Entries != len(want) {
			t.Errorf("limits %+v: Stats %+v, want 1 key, %d entries", lim, st, len(want))
		}
	}
}

func testUnknownKey(t *testing.T, open Opener) {
	s := open(t, limits{PerGroup: 2, MaxLen: 4})
	wantList(t, s, band(1), nil, false)
	add(t, s, band(1), entry{ID: 1, Group: 1}, signatures.Added)
	wantList(t, s, band(2), nil, false)
	wantList(t, s, key{Kind: signatures.IMatch + 7, Sum: 1}, nil, false)
	if removed, refill := s.Remove(band(2), 1); removed || refill {
		t.Errorf("Remove of an unknown key = %v, %v", removed, refill)
	}
	if removed, refill := s.Remove(band(1), 2); removed || refill {
		t.Errorf("Remove of an entry not in the list = %v, %v", removed, refill)
	}
	wantList(t, s, band(1), []entry{{ID: 1, Group: 1}}, true)
	if st := s.Stats(signatures.Super); st != (signatures.Stats{}) {
		t.Errorf("Stats of a kind never added: %+v", st)
	}
}

func testPerGroupCap(t *testing.T, open Opener) {
	s := open(t, limits{PerGroup: 2})
	add(t, s, band(1), entry{ID: 0, Group: 5}, signatures.Added)
	add(t, s, band(1), entry{ID: 1, Group: 5}, signatures.Added)
	add(t, s, band(1), entry{ID: 2, Group: 6}, signatures.Added)
	add(t, s, band(1), entry{ID: 3, Group: 5}, signatures.Capped)
	add(t, s, band(1), entry{ID: 4, Group: 6}, signatures.Added)
	add(t, s, band(1), entry{ID: 5, Group: 6}, signatures.Capped)
	add(t, s, band(1), entry{ID: 6, Group: 7}, signatures.Added)
	wantList(t, s, band(1), []entry{{ID: 0, Group: 5}, {ID: 1, Group: 5}, {ID: 2, Group: 6}, {ID: 4, Group: 6}, {ID: 6, Group: 7}}, true)
	// The cap is per list: the same group under another key is added.
	add(t, s, band(2), entry{ID: 3, Group: 5}, signatures.Added)
	if st := s.Stats(signatures.Band); st.Capped != 2 || st.Entries != 6 || st.Keys != 2 {
		t.Errorf("Stats %+v, want 2 capped, 6 entries, 2 keys", st)
	}
}

func testMaxLenStops(t *testing.T, open Opener) {
	s := open(t, limits{PerGroup: 2, MaxLen: 4})
	add(t, s, band(1), entry{ID: 0, Group: 0}, signatures.Added)
	add(t, s, band(1), entry{ID: 1, Group: 0}, signatures.Added)
	add(t, s, band(1), entry{ID: 2, Group: 1}, signatures.Added)
	add(t, s, band(1), entry{ID: 3, Group: 0}, signatures.Capped) // its group is full: capped, the list stays
	add(t, s, band(1), entry{ID: 4, Group: 2}, signatures.Added)  // MaxLen entries
	wantList(t, s, band(1), []entry{{ID: 0, Group: 0}, {ID: 1, Group: 0}, {ID: 2, Group: 1}, {ID: 4, Group: 2}}, true)
	add(t, s, band(1), entry{ID: 5, Group: 3}, signatures.Stopped) // one more: a stop key
	wantList(t, s, band(1), nil, true)
	add(t, s, band(1), entry{ID: 6, Group: 4}, signatures.Ignored) // a stop key ignores adds
	add(t, s, band(1), entry{ID: 7, Group: 0}, signatures.Ignored)
	wantList(t, s, band(1), nil, true)
	add(t, s, band(2), entry{ID: 8, Group: 0}, signatures.Added) // other keys go on
	st := s.Stats(signatures.Band)
	if st.Stops != 1 || st.Ignored != 2 || st.Capped != 1 || st.Keys != 1 || st.Entries != 1 {
		t.Errorf("Stats %+v, want 1 stop, 2 ignored, 1 capped, 1 key, 1 entry", st)
	}
}

func testKindsApart(t *testing.T, open Opener) {
	s := open(t, limits{PerGroup: 1, MaxLen: 2})
	kinds := []signatures.Kind{signatures.Fingerprint, signatures.Band, signatures.Sketch, signatures.Super, signatures.IMatch, signatures.IMatch + 1, signatures.IMatch + 9}
	for i, k := range kinds {
		add(t, s, key{Kind: k, Sum: 42}, entry{ID: uint32(i), Group: 0}, signatures.Added)
	}
	for i, k := range kinds {
		wantList(t, s, key{Kind: k, Sum: 42}, []entry{{ID: uint32(i), Group: 0}}, true)
	}
	// Stopping the band key leaves the others.
	add(t, s, band(42), entry{ID: 100, Group: 1}, signatures.Added)
	add(t, s, band(42), entry{ID: 101, Group: 2}, signatures.Stopped)
	wantList(t, s, band(42), nil, true)
	wantList(t, s, fp(42), []entry{{ID: 0, Group: 0}}, true)
	for i, k := range kinds {
		st := s.Stats(k)
		want := signatures.Stats{Keys: 1, Entries: 1}
		if k == signatures.Band {
			want = signatures.Stats{Stops: 1}
		}
		if st != want {
			t.Errorf("kind %v (%d): Stats %+v, want %+v", k, i, st, want)
		}
	}
	if removed, _ := s.Remove(key{Kind: signatures.Super, Sum: 42}, 0); removed {
		t.Error("Remove took document 0 out of the super shingle list, which holds document 3")
	}
	if removed, _ := s.Remove(fp(42), 0); !removed {
		t.Error("Remove did not find document 0 under its fingerprint")
	}
	wantList(t, s, key{Kind: signatures.IMatch, Sum: 42}, []entry{{ID: 4, Group: 0}}, true)
}

func testRemoveAndRefill(t *testing.T, open Opener) {
	s := open(t, limits{PerGroup: 2, MaxLen: 8})
	for i, g := range []uint32{0, 0, 0, 1} { // document 2 is capped
		s.Add(band(1), entry{ID: uint32(i), Group: g})
	}
	// Group 1 was not full: no refill.
	if removed, refill := s.Remove(band(1), 3); !removed || refill {
		t.Fatalf("Remove of the only entry of its group = %v, %v, want true, false", removed, refill)
	}
	// Group 0 was full: refill, and the caller adds document 2 back.
	if removed, refill := s.Remove(band(1), 0); !removed || !refill {
		t.Fatalf("Remove from a full group = %v, %v, want true, true", removed, refill)
	}
	wantList(t, s, band(1), []entry{{ID: 1, Group: 0}}, true)
	add(t, s, band(1), entry{ID: 2, Group: 0}, signatures.Added)
	wantList(t, s, band(1), []entry{{ID: 1, Group: 0}, {ID: 2, Group: 0}}, true)
	if removed, refill := s.Remove(band(1), 0); removed || refill {
		t.Fatalf("second Remove of one entry = %v, %v", removed, refill)
	}
	s.Remove(band(1), 1)
	if _, refill := s.Remove(band(1), 2); refill {
		t.Fatal("Remove of the last entry of a group that has room asks for a refill")
	}
	wantList(t, s, band(1), nil, false) // an emptied list is gone
	st := s.Stats(signatures.Band)
	if st.Removed != 4 || st.Entries != 0 || st.Keys != 0 {
		t.Errorf("Stats %+v, want 4 removed, no entries, no keys", st)
	}
	// Without PerGroup nothing is refused: never a refill.
	u := open(t, limits{})
	for i := range uint32(5) {
		u.Add(band(1), entry{ID: i, Group: 0})
	}
	if removed, refill := u.Remove(band(1), 2); !removed || refill {
		t.Errorf("unbounded Remove = %v, %v, want true, false", removed, refill)
	}
	wantList(t, u, band(1), []entry{{ID: 0, Group: 0}, {ID: 1, Group: 0}, {ID: 3, Group: 0}, {ID: 4, Group: 0}}, true)
}

func testRemoveLeavesStopKeys(t *testing.T, open Opener) {
	s := open(t, limits{MaxLen: 2})
	for i := range uint32(3) {
		s.Add(band(1), entry{ID: i, Group: i})
	}
	for i := range uint32(3) {
		if removed, refill := s.Remove(band(1), i); removed || refill {
			t.Fatalf("Remove(%d) from a stop key = %v, %v", i, removed, refill)
		}
	}
	wantList(t, s, band(1), nil, true)
	add(t, s, band(1), entry{ID: 9, Group: 9}, signatures.Ignored)
}

func testLookupEqualsGet(t *testing.T, open Opener) {
	s := open(t, limits{PerGroup: 2, MaxLen: 3})
	r := rand.New(rand.NewPCG(3, 4))
	var keys []key
	for i := range uint32(300) {
		k := key{Kind: signatures.Kind(r.IntN(7)), Sum: uint64(r.IntN(20))}
		s.Add(k, entry{ID: i, Group: uint32(r.IntN(4))})
		keys = append(keys, k)
	}
	keys = append(keys, band(1000), fp(1000), keys[0], keys[0]) // unknown, repeated
	stops := 0
	for _, k := range keys {
		if s.Get(k) == nil && s.Known(k) {
			stops++
		}
	}
	if stops == 0 {
		t.Fatal("no stop key among the keys looked up: the test does not test them")
	}
	i := 0
	s.Lookup(keys, func(k key, list []entry) {
		if i >= len(keys) || k != keys[i] {
			t.Fatalf("call %d: Lookup gave key %v, want keys in order", i, k)
		}
		if want := s.Get(k); !slices.Equal(list, want) || (list == nil) != (want == nil) {
			t.Fatalf("Lookup: %v has %v, Get says %v", k, list, want)
		}
		i++
	})
	if i != len(keys) {
		t.Fatalf("Lookup called fn %d times for %d keys", i, len(keys))
	}
	s.Lookup(nil, func(key, []entry) { t.Fatal("Lookup of no keys called fn") })
}

func testReset(t *testing.T, open Opener) {
	s := open(t, limits{MaxLen: 1})
	s.Add(band(1), entry{ID: 0, Group: 0})
	s.Add(band(1), entry{ID: 1, Group: 1}) // stops
	s.Add(band(2), entry{ID: 2, Group: 0})
	s.Add(fp(1), entry{ID: 3, Group: 0})
	s.Add(key{Kind: signatures.IMatch + 1, Sum: 1}, entry{ID: 4, Group: 0})
	s.Reset(signatures.Band, signatures.IMatch+1)
	wantList(t, s, band(1), nil, false)
	wantList(t, s, band(2), nil, false)
	wantList(t, s, key{Kind: signatures.IMatch + 1, Sum: 1}, nil, false)
	wantList(t, s, fp(1), []entry{{ID: 3, Group: 0}}, true)
	if st := s.Stats(signatures.Band); st != (signatures.Stats{}) {
		t.Errorf("Stats of a reset kind: %+v", st)
	}
	add(t, s, band(1), entry{ID: 5, Group: 0}, signatures.Added) // no longer a stop key
	s.Reset()                                                    // no kinds: nothing
	wantList(t, s, fp(1), []entry{{ID: 3, Group: 0}}, true)
	s.Reset(signatures.Fingerprint, signatures.Band)
	wantList(t, s, fp(1), nil, false)
	wantList(t, s, band(1), nil, false)
	if st := s.Stats(signatures.Fingerprint); st != (signatures.Stats{}) {
		t.Errorf("Stats of a reset kind: %+v", st)
	}
	add(t, s, fp(1), entry{ID: 6, Group: 0}, signatures.Added)
	if s.Limits() != (limits{MaxLen: 1}) {
		t.Errorf("Reset changed the limits to %+v", s.Limits())
	}
}

// testLimitsSet is the limits the randomized tests run under.
var testLimitsSet = []limits{{}, {PerGroup: 1}, {PerGroup: 3}, {MaxLen: 5}, {PerGroup: 2, MaxLen: 7}, {PerGroup: 4, MaxLen: 4}}

// reference is the specification of one list, written out from the full
// history of adds: the first PerGroup adds of each group, in order, until
// the add that would make the list longer than MaxLen; from then on
// nothing.
func reference(lim limits, adds []entry) (list []entry, stopped bool) {
	perGroup := map[uint32]int{}
	for _, e := range adds {
		if lim.PerGroup > 0 && perGroup[e.Group] >= lim.PerGroup {
			continue
		}
		if lim.MaxLen > 0 && len(list) == lim.MaxLen {
			return nil, true
		}
		perGroup[e.Group]++
		list = append(list, e)
	}
	return list, false
}

// testAgainstReference adds random entries under a few keys of two kinds
// with many and few groups and checks every list against the reference
// after every add, along with the outcomes and counters.
func testAgainstReference(t *testing.T, open Opener) {
	for _, lim := range testLimitsSet {
		t.Run(fmt.Sprintf("pergroup=%d/maxlen=%d", lim.PerGroup, lim.MaxLen), func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(lim.PerGroup*100+lim.MaxLen)))
			s := open(t, lim)
			history := map[key][]entry{}
			want := map[signatures.Kind]*signatures.Stats{signatures.Band: {}, signatures.IMatch: {}}
			for i := range 2000 {
				k := key{Kind: signatures.Band, Sum: uint64(r.IntN(3))}
				if r.IntN(2) == 0 {
					k.Kind = signatures.IMatch
				}
				groups := 1 + r.IntN(2)*(1+r.IntN(20)) // few or many groups
				e := entry{ID: uint32(i), Group: uint32(r.IntN(groups))}
				before, stoppedBefore := reference(lim, history[k])
				history[k] = append(history[k], e)
				after, stopped := reference(lim, history[k])
				w := want[k.Kind]
				var expect outcome
				switch {
				case stoppedBefore:
					w.Ignored++
					expect = signatures.Ignored
				case stopped:
					w.Stops++
					w.Keys -= min(len(before), 1)
					w.Entries -= len(before)
					expect = signatures.Stopped
				case len(after) == len(before):
					w.Capped++
					expect = signatures.Capped
				default:
					w.Keys += 1 - min(len(before), 1)
					w.Entries++
					expect = signatures.Added
				}
				if out := s.Add(k, e); out != expect {
					t.Fatalf("add %d to %v: %v, want %v", i, k, out, expect)
				}
				if got := s.Get(k); !slices.Equal(got, after) {
					t.Fatalf("add %d: list %v, want %v", i, got, after)
				}
				if !s.Known(k) {
					t.Fatalf("key %v unknown after add", k)
				}
			}
			for kind, w := range want {
				if st := s.Stats(kind); st != *w {
					t.Errorf("Stats(%v) = %+v, want %+v", kind, st, *w)
				}
			}
		})
	}
}

// testRemoveAgainstRebuilt adds and removes random entries under a few
// keys, refilling lists as Remove asks (the earliest live entry of the
// group the list does not hold, as package dedup does), and checks after
// every operation that each list holds what adding only the live entries,
// in order, would have made — the rebuilt reference — unless the key
// stopped, which it stays. Removing an entry a list refused, or one never
// added, changes nothing.
func testRemoveAgainstRebuilt(t *testing.T, open Opener) {
	for _, lim := range testLimitsSet {
		t.Run(fmt.Sprintf("pergroup=%d/maxlen=%d", lim.PerGroup, lim.MaxLen), func(t *testing.T) {
			r := rand.New(rand.NewPCG(2, uint64(lim.PerGroup*100+lim.MaxLen)))
			s := open(t, lim)
			h := &history{adds: map[key][]entry{}, dead: map[uint32]bool{}, stopped: map[key]bool{}}
			removals, refills := 0, 0
			for i := range 3000 {
				k := key{Kind: signatures.Sketch, Sum: uint64(r.IntN(5))}
				if r.IntN(3) > 0 || len(h.adds[k]) == 0 {
					groups := 1 + r.IntN(2)*(1+r.IntN(6))
					e := entry{ID: uint32(i), Group: uint32(r.IntN(groups))}
					h.adds[k] = append(h.adds[k], e)
					if s.Add(k, e) == signatures.Stopped {
						h.stopped[k] = true
					}
				} else {
					removed, refilled := h.remove(t, s, r, i, k)
					removals += removed
					refills += refilled
				}
				h.check(t, s, lim, i, k)
			}
			st := s.Stats(signatures.Sketch)
			entries, keys := 0, 0
			for k := range h.adds {
				if !h.stopped[k] {
					entries += len(s.Get(k))
					keys += min(len(s.Get(k)), 1)
				}
			}
			if st.Entries != entries || st.Keys != keys || st.Removed != removals || st.Stops != len(h.stopped) {
				t.Errorf("Stats = %+v: want %d entries, %d keys, %d removed, %d stops", st, entries, keys, removals, len(h.stopped))
			}
			// (With PerGroup = MaxLen a list full of one group stops at
			// the next group's entry, and a stop key is never refilled.)
			if lim.PerGroup > 0 && (lim.MaxLen == 0 || lim.PerGroup < lim.MaxLen) && refills == 0 {
				t.Error("no list was refilled: the test does not test refills")
			}
		})
	}
}

// history is what testRemoveAgainstRebuilt did: every entry added, in
// order, the ids removed and the keys stopped.
type history struct {
	adds    map[key][]entry
	dead    map[uint32]bool
	stopped map[key]bool
}

// live returns the entries added under k and not removed, in order.
func (h *history) live(k key) []entry {
	var out []entry
	for _, e := range h.adds[k] {
		if !h.dead[e.ID] {
			out = append(out, e)
		}
	}
	return out
}

// remove removes a random entry of k (listed or refused), a dead one or
// a stranger, refills as asked, and returns the removals and refills.
func (h *history) remove(t *testing.T, s store, r *rand.Rand, op int, k key) (removals, refills int) {
	t.Helper()
	adds := h.adds[k]
	e := adds[r.IntN(len(adds))]
	if r.IntN(10) == 0 {
		e.ID = 1 << 30
	}
	listed := slices.Contains(s.Get(k), e)
	removed, refill := s.Remove(k, e.ID)
	if removed != listed {
		t.Fatalf("op %d: Remove(%v, %d) = %v, listed %v", op, k, e.ID, removed, listed)
	}
	if e.ID != 1<<30 {
		h.dead[e.ID] = true
	}
	if !removed {
		return 0, 0
	}
	if !refill {
		return 1, 0
	}
	for _, c := range h.live(k) {
		if c.Group == e.Group && !slices.Contains(s.Get(k), c) {
			if out := s.Add(k, c); out != signatures.Added {
				t.Fatalf("op %d: refill of %v: %v", op, c, out)
			}
			return 1, 1
		}
	}
	return 1, 0
}

// check compares the list of k with the rebuilt reference.
func (h *history) check(t *testing.T, s store, lim limits, op int, k key) {
	t.Helper()
	byID := func(l []entry) []entry {
		l = slices.Clone(l)
		slices.SortFunc(l, func(a, b entry) int { return int(a.ID) - int(b.ID) })
		return l
	}
	want, wantStop := reference(lim, h.live(k))
	switch got := s.Get(k); {
	case h.stopped[k]:
		if got != nil || !s.Known(k) {
			t.Fatalf("op %d: stop key %v has list %v (known %v)", op, k, got, s.Known(k))
		}
	case wantStop:
		t.Fatalf("op %d: key %v: the rebuilt list stops, the list holds %v", op, k, got)
	case !slices.Equal(byID(got), byID(want)):
		t.Fatalf("op %d: key %v: list %v, rebuilt %v", op, k, byID(got), byID(want))
	case s.Known(k) != (len(want) > 0):
		t.Fatalf("op %d: key %v known %v with rebuilt list %v", op, k, s.Known(k), want)
	}
}
