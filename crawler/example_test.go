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

// Crawling a site into a data directory. Run again after an interruption
// (Ctrl-C, kill -9) to resume; Open without seeds resumes with the saved
// options.
func Example() {
	text := "Meeting rooms are booked in the shared calendar; cancel a booking you no longer need so that colleagues can use the room."
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, `<main><p>Intranet home.</p><a href="/rooms">Rooms</a> <a href="/rooms?utm_source=mail">Rooms</a> <a href="/print/rooms">Print</a></main>`)
		case "/rooms":
			fmt.Fprintf(w, "<main><p>%s</p></main>", text)
		case "/print/rooms":
			fmt.Fprintf(w, "<main><p>%s Printed copy.</p></main>", text)
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
	st := c.Stats()
	fmt.Printf("fetched %d: %d unique, %d near-duplicates; %d queued\n", st.Fetched, st.Unique, st.Duplicates, st.Queued)
	// Output:
	// fetched 3: 2 unique, 1 near-duplicates; 0 queued
}
