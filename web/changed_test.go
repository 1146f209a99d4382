package web

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

// post sends body to u as contentType with the header pairs given.
func post(t *testing.T, u, contentType, body string, header ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestAPIChanged: POST /api/changed is for administrators only — a guest
// or an ordinary user gets the same 403 whatever they send, and the crawl
// is not called; an administrator's list (a JSON array or {"urls": …},
// on the main listener or the administrators' one) reaches the crawl and
// its answer comes back per URL; a body that is not a list, or not JSON,
// is refused without calling the crawl; without a crawl the endpoint is
// 404 for administrators and still 403 for others.
func TestAPIChanged(t *testing.T) {
	var calls [][]string
	changed := func(urls []string) ([]ChangedURL, error) {
		calls = append(calls, urls)
		if len(urls) > 2 {
			return nil, fmt.Errorf("too many: %w", ErrBadNotification)
		}
		out := make([]ChangedURL, len(urls))
		for i, u := range urls {
			out[i] = ChangedURL{URL: u, Queued: strings.HasPrefix(u, "http://intra/")}
			if !out[i].Queued {
				out[i].Reason = "outside the crawl's hosts and prefixes"
			}
		}
		return out, nil
	}
	srv, ts := testIntranet(t, Options{GroupsHeader: "X-Groups", TrustedProxies: loopback, AdminGroups: []string{"admin"}, Changed: changed})
	admin := httptest.NewServer(srv.AdminHandler())
	defer admin.Close()
	body := `["http://intra/hr/salaries", "http://other/x"]`
	var refusal string
	for _, groups := range []string{"", "hr", "staff,hr"} {
		for _, b := range []string{body, `{"urls": ["http://intra/a"]}`, `nonsense`} {
			code, got := post(t, ts.URL+"/api/changed", "application/json", b, "X-Groups", groups)
			if refusal == "" {
				refusal = got
			}
			if code != http.StatusForbidden || got != refusal || strings.Contains(got, "intra") {
				t.Errorf("groups %q, body %s: %d %s; want the same 403 for every body", groups, b, code, got)
			}
		}
	}
	if len(calls) != 0 {
		t.Fatalf("the crawl was notified by non-administrators: %v", calls)
	}
	want := map[string][]ChangedURL{"urls": {{URL: "http://intra/hr/salaries", Queued: true},
		{URL: "http://other/x", Reason: "outside the crawl's hosts and prefixes"}}}
	for _, tc := range []struct{ where, body string }{
		{ts.URL, body}, {admin.URL, body}, {ts.URL, `{"urls": ["http://intra/hr/salaries", "http://other/x"]}`},
	} {
		header := []string{"X-Groups", "staff,admin"}
		if tc.where == admin.URL {
			header = nil
		}
		code, got := post(t, tc.where+"/api/changed", "application/json; charset=utf-8", tc.body, header...)
		var res map[string][]ChangedURL
		if err := json.Unmarshal([]byte(got), &res); code != 200 || err != nil || !reflect.DeepEqual(res, want) {
			t.Errorf("admin at %s, %s: %d %s; want 200 %v", tc.where, tc.body, code, got, want)
		}
	}
	calls = nil
	for _, tc := range []struct {
		ctype, body string
		status      int
	}{
		{"application/json", `nonsense`, 400},
		{"application/json", `{"pages": ["http://intra/a"]}`, 400},
		{"application/json", `[1, 2]`, 400},
		{"application/x-www-form-urlencoded", `urls=http://intra/a`, 415},
		{"text/plain", body, 415},
	} {
		if code, got := post(t, ts.URL+"/api/changed", tc.ctype, tc.body, "X-Groups", "admin"); code != tc.status {
			t.Errorf("admin, %s %s: %d %s; want %d", tc.ctype, tc.body, code, got, tc.status)
		}
	}
	if len(calls) != 0 {
		t.Errorf("bad bodies reached the crawl: %v", calls)
	}
	code, got := post(t, ts.URL+"/api/changed", "application/json", `["http://intra/a", "http://intra/b", "http://intra/c"]`, "X-Groups", "admin")
	if code != 400 || !strings.Contains(got, "too many") {
		t.Errorf("a notification the crawl refuses: %d %s; want 400 with its reason", code, got)
	}

	none := testServer(t, Options{GroupsHeader: "X-Groups", TrustedProxies: loopback, AdminGroups: []string{"admin"}})
	if code, _ := post(t, none.URL+"/api/changed", "application/json", body, "X-Groups", "admin"); code != 404 {
		t.Errorf("no crawl, admin: %d, want 404", code)
	}
	if code, got := post(t, none.URL+"/api/changed", "application/json", body, "X-Groups", "hr"); code != 403 || got != refusal {
		t.Errorf("no crawl, ordinary user: %d %s; want the same 403 as with a crawl", code, got)
	}
}
