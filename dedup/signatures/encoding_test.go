package signatures

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMemoryEncoding checks that a Memory decoded from its encoding holds
// the same lists and counters and goes on as the original, and that
// every truncation of the encoding is refused.
func TestMemoryEncoding(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	m := NewMemory(Limits{PerGroup: 3, MaxLen: 6})
	var keys []Key
	for i := range uint32(2000) {
		k := Key{Kind: Kind(r.IntN(6)), Sum: uint64(r.IntN(300))}
		keys = append(keys, k)
		m.Add(k, Entry{ID: i, Group: uint32(r.IntN(50))})
		if i%7 == 0 {
			m.Remove(keys[r.IntN(len(keys))], uint32(r.IntN(int(i)+1)))
		}
	}
	data, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var got Memory
	if err := got.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	if got.Limits() != m.Limits() {
		t.Errorf("limits %+v, want %+v", got.Limits(), m.Limits())
	}
	for kind := range Kind(7) {
		if got.Stats(kind) != m.Stats(kind) {
			t.Errorf("kind %d: stats %+v, want %+v", kind, got.Stats(kind), m.Stats(kind))
		}
		for sum := range uint64(300) {
			k := Key{Kind: kind, Sum: sum}
			if !slices.Equal(got.Get(k), m.Get(k)) || got.Known(k) != m.Known(k) {
				t.Fatalf("%v: %v, want %v", k, got.Get(k), m.Get(k))
			}
		}
	}
	for i := range uint32(300) {
		k, e := Key{Kind: Kind(i % 6), Sum: uint64(i)}, Entry{ID: 5000 + i, Group: i % 4}
		if a, b := got.Add(k, e), m.Add(k, e); a != b {
			t.Fatalf("add %v: %v, want %v", k, a, b)
		}
	}
	for n := 0; n < len(data); n += 1 + n/50 {
		var bad Memory
		if err := bad.UnmarshalBinary(data[:n]); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("truncated to %d of %d bytes: %v", n, len(data), err)
		}
	}
}

func TestMemoryClustersEncoding(t *testing.T) {
	var c MemoryClusters
	for i := range uint32(100) {
		if i%3 == 0 {
			c.Found(i)
		} else {
			c.Join(i, uint32(c.Len()-1))
		}
	}
	c.SetMaster(2, 7)
	data, _ := c.MarshalBinary()
	var got MemoryClusters
	if err := got.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.of, c.of) || !slices.Equal(got.masters, c.masters) {
		t.Fatal("decoded clusters differ")
	}
	if err := got.UnmarshalBinary(data[:len(data)-1]); !errors.Is(err, ErrCorrupt) {
		t.Errorf("truncated: %v", err)
	}
}
