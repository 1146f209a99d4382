package web

import (
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestNoResultsPage: a search that finds nothing offers the filters to
// drop, each linking to the search without it, and the spelling
// suggestion when there is one; a search with results offers neither.
func TestNoResultsPage(t *testing.T) {
	ts := testServer(t, Options{})
	for _, tc := range []struct {
		query      url.Values
		noResults  bool
		drops      []string // the hrefs of the filters to drop, escaped as in the page
		suggestion bool
	}{
		{url.Values{"q": {"vpn"}}, false, nil, false},
		{url.Values{"q": {"vpn"}, "host": {"nowhere"}}, true, []string{`/?q=vpn`}, false},
		{url.Values{"q": {"vpn"}, "host": {"nowhere"}, "lang": {"xx"}}, true, []string{`/?lang=xx&amp;q=vpn`, `/?host=nowhere&amp;q=vpn`}, false},
		{url.Values{"q": {"vpnn"}, "host": {"nowhere"}}, true, []string{`/?q=vpnn`}, true},
	} {
		code, body := get(t, ts.URL+"/?"+tc.query.Encode())
		if code != 200 {
			t.Errorf("%s: %d", tc.query.Encode(), code)
			continue
		}
		if got := strings.Contains(body, `id="no-results"`); got != tc.noResults {
			t.Errorf("%s: no-results offers shown = %v, want %v", tc.query.Encode(), got, tc.noResults)
		}
		if got := strings.Count(body, `class="drop-filter"`); got != len(tc.drops) {
			t.Errorf("%s: %d filters offered to drop, want %d", tc.query.Encode(), got, len(tc.drops))
		}
		for _, d := range tc.drops {
			if !strings.Contains(body, `<li class="drop-filter"><a href="`+d+`">`) {
				t.Errorf("%s: no offer to drop a filter linking to %s", tc.query.Encode(), d)
			}
		}
		_, sug, _ := strings.Cut(body, `id="suggestion"`)
		_, try, _ := strings.Cut(body, `id="try-suggestion"`)
		if tc.suggestion && (sug == "" || try == "") {
			t.Errorf("%s: suggestion shown %v, offered on the no-results page %v; want both", tc.query.Encode(), sug != "", try != "")
		}
		if !tc.suggestion && try != "" {
			t.Errorf("%s: the no-results page offers a suggestion", tc.query.Encode())
		}
	}
}

// TestAdminSearchBox: the status page's search box searches on the
// administrators' listener too, public documents only, instead of
// answering 404; its query syntax switch is behind "advanced".
func TestAdminSearchBox(t *testing.T) {
	srv, _ := testIntranet(t, Options{})
	admin := httptest.NewServer(srv.AdminHandler())
	defer admin.Close()
	code, body := get(t, admin.URL+"/status")
	if code != 200 || !strings.Contains(body, `<form id="search" action="/"`) {
		t.Fatalf("status page: %d, search form present %v", code, strings.Contains(body, `<form id="search" action="/"`))
	}
	if !strings.Contains(body, `<details id="advanced" class="meta"><summary>advanced</summary>`) {
		t.Errorf("the query syntax switch is not behind a closed \"advanced\"")
	}
	for _, p := range []string{"/?q=salary+vpn", "/?q=vpn", "/suggest.js", "/cluster/c1"} {
		code, body := get(t, admin.URL+p)
		if code != 200 {
			t.Errorf("admin listener %s: %d %.200s", p, code, body)
		}
		if strings.Contains(body, "/hr/") || strings.Contains(body, "Salary") {
			t.Errorf("admin listener %s shows HR documents to whoever connects", p)
		}
	}
	if _, body := get(t, admin.URL+"/?q=vpn&syntax=bleve"); !strings.Contains(body, `<details id="advanced" class="meta" open>`) {
		t.Errorf("a search in bleve syntax hides the switch that says so")
	}
}
