package web

import (
	"encoding/csv"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/crawler/report"
)

// hostileReport is a duplicates report whose titles are a crawled
// page's attack on whoever reads the report: markup, a spreadsheet
// formula, a terminal escape sequence.
func hostileReport() *report.Report {
	r := dupReport()
	evil := report.Cluster{ID: "c66", Master: "http://intra/evil", Title: `<script>alert(1)</script>=HYPERLINK("http://evil/")`, Size: 2,
		Formats: map[string]int{"html": 2}}
	formula := report.Cluster{ID: "c67", Master: "http://intra/f", Title: "=cmd|' /C calc'!A0\x1b[2J", Size: 2, Formats: map[string]int{"html": 2}}
	r.Largest = append(r.Largest, evil, formula)
	r.Shared += 2
	return r
}

// TestRedTeamAdminPages: what is not a user's to see — the status page,
// the duplicates report in every format, the statistics, the metrics,
// the change notification — answers a user who is no administrator (no
// groups, other groups, groups that merely contain "admin") exactly the
// same whatever the crawl holds: the answers over a server whose report
// holds hostile titles equal those over a server with another report,
// byte for byte. An administrator gets the hostile titles escaped in
// HTML and as text, never a formula, in CSV.
func TestRedTeamAdminPages(t *testing.T) {
	opts := func(r *report.Report) Options {
		return Options{GroupsHeader: "X-Groups", TrustedProxies: loopback, AdminGroups: []string{"admin"},
			Duplicates: func() (*report.Report, error) { return r, nil }}
	}
	hostile := testServer(t, opts(hostileReport()))
	other := testServer(t, opts(&report.Report{Pages: 1, Clusters: 1}))
	paths := []string{"/status", "/status/duplicates", "/status/duplicates?format=csv", "/status/duplicates?format=json",
		"/status/duplicates?format=xml", "/api/stats", "/metrics"}
	for _, groups := range []string{"", "hr", "staff,hr", "administrators", "ADMIN", "hr,admins"} {
		for _, p := range paths {
			a, b := adminProbe(t, hostile.URL, "GET", p, groups), adminProbe(t, other.URL, "GET", p, groups)
			if a != b {
				t.Errorf("LEAK %s for groups %q:\n  hostile report: %.300s\n  other report:   %.300s", p, groups, a, b)
			}
			if !strings.HasPrefix(a, "403 ") {
				t.Errorf("%s for groups %q: %.200s; want 403", p, groups, a)
			}
		}
		if a := adminProbe(t, hostile.URL, "POST", "/api/changed", groups); !strings.HasPrefix(a, "403 ") {
			t.Errorf("POST /api/changed for groups %q: %.200s; want 403", groups, a)
		}
	}

	_, page := get(t, hostile.URL+"/status/duplicates", "X-Groups", "admin")
	if strings.Contains(page, "<script>alert") || !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("the admin's HTML page does not escape a hostile title:\n%s", page)
	}
	_, body := get(t, hostile.URL+"/status/duplicates?format=csv", "X-Groups", "admin")
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	titles := 0
	for _, row := range rows[1:] {
		for _, cell := range row {
			if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
				t.Errorf("CSV cell %q starts as a formula", cell)
			}
		}
		if strings.Contains(row[len(row)-1], "cmd|") {
			titles++
		}
	}
	if titles == 0 {
		t.Errorf("the CSV lacks the hostile title:\n%s", body)
	}
}

// adminProbe returns the status and body of method path on base, asked
// with the groups header groups ("" sends none).
func adminProbe(t *testing.T, base, method, path, groups string) string {
	t.Helper()
	req, _ := http.NewRequest(method, base+path, strings.NewReader("{}"))
	if groups != "" {
		req.Header.Set("X-Groups", groups)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.Status + " " + resp.Header.Get("Content-Type") + " " + string(b)
}
