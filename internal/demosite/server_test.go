package demosite

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHandler(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string) (*http.Response, string) {
		t.Helper()
		resp, err := client.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, string(body)
	}
	tests := []struct {
		path, wantStatus, wantBody string
	}{
		{"/robots.txt", "200", "Disallow: /private/"},
		{"/", "200", `href="/calendar/2026/03"`},
		{"/manual/vpn.html", "200", `href="/print/manual/vpn.html"`},
		{"/manual/vpn.html;jsessionid=123", "200", "Connecting to the VPN"},
		{"/print/manual/vpn.html", "200", "Printed from the Acme intranet."},
		{"/calendar/2026/12", "200", `href="/calendar/2027/01"`},
		{"/deep/1/1", "200", `href="/deep/1/1/1"`},
		{"/loop/a", "302", ""},
		{"/old/vpn", "301", ""},
		{"/missing-report", "200", "could not be found"},
		{"/files/handbook.pdf", "200", "%PDF"},
	}
	for _, tt := range tests {
		resp, body := get(tt.path)
		if got := resp.Status[:3]; got != tt.wantStatus || !strings.Contains(body, tt.wantBody) {
			t.Errorf("GET %s: %s, body %.80q…; want %s containing %q", tt.path, resp.Status, body, tt.wantStatus, tt.wantBody)
		}
	}
	if resp, _ := get("/loop/a"); resp.Header.Get("Location") != "/loop/b" {
		t.Errorf("/loop/a redirects to %q", resp.Header.Get("Location"))
	}
	// Everything is escaped: no page can inject markup through its text.
	if _, body := get("/"); strings.Contains(body, "<script") {
		t.Error("home page contains a script tag")
	}
}
