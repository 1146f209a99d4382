package clean

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/doppel-search/doppel/dedup"
)

func TestTemplatesStrip(t *testing.T) {
	chrome := []string{"Home · News · Contact", "© 2026 ACME Corp"}
	page := func(i int) []string {
		return append([]string{fmt.Sprintf("Unique paragraph number %c of the site.", 'a'+i)}, chrome...)
	}
	tests := []struct {
		name  string
		opts  TemplateOptions
		pages int // pages of "h" observed
		in    []string
		want  []string
	}{
		{"no stats", TemplateOptions{}, 0, page(20), page(20)},
		{"below MinPages", TemplateOptions{}, 4, page(20), page(20)},
		{"at MinPages", TemplateOptions{}, 5, page(20), page(20)[:1]},
		{"MinPages option", TemplateOptions{MinPages: 2}, 2, page(20), page(20)[:1]},
		{"digits and case and spaces read alike", TemplateOptions{}, 6,
			[]string{"Mine", "©  2019 acme CORP"}, []string{"Mine"}},
		{"all template: keep all", TemplateOptions{}, 6, chrome, chrome},
		{"share at MaxShare is kept", TemplateOptions{MaxShare: 1}, 6, page(20), page(20)},
		{"empty", TemplateOptions{}, 6, nil, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tp := NewTemplates(tt.opts)
			for i := range tt.pages {
				tp.Observe("h", page(i))
			}
			tp.Observe("other", chrome) // other hosts do not count
			in := append([]string(nil), tt.in...)
			if got := tp.Strip("h", in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Strip = %q, want %q", got, tt.want)
			}
			if !reflect.DeepEqual(in, tt.in) {
				t.Errorf("Strip modified its input")
			}
			if got := tp.Pages("h"); got != tt.pages {
				t.Errorf("Pages = %d, want %d", got, tt.pages)
			}
		})
	}
}

// A block repeated on one page counts once; the threshold is "more than
// MaxShare", checked against a brute-force count.
func TestTemplatesShareOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tp := NewTemplates(TemplateOptions{MinPages: 1, MaxShare: 0.3})
	const pages = 40
	var all [][]string
	for range pages {
		var blocks []string
		for b := range 10 {
			if rng.IntN(b+2) == 0 {
				blocks = append(blocks, fmt.Sprintf("block %c", 'a'+b), fmt.Sprintf("block %c", 'a'+b))
			}
		}
		all = append(all, blocks)
		tp.Observe("h", blocks)
	}
	for b := range 10 {
		block := fmt.Sprintf("block %c", 'a'+b)
		count := 0
		for _, blocks := range all {
			for _, x := range blocks {
				if x == block {
					count++
					break
				}
			}
		}
		isTemplate := float64(count) > 0.3*pages
		got := tp.Strip("h", []string{block, "never seen"})
		if gotTemplate := len(got) == 1; gotTemplate != isTemplate {
			t.Errorf("%s on %d/%d pages: template %v, want %v", block, count, pages, gotTemplate, isTemplate)
		}
	}
}

func TestTemplatesZeroValue(t *testing.T) {
	var tp Templates
	for range 5 {
		tp.Observe("h", []string{"chrome", "x"})
	}
	if got := tp.Strip("h", []string{"chrome", "mine"}); !reflect.DeepEqual(got, []string{"mine"}) {
		t.Errorf("Strip = %q", got)
	}
}

func TestTemplatesRoundTrip(t *testing.T) {
	tp := NewTemplates(TemplateOptions{MinPages: 2})
	for i := range 3 {
		tp.Observe("a", []string{"chrome", fmt.Sprint("page ", string(rune('a'+i)))})
		tp.Observe("b", []string{"other chrome"})
	}
	data, err := tp.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	back := NewTemplates(TemplateOptions{MinPages: 2})
	if err := back.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.hosts, tp.hosts) {
		t.Errorf("round trip changed the statistics")
	}
	if got := back.Strip("a", []string{"chrome", "new"}); !reflect.DeepEqual(got, []string{"new"}) {
		t.Errorf("Strip after round trip = %q", got)
	}
	for _, bad := range []string{``, `{`, `{"version":2,"hosts":{}}`, `{"version":1,"hosts":{"h":null}}`, `{"version":1,"hosts":{"h":{"pages":-1}}}`} {
		if err := back.UnmarshalBinary([]byte(bad)); err == nil {
			t.Errorf("UnmarshalBinary(%q) succeeded", bad)
		}
	}
	if back.Pages("a") != 3 {
		t.Errorf("failed UnmarshalBinary changed the statistics")
	}
}

func TestTemplatesConcurrent(t *testing.T) {
	tp := NewTemplates(TemplateOptions{})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 100 {
				tp.Observe("h", []string{"chrome", fmt.Sprint(g, i)})
				tp.Strip("h", []string{"chrome", "x"})
			}
		})
	}
	wg.Wait()
	if got := tp.Pages("h"); got != 400 {
		t.Errorf("Pages = %d, want 400", got)
	}
}

// site renders pages of one intranet site: a big template inside <main>
// (a sidebar list and footer-like paragraphs that the tag rules keep) around
// the article paragraphs.
type site struct {
	host    string
	sidebar []string
	legal   []string
}

func newSite(rng *rand.Rand, host string) site {
	s := site{host: host}
	for range 60 {
		s.sidebar = append(s.sidebar, words(rng, 6))
	}
	for range 30 {
		s.legal = append(s.legal, words(rng, 40))
	}
	return s
}

func (s site) render(i int, article []string) string {
	var b strings.Builder
	b.WriteString("<html><head><title>Page</title></head><body><main><div class=sidebar><ul>")
	for _, item := range s.sidebar {
		fmt.Fprintf(&b, "<li><a href=\"/%s\">%s</a></li>", strings.ReplaceAll(item, " ", "-"), item)
	}
	b.WriteString("</ul></div><div class=article>")
	for _, p := range article {
		fmt.Fprintf(&b, "<p>%s</p>", p)
	}
	b.WriteString("</div><div class=legal>")
	for _, p := range s.legal {
		fmt.Fprintf(&b, "<p>%s</p>", p)
	}
	fmt.Fprintf(&b, "<p>Page generated on 2026-11-%02d by the intranet publishing system.</p></div></main></body></html>", i%28+1)
	return b.String()
}

func (s site) page(t *testing.T, i int, article []string) *Page {
	t.Helper()
	p, err := Parse(strings.NewReader(s.render(i, article)), &url.URL{Scheme: "http", Host: s.host, Path: fmt.Sprint("/p", i)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var syllables = strings.Fields("ka lo mi ne tu ra se vo pi da fe gu ho ji ly ba co ze wi xa")

// words returns n pseudo-words from rng.
func words(rng *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		var b strings.Builder
		for range 2 + rng.IntN(2) {
			b.WriteString(syllables[rng.IntN(len(syllables))])
		}
		w[i] = b.String()
	}
	return strings.Join(w, " ")
}

func article(rng *rand.Rand, paragraphs, wordsPer int) []string {
	a := make([]string, paragraphs)
	for i := range a {
		a[i] = words(rng, wordsPer)
	}
	return a
}

// duplicates reports whether dedup calls b a near-duplicate of a.
func duplicates(t *testing.T, a, b string) bool {
	t.Helper()
	det, err := dedup.New(nil, dedup.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := det.Add(dedup.Document{ID: "a", Text: a}); err != nil {
		t.Fatal(err)
	}
	res, err := det.Add(dedup.Document{ID: "b", Text: b})
	if err != nil {
		t.Fatal(err)
	}
	return res.Duplicate
}

func strip(tp *Templates, host string, p *Page) string {
	return strings.Join(tp.Strip(host, p.Blocks), "\n\n")
}

// Two different pages sharing a big template are near duplicates on their
// raw text, and are not once the template is stripped.
func TestTemplatesDedupDifferentPagesSameTemplate(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	s := newSite(rng, "intra.example")
	tp := NewTemplates(TemplateOptions{})
	for i := range 10 {
		tp.Observe(s.host, s.page(t, i, article(rng, 3, 30)).Blocks)
	}
	a := s.page(t, 10, article(rng, 2, 30))
	b := s.page(t, 11, article(rng, 2, 30))
	if !duplicates(t, a.Text, b.Text) {
		t.Fatalf("raw texts of two pages with one big template are not near duplicates: the test template is too small")
	}
	sa, sb := strip(tp, s.host, a), strip(tp, s.host, b)
	if sa != strings.Join(a.Blocks[60:62], "\n\n") {
		t.Errorf("stripped text is not the article: %q", sa)
	}
	if duplicates(t, sa, sb) {
		t.Errorf("different articles are near duplicates after template removal")
	}
}

// Two copies of one article under two different templates are not near
// duplicates on their raw text, and are once the templates are stripped.
func TestTemplatesDedupSamePageDifferentTemplates(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	s1, s2 := newSite(rng, "intra.example"), newSite(rng, "wiki.intra.example")
	tp := NewTemplates(TemplateOptions{})
	for i := range 10 {
		tp.Observe(s1.host, s1.page(t, i, article(rng, 3, 30)).Blocks)
		tp.Observe(s2.host, s2.page(t, i, article(rng, 3, 30)).Blocks)
	}
	art := article(rng, 4, 40)
	a, b := s1.page(t, 20, art), s2.page(t, 21, art)
	if duplicates(t, a.Text, b.Text) {
		t.Fatalf("raw texts of one article under two big templates are near duplicates: the test template is too small")
	}
	if !duplicates(t, strip(tp, s1.host, a), strip(tp, s2.host, b)) {
		t.Errorf("one article under two templates is not a near duplicate after template removal")
	}
}

func TestObserveStripEqualsObserveThenStrip(t *testing.T) {
	a := NewTemplates(TemplateOptions{MinPages: 2})
	b := NewTemplates(TemplateOptions{MinPages: 2})
	pages := [][]string{
		{"Home News", "First story about the canteen.", "Footer text 2026"},
		{"Home News", "Second story about parking.", "Footer text 2025", "Footer text 2025"},
		{"Home News", "Third story about bicycles.", "Footer text 2024"},
		{"Only one block"},
	}
	for i, blocks := range pages {
		a.Observe("h", blocks)
		want := a.Strip("h", blocks)
		got := b.ObserveStrip("h", blocks)
		if !slices.Equal(got, want) {
			t.Errorf("page %d: ObserveStrip = %q, Observe+Strip = %q", i, got, want)
		}
	}
	if got := b.ObserveStrip("h", pages[1]); !slices.Equal(got, []string{"Second story about parking."}) {
		t.Errorf("template blocks not stripped: %q", got)
	}
}

// A block on most pages of a section is template there, though it is on
// few of the host's pages; a section of too few pages, the root section
// and other sections are judged by the host's statistics alone.
func TestTemplatesStripPageSection(t *testing.T) {
	tp := NewTemplates(TemplateOptions{})
	links := []string{"Printer-friendly version", "IT department copy"}
	own := func(s string, i int) string { return fmt.Sprintf("Own text of %s page %c.", s, 'a'+i) }
	for i := range 6 { // the manual: 6 pages with the links, 1 index without
		tp.ObservePage("h", fmt.Sprintf("/manual/%d.html", i), append([]string{own("manual", i)}, links...))
	}
	tp.ObservePage("h", "/manual/", []string{"Staff manual"})
	for i := range 20 { // the rest of the host
		tp.ObservePage("h", fmt.Sprintf("/news/%d.html", i), []string{own("news", i), "Posted in News"})
	}
	for i := range 3 { // a small section
		tp.ObservePage("h", fmt.Sprintf("/hr/%d.html", i), []string{own("hr", i), "HR only"})
	}
	for i := range 6 { // another host's manual
		tp.ObservePage("o", fmt.Sprintf("/manual/%d.html", i), []string{own("other", i), "Other chrome"})
	}
	for _, tc := range []struct {
		name, path string
		in, want   []string
	}{
		{"section template", "/manual/9.html", append([]string{"New text."}, links...), []string{"New text."}},
		{"section index keeps its text", "/manual/", []string{"Staff manual"}, []string{"Staff manual"}},
		{"another section's template", "/news/9.html", []string{"New text.", "Posted in News"}, []string{"New text."}},
		{"not template outside its section", "/teams/1.html", append([]string{"New text."}, links...), append([]string{"New text."}, links...)},
		{"section below MinPages", "/hr/9.html", []string{"New text.", "HR only"}, []string{"New text.", "HR only"}},
		{"root section", "/about.html", append([]string{"New text."}, links...), append([]string{"New text."}, links...)},
		{"no path: the host's statistics only", "", append([]string{"New text."}, links...), append([]string{"New text."}, links...)},
		{"other hosts do not count", "/manual/9.html", []string{"New text.", "Other chrome"}, []string{"New text.", "Other chrome"}},
		{"all template: keep all", "/manual/9.html", links, links},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(tc.in)
			if got := tp.StripPage("h", tc.path, in); !slices.Equal(got, tc.want) {
				t.Errorf("StripPage(%q) = %q, want %q", tc.path, got, tc.want)
			}
			if !slices.Equal(in, tc.in) {
				t.Error("StripPage modified its input")
			}
		})
	}
	if got := tp.Pages("h"); got != 30 {
		t.Errorf("Pages(h) = %d, want 30 (sections are not hosts)", got)
	}
	// ObserveStripPage counts the page, then strips it like StripPage.
	got := tp.ObserveStripPage("h", "/manual/10.html", append([]string{"Newer text."}, links...))
	if want := []string{"Newer text."}; !slices.Equal(got, want) {
		t.Errorf("ObserveStripPage = %q, want %q", got, want)
	}
	if got := tp.Pages("h"); got != 31 {
		t.Errorf("Pages(h) after ObserveStripPage = %d, want 31", got)
	}
}

func TestSection(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"/manual/vpn.html", "manual"},
		{"/manual/", "manual"},
		{"/notices/it/maintenance-2026-01.html", "notices"},
		{"/about.html", ""},
		{"/", ""},
		{"", ""},
	} {
		if got := Section(tc.path); got != tc.want {
			t.Errorf("Section(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}
