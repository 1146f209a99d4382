package hamming

import (
	"fmt"
	"testing"
)

func BenchmarkTuneMerge(b *testing.B) {
	f := fixture(b, 1_000_000)
	for _, th := range []int{1024, 2048, 4096, 8192, 16384} {
		b.Run(fmt.Sprint(th), func(b *testing.B) {
			x := mustNew(b, Options{MergeThreshold: th})
			if err := x.InsertBatch(f.entries); err != nil {
				b.Fatal(err)
			}
			r := newRand(1)
			for i := 0; b.Loop(); i++ {
				if err := x.Insert(uint64(1e6+i), r.Uint64()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
