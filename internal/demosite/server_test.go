package demosite

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/doppel-search/doppel/dedup/features"
)

func TestHandler(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string) (*http.Response, string) {
		t.Helper()
		resp, err := client.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, string(body)
	}
	tests := []struct {
		path, wantStatus, wantBody string
	}{
		{"/robots.txt", "200", "Disallow: /private/"},
		{"/", "200", `href="/calendar/2026/03"`},
		{"/manual/vpn.html", "200", `href="/print/manual/vpn.html"`},
		{"/manual/vpn.html;jsessionid=123", "200", "Connecting to the VPN"},
		{"/print/manual/vpn.html", "200", "Printed from the Acme intranet."},
		{"/calendar/2026/12", "200", `href="/calendar/2027/01"`},
		{"/deep/1/1", "200", `href="/deep/1/1/1"`},
		{"/loop/a", "302", ""},
		{"/old/vpn", "301", ""},
		{"/missing-report", "200", "could not be found"},
		{"/files/handbook.pdf", "200", "%PDF"},
		{"/", "200", `href="/hr/"`},
		{"/manual/", "200", `href="/manual/annual-leave.html"`},
		{"/news/", "200", `href="/news/canteen-renovation.html"`},
		{"/notices/", "200", `href="/notices/it/maintenance-2026-01.html"`},
		{"/teams/", "200", `href="/teams/finance.html"`},
		{"/hr/", "200", `href="/hr/salary-bands.html"`},
		{"/hr/salary-bands.html", "200", "Salary bands and grading"},
		{"/mirror/it/manual/annual-leave.html", "200", "the IT service desk"},
		{"/manual/unknown.html", "200", "could not be found"},
	}
	for _, tt := range tests {
		resp, body := get(tt.path)
		if got := resp.Status[:3]; got != tt.wantStatus || !strings.Contains(body, tt.wantBody) {
			t.Errorf("GET %s: %s, body %.80q…; want %s containing %q", tt.path, resp.Status, body, tt.wantStatus, tt.wantBody)
		}
	}
	if resp, _ := get("/loop/a"); resp.Header.Get("Location") != "/loop/b" {
		t.Errorf("/loop/a redirects to %q", resp.Header.Get("Location"))
	}
	// Everything is escaped: no page can inject markup through its text.
	if _, body := get("/"); strings.Contains(body, "<script") {
		t.Error("home page contains a script tag")
	}
}

// TestEveryPageReachable crawls the site from "/" breadth-first, following
// <a href> links (but no redirects, robots.txt-disallowed paths or links
// deeper than maxDepth, which also bounds the traps), and checks every
// page of Pages is found, with its title, within maxDepth clicks.
func TestEveryPageReachable(t *testing.T) {
	const maxDepth = 4
	srv := httptest.NewServer(Handler()) // on 127.0.0.1
	defer srv.Close()
	base, err := url.Parse(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	depth := map[string]int{"/": 0} // path (with any ;params) → clicks from "/"
	titles := map[string]string{}   // path → <h1> of the served page
	queue := []string{"/"}
	for len(queue) > 0 {
		path := queue[0]
		queue = queue[1:]
		resp, err := client.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := html.Parse(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			continue
		}
		for n := range doc.Descendants() {
			if n.Type != html.ElementNode {
				continue
			}
			switch n.DataAtom {
			case atom.H1:
				if n.FirstChild != nil {
					titles[path] = n.FirstChild.Data
				}
			case atom.A:
				for _, a := range n.Attr {
					if a.Key != "href" {
						continue
					}
					u, err := base.Parse(a.Val)
					if err != nil || u.Host != base.Host {
						t.Errorf("%s links to %q", path, a.Val)
						continue
					}
					target := u.EscapedPath()
					if strings.HasPrefix(target, "/private/") {
						if path != "/" || target != "/private/salaries.html" {
							t.Errorf("%s links to %s", path, target)
						}
						continue // disallowed by robots.txt
					}
					if _, seen := depth[target]; !seen && depth[path] < maxDepth {
						depth[target] = depth[path] + 1
						queue = append(queue, target)
					}
				}
			}
		}
	}
	for _, p := range Pages() {
		d, ok := depth[p.Path]
		switch {
		case !ok:
			t.Errorf("%s is not reachable from / within %d clicks", p.Path, maxDepth)
		case titles[p.Path] != p.Title:
			t.Errorf("%s (%d clicks from /) is served with title %q, want %q", p.Path, d, titles[p.Path], p.Title)
		}
	}
	t.Logf("%d URLs reached, %d pages", len(depth), len(Pages()))
}

// mainText returns the text of a served page as a crawler keeps it once
// the site template is recognised: everything but the header, nav and
// footer.
func mainText(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && (n.DataAtom == atom.Header || n.DataAtom == atom.Nav || n.DataAtom == atom.Footer ||
			n.DataAtom == atom.Head) {
			return
		}
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			b.WriteByte(' ')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// cosineWords returns the words of text the crawler's cosine similarity
// compares, tokenized and filtered (numbers, dates) as its detector does.
func cosineWords(t *testing.T, text string) []uint64 {
	ext, err := features.New(features.Options{StripNumbers: true, StripDates: true})
	if err != nil {
		t.Fatal(err)
	}
	return features.CosineWords(ext.Terms(text))
}

// TestServedFamiliesResemble checks that the pages of each family, as
// served (with their links, print banner or mirror banner), stay at or
// above the cosine similarity of 0.9 with which the crawler calls two
// pages near-duplicates, so that it finds the ground-truth clusters
// whatever order it fetches them in.
func TestServedFamiliesResemble(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	members := map[string][][]uint64{}
	var families []string
	for _, p := range Pages() {
		if p.Family == "" {
			continue
		}
		resp, err := http.Get(srv.URL + p.Path)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := html.Parse(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if members[p.Family] == nil {
			families = append(families, p.Family)
		}
		members[p.Family] = append(members[p.Family], cosineWords(t, mainText(doc)))
	}
	lowest, lowestFamily := 1.0, ""
	for _, f := range families {
		m := members[f]
		for i := range m {
			for j := i + 1; j < len(m); j++ {
				if c := features.Cosine(m[i], m[j]); c < lowest {
					lowest, lowestFamily = c, f
				}
			}
		}
	}
	t.Logf("lowest cosine within a family: %.3f (%s)", lowest, lowestFamily)
	if lowest < 0.9 {
		t.Errorf("family %s has pages with cosine similarity %.3f, want >= 0.9", lowestFamily, lowest)
	}
}
