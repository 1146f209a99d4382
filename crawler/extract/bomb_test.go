package extract

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/internal/testrig/bombtest"
)

// TestBombs: each hostile document is refused with its reason, or cut,
// in bounded time. Their memory is measured by crawling them in a child
// process (crawler's TestBombs); here, what each one gives.
func TestBombs(t *testing.T) {
	// A workbook whose one row names a 1 MiB shared string 200,000 times:
	// 5 MB of XML that would join to a 200 GB row.
	var sheet strings.Builder
	sheet.WriteString(`<worksheet><sheetData><row>`)
	for range 200000 {
		sheet.WriteString(`<c t="s"><v>0</v></c>`)
	}
	sheet.WriteString(`</row></sheetData></worksheet>`)
	amplified := bombtest.Zip(
		bombtest.Part{Name: "xl/sharedStrings.xml", Data: []byte(`<sst><si><t>` + strings.Repeat("word ", 200000) + `</t></si></sst>`)},
		bombtest.Part{Name: "xl/worksheets/sheet1.xml", Data: []byte(sheet.String())})
	xmlZip := func(name, head, unit string, n int64, tail string) []byte {
		st := bombtest.Repeat([]byte(head), []byte(unit), n, []byte(tail))
		return bombtest.Zip(bombtest.Part{Name: name, Stream: &st})
	}
	many := []bombtest.Part{}
	for i := range 20000 {
		many = append(many, bombtest.Part{Name: fmt.Sprintf("ppt/slides/slide%d.xml", i+1), Data: []byte(`<p:sld><a:p><a:t>slide</a:t></a:p></p:sld>`)})
	}
	slides := make([]string, 300)
	for i := range slides {
		slides[i] = fmt.Sprintf("ppt/slides/slide%d.xml", i+1)
	}
	for _, tc := range []struct {
		name   string
		typ    Type
		body   func() []byte
		reason string // "" for a document read and Cut, "-" read
	}{
		{"docx 1 GiB", DOCX, func() []byte { return bombtest.DOCX(1 << 30) }, "docx: zip bomb: the parts expand beyond"},
		{"docx 190 MiB in one run", DOCX, func() []byte { return bombtest.DOCX(190 << 20) }, ""},
		{"docx billion laughs", DOCX, bombtest.LaughsDOCX, "docx: malformed XML"},
		{"odt billion laughs", ODT, bombtest.LaughsODT, "odt: malformed XML"},
		{"xlsx shared string named 200,000 times", XLSX, func() []byte { return amplified }, ""},
		// XML bombs other than entities: what encoding/xml holds whole
		// (a token) or keeps a record of (an open element).
		{"docx comment of 190 MiB of '<'", DOCX, func() []byte { return bombtest.XMLDOCX("<!--", "<", 190<<20, "-->") }, ""},
		{"docx CDATA of 190 MiB of '<'", DOCX, func() []byte {
			return bombtest.XMLDOCX("<w:p><w:r><w:t><![CDATA[", "<", 190<<20, "]]></w:t></w:r></w:p>")
		}, ""},
		{"docx tag of 30 million attributes", DOCX, func() []byte { return bombtest.XMLDOCX("<w:p", ` a=""`, 150<<20, "/>") }, ""},
		{"docx 50 million nested elements", DOCX, func() []byte { return bombtest.XMLDOCX("", "<a>", 150<<20, "") }, "docx: too deep: elements nested deeper than 10000"},
		{"xlsx sheet of nested rows", XLSX, func() []byte {
			return xmlZip("xl/worksheets/sheet1.xml", "<worksheet><sheetData>", "<row>", 150<<20, "")
		}, "xlsx: too deep"},
		{"xlsx shared strings comment", XLSX, func() []byte {
			return xmlZip("xl/sharedStrings.xml", "<sst><!--", "<", 150<<20, "--></sst>")
		}, "xlsx: malformed: no sheet"},
		{"pptx slide of nested elements", PPTX, func() []byte { return xmlZip("ppt/slides/slide1.xml", "<p:sld>", "<a>", 150<<20, "") }, "pptx: too deep"},
		{"odt content of nested elements", ODT, func() []byte { return xmlZip("content.xml", "<office:document-content>", "<a>", 150<<20, "") }, "odt: too deep"},
		{"odt metadata of nested elements", ODT, func() []byte {
			st := bombtest.Repeat([]byte("<office:document-meta>"), []byte("<a>"), 150<<20, nil)
			return bombtest.Zip(bombtest.Part{Name: "meta.xml", Stream: &st}, bombtest.Part{Name: "content.xml", Data: []byte("<c><text:p>text</text:p></c>")})
		}, "-"},
		// Zip bombs: members that lie, overlap or are many.
		{"docx part declaring 1 KiB inflating to 1 GiB", DOCX, func() []byte {
			st := bombtest.Deflate([]byte(`<w:document><w:body><w:p><w:t>`), 'a', 1<<30, nil)
			return bombtest.Zip(bombtest.Part{Name: "word/document.xml", Stream: &st, Declare: 1024})
		}, "docx: malformed: word/document.xml"},
		{"pptx of 300 slides overlapping one 100 MiB stream", PPTX, func() []byte {
			st := bombtest.Repeat([]byte(`<p:sld>`), []byte("<a/>"+strings.Repeat(" ", 1<<19)), 100<<20, []byte(`</p:sld>`))
			return bombtest.Overlapping(st, slides...)
		}, "pptx: zip bomb: the parts expand beyond 209715200 bytes"},
		{"pptx of 20,000 slides", PPTX, func() []byte { return bombtest.Zip(many...) }, "-"},
		// PDFs of many pages and deep object graphs.
		{"pdf of 100,000 pages", PDF, func() []byte {
			kids, objs := make([]string, 100000), []string{"<< /Type /Catalog /Pages 2 0 R >>", "",
				"<< /Length 44 >>\nstream\nBT /F1 12 Tf 72 712 Td (Hello page) Tj ET\nendstream"}
			for i := range kids {
				kids[i] = fmt.Sprintf("%d 0 R", i+4)
				objs = append(objs, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R >>")
			}
			objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids))
			return bombtest.PDFObjects(objs...)
		}, ""},
		{"pdf page tree 100,000 deep", PDF, func() []byte {
			objs := []string{"<< /Type /Catalog /Pages 2 0 R >>"}
			for i := range 100000 {
				objs = append(objs, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", i+3))
			}
			return bombtest.PDFObjects(append(objs, "<< /Type /Page /MediaBox [0 0 612 792] >>")...)
		}, "pdf: malformed"},
		{"pdf array nested a million deep", PDF, func() []byte {
			return bombtest.PDFObjects("<< /Type /Catalog /Pages 2 0 R /X "+strings.Repeat("[", 1<<20)+strings.Repeat("]", 1<<20)+" >>",
				"<< /Type /Pages /Kids [3 0 R] /Count 1 >>", "<< /Type /Page /MediaBox [0 0 612 792] >>")
		}, "-"},
		{"pdf 1 GiB flate stream", PDF, func() []byte { return bombtest.PDF(1 << 30) }, "pdf: memory limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := Read(tc.typ, tc.body(), Limits{})
			var e *Error
			switch {
			case tc.reason != "" && tc.reason != "-" && (!errors.As(err, &e) || !strings.HasPrefix(err.Error(), tc.reason)):
				t.Errorf("got %v, want an error starting %q", err, tc.reason)
			case tc.reason == "-" && err != nil:
				t.Errorf("got %v, want the document read", err)
			case tc.reason == "-":
			case tc.reason == "" && err != nil:
				t.Errorf("got %v, want the document cut", err)
			case tc.reason == "" && !doc.Cut:
				t.Errorf("the document is not cut: %d blocks", len(doc.Blocks))
			case tc.reason == "":
				n := 0
				for _, b := range doc.Blocks {
					n += len(b)
				}
				if n > new(Limits).EnsureDefaults().MaxText {
					t.Errorf("kept %d bytes of text", n)
				}
			}
		})
	}
}
