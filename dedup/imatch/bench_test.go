package imatch

import (
	"fmt"
	"testing"
)

// BenchmarkSign signs every document of book-perturb once per iteration.
// Tokenization (features.Tokens) is done before the timer starts, so the
// figures are for signing alone; bytes are the documents' text bytes.
func BenchmarkSign(b *testing.B) {
	c := loadCorpus(b)
	for _, bc := range []struct {
		mode Mode
		k    int
	}{{Range, 0}, {Range, 10}, {IDFL10, 0}, {DocL90, 0}} {
		b.Run(fmt.Sprintf("mode=%s/K=%d", bc.mode, bc.k), func(b *testing.B) {
			s, err := NewSigner(c.table, Options{Mode: bc.mode, ExtraLexicons: bc.k})
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(c.textBytes)
			b.ReportAllocs()
			for b.Loop() {
				for _, d := range c.docs {
					if _, err := s.Sign(d.tokens); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.N*len(c.docs))/b.Elapsed().Seconds(), "docs/s")
		})
	}
}

// BenchmarkNewSigner measures choosing the lexicons from the book-perturb
// table (about 27,000 terms).
func BenchmarkNewSigner(b *testing.B) {
	c := loadCorpus(b)
	for _, k := range []int{0, 10} {
		b.Run(fmt.Sprintf("mode=range/K=%d", k), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := NewSigner(c.table, Options{ExtraLexicons: k}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
