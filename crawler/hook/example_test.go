package hook_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

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

	h, err := hook.Attach(context.Background(), collector, hook.Options{ // your context
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

// A nightly job, run as a new process each night (here: each night a
// new hook, collector and index opened on the same directories). The
// hook's state lives in a directory (Open): a page seen again is an
// update, a page that answers 404 is removed, and the copy of a removed
// master takes its place, read back from the pages in the directory.
func ExampleOpen() {
	var mu sync.Mutex
	pages := map[string]string{
		"/":          `<a href="/vpn">VPN</a> <a href="/print/vpn">Print</a> <a href="/canteen">Canteen</a>`,
		"/vpn":       "Connect to the corporate network through the VPN client and sign in with your network account and the code from your authenticator app.",
		"/print/vpn": "Connect to the corporate network through the VPN client and sign in with your network account and the code from your authenticator app. Printed copy.",
		"/canteen":   "The staff canteen is open from eight until three; the menu of the week is on the notice board by the lifts.",
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		body, ok := pages[r.URL.Path]
		mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><body><main><p>%s</p></main></body></html>", body)
	}))
	defer srv.Close()
	dir, err := os.MkdirTemp("", "nightly")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	job := func(ctx context.Context) error { // main of the nightly job
		var h *hook.Hook
		ix, err := indexer.Open(filepath.Join(dir, "doppel.idx"), indexer.Options{ // Doppel's own index: yours stays as it is
			Source: indexer.SourceFunc(func(ctx context.Context, id string) (*indexer.Doc, error) { return h.SourceDoc(ctx, id) })})
		if err != nil {
			return err
		}
		defer ix.Close()
		h, err = hook.Open(filepath.Join(dir, "doppel.state"), hook.Options{Index: ix})
		if err != nil {
			return err
		}
		defer h.Close()                   // before ix.Close
		collector := colly.NewCollector() // your collector
		collector.OnHTML("a[href]", func(e *colly.HTMLElement) { e.Request.Visit(e.Attr("href")) })
		h.Attach(ctx, collector)
		if err := collector.Visit(srv.URL + "/"); err != nil {
			return err
		}
		if err := h.Flush(ctx); err != nil {
			return err
		}
		st := h.Detector().Stats()
		fmt.Printf("pages %d, updated %d, removed %d; errors: %v\n", st.Documents, st.Replaced, st.Removed, h.Err())
		res, err := ix.Search(ctx, bleve.NewSearchRequest(ix.Searchable(indexer.TextQuery("authenticator"))))
		if err != nil {
			return err
		}
		for _, hit := range res.Hits {
			fmt.Println("  authenticator:", strings.TrimPrefix(hit.ID, srv.URL))
		}
		return nil
	}
	for night := 1; night <= 2; night++ {
		if err := job(context.Background()); err != nil {
			panic(err)
		}
		mu.Lock()
		delete(pages, "/vpn") // before the second night: /vpn is gone
		mu.Unlock()
	}
	// Output:
	// pages 4, updated 0, removed 0; errors: <nil>
	//   authenticator: /vpn
	// pages 3, updated 3, removed 1; errors: <nil>
	//   authenticator: /print/vpn
}

// A nightly recrawl through the same hook: a page seen again is a new
// version (the index follows it), a page that answers 404 or 410 is
// removed, and the copy of a removed master takes its place in the index,
// read back from the pages the hook keeps (indexer.Options.Source). Err
// says whether every page went through.
func ExampleAttach() {
	var mu sync.Mutex
	pages := map[string]string{
		"/":          `<a href="/vpn">VPN</a> <a href="/print/vpn">Print</a> <a href="/canteen">Canteen</a>`,
		"/vpn":       "Connect to the corporate network through the VPN client and sign in with your network account and the code from your authenticator app.",
		"/print/vpn": "Connect to the corporate network through the VPN client and sign in with your network account and the code from your authenticator app. Printed copy.",
		"/canteen":   "The staff canteen is open from eight until three; the menu of the week is on the notice board by the lifts.",
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		body, ok := pages[r.URL.Path]
		mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><body><main><p>%s</p></main></body></html>", body)
	}))
	defer srv.Close()
	ctx := context.Background()

	index, _ := bleve.NewMemOnly(indexer.Mapping()) // your index
	var h *hook.Hook
	ix, _ := indexer.Wrap(index, indexer.Options{Source: indexer.SourceFunc(func(ctx context.Context, id string) (*indexer.Doc, error) {
		return h.SourceDoc(ctx, id) // the pages the hook keeps: what a hand-over needs
	})})
	collector := colly.NewCollector(colly.AllowURLRevisit()) // your collector, visiting again each night
	collector.OnHTML("a[href]", func(e *colly.HTMLElement) { e.Request.Visit(e.Attr("href")) })
	h, _ = hook.Attach(ctx, collector, hook.Options{Index: ix})

	search := func(q string) {
		res, _ := index.Search(bleve.NewSearchRequest(ix.Searchable(indexer.TextQuery(q))))
		var ids []string
		for _, hit := range res.Hits {
			ids = append(ids, strings.TrimPrefix(hit.ID, srv.URL))
		}
		slices.Sort(ids)
		fmt.Printf("  %s: %v\n", q, ids)
	}
	for night := 1; night <= 2; night++ {
		collector.Visit(srv.URL + "/")
		h.Flush(ctx)
		fmt.Printf("night %d, errors: %v\n", night, h.Err())
		search("authenticator")
		search("lifts")
		search("token")
		// Before the second night: /vpn is gone, /canteen rewritten.
		mu.Lock()
		delete(pages, "/vpn")
		pages["/canteen"] = "The staff restaurant now opens at seven; breakfast is served until ten and a token is needed at the till."
		mu.Unlock()
	}
	// Output:
	// night 1, errors: <nil>
	//   authenticator: [/vpn]
	//   lifts: [/canteen]
	//   token: []
	// night 2, errors: <nil>
	//   authenticator: [/print/vpn]
	//   lifts: []
	//   token: [/canteen]
}
