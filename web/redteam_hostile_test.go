package web

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// maxErrorBytes is the longest error answer, whatever the request: it
// names at most 3 problems, each quoting at most 32 bytes of what was
// sent (4 times that once escaped for Go and again for JSON).
const maxErrorBytes = 1024

// TestRedTeamHostileQueries: queries and parameters not in issue 36 —
// deep nesting, thousands of OR terms, huge sizes and pages, cursors,
// NUL bytes, Unicode tricks, long tokens, many parameters — are each
// answered or refused with a status of the documented set and an error of
// bounded size. The time each took is logged, not asserted.
func TestRedTeamHostileQueries(t *testing.T) {
	_, ts := startServer(t, redTeamIndex(t, true), Options{})
	many := func(n int, f func(i int) string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = f(i)
		}
		return strings.Join(parts, "&")
	}
	for _, tc := range []struct {
		name  string
		query string // the raw query string
		want  []int  // acceptable statuses
	}{
		{"nested parentheses, bleve", "syntax=bleve&q=" + url.QueryEscape(strings.Repeat("(", 250)+"vpn"+strings.Repeat(")", 250)), []int{200, 400}},
		{"nested parentheses, plain", "q=" + url.QueryEscape(strings.Repeat("(", 250)+"vpn"+strings.Repeat(")", 250)), []int{200}},
		{"nested +(-( bleve", "syntax=bleve&q=" + url.QueryEscape(strings.Repeat("+(-", 150)+"vpn"+strings.Repeat(")", 150)), []int{200, 400}},
		{"10,000 OR terms", "syntax=bleve&q=" + url.QueryEscape(strings.Repeat("a OR ", 10000)+"vpn"), []int{400, 414}},
		{"200 OR terms within the length", "syntax=bleve&q=" + url.QueryEscape(strings.Repeat("a ", 200)+"vpn"), []int{200, 400}},
		{"size 10^9", "q=vpn&size=1000000000", []int{400}},
		{"size past int", "q=vpn&size=99999999999999999999999", []int{400}},
		{"page 10^9", "q=vpn&page=1000000000", []int{400}},
		{"page -1", "q=vpn&page=-1", []int{400}},
		{"a garbled cursor", "q=vpn&page=2&after=" + url.QueryEscape(strings.Repeat("\xff~!", 1000)), []int{200, 400}},
		{"a cursor of 4 KiB", "q=vpn&page=2&after=" + strings.Repeat("A", 4096), []int{200, 400}},
		{"NUL bytes", "q=" + url.QueryEscape("vpn\x00sabbatical\x00"), []int{200}},
		{"NUL bytes, bleve", "syntax=bleve&q=" + url.QueryEscape("vpn\x00 /sab\x00.*/"), []int{200, 400}},
		{"fullwidth letters", "q=" + url.QueryEscape("ｖｐｎ"), []int{200}},
		{"combining marks", "q=" + url.QueryEscape("v\u0301\u0302\u0303p\u0304n"+strings.Repeat("\u0301", 200)), []int{200}},
		{"invalid UTF-8", "q=" + url.QueryEscape("vpn \xff\xfe\xc3"), []int{200, 400}},
		{"right-to-left override", "q=" + url.QueryEscape("\u202evpn"), []int{200}},
		{"a token of 4 KiB", "q=" + strings.Repeat("a", 4096), []int{200, 400, 414}},
		{"a token of 500 bytes, fuzzy", "syntax=bleve&q=" + strings.Repeat("a", 500) + "~2", []int{400}},
		{"a regex of 500 bytes", "syntax=bleve&q=" + url.QueryEscape("/"+strings.Repeat("[a-z]", 99)+"/"), []int{200, 400}},
		{"1,000 facets parameters", "q=vpn&" + many(1000, func(int) string { return "facets=1" }), []int{200, 400}},
		{"1,000 unknown parameters", "q=vpn&" + many(1000, func(i int) string { return "x" + strings.Repeat("y", 30) + string(rune('a'+i%26)) + "=1" }), []int{400}},
		{"200 bad values, 4 KiB each", many(200, func(int) string { return "since=" + strings.Repeat("z", 4000) }), []int{400, 414}},
		{"every parameter bad", "q=vpn&" + many(len(searchParams), func(i int) string { return searchParams[i] + "=" + strings.Repeat("%ff", 1000) }), []int{400, 414}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			resp, err := http.Get(ts.URL + "/api/search?" + tc.query)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
			took := time.Since(start)
			var answer struct {
				Error string `json:"error"`
			}
			_ = json.Unmarshal(body, &answer)
			t.Logf("%d in %v, %d bytes: %.120q", resp.StatusCode, took.Round(time.Millisecond), len(body), answer.Error)
			ok := false
			for _, s := range tc.want {
				ok = ok || resp.StatusCode == s
			}
			if !ok {
				t.Errorf("status %d (%.200q), want one of %v", resp.StatusCode, answer.Error, tc.want)
			}
			if resp.StatusCode != 200 && len(body) > maxErrorBytes {
				t.Errorf("an error of %d bytes (%.200q…), want at most %d", len(body), body, maxErrorBytes)
			}
		})
	}
}
