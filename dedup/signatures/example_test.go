package signatures_test

import (
	"fmt"

	"github.com/doppel-search/doppel/dedup/signatures"
)

func ExampleMemory() {
	s := signatures.NewMemory(signatures.Limits{PerGroup: 2, MaxLen: 4})
	page := signatures.Key{Kind: signatures.Sketch, Sum: 0x10617}
	// Five exact copies of one page, all in cluster 0: two are kept.
	for id := range uint32(5) {
		s.Add(page, signatures.Entry{ID: id, Group: 0})
	}
	fmt.Println(s.Get(page))
	// A band shared by documents of many clusters becomes a stop key.
	band := signatures.Key{Kind: signatures.Band, Sum: 0x7e3}
	for id := range uint32(5) {
		fmt.Print(s.Add(band, signatures.Entry{ID: 10 + id, Group: 10 + id}), " ")
	}
	fmt.Println(s.Get(band), s.Known(band))
	// One document's keys in one call, as the Detector reads them.
	s.Lookup([]signatures.Key{page, band, {Kind: signatures.Super, Sum: 1}}, func(k signatures.Key, list []signatures.Entry) {
		fmt.Println(k.Kind, list)
	})
	// A copy leaves: the list held two of its cluster and may have refused
	// others, so the caller adds the earliest refused one (document 2).
	removed, refill := s.Remove(page, 0)
	fmt.Println(removed, refill)
	s.Add(page, signatures.Entry{ID: 2, Group: 0})
	fmt.Println(s.Get(page))
	fmt.Printf("%+v\n", s.Stats(signatures.Sketch))
	// Output:
	// [{0 0} {1 0}]
	// added added added added stopped [] true
	// sketch [{0 0} {1 0}]
	// band []
	// super []
	// true true
	// [{1 0} {2 0}]
	// {Keys:1 Entries:2 Stops:0 Capped:3 Ignored:0 Removed:1}
}
