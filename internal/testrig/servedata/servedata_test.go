package servedata

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler"
	"github.com/doppel-search/doppel/ranking"
)

// write writes lines to a new file in dir.
func write(t *testing.T, dir, name string, lines ...string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBuild builds a small data directory and serves it as doppel serve
// does: the crawl opens read-only, its summary counts the pages and
// clusters, a search collapses the copies of a cluster into one hit with
// its similar pages, a copy's own line finds it, and the staff host's
// pages are seen only by staff.
func TestBuild(t *testing.T) {
	tmp := t.TempDir()
	docs := write(t, tmp, "docs.jsonl",
		`{"id":"s0","text":"Connecting to the corporate VPN\nInstall the client and sign in with your badge number.\nThe tunnel stays up all day."}`,
		`{"id":"s1","text":"Printer settings for the third floor\nChoose duplex printing to save paper."}`,
		`{"id":"s2","text":"Connecting to the corporate VPN\nInstall the client and sign in with your badge number.\nThe tunnel stays up all day, except on Sunday nights."}`,
		`{"id":"s3","text":"Connecting to the corporate VPN\nInstall the client and sign in with your badge number.\nThe tunnel stays up all day."}`,
		`{"id":"s4","text":"Cafeteria menu of the week\nSoup, salad and a vegetarian dish every day."}`)
	clusters := write(t, tmp, "clusters.jsonl",
		`{"id":"s0","cluster":"c0","master":"s0"}`,
		`{"id":"s1","cluster":"c1","master":"s1"}`,
		`{"id":"s2","cluster":"c0","master":"s0"}`,
		`{"id":"s3","cluster":"c0","master":"s0"}`,
		`{"id":"s4","cluster":"c4","master":"s4"}`)
	o := Options{Docs: docs, Clusters: clusters, Dir: filepath.Join(tmp, "data"), Hosts: 2, Sections: 3,
		Now: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), Settle: 100 * time.Millisecond}
	st, err := Build(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	// s3 is an exact copy of s0 (no difference record); s2 keeps its
	// own line in one.
	if st.Docs != 5 || st.Clusters != 3 || st.Copies != 2 || st.Indexed != 3 {
		t.Errorf("stats %+v, want 5 docs, 3 clusters, 2 copies, 3 indexed", st)
	}
	if _, err := Build(context.Background(), o); err == nil {
		t.Error("Build over an existing directory: no error")
	}
	v, err := crawler.OpenView(o.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	sum, err := v.Summary()
	if err != nil {
		t.Fatal(err)
	}
	if sum.Fetched != 5 || sum.Clusters != 3 || sum.Duplicates != 2 || sum.Queued != 0 || sum.Searchable != 3 {
		t.Errorf("summary %+v", sum)
	}
	o.ensureDefaults()
	staff := func(id string) bool { return strings.HasPrefix(o.URLFor(id), "http://"+Host(1)+"/") }
	if staff("s0") == staff("s2") && staff("s0") == staff("s3") {
		t.Fatal("the test wants the cluster of s0 on both hosts")
	}
	s := ranking.New(v.Index(), ranking.Options{})
	for _, groups := range [][]string{nil, {RestrictedGroup}} {
		res, err := s.Search(context.Background(), ranking.Request{Query: "vpn badge", Groups: groups, Facets: true})
		if err != nil {
			t.Fatal(err)
		}
		visible := 0
		for _, id := range []string{"s0", "s2", "s3"} {
			if groups != nil || !staff(id) {
				visible++
			}
		}
		want := min(visible, 1)
		if len(res.Hits) != want || (want == 1 && res.Hits[0].Similar != visible-1) {
			t.Errorf("groups %v: hits %+v, want one hit with %d similar", groups, res.Hits, visible-1)
		}
	}
	res, err := s.Search(context.Background(), ranking.Request{Query: "sunday nights", Groups: []string{RestrictedGroup}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 || res.Hits[0].URL != o.URLFor("s2") {
		t.Errorf("a copy's own line: %+v, want %s", res.Hits, o.URLFor("s2"))
	}
	if text, ok := v.Text(o.URLFor("s2")); !ok || !strings.Contains(text, "Sunday") {
		t.Errorf("the copy's text %q, %v", text, ok)
	}
}

// TestBuildOrder refuses a clusters file whose member comes before its
// master.
func TestBuildOrder(t *testing.T) {
	tmp := t.TempDir()
	docs := write(t, tmp, "docs.jsonl", `{"id":"a","text":"one two"}`, `{"id":"b","text":"one two"}`)
	clusters := write(t, tmp, "clusters.jsonl", `{"id":"a","cluster":"c","master":"b"}`, `{"id":"b","cluster":"c","master":"b"}`)
	if _, err := Build(context.Background(), Options{Docs: docs, Clusters: clusters, Dir: filepath.Join(tmp, "d"), Settle: time.Millisecond}); err == nil {
		t.Error("no error")
	}
}

// TestBuildServeData builds the data directory of the serving
// benchmarks (docs/measurements.md, "Serving an index of 1M pages"):
//
//	DOPPEL_SERVE_BUILD=/tmp/serve1m DOPPEL_SERVE_DOCS=/tmp/synth1m.jsonl \
//	DOPPEL_SERVE_CLUSTERS=/tmp/synth1m.clusters.jsonl \
//	go test ./internal/testrig/servedata -run TestBuildServeData -v -timeout 0
func TestBuildServeData(t *testing.T) {
	dir := os.Getenv("DOPPEL_SERVE_BUILD")
	if dir == "" {
		t.Skip("DOPPEL_SERVE_BUILD (the data directory to build) is not set")
	}
	start := time.Now()
	st, err := Build(context.Background(), Options{Docs: os.Getenv("DOPPEL_SERVE_DOCS"), Clusters: os.Getenv("DOPPEL_SERVE_CLUSTERS"),
		Dir: dir, Progress: progress{t, start}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v in %v", st, time.Since(start).Round(time.Second))
}

type progress struct {
	t     *testing.T
	start time.Time
}

func (p progress) Write(b []byte) (int, error) {
	p.t.Log(fmt.Sprintf("%v ", time.Since(p.start).Round(time.Second)) + strings.TrimSpace(string(b)))
	return len(b), nil
}
