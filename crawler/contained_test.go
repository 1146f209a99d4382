package crawler

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/crawler/pages"
)

// TestContainedInRecorded: a page whose text is whole in a longer page
// that appends a section to it stays in a cluster of its own and its
// record names the longer page (pages.Record.ContainedIn), whichever is
// fetched first; a view of the data directory, opened after the crawl,
// gives the relation and the longer page's cluster.
func TestContainedInRecorded(t *testing.T) {
	words := func(seed uint64, n int) string {
		r := rand.New(rand.NewPCG(seed, 3))
		w := make([]string, n)
		for i := range w {
			w[i] = fmt.Sprintf("w%c%c%c", 'a'+r.IntN(26), 'a'+r.IntN(26), 'a'+r.IntN(26))
		}
		return strings.Join(w, " ")
	}
	text := words(1, 1500)
	html := func(title, body string) string {
		return `<html><head><title>` + title + `</title></head><body><main><p>` + body + `</p></main></body></html>`
	}
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, html("Home", `Logs. <a href="/vacuum">vacuum</a> <a href="/vacuum-and-logs">vacuum and logs</a> <a href="/other">other</a>`))
		case "/vacuum":
			fmt.Fprint(w, html("Routine vacuuming", text))
		case "/vacuum-and-logs":
			fmt.Fprint(w, html("Vacuuming and log files", text+" "+words(2, 200)))
		case "/other":
			fmt.Fprint(w, html("Other", words(3, 1500)))
		default:
			http.NotFound(w, r)
		}
	}))
	dir := t.TempDir()
	c := crawl(t, dir, testOptions(s.URL+"/"))
	recs := records(t, c)
	part, whole, other := recs[s.URL+"/vacuum"], recs[s.URL+"/vacuum-and-logs"], recs[s.URL+"/other"]
	for _, r := range []pages.Record{part, whole, other} {
		if r.Status != pages.Fetched {
			t.Fatalf("%s: %s %s", r.URL, r.Status, r.Reason)
		}
	}
	if part.Cluster == whole.Cluster {
		t.Errorf("the part joined the page that holds it: a part is not a copy")
	}
	if part.ContainedIn != whole.URL || whole.ContainedIn != "" || other.ContainedIn != "" {
		t.Errorf("contained in: part %q, whole %q, other %q; want the part in %s only", part.ContainedIn, whole.ContainedIn, other.ContainedIn, whole.URL)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	v, err := OpenView(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if in, cl, ok := v.ContainedIn(part.URL); !ok || in != whole.URL || cl != whole.Cluster {
		t.Errorf("View.ContainedIn(part) = %q, %q, %v; want %s, %s", in, cl, ok, whole.URL, whole.Cluster)
	}
	if in, _, ok := v.ContainedIn(other.URL); ok {
		t.Errorf("View.ContainedIn(other) = %q", in)
	}
}
