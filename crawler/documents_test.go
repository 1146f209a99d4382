package crawler

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/crawler/pages"
)

// TestDocumentsJoinTheirPage: a page of the Debian Reference and its
// PDF, DOCX and ODT versions (made from it with LibreOffice and pandoc)
// are fetched, read and judged like pages: one cluster, the HTML page its
// master, each document recorded with its type; a broken PDF is recorded
// with the reason, and the crawl goes on.
func TestDocumentsJoinTheirPage(t *testing.T) {
	files := map[string]string{"/apa.html": "apa.en.html", "/files/apa.pdf": "apa.en.pdf", "/files/apa.docx": "apa.en.docx", "/files/apa.odt": "apa.en.odt"}
	types := map[string]string{".html": "text/html", ".pdf": "application/pdf",
		".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document", ".odt": "application/octet-stream"}
	body := map[string][]byte{}
	for path, name := range files {
		b, err := os.ReadFile("extract/testdata/docs/" + name)
		if err != nil {
			t.Fatal(err)
		}
		body[path] = b
	}
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch p := r.URL.Path; {
		case p == "/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<html><head><title>Docs</title></head><body><main><p>The appendix as a page and as documents.</p>`+
				`<a href="/apa.html">page</a> <a href="/files/apa.pdf">PDF</a> <a href="/files/apa.docx">DOCX</a> `+
				`<a href="/files/apa.odt">ODT</a> <a href="/files/broken.pdf">broken</a></main></body></html>`)
		case p == "/files/broken.pdf":
			w.Header().Set("Content-Type", "application/pdf")
			fmt.Fprint(w, "%PDF-1.4 not really")
		case body[p] != nil:
			w.Header().Set("Content-Type", types[p[strings.LastIndex(p, "."):]])
			w.Write(body[p])
		default:
			http.NotFound(w, r)
		}
	}))
	c := crawl(t, t.TempDir(), testOptions(s.URL+"/"))
	recs := records(t, c)
	page := recs[s.URL+"/apa.html"]
	if page.Status != pages.Fetched || page.Type != "" {
		t.Fatalf("the page: %q type %q", page.Status, page.Type)
	}
	masters, err := c.pages.Masters()
	if err != nil {
		t.Fatal(err)
	}
	if masters[page.Cluster] != page.URL {
		t.Errorf("master of the cluster %s, want the HTML page", masters[page.Cluster])
	}
	for _, ext := range []string{"pdf", "docx", "odt"} {
		r := recs[s.URL+"/files/apa."+ext]
		if r.Status != pages.Fetched || r.Type != ext || r.Cluster != page.Cluster || !strings.Contains(r.Title, "Appendix") {
			t.Errorf("apa.%s: %q type %q cluster %q (the page's %q) title %q", ext, r.Status, r.Type, r.Cluster, page.Cluster, r.Title)
		}
	}
	if r := recs[s.URL+"/files/broken.pdf"]; r.Status != pages.Skipped || !strings.HasPrefix(r.Reason, "pdf: malformed") {
		t.Errorf("broken.pdf: %q %q, want skipped as a malformed PDF", r.Status, r.Reason)
	}
}
