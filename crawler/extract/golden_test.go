package extract

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/internal/testrig/golden"
)

// TestGolden reads each document in testdata/docs (made from pages of
// the Debian Reference with pandoc and LibreOffice: DOCX, ODT and PPTX
// with pandoc from apa.en.html, PDF and ODP with LibreOffice from those,
// XLSX and ODS with LibreOffice Calc from ch08.en.html; NAME.chromium.pdf
// with headless Chromium's --print-to-pdf from apa.en.html and
// note.en.html served on 127.0.0.1, its header and footer — the date,
// the title, the URL, "1/3" — on every page) and compares what it
// says with NAME.txt beside it; -update rewrites those.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/docs/*")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".txt") || strings.HasSuffix(f, ".html") { // .html: the source of the others
			continue
		}
		n++
		t.Run(filepath.Base(f), func(t *testing.T) {
			body, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			typ, ok := Detect("", f, body)
			if !ok {
				t.Fatalf("Detect(%s) found no format", f)
			}
			doc, err := Read(typ, body, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			got := describe(doc)
			want := f + ".txt"
			if *golden.Update {
				if err := os.WriteFile(want, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			w, err := os.ReadFile(want)
			if err != nil {
				t.Fatalf("%v (run with -update to write it)", err)
			}
			if got != string(w) {
				t.Errorf("%s reads differently from %s:\n%s", f, want, got)
			}
		})
	}
	if n < 8 {
		t.Fatalf("%d documents in testdata/docs, want at least 8 (every format)", n)
	}
}

// describe writes down what a document says, for the golden files.
func describe(d *Document) string {
	var b strings.Builder
	fmt.Fprintf(&b, "type: %s\ntitle: %s\nmodified: %s\npages: %d\ncut: %v\n", d.Type, d.Title, d.Modified.Format("2006-01-02"), d.Pages, d.Cut)
	for _, bl := range d.Blocks {
		fmt.Fprintf(&b, "| %s\n", bl)
	}
	return b.String()
}
