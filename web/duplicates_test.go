package web

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler/report"
)

// dupReport is a report with a confidential title in it: the master of a
// cluster only HR may search.
func dupReport() *report.Report {
	mar := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	salaries := report.Cluster{ID: "c9", Master: "http://intra/hr/salaries", Title: "Salary bands 2026 (confidential)", Size: 2,
		Formats: map[string]int{"html": 1, "pdf": 1}}
	series := report.Cluster{ID: "c4", Master: "http://intra/n-03", Title: "Notice, March 2026", Size: 3, Formats: map[string]int{"html": 3},
		Dated: 3, Oldest: mar.AddDate(0, -2, 0), Newest: mar, MasterDate: mar}
	return &report.Report{Pages: 10, Clusters: 6, Duplicates: 3, Shared: 2, Largest: []report.Cluster{series, salaries},
		Twins: []report.Cluster{salaries}, TwinClusters: 1, Series: []report.Cluster{series}, SeriesClusters: 1,
		Budget: report.Budget{Fetched: 10, Copies: 3, Share: 0.3}, Index: report.Space{Documents: 7, KeptOut: 3, Text: 1000, KeptOutText: 250}}
}

// TestDuplicatesPage: /status/duplicates is for administrators only —
// anyone else gets 403 and none of the report's titles, in every format;
// an administrator gets the page with every listed cluster, the CSV and
// the JSON of the same report; without a report it is 404, and a report
// that cannot be read is 500 without the error's text.
func TestDuplicatesPage(t *testing.T) {
	want := dupReport()
	ts := testServer(t, Options{GroupsHeader: "X-Groups", TrustedProxies: loopback, AdminGroups: []string{"admin"},
		Duplicates: func() (*report.Report, error) { return want, nil }})
	for _, groups := range []string{"", "hr", "staff,hr"} {
		for _, q := range []string{"", "?format=csv", "?format=json"} {
			code, body := get(t, ts.URL+"/status/duplicates"+q, "X-Groups", groups)
			if code != 403 || strings.Contains(body, "Salary bands") || strings.Contains(body, "Notice, March") {
				t.Errorf("/status/duplicates%s for groups %q: %d; want 403 and no title of the report:\n%s", q, groups, code, body)
			}
		}
	}
	code, body := get(t, ts.URL+"/status/duplicates", "X-Groups", "staff,admin")
	if code != 200 {
		t.Fatalf("admin: %d\n%s", code, body)
	}
	for _, s := range []string{`id="list-largest"`, `id="list-twins"`, `id="list-series"`, "Salary bands 2026 (confidential)",
		"Notice, March 2026", "2026-01-01 – 2026-03-01", "html 1, pdf 1", `href="/cluster/c9"`} {
		if !strings.Contains(body, s) {
			t.Errorf("the admin's page lacks %q", s)
		}
	}
	if n := strings.Count(body, `<tr class="cluster">`); n != len(want.Largest)+len(want.Twins)+len(want.Series) {
		t.Errorf("%d cluster rows, want %d", n, len(want.Largest)+len(want.Twins)+len(want.Series))
	}
	_, body = get(t, ts.URL+"/status/duplicates?format=json", "X-Groups", "admin")
	var got report.Report
	if err := json.Unmarshal([]byte(body), &got); err != nil || !reflect.DeepEqual(&got, want) {
		t.Errorf("JSON: %v\n%+v\nwant\n%+v", err, got, *want)
	}
	_, body = get(t, ts.URL+"/status/duplicates?format=csv", "X-Groups", "admin")
	if rows, err := csv.NewReader(strings.NewReader(body)).ReadAll(); err != nil || len(rows) < 2 || !reflect.DeepEqual(rows[0], report.CSVHeader) {
		t.Errorf("CSV: %v\n%s", err, body)
	}
	if code, _ := get(t, ts.URL+"/status/duplicates?format=xml", "X-Groups", "admin"); code != 400 {
		t.Errorf("format=xml: %d, want 400", code)
	}
	if code, _ := get(t, ts.URL+"/status", "X-Groups", "admin"); code != 200 {
		t.Errorf("/status: %d", code)
	}

	none := testServer(t, Options{GroupsHeader: "X-Groups", TrustedProxies: loopback, AdminGroups: []string{"admin"}})
	if code, _ := get(t, none.URL+"/status/duplicates", "X-Groups", "admin"); code != 404 {
		t.Errorf("without a report: %d, want 404", code)
	}
	broken := testServer(t, Options{GroupsHeader: "X-Groups", TrustedProxies: loopback, AdminGroups: []string{"admin"},
		Duplicates: func() (*report.Report, error) { return nil, errors.New("pages: corrupt store at /secret/path") }})
	if code, body := get(t, broken.URL+"/status/duplicates", "X-Groups", "admin"); code != 500 || strings.Contains(body, "/secret/path") {
		t.Errorf("a report that fails: %d; want 500 without the error's text:\n%s", code, body)
	}
}
