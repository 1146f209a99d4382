package simhash_test

import (
	"fmt"
	"strings"

	"github.com/doppel-search/doppel/dedup/features"
	"github.com/doppel-search/doppel/dedup/simhash"
	"github.com/doppel-search/doppel/dedup/stats"
)

func ExampleFromFeatures() {
	a := simhash.FromFeatures([]simhash.Feature{
		{Hash: 0b1100, Weight: 2},
		{Hash: 0b1010, Weight: 1},
	})
	b := simhash.FromFeatures([]simhash.Feature{{Hash: 0b1010, Weight: 1}})
	fmt.Println(a, b, a.Distance(b))
	// Output:
	// 000000000000000c 000000000000000a 2
}

func ExampleSigner_Sign() {
	const base = `Ownership is a set of rules that govern how a Rust program manages
memory. All programs have to manage the way they use a computer's memory
while running. Some languages have garbage collection that regularly looks
for no-longer-used memory as the program runs; in other languages, the
programmer must explicitly allocate and free the memory. Rust uses a third
approach: memory is managed through a system of ownership with a set of
rules that the compiler checks. If any of the rules are violated, the
program won't compile.`
	texts := []string{
		base,
		strings.Replace(base, "regularly looks", "constantly looks", 1),
		`A closure is an anonymous function you can save in a variable or pass
as an argument to other functions. You can create the closure in one place
and then call the closure elsewhere to evaluate it in a different context.`,
	}
	// Document frequencies come from the collection, frozen in a Table.
	var b stats.Builder
	for _, t := range texts {
		b.Add(features.Tokens(t))
	}
	signer, err := simhash.NewSigner(b.Table(), simhash.Options{})
	if err != nil {
		panic(err)
	}
	var sigs []simhash.Simhash
	for _, t := range texts {
		sigs = append(sigs, signer.Sign(simhash.Doc{
			Terms: features.Tokens(t),
			Meta:  []string{"lang:en"},
		}))
	}
	fmt.Println("edit:", sigs[0].Distance(sigs[1]))
	fmt.Println("other:", sigs[0].Distance(sigs[2]))
	// Output:
	// edit: 6
	// other: 36
}

func ExampleSigner_Features() {
	signer, _ := simhash.NewSigner(nil, simhash.Options{}) // no table: weight = tf
	doc := simhash.Doc{
		Terms:  []string{"go", "is", "fun", "go"},
		Tagged: []string{"go"}, // counts TagBoost = 2 times
	}
	for _, f := range signer.Features(doc) {
		fmt.Println(f.Hash == features.HashTerm("go"), f.Weight)
	}
	// Output:
	// true 4
	// false 1
	// false 1
}
