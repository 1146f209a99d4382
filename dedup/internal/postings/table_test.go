package postings

import (
	"encoding/binary"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// put gives k the value v in t, as m[k] = v does in a map: through
// upsert, checked against get, for a key with an odd ID; by removing k
// and adding it again for an even one.
func put[K comparable](t *table[K, Entry], k K, v Entry) {
	if v.ID%2 == 0 {
		t.remove(k)
		t.add(k, v)
		return
	}
	old, had := t.get(k)
	at, known := t.upsert(k)
	if known != had || known && *at != old || !known && *at != (Entry{}) {
		panic(fmt.Sprintf("upsert(%v) = %v, %v; get gave %v, %v", k, *at, known, old, had))
	}
	*at = v
}

// checkTable compares t with the Go map want: the same keys and values
// through get, len and each.
func checkTable[K comparable](tb testing.TB, t *table[K, Entry], want map[K]Entry) {
	tb.Helper()
	if t.len() != len(want) {
		tb.Fatalf("len %d, want %d", t.len(), len(want))
	}
	for k, v := range want {
		if got, ok := t.get(k); !ok || got != v {
			tb.Fatalf("get(%v) = %v, %v; want %v", k, got, ok, v)
		}
	}
	seen := map[K]Entry{}
	t.each(func(k K, v Entry) {
		if _, dup := seen[k]; dup {
			tb.Fatalf("each: %v twice", k)
		}
		seen[k] = v
	})
	if !maps.Equal(seen, want) {
		tb.Fatalf("each gives %d keys, not the %d of the map", len(seen), len(want))
	}
}

// TestTableAgainstMap runs random sets and removals on a table and on a
// Go map, for keys that are hashes, small integers (which hash alike in
// their high bits) and strings, and compares them after every step
// batch.
func TestTableAgainstMap(t *testing.T) {
	for _, tc := range []struct {
		name string
		key  func(r *rand.Rand) uint64
		ops  int
	}{
		{"hashes", func(r *rand.Rand) uint64 { return r.Uint64() }, 20000},
		{"small integers", func(r *rand.Rand) uint64 { return r.Uint64N(3000) }, 20000},
		{"few keys", func(r *rand.Rand) uint64 { return r.Uint64N(5) }, 2000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			var tab table[uint64, Entry]
			var stab table[string, Entry]
			want, swant := map[uint64]Entry{}, map[string]Entry{}
			var keys []uint64
			for i := range tc.ops {
				e := Entry{ID: uint32(i), Group: r.Uint32()}
				switch {
				case len(keys) > 0 && r.IntN(3) == 0: // remove a key set before, or one never set
					k := keys[r.IntN(len(keys))]
					if r.IntN(4) == 0 {
						k = tc.key(r)
					}
					_, had := want[k]
					if got := tab.remove(k); got != had {
						t.Fatalf("remove(%d) = %v, want %v", k, got, had)
					}
					delete(want, k)
					sk := strconv.FormatUint(k, 10)
					stab.remove(sk)
					delete(swant, sk)
				default:
					k := tc.key(r)
					keys = append(keys, k)
					put(&tab, k, e)
					want[k] = e
					put(&stab, strconv.FormatUint(k, 10), e)
					swant[strconv.FormatUint(k, 10)] = e
				}
				if i%1000 == 0 || i == tc.ops-1 {
					checkTable(t, &tab, want)
					checkTable(t, &stab, swant)
				}
			}
			for k := range want { // and empty it
				tab.remove(k)
			}
			checkTable(t, &tab, map[uint64]Entry{})
		})
	}
}

// FuzzTable runs the operations the input encodes — 9 bytes each: an
// operation (set, remove) and a key among 64 in the low bits or spread
// over all 64 — on a table and a Go map, and compares them.
func FuzzTable(f *testing.F) {
	f.Add([]byte{0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0})
	f.Add(make([]byte, 9*40))
	f.Fuzz(func(t *testing.T, ops []byte) {
		var tab table[uint64, Entry]
		want := map[uint64]Entry{}
		for i := 0; i+9 <= len(ops); i += 9 {
			k := binary.LittleEndian.Uint64(ops[i+1:])
			if ops[i]&2 != 0 {
				k %= 64 // dense keys collide more
			}
			if ops[i]&1 == 0 {
				e := Entry{ID: uint32(i), Group: uint32(ops[i])}
				put(&tab, k, e)
				want[k] = e
				continue
			}
			_, had := want[k]
			if got := tab.remove(k); got != had {
				t.Fatalf("remove(%d) = %v, want %v", k, got, had)
			}
			delete(want, k)
		}
		checkTable(t, &tab, want)
	})
}

// TestShardFarKeys: keys of one home fill a run of slots; the one that
// would land maxDist slots or more from its home is refused and handed back, and
// every other key is still found.
func TestShardFarKeys(t *testing.T) {
	s := shard[uint64, Entry]{slots: make([]slot[uint64, Entry], 400), dist: make([]uint8, 400)}
	var refused []uint64
	for k := range uint64(300) {
		if back, _, ok := s.insert(k, Entry{ID: uint32(k)}, home(0, len(s.slots)), 1); !ok {
			refused = append(refused, back)
		}
	}
	if len(refused) != 300-maxDist {
		t.Fatalf("%d keys refused, want %d", len(refused), 300-maxDist)
	}
	for k := range uint64(300) {
		if got, want := s.find(k, 0) >= 0, !slices.Contains(refused, k); got != want {
			t.Errorf("key %d found %v, want %v", k, got, want)
		}
	}
	if s.n != maxDist {
		t.Errorf("n = %d, want %d", s.n, maxDist)
	}
}

// checkLayout checks the Robin Hood layout of every shard of t: each key
// sits dist−1 slots past its home (wrapping round), and within a run of
// keys the homes never go back (dist grows by at most one a slot).
func checkLayout[K comparable](tb testing.TB, t *table[K, Entry]) {
	tb.Helper()
	for si := range t.shard {
		s := &t.shard[si]
		n := len(s.slots)
		for i := range n {
			d := int(s.dist[i])
			if d == 0 {
				continue
			}
			if h := home(t.hash(s.slots[i].k), n); (h+d-1)%n != i {
				tb.Fatalf("shard %d: key at %d has home %d but dist %d", si, i, h, d)
			}
			if next := int(s.dist[(i+1)%n]); next > d+1 {
				tb.Fatalf("shard %d: dist %d after %d at %d: the run is out of order", si, next, d, i)
			}
		}
	}
}

// TestGrowLayout adds keys until every shard has grown many times —
// spread hashes, and keys crowding a few homes (ties and runs that wrap
// round the end of a shard) — and checks after each batch that the
// layout grow makes (relay, or insert on its fallback) is a Robin Hood
// table in which every key is found.
func TestGrowLayout(t *testing.T) {
	for _, tc := range []struct {
		name string
		key  func(r *rand.Rand, i int) uint64
	}{
		{"hashes", func(r *rand.Rand, _ int) uint64 { return r.Uint64() }},
		{"small integers", func(_ *rand.Rand, i int) uint64 { return uint64(i) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(3, 4))
			var tab table[uint64, Entry]
			want := map[uint64]Entry{}
			for i := range 60000 {
				k := tc.key(r, i)
				if _, ok := want[k]; ok {
					continue
				}
				v := Entry{ID: uint32(i), Group: uint32(i % 7)}
				tab.add(k, v)
				want[k] = v
				if i%10000 == 9999 {
					checkLayout(t, &tab)
					checkTable(t, &tab, want)
				}
			}
		})
	}
}

// BenchmarkTableGrow adds 2,000,000 keys that are hashes (band keys) to
// an empty table, growing each shard many times: by relay (the default)
// beside an insert a key (the reference), in the same run.
func BenchmarkTableGrow(b *testing.B) {
	keys := make([]uint64, 2_000_000)
	r := rand.New(rand.NewPCG(5, 6))
	for i := range keys {
		keys[i] = r.Uint64()
	}
	for _, c := range []struct {
		name  string
		relay bool
	}{{"insert-each", false}, {"relay", true}} {
		b.Run(c.name, func(b *testing.B) {
			relayGrow = c.relay
			defer func() { relayGrow = true }()
			for b.Loop() {
				var tab table[uint64, Entry]
				for i, k := range keys {
					tab.add(k, Entry{ID: uint32(i)})
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(keys)), "ns/key")
		})
	}
}
