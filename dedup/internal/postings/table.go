package postings

import (
	"hash/maphash"
	"math/bits"
	"slices"
)

// shards is the number of shards of a table: each grows on its own, so
// that a growth copies 1/shards of the entries.
const shards = 256

// maxLoadNum/maxLoadDen is the most entries a shard holds per slot
// (7/8); a shard grows by a quarter when it would hold more, so its load
// stays between 0.7 and 0.875.
const maxLoadNum, maxLoadDen = 7, 8

// A table maps keys to one value each, like a Go map, in about 21 bytes
// an entry for 8-byte keys and values (a Go map takes 19 to 34 bytes, 26
// on average, as its tables split at once when keys are hashes): open
// addressing with linear probing and Robin Hood displacement, in shards
// grown by a quarter. The zero value is an empty table. It is not safe
// for concurrent use.
type table[K comparable, V any] struct {
	seed   maphash.Seed // for keys other than uint64
	seeded bool
	n      int
	shard  []shard[K, V] // nil until the first set
	order  []placed      // relay's scratch, kept from one growth to the next
}

// A placed key, for relay: its home in the larger array and its slot in
// the smaller one.
type placed struct {
	home int
	at   int
}

// A shard is one open-addressing array: slot i holds a key and its value
// when dist[i] > 0, at dist[i]−1 slots from the key's home slot.
type shard[K comparable, V any] struct {
	slots []slot[K, V]
	dist  []uint8
	n     int
}

// A slot is a key and its value, side by side: one cache line to read.
type slot[K comparable, V any] struct {
	k K
	v V
}

// maxDist is the largest dist a slot records; a key that would go
// farther makes its shard grow.
const maxDist = 255

// hash returns the hash of k: uint64 keys (the signatures, already
// hashes) mixed, others through maphash.
func (t *table[K, V]) hash(k K) uint64 {
	if u, ok := any(k).(uint64); ok {
		u ^= u >> 33
		u *= 0xff51afd7ed558ccd
		u ^= u >> 33
		u *= 0xc4ceb9fe1a85ec53
		return u ^ u>>33
	}
	if !t.seeded {
		t.seed, t.seeded = maphash.MakeSeed(), true
	}
	return maphash.Comparable(t.seed, k)
}

// home returns the first slot of a key of hash h in a shard of n slots.
func home(h uint64, n int) int {
	hi, _ := bits.Mul64(h<<8, uint64(n)) // the top 8 bits chose the shard
	return int(hi)
}

// find returns the slot of k in s, or -1.
func (s *shard[K, V]) find(k K, h uint64) int {
	i, _, ok := s.seek(k, h)
	if !ok {
		return -1
	}
	return i
}

// seek returns the slot of k in s and true; or, when k is not in s, the
// slot where an insert of k would put it and k's distance from its home
// there (1: at its home), and false. An empty s gives (0, 0, false).
func (s *shard[K, V]) seek(k K, h uint64) (int, int, bool) {
	n := len(s.slots)
	if n == 0 {
		return 0, 0, false
	}
	i := home(h, n)
	for d := 1; ; d++ {
		if int(s.dist[i]) < d { // empty, or a key nearer its home: k would be here
			return i, d, false
		}
		if s.slots[i].k == k {
			return i, d, true
		}
		if i++; i == n {
			i = 0
		}
	}
}

// of returns the shard of hash h.
func (t *table[K, V]) of(h uint64) *shard[K, V] {
	if t.shard == nil {
		return nil
	}
	return &t.shard[h>>56]
}

// touch reads the home slot of k, its distance and its key, and returns
// a number that depends on both (see Map.Touch).
func (t *table[K, V]) touch(k K) uint64 {
	if t.shard == nil {
		return 0
	}
	h := t.hash(k)
	s := t.of(h)
	if len(s.slots) == 0 {
		return 0
	}
	i := home(h, len(s.slots))
	x := uint64(s.dist[i])
	if s.slots[i].k == k {
		x++
	}
	return x
}

// get returns the value of k and whether k is in t. Cost: O(1) expected.
func (t *table[K, V]) get(k K) (V, bool) {
	h := t.hash(k)
	if s := t.of(h); s != nil {
		if i := s.find(k, h); i >= 0 {
			return s.slots[i].v, true
		}
	}
	var zero V
	return zero, false
}

// add adds k, which is not in t, with the value v. Cost: O(1) expected,
// amortized.
func (t *table[K, V]) add(k K, v V) {
	h := t.hash(k)
	s := t.room(h)
	if k, v, ok := s.insert(k, v, home(h, len(s.slots)), 1); !ok {
		s.grow(t)
		s.put(t, k, v)
	}
	t.n++
}

// room returns the shard of hash h, grown first if one more key would
// load it past maxLoadNum/maxLoadDen.
func (t *table[K, V]) room(h uint64) *shard[K, V] {
	if t.shard == nil {
		t.shard = make([]shard[K, V], shards)
	}
	s := t.of(h)
	if (s.n+1)*maxLoadDen > len(s.slots)*maxLoadNum {
		s.grow(t)
	}
	return s
}

// upsert returns where the value of k is, and whether k was in t; a key
// not in t is added first, with the zero value. The pointer is valid
// until t next changes. One probe sequence finds k or its place (a miss
// and then an add would take two). Cost: O(1) expected, amortized.
func (t *table[K, V]) upsert(k K) (*V, bool) {
	h := t.hash(k)
	if t.shard != nil {
		if s := t.of(h); s.n > 0 {
			i, d, ok := s.seek(k, h)
			if ok {
				return &s.slots[i].v, true
			}
			if (s.n+1)*maxLoadDen <= len(s.slots)*maxLoadNum {
				var zero V
				if ek, ev, ok := s.insert(k, zero, i, d); !ok {
					s.grow(t)
					s.put(t, ek, ev)
					i = s.find(k, h)
				}
				t.n++
				return &s.slots[i].v, false
			}
		}
	}
	var zero V
	t.add(k, zero)
	s := t.of(h)
	return &s.slots[s.find(k, h)].v, false
}

// insert puts k, not in s, into s, which has a free slot, starting at
// slot i, d−1 slots from k's home, where no key nearer its home than k
// would be lies before (i = home and d = 1, or what seek returned), and
// reports true. If a key would land maxDist slots or more from its home,
// it reports false with that key and its value, which are then not in s
// (the others are, k among them if it is not the one returned); k is
// then at slot i if it is not the one returned.
func (s *shard[K, V]) insert(k K, v V, i, d int) (K, V, bool) {
	n := len(s.slots)
	for ; ; d++ {
		if d > maxDist {
			return k, v, false
		}
		if s.dist[i] == 0 {
			s.slots[i], s.dist[i] = slot[K, V]{k, v}, uint8(d)
			s.n++
			return k, v, true
		}
		if e := int(s.dist[i]); e < d { // Robin Hood: the richer key moves on
			s.slots[i], k, v = slot[K, V]{k, v}, s.slots[i].k, s.slots[i].v
			s.dist[i], d = uint8(d), e
		}
		if i++; i == n {
			i = 0
		}
	}
}

// grow makes s a quarter larger (8 slots at least) and puts its keys
// back: laid out in order of their homes (relay), or, should that fail,
// one by one.
func (s *shard[K, V]) grow(t *table[K, V]) {
	old := s.slots
	used := s.dist
	n := max(8, len(old)+len(old)/4)
	*s = shard[K, V]{slots: make([]slot[K, V], n), dist: make([]uint8, n)}
	if relayGrow && s.relay(t, old, used) {
		return
	}
	*s = shard[K, V]{slots: make([]slot[K, V], n), dist: make([]uint8, n)}
	for i, sl := range old {
		if used[i] != 0 {
			s.put(t, sl.k, sl.v)
		}
	}
}

// relayGrow: grow lays keys out with relay (false: an insert each, for
// BenchmarkTableGrow's reference).
var relayGrow = true

// relay puts the keys of old (slots used where used[i] > 0) into s,
// empty and larger, and reports whether they all fit within maxDist of
// their homes. A Robin Hood table keeps each run of keys in order of
// their homes, and a key's home in the larger array is in the same order
// as its home in the smaller one (ties aside), so the keys are taken in
// that order — those wrapped round to the start of old last — sorted
// again where ties broke the order, and laid out one after the other,
// each at its home or just after the key before: no probing, no
// displacement, each slot written once (a quarter of Add's time went to
// growing with an insert per key). Keys that would run past the end go
// in by insert.
func (s *shard[K, V]) relay(t *table[K, V], old []slot[K, V], used []uint8) bool {
	order := slices.Grow(t.order[:0], len(old))
	defer func() { t.order = order[:0] }()
	wrapped := 0 // the keys at the start of old whose homes are near its end
	for i := range old {
		if d := int(used[i]); d > 0 {
			if d-1 > i {
				wrapped++
				continue
			}
			order = append(order, placed{home(t.hash(old[i].k), len(s.slots)), i})
		}
	}
	for i := 0; wrapped > 0; i++ {
		if d := int(used[i]); d > 0 && d-1 > i {
			order = append(order, placed{home(t.hash(old[i].k), len(s.slots)), i})
			wrapped--
		}
	}
	for i := 1; i < len(order); i++ { // nearly sorted: ties of the old homes only
		for j := i; j > 0 && order[j-1].home > order[j].home; j-- {
			order[j-1], order[j] = order[j], order[j-1]
		}
	}
	next := 0
	for oi, p := range order {
		at := max(p.home, next)
		if at >= len(s.slots) { // the rest would wrap round
			for _, q := range order[oi:] {
				sl := old[q.at]
				if _, _, ok := s.insert(sl.k, sl.v, home(t.hash(sl.k), len(s.slots)), 1); !ok {
					return false
				}
			}
			return true
		}
		d := at - p.home + 1
		if d > maxDist {
			return false
		}
		s.slots[at], s.dist[at] = old[p.at], uint8(d)
		s.n++
		next = at + 1
	}
	return true
}

// put inserts k, not in s, growing s until every key fits.
func (s *shard[K, V]) put(t *table[K, V], k K, v V) {
	for {
		var ok bool
		if k, v, ok = s.insert(k, v, home(t.hash(k), len(s.slots)), 1); ok {
			return
		}
		s.grow(t)
	}
}

// remove takes k out of t and reports whether it was there. Cost: O(1)
// expected.
func (t *table[K, V]) remove(k K) bool {
	h := t.hash(k)
	s := t.of(h)
	if s == nil {
		return false
	}
	i := s.find(k, h)
	if i < 0 {
		return false
	}
	// Backward shift: the keys after i that are not home move back one.
	n := len(s.slots)
	for {
		j := i + 1
		if j == n {
			j = 0
		}
		if s.dist[j] <= 1 {
			break
		}
		s.slots[i], s.dist[i] = s.slots[j], s.dist[j]-1
		i = j
	}
	s.slots[i], s.dist[i] = slot[K, V]{}, 0
	s.n--
	t.n--
	return true
}

// len returns the number of keys in t.
func (t *table[K, V]) len() int { return t.n }

// each calls fn with every key and its value, in no particular order; fn
// must not change t.
func (t *table[K, V]) each(fn func(K, V)) {
	for si := range t.shard {
		s := &t.shard[si]
		for i, sl := range s.slots {
			if s.dist[i] != 0 {
				fn(sl.k, sl.v)
			}
		}
	}
}
