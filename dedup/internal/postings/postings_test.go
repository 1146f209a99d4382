package postings

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// large: BenchmarkTouch fills a table of 16 M keys, not 2 M.
var large = flag.Bool("large", false, "BenchmarkTouch: a table of 16 M keys")

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

// BenchmarkTouch measures what touching a document's keys first saves
// on a table far larger than the processor's caches (as the posting
// lists of a million documents are: about 30 M keys): each document has
// 28 keys, most new, each read (Get, as the verification ahead does)
// then added (as Insert does); documents alternate between doing so
// plainly and after a Touch of their keys, timed apart in the same run,
// reported as ns of the goroutine's thread's CPU time a document each
// (plain-cpu-ns/doc, touched-cpu-ns/doc: a cache miss is CPU time, a
// wait for the processor on a loaded machine is not). -args -large fills
// the table with 16 M keys first (about 350 MB), else 2 M.
func BenchmarkTouch(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu := func() time.Duration {
		var ts unix.Timespec
		if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
			b.Fatal(err)
		}
		return time.Duration(ts.Nano())
	}
	fill := 2 << 20
	if *large {
		fill = 16 << 20
	}
	m := New[uint64, Entry](Limits{PerGroup: 4})
	r := rand.New(rand.NewPCG(5, 5))
	for i := range fill {
		m.Add(r.Uint64(), uint32(i), uint32(i))
	}
	keys := make([]uint64, 28)
	var plain, touched time.Duration
	var sink uint64
	doc := uint32(fill)
	for b.Loop() {
		for j := range 2 {
			for i := range keys {
				if r.IntN(8) == 0 { // a key seen before
					keys[i] = keys[(i+1)%len(keys)]
				} else {
					keys[i] = r.Uint64()
				}
			}
			start := cpu()
			if j == 1 {
				for _, k := range keys {
					sink += m.Touch(k)
				}
			}
			for _, k := range keys {
				sink += uint64(len(m.Get(k)))
			}
			for _, k := range keys {
				m.Add(k, doc, doc)
			}
			doc++
			if j == 0 {
				plain += cpu() - start
			} else {
				touched += cpu() - start
			}
		}
	}
	b.ReportMetric(float64(plain.Nanoseconds())/float64(b.N), "plain-cpu-ns/doc")
	b.ReportMetric(float64(touched.Nanoseconds())/float64(b.N), "touched-cpu-ns/doc")
	_ = sink
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
	m.Each(func(k uint64, list []Entry) {
		if err := r.Restore(k, slices.Clone(list)); err != nil {
			t.Fatal(err)
		}
	})
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

// refMap is the reference a Map is checked against: lists in a Go map of
// slices (a present key with a nil list is a stop key), the limits and
// counters as documented.
type refMap struct {
	lim   Limits
	lists map[uint64][]Entry
	stats Stats
}

func (r *refMap) add(k uint64, e Entry) Outcome {
	list, ok := r.lists[k]
	switch {
	case ok && list == nil:
		r.stats.Ignored++
		return Ignored
	case !ok:
		r.stats.Keys++
	}
	if r.lim.PerGroup > 0 {
		n := 0
		for _, x := range list {
			if x.Group == e.Group {
				n++
			}
		}
		if n >= r.lim.PerGroup {
			r.stats.Capped++
			return Capped
		}
	}
	if r.lim.MaxLen > 0 && len(list) >= r.lim.MaxLen {
		r.lists[k] = nil
		r.stats.Keys--
		r.stats.Entries -= len(list)
		r.stats.Stops++
		return Stopped
	}
	r.lists[k] = append(list, e)
	r.stats.Entries++
	return Added
}

func (r *refMap) remove(k uint64, id uint32) (removed, refill bool) {
	list := r.lists[k]
	i := slices.IndexFunc(list, func(e Entry) bool { return e.ID == id })
	if i < 0 {
		return false, false
	}
	n := 0
	for _, e := range list {
		if e.Group == list[i].Group {
			n++
		}
	}
	refill = r.lim.PerGroup > 0 && n >= r.lim.PerGroup
	r.stats.Entries--
	r.stats.Removed++
	if len(list) == 1 {
		delete(r.lists, k)
		r.stats.Keys--
	} else {
		r.lists[k] = slices.Delete(slices.Clone(list), i, i+1)
	}
	return true, refill
}

// TestMapAgainstReference runs random adds and removals, on few keys
// (long lists, caps, stop keys, lists going from two entries back to one
// and their indices reused) and on many (most keys with one entry, the
// table growing), on a Map and on the reference, under several limits,
// and compares every outcome, every list, Known and the counters; then a
// Map restored from Each answers the same.
func TestMapAgainstReference(t *testing.T) {
	for _, keys := range []uint64{6, 50, 20000} {
		steps, every := uint32(5000), uint32(keys/5+1) // checks: every step for 6 keys, every 11th for 50
		if keys > 100 {
			steps, every = 30000, 10000 // the table grows
		}
		for _, lim := range []Limits{{}, {PerGroup: 2, MaxLen: 5}, {PerGroup: 1}, {MaxLen: 3}} {
			t.Run(fmt.Sprintf("keys=%d/%+v", keys, lim), func(t *testing.T) {
				r := rand.New(rand.NewPCG(keys, uint64(lim.PerGroup*10+lim.MaxLen)))
				m := New[uint64, Entry](lim)
				ref := &refMap{lim: lim, lists: map[uint64][]Entry{}}
				var added []struct {
					k  uint64
					id uint32
				}
				for i := range steps {
					k := r.Uint64N(keys) * 0x9e3779b97f4a7c15
					if len(added) > 0 && r.IntN(3) == 0 {
						a := added[r.IntN(len(added))]
						if r.IntN(5) == 0 {
							a.id = i // never added
						}
						gr, gf := m.Remove(a.k, a.id)
						wr, wf := ref.remove(a.k, a.id)
						if gr != wr || gf != wf {
							t.Fatalf("step %d: Remove(%x, %d) = %v, %v; want %v, %v", i, a.k, a.id, gr, gf, wr, wf)
						}
					} else {
						e := Entry{ID: i, Group: r.Uint32N(4)}
						if got, want := m.Add(k, e.ID, e.Group), ref.add(k, e); got != want {
							t.Fatalf("step %d: Add(%x, %v) = %v, want %v", i, k, e, got, want)
						}
						added = append(added, struct {
							k  uint64
							id uint32
						}{k, i})
					}
					if i%every == 0 {
						checkMap(t, m, ref, keys)
					}
				}
				checkMap(t, m, ref, keys)
				restored := New[uint64, Entry](lim)
				m.Each(func(k uint64, list []Entry) {
					if err := restored.Restore(k, slices.Clone(list)); err != nil {
						t.Fatal(err)
					}
				})
				restored.SetStats(m.Stats())
				checkMap(t, restored, ref, keys)
			})
		}
	}
}

// checkMap compares m with the reference on every key of the test.
func checkMap(t *testing.T, m *Map[uint64, Entry], ref *refMap, keys uint64) {
	t.Helper()
	if m.Stats() != ref.stats {
		t.Fatalf("Stats %+v, want %+v", m.Stats(), ref.stats)
	}
	for j := range keys {
		k := j * 0x9e3779b97f4a7c15
		want, known := ref.lists[k]
		if got := m.Get(k); !slices.Equal(got, want) || m.Known(k) != known {
			t.Fatalf("key %x: Get %v, Known %v; want %v, %v", k, got, m.Known(k), want, known)
		}
	}
}

// TestReservedID checks that Add refuses the id that marks a reference,
// and that Restore reports it as an error and changes nothing.
func TestReservedID(t *testing.T) {
	m := New[uint64, Entry](Limits{})
	if err := m.Restore(1, []Entry{{ID: 3}, {ID: ref, Group: 0}}); err == nil || m.Known(1) {
		t.Fatalf("Restore with the reserved id: %v, Known %v", err, m.Known(1))
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Add with the reserved id did not panic")
		}
	}()
	m.Add(1, ref, 0)
}

// TestTouch checks that Touch reads without changing anything (every
// list and counter as before, under the race detector beside Gets) and
// that what it returns depends on what it read: an empty Map gives 0, a
// key at its home slot at least 2 (its distance 1, and the key found).
func TestTouch(t *testing.T) {
	m := New[uint64, Entry](Limits{PerGroup: 2})
	if x := m.Touch(1); x != 0 {
		t.Fatalf("empty Map: Touch %d, want 0", x)
	}
	ref := &refMap{lim: m.Limits(), lists: map[uint64][]Entry{}}
	const keys = 5000
	r := rand.New(rand.NewPCG(9, 9))
	for range 20000 {
		k := r.Uint64N(keys) * 0x9e3779b97f4a7c15
		e := Entry{ID: r.Uint32N(1 << 20), Group: r.Uint32N(50)}
		m.Add(k, e.ID, e.Group)
		ref.add(k, e)
	}
	done := make(chan uint64)
	for w := range 2 {
		go func() {
			var x uint64
			for j := range uint64(keys) {
				if w == 0 {
					x += m.Touch(j * 0x9e3779b97f4a7c15)
				} else {
					x += uint64(len(m.Get(j * 0x9e3779b97f4a7c15)))
				}
			}
			done <- x
		}()
	}
	if a, b := <-done, <-done; a == 0 || b == 0 {
		t.Fatalf("Touch and Get over every key: %d and %d, want both > 0", a, b)
	}
	checkMap(t, m, ref, keys)
	atHome, low := 0, 0
	m.keys.each(func(k uint64, _ Entry) {
		h := m.keys.hash(k)
		s := m.keys.of(h)
		if i := home(h, len(s.slots)); s.slots[i].k == k {
			atHome++
			if m.Touch(k) < 2 {
				low++
			}
		}
	})
	if low > 0 {
		t.Fatalf("%d keys at their home slot: Touch < 2", low)
	}
	if atHome == 0 {
		t.Fatal("no key at its home slot: the test tests nothing")
	}
}
