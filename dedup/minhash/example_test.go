package minhash_test

import (
	"fmt"
	"strings"

	"github.com/doppel-search/doppel/dedup/features"
	"github.com/doppel-search/doppel/dedup/minhash"
	"github.com/doppel-search/doppel/dedup/stats"
)

// words returns n numbered words starting at from, as a document text.
func words(from, n int) string {
	var b strings.Builder
	for i := from; i < from+n; i++ {
		fmt.Fprintf(&b, "w%d ", i)
	}
	return b.String()
}

func shingles(text string) []uint64 {
	return features.Shingles(features.Tokens(text), 5)
}

func ExampleHasher_Sketch() {
	h, err := minhash.New(minhash.Options{Size: 256})
	if err != nil {
		panic(err)
	}
	a := shingles(words(0, 300))
	b := shingles(words(30, 300)) // shifted by 30 words
	exact := features.Resemblance(features.Set(a), features.Set(b))
	est := h.Sketch(a).Jaccard(h.Sketch(b))
	fmt.Printf("exact %.2f, estimate %.1f\n", exact, est) // standard error 0.02
	fmt.Println("empty:", h.Sketch(nil).Jaccard(h.Sketch(nil)))
	// Output:
	// exact 0.82, estimate 0.8
	// empty: 0
}

func ExampleSuperShingles() {
	h, _ := minhash.New(minhash.Options{Size: minhash.DSCSSSize})
	super := func(text string) []uint64 {
		return minhash.SuperShingles(h.Sketch(shingles(text)), minhash.DSCSSSuperShingles)
	}
	doc := words(0, 2000)
	edited := strings.Replace(doc, "w1000 ", "changed ", 1)
	other := words(5000, 2000)
	fmt.Println("identical:", minhash.SharedSuperShingles(super(doc), super(doc)))
	fmt.Println("edited:", minhash.SharedSuperShingles(super(doc), super(edited)) >= minhash.DSCSSMinShared)
	fmt.Println("other:", minhash.SharedSuperShingles(super(doc), super(other)))
	// Output:
	// identical: 6
	// edited: true
	// other: 0
}

func ExampleLSH() {
	h, _ := minhash.New(minhash.Options{})
	bands := func(text string) []uint64 {
		return minhash.Bands(h.Sketch(shingles(text)), 16, 8) // threshold ≈ 0.7
	}
	var index minhash.LSH
	index.Insert(1, bands(words(0, 500)))
	index.Insert(2, bands(words(10, 500))) // resemblance 0.96 with doc 1
	index.Insert(3, bands(words(1000, 500)))
	fmt.Println(index.Candidates(bands(words(0, 500))))
	index.Delete(2, bands(words(10, 500)))
	fmt.Println(index.Candidates(bands(words(0, 500))))
	// Output:
	// [1 2]
	// [1]
}

func ExampleDropCommon() {
	boilerplate := shingles("home about contact search login")
	var b stats.Builder
	for i := range 10 {
		b.AddHashes(append(shingles(words(100*i, 20)), boilerplate...))
	}
	doc := append(shingles(words(0, 20)), boilerplate...)
	fmt.Println(len(doc), "->", len(minhash.DropCommon(doc, b.Table(), 5)))
	// Output:
	// 17 -> 16
}
