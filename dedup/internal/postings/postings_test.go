package postings

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// reference is the specification of one list, written out from the full
// history of adds: the first PerGroup adds of each group, in order, until
// the add that would make the list longer than MaxLen; from then on
// nothing.
func reference(lim Limits, adds []Entry) (list []Entry, stopped bool) {
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

// TestMapAgainstReference adds random entries under a few keys with many
// and few groups and checks every list against the reference after every
// add, along with the outcomes and counters.
func TestMapAgainstReference(t *testing.T) {
	for _, lim := range []Limits{{}, {PerGroup: 1}, {PerGroup: 3}, {MaxLen: 5}, {PerGroup: 2, MaxLen: 7}, {PerGroup: 4, MaxLen: 4}} {
		t.Run(fmt.Sprintf("pergroup=%d/maxlen=%d", lim.PerGroup, lim.MaxLen), func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(lim.PerGroup*100+lim.MaxLen)))
			m := New[string](lim)
			history := map[string][]Entry{}
			var want Stats
			for i := range 2000 {
				k := fmt.Sprint("k", r.IntN(6))
				groups := 1 + r.IntN(2)*(1+r.IntN(20)) // few or many groups
				e := Entry{ID: uint32(i), Group: uint32(r.IntN(groups))}
				before, stoppedBefore := reference(lim, history[k])
				history[k] = append(history[k], e)
				after, stopped := reference(lim, history[k])
				out := m.Add(k, e.ID, e.Group)
				switch {
				case stoppedBefore:
					want.Ignored++
					if out != Ignored {
						t.Fatalf("add %d to stop key: %v", i, out)
					}
				case stopped:
					want.Stops++
					want.Keys -= min(len(before), 1)
					want.Entries -= len(before)
					if out != Stopped {
						t.Fatalf("add %d: %v, want Stopped", i, out)
					}
				case len(after) == len(before):
					want.Capped++
					if out != Capped {
						t.Fatalf("add %d: %v, want Capped", i, out)
					}
				default:
					if len(before) == 0 {
						want.Keys++
					}
					want.Entries++
					if out != Added {
						t.Fatalf("add %d: %v, want Added", i, out)
					}
				}
				if got := m.Get(k); !slices.Equal(got, after) {
					t.Fatalf("add %d: list %v, want %v", i, got, after)
				}
				if !m.Known(k) {
					t.Fatalf("key %s unknown after add", k)
				}
				if lim.PerGroup == 0 && lim.MaxLen == 0 && !slices.Equal(m.Get(k), history[k]) {
					t.Fatalf("unbounded list differs from its history")
				}
			}
			if m.Stats() != want {
				t.Errorf("Stats = %+v, want %+v", m.Stats(), want)
			}
			if m.Known("never") || m.Get("never") != nil {
				t.Error("a key never added is known")
			}
		})
	}
}

// TestRemoveAgainstRebuilt adds and removes random entries under a few
// keys, refilling lists as Remove asks (the earliest live entry of the
// group the list does not hold, as package dedup does), and checks after
// every operation that each list holds what adding only the live entries,
// in order, would have made — the rebuilt reference — unless the key
// stopped, which it stays. Removing an entry a list refused, or one never
// added, changes nothing.
func TestRemoveAgainstRebuilt(t *testing.T) {
	for _, lim := range []Limits{{}, {PerGroup: 1}, {PerGroup: 3}, {MaxLen: 6}, {PerGroup: 2, MaxLen: 7}, {PerGroup: 4, MaxLen: 4}} {
		t.Run(fmt.Sprintf("pergroup=%d/maxlen=%d", lim.PerGroup, lim.MaxLen), func(t *testing.T) {
			r := rand.New(rand.NewPCG(2, uint64(lim.PerGroup*100+lim.MaxLen)))
			m := New[string](lim)
			history := map[string][]Entry{} // every entry added, in order
			dead := map[uint32]bool{}       // removed ids
			stopped := map[string]bool{}
			live := func(k string) []Entry {
				var out []Entry
				for _, e := range history[k] {
					if !dead[e.ID] {
						out = append(out, e)
					}
				}
				return out
			}
			byID := func(l []Entry) []Entry {
				l = slices.Clone(l)
				slices.SortFunc(l, func(a, b Entry) int { return int(a.ID) - int(b.ID) })
				return l
			}
			removals, refills := 0, 0
			for i := range 3000 {
				k := fmt.Sprint("k", r.IntN(5))
				switch {
				case r.IntN(3) > 0 || len(history[k]) == 0: // add
					groups := 1 + r.IntN(2)*(1+r.IntN(6))
					e := Entry{ID: uint32(i), Group: uint32(r.IntN(groups))}
					history[k] = append(history[k], e)
					if m.Add(k, e.ID, e.Group) == Stopped {
						stopped[k] = true
					}
				default: // remove a live entry (listed or refused), a dead one or a stranger
					h := history[k]
					e := h[r.IntN(len(h))]
					if r.IntN(10) == 0 {
						e.ID = 1 << 30
					}
					listed := slices.Contains(m.Get(k), e)
					removed, refill := m.Remove(k, e.ID)
					if removed != listed {
						t.Fatalf("op %d: Remove(%s, %d) = %v, listed %v", i, k, e.ID, removed, listed)
					}
					if e.ID != 1<<30 {
						dead[e.ID] = true
					}
					if !removed {
						break
					}
					removals++
					if !refill {
						break
					}
					for _, c := range live(k) {
						if c.Group == e.Group && !slices.Contains(m.Get(k), c) {
							if out := m.Add(k, c.ID, c.Group); out != Added {
								t.Fatalf("op %d: refill of %v: %v", i, c, out)
							}
							refills++
							break
						}
					}
				}
				want, wantStop := reference(lim, live(k))
				switch got := m.Get(k); {
				case stopped[k]:
					if got != nil || !m.Known(k) {
						t.Fatalf("op %d: stop key %s has list %v (known %v)", i, k, got, m.Known(k))
					}
				case wantStop:
					t.Fatalf("op %d: key %s: the rebuilt list stops, the list holds %v", i, k, got)
				case !slices.Equal(byID(got), byID(want)):
					t.Fatalf("op %d: key %s: list %v, rebuilt %v", i, k, byID(got), byID(want))
				case m.Known(k) != (len(want) > 0):
					t.Fatalf("op %d: key %s known %v with rebuilt list %v", i, k, m.Known(k), want)
				}
			}
			st := m.Stats()
			entries, keys := 0, 0
			for k := range history {
				if !stopped[k] {
					entries += len(m.Get(k))
					keys += min(len(m.Get(k)), 1)
				}
			}
			if st.Entries != entries || st.Keys != keys || st.Removed != removals || st.Stops != len(stopped) {
				t.Errorf("Stats = %+v: want %d entries, %d keys, %d removed, %d stops", st, entries, keys, removals, len(stopped))
			}
			// (With PerGroup = MaxLen a list full of one group stops at
			// the next group's entry, and a stop key is never refilled.)
			if lim.PerGroup > 0 && (lim.MaxLen == 0 || lim.PerGroup < lim.MaxLen) && refills == 0 {
				t.Error("no list was refilled: the test does not test refills")
			}
		})
	}
}

// BenchmarkAdd measures adding and reading one document's keys (28 keys,
// as the hybrid detector has) when every key is shared by all earlier
// documents: exact copies (one group: lists stay at PerGroup) and templated
// pages (every document its own group: lists stop at MaxLen), against the
// unbounded lists in the same run. docs/s must not fall as docs grows.
func BenchmarkAdd(b *testing.B) {
	sizes := []int{5000, 10000, 20000}
	if testing.Short() {
		sizes = []int{1000, 2000}
	}
	for _, workload := range []string{"copies", "templated"} {
		for _, bounds := range []struct {
			name string
			lim  Limits
		}{{"bounded", Limits{PerGroup: 256, MaxLen: 1024}}, {"unbounded", Limits{}}} {
			for _, n := range sizes {
				b.Run(fmt.Sprintf("workload=%s/lists=%s/docs=%d", workload, bounds.name, n), func(b *testing.B) {
					var sink uint32
					for b.Loop() {
						m := New[uint64](bounds.lim)
						for i := range n {
							group := uint32(0)
							if workload == "templated" {
								group = uint32(i)
							}
							for k := range uint64(28) {
								for _, e := range m.Get(k) {
									sink ^= e.ID
								}
								m.Add(k, uint32(i), group)
							}
						}
					}
					b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "docs/s")
					_ = sink
				})
			}
		}
	}
}
