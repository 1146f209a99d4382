package web

import (
	"net/url"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/crawler/report"
)

// TestContainedIn: a page that is a part of a larger document (kept
// apart by the detector) says "contained in" it on the cluster page and
// the what-differs page, linked by the larger one's title — to a user
// who may see the larger one only; one whose larger document is unknown
// says nothing.
func TestContainedIn(t *testing.T) {
	parts := map[string][2]string{ // part → larger document, its cluster
		"http://intra/news/a":           {"http://intra/manual/vpn", "c1"},
		"http://intra/print/manual/vpn": {"http://intra/hr/salaries", "c2"},
		"http://intra/news/b":           {"http://intra/gone", "c9"},
	}
	ts := testServer(t, Options{
		DemoUsers: []DemoUser{{Name: "guest"}, {Name: "alice", Groups: []string{"hr"}}},
		ContainedIn: func(id string) (string, string, bool) {
			p, ok := parts[id]
			return p[0], p[1], ok
		},
	})
	diff := "/diff/" + url.PathEscape("http://intra/print/manual/vpn") + "?cluster=c1"
	for _, c := range []struct {
		name, path  string
		want, avoid []string
	}{
		{"a public part of a public page", "/cluster/na", []string{`class="contained meta"`, `contained in <a href="http://intra/manual/vpn">Connecting to the VPN</a>`}, nil},
		{"guest: the larger document is HR's", "/cluster/c1", nil, []string{`class="contained`, "Salary bands"}},
		{"alice sees it", "/cluster/c1?user=alice", []string{`contained in <a href="http://intra/hr/salaries">Salary bands</a>`}, nil},
		{"what differs, guest", diff, []string{"<h1>What differs</h1>"}, []string{`id="contained"`, "Salary bands"}},
		{"what differs, alice", diff + "&user=alice", []string{`id="contained"`, `<a href="http://intra/hr/salaries">Salary bands</a>`}, nil},
		{"an unknown larger document", "/cluster/nb", []string{"News b"}, []string{`class="contained`}},
		{"no part", "/cluster/nc", []string{"News c"}, []string{`class="contained`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, body := get(t, ts.URL+c.path)
			if code != 200 {
				t.Fatalf("%s: %d", c.path, code)
			}
			for _, w := range c.want {
				if !strings.Contains(body, w) {
					t.Errorf("%s lacks %q", c.path, w)
				}
			}
			for _, a := range c.avoid {
				if strings.Contains(body, a) {
					t.Errorf("%s shows %q", c.path, a)
				}
			}
		})
	}
}

// TestDuplicatesPageContained: the administrators' duplicates page lists
// the pages contained in a larger one, linked to their cluster, as
// doppel report does; a report without any says none.
func TestDuplicatesPageContained(t *testing.T) {
	for _, c := range []struct {
		name      string
		contained []report.Containment
		want      []string
	}{
		{"one", []report.Containment{{URL: "http://intra/ch2", Title: "Chapter 2", Format: "html", Cluster: "c6", In: "http://intra/book.pdf", InTitle: "The Book"}},
			[]string{`id="list-contained"`, `<tr class="contained">`, `<a href="http://intra/ch2">Chapter 2</a>`, `href="/cluster/c6"`, `<a href="http://intra/book.pdf">The Book</a>`}},
		{"none", nil, []string{`id="contained"`, "Contained in a larger page (0)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := dupReport()
			r.Contained, r.ContainedPages = c.contained, len(c.contained)
			ts := testServer(t, Options{GroupsHeader: "X-Groups", TrustedProxies: loopback, AdminGroups: []string{"admin"},
				Duplicates: func() (*report.Report, error) { return r, nil }})
			code, body := get(t, ts.URL+"/status/duplicates", "X-Groups", "admin")
			if code != 200 {
				t.Fatalf("%d\n%s", code, body)
			}
			for _, w := range c.want {
				if !strings.Contains(body, w) {
					t.Errorf("the page lacks %q", w)
				}
			}
			if c.contained == nil && strings.Contains(body, `<tr class="contained">`) {
				t.Error("a contained row without any")
			}
		})
	}
}
