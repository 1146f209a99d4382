package postings

import (
	"fmt"
	"slices"
	"testing"
)

// The behaviour of a Map behind package signatures (order, caps, stop
// keys, removal and refill, counters, against a reference written out
// from the history of adds) is tested by the conformance suite
// (signatures/sigtest), which the signatures package runs on its Memory
// store, a Map per kind of key. What is tested here is the Map's own.

// TestDefinedEntry checks that a Map of a type defined from Entry keeps
// its entries as given, with the group and id of each.
func TestDefinedEntry(t *testing.T) {
	type entry Entry
	m := New[uint64, entry](Limits{PerGroup: 1, MaxLen: 3})
	if got := m.Limits(); got != (Limits{PerGroup: 1, MaxLen: 3}) {
		t.Errorf("Limits() = %+v", got)
	}
	for i, g := range []uint32{4, 4, 5} {
		m.Add(1, uint32(i), g)
	}
	if got, want := m.Get(1), []entry{{ID: 0, Group: 4}, {ID: 2, Group: 5}}; !slices.Equal(got, want) {
		t.Errorf("Get = %v, want %v", got, want)
	}
	if removed, refill := m.Remove(1, 0); !removed || !refill {
		t.Errorf("Remove = %v, %v: the group held PerGroup entries", removed, refill)
	}
	if got := m.Add(1, 1, 4); got != Added {
		t.Errorf("refill: %v", got)
	}
	if got, want := m.Get(1), []entry{{ID: 2, Group: 5}, {ID: 1, Group: 4}}; !slices.Equal(got, want) {
		t.Errorf("after the refill Get = %v, want %v", got, want)
	}
}

func TestOutcomeString(t *testing.T) {
	for o, want := range map[Outcome]string{Added: "added", Capped: "capped", Stopped: "stopped", Ignored: "ignored", 7: "Outcome(7)"} {
		if got := o.String(); got != want {
			t.Errorf("%d: %q, want %q", int(o), got, want)
		}
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
						m := New[uint64, Entry](bounds.lim)
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

// TestRestore checks that a map rebuilt from Each, Restore and SetStats
// answers as the original, and goes on as it would.
func TestRestore(t *testing.T) {
	lim := Limits{PerGroup: 2, MaxLen: 4}
	m := New[uint64, Entry](lim)
	for i := range uint32(40) {
		m.Add(uint64(i%7), i, i%3)
	}
	m.Remove(3, 3)
	r := New[uint64, Entry](lim)
	m.Each(func(k uint64, list []Entry) { r.Restore(k, slices.Clone(list)) })
	r.SetStats(m.Stats())
	for k := range uint64(8) {
		if !slices.Equal(m.Get(k), r.Get(k)) || m.Known(k) != r.Known(k) {
			t.Fatalf("key %d: %v, restored %v", k, m.Get(k), r.Get(k))
		}
	}
	for i := range uint32(10) {
		if a, b := m.Add(uint64(i%9), 100+i, i%2), r.Add(uint64(i%9), 100+i, i%2); a != b {
			t.Fatalf("add %d: %v, restored %v", i, a, b)
		}
	}
	if m.Stats() != r.Stats() {
		t.Fatalf("stats %+v, restored %+v", m.Stats(), r.Stats())
	}
}
