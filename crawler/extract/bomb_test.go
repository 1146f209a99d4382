package extract

import (
	"errors"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/internal/bombtest"
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
	for _, tc := range []struct {
		name   string
		typ    Type
		body   func() []byte
		reason string // "" for a document read and Cut
	}{
		{"docx 1 GiB", DOCX, func() []byte { return bombtest.DOCX(1 << 30) }, "docx: zip bomb: the parts expand beyond"},
		{"docx 190 MiB in one run", DOCX, func() []byte { return bombtest.DOCX(190 << 20) }, ""},
		{"docx billion laughs", DOCX, bombtest.LaughsDOCX, "docx: malformed XML"},
		{"odt billion laughs", ODT, bombtest.LaughsODT, "odt: malformed XML"},
		{"xlsx shared string named 200,000 times", XLSX, func() []byte { return amplified }, ""},
		{"pdf 1 GiB flate stream", PDF, func() []byte { return bombtest.PDF(1 << 30) }, "pdf: memory limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := Read(tc.typ, tc.body(), Limits{})
			var e *Error
			switch {
			case tc.reason != "" && (!errors.As(err, &e) || !strings.HasPrefix(err.Error(), tc.reason)):
				t.Errorf("got %v, want an error starting %q", err, tc.reason)
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
