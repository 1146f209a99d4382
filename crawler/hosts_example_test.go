package crawler_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"time"

	"github.com/doppel-search/doppel/crawler"
)

// The crawl's health: failed fetches by class, and what it did per host.
func ExampleCrawler_Hosts() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, `<main><p>Intranet home.</p><a href="/canteen">Canteen</a> <a href="/old-menu">Old menu</a></main>`)
		case "/canteen":
			fmt.Fprint(w, `<main><p>The canteen opens at noon; soup and two hot dishes every day.</p></main>`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	dir, _ := os.MkdirTemp("", "doppel-example")
	defer os.RemoveAll(dir)

	c, err := crawler.Open(dir, crawler.Options{Seeds: []string{srv.URL + "/"}, Delay: time.Millisecond})
	if err != nil {
		panic(err)
	}
	defer c.Close()
	if err := c.Run(context.Background()); err != nil {
		panic(err)
	}
	fmt.Println("failed fetches of class http_4xx:", c.Health().Failures[crawler.ClassHTTP4xx])
	hosts, total, err := c.Hosts(50)
	if err != nil {
		panic(err)
	}
	for _, h := range hosts {
		fmt.Printf("%d of %d hosts: %d pages fetched, %d failed fetches, %d queued\n", len(hosts), total, h.Fetched, h.Errors, h.Queued)
	}
	// Output:
	// failed fetches of class http_4xx: 1
	// 1 of 1 hosts: 2 pages fetched, 1 failed fetches, 0 queued
}
