package crawler

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/internal/testrig/sambatest"
)

// TestCrawlFolder: a local folder crawls like a site (file:///…): its
// pages, text files and documents fetched, read and judged — a page and
// its PDF version in one cluster — its listings followed but not indexed,
// nothing outside the folder read, and access groups given by path.
func TestCrawlFolder(t *testing.T) {
	root := t.TempDir()
	share := filepath.Join(root, "share")
	for name, src := range map[string]string{"manual/apa.html": "apa.en.html", "manual/apa.pdf": "apa.en.pdf", "hr/apa.docx": "apa.en.docx"} {
		b, err := os.ReadFile("extract/testdata/docs/" + src)
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(share, name), b)
	}
	write(t, filepath.Join(share, "notes.txt"), []byte("Order new chairs for the meeting room before the end of the month.\n\nAsk facilities for a quote first."))
	write(t, filepath.Join(root, "outside.txt"), []byte("Not in the share: must not be read."))
	opts := testOptions("file://" + filepath.ToSlash(share) + "/")
	opts.Groups = []GroupRule{{Prefix: "file://" + filepath.ToSlash(share) + "/hr/", Groups: []string{"hr"}}}
	c := crawl(t, t.TempDir(), opts)
	recs := records(t, c)
	url := func(p string) string { return "file://" + filepath.ToSlash(filepath.Join(share, p)) }
	html, pdf, docx, notes := recs[url("manual/apa.html")], recs[url("manual/apa.pdf")], recs[url("hr/apa.docx")], recs[url("notes.txt")]
	for name, r := range map[string]pages.Record{"html": html, "pdf": pdf, "docx": docx, "notes": notes} {
		if r.Status != pages.Fetched {
			t.Errorf("%s: %q %q, want fetched", name, r.Status, r.Reason)
		}
	}
	if pdf.Type != "pdf" || pdf.Cluster != html.Cluster {
		t.Errorf("the PDF: type %q cluster %q, want pdf in the page's %q", pdf.Type, pdf.Cluster, html.Cluster)
	}
	if len(docx.Groups) != 1 || docx.Groups[0] != "hr" || len(html.Groups) != 0 {
		t.Errorf("groups: docx %v, html %v; want [hr] and public", docx.Groups, html.Groups)
	}
	if r := recs[url("")+"/"]; r.Status != pages.Skipped || r.Reason != "directory listing" {
		t.Errorf("the folder's listing: %q %q, want skipped as a directory listing", r.Status, r.Reason)
	}
	for u := range recs {
		if !strings.HasPrefix(u, url("")) {
			t.Errorf("%s recorded: outside the folder", u)
		}
	}
}

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCrawlShare: an SMB share (Samba on loopback, a guest session)
// crawls like a site: its page and the PDF version in one cluster under
// smb:// URLs, its folders' listings followed but not indexed.
func TestCrawlShare(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{"manual/apa.html": "apa.en.html", "manual/apa.pdf": "apa.en.pdf"} {
		b, err := os.ReadFile("extract/testdata/docs/" + src)
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, name), b)
	}
	addr := sambatest.Start(t, dir, "docs")
	c := crawl(t, t.TempDir(), testOptions("smb://"+addr+"/docs/"))
	recs := records(t, c)
	html, pdf := recs["smb://"+addr+"/docs/manual/apa.html"], recs["smb://"+addr+"/docs/manual/apa.pdf"]
	if html.Status != pages.Fetched || pdf.Status != pages.Fetched || pdf.Type != "pdf" || pdf.Cluster != html.Cluster {
		t.Errorf("page %q %q, PDF %q %q type %q cluster %q (page's %q)", html.Status, html.Reason, pdf.Status, pdf.Reason, pdf.Type, pdf.Cluster, html.Cluster)
	}
	if r := recs["smb://"+addr+"/docs/manual/"]; r.Status != pages.Skipped || r.Reason != "directory listing" {
		t.Errorf("the folder's listing: %q %q", r.Status, r.Reason)
	}
}
