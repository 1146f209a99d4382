package crawler

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/indexer"
)

// badSite links from its home page to every kind of bad response.
func badSite() http.Handler {
	mux := http.NewServeMux()
	html := func(w http.ResponseWriter, body string) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, body)
	}
	links := []string{"/huge", "/binary-as-html", "/malformed", "/error", "/gone", "/slow",
		"/chain/1", "/away", "/copy?ref=mail", "/plain.txt", "/noindex", "/report", "mailto:x@example.com", "http://elsewhere.example/"}
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		b.WriteString("<html><body><main><p>Home of the bad site.</p>")
		for _, l := range links {
			text := "link"
			if l == "/report" {
				text = "Quarterly banana report"
			}
			fmt.Fprintf(&b, `<a href="%s">%s</a> `, l, text)
		}
		b.WriteString("</main></body></html>")
		html(w, b.String())
	})
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		html(w, "<html><body><p>"+strings.Repeat("big words here ", 100000)+"</p></body></html>")
	})
	mux.HandleFunc("/binary-as-html", func(w http.ResponseWriter, r *http.Request) {
		html(w, "\x00\x01\x02\x03\xff\xfe binary garbage \x00\x00")
	})
	mux.HandleFunc("/malformed", func(w http.ResponseWriter, r *http.Request) {
		html(w, "<html><body><main><p>Unclosed <b>tags <div>and a <table><tr><td>cell about salaries and pensions for retired staff members")
	})
	mux.HandleFunc("/error", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", http.StatusInternalServerError) })
	mux.HandleFunc("/gone", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "gone", http.StatusNotFound) })
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
		}
		html(w, "<p>too late</p>")
	})
	mux.HandleFunc("/chain/{n}", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscan(r.PathValue("n"), &n)
		http.Redirect(w, r, fmt.Sprintf("/chain/%d", n+1), http.StatusFound)
	})
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://elsewhere.example/x", http.StatusFound)
	})
	mux.HandleFunc("/copy", func(w http.ResponseWriter, r *http.Request) {
		html(w, `<html><head><link rel="canonical" href="/original"></head><body><main><p>The original text.</p></main></body></html>`)
	})
	mux.HandleFunc("/original", func(w http.ResponseWriter, r *http.Request) {
		html(w, `<html><body><main><p>The original text about the pension scheme for retired staff.</p></main></body></html>`)
	})
	mux.HandleFunc("/plain.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "A plain text note about the library opening hours.\n\nSecond paragraph.")
	})
	mux.HandleFunc("/noindex", func(w http.ResponseWriter, r *http.Request) {
		html(w, `<html><head><meta name="robots" content="noindex"></head><body><p>secret</p></body></html>`)
	})
	mux.HandleFunc("/report", func(w http.ResponseWriter, r *http.Request) {
		html(w, `<html><head><title>Q3</title></head><body><main><p>Revenue grew in the third quarter.</p></main></body></html>`)
	})
	return mux
}

func TestBadResponsesAreRecordedNotFatal(t *testing.T) {
	s := newSite(t, badSite())
	opts := testOptions(s.URL + "/")
	opts.MaxBodyBytes = 100 << 10
	opts.Timeout = 300 * time.Millisecond
	opts.MaxRedirects = 3
	c := crawl(t, t.TempDir(), opts)
	recs := records(t, c)
	for _, tc := range []struct {
		path   string
		status pages.Status
		reason string
	}{
		{"/huge", pages.Fetched, ""}, // its first 100 KiB
		{"/binary-as-html", pages.Skipped, "not an HTML document"},
		{"/malformed", pages.Fetched, ""},
		{"/error", pages.Failed, "HTTP 500"},
		{"/gone", pages.Failed, "HTTP 404"},
		{"/slow", pages.Failed, "Timeout"},
		{"/chain/1", pages.Skipped, "redirect to"},
		{"/chain/4", pages.Skipped, "redirect chain longer than 3"},
		{"/away", pages.Skipped, "redirect out of scope"},
		{"/copy?ref=mail", pages.Skipped, "canonical URL is " + s.URL + "/original"},
		{"/original", pages.Fetched, ""},
		{"/plain.txt", pages.Fetched, ""},
		{"/noindex", pages.Skipped, "noindex"},
	} {
		r, ok := recs[s.URL+tc.path]
		if !ok || r.Status != tc.status || !strings.Contains(r.Reason, tc.reason) {
			t.Errorf("%s: recorded %v as %q %q, want %q %q", tc.path, ok, r.Status, r.Reason, tc.status, tc.reason)
		}
	}
	if r := recs[s.URL+"/huge"]; !r.Truncated || len(r.Text) > 100<<10 || len(r.Text) < 90<<10 {
		t.Errorf("/huge: truncated %v, %d bytes of text; want its first 100 KiB", r.Truncated, len(r.Text))
	}
	if _, ok := recs[s.URL+"/chain/5"]; ok {
		t.Error("followed the redirect chain past MaxRedirects")
	}
	for u := range recs {
		if !strings.HasPrefix(u, s.URL) {
			t.Errorf("recorded out-of-scope URL %s", u)
		}
	}
	// Anchor text is a feature of the page it points to: /report does not
	// contain "banana", the link to it does (and so does the home page).
	req := bleve.NewSearchRequest(c.Index().Searchable(indexer.TextQuery("banana")))
	res, err := c.Index().Bleve().Search(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Total == 0 || res.Hits[0].ID != s.URL+"/report" {
		t.Errorf("search for the anchor text found %v, want /report first", res.Hits)
	}
}

// TestSessionIDLoopBounded: every page links to itself under a fresh
// session token in a parameter the normalizer does not know, so every URL
// is new. The pages are near-duplicates of each other, and the crawl stops
// following the template once it has produced its near-duplicate budget.
func TestSessionIDLoopBounded(t *testing.T) {
	n := 0
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/account" {
			http.NotFound(w, r)
			return
		}
		n++
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<html><body><main><p>Your account overview. Balance, recent orders and saved addresses are shown below.</p>
<a href="/account?tok=%016x%016x">Refresh</a></main></body></html>`, n*7919+1000003, n*104729)
	}))
	opts := testOptions(s.URL + "/account")
	opts.MaxDepth = 100000
	opts.Parallelism = 1
	c := crawl(t, t.TempDir(), opts)
	limit := opts.Traps.WithDefaults().MaxDuplicatesPerTemplate
	if st := c.Stats(); st.Fetched > int64(limit)+2 || st.Duplicates < int64(limit) {
		t.Errorf("session-id loop: %+v, want about %d pages fetched", st, limit+1)
	}
}

func TestAccessGroupsByPrefix(t *testing.T) {
	s := newSite(t, badSite())
	opts := testOptions(s.URL + "/")
	opts.Timeout = 300 * time.Millisecond
	opts.Groups = []GroupRule{{Prefix: s.URL + "/report", Groups: []string{"finance", "board"}}}
	c := crawl(t, t.TempDir(), opts)
	for _, tc := range []struct {
		path   string
		groups string
	}{{"/report", "finance board"}, {"/original", indexer.PublicGroup}} {
		d, err := c.Index().Bleve().Document(s.URL + tc.path)
		if err != nil || d == nil {
			t.Fatalf("%s not indexed: %v", tc.path, err)
		}
		req := bleve.NewSearchRequest(bleve.NewDocIDQuery([]string{s.URL + tc.path}))
		req.Fields = []string{indexer.FieldGroups}
		res, err := c.Index().Bleve().Search(req)
		if err != nil || len(res.Hits) != 1 {
			t.Fatalf("%s: %v %v", tc.path, res, err)
		}
		var got []string
		switch v := res.Hits[0].Fields[indexer.FieldGroups].(type) {
		case string:
			got = []string{v}
		case []any:
			for _, g := range v {
				got = append(got, g.(string))
			}
		}
		if strings.Join(got, " ") != tc.groups {
			t.Errorf("%s has groups %q, want %q", tc.path, got, tc.groups)
		}
	}
}
