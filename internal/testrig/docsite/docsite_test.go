package docsite

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"

	"github.com/doppel-search/doppel/dedup/eval"
)

func TestPagesAreDeterministicAndUnique(t *testing.T) {
	for _, opts := range []Options{{}, {Large: true}} {
		a, b := Pages(opts), Pages(opts)
		if len(a) != len(b) {
			t.Fatalf("%+v: %d then %d pages", opts, len(a), len(b))
		}
		paths := map[string]bool{}
		for i, p := range a {
			if p.Path != b[i].Path || p.Title != b[i].Title || p.Text != b[i].Text {
				t.Fatalf("%+v: page %d differs between calls", opts, i)
			}
			if paths[p.Path] || p.Title == "" || p.Text == "" || p.Lang == "" {
				t.Fatalf("%+v: page %q: duplicate path or empty title, text or lang", opts, p.Path)
			}
			paths[p.Path] = true
			if p.Of != "" && !paths[p.Of] && !slices.ContainsFunc(a, func(q Page) bool { return q.Path == p.Of }) {
				t.Errorf("%s: Of %s is no page", p.Path, p.Of)
			}
		}
		lo, hi := 300, 500
		if opts.Large {
			lo, hi = 2000, 4000
		}
		if len(a) < lo || len(a) > hi {
			t.Errorf("%+v: %d pages, want %d..%d", opts, len(a), lo, hi)
		}
	}
}

// TestTextIsWhatTheKitExtracts renders every page of both sizes through
// the handler and reads it as the kit's `ndd extract` does (its
// extraction, copied below): the title and main text must be the ground
// truth of Pages.
func TestTextIsWhatTheKitExtracts(t *testing.T) {
	for _, opts := range []Options{{}, {Large: true}} {
		h := Handler(opts)
		for _, p := range Pages(opts) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", p.Path, nil))
			if rec.Code != 200 {
				t.Fatalf("%s: status %d", p.Path, rec.Code)
			}
			title, text, err := kitExtract(rec.Body.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if title != p.Title || text != p.Text {
				t.Fatalf("%s: extracted title %q, text\n%s\nwant %q, text\n%s", p.Path, title, text, p.Title, p.Text)
			}
			if !strings.Contains(rec.Body.String(), `<html lang="`+p.Lang+`">`) {
				t.Errorf("%s: no <html lang=%q>", p.Path, p.Lang)
			}
		}
	}
}

// kitExtract is ExtractHTML of the kit (kit/internal/site/extract.go)
// without the redirect check: the title, and the visible text of the first
// content container without boilerplate, one line per block element.
func kitExtract(b []byte) (title, text string, err error) {
	d, err := goquery.NewDocumentFromReader(bytes.NewReader(b))
	if err != nil {
		return "", "", err
	}
	title = strings.Join(strings.Fields(d.Find("title").First().Text()), " ")
	var main *goquery.Selection
	for _, c := range []string{"main", "[role=main]", "#main-content", "#page-content", "div.body", "article"} {
		if s := d.Find(c).First(); s.Length() > 0 {
			main = s
			break
		}
	}
	if main == nil {
		main = d.Find("body").First()
	}
	main.Find("script, style, noscript, template, nav, header, footer, [role=navigation], .navheader, .navfooter").Remove()
	var sb strings.Builder
	for _, n := range main.Nodes {
		visible(n, &sb)
	}
	var lines []string
	for _, l := range strings.Split(sb.String(), "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			lines = append(lines, l)
		}
	}
	return title, strings.Join(lines, "\n"), nil
}

var blockTags = map[string]bool{"p": true, "div": true, "section": true, "li": true, "ul": true, "ol": true, "dl": true, "dt": true, "dd": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "pre": true, "table": true, "tr": true, "td": true, "th": true,
	"br": true, "hr": true, "blockquote": true, "details": true, "summary": true, "figure": true, "main": true, "article": true, "aside": true}

func visible(n *html.Node, sb *strings.Builder) {
	switch n.Type {
	case html.TextNode:
		sb.WriteString(n.Data)
		return
	case html.CommentNode:
		return
	}
	blk := n.Type == html.ElementNode && blockTags[n.Data]
	if blk {
		sb.WriteByte('\n')
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		visible(c, sb)
	}
	if blk {
		sb.WriteByte('\n')
	}
}

// TestEveryPageIsLinked follows the links of the served site from the home
// page: every page is reached, and no link leads to a missing page.
func TestEveryPageIsLinked(t *testing.T) {
	srv := httptest.NewServer(Handler(Options{}))
	defer srv.Close()
	pages := Pages(Options{})
	seen := map[string]bool{"/": true}
	queue := []string{"/"}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		resp, err := http.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("%s: status %d", p, resp.StatusCode)
			continue
		}
		d, _ := goquery.NewDocumentFromReader(bytes.NewReader(body))
		base, _ := url.Parse(srv.URL + p)
		d.Find("a[href]").Each(func(_ int, s *goquery.Selection) {
			href, _ := s.Attr("href")
			u, err := base.Parse(href)
			if err != nil || u.Host != base.Host || seen[u.Path] {
				return
			}
			seen[u.Path] = true
			queue = append(queue, u.Path)
		})
	}
	for _, p := range pages {
		if !seen[p.Path] {
			t.Errorf("%s is linked from no page", p.Path)
		}
	}
}

// TestCopies checks the near-duplicates the site is made of against exact
// ground truth (resemblance of word 5-shingles): re-exports and English
// copies are copies (≥ 0.9) of their original, translations are not, and
// sibling intrinsics and iterator types with names of their own are copies
// of each other.
func TestCopies(t *testing.T) {
	pages := Pages(Options{})
	truth, err := eval.ComputeTruth(Docs(pages), 0.8, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := func(a, b string) float64 {
		p, _ := truth.Lookup(a, b)
		return p.Jaccard
	}
	byPath := map[string]Page{}
	for _, p := range pages {
		byPath[p.Path] = p
	}
	translations, copies := 0, 0
	for _, p := range pages {
		switch {
		case p.Of == "":
		case strings.HasPrefix(p.Path, "/manual/") && p.Translated:
			translations++
			if r := res(p.Path, p.Of); r >= 0.5 {
				t.Errorf("translation %s resembles %s at %.3f", p.Path, p.Of, r)
			}
		case strings.HasPrefix(p.Path, "/manual/"):
			copies++
			if p.Text != byPath[p.Of].Text || p.Title != byPath[p.Of].Title {
				t.Errorf("untranslated %s is not an exact copy of %s", p.Path, p.Of)
			}
		default:
			if r := res(p.Path, p.Of); r < 0.9 {
				t.Errorf("re-export %s resembles %s at %.3f, want ≥ 0.9", p.Path, p.Of, r)
			}
		}
	}
	if translations < 36 || copies < 18 {
		t.Errorf("%d translated and %d untranslated manual pages, want at least 36 and 18", translations, copies)
	}
	for _, pair := range [][2]string{
		{"/rust/core/arch/x86_64/fn._mm512_slli_epi16.html", "/rust/core/arch/x86/fn._mm512_slli_epi16.html"},
		{"/rust/core/iter/index.html", "/rust/std/iter/index.html"},
		{"/rust/core/char/struct.EscapeDefault.html", "/rust/core/char/struct.EscapeDebug.html"},
		{"/rust/core/arch/aarch64/fn.vcreate_f64.html", "/rust/core/arch/aarch64/fn.vcreate_s16.html"},
	} {
		if r := res(pair[0], pair[1]); r < 0.9 {
			t.Errorf("%s and %s resemble at %.3f, want ≥ 0.9", pair[0], pair[1], r)
		}
	}
	siblings := 0
	for _, p := range truth.Pairs() {
		a, b := byPath[p.A], byPath[p.B]
		if p.Jaccard >= 0.9 && strings.Contains(a.Path, "/arch/") && path(a.Path) != path(b.Path) {
			siblings++
		}
	}
	if siblings < 20 {
		t.Errorf("%d pairs of intrinsics with different names at ≥ 0.9, want at least 20", siblings)
	}
}

// path is the file name of a URL path.
func path(p string) string { return p[strings.LastIndex(p, "/")+1:] }

func TestWriteJSONL(t *testing.T) {
	var b bytes.Buffer
	pages := Pages(Options{})
	if err := WriteJSONL(&b, pages[:2], "http://127.0.0.1:1"); err != nil {
		t.Fatal(err)
	}
	want := `{"id":"/","url":"http://127.0.0.1:1/","title":"Documentation",`
	if !strings.HasPrefix(b.String(), want) || strings.Count(b.String(), "\n") != 2 {
		t.Errorf("WriteJSONL wrote %q…, want %q…", b.String()[:80], want)
	}
}
