package stats_test

import (
	"fmt"

	"github.com/doppel-search/doppel/dedup/features"
	"github.com/doppel-search/doppel/dedup/stats"
)

func ExampleBuilder() {
	var b stats.Builder
	for _, doc := range []string{"the printer manual", "the scanner manual", "the fax"} {
		b.Add(features.Tokens(doc))
	}
	t := b.Table() // frozen: later Adds do not change it
	for _, term := range []string{"the", "manual", "fax"} {
		fmt.Printf("%s df=%d nidf=%.2f\n", term, t.DF(features.HashTerm(term)), t.NIDF(features.HashTerm(term)))
	}
	// Output:
	// the df=3 nidf=0.00
	// manual df=2 nidf=0.37
	// fax df=1 nidf=1.00
}
