package frontier

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gocolly/colly/v2"
	"github.com/gocolly/colly/v2/queue"
)

// site serves a few pages on 127.0.0.1 linking to each other (with cycles)
// and records every hit.
type site struct {
	mu   sync.Mutex
	hits []string
}

func (s *site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	links := map[string][]string{
		"/":  {"/a", "/b", "/c", "/#top"},
		"/a": {"/", "/b", "/d", "/a"},
		"/b": {"/a", "/c"},
		"/c": {"/d", "/"},
		"/d": {"/", "/a"},
	}
	s.mu.Lock()
	s.hits = append(s.hits, r.URL.Path)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/html")
	var b strings.Builder
	b.WriteString("<html><body>")
	for _, l := range links[r.URL.Path] {
		fmt.Fprintf(&b, `<a href="%s">x</a>`, l)
	}
	b.WriteString("</body></html>")
	w.Write([]byte(b.String()))
}

func (s *site) count() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := map[string]int{}
	for _, h := range s.hits {
		m[h]++
	}
	return m
}

// TestCollyQueue crawls a local site through colly's queue backed by a
// Frontier: every page is fetched exactly once even though colly itself is
// told to allow revisits, and everything ends done.
func TestCollyQueue(t *testing.T) {
	s := &site{}
	srv := httptest.NewServer(s)
	defer srv.Close()
	f := tempFrontier(t)
	q, err := queue.New(2, f)
	if err != nil {
		t.Fatal(err)
	}
	c := colly.NewCollector(colly.AllowURLRevisit())
	var mu sync.Mutex
	var errs []error
	c.OnHTML("a[href]", func(e *colly.HTMLElement) {
		u, err := url.Parse(e.Request.AbsoluteURL(e.Attr("href")))
		if err != nil {
			return
		}
		u.Fragment = "" // stands in for urlnorm.Normalize
		if err := q.AddURL(u.String()); err != nil {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		}
	})
	c.OnScraped(func(r *colly.Response) {
		if err := f.Done(r.Request.URL.String(), "fetched"); err != nil {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		}
	})
	if err := q.AddURL(srv.URL + "/"); err != nil {
		t.Fatal(err)
	}
	if err := q.Run(c); err != nil {
		t.Fatal(err)
	}
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := map[string]int{"/": 1, "/a": 1, "/b": 1, "/c": 1, "/d": 1}
	if got := s.count(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("server hits = %v, want each page once: %v", got, want)
	}
	if st, _ := f.Stats(); st != (Stats{Done: 5}) {
		t.Fatalf("Stats = %+v, want 5 done", st)
	}
}

// TestCollyPriority checks that with one thread colly fetches requests in
// the frontier's priority order (ctx "doppel.priority"), FIFO among equals.
func TestCollyPriority(t *testing.T) {
	s := &site{}
	srv := httptest.NewServer(s)
	defer srv.Close()
	f := tempFrontier(t)
	q, err := queue.New(1, f)
	if err != nil {
		t.Fatal(err)
	}
	prios := []int{1, 5, 3, 5, 0, 9, -2}
	for i, p := range prios {
		u, _ := url.Parse(fmt.Sprintf("%s/p%d", srv.URL, i))
		ctx := colly.NewContext()
		ctx.Put(PriorityKey, p)
		if err := q.AddRequest(&colly.Request{URL: u, Method: http.MethodGet, Ctx: ctx}); err != nil {
			t.Fatal(err)
		}
	}
	if n, _ := q.Size(); n != len(prios) {
		t.Fatalf("queue size = %d, want %d", n, len(prios))
	}
	c := colly.NewCollector(colly.AllowURLRevisit())
	c.OnScraped(func(r *colly.Response) { f.Done(r.Request.URL.String(), "fetched") })
	if err := q.Run(c); err != nil {
		t.Fatal(err)
	}
	want := []string{"/p5", "/p1", "/p3", "/p2", "/p0", "/p4", "/p6"}
	s.mu.Lock()
	got := slices.Clone(s.hits)
	s.mu.Unlock()
	if !slices.Equal(got, want) {
		t.Fatalf("fetch order = %v, want %v", got, want)
	}
}
