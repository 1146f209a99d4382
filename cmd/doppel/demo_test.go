package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler/urlnorm"
	"github.com/doppel-search/doppel/internal/demosite"
)

// startDemo runs doppel demo until it serves the search UI and returns its
// output so far, the UI's base URL and a function that stops it (Ctrl-C)
// and returns its exit status.
func startDemo(t *testing.T, args ...string) (stdout, base string, stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var out, errOut syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"demo", "--addr", "127.0.0.1:0"}, args...), &out, &errOut)
	}()
	ui := regexp.MustCompile(`Search UI: (http://[0-9.:]+/)`)
	for deadline := time.Now().Add(time.Minute); base == ""; time.Sleep(10 * time.Millisecond) {
		if m := ui.FindStringSubmatch(out.String()); m != nil {
			base = m[1]
		}
		select {
		case code := <-done:
			t.Fatalf("demo exited with %d before serving: %s", code, errOut.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("demo did not start serving:\n%s\n%s", out.String(), errOut.String())
		}
	}
	return out.String(), base, func() int {
		cancel()
		code := <-done
		if code != 0 {
			t.Errorf("demo exit %d after Ctrl-C: %s", code, errOut.String())
		}
		return code
	}
}

// demoHit is what TestDemo reads of an API search hit.
type demoHit struct {
	URL  string `json:"url"`
	Lang string `json:"lang"`
}

// TestDemo checks the demo's report against the export of the crawl it
// made: the summary, every cluster with more than one member, and for each
// example query hit its number of similar pages.
func TestDemo(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	out, base, stop := startDemo(t, "--data", dir)

	// The UI answers, and the demo users see different results.
	hr := func(user string) int {
		req, _ := http.NewRequest("GET", base+"api/search?q="+url.QueryEscape("host:* OR hr")+"&size=100&user="+user, nil)
		return hrHits(t, req)
	}
	if g, h := hr("guest"), hr("hr-staff"); g != 0 || h == 0 {
		t.Errorf("HR pages in results: guest %d, hr-staff %d; want 0 and some", g, h)
	}
	// Every page is read as English — its markup says so — though "/hr/"
	// (human resources) and "/mirror/it/" (the IT department's mirror)
	// look like Croatian and Italian sections: English stemming finds an
	// HR page by another form of its words, and "the", an English stop
	// word, matches no page.
	search := func(user string, params string) (total int, hits []demoHit) {
		resp, err := http.Get(base + "api/search?user=" + user + "&" + params)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var res struct {
			Total int       `json:"total"`
			Hits  []demoHit `json:"hits"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&res); err != nil {
			t.Fatal(err)
		}
		return res.Total, res.Hits
	}
	if _, hits := search("hr-staff", "size=100&q="+url.QueryEscape("host:* OR hr")); !slices.ContainsFunc(hits, func(h demoHit) bool { return strings.Contains(h.URL, "/hr/") }) {
		t.Errorf("hr-staff's search lists no /hr/ page: %v", hits)
	} else {
		for _, h := range hits {
			if h.Lang != "en" {
				t.Errorf("%s: language %q, want en", h.URL, h.Lang)
			}
		}
	}
	for _, l := range []string{"hr", "it"} {
		if n, hits := search("admin", "lang="+l+"&q="+url.QueryEscape("host:*")); n != 0 {
			t.Errorf("%d pages in language %s, want none: %v", n, l, hits)
		}
	}
	if _, hits := search("hr-staff", "q=relocating"); !slices.ContainsFunc(hits, func(h demoHit) bool { return strings.HasSuffix(h.URL, "/hr/relocation.html") }) {
		t.Errorf("hr-staff's search for relocating: %v, want /hr/relocation.html", hits)
	}
	// A query of stop words only matches every page (ranking/userquery);
	// analyzed as Croatian and Italian, the /hr/ and /mirror/it/ pages
	// kept "the" as a word, and it found 40 of them and nothing else.
	all, _ := search("admin", "q=.")
	if n, hits := search("admin", "size=100&q=the"); n != all || n <= 40 {
		t.Errorf("q=the (an English stop word): %d results, want every page's %d: %v", n, all, hits)
	}

	// The printed example queries are what the UI answers the admin.
	site0 := regexp.MustCompile(`Demo intranet: (http://127\.0\.0\.1:\d+) `).FindStringSubmatch(out)
	printed := regexp.MustCompile(`(?m)^  "(.+)": \d+ results\n((?:    .*\n)*)`).FindAllStringSubmatch(out, -1)
	if site0 == nil || len(printed) != len(demoQueries) {
		t.Fatalf("the demo printed %d example queries, want %d", len(printed), len(demoQueries))
	}
	for _, m := range printed {
		var want []string
		for _, l := range strings.Split(strings.TrimRight(m[2], "\n"), "\n") {
			want = append(want, strings.Fields(l)[0])
		}
		resp, err := http.Get(base + "api/search?size=3&user=admin&q=" + url.QueryEscape(m[1]))
		if err != nil {
			t.Fatal(err)
		}
		var res struct{ Hits []struct{ URL string } }
		json.NewDecoder(resp.Body).Decode(&res)
		resp.Body.Close()
		var got []string
		for _, h := range res.Hits {
			got = append(got, strings.TrimPrefix(h.URL, site0[1]))
		}
		if !slices.Equal(got, want) {
			t.Errorf("example %q: printed %v, the UI answers %v", m[1], want, got)
		}
	}
	stop()

	m := regexp.MustCompile(`Demo intranet: (http://127\.0\.0\.1:\d+) `).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("demo output lacks the intranet's address:\n%s", out)
	}
	site := m[1]
	path := func(u string) string { return strings.TrimPrefix(u, site) }
	if strings.Contains(out, site+"/") {
		t.Errorf("the output has URLs with the random host, not paths:\n%s", out)
	}
	if !strings.Contains(out, "data directory:    "+dir+"\n") || strings.Contains(out, "temporary") {
		t.Errorf("the summary does not name the --data directory %s:\n%s", dir, out)
	}

	// The crawl's export is the oracle.
	entries := exportEntries(t, dir)
	members := map[string][]string{} // cluster → member paths
	master := map[string]string{}    // cluster → master path
	clusterOf := map[string]string{} // path → cluster
	fetched := 0
	for _, e := range entries {
		if e.Status != "fetched" {
			continue
		}
		fetched++
		p := path(e.URL)
		members[e.Cluster] = append(members[e.Cluster], p)
		master[e.Cluster] = path(e.Master)
		clusterOf[p] = e.Cluster
	}
	if n := summaryValue(t, out, "pages fetched"); n != fetched || n == 0 {
		t.Errorf("summary says %d pages fetched, the export %d", n, fetched)
	}
	if n := summaryValue(t, out, "clusters"); n != len(members) {
		t.Errorf("summary says %d clusters, the export %d", n, len(members))
	}

	section := func(from, to string) string {
		i, j := strings.Index(out, from), strings.Index(out, to)
		if i < 0 || j < i {
			t.Fatalf("demo output lacks %q before %q:\n%s", from, to, out)
		}
		return out[i:j]
	}
	listing := section("Near-duplicate clusters", "Example queries")
	multi := 0
	for c, ms := range members {
		if len(ms) < 2 {
			continue
		}
		multi++
		if want := fmt.Sprintf("\n  %s  (%d pages)\n", master[c], len(ms)); !strings.Contains(listing, want) {
			t.Errorf("cluster listing lacks %q", want)
		}
		for _, p := range ms {
			if p != master[c] && !strings.Contains(listing, "\n      "+p+"\n") {
				t.Errorf("cluster listing lacks member %s of %s", p, master[c])
			}
		}
	}
	if got := strings.Count(listing, " pages)\n"); got != multi || multi == 0 {
		t.Errorf("cluster listing has %d clusters, the export %d with more than one member", got, multi)
	}

	// Ground truth: every copy of the VPN manual page is in its cluster.
	vpn := clusterOf["/manual/vpn.html"]
	for _, p := range demosite.Pages() {
		if p.Family != "/manual/vpn.html" {
			continue
		}
		u, err := urlnorm.Normalize(site+p.Path, urlnorm.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if clusterOf[path(u)] != vpn || vpn == "" {
			t.Errorf("%s (%s) is not in the cluster of /manual/vpn.html", p.Path, path(u))
		}
	}

	// Every example query has hits, some with similar pages, and each
	// hit's count of similar pages is its cluster's size less one.
	queries, _, _ := strings.Cut(section("Example queries", "Demo users"), "\n\n") // up to the blank line
	query := regexp.MustCompile(`^  "(.+)": (\d+) results$`)
	hit := regexp.MustCompile(`^    (\S+) — .*?(?:  \[(\d+) similar pages: .*\])?$`)
	hits, similar := map[string]int{}, map[string]int{}
	var q string
	for _, l := range strings.Split(queries, "\n")[1:] {
		if m := query.FindStringSubmatch(l); m != nil {
			q = m[1]
			continue
		}
		m := hit.FindStringSubmatch(l)
		if m == nil {
			if l != "" {
				t.Errorf("unexpected line in the example queries: %q", l)
			}
			continue
		}
		hits[q]++
		n, _ := strconv.Atoi(m[2])
		c, ok := clusterOf[m[1]]
		if !ok {
			t.Errorf("query %q: hit %s is no fetched page", q, m[1])
		}
		if want := len(members[c]) - 1; n != want {
			t.Errorf("query %q: %s has %d similar pages, its cluster %d other members", q, m[1], n, want)
		}
		if n > 0 {
			similar[q]++
		}
	}
	for _, q := range demoQueries {
		if hits[q] == 0 || similar[q] == 0 {
			t.Errorf("query %q: %d hits, %d with similar pages; want some of each", q, hits[q], similar[q])
		}
	}
	if !strings.Contains(queries, "/manual/vpn.html — ") {
		t.Errorf("the vpn query does not find the VPN manual:\n%s", queries)
	}

	// A second demo replaces its own earlier crawl in --data.
	if _, _, stop := startDemo(t, "--data", dir); stop() != 0 {
		t.Error("a second demo into the same --data failed")
	}
}

func TestDemoTemporaryDirectory(t *testing.T) {
	out, _, stop := startDemo(t)
	stop()
	m := regexp.MustCompile(`Data directory: (\S+) \(temporary, removed at exit`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("demo without --data does not say its directory is temporary:\n%s", out)
	}
	if _, err := os.Stat(m[1]); !os.IsNotExist(err) {
		t.Errorf("temporary directory %s left behind: %v", m[1], err)
	}
}

func TestPrepareDemoDir(t *testing.T) {
	root := t.TempDir()
	mk := func(name string, files ...string) string {
		dir := filepath.Join(root, name)
		for _, f := range files {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	for _, tc := range []struct {
		name  string
		dir   string
		ok    bool
		after []string // files left in dir
	}{
		{"new", mk("new"), true, []string{demoMarker}},
		{"empty", func() string { d := mk("empty"); os.MkdirAll(d, 0o755); return d }(), true, []string{demoMarker}},
		{"earlier demo", mk("demo", demoMarker, "crawl.json", "index/store"), true, []string{demoMarker}},
		{"real crawl", mk("crawl", "crawl.json", "pages.db"), false, []string{"crawl.json", "pages.db"}},
		{"home", mk("home", "notes.txt"), false, []string{"notes.txt"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := prepareDemoDir(tc.dir)
			if (err == nil) != tc.ok {
				t.Fatalf("prepareDemoDir: %v, want ok=%v", err, tc.ok)
			}
			if err != nil && !strings.Contains(err.Error(), "holds no earlier demo crawl") {
				t.Errorf("error %q does not say why", err)
			}
			entries, _ := os.ReadDir(tc.dir)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if strings.Join(names, ",") != strings.Join(tc.after, ",") {
				t.Errorf("directory holds %v, want %v", names, tc.after)
			}
		})
	}
	if code, _, stderr := doppel(t, "demo", "--data", mk("busy", "x")); code != 1 || !strings.Contains(stderr, "holds no earlier demo crawl") {
		t.Errorf("demo into a non-empty directory: exit %d, %q", code, stderr)
	}
}
