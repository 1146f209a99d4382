package main

import (
	"encoding/csv"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler"
	"github.com/doppel-search/doppel/crawler/report"
	"github.com/doppel-search/doppel/internal/demosite"
	"github.com/doppel-search/doppel/page/pagedate"
)

// TestReport crawls the demo intranet and checks, against the crawl's
// export and the site's own pages:
//   - each series of notices stands by its newest issue: the page whose
//     title names the latest date is its cluster's master ("IT
//     maintenance window, December 2026"), the other issues fetched, in
//     its cluster and listed by export as before;
//   - doppel report's JSON: the cluster counts, the largest clusters in
//     order, the series (clusters whose pages' titles name two dates or
//     more), the budget spent on copies and the pages kept out of the
//     index, all computed here from the export and the served titles;
//   - the CSV parses into the same figures, the text names every
//     series' master;
//   - bad flags exit 2, a directory without a crawl and a damaged
//     pages.db exit 1 with one line saying so.
func TestReport(t *testing.T) {
	site, dir, _ := crawled(t, fullCrawl)
	entries := exportEntries(t, dir)

	// The site's series, by family: each issue's date from its title.
	newest := map[string]demosite.Page{} // family → newest issue
	family := map[string]string{}        // path → family, for the notices
	for _, p := range demosite.Pages() {
		d, ok := pagedate.Find(p.Title)
		if !ok || p.Family == "" || !strings.HasPrefix(p.Path, "/notices/") {
			continue
		}
		family[p.Path] = p.Family
		if n, seen := newest[p.Family]; !seen || d.After(mustDate(t, n.Title)) {
			newest[p.Family] = p
		}
	}
	if len(newest) < 4 {
		t.Fatalf("the demo has %d series of notices, want at least 4", len(newest))
	}
	clusterOf := map[string]string{}
	masterOf := map[string]string{}
	for _, e := range entries {
		if e.Status == "fetched" {
			clusterOf[e.URL], masterOf[e.URL] = e.Cluster, e.Master
		}
	}
	for fam, p := range newest {
		want := site + p.Path
		if _, ok := clusterOf[want]; !ok {
			t.Errorf("%s: the newest issue %s was not fetched", fam, p.Path)
			continue
		}
		members := 0
		for path, f := range family {
			u := site + path
			if f != fam || clusterOf[u] != clusterOf[want] {
				continue
			}
			members++
			if masterOf[u] != want {
				t.Errorf("%s: master %s, want the newest issue %s (%q)", path, masterOf[u], want, p.Title)
			}
		}
		if members < 6 {
			t.Errorf("%s: %d issues in the newest one's cluster, want at least 6", fam, members)
		}
	}
	if p := newest["/notices/it/maintenance-2026-01.html"]; p.Title != "IT maintenance window, December 2026" {
		t.Errorf("the maintenance series' newest issue is %q", p.Title)
	}

	// The expected report, from the export and the served titles.
	titles := servedTitles(t, entries)
	size := map[string]int{}
	dates := map[string]map[time.Time]bool{}
	var copies, canonical, keptOut, documents int
	for _, e := range entries {
		switch e.Status {
		case "fetched":
			size[e.Cluster]++
			if e.Master != e.URL {
				copies++
			}
			if e.Indexed {
				documents++
			} else {
				keptOut++
			}
			if d, ok := pagedate.Find(titles[e.URL]); ok {
				if dates[e.Cluster] == nil {
					dates[e.Cluster] = map[time.Time]bool{}
				}
				dates[e.Cluster][d] = true
			}
		case "skipped":
			if strings.HasPrefix(e.Reason, "canonical URL is ") {
				canonical++
			}
		}
	}
	type sized struct {
		id, master string
		size       int
	}
	var shared []sized
	var wantSeries []string
	for _, e := range entries {
		if e.Status == "fetched" && e.Master == e.URL && size[e.Cluster] > 1 {
			shared = append(shared, sized{e.Cluster, e.URL, size[e.Cluster]})
			if len(dates[e.Cluster]) >= 2 {
				wantSeries = append(wantSeries, e.Cluster)
			}
		}
	}
	slices.SortFunc(shared, func(a, b sized) int {
		if a.size != b.size {
			return b.size - a.size
		}
		return strings.Compare(a.master, b.master)
	})

	code, out, stderr := doppel(t, "report", "--data", dir, "--format", "json", "--top", "5")
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	var r report.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("report JSON: %v\n%s", err, out)
	}
	if r.Pages != len(clusterOf) || r.Clusters != len(size) || r.Duplicates != copies || r.Shared != len(shared) {
		t.Errorf("report: %d pages, %d clusters (%d shared), %d near-duplicates; want %d, %d (%d), %d",
			r.Pages, r.Clusters, r.Shared, r.Duplicates, len(clusterOf), len(size), len(shared), copies)
	}
	if len(r.Largest) != min(5, len(shared)) {
		t.Fatalf("%d largest clusters listed, want %d", len(r.Largest), min(5, len(shared)))
	}
	for i, c := range r.Largest {
		if w := shared[i]; c.ID != w.id || c.Master != w.master || c.Size != w.size || c.Title != titles[w.master] {
			t.Errorf("largest #%d: %s %s size %d %q; want %s %s size %d %q", i+1, c.ID, c.Master, c.Size, c.Title, w.id, w.master, w.size, titles[w.master])
		}
	}
	var gotSeries []string
	for _, c := range r.Series {
		gotSeries = append(gotSeries, c.ID)
		if !c.MasterDate.Equal(c.Newest) || c.Dated != size[c.ID] {
			t.Errorf("series %s (%s): master's date %v, newest %v, %d of %d dated; want the newest master, all dated", c.ID, c.Master, c.MasterDate, c.Newest, c.Dated, size[c.ID])
		}
	}
	slices.Sort(gotSeries)
	slices.Sort(wantSeries)
	if r.SeriesClusters != len(wantSeries) || len(wantSeries) > 5 || !slices.Equal(gotSeries, wantSeries) {
		t.Errorf("series %v (%d), want %v", gotSeries, r.SeriesClusters, wantSeries)
	}
	if r.TwinClusters != 0 {
		t.Errorf("%d cross-format clusters in an intranet of HTML pages", r.TwinClusters)
	}
	if b := r.Budget; b.Fetched != len(clusterOf) || b.Copies != copies || b.Canonical != canonical {
		t.Errorf("budget %+v, want %d fetched, %d copies, %d canonical", b, len(clusterOf), copies, canonical)
	}
	if x := r.Index; x.Documents != documents || x.KeptOut != keptOut || keptOut == 0 || x.KeptOutText <= 0 || x.KeptOutText >= x.Text {
		t.Errorf("index %+v, want %d documents, %d kept out (some), their text a part of the whole", x, documents, keptOut)
	}

	// CSV: the same figures.
	code, out, stderr = doppel(t, "report", "--data", dir, "--format", "csv")
	if code != 0 {
		t.Fatalf("report --format csv: exit %d: %s", code, stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("CSV: %v\n%s", err, out)
	}
	figures := map[string]string{}
	series := 0
	for _, row := range rows[1:] {
		if row[0] == "summary" {
			figures[row[1]] = row[2]
		}
		if row[0] == "series" {
			series++
		}
	}
	if figures["pages"] != strconv.Itoa(r.Pages) || figures["duplicates"] != strconv.Itoa(r.Duplicates) || figures["series_clusters"] != strconv.Itoa(r.SeriesClusters) || series != len(wantSeries) {
		t.Errorf("CSV figures %v with %d series rows; want pages %d, duplicates %d, %d series", figures, series, r.Pages, r.Duplicates, len(wantSeries))
	}

	// Text: every series' master, the maintenance series' newest month.
	code, out, stderr = doppel(t, "report", "--data", dir)
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	for _, c := range r.Series {
		if !regexp.MustCompile(`(?m)^  \d+ +\d+ +\S+ +\S+ +\S+ +` + regexp.QuoteMeta(c.Master) + ` `).MatchString(out) {
			t.Errorf("the text's series lack %s:\n%s", c.Master, out)
		}
	}
	if !strings.Contains(out, "IT maintenance window, December 2026") {
		t.Errorf("the text does not show the maintenance series' newest month:\n%s", out)
	}

	// Bad flags, no crawl, a damaged store.
	for _, args := range [][]string{{"report"}, {"report", "--data", dir, "--format", "xml"}, {"report", "--data", dir, "--top", "0"}} {
		if code, _, _ := doppel(t, args...); code != 2 {
			t.Errorf("doppel %s: exit %d, want 2", strings.Join(args, " "), code)
		}
	}
	if code, _, stderr := doppel(t, "report", "--data", t.TempDir()); code != 1 || !strings.Contains(stderr, "no earlier crawl") {
		t.Errorf("report on an empty directory: exit %d, %q", code, stderr)
	}
	damaged := filepath.Join(t.TempDir(), "data")
	copyDir(t, dir, damaged)
	db := filepath.Join(damaged, "pages.db")
	b, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(db, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr = doppel(t, "report", "--data", damaged)
	if lines := strings.Split(strings.TrimSpace(stderr), "\n"); code != 1 || out != "" || len(lines) != 1 || !strings.Contains(stderr, "pages.db") || !strings.Contains(stderr, "doppel check") {
		t.Errorf("report on a damaged pages.db: exit %d, stdout %q, stderr %q; want 1, nothing, one line naming pages.db and doppel check", code, out, stderr)
	}
}

// mustDate returns the date title names.
func mustDate(t *testing.T, title string) time.Time {
	t.Helper()
	d, ok := pagedate.Find(title)
	if !ok {
		t.Fatalf("%q names no date", title)
	}
	return d
}

// servedTitles returns the <title> of every fetched page, as the site
// serves it.
func servedTitles(t *testing.T, entries []crawler.Entry) map[string]string {
	t.Helper()
	re := regexp.MustCompile(`<title>([^<]*)</title>`)
	out := map[string]string{}
	for _, e := range entries {
		if e.Status != "fetched" {
			continue
		}
		resp, err := http.Get(e.URL)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if m := re.FindSubmatch(body); m != nil {
			out[e.URL] = html.UnescapeString(string(m[1]))
		}
	}
	return out
}
