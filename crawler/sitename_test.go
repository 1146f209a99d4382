package crawler

import (
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/internal/testrig/appsite"
	"github.com/doppel-search/doppel/page/sitename"
	"github.com/doppel-search/doppel/ranking"
	"github.com/doppel-search/doppel/web"
)

// TestSiteNameInDisplayedTitles: every title of the generated wiki ends
// " - Intranet Wiki"; learned from the crawl's titles, the name is left
// out of the titles the result list and the cluster page show, while
// the index keeps them whole: a query pasting an article's full title,
// site name included, still finds the article first.
func TestSiteNameInDisplayedTitles(t *testing.T) {
	w := appsite.NewWiki(appsite.WikiOptions{Articles: 20})
	s := httptest.NewServer(w)
	t.Cleanup(s.Close)
	opts := testOptions(s.URL + "/index.php/Main_Page")
	opts.Delay, opts.MaxDepth = -1, 100
	dir := t.TempDir()
	c := crawl(t, dir, opts)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	v, err := OpenView(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	names, err := v.SiteNames()
	if err != nil {
		t.Fatal(err)
	}
	if got := names.Of(s.URL + "/index.php/Main_Page"); got != " - Intranet Wiki" {
		t.Fatalf("site name %q, want \" - Intranet Wiki\"", got)
	}
	srv, err := web.New(ranking.New(v.Index(), ranking.Options{}), web.Options{Text: v.Text, ContainedIn: v.ContainedIn})
	if err != nil {
		t.Fatal(err)
	}
	plain := httptest.NewServer(srv)
	t.Cleanup(plain.Close)
	srv, err = web.New(ranking.New(v.Index(), ranking.Options{}), web.Options{Text: v.Text, SiteNames: func() *sitename.Names { return names }})
	if err != nil {
		t.Fatal(err)
	}
	stripped := httptest.NewServer(srv)
	t.Cleanup(stripped.Close)
	firstTitle := regexp.MustCompile(`<a class="title" href="([^"]*)">([^<]*)</a>`)
	for _, article := range w.Articles[:8] {
		name := strings.ReplaceAll(article, "_", " ")
		full := name + " - Intranet Wiki"
		for _, c := range []struct {
			base, want string
		}{{plain.URL, full}, {stripped.URL, name}} {
			body := getBody(t, c.base+"/?q="+url.QueryEscape(full))
			m := firstTitle.FindStringSubmatch(body)
			if m == nil {
				t.Fatalf("search %q: no result", full)
			}
			if href, title := html.UnescapeString(m[1]), html.UnescapeString(m[2]); href != s.URL+"/index.php/"+article || title != c.want {
				t.Errorf("search %q on %s: first %s %q; want the article, shown as %q", full, c.base, href, title, c.want)
			}
		}
	}
	// The cluster page of a copy's original shows both titles without it.
	for cp, orig := range w.Copies {
		cl := ""
		err := v.EachRecord(func(r pages.Record, cluster, _ string) error {
			if r.URL == s.URL+"/index.php/"+orig {
				cl = cluster
			}
			return nil
		})
		if err != nil || cl == "" {
			t.Fatalf("no cluster for %s: %v", orig, err)
		}
		body := getBody(t, stripped.URL+"/cluster/"+cl)
		for _, title := range []string{strings.ReplaceAll(orig, "_", " "), strings.ReplaceAll(cp, "_", " ")} {
			if !strings.Contains(body, ">"+html.EscapeString(title)+"</a>") {
				t.Errorf("cluster page of %s lacks the title %q shown without the site name", orig, title)
			}
		}
		if strings.Contains(body, "Intranet Wiki</a>") {
			t.Errorf("cluster page of %s shows the site name", orig)
		}
		break
	}
}

func getBody(t *testing.T, u string) string {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%s: %d %v", u, resp.StatusCode, err)
	}
	return string(b)
}
