package web

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/doppel-search/doppel/indexer"
)

func TestCrumbs(t *testing.T) {
	for _, tc := range []struct {
		url  string
		want []string
	}{
		{"http://intra/manual/it/vpn.html", []string{"intra", "manual", "it"}},
		{"http://intra/manual/", []string{"intra", "manual"}},
		{"http://intra/", []string{"intra"}},
		{"http://intra", []string{"intra"}},
		{"https://intra:8443/a%20b/c.pdf?x=1", []string{"intra:8443", "a b"}},
		{"file:///srv/share/reports/q1.pdf", []string{"srv", "share", "reports"}},
		{"file:///q1.pdf", []string{"/"}},
		{"smb://fs1/share/dir/file.docx", []string{"fs1", "share", "dir"}},
	} {
		if got := crumbs(tc.url); !slices.Equal(got, tc.want) {
			t.Errorf("crumbs(%q) = %q, want %q", tc.url, got, tc.want)
		}
	}
}

func TestParseShareLink(t *testing.T) {
	for _, tc := range []struct {
		spec    string
		want    ShareLink
		wantErr string
	}{
		{`file:///srv/share/=\\fs1\share\`, ShareLink{"file:///srv/share/", `\\fs1\share\`}, ""},
		{`smb://fs1/share/ = https://files.example.com/share/`, ShareLink{"smb://fs1/share/", "https://files.example.com/share/"}, ""},
		{`file:///srv/share/`, ShareLink{}, "want PREFIX=TARGET"},
		{`=https://x/`, ShareLink{}, "want PREFIX=TARGET"},
		{`/srv/share/=https://x/`, ShareLink{}, "not a URL prefix"},
		{`file:///srv/=ftp://x/`, ShareLink{}, "neither an http(s)"},
		{`file:///srv/=fs1\share`, ShareLink{}, "neither an http(s)"},
	} {
		got, err := ParseShareLink(tc.spec)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("ParseShareLink(%q): %v", tc.spec, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("ParseShareLink(%q) = %v, %v; want an error saying %q", tc.spec, got, err, tc.wantErr)
		case got != tc.want:
			t.Errorf("ParseShareLink(%q) = %+v, want %+v", tc.spec, got, tc.want)
		}
	}
}

func TestOpener(t *testing.T) {
	open := opener([]ShareLink{
		{Prefix: "file:///srv/", Target: "https://files.example.com/all/"},
		{Prefix: "file:///srv/share/", Target: `\\fs1\share\`},
		{Prefix: "smb://fs2/docs/", Target: "https://files.example.com/docs/"},
	})
	for _, tc := range []struct {
		url  string
		want openLink
	}{
		{"http://intra/a.html", openLink{Href: "http://intra/a.html"}},
		// The longest prefix wins; a UNC path is unescaped.
		{"file:///srv/share/q%201/r.pdf", openLink{Href: "file://fs1/share/q 1/r.pdf", Copy: `\\fs1\share\q 1\r.pdf`}},
		{"file:///srv/other/r.pdf", openLink{Href: "https://files.example.com/all/other/r.pdf"}},
		{"smb://fs2/docs/a%20b.docx", openLink{Href: "https://files.example.com/docs/a%20b.docx"}},
		// Unmapped: the link stays, with a path to copy.
		{"javascript:alert(1)", openLink{Href: "#"}},
		{"file:///home/x/a%20b.txt", openLink{Href: "file:///home/x/a%20b.txt", Copy: "/home/x/a b.txt"}},
		{"smb://fs3/s/a.txt", openLink{Href: "smb://fs3/s/a.txt", Copy: "smb://fs3/s/a.txt"}},
	} {
		if got := open(tc.url); got != tc.want {
			t.Errorf("open(%q) = %+v, want %+v", tc.url, got, tc.want)
		}
	}
}

func TestHitDate(t *testing.T) {
	modified := time.Date(2026, 3, 1, 23, 30, 0, 0, time.FixedZone("x", -2*3600)) // 2026-03-02 UTC
	fetchedAt := time.Date(2026, 11, 28, 2, 0, 0, 0, time.UTC)
	fetched := func(u string) time.Time {
		if u == "http://intra/known" {
			return fetchedAt
		}
		return time.Time{}
	}
	for _, tc := range []struct {
		name     string
		fetched  func(string) time.Time
		url      string
		modified time.Time
		want     dated
	}{
		{"its own date first", fetched, "http://intra/known", modified, dated{ISO: "2026-03-02"}},
		{"else fetched", fetched, "http://intra/known", time.Time{}, dated{ISO: "2026-11-28", Fetched: true}},
		{"neither", fetched, "http://intra/unknown", time.Time{}, dated{}},
		{"no fetch dates", nil, "http://intra/known", time.Time{}, dated{}},
	} {
		if got := hitDate(tc.fetched)(tc.url, tc.modified); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestPageLinks(t *testing.T) {
	link := func(n int) string { return fmt.Sprintf("/?page=%d", n) }
	// show renders pages as "1 [2] 3 … 9", with the cursor's link as "3c".
	show := func(ps []pageLink) string {
		var b []string
		for _, p := range ps {
			switch {
			case p.Gap:
				b = append(b, "…")
			case p.Current:
				b = append(b, fmt.Sprintf("[%d]", p.N))
			case p.Link == "/next":
				b = append(b, fmt.Sprintf("%dc", p.N))
			case p.Link == link(p.N):
				b = append(b, fmt.Sprint(p.N))
			default:
				b = append(b, fmt.Sprintf("%d?%s", p.N, p.Link))
			}
		}
		return strings.Join(b, " ")
	}
	for _, tc := range []struct {
		cur, last int
		next      string
		want      string
	}{
		{1, 1, "", ""},
		{1, 2, "/next", "[1] 2c"},
		{1, 9, "/next", "[1] 2c 3 … 9"},
		{5, 9, "/next", "1 … 3 4 [5] 6c 7 … 9"},
		{4, 9, "", "1 2 3 [4] 5 6 … 9"},
		{9, 9, "", "1 … 7 8 [9]"},
	} {
		if got := show(pageLinks(tc.cur, tc.last, link, tc.next)); got != tc.want {
			t.Errorf("pageLinks(%d, %d) = %q, want %q", tc.cur, tc.last, got, tc.want)
		}
	}
}

func TestLastPage(t *testing.T) {
	for _, tc := range []struct {
		total, atLeast int
		exact          bool
		size, cur      int
		more           bool
		want           int
	}{
		{0, 0, true, 10, 1, false, 1},
		{10, 10, true, 10, 1, false, 1},
		{11, 11, true, 10, 1, true, 2},
		{95, 95, true, 10, 3, true, 10},
		{2340, 1800, false, 10, 1, true, 100}, // about: what was counted, at most maxPage
		{500, 30, false, 10, 1, true, 3},
		{500, 30, false, 10, 3, true, 4}, // a next page there is
		{5000, 5000, true, 10, 1, true, maxPage},
	} {
		if got := lastPage(tc.total, tc.atLeast, tc.exact, tc.size, tc.cur, tc.more); got != tc.want {
			t.Errorf("lastPage(%+v) = %d, want %d", tc, got, tc.want)
		}
	}
}

// TestResultPage: each hit shows its breadcrumbs and ISO date, the pages
// are numbered (the current one marked, the next one the cursor's) up to
// the last one the total gives, and a file share's result opens where
// Options.Links says, or keeps its link with a "copy path" button.
func TestResultPage(t *testing.T) {
	ts := testServer(t, Options{})
	_, body := get(t, ts.URL+"/?q=canteen&size=5")
	hit, _, _ := strings.Cut(body[strings.Index(body, `<li class="hit`):], "</li>")
	for _, want := range []string{`<span class="crumb">intra</span>`, `<span class="crumb">news</span>`, `title="http://intra/news/`,
		`<time class="date" datetime="2026-03-01">2026-03-01</time>`} {
		if !strings.Contains(hit, want) {
			t.Errorf("the first hit lacks %s:\n%s", want, hit)
		}
	}
	if strings.Contains(hit, "copy path") {
		t.Errorf("an http result has a copy-path button")
	}
	// 12 canteen news items, 5 a page: pages 1 2 3.
	pager := regexp.MustCompile(`(?s)<nav class="pager".*?</nav>`).FindString(body)
	current := regexp.MustCompile(`<a class="page" aria-current="page"[^>]*>(\d+)</a>`).FindAllStringSubmatch(pager, -1)
	numbers := regexp.MustCompile(`<a class="page" href="([^"]*)"[^>]*>(\d+)</a>`).FindAllStringSubmatch(pager, -1)
	if len(current) != 1 || current[0][1] != "1" || len(numbers) != 2 || numbers[0][2] != "2" || numbers[1][2] != "3" {
		t.Fatalf("page 1 of 12 results at 5 a page numbers its pages %q, current %q:\n%s", numbers, current, pager)
	}
	next := regexp.MustCompile(`<a id="next" href="([^"]*)"`).FindStringSubmatch(pager)
	if next == nil || numbers[0][1] != next[1] || !strings.Contains(next[1], "after=") {
		t.Errorf("page 2's number links to %q, Next to %q: want both the cursor's", numbers[0][1], next)
	}
	// Page 3 by number is the last, with 2 results.
	u, _ := url.Parse(strings.ReplaceAll(numbers[1][1], "&amp;", "&"))
	_, body3 := get(t, ts.URL+"/?"+u.RawQuery)
	if n := strings.Count(body3, `<li class="hit`); n != 2 || strings.Contains(body3, `id="next"`) ||
		!strings.Contains(body3, `aria-current="page" aria-label="Page 3, this page">3</a>`) {
		t.Errorf("page 3: %d hits, a Next link %v, marked current %v", n, strings.Contains(body3, `id="next"`),
			strings.Contains(body3, `aria-label="Page 3, this page"`))
	}
}

// TestFileResultLinks: a file share's results link where Options.Links
// maps them, and an unmapped one keeps its file:// link with its path and
// a "copy path" button.
func TestFileResultLinks(t *testing.T) {
	bi, err := bleve.NewMemOnly(indexer.Mapping())
	if err != nil {
		t.Fatal(err)
	}
	ix, err := indexer.Wrap(bi, indexer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range []string{"file:///srv/share/budget/q1.pdf", "file:///home/ann/budget%20notes.txt"} {
		d := indexer.Doc{ID: id, URL: id, Title: "Budget " + strconv.Itoa(i), Body: "The budget for the year, item " + strconv.Itoa(i)}
		if err := ix.Add(context.Background(), d, indexer.Placement{ID: id, Cluster: "c" + strconv.Itoa(i), Master: id}); err != nil {
			t.Fatal(err)
		}
	}
	_, ts := startServer(t, ix, Options{Links: []ShareLink{{Prefix: "file:///srv/share/", Target: `\\fs1\share\`}}})
	_, body := get(t, ts.URL+"/?q=budget")
	for _, want := range []string{
		`<a class="title" href="file://fs1/share/budget/q1.pdf">`,
		`<span class="path">\\fs1\share\budget\q1.pdf</span> <button type="button" class="copy" data-copy="\\fs1\share\budget\q1.pdf">copy path</button>`,
		`<a class="title" href="file:///home/ann/budget%20notes.txt">`,
		`<button type="button" class="copy" data-copy="/home/ann/budget notes.txt">copy path</button>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the results lack %s", want)
		}
	}
}
