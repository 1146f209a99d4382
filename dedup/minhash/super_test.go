package minhash

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/cespare/xxhash/v2"
)

// TestHashGroups checks hashGroups against its definition — xxHash64 of
// (i, the group's values) as little-endian uint64s, encoded in one
// buffer — for groups that fit its stack buffer and groups hashed in
// pieces (the whole sketch), at the piece boundaries too; and that it
// allocates only its result.
func TestHashGroups(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, g := range []int{1, 4, 62, 63, 64, 65, 127, 128, 129, 200} {
		n := max(1, 256/g)
		s := make(Sketch, n*g)
		for i := range s {
			s[i] = r.Uint64()
		}
		got := hashGroups(s, n, g)
		for i := range n {
			buf := binary.LittleEndian.AppendUint64(nil, uint64(i))
			for _, v := range s[i*g : (i+1)*g] {
				buf = binary.LittleEndian.AppendUint64(buf, v)
			}
			if want := xxhash.Sum64(buf); got[i] != want {
				t.Fatalf("g=%d group %d: %x, want %x", g, i, got[i], want)
			}
		}
		if a := testing.AllocsPerRun(10, func() { hashGroups(s, n, g) }); a > 1 {
			t.Errorf("g=%d: %.0f allocations, want 1 (the result)", g, a)
		}
	}
}
