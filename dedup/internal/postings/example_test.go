package postings_test

import (
	"fmt"

	"github.com/doppel-search/doppel/dedup/internal/postings"
)

func ExampleMap() {
	m := postings.New[string, postings.Entry](postings.Limits{PerGroup: 2, MaxLen: 4})
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
	// {Keys:1 Entries:2 Stops:1 Capped:3 Ignored:0 Removed:0}
}

func ExampleMap_Remove() {
	m := postings.New[string, postings.Entry](postings.Limits{PerGroup: 2})
	for id := range uint32(4) { // four copies of one page: two kept
		m.Add("page", id, 0)
	}
	removed, refill := m.Remove("page", 0)
	fmt.Println(removed, refill, m.Get("page"))
	// The caller knows the copies the list refused (2 and 3) and adds the
	// earliest: the list is what adding 1, 2, 3 would have made.
	m.Add("page", 2, 0)
	fmt.Println(m.Get("page"))
	m.Remove("page", 1)
	m.Remove("page", 2)
	fmt.Println(m.Known("page"))
	// Output:
	// true true [{1 0}]
	// [{1 0} {2 0}]
	// false
}
