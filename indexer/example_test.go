package indexer_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/blevesearch/bleve/v2"

	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/indexer"
)

// A master and a printer-friendly copy under the default Skip policy: the
// copy is not searchable, but its cluster still lists it.
func Example() {
	dir, err := os.MkdirTemp("", "doppel-index")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	ix, err := indexer.Open(dir, indexer.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer ix.Close()

	ctx := context.Background()
	body := "How to replace the toner of the third floor printer."
	master := indexer.Doc{ID: "p1", URL: "http://wiki/printer", Title: "Printer", Body: body}
	dup := indexer.Doc{ID: "p2", URL: "http://wiki/printer?print=1", Title: "Printer (print)", Body: body}
	// In a pipeline these Results come from dedup.Detector.Add.
	_ = ix.Add(ctx, master, dedup.Result{ID: "p1", Cluster: "c1", Master: "p1"})
	_ = ix.Add(ctx, dup, dedup.Result{ID: "p2", Cluster: "c1", Master: "p1", Duplicate: true})
	if err := ix.Flush(ctx); err != nil {
		log.Fatal(err)
	}

	q := bleve.NewMatchQuery("toner")
	q.SetField(indexer.FieldBody)
	res, err := ix.Bleve().Search(bleve.NewSearchRequest(ix.Searchable(q)))
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range res.Hits {
		fmt.Println("hit:", h.ID)
	}
	members, err := ix.Members("c1")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(members)-1, "similar page(s):")
	for _, m := range members {
		fmt.Printf("%s %s indexed=%v master=%v\n", m.ID, m.URL, m.Indexed, m.Master)
	}
	// Output:
	// hit: p1
	// 1 similar page(s):
	// p1 http://wiki/printer indexed=true master=true
	// p2 http://wiki/printer?print=1 indexed=false master=false
}

// A user creating their own bleve index with Doppel's fields, here in
// memory, and wrapping it. Results are ranked with the title boosted.
func ExampleMapping() {
	m := indexer.Mapping()
	idx, err := bleve.NewMemOnly(m)
	if err != nil {
		log.Fatal(err)
	}
	ix, err := indexer.Wrap(idx, indexer.Options{Policy: indexer.Hidden})
	if err != nil {
		log.Fatal(err)
	}
	defer ix.Close()

	ctx := context.Background()
	docs := []indexer.Doc{
		{ID: "a", Title: "Holidays", Body: "The calendar of public holidays."},
		{ID: "b", Title: "Canteen", Body: "Opening hours around the holidays."},
		{ID: "c", Title: "Holidays", Body: "The calendar of public holidays (old)."},
	}
	results := []dedup.Result{
		{ID: "a", Cluster: "1", Master: "a"},
		{ID: "b", Cluster: "2", Master: "b"},
		{ID: "c", Cluster: "1", Master: "a", Duplicate: true},
	}
	for i := range docs {
		if err := ix.Add(ctx, docs[i], results[i]); err != nil {
			log.Fatal(err)
		}
	}
	if err := ix.Flush(ctx); err != nil {
		log.Fatal(err)
	}
	res, err := idx.Search(bleve.NewSearchRequest(ix.Searchable(indexer.TextQuery("holiday"))))
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range res.Hits {
		fmt.Println(h.ID)
	}
	fmt.Println("in index:", ix.Stats().Indexed)
	// Output:
	// a
	// b
	// in index: 3
}

func ExampleParsePolicy() {
	p, err := indexer.ParsePolicy("hidden")
	fmt.Println(p, err, p == indexer.Hidden)
	// Output: hidden <nil> true
}
