package hook

import (
	"context"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler/clean"
	"github.com/doppel-search/doppel/crawler/extract"
	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/dedup/cluster"
	"github.com/doppel-search/doppel/page"
)

// fullPage returns a page.Page whose every field is set (not its zero
// value), so that a conversion that drops a field is seen.
func fullPage(t *testing.T) page.Page {
	t.Helper()
	p := page.Page{URL: "http://x/a", Host: "x", Title: "Annual leave", Headings: []string{"How to ask"},
		Tagged: "Annual leave How to ask", Blocks: []string{"Ask your manager.", "Menu"}, Text: "Ask your manager.",
		LastModified: time.Date(2031, 4, 1, 0, 0, 0, 0, time.UTC), Groups: []string{"staff"}, Lang: "en",
		Anchors: []string{"leave"}, Truncated: true, Type: "pdf"}
	v := reflect.ValueOf(p)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Fatalf("fullPage leaves page.Page.%s unset: set it, so the conversions are checked for it", v.Type().Field(i).Name)
		}
	}
	return p
}

func TestRecordRoundTrip(t *testing.T) {
	p := Page{Page: fullPage(t), Result: dedup.Result{ID: "http://x/a", Cluster: cluster.ID("c1"), Master: "http://x/a", Simhash: 42}}
	rec := Record(p)
	if rec.Status != pages.Fetched || rec.Cluster != "c1" || rec.Simhash != 42 {
		t.Fatalf("Record = status %q cluster %q simhash %d, want fetched c1 42", rec.Status, rec.Cluster, rec.Simhash)
	}
	back := FromRecord(rec)
	if !reflect.DeepEqual(back.Page, p.Page) {
		t.Fatalf("FromRecord(Record(p)).Page = %+v, want %+v", back.Page, p.Page)
	}
	if back.Result.ID != p.URL || back.Result.Cluster != "c1" || back.Result.Simhash != 42 {
		t.Fatalf("FromRecord result = %+v", back.Result)
	}
}

// TestIndexDocCarriesEveryField: each field of page.Page reaches the
// index's document, or is in notIndexed with the reason.
func TestIndexDocCarriesEveryField(t *testing.T) {
	notIndexed := map[string]string{
		"Tagged":    "a detection input only (SimHash weighting)",
		"Truncated": "a record fact: the index holds what was read",
	}
	h, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := fullPage(t)
	d := h.IndexDoc(Page{Page: p, Result: dedup.Result{Simhash: 42}})
	want := map[string]any{
		"URL": d.URL, "Host": d.Host, "Title": d.Title, "Headings": d.Headings, "Text": d.Body,
		"LastModified": d.LastModified, "Groups": d.Groups, "Lang": d.Lang, "Anchors": d.Anchors, "Type": d.Type,
		"Blocks": d.Template, // the blocks the indexed text left out as template
	}
	v := reflect.ValueOf(p)
	for i := range v.NumField() {
		name := v.Type().Field(i).Name
		if _, ok := notIndexed[name]; ok {
			continue
		}
		got, ok := want[name]
		if !ok {
			t.Errorf("page.Page.%s does not reach indexer.Doc: carry it in IndexDoc or list it in notIndexed", name)
			continue
		}
		if name == "Blocks" {
			if !reflect.DeepEqual(got, []string{"Menu"}) {
				t.Errorf("Doc.Template = %q, want the block the text left out, [Menu]", got)
			}
			continue
		}
		if !reflect.DeepEqual(got, v.Field(i).Interface()) {
			t.Errorf("Doc field for page.Page.%s = %v, want %v", name, got, v.Field(i).Interface())
		}
	}
	if d.ID != p.URL || d.Simhash != 42 {
		t.Errorf("Doc ID %q simhash %d, want %q 42", d.ID, d.Simhash, p.URL)
	}
}

func TestFromParsed(t *testing.T) {
	parsed := &Parsed{Page: &clean.Page{Title: "T", Headings: []string{"H"}, Tagged: "T H", Blocks: []string{"b"},
		Language: "de", LastModified: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}, Truncated: true, Type: "odt"}
	header := http.Header{"Last-Modified": {"Tue, 01 Apr 2031 00:00:00 GMT"}}
	p := fromParsed("http://x:8080/a", header, parsed, []string{"g"}, []string{"anchor"})
	want := page.Page{URL: "http://x:8080/a", Host: "x:8080", Title: "T", Headings: []string{"H"}, Tagged: "T H", Blocks: []string{"b"},
		LastModified: time.Date(2031, 4, 1, 0, 0, 0, 0, time.UTC), Groups: []string{"g"}, Lang: "de", Anchors: []string{"anchor"}, Truncated: true, Type: "odt"}
	if !reflect.DeepEqual(p, want) {
		t.Fatalf("fromParsed = %+v\nwant %+v", p, want)
	}
	if p := fromParsed("http://x/a", http.Header{}, parsed, nil, nil); !p.LastModified.Equal(parsed.LastModified) {
		t.Fatalf("without a header, LastModified = %v, want the markup's %v", p.LastModified, parsed.LastModified)
	}
	doc := &Parsed{Page: &clean.Page{Title: "報告"}, Type: "pdf"} // a document: no markup language
	if p := fromParsed("http://x/r.pdf", http.Header{"Content-Language": {"ja-JP, en"}}, doc, nil, nil); p.Lang != "ja" {
		t.Fatalf("a document with Content-Language ja-JP: Lang %q, want ja", p.Lang)
	}
	if p := fromParsed("http://x/r.pdf", http.Header{"Content-Language": {"ja"}}, parsed, nil, nil); p.Lang != "de" {
		t.Fatalf("markup de and Content-Language ja: Lang %q, want the markup's de", p.Lang)
	}
	// Declaring nothing, a page is in the language its text is in.
	para := "Die Häuser am See werden im Sommer vermietet, und wer eines haben will, muss sich bei der Verwaltung melden, die auch die Schlüssel hat. "
	undeclared := &Parsed{Page: &clean.Page{Title: "Ferien", Blocks: []string{para, para, para}}, Type: "pdf"}
	if p := fromParsed("http://x/f.pdf", http.Header{}, undeclared, nil, nil); p.Lang != "de" {
		t.Fatalf("German text, no language declared: Lang %q, want de", p.Lang)
	}
	// The URL's language section does not outweigh the text or the
	// markup ("/hr/" is human resources), but names a language the text
	// agrees with where the text is too short to say.
	if p := fromParsed("http://x/manual/fr/f.pdf", http.Header{}, undeclared, nil, nil); p.Lang != "de" {
		t.Fatalf("German text in the French section: Lang %q, want the text's de", p.Lang)
	}
	english := &Parsed{Page: &clean.Page{Title: "Relocation", Language: "en", Blocks: []string{"Employees who move receive support."}}}
	if p := fromParsed("http://x/hr/relocation.html", http.Header{}, english, nil, nil); p.Lang != "en" {
		t.Fatalf(`lang="en" under /hr/: Lang %q, want en`, p.Lang)
	}
	short := &Parsed{Page: &clean.Page{Title: "Ferien", Blocks: []string{"Die Häuser am See werden im Sommer vermietet."}}}
	if p := fromParsed("http://x/de/f.html", http.Header{}, short, nil, nil); p.Lang != "de" {
		t.Fatalf("a German sentence in the German section: Lang %q, want de", p.Lang)
	}
	if p := fromParsed("http://x/f.html", http.Header{}, short, nil, nil); p.Lang != "" {
		t.Fatalf("a German sentence, no section: Lang %q, want none", p.Lang)
	}
}

func TestSourceDoc(t *testing.T) {
	recorded := map[string]Page{"http://x/a": {Page: fullPage(t)}}
	source := func(url string) (Page, bool, error) {
		p, ok := recorded[url]
		return p, ok, nil
	}
	h, err := New(Options{Source: source})
	if err != nil {
		t.Fatal(err)
	}
	d, err := h.SourceDoc(context.Background(), "http://x/a")
	if err != nil || d == nil || d.Title != "Annual leave" || d.Body != "Ask your manager." {
		t.Fatalf("SourceDoc(recorded) = %+v, %v; want the recorded page's document", d, err)
	}
	if d, err := h.SourceDoc(context.Background(), "http://x/none"); d != nil || err != nil {
		t.Fatalf("SourceDoc(unrecorded) = %+v, %v; want nil, nil", d, err)
	}
	bare, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d, err := bare.SourceDoc(context.Background(), "http://x/a"); d != nil || err != nil {
		t.Fatalf("SourceDoc without a Source = %+v, %v; want nil, nil", d, err)
	}
}

func TestNegativeDocumentLimits(t *testing.T) {
	if _, err := New(Options{Documents: extract.Limits{MaxPages: -1}}); err == nil {
		t.Error("New accepted a negative document page limit")
	}
}
