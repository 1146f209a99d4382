package extract

import (
	"archive/zip"
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

func TestDetect(t *testing.T) {
	for _, c := range []struct {
		ctype, path string
		head        string
		want        Type
		ok          bool
	}{
		{"application/pdf", "/x", "", PDF, true},
		{"application/vnd.openxmlformats-officedocument.wordprocessingml.document; charset=binary", "/x", "", DOCX, true},
		{"application/vnd.oasis.opendocument.spreadsheet", "/x", "", ODS, true},
		{"application/octet-stream", "/reports/q3.XLSX", "", XLSX, true},
		{"", "/a/report-final.pdf", "", PDF, true},
		{"application/octet-stream", "/download?id=7", "%PDF-1.7\n", PDF, true},
		{"text/html", "/a.pdf", "", "", false},
		{"text/plain", "/a.txt", "", "", false},
		{"image/png", "/a.png", "", "", false},
		{"application/octet-stream", "/blob", "\x00\x01", "", false},
	} {
		got, ok := Detect(c.ctype, c.path, []byte(c.head))
		if got != c.want || ok != c.ok {
			t.Errorf("Detect(%q, %q) = %q %v, want %q %v", c.ctype, c.path, got, ok, c.want, c.ok)
		}
	}
}

// zipOf builds a zip archive of the given parts.
func zipOf(t testing.TB, parts map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for name, body := range parts {
		f, err := w.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const (
	xlsxShared = `<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>Region</t></si><si><t>Revenue</t></si><si><r><t>North</t></r><r><t> East</t></r></si></sst>`
	xlsxSheet  = `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>` +
		`<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>` +
		`<row r="2"><c r="A2" t="s"><v>2</v></c><c r="B2"><v>1250.5</v></c></row>` +
		`<row r="3"><c r="A3" t="inlineStr"><is><t>South</t></is></c><c r="B3"><v>980</v></c></row></sheetData></worksheet>`
	odsContent = `<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:spreadsheet>` +
		`<table:table table:name="Q3"><table:table-row><table:table-cell><text:p>Region</text:p></table:table-cell><table:table-cell><text:p>Revenue</text:p></table:table-cell></table:table-row>` +
		`<table:table-row><table:table-cell><text:p>North<text:s/>East</text:p></table:table-cell><table:table-cell><text:p>1250.5</text:p></table:table-cell></table:table-row></table:table>` +
		`</office:spreadsheet></office:body></office:document-content>`
	odfMeta = `<office:document-meta xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><office:meta><dc:title>Quarterly revenue</dc:title><dc:date>2031-04-02T10:00:00</dc:date></office:meta></office:document-meta>`
)

// TestSpreadsheets: a row is a block of its cells, shared strings
// resolved, a sheet a page; the title and date from the metadata.
func TestSpreadsheets(t *testing.T) {
	xlsx := zipOf(t, map[string]string{"xl/sharedStrings.xml": xlsxShared, "xl/worksheets/sheet1.xml": xlsxSheet,
		"docProps/core.xml": `<cp:coreProperties xmlns:cp="x" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/"><dc:title>Quarterly revenue</dc:title><dcterms:modified>2031-04-02T10:00:00Z</dcterms:modified></cp:coreProperties>`})
	ods := zipOf(t, map[string]string{"content.xml": odsContent, "meta.xml": odfMeta, "META-INF/manifest.xml": `<manifest/>`})
	for _, c := range []struct {
		typ  Type
		body []byte
		want []string
	}{
		{XLSX, xlsx, []string{"Region Revenue", "North East 1250.5", "South 980"}},
		{ODS, ods, []string{"Region Revenue", "North East 1250.5"}},
	} {
		doc, err := Read(c.typ, c.body, Limits{})
		if err != nil {
			t.Fatalf("%s: %v", c.typ, err)
		}
		if strings.Join(doc.Blocks, "|") != strings.Join(c.want, "|") || doc.Title != "Quarterly revenue" || doc.Pages != 1 ||
			doc.Modified.Format("2006-01-02") != "2031-04-02" {
			t.Errorf("%s: %+v, want blocks %q, title Quarterly revenue, 1 page, modified 2031-04-02", c.typ, doc, c.want)
		}
	}
}

// TestBadDocuments: corrupt, encrypted, truncated and hostile files give
// an *Error with a reason (or, where the format lets a reader recover the
// beginning, the text it could read), never a panic or a hang.
func TestBadDocuments(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	bomb := zipOf(t, map[string]string{"word/document.xml": `<w:document xmlns:w="w"><w:body><w:p><w:r><w:t>` +
		strings.Repeat("0", 3<<20) + `</w:t></w:r></w:p></w:body></w:document>`})
	laughs := `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">` +
		`<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><office:document-content xmlns:office="o" xmlns:text="t"><text:p>&lol3;</text:p></office:document-content>`
	for _, c := range []struct {
		name   string
		typ    Type
		body   []byte
		lim    Limits
		reason string // the *Error's reason holds it; "" if the reader may recover text
	}{
		{"random bytes as PDF", PDF, []byte("%PDF-1.4\n\x00\x01garbage"), Limits{}, "malformed"},
		{"random bytes as DOCX", DOCX, []byte("PK\x03\x04garbage"), Limits{}, "malformed"},
		{"legacy or encrypted Office (OLE)", DOCX, []byte("\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + strings.Repeat("\x00", 600)), Limits{}, "malformed"},
		{"empty ODT", ODT, nil, Limits{}, "malformed"},
		{"PDF with a user password", PDF, read("bad/encrypted.pdf"), Limits{}, "encrypted"},
		{"truncated DOCX", DOCX, read("bad/truncated.docx"), Limits{}, "malformed"},
		{"truncated PDF", PDF, read("bad/truncated.pdf"), Limits{}, ""},
		{"zip bomb", DOCX, bomb, Limits{MaxUnpacked: 1 << 20}, "zip bomb"},
		{"billion laughs", ODT, zipOf(t, map[string]string{"content.xml": laughs}), Limits{}, "malformed XML"},
		{"encrypted ODF", ODT, zipOf(t, map[string]string{"content.xml": "x", "META-INF/manifest.xml": `<manifest:encryption-data/>`}), Limits{}, "encrypted"},
		{"too large", PDF, make([]byte, 2<<20), Limits{MaxBytes: 1 << 20}, "too large"},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc, err := Read(c.typ, c.body, c.lim)
			var e *Error
			switch {
			case c.reason == "" && err == nil:
				if doc == nil {
					t.Fatal("no document and no error")
				}
			case !errors.As(err, &e):
				t.Fatalf("Read = %v, %v; want an *Error (%s)", doc, err, c.reason)
			case !strings.Contains(e.Reason, c.reason):
				t.Fatalf("reason %q, want one with %q", e.Reason, c.reason)
			}
		})
	}
}

// TestOwnerPasswordOnly: a PDF encrypted with an owner password only
// (printing or copying restricted) opens and reads like the original.
func TestOwnerPasswordOnly(t *testing.T) {
	orig, err := os.ReadFile("testdata/docs/apa.en.pdf")
	if err != nil {
		t.Fatal(err)
	}
	enc, err := os.ReadFile("testdata/bad/owner-only.pdf")
	if err != nil {
		t.Fatal(err)
	}
	a, err := Read(PDF, orig, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Read(PDF, enc, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(a.Blocks, "\n") != strings.Join(b.Blocks, "\n") {
		t.Error("the owner-password copy reads differently from the original")
	}
}

// TestLimits: pages and text beyond the limits are left out, and the
// document says so.
func TestLimits(t *testing.T) {
	pdf, err := os.ReadFile("testdata/docs/apa.en.pdf")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Read(PDF, pdf, Limits{MaxPages: 1})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Pages != 1 || !doc.Cut {
		t.Errorf("MaxPages 1: %d pages read, cut %v", doc.Pages, doc.Cut)
	}
	paras := strings.Repeat("<text:p>a paragraph of text</text:p>", 1000)
	odt := zipOf(t, map[string]string{"content.xml": `<office:document-content xmlns:office="o" xmlns:text="t"><office:body><office:text>` +
		paras + `</office:text></office:body></office:document-content>`})
	doc, err = Read(ODT, odt, Limits{MaxText: 100})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, b := range doc.Blocks {
		n += len(b)
	}
	if n > 100 || !doc.Cut || len(doc.Blocks) == 0 {
		t.Errorf("MaxText 100: %d bytes in %d blocks, cut %v", n, len(doc.Blocks), doc.Cut)
	}
}

func fuzzRead(f *testing.F, typ Type, seeds ...[]byte) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		doc, err := Read(typ, body, Limits{MaxUnpacked: 8 << 20, MaxPages: 20})
		var e *Error
		if err != nil && !errors.As(err, &e) {
			t.Fatalf("error %v is not an *Error", err)
		}
		if err == nil && (doc == nil || doc.Type != typ) {
			t.Fatalf("document %+v for %s", doc, typ)
		}
	})
}

func seed(f *testing.F, name string) []byte {
	b, err := os.ReadFile("testdata/docs/" + name)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

func FuzzDOCX(f *testing.F) { fuzzRead(f, DOCX, seed(f, "apa.en.docx")) }
func FuzzPPTX(f *testing.F) { fuzzRead(f, PPTX, seed(f, "apa.en.pptx")) }
func FuzzODT(f *testing.F)  { fuzzRead(f, ODT, seed(f, "apa.en.odt")) }
func FuzzXLSX(f *testing.F) {
	fuzzRead(f, XLSX, zipOf(f, map[string]string{"xl/sharedStrings.xml": xlsxShared, "xl/worksheets/sheet1.xml": xlsxSheet}))
}
func FuzzODS(f *testing.F) { fuzzRead(f, ODS, zipOf(f, map[string]string{"content.xml": odsContent})) }
func FuzzPDF(f *testing.F) {
	fuzzRead(f, PDF, []byte("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF"))
}

// BenchmarkPDF reads the Debian Reference appendix (3 pages) with PDFium;
// compare with `pdftotext` on the same file (docs/measurements.md).
func BenchmarkPDF(b *testing.B) {
	body, err := os.ReadFile("testdata/docs/apa.en.pdf")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := Read(PDF, body, Limits{}); err != nil { // the pool's start-up, not measured
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := Read(PDF, body, Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}

func FuzzODP(f *testing.F) {
	fuzzRead(f, ODP, zipOf(f, map[string]string{"content.xml": `<office:document-content xmlns:office="o" xmlns:draw="d" xmlns:text="t"><office:body><office:presentation>` +
		`<draw:page><draw:frame><draw:text-box><text:p>Quarterly review</text:p></draw:text-box></draw:frame></draw:page>` +
		`<draw:page><draw:frame><draw:text-box><text:p>Revenue<text:s/>grew</text:p></draw:text-box></draw:frame></draw:page></office:presentation></office:body></office:document-content>`}))
}

// TestSlides: each ODP slide is a page, its text frames' paragraphs blocks.
func TestSlides(t *testing.T) {
	body := zipOf(t, map[string]string{"content.xml": `<office:document-content xmlns:office="o" xmlns:draw="d" xmlns:text="t"><office:body><office:presentation>` +
		`<draw:page><draw:frame><draw:text-box><text:p>Quarterly review</text:p></draw:text-box></draw:frame></draw:page>` +
		`<draw:page><draw:frame><draw:text-box><text:p>Revenue<text:s/>grew</text:p></draw:text-box></draw:frame></draw:page></office:presentation></office:body></office:document-content>`})
	doc, err := Read(ODP, body, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Pages != 2 || strings.Join(doc.Blocks, "|") != "Quarterly review|Revenue grew" || doc.Title != "Quarterly review" {
		t.Errorf("ODP: %d pages, blocks %q, title %q", doc.Pages, doc.Blocks, doc.Title)
	}
	if doc, err := Read(ODP, body, Limits{MaxPages: 1}); err != nil || doc.Pages != 1 || !doc.Cut || len(doc.Blocks) != 1 {
		t.Errorf("ODP with MaxPages 1: %+v, %v", doc, err)
	}
}
