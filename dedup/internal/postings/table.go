package postings

import (
	"hash/maphash"
	"math/bits"
)

// shards is the number of shards of a table: each grows on its own, so
// that a growth copies 1/shards of the entries.
const shards = 256

// maxLoadNum/maxLoadDen is the most entries a shard holds per slot
// (7/8); a shard grows by a quarter when it would hold more, so its load
// stays between 0.7 and 0.875.
const maxLoadNum, maxLoadDen = 7, 8

// A table maps keys to one value each, like a Go map, in about 20 bytes
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
}

// A shard is one open-addressing array: slot i holds keys[i] and vals[i]
// when bit i of used is set.
type shard[K comparable, V any] struct {
	keys []K
	vals []V
	used []uint64
	n    int
}

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

func (s *shard[K, V]) isUsed(i int) bool { return s.used[i>>6]&(1<<(i&63)) != 0 }

// dist returns how far slot i is from the home of the key it holds.
func (s *shard[K, V]) dist(t *table[K, V], i int) int {
	d := i - home(t.hash(s.keys[i]), len(s.keys))
	if d < 0 {
		d += len(s.keys)
	}
	return d
}

// find returns the slot of k in s, or -1.
func (s *shard[K, V]) find(t *table[K, V], k K, h uint64) int {
	n := len(s.keys)
	if n == 0 {
		return -1
	}
	i := home(h, n)
	for d := 0; ; d++ {
		if !s.isUsed(i) || s.dist(t, i) < d {
			return -1
		}
		if s.keys[i] == k {
			return i
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

// get returns the value of k and whether k is in t. Cost: O(1) expected.
func (t *table[K, V]) get(k K) (V, bool) {
	h := t.hash(k)
	if s := t.of(h); s != nil {
		if i := s.find(t, k, h); i >= 0 {
			return s.vals[i], true
		}
	}
	var zero V
	return zero, false
}

// set gives k the value v, adding k if it is not in t. Cost: O(1)
// expected, amortized.
func (t *table[K, V]) set(k K, v V) {
	h := t.hash(k)
	if t.shard == nil {
		t.shard = make([]shard[K, V], shards)
	}
	s := t.of(h)
	if i := s.find(t, k, h); i >= 0 {
		s.vals[i] = v
		return
	}
	if (s.n+1)*maxLoadDen > len(s.keys)*maxLoadNum {
		s.grow(t)
	}
	s.insert(t, k, v, h)
	t.n++
}

// insert puts k, not in s, into s, which has a free slot.
func (s *shard[K, V]) insert(t *table[K, V], k K, v V, h uint64) {
	n := len(s.keys)
	i := home(h, n)
	for d := 0; ; d++ {
		if !s.isUsed(i) {
			s.keys[i], s.vals[i] = k, v
			s.used[i>>6] |= 1 << (i & 63)
			s.n++
			return
		}
		if e := s.dist(t, i); e < d { // Robin Hood: the richer key moves on
			s.keys[i], k = k, s.keys[i]
			s.vals[i], v = v, s.vals[i]
			d = e
		}
		if i++; i == n {
			i = 0
		}
	}
}

// grow makes s a quarter larger (8 slots at least) and puts its keys
// back.
func (s *shard[K, V]) grow(t *table[K, V]) {
	old := *s
	n := max(8, len(old.keys)+len(old.keys)/4)
	*s = shard[K, V]{keys: make([]K, n), vals: make([]V, n), used: make([]uint64, (n+63)/64)}
	for i := range old.keys {
		if old.isUsed(i) {
			s.insert(t, old.keys[i], old.vals[i], t.hash(old.keys[i]))
		}
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
	i := s.find(t, k, h)
	if i < 0 {
		return false
	}
	// Backward shift: the keys after i that are not home move back one.
	n := len(s.keys)
	for {
		j := i + 1
		if j == n {
			j = 0
		}
		if !s.isUsed(j) || s.dist(t, j) == 0 {
			break
		}
		s.keys[i], s.vals[i] = s.keys[j], s.vals[j]
		i = j
	}
	var zk K
	var zv V
	s.keys[i], s.vals[i] = zk, zv
	s.used[i>>6] &^= 1 << (i & 63)
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
		for i := range s.keys {
			if s.isUsed(i) {
				fn(s.keys[i], s.vals[i])
			}
		}
	}
}
