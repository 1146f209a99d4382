package postings_test

import (
	"fmt"

	"github.com/doppel-search/doppel/dedup/internal/postings"
)

func ExampleMap() {
	m := postings.New[string](postings.Limits{PerGroup: 2, MaxLen: 4})
	// Five exact copies of one page, all in cluster 0: only two are kept.
	for id := range uint32(5) {
		m.Add("login-page", id, 0)
	}
	fmt.Println(m.Get("login-page"))
	// A signature shared by documents of many clusters becomes a stop key.
	for id := range uint32(5) {
		fmt.Print(m.Add("template", 10+id, 10+id), " ")
	}
	fmt.Println(m.Get("template"), m.Known("template"))
	fmt.Printf("%+v\n", m.Stats())
	// Output:
	// [{0 0} {1 0}]
	// added added added added stopped [] true
	// {Keys:1 Entries:2 Stops:1 Capped:3 Ignored:0}
}
