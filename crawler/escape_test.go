package crawler

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"

	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/crawler/share"
	"github.com/doppel-search/doppel/internal/testrig/sambatest"
)

// escape is one way a page of a share tries to lead the crawl out of its
// folder: the link, and the record it must leave (the normalized URL,
// skipped, with a reason containing reason).
type escape struct {
	name, href, url, reason string
}

// escapeShare lays out root/share, whose links.html links to everything
// in escapes (the listing of the share links to it and to every entry), beside root/outside, whose files hold "outsidesecret". It
// returns the share's folder. A symbolic link of the share to a file
// outside, to a folder outside, to itself and in a circle are made if
// links is set.
func escapeShare(t *testing.T, root string, escapes []escape, links bool) string {
	t.Helper()
	share, outside := filepath.Join(root, "share"), filepath.Join(root, "outside")
	for i := range 20 {
		write(t, filepath.Join(outside, "dir", strconv.Itoa(i)+".txt"), []byte("The outsidesecret number "+strconv.Itoa(i)+" must never be read by the crawl."))
		write(t, filepath.Join(outside, strconv.Itoa(i)+".txt"), []byte("The outsidesecret file "+strconv.Itoa(i)+" must never be read by the crawl."))
	}
	var b strings.Builder
	b.WriteString("<html><head><title>Share index</title></head><body><h1>Share index</h1><p>Links of the share, some of them leading out of it.</p><ul>\n")
	for _, e := range escapes {
		b.WriteString(`<li><a href="` + e.href + `">` + e.name + "</a></li>\n")
	}
	b.WriteString("</ul></body></html>")
	write(t, filepath.Join(share, "links.html"), []byte(b.String()))
	write(t, filepath.Join(share, "notes.txt"), []byte("Order new chairs for the meeting room before the end of the month.\n\nAsk facilities for a quote first."))
	write(t, filepath.Join(share, "sub", "deep.txt"), []byte("The budget review meets on Thursdays in the large room on the second floor."))
	if links {
		for link, target := range map[string]string{
			"link-file.txt": filepath.Join(outside, "12.txt"), // a file outside
			"link-dir":      filepath.Join(outside, "dir"),    // a folder outside
			"link-rel":      "../outside/dir",                 // the same, relative
			"passwd":        "/etc/passwd",                    // the classic
			"loop":          ".",                              // the share itself: loop/loop/loop/…
			"sub/up":        "..",                             // a folder it is in
			"cycle-a":       "cycle-b",                        // a circle
			"cycle-b":       "cycle-a",
			"inlink":        "sub", // inside: followed
		} {
			if err := os.Symlink(target, filepath.Join(share, link)); err != nil {
				t.Skipf("symbolic links cannot be made here: %v", err)
			}
		}
	}
	return share
}

// TestFolderEscapes: a page of a local folder links out of it by every
// spelling of ".." (percent-encoded in either case, half encoded, behind
// an encoded slash or backslash, with backslashes), by absolute file
// URLs, and the folder holds symbolic links to a file and a folder
// outside, to /etc/passwd, to itself, to a folder it is in, and in a
// circle: nothing outside the folder is fetched or indexed, and each
// refusal is a record with its reason. With FollowLinksOutside, the links
// to outside are read, the loops and the URLs that leave are still
// refused.
func TestFolderEscapes(t *testing.T) {
	root := t.TempDir()
	outside := "file://" + filepath.ToSlash(filepath.Join(root, "outside"))
	shareURL := "file://" + filepath.ToSlash(filepath.Join(root, "share"))
	escapes := []escape{
		{"dot-dot", "../outside/1.txt", outside + "/1.txt", "outside the crawl's folders"},
		{"encoded", "%2e%2e/outside/2.txt", outside + "/2.txt", "outside the crawl's folders"},
		{"encoded upper", "%2E%2E/outside/3.txt", outside + "/3.txt", "outside the crawl's folders"},
		{"half encoded", ".%2e/outside/4.txt", outside + "/4.txt", "outside the crawl's folders"},
		{"encoded slash", "..%2foutside%2f5.txt", outside + "/5.txt", "outside the crawl's folders"},
		{"encoded slash deeper", "sub%2f..%2f..%2fa%2F..%2foutside%2F6.txt", outside + "/6.txt", "outside the crawl's folders"},
		{"backslashes", `..\outside\7.txt`, outside + "/7.txt", "outside the crawl's folders"},
		{"encoded backslashes", "..%5Coutside%5C8.txt", outside + "/8.txt", "outside the crawl's folders"},
		{"absolute", outside + "/9.txt", outside + "/9.txt", "outside the crawl's folders"},
		{"etc passwd", "file:///etc/passwd", "file:///etc/passwd", "outside the crawl's folders"},
		{"to the top", strings.Repeat("%2e%2e/", 30) + "etc/group", "file:///etc/group", "outside the crawl's folders"},
		{"sibling folder", shareURL + "2/x.txt", shareURL + "2/x.txt", "outside the crawl's folders"},
		{"link to a file", "link-file.txt", shareURL + "/link-file.txt", share.ReasonLinkOutside},
		{"link to a folder", "link-dir/", shareURL + "/link-dir/", share.ReasonLinkOutside},
		{"into a linked folder", "link-dir/13.txt", shareURL + "/link-dir/13.txt", share.ReasonLinkOutside},
		{"relative link to a folder", "link-rel/14.txt", shareURL + "/link-rel/14.txt", share.ReasonLinkOutside},
		{"link to /etc/passwd", "passwd", shareURL + "/passwd", share.ReasonLinkOutside},
		{"link to itself", "loop/", shareURL + "/loop/", share.ReasonLinkLoop},
		{"link to a folder it is in", "sub/up/", shareURL + "/sub/up/", share.ReasonLinkLoop},
		{"links in a circle", "cycle-a", shareURL + "/cycle-a", share.ReasonLinkLoop},
	}
	dir := escapeShare(t, root, escapes, true)
	seed := "file://" + filepath.ToSlash(dir) + "/"

	c := crawl(t, t.TempDir(), testOptions(seed))
	recs := records(t, c)
	for _, e := range escapes {
		r, ok := recs[e.url]
		if !ok || r.Status != pages.Skipped || !strings.Contains(r.Reason, e.reason) {
			t.Errorf("%s (%s): record %s %v %q %q, want skipped: %q", e.name, e.href, e.url, ok, r.Status, r.Reason, e.reason)
		}
	}
	for _, want := range []string{"notes.txt", "sub/deep.txt", "inlink/deep.txt"} {
		if r := recs[seed+want]; r.Status != pages.Fetched {
			t.Errorf("%s: %q %q, want fetched (inside the share)", want, r.Status, r.Reason)
		}
	}
	for u, r := range recs {
		if r.Status == pages.Fetched && !strings.HasPrefix(u, seed) {
			t.Errorf("%s fetched: outside the share", u)
		}
		if r.Status == pages.Fetched && strings.Contains(u, "outside") || strings.Contains(r.Title, "outsidesecret") {
			t.Errorf("%s: %q %q, read from outside the share", u, r.Status, r.Title)
		}
		if r.Status != pages.Fetched && r.Reason == "" {
			t.Errorf("%s: %q with no reason", u, r.Status)
		}
	}
	if got := searchURLs(t, c, bleve.NewMatchQuery("outsidesecret")); len(got) != 0 {
		t.Errorf("the index holds text from outside the share: %v", got)
	}

	t.Run("follow links outside", func(t *testing.T) {
		opts := testOptions(seed)
		opts.FollowLinksOutside = true
		c := crawl(t, t.TempDir(), opts)
		recs := records(t, c)
		for _, u := range []string{"link-file.txt", "link-dir/13.txt", "link-rel/14.txt"} {
			if r := recs[seed+u]; r.Status != pages.Fetched {
				t.Errorf("%s: %q %q, want fetched (a link followed by request)", u, r.Status, r.Reason)
			}
		}
		for _, e := range escapes {
			if r := recs[e.url]; e.reason != share.ReasonLinkOutside && (r.Status != pages.Skipped || !strings.Contains(r.Reason, e.reason)) {
				t.Errorf("%s: %q %q, want skipped: %q", e.name, r.Status, r.Reason, e.reason)
			}
		}
	})
}

// TestShareEscapes: as TestFolderEscapes, for an SMB share (Samba on
// loopback) crawled from one of its folders: no spelling of ".." leaves
// the folder, Samba refuses the share's links out of the share, and a
// link back to a folder the link is in is refused as a loop. (A link to
// another folder of the same share is the server's to resolve and is
// followed: see docs/security.md.)
func TestShareEscapes(t *testing.T) {
	root := t.TempDir()
	escapes := []escape{
		{"dot-dot", "../outside.txt", "/docs/outside.txt", "outside the crawl's folders"},
		{"encoded", "%2e%2e/outside.txt", "/docs/outside.txt", "outside the crawl's folders"},
		{"encoded upper", "%2E%2E/%2E%2E/other/x.txt", "/other/x.txt", "outside the crawl's folders"},
		{"half encoded", ".%2e/outside.txt", "/docs/outside.txt", "outside the crawl's folders"},
		{"encoded slash", "..%2foutside.txt", "/docs/outside.txt", "outside the crawl's folders"},
		{"backslashes", `..\outside.txt`, "/docs/outside.txt", "outside the crawl's folders"},
		{"encoded backslashes", "..%5Coutside.txt", "/docs/outside.txt", "outside the crawl's folders"},
		{"link to a file outside", "link-file.txt", "", ""},
		{"link to a folder outside", "link-dir/13.txt", "", ""},
		{"link to /etc/passwd", "passwd", "", ""},
		{"link to the folder itself", "loop/", "/docs/public/loop/", share.ReasonLinkLoop},
		{"link to a folder it is in", "up/", "/docs/public/up/", share.ReasonLinkLoop},
	}
	dir := escapeShare(t, root, escapes, true)
	write(t, filepath.Join(root, "share", "outside.txt"), []byte("The outsidesecret of the share's top folder, outside the crawl's folder."))
	// The share is root/share; the crawl reads its folder public/.
	pub := filepath.Join(dir, "public")
	if err := os.Rename(filepath.Join(dir, "links.html"), filepath.Join(root, "links.html")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(pub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(root, "links.html"), filepath.Join(pub, "links.html")); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{"link-file.txt", "link-dir", "passwd"} {
		if err := os.Rename(filepath.Join(dir, l), filepath.Join(pub, l)); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"loop": ".", "up": ".."} {
		if err := os.Symlink(target, filepath.Join(pub, link)); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(pub, "notes.txt"), []byte("Order new chairs for the meeting room before the end of the month.\n\nAsk facilities for a quote first."))
	addr := sambatest.Start(t, dir, "docs")
	seed := "smb://" + addr + "/docs/public/"
	c := crawl(t, t.TempDir(), testOptions(seed))
	recs := records(t, c)
	for _, e := range escapes {
		if e.url == "" {
			continue
		}
		u := "smb://" + addr + e.url
		r, ok := recs[u]
		if !ok || r.Status != pages.Skipped || !strings.Contains(r.Reason, e.reason) {
			t.Errorf("%s (%s): record %s %v %q %q, want skipped: %q", e.name, e.href, u, ok, r.Status, r.Reason, e.reason)
		}
	}
	for _, l := range []string{"link-file.txt", "link-dir/13.txt", "passwd"} {
		if r, ok := recs[seed+l]; !ok || r.Status == pages.Fetched || r.Reason == "" {
			t.Errorf("%s: %v %q %q, want refused with a reason", l, ok, r.Status, r.Reason)
		}
	}
	if r := recs[seed+"notes.txt"]; r.Status != pages.Fetched {
		t.Errorf("notes.txt: %q %q, want fetched", r.Status, r.Reason)
	}
	for u, r := range recs {
		if r.Status == pages.Fetched && !strings.HasPrefix(u, seed) {
			t.Errorf("%s fetched: outside the crawl's folder", u)
		}
		if r.Status != pages.Fetched && r.Reason == "" {
			t.Errorf("%s: %q with no reason", u, r.Status)
		}
	}
	if got := searchURLs(t, c, bleve.NewMatchQuery("outsidesecret")); len(got) != 0 {
		t.Errorf("the index holds text from outside the crawl's folder: %v", got)
	}
}
