package extract

import (
	"strings"
	"testing"

	"github.com/doppel-search/doppel/internal/testrig/bombtest"
)

// TestObjectStreamPDF: the PDF of bombtest.PDFObjectStream, small, is
// read through its object stream (the page lies only there), so that the
// crawler's object stream bomb (crawler TestBombs, "pdf-object-stream")
// is one that PDFium decodes, not one it ignores.
func TestObjectStreamPDF(t *testing.T) {
	doc, err := Read(PDF, bombtest.PDFObjectStream(1<<20), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if text := strings.Join(doc.Blocks, " "); !strings.Contains(text, "An object stream bomb") {
		t.Errorf("read %d blocks %.200q, want the page's text", len(doc.Blocks), text)
	}
}
