package frontier_test

import (
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/gocolly/colly/v2/queue"

	"github.com/doppel-search/doppel/crawler/frontier"
)

func Example() {
	dir, _ := os.MkdirTemp("", "frontier")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "frontier.db")

	f, err := frontier.Open(path, frontier.Options{})
	if err != nil {
		log.Fatal(err)
	}
	f.Add("http://intra.example/print/manual.html", -5, nil) // near-duplicate family: later
	f.Add("http://intra.example/", 100, nil)                 // seed: first
	f.Add("http://intra.example/manual.html", 10, nil)
	added, _ := f.Add("http://intra.example/", 100, nil) // seen: no-op
	fmt.Println("added again:", added)

	it, _ := f.Next()
	fmt.Println("fetch", it.URL)
	f.Done(it.URL, "fetched")
	it, _ = f.Next() // in flight when the process stops
	fmt.Println("fetch", it.URL)
	f.Close()

	f, _ = frontier.Open(path, frontier.Options{}) // the in-flight URL is back
	defer f.Close()
	st, _ := f.Stats()
	fmt.Printf("after restart: %+v\n", st)
	for {
		it, err := f.Next()
		if err != nil { // frontier.ErrEmpty
			break
		}
		fmt.Println("fetch", it.URL)
		f.Done(it.URL, "fetched")
	}

	// Recrawl: the home page is due again in an hour.
	now := time.Date(2026, 3, 5, 12, 0, 0, 0, time.UTC)
	f.Schedule("http://intra.example/", now.Add(time.Hour), 50)
	n, _ := f.Due(now.Add(2 * time.Hour))
	fmt.Println("due again:", n)
	f.All(func(url string, state frontier.State, outcome string) error {
		fmt.Printf("%s %s %q\n", state, url, outcome)
		return nil
	})
	// Output:
	// added again: false
	// fetch http://intra.example/
	// fetch http://intra.example/manual.html
	// after restart: {Pending:2 InFlight:0 Done:1 Scheduled:0}
	// fetch http://intra.example/manual.html
	// fetch http://intra.example/print/manual.html
	// due again: 1
	// pending http://intra.example/ ""
	// done http://intra.example/manual.html "fetched"
	// done http://intra.example/print/manual.html "fetched"
}

// A Frontier as colly's queue storage: requests carry their priority in the
// context key frontier.PriorityKey, and the crawler marks pages Done once
// they are recorded.
func Example_colly() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<html><title>ok</title></html>")
	}))
	defer srv.Close()
	dir, _ := os.MkdirTemp("", "frontier")
	defer os.RemoveAll(dir)
	f, err := frontier.Open(filepath.Join(dir, "frontier.db"), frontier.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()

	q, _ := queue.New(1, f)
	for _, p := range []struct {
		path     string
		priority int
	}{{"/duplicate-family", -5}, {"/unique", 10}, {"/seed", 100}, {"/unique", 10}} {
		u, _ := url.Parse(srv.URL + p.path)
		ctx := colly.NewContext()
		ctx.Put(frontier.PriorityKey, p.priority)
		q.AddRequest(&colly.Request{URL: u, Method: http.MethodGet, Ctx: ctx})
	}
	c := colly.NewCollector(colly.AllowURLRevisit()) // the frontier deduplicates
	c.OnScraped(func(r *colly.Response) {
		fmt.Println("fetched", r.Request.URL.Path)
		f.Done(r.Request.URL.String(), "fetched")
	})
	q.Run(c)
	st, _ := f.Stats()
	fmt.Printf("%+v\n", st)
	// Output:
	// fetched /seed
	// fetched /unique
	// fetched /duplicate-family
	// {Pending:0 InFlight:0 Done:3 Scheduled:0}
}
