package features_test

import (
	"fmt"

	"github.com/doppel-search/doppel/dedup/features"
)

func ExampleTokens() {
	fmt.Println(features.Tokens("Vec<T>::new() on x86_64"))
	// Output: [vec t new on x86 64]
}

func ExampleExtractor() {
	e, _ := features.New(features.Options{StopWords: true, Stem: true, NGrams: []int{2}})
	terms := e.Terms("The printers are printing the manuals")
	fmt.Println(terms)
	fmt.Println(e.Features(terms))
	// Output:
	// [printer print manual]
	// [printer print print manual]
}

func ExampleResemblance() {
	a := features.Set(features.Shingles(features.Tokens("the quick brown fox jumps over the lazy dog"), 5))
	b := features.Set(features.Shingles(features.Tokens("the quick brown fox jumps over the lazy cat"), 5))
	fmt.Printf("%.2f\n", features.Resemblance(a, b))
	// Output: 0.67
}
