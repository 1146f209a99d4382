package indexer_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/blevesearch/bleve/v2"

	"github.com/doppel-search/doppel/crawler/hook"
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
	// In a pipeline these placements come from dedup.Detector.Add,
	// through hook.Placement.
	_ = ix.Add(ctx, master, indexer.Placement{ID: "p1", Cluster: "c1", Master: "p1"})
	_ = ix.Add(ctx, dup, indexer.Placement{ID: "p2", Cluster: "c1", Master: "p1", Duplicate: true})
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

// A user creating a bleve index with Doppel's mapping, here in memory,
// and wrapping it (for a mapping of the user's own, see AddTo). Results
// are ranked with the title boosted.
func ExampleMapping() {
	m := indexer.Mapping()
	idx, err := bleve.NewMemOnly(m)
	if err != nil {
		log.Fatal(err)
	}
	defer idx.Close() // the Index leaves it open
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
	results := []indexer.Placement{
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

// A page and its printer-friendly copy; the page is deleted. The
// detector elects the copy, and the index makes it the searchable master
// in the page's place, taking its document from the Source (under the
// default Skip policy the copy was not in the index).
func ExampleIndex_Remove() {
	ctx := context.Background()
	pages := map[string]indexer.Doc{} // the crawler's store of pages
	source := indexer.SourceFunc(func(_ context.Context, id string) (*indexer.Doc, error) {
		if d, ok := pages[id]; ok {
			return &d, nil
		}
		return nil, nil
	})
	idx, err := bleve.NewMemOnly(indexer.Mapping())
	if err != nil {
		log.Fatal(err)
	}
	ix, err := indexer.Wrap(idx, indexer.Options{Source: source})
	if err != nil {
		log.Fatal(err)
	}
	defer ix.Close()
	det, err := dedup.New(nil, dedup.Options{})
	if err != nil {
		log.Fatal(err)
	}

	body := "Send a job to the shared queue and release it at any printer by holding your badge against the reader; jobs that are not released are deleted after twelve hours."
	for _, d := range []indexer.Doc{
		{ID: "/manual/print", Title: "Printing", Body: body},
		{ID: "/manual/print?print=1", Title: "Printing (print)", Body: body},
	} {
		pages[d.ID] = d
		res, err := det.Add(dedup.Document{ID: d.ID, Text: d.Body})
		if err != nil {
			log.Fatal(err)
		}
		if err := ix.Add(ctx, d, hook.Placement(res)); err != nil {
			log.Fatal(err)
		}
	}
	show := func() {
		if err := ix.Flush(ctx); err != nil {
			log.Fatal(err)
		}
		res, err := idx.Search(bleve.NewSearchRequest(ix.Searchable(indexer.TextQuery("badge"))))
		if err != nil {
			log.Fatal(err)
		}
		for _, h := range res.Hits {
			d, _ := ix.Document(h.ID)
			members, _ := ix.Members(d.Cluster)
			fmt.Printf("hit: %s, %d page(s) in its cluster\n", h.ID, len(members))
		}
	}
	show()

	// The page is gone (a 404 on a revisit).
	ch, err := det.Remove("/manual/print")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("removed; elected %s: %v\n", ch.Master, ch.Elected)
	if err := ix.Remove(ctx, hook.IndexChange(ch)); err != nil {
		log.Fatal(err)
	}
	delete(pages, "/manual/print")
	show()
	// Output:
	// hit: /manual/print, 2 page(s) in its cluster
	// removed; elected /manual/print?print=1: true
	// hit: /manual/print?print=1, 1 page(s) in its cluster
}

// A page changes on a revisit: the detector decides whether it stays in
// its cluster, and the index re-indexes it where the detector put it.
func ExampleIndex_Update() {
	ctx := context.Background()
	idx, err := bleve.NewMemOnly(indexer.Mapping())
	if err != nil {
		log.Fatal(err)
	}
	ix, err := indexer.Wrap(idx, indexer.Options{Policy: indexer.Hidden})
	if err != nil {
		log.Fatal(err)
	}
	defer ix.Close()
	det, err := dedup.New(nil, dedup.Options{})
	if err != nil {
		log.Fatal(err)
	}
	body := "Send a job to the shared queue and release it at any printer by holding your badge against the reader; jobs that are not released are deleted after twelve hours."
	for _, id := range []string{"/manual/print", "/old/manual/print"} {
		d := indexer.Doc{ID: id, Body: body}
		res, _ := det.Add(dedup.Document{ID: id, Text: d.Body})
		if err := ix.Add(ctx, d, hook.Placement(res)); err != nil {
			log.Fatal(err)
		}
	}
	for _, text := range []string{
		body + " Thanks.",
		"The canteen is closed on Friday for the staff party; the coffee bar on the second floor stays open.",
	} {
		d := indexer.Doc{ID: "/old/manual/print", Body: text}
		ch, err := det.Replace(dedup.Document{ID: d.ID, Text: d.Body})
		if err != nil {
			log.Fatal(err)
		}
		if err := ix.Update(ctx, d, hook.IndexChange(ch)); err != nil {
			log.Fatal(err)
		}
		stored, _ := ix.Document(d.ID)
		fmt.Printf("left its cluster %v, master %v\n", ch.Left, stored.Master)
	}
	// Output:
	// left its cluster false, master false
	// left its cluster true, master true
}

func ExampleParsePolicy() {
	p, err := indexer.ParsePolicy("hidden")
	fmt.Println(p, err, p == indexer.Hidden)
	// Output: hidden <nil> true
}

// Library use with Doppel's own index: the detector decides each
// document's placement, hook.Placement hands it to the index, which
// indexes the master and leaves the copy out (policy Skip).
func Example_library() {
	dir, err := os.MkdirTemp("", "doppel-index")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()

	detector, err := dedup.New(nil, dedup.Options{})
	if err != nil {
		log.Fatal(err)
	}
	ix, err := indexer.Open(dir, indexer.Options{}) // or indexer.Wrap(yourIndex, …): see AddTo
	if err != nil {
		log.Fatal(err)
	}
	defer ix.Close()

	text := "Expenses are claimed in the finance portal within thirty days of the end of a trip, with a photo of every receipt."
	for _, doc := range []dedup.Document{
		{ID: "expenses", URL: "http://intranet/expenses", Text: text},
		{ID: "expenses-print", URL: "http://intranet/expenses?print=1", Text: text},
	} {
		res, err := detector.Add(doc)
		if err != nil {
			log.Fatal(err)
		}
		err = ix.Add(ctx, indexer.Doc{ID: doc.ID, URL: doc.URL, Title: "Expenses", Body: doc.Text}, hook.Placement(res))
		if err != nil {
			log.Fatal(err)
		}
	}
	if err := ix.Flush(ctx); err != nil {
		log.Fatal(err)
	}

	res, err := ix.Search(ctx, bleve.NewSearchRequest(ix.Searchable(indexer.TextQuery("receipt"))))
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range res.Hits {
		fmt.Println("hit:", h.ID)
	}
	fmt.Println("indexed:", ix.Stats().Indexed, "skipped:", ix.Stats().Skipped)
	// Output:
	// hit: expenses
	// indexed: 1 skipped: 1
}

// Doppel beside a user's own documents, in the user's own index: AddTo
// adds Doppel's document types to the user's mapping, leaving its
// defaults alone; Doppel's member and difference records go to an index
// of their own (Options.Records). The user's search code finds what it
// found before (Doppel's pages are analyzed by Doppel's analyzers, which
// the user's standard analyzer does not match here); the count grows by
// Doppel's documents only, and Doppel's own queries find its pages.
func ExampleAddTo() {
	ctx := context.Background()

	// The user's mapping and index, as they were.
	m := bleve.NewIndexMapping()
	if err := indexer.AddTo(m); err != nil { // the Doppel line
		log.Fatal(err)
	}
	index, err := bleve.NewMemOnly(m) // or bleve.New(path, m)
	if err != nil {
		log.Fatal(err)
	}
	defer index.Close()
	_ = index.Index("faq-1", map[string]any{"question": "How do I claim travel expenses?", "topic": "finance"})

	// Doppel's records, and the Index writing to both.
	records, err := bleve.NewMemOnly(indexer.RecordsMapping()) // or bleve.New(path, …)
	if err != nil {
		log.Fatal(err)
	}
	defer records.Close()
	ix, err := indexer.Wrap(index, indexer.Options{Records: records})
	if err != nil {
		log.Fatal(err)
	}
	defer ix.Close() // flushes; leaves index and records open, closed after it
	text := "Expenses are claimed in the finance portal within thirty days."
	// In a crawl these placements come from the detector (see the hook).
	_ = ix.Add(ctx, indexer.Doc{ID: "http://intranet/expenses", Title: "Expenses", Body: text},
		indexer.Placement{Cluster: "c1", Master: "http://intranet/expenses"})
	_ = ix.Add(ctx, indexer.Doc{ID: "http://intranet/expenses?print=1", Title: "Expenses", Body: text},
		indexer.Placement{Cluster: "c1", Master: "http://intranet/expenses", Duplicate: true})
	if err := ix.Flush(ctx); err != nil {
		log.Fatal(err)
	}

	// The user's own search code, and Doppel's search of its documents.
	res, err := index.Search(bleve.NewSearchRequest(bleve.NewMatchQuery("expenses")))
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range res.Hits {
		fmt.Println("user's query:", h.ID)
	}
	res, err = ix.Search(ctx, bleve.NewSearchRequest(ix.Searchable(indexer.TextQuery("expenses"))))
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range res.Hits {
		fmt.Println("Doppel's query:", h.ID)
	}
	n, _ := index.DocCount()
	fmt.Println("documents:", n)
	// Output:
	// user's query: faq-1
	// Doppel's query: http://intranet/expenses
	// documents: 2
}
