package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/page"
)

// row is one record of a fake crawl: its cluster and master for a
// fetched page.
type row struct {
	rec             pages.Record
	cluster, master string
}

type fakeSource []row

func (s fakeSource) EachRecord(fn func(pages.Record, string, string) error) error {
	for _, r := range s {
		if err := fn(r.rec, r.cluster, r.master); err != nil {
			return err
		}
	}
	return nil
}

type fakeIndex []string

func (x fakeIndex) EachID(fn func(string) error) error {
	for _, id := range x {
		if err := fn(id); err != nil {
			return err
		}
	}
	return nil
}

// fetched returns the row of a fetched page.
func fetched(url, title, typ, text, cluster, master string) row {
	return row{pages.Record{Page: page.Page{URL: url, Title: title, Type: typ, Text: text}, Status: pages.Fetched}, cluster, master}
}

// site is a small crawl: a manual page with its PDF and DOCX (a
// cross-format cluster of 3), a monthly series of 3 whose newest month
// is master, two HTML copies of one undated page, a unique page, a page
// skipped for its canonical URL and one that failed.
func site() (fakeSource, fakeIndex) {
	src := fakeSource{
		fetched("http://i/manual", "Manual", "", "manual text", "c1", "http://i/manual"),
		fetched("http://i/manual.pdf", "Manual", "pdf", "manual text and furniture", "c1", "http://i/manual"),
		fetched("http://i/manual.docx", "Manual", "docx", "manual text", "c1", "http://i/manual"),
		fetched("http://i/n-01", "Notice, January 2026", "", "notice", "c2", "http://i/n-03"),
		fetched("http://i/n-02", "Notice, February 2026", "", "notice", "c2", "http://i/n-03"),
		fetched("http://i/n-03", "Notice, March 2026", "", "notice", "c2", "http://i/n-03"),
		fetched("http://i/a", "Copy", "", "copied", "c3", "http://i/a"),
		fetched("http://i/mirror/a", "Copy", "", "copied", "c3", "http://i/a"),
		fetched("http://i/u", "Unique", "", "unique text", "c4", "http://i/u"),
		{pages.Record{Page: page.Page{URL: "http://i/a?print"}, Status: pages.Skipped, Reason: "canonical URL is http://i/a"}, "", ""},
		{pages.Record{Page: page.Page{URL: "http://i/old"}, Status: pages.Skipped, Reason: "HTTP 301 redirect to http://i/a"}, "", ""},
		{pages.Record{Page: page.Page{URL: "http://i/x"}, Status: pages.Failed, Reason: "HTTP 500"}, "", ""},
	}
	// Indexed: the masters, and the PDF (kept as an edited member).
	return src, fakeIndex{"http://i/manual", "http://i/manual.pdf", "http://i/n-03", "http://i/a", "http://i/u"}
}

func TestBuild(t *testing.T) {
	src, index := site()
	r, err := Build(src, index, Options{})
	if err != nil {
		t.Fatal(err)
	}
	jan, mar := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	manual := Cluster{ID: "c1", Master: "http://i/manual", Title: "Manual", Size: 3, Formats: map[string]int{"html": 1, "pdf": 1, "docx": 1}}
	series := Cluster{ID: "c2", Master: "http://i/n-03", Title: "Notice, March 2026", Size: 3, Formats: map[string]int{"html": 3},
		Dated: 3, Oldest: jan, Newest: mar, MasterDate: mar}
	copies := Cluster{ID: "c3", Master: "http://i/a", Title: "Copy", Size: 2, Formats: map[string]int{"html": 2}}
	want := &Report{
		Pages: 9, Clusters: 4, Duplicates: 5, Shared: 3,
		Largest: []Cluster{manual, series, copies}, // size, then master URL
		Twins:   []Cluster{manual}, TwinClusters: 1,
		Series: []Cluster{series}, SeriesClusters: 1, Contained: []Containment{},
		Budget: Budget{Fetched: 9, Copies: 5, Canonical: 1, Share: 6.0 / 10},
		Index: Space{Documents: 5, KeptOut: 4,
			Text:        int64(len("manual text")*2 + len("manual text and furniture") + len("notice")*3 + len("copied")*2 + len("unique text")),
			KeptOutText: int64(len("manual text") + len("notice")*2 + len("copied"))},
	}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("report:\n%+v\nwant\n%+v", r, want)
	}
	if got := manual.FormatList(); got != "docx 1, html 1, pdf 1" {
		t.Errorf("FormatList = %q", got)
	}
}

// TestTop: the lists hold the Top largest, the counts all.
func TestTop(t *testing.T) {
	src, index := site()
	r, err := Build(src, index, Options{Top: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Largest) != 1 || r.Largest[0].ID != "c1" || r.Shared != 3 {
		t.Errorf("Top 1: largest %v of %d, want c1 of 3", r.Largest, r.Shared)
	}
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "Largest clusters (3, the 1 largest)") {
		t.Errorf("the text does not say the list is cut:\n%s", text.String())
	}
}

// TestSeriesNeedsTwoDates: one dated page among undated copies, or
// copies that all name one date, are not a series.
func TestSeriesNeedsTwoDates(t *testing.T) {
	for _, titles := range [][]string{
		{"Notice, January 2026", "Notice"},
		{"Notice, January 2026", "Notice, January 2026"},
		{"Notice", "Notice"},
	} {
		src := fakeSource{
			fetched("http://i/1", titles[0], "", "t", "c", "http://i/1"),
			fetched("http://i/2", titles[1], "", "t", "c", "http://i/1"),
		}
		r, err := Build(src, fakeIndex{"http://i/1"}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if r.SeriesClusters != 0 || r.Series == nil || len(r.Series) != 0 {
			t.Errorf("%q: %d series, want none", titles, r.SeriesClusters)
		}
	}
}

// TestErrors: a store that fails to read fails the report.
func TestErrors(t *testing.T) {
	bad := errors.New("pages: corrupt store")
	src, index := site()
	if _, err := Build(errSource{bad}, index, Options{}); !errors.Is(err, bad) {
		t.Errorf("records error: %v", err)
	}
	if _, err := Build(src, errIndex{bad}, Options{}); !errors.Is(err, bad) {
		t.Errorf("index error: %v", err)
	}
}

type errSource struct{ err error }

func (s errSource) EachRecord(func(pages.Record, string, string) error) error { return s.err }

type errIndex struct{ err error }

func (x errIndex) EachID(func(string) error) error { return x.err }

// TestFormats: JSON reads back into the same report; CSV parses, has
// the header, one row per figure with the report's values and one row per
// listed cluster.
func TestFormats(t *testing.T) {
	src, index := site()
	r, err := Build(src, index, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var js bytes.Buffer
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, r) {
		t.Errorf("JSON read back:\n%+v\nwant\n%+v", back, *r)
	}

	var cs bytes.Buffer
	if err := r.WriteCSV(&cs); err != nil {
		t.Fatal(err)
	}
	text := cs.String()
	rows, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rows[0], CSVHeader) {
		t.Fatalf("CSV header %v", rows[0])
	}
	figures := map[string]string{}
	listed := map[string][]string{}
	for _, row := range rows[1:] {
		if row[0] == "summary" {
			figures[row[1]] = row[2]
			continue
		}
		listed[row[0]] = append(listed[row[0]], row[3])
		if n, err := strconv.Atoi(row[4]); err != nil || n < 2 {
			t.Errorf("cluster row with size %q", row[4])
		}
	}
	for name, v := range map[string]int{"pages": r.Pages, "duplicates": r.Duplicates, "shared_clusters": r.Shared,
		"twin_clusters": r.TwinClusters, "series_clusters": r.SeriesClusters, "budget_canonical": r.Budget.Canonical,
		"index_kept_out": r.Index.KeptOut} {
		if figures[name] != strconv.Itoa(v) {
			t.Errorf("CSV %s = %q, want %d", name, figures[name], v)
		}
	}
	for _, l := range r.Lists() {
		var ids []string
		for _, c := range l.Clusters {
			ids = append(ids, c.ID)
		}
		if !reflect.DeepEqual(listed[l.Section], ids) {
			t.Errorf("CSV %s rows %v, want %v", l.Section, listed[l.Section], ids)
		}
	}
	if !strings.Contains(cs.String(), "series,,,c2,3,html 3,3,2026-01-01,2026-03-01,2026-03-01,http://i/n-03,\"Notice, March 2026\"") {
		t.Errorf("CSV lacks the series row:\n%s", text)
	}
}

// TestContained: a page recorded as contained in a larger one is listed
// with the larger one's URL and title, in text, CSV and JSON; one whose
// larger page is no longer fetched is not; Top cuts the list, not the
// count.
func TestContained(t *testing.T) {
	chapter := fetched("http://i/ch2", "Chapter 2", "", "chapter text", "c6", "http://i/ch2")
	chapter.rec.ContainedIn = "http://i/book.pdf"
	orphan := fetched("http://i/ch9", "Chapter 9", "", "chapter nine", "c7", "http://i/ch9")
	orphan.rec.ContainedIn = "http://i/gone.pdf"
	intro := fetched("http://i/ch1", "Chapter 1", "docx", "chapter one", "c8", "http://i/ch1")
	intro.rec.ContainedIn = "http://i/book.pdf"
	src := fakeSource{
		fetched("http://i/book.pdf", "The Book", "pdf", "chapter one chapter text and more", "c5", "http://i/book.pdf"),
		chapter, orphan, intro,
		{pages.Record{Page: page.Page{URL: "http://i/gone.pdf"}, Status: pages.Failed, Reason: "HTTP 404"}, "", ""},
	}
	for _, c := range []struct {
		top  int
		want []Containment
	}{
		{20, []Containment{
			{URL: "http://i/ch1", Title: "Chapter 1", Format: "docx", Cluster: "c8", In: "http://i/book.pdf", InTitle: "The Book"},
			{URL: "http://i/ch2", Title: "Chapter 2", Format: HTML, Cluster: "c6", In: "http://i/book.pdf", InTitle: "The Book"},
		}},
		{1, []Containment{{URL: "http://i/ch1", Title: "Chapter 1", Format: "docx", Cluster: "c8", In: "http://i/book.pdf", InTitle: "The Book"}}},
	} {
		r, err := Build(src, fakeIndex{}, Options{Top: c.top})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(r.Contained, c.want) || r.ContainedPages != 2 {
			t.Errorf("top %d: contained %+v of %d, want %+v of 2", c.top, r.Contained, r.ContainedPages, c.want)
		}
		var text, cs bytes.Buffer
		if err := r.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		if err := r.WriteCSV(&cs); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text.String(), "http://i/ch1  contained in http://i/book.pdf  The Book") {
			t.Errorf("top %d: text lacks the chapter:\n%s", c.top, text.String())
		}
		if !strings.Contains(cs.String(), "contained,http://i/ch1,,c8,,docx,,,,,http://i/book.pdf,The Book") ||
			!strings.Contains(cs.String(), "summary,contained_pages,2,") {
			t.Errorf("top %d: CSV lacks the chapter:\n%s", c.top, cs.String())
		}
	}
}
