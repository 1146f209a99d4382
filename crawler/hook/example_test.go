package hook_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/gocolly/colly/v2"

	"github.com/doppel-search/doppel/crawler/hook"
	"github.com/doppel-search/doppel/indexer"
)

// A site with a page and its printer-friendly copy.
func exampleSite() *httptest.Server {
	text := "Expenses are claimed in the finance portal within thirty days of the end of a trip, with a photo of every receipt."
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, `<html><body><main><p>Welcome to the intranet.</p><a href="/expenses">Expenses</a> <a href="/print/expenses">Print</a></main></body></html>`)
		case "/expenses":
			fmt.Fprintf(w, "<html><head><title>Expenses</title></head><body><main><p>%s</p></main></body></html>", text)
		case "/print/expenses":
			fmt.Fprintf(w, "<html><head><title>Expenses</title></head><body><main><p>%s Printed copy.</p></main></body></html>", text)
		}
	}))
}

// Adding Doppel to an existing colly collector and bleve index: create
// the index with indexer.Mapping, wrap it, attach the hook, crawl, flush.
// The printer-friendly copy is recognised and not indexed (policy Skip),
// but recorded as a member of the page's cluster.
func Example() {
	srv := exampleSite()
	defer srv.Close()

	index, _ := bleve.NewMemOnly(indexer.Mapping()) // your index
	ix, _ := indexer.Wrap(index, indexer.Options{Policy: indexer.Skip})
	collector := colly.NewCollector() // your collector
	collector.OnHTML("a[href]", func(e *colly.HTMLElement) { e.Request.Visit(e.Attr("href")) })

	h, err := hook.Attach(context.Background(), collector, hook.Options{
		Index: ix,
		OnPage: func(p hook.Page) {
			fmt.Printf("%s duplicate=%v\n", strings.TrimPrefix(p.URL, srv.URL), p.Result.Duplicate)
		},
	})
	if err != nil {
		panic(err)
	}
	collector.Visit(srv.URL + "/")
	h.Flush(context.Background())

	req := bleve.NewSearchRequest(ix.Searchable(indexer.TextQuery("receipt")))
	req.Fields = []string{indexer.FieldCluster}
	res, _ := index.Search(req)
	for _, hit := range res.Hits {
		members, _ := ix.Members(hit.Fields[indexer.FieldCluster].(string))
		fmt.Printf("hit %s, %d pages in its cluster\n", strings.TrimPrefix(hit.ID, srv.URL), len(members))
	}
	// Output:
	// / duplicate=false
	// /expenses duplicate=false
	// /print/expenses duplicate=true
	// hit /expenses, 2 pages in its cluster
}
