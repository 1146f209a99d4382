package hook

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/gocolly/colly/v2"

	"github.com/doppel-search/doppel/indexer"
)

// site is a loopback web site whose pages a test changes between crawls:
// path → body; a path without a body answers its status (404 if none).
type site struct {
	mu     sync.Mutex
	pages  map[string]string
	status map[string]int
	srv    *httptest.Server
}

func newSite(t *testing.T) *site {
	s := &site{pages: map[string]string{}, status: map[string]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		body, ok := s.pages[r.URL.Path]
		code := s.status[r.URL.Path]
		s.mu.Unlock()
		if !ok {
			if code == 0 {
				code = http.StatusNotFound
			}
			http.Error(w, http.StatusText(code), code)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// set gives path a page of title and text with links (href → anchor text);
// an empty text makes it answer status instead.
func (s *site) set(path, title, text string, status int, links ...[2]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if text == "" {
		delete(s.pages, path)
		s.status[path] = status
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<html><head><title>%s</title></head><body><main><h1>%s</h1><p>%s</p></main><nav>", title, title, text)
	for _, l := range links {
		fmt.Fprintf(&b, `<a href="%s">%s</a> `, l[0], l[1])
	}
	b.WriteString("</nav></body></html>")
	s.pages[path] = b.String()
}

// raw gives path a body as it is.
func (s *site) raw(path, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pages[path] = body
}

// prose returns a paragraph of about 60 words about topic: the same topic
// gives the same text.
func prose(topic string) string {
	var b strings.Builder
	for i := range 6 {
		fmt.Fprintf(&b, "Section %s %d of the %s guide explains what staff should know about %s before they start, where the forms are kept and whom to ask. ",
			[]string{"one", "two", "three", "four", "five", "six"}[i], i, topic, topic)
	}
	return b.String()
}

// TestAttachRecrawl: a user's own collector crawls a site twice through
// one hook, the second night with pages changed, gone (404 and 410), a
// master gone whose copy must take its place in the index, and a shorter
// URL of a page that takes its cluster over. No error; the index and the
// detector show the second night's site; the redirect stub is followed;
// pages carry the anchor texts of the links to them. The 404s and 410s
// reach the hook through colly's OnError, or, with
// ParseHTTPErrorResponse, its OnResponse.
func TestAttachRecrawl(t *testing.T) {
	for _, parseErrors := range []bool{false, true} {
		t.Run(fmt.Sprintf("ParseHTTPErrorResponse=%v", parseErrors), func(t *testing.T) { testAttachRecrawl(t, parseErrors) })
	}
}

func testAttachRecrawl(t *testing.T, parseErrors bool) {
	s := newSite(t)
	base := s.srv.URL
	home := func(extra ...[2]string) {
		links := [][2]string{{"/a", "Travel claims"}, {"/b", "Holiday rules"}, {"/b/print", "Print holiday rules"},
			{"/c", "Parking"}, {"/d", "Canteen menu"}, {"/refresh", "Moved page"}, {"/g/printable", "Security printable"}}
		s.set("/", "Home", prose("welcome"), 0, append(links, extra...)...)
	}
	home()
	s.set("/a", "Travel", prose("travel expenses"), 0)
	s.set("/b", "Holidays", prose("holiday allowance"), 0)
	s.set("/b/print", "Holidays", prose("holiday allowance")+" Printer-friendly version.", 0)
	s.set("/c", "Parking", prose("parking permits"), 0)
	s.set("/d", "Canteen", prose("canteen menus"), 0)
	s.raw("/refresh", `<html><head><meta http-equiv="refresh" content="0; url=/e"></head><body>Moved.</body></html>`)
	s.set("/e", "Moved", prose("relocated offices"), 0)
	s.set("/g/printable", "Security", prose("security badges"), 0)

	bi, err := bleve.NewMemOnly(indexer.Mapping())
	if err != nil {
		t.Fatal(err)
	}
	var h *Hook
	ix, err := indexer.Wrap(bi, indexer.Options{Source: indexer.SourceFunc(func(ctx context.Context, id string) (*indexer.Doc, error) {
		return h.SourceDoc(ctx, id)
	})})
	if err != nil {
		t.Fatal(err)
	}
	col := colly.NewCollector(colly.AllowURLRevisit())
	col.ParseHTTPErrorResponse = parseErrors
	col.OnHTML("a[href]", func(e *colly.HTMLElement) { e.Request.Visit(e.Attr("href")) })
	var mu sync.Mutex
	seen := map[string]Page{}
	var errs []string
	h, err = Attach(t.Context(), col, Options{Index: ix,
		OnPage:  func(p Page) { mu.Lock(); seen[strings.TrimPrefix(p.URL, base)] = p; mu.Unlock() },
		OnError: func(u string, err error) { mu.Lock(); errs = append(errs, u+": "+err.Error()); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	crawl := func(night int) {
		t.Helper()
		if err := col.Visit(base + "/"); err != nil {
			t.Fatalf("night %d: %v", night, err)
		}
		if err := h.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		if err := h.Err(); err != nil || len(errs) > 0 {
			t.Fatalf("night %d: Err %v, OnError %q", night, err, errs)
		}
	}
	search := func(q string) []string {
		t.Helper()
		res, err := bi.Search(bleve.NewSearchRequest(ix.Searchable(indexer.TextQuery(q))))
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, hit := range res.Hits {
			ids = append(ids, strings.TrimPrefix(hit.ID, base))
		}
		slices.Sort(ids)
		return ids
	}

	crawl(1)
	if p, ok := seen["/e"]; !ok || p.Result.Duplicate {
		t.Errorf("night 1: /e, the refresh stub's target, processed %v (%+v); want it followed", ok, p.Result)
	}
	if p := seen["/a"]; !slices.Contains(p.Anchors, "Travel claims") {
		t.Errorf("night 1: /a has anchors %q, want the home page's link text", p.Anchors)
	}
	if p := seen["/b/print"]; !p.Result.Duplicate || p.Result.Master != base+"/b" {
		t.Errorf("night 1: /b/print %+v, want a copy of /b", p.Result)
	}
	for q, want := range map[string][]string{"expenses": {"/a"}, "holiday": {"/b"}, "canteen": {"/d"}, "parking": {"/c"}, "security": {"/g/printable"}} {
		if got := search(q); !slices.Equal(got, want) {
			t.Errorf("night 1: %q finds %q, want %q", q, got, want)
		}
	}

	// The second night: /a rewritten, /b gone (its copy stays), /c gone
	// for good (410), /d not found, /g linked under a shorter URL.
	clear(seen)
	home([2]string{"/g", "Security"})
	s.set("/a", "Mileage", prose("mileage reimbursement"), 0)
	s.set("/b", "", "", http.StatusNotFound)
	s.set("/c", "", "", http.StatusGone)
	s.set("/d", "", "", http.StatusNotFound)
	s.set("/g", "Security", prose("security badges"), 0)
	crawl(2)

	for q, want := range map[string][]string{
		"mileage": {"/a"}, "expenses": nil, // the new version replaced the old
		"holiday": {"/b/print"},        // the copy is master now, and searchable
		"canteen": nil, "parking": nil, // 404 and 410: removed
		"security": {"/g"}, // the shorter URL took its cluster over
	} {
		if got := search(q); !slices.Equal(got, want) {
			t.Errorf("night 2: %q finds %q, want %q", q, got, want)
		}
	}
	for _, gone := range []string{"/b", "/c", "/d"} {
		if _, held := h.Detector().Fingerprint(base + gone); held {
			t.Errorf("night 2: the detector still holds %s", gone)
		}
	}
	if p := seen["/g"]; !p.Result.NewMaster || p.Result.Demoted != base+"/g/printable" {
		t.Errorf("night 2: /g %+v, want it to take over from /g/printable", p.Result)
	}
	if st := h.Detector().Stats(); st.Documents != 6 || st.Replaced == 0 || st.Removed != 3 {
		t.Errorf("night 2: detector stats %+v, want 6 pages (/, /a, /b/print, /e, /g, /g/printable), replacements, 3 removed", st)
	}
}

// TestAttachOnPageCallsHook: OnPage runs with the hook free, so it may
// call the hook (here Reindex, which takes the hook's lock); before, the
// crawl deadlocked.
func TestAttachOnPageCallsHook(t *testing.T) {
	s := newSite(t)
	s.set("/", "Home", prose("welcome"), 0)
	col := colly.NewCollector()
	var h *Hook
	reindexed := 0
	h, err := Attach(t.Context(), col, Options{OnPage: func(p Page) {
		if err := h.Reindex(t.Context(), p); err != nil {
			t.Error(err)
		}
		reindexed++
	}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- col.Visit(s.srv.URL + "/") }()
	select {
	case err := <-done:
		if err != nil || reindexed != 1 || h.Err() != nil {
			t.Errorf("visit: %v, %d pages reindexed from OnPage, Err %v; want 1", err, reindexed, h.Err())
		}
	case <-time.After(time.Minute): // a bound against a hang: a busy machine may take seconds
		t.Fatal("OnPage calling the hook deadlocked")
	}
}

// TestAttachContext: a crawl on a cancelled context processes nothing and
// says why, once.
func TestAttachContext(t *testing.T) {
	s := newSite(t)
	s.set("/", "Home", prose("welcome"), 0, [2]string{"/a", "A"})
	s.set("/a", "A", prose("travel expenses"), 0)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	col := colly.NewCollector()
	col.OnHTML("a[href]", func(e *colly.HTMLElement) { e.Request.Visit(e.Attr("href")) })
	var reported []error
	h, err := Attach(ctx, col, Options{OnError: func(_ string, err error) { reported = append(reported, err) }})
	if err != nil {
		t.Fatal(err)
	}
	if err := col.Visit(s.srv.URL + "/"); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(h.Err(), context.Canceled) || len(reported) != 1 || h.Detector().Stats().Documents != 0 {
		t.Errorf("Err %v, reported %v, %d documents; want context.Canceled once and nothing processed",
			h.Err(), reported, h.Detector().Stats().Documents)
	}
}

// TestAttachUserIDs: a user's program that indexes its pages under their
// URLs into its own index, which Doppel shares (indexer.AddTo), in a
// batch of its own written after the crawl: h.Flush and h.Err say which
// id collides and what to do, and every document of the user's is as the
// user wrote it.
func TestAttachUserIDs(t *testing.T) {
	s, _ := nightlySite(t)
	m := bleve.NewIndexMapping()
	if err := indexer.AddTo(m); err != nil {
		t.Fatal(err)
	}
	index, err := bleve.NewMemOnly(m)
	if err != nil {
		t.Fatal(err)
	}
	defer index.Close()
	records, err := bleve.NewMemOnly(indexer.RecordsMapping())
	if err != nil {
		t.Fatal(err)
	}
	defer records.Close()
	var h *Hook
	ix, err := indexer.Wrap(index, indexer.Options{Records: records, Source: indexer.SourceFunc(func(ctx context.Context, id string) (*indexer.Doc, error) {
		return h.SourceDoc(ctx, id)
	})})
	if err != nil {
		t.Fatal(err)
	}
	col := nightlyCollector()
	user := index.NewBatch()
	col.OnHTML("main", func(e *colly.HTMLElement) {
		if err := user.Index(e.Request.URL.String(), map[string]string{"link": e.Request.URL.String(), "content": e.Text}); err != nil {
			t.Error(err)
		}
	})
	if h, err = Attach(t.Context(), col, Options{Index: ix, OnError: func(string, error) {}}); err != nil {
		t.Fatal(err)
	}
	if err := col.Visit(s.srv.URL + "/"); err != nil {
		t.Fatal(err)
	}
	n := user.Size()
	if err := index.Batch(user); err != nil {
		t.Fatal(err)
	}
	err = h.Flush(t.Context())
	if !errors.Is(err, indexer.ErrUserDocument) || !strings.Contains(err.Error(), s.srv.URL) || !errors.Is(h.Err(), indexer.ErrUserDocument) {
		t.Fatalf("Flush = %v, Err = %v; want ErrUserDocument naming a page URL", err, h.Err())
	}
	req := bleve.NewSearchRequestOptions(bleve.NewMatchAllQuery(), 100, 0, false)
	req.Fields = []string{"link", indexer.FieldCluster}
	res, err := index.Search(req)
	if err != nil {
		t.Fatal(err)
	}
	users := 0
	for _, hit := range res.Hits {
		if hit.Fields["link"] == hit.ID && hit.Fields[indexer.FieldCluster] == nil {
			users++
		}
	}
	if users != n || int(res.Total) != n {
		t.Errorf("after Flush: %d documents, %d of them the user's as written; want the user's %d", res.Total, users, n)
	}
}
