package hook

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/gocolly/colly/v2"

	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/page"
)

func header(ctype string) http.Header {
	h := http.Header{}
	if ctype != "" {
		h.Set("Content-Type", ctype)
	}
	return h
}

func TestParse(t *testing.T) {
	h, err := New(Options{MaxBodyBytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	page := `<html><head><title>T</title></head><body><main><p>Hello there.</p></main></body></html>`
	for _, tc := range []struct {
		name, ctype, body string
		skip              string // reason substring; "" means processed
		text              string
	}{
		{"html", "text/html; charset=utf-8", page, "", "Hello there."},
		{"no content type", "", page, "", "Hello there."},
		{"xhtml", "application/xhtml+xml", page, "", "Hello there."},
		{"plain text", "text/plain", "First  para.\n\nSecond\npara.", "", "First para.\n\nSecond para."},
		{"image", "image/png", "\x89PNG\r\n", "content type image/png", ""},
		{"broken pdf", "application/pdf", "%PDF-1.4\x00\x01", "pdf: malformed", ""},
		{"image", "image/png", "\x89PNG", "content type image/png", ""},
		{"too large: cut and parsed", "text/html", "<p>" + strings.Repeat("x ", 600) + "</p>", "", strings.TrimSpace(strings.Repeat("x ", 498) + "x")},
		{"noindex", "text/html", `<html><head><meta name="robots" content="noindex"></head><body><p>x</p></body></html>`, "noindex", ""},
		{"binary as html", "text/html", "\x00\x01\x02\x03\x04\x05 binary", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := h.Parse("http://intra.example/a", header(tc.ctype), []byte(tc.body))
			switch {
			case tc.name == "binary as html":
				// Binary bytes labelled HTML must be refused with a reason,
				// never crash.
				if err == nil || !errors.Is(err, ErrSkipped) {
					t.Fatalf("binary body labelled text/html: %v, want ErrSkipped", err)
				}
			case tc.skip != "":
				if !errors.Is(err, ErrSkipped) || !strings.Contains(err.Error(), tc.skip) {
					t.Fatalf("err = %v, want ErrSkipped mentioning %q", err, tc.skip)
				}
			case err != nil:
				t.Fatal(err)
			case p.Text != tc.text:
				t.Errorf("text = %q, want %q", p.Text, tc.text)
			case p.Truncated != strings.HasPrefix(tc.name, "too large"):
				t.Errorf("truncated = %v", p.Truncated)
			}
		})
	}
}

// TestParseRobotsHeader: an X-Robots-Tag header that says noindex skips
// a page and a document alike; one for another crawler by name, or one
// that says nofollow only, does not; nofollow reaches the page.
func TestParseRobotsHeader(t *testing.T) {
	h, err := New(Options{MaxBodyBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	page := `<html><head><title>T</title></head><body><main><p>Hello there.</p></main></body></html>`
	for _, tc := range []struct {
		name, ctype, body string
		robots            []string
		skip              bool
		noFollow          bool
	}{
		{"page noindex", "text/html", page, []string{"noindex"}, true, false},
		{"page none, upper case", "text/html", page, []string{"NONE"}, true, true},
		{"broken pdf noindex: skipped before it is read", "application/pdf", "%PDF-1.4\x00", []string{"noindex, nofollow"}, true, true},
		{"another crawler's", "text/html", page, []string{"otherbot: noindex"}, false, false},
		{"nofollow only", "text/html", page, []string{"nofollow"}, false, true},
		{"unavailable_after then noindex", "text/html", page, []string{"unavailable_after: 25 Jun 2010 15:00:00 PST", "noindex"}, true, false},
	} {
		hdr := header(tc.ctype)
		for _, v := range tc.robots {
			hdr.Add("X-Robots-Tag", v)
		}
		p, err := h.Parse("http://intra.example/a", hdr, []byte(tc.body))
		switch {
		case tc.skip:
			if !errors.Is(err, ErrSkipped) || !strings.Contains(err.Error(), "X-Robots-Tag noindex") {
				t.Errorf("%s: %v, want skipped for X-Robots-Tag noindex", tc.name, err)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case p.NoFollow != tc.noFollow || p.Text != "Hello there.":
			t.Errorf("%s: nofollow %v, text %q; want nofollow %v", tc.name, p.NoFollow, p.Text, tc.noFollow)
		}
	}
}

func TestAttachIndexesOneMasterPerCluster(t *testing.T) {
	text := "The travel policy reimburses hotels up to the city limit, meals up to the daily allowance and taxis only when no public transport was reasonable. Claims are filed within thirty days."
	mux := http.NewServeMux()
	serve := func(path, title, body string, links ...string) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "<html><head><title>%s</title></head><body><main><h1>%s</h1><p>%s</p>", title, title, body)
			for _, l := range links {
				fmt.Fprintf(w, `<a href="%s">link</a>`, l)
			}
			fmt.Fprint(w, "</main></body></html>")
		})
	}
	serve("/{$}", "Home", "Welcome to the intranet home page.", "/travel.html", "/print/travel.html", "/files/a.pdf")
	serve("/travel.html", "Travel", text)
	serve("/print/travel.html", "Travel", text+" Printed copy.")
	mux.HandleFunc("/files/a.pdf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write([]byte("%PDF"))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	bi, err := bleve.NewMemOnly(indexer.Mapping())
	if err != nil {
		t.Fatal(err)
	}
	ix, err := indexer.Wrap(bi, indexer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	col := colly.NewCollector()
	var skipped []string
	var pages []Page
	h, err := Attach(t.Context(), col, Options{Index: ix,
		OnPage: func(p Page) { pages = append(pages, p) },
		OnSkip: func(u string, err error) { skipped = append(skipped, strings.TrimPrefix(u, srv.URL)+": "+err.Error()) }})
	if err != nil {
		t.Fatal(err)
	}
	col.OnHTML("a[href]", func(e *colly.HTMLElement) { e.Request.Visit(e.Attr("href")) })
	if err := col.Visit(srv.URL + "/"); err != nil {
		t.Fatal(err)
	}
	if err := h.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(pages) != 3 || len(skipped) != 1 || !strings.Contains(skipped[0], "pdf: malformed") {
		t.Fatalf("processed %d pages, skipped %q; want 3 and the broken PDF", len(pages), skipped)
	}
	if !pages[2].Result.Duplicate || pages[2].Result.Master != srv.URL+"/travel.html" || pages[2].Result.Simhash == 0 {
		t.Errorf("printer copy: %+v, want a duplicate of /travel.html with a SimHash", pages[2].Result)
	}
	res, err := bi.Search(bleve.NewSearchRequest(ix.Searchable(indexer.TextQuery("hotels allowance"))))
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 1 || res.Hits[0].ID != srv.URL+"/travel.html" {
		t.Errorf("search found %d hits (%v), want only the master /travel.html", res.Total, res.Hits)
	}
	members, err := ix.Members(string(pages[2].Result.Cluster))
	if err != nil || len(members) != 2 {
		t.Errorf("cluster members %v, %v; want the page and its printer copy", members, err)
	}
}

func TestSkipErrorCarriesTheReason(t *testing.T) {
	h, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.Parse("http://intra.example/a.png", header("image/png"), []byte("\x89PNG"))
	var skipped *SkipError
	if !errors.As(err, &skipped) || skipped.Reason != "content type image/png" || !errors.Is(err, ErrSkipped) {
		t.Errorf("Parse of an image: %v; want a *SkipError with the reason", err)
	}
	_, err = h.Parse("http://intra.example/a.pdf", header("application/pdf"), []byte("%PDF"))
	if !errors.As(err, &skipped) || !strings.HasPrefix(skipped.Reason, "pdf: malformed") {
		t.Errorf("Parse of a broken PDF: %v; want a *SkipError saying it is malformed", err)
	}
}

// sinkFunc records what a Sink receives.
type sinkFunc func(indexer.Doc, indexer.Placement) error

func (f sinkFunc) Add(_ context.Context, d indexer.Doc, r indexer.Placement) error { return f(d, r) }
func (f sinkFunc) Flush(context.Context) error                                     { return nil }
func (f sinkFunc) Remove(context.Context, indexer.Change) error                    { return nil }
func (f sinkFunc) Update(_ context.Context, d indexer.Doc, ch indexer.Change) error {
	return f(d, ch.Placement)
}

// TestOnePathRecordThenIndex: Insert records a page before it indexes it,
// a Record error keeps it out of the index, and Replay of the recorded
// pages gives the same clusters and the same index documents.
func TestOnePathRecordThenIndex(t *testing.T) {
	text := "Claims are filed in the finance portal within thirty days of the end of a trip, with a photo of every receipt and the manager's approval."
	bodies := []struct{ url, body string }{
		{"http://intra.example/expenses", "<html><head><title>Expenses</title></head><body><main><h1>Expenses</h1><p>" + text + "</p></main></body></html>"},
		{"http://intra.example/print/expenses", "<html><head><title>Expenses</title></head><body><main><h1>Expenses</h1><p>" + text + " Printed copy.</p></main></body></html>"},
		{"http://intra.example/bad", "<html><body><main><p>This one fails to record.</p></main></body></html>"},
	}
	var steps []string
	var recorded []Page
	var indexed []indexer.Doc
	h, err := New(Options{
		Recorder: RecorderFunc(func(p Page) error {
			if strings.HasSuffix(p.URL, "/bad") {
				return errors.New("disk full")
			}
			steps = append(steps, "record "+p.URL)
			recorded = append(recorded, p)
			return nil
		}),
		Index: sinkFunc(func(d indexer.Doc, r indexer.Placement) error {
			steps = append(steps, "index "+d.ID)
			indexed = append(indexed, d)
			return nil
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bodies {
		_, err := h.Process(context.Background(), b.url, header("text/html"), []byte(b.body), []string{"Travel expenses"})
		if strings.HasSuffix(b.url, "/bad") != (err != nil) {
			t.Errorf("%s: %v", b.url, err)
		}
	}
	want := []string{"record http://intra.example/expenses", "index http://intra.example/expenses",
		"record http://intra.example/print/expenses", "index http://intra.example/print/expenses"}
	if fmt.Sprint(steps) != fmt.Sprint(want) {
		t.Errorf("steps %q, want %q", steps, want)
	}
	if !recorded[1].Result.Duplicate || indexed[0].Anchors[0] != "Travel expenses" || indexed[0].Body == "" {
		t.Errorf("recorded %+v, indexed %+v", recorded, indexed)
	}

	// Replay the records into a fresh hook: same clusters, same documents.
	var replayed []indexer.Doc
	h2, err := New(Options{Index: sinkFunc(func(d indexer.Doc, r indexer.Placement) error { replayed = append(replayed, d); return nil })})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range recorded {
		want := p.Result
		p.Result = dedup.Result{}
		got, err := h2.Replay(context.Background(), p, true)
		if err != nil {
			t.Fatal(err)
		}
		if got.Result.Cluster != want.Cluster || got.Result.Master != want.Master || got.Result.Duplicate != want.Duplicate {
			t.Errorf("replay of %s: %+v, want %+v", p.URL, got.Result, want)
		}
		if fmt.Sprint(replayed[i]) != fmt.Sprint(indexed[i]) {
			t.Errorf("replayed document %+v, want %+v", replayed[i], indexed[i])
		}
	}
}

// TestArrive: pages processed by two hooks (two workers, each seeing
// half the site) arrive, in order, at a third: it strips the site
// template as one hook processing every page would (the workers' own
// texts kept a block the whole site repeats), and places and indexes
// them as that hook does.
func TestArrive(t *testing.T) {
	template := "Intranet of the Example company, all rights reserved, call the help desk on 4242 for anything."
	page := func(i int) (string, string) {
		return fmt.Sprintf("http://intra.example/p%d", i), fmt.Sprintf("<html><head><title>Page %d</title></head><body><main><p>%s</p><p>Page %d is about topic number %d, with words of its own: %s.</p></main></body></html>",
			i, template, i, i, strings.Repeat(string(rune('a'+i%26))+string(rune('a'+i/26))+" ", 12)) // digits read alike in templates
	}
	var oneDocs, arrivedDocs []indexer.Doc
	one, err := New(Options{Index: sinkFunc(func(d indexer.Doc, _ indexer.Placement) error { oneDocs = append(oneDocs, d); return nil })})
	if err != nil {
		t.Fatal(err)
	}
	workers := make([]*Hook, 2)
	var processed []Page
	for w := range workers {
		if workers[w], err = New(Options{}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 40 {
		u, body := page(i)
		if _, err := one.Process(context.Background(), u, header("text/html"), []byte(body), nil); err != nil {
			t.Fatal(err)
		}
		p, err := workers[i%2].Process(context.Background(), u, header("text/html"), []byte(body), nil)
		if err != nil {
			t.Fatal(err)
		}
		processed = append(processed, p)
	}
	follower, err := New(Options{Index: sinkFunc(func(d indexer.Doc, _ indexer.Placement) error { arrivedDocs = append(arrivedDocs, d); return nil })})
	if err != nil {
		t.Fatal(err)
	}
	stripped := 0
	for i, p := range processed {
		p.Result = dedup.Result{}
		got, err := follower.Arrive(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if got.Result.Cluster == "" || got.Result.Master != got.URL {
			t.Errorf("%s arrived as %+v", p.URL, got.Result)
		}
		if fmt.Sprint(arrivedDocs[i]) != fmt.Sprint(oneDocs[i]) {
			t.Errorf("arrived document %d %+v, one hook's %+v", i, arrivedDocs[i], oneDocs[i])
		}
		if p.Text != arrivedDocs[i].Body {
			stripped++
		}
	}
	if stripped == 0 {
		t.Error("the workers' texts are all the follower's: the test does not tell their statistics apart")
	}
}

// TestMasterPreference: in a crawl of English, an English page whose URL
// names English or no section is the better master, then an English
// page in another language's section (an untranslated copy; "/hr/" reads
// as Croatian here, though not for the page's language), then a page in
// another language, one in its own language's section first; an HTML
// page before a document of the same rank, and a page before its
// printer-friendly view.
func TestMasterPreference(t *testing.T) {
	h, err := New(Options{Language: "en"})
	if err != nil {
		t.Fatal(err)
	}
	order := []struct {
		url, lang, typ string
	}{
		{"http://x/manual/en/a.html", "en", ""},
		{"http://x/manual/a.html", "en", ""},
		{"http://x/print/a.html", "en", ""}, // a printer-friendly view
		{"http://x/manual/en/a.pdf", "en", "pdf"},
		{"http://x/manual/da/a.html", "en", ""}, // untranslated
		{"http://x/hr/a.html", "en", ""},        // the URL cannot tell human resources from Croatian
		{"http://x/manual/da/a.pdf", "en", "pdf"},
		{"http://x/manual/da/b.html", "da", ""}, // in another language, in its own section
		{"http://x/manual/da/b.pdf", "da", "pdf"},
		{"http://x/manual/de/b.html", "da", ""}, // in another language's section
		{"http://x/manual/b.html", "", ""},
	}
	prefs := make([]int, len(order))
	for i, o := range order {
		p := Page{Page: page.Page{URL: o.url, Lang: o.lang, Type: o.typ}}
		prefs[i] = h.dedupDoc(&p).Preference
	}
	for i := 1; i < len(prefs); i++ {
		if prefs[i] > prefs[i-1] {
			t.Errorf("%s (%d) is preferred to %s (%d)", order[i].url, prefs[i], order[i-1].url, prefs[i-1])
		}
	}
	for _, pair := range [][2]int{{1, 2}, {2, 3}, {3, 4}, {6, 7}, {8, 9}} {
		if prefs[pair[0]] == prefs[pair[1]] {
			t.Errorf("%s and %s are equally preferred (%d)", order[pair[0]].url, order[pair[1]].url, prefs[pair[0]])
		}
	}
}

// TestPrintView: printer-friendly views told by their URL's shape, and
// pages that only look like them.
func TestPrintView(t *testing.T) {
	for _, c := range []struct {
		url  string
		want bool
	}{
		{"http://x/print/sphinx-first-steps.html", true},
		{"http://x/wiki/Page/print/", true},
		{"http://x/docs/page/printable.html", true},
		{"http://x/docs/Printer-Friendly/a.html", true},
		{"http://x/index.php?title=A&printable=yes", true},
		{"http://x/a.html?format=print", true},
		{"http://x/docs/print.html", false}, // a page about printing
		{"http://x/docs/printing/a.html", false},
		{"http://x/docs/blueprint/a.html", false},
		{"http://x/a.html?share=twitter", false},
		{"http://x/sphinx/tutorial/first-steps.html", false},
	} {
		if got := printView(c.url); got != c.want {
			t.Errorf("printView(%q) = %v, want %v", c.url, got, c.want)
		}
	}
}

// TestRestrip: the first pages of a section are stripped before its
// template is known; Restrip, once it is, takes out the section's
// template blocks and the template link texts, leaves a page's own text
// (all of it when all of it is template) and reports a change once.
// IndexDoc keeps the section's template blocks in Template (a copy's own
// lines against its master) but not the template link texts.
func TestRestrip(t *testing.T) {
	h, err := New(Options{NoDedup: true})
	if err != nil {
		t.Fatal(err)
	}
	links := []string{"Printer-friendly version", "Permalink"}
	manual := func(i int) page.Page {
		return page.Page{URL: fmt.Sprintf("http://intra.example/manual/%d.html", i), Host: "intra.example",
			Blocks: append([]string{fmt.Sprintf("Manual page %c on printers and scanners.", 'a'+i), "Maintained by the IT team."}, links...)}
	}
	print := func(i int) page.Page {
		return page.Page{URL: fmt.Sprintf("http://intra.example/print/manual/%d.html", i), Host: "intra.example",
			Blocks: []string{fmt.Sprintf("Manual page %c on printers and scanners.", 'a'+i), "Printed from the intranet."}}
	}
	var first []page.Page // as Prepare stripped them
	prep := func(p page.Page) page.Page {
		if len(p.Blocks) == 4 { // a manual page: the crawler counts its links
			h.Anchors().Observe(links[0], strings.Replace(p.URL, "/manual/", "/print/manual/", 1))
			h.Anchors().Observe(links[1], p.URL+";jsessionid=1")
		}
		pr, err := h.PreparePage(Page{Page: p})
		if err != nil {
			t.Fatal(err)
		}
		return pr.Page().Page
	}
	for i := range 2 { // fewer than clean.TemplateOptions.MinPages
		first = append(first, prep(manual(i)), prep(print(i)))
	}
	for _, p := range first {
		if p.Text != strings.Join(p.Blocks, "\n\n") {
			t.Fatalf("%s stripped before its section's template is known: %q", p.URL, p.Text)
		}
	}
	for i := 2; i < 8; i++ {
		prep(manual(i))
		prep(print(i))
	}
	for i := range 12 { // the rest of the host: the manual is a section of it
		prep(page.Page{URL: fmt.Sprintf("http://intra.example/news/%d.html", i), Host: "intra.example",
			Blocks: []string{fmt.Sprintf("News item %c.", 'a'+i)}})
	}
	for _, tc := range []struct {
		name     string
		page     page.Page
		text     string   // after Restrip
		template []string // IndexDoc's
	}{
		{"manual page", first[0], "Manual page a on printers and scanners.", []string{"Maintained by the IT team."}},
		{"print copy", first[1], "Manual page a on printers and scanners.", []string{"Printed from the intranet."}},
		{"all template: keep all", page.Page{URL: "http://intra.example/manual/", Host: "intra.example", Blocks: links,
			Text: strings.Join(links, "\n\n")}, strings.Join(links, "\n\n"), nil},
		{"no blocks", page.Page{URL: "http://intra.example/manual/x.pdf", Host: "intra.example", Text: "x"}, "x", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.page
			changed := h.Restrip(&p)
			if p.Text != tc.text || changed != (tc.text != tc.page.Text) {
				t.Errorf("Restrip: %v, text %q; want %v, %q", changed, p.Text, tc.text != tc.page.Text, tc.text)
			}
			if h.Restrip(&p) {
				t.Error("Restrip changed the text again")
			}
			if d := h.IndexDoc(Page{Page: p}); d.Body != tc.text || !slices.Equal(d.Template, tc.template) {
				t.Errorf("IndexDoc: body %q, template %q; want %q, %q", d.Body, d.Template, tc.text, tc.template)
			}
		})
	}
}

// TestRestripOnlyEarly: a page stripped once its host's and section's
// statistics were known keeps its text when they move later (a block
// that becomes template on more pages): only the first pages are
// stripped again.
func TestRestripOnlyEarly(t *testing.T) {
	h, err := New(Options{NoDedup: true})
	if err != nil {
		t.Fatal(err)
	}
	prep := func(i int, blocks ...string) page.Page {
		p := page.Page{URL: fmt.Sprintf("http://intra.example/docs/%d.html", i), Host: "intra.example", Blocks: blocks}
		pr, err := h.PreparePage(Page{Page: p})
		if err != nil {
			t.Fatal(err)
		}
		return pr.Page().Page
	}
	// Each page's own block, told apart by its letters (digits do not
	// tell blocks apart: "Page 1" and "Page 2" are one template block).
	own := func(i int) string { return "Own text " + strings.Repeat("x", i+1) + "." }
	var pages []page.Page
	for i := range 10 {
		pages = append(pages, prep(i, own(i)))
	}
	late := prep(10, own(10), "Updated weekly.")
	for i := 11; i < 40; i++ {
		prep(i, own(i), "Updated weekly.")
	}
	if h.Restrip(&late) {
		t.Errorf("a page stripped with known statistics was stripped again: %q", late.Text)
	}
	if !strings.Contains(late.Text, "Updated weekly.") {
		t.Errorf("late page's text %q lost its block", late.Text)
	}
	for _, p := range pages[:2] {
		if h.Restrip(&p) {
			t.Errorf("%s: an early page without template blocks changed: %q", p.URL, p.Text)
		}
	}
}

// TestAnchorCarries: an anchor text is indexed with its target only when
// everyone who may see the target may see the link's source.
func TestAnchorCarries(t *testing.T) {
	for _, tc := range []struct {
		source, target []string
		want           bool
	}{
		{nil, nil, true},
		{nil, []string{"hr"}, true},
		{[]string{"hr"}, nil, false},
		{[]string{"hr"}, []string{"hr"}, true},
		{[]string{"hr"}, []string{"it"}, false},
		{[]string{"hr"}, []string{"hr", "it"}, false}, // an "it" user sees the target, not the source
		{[]string{"hr", "it"}, []string{"hr"}, true},
	} {
		if got := AnchorCarries(tc.source, tc.target); got != tc.want {
			t.Errorf("AnchorCarries(%v, %v) = %v, want %v", tc.source, tc.target, got, tc.want)
		}
	}
}
