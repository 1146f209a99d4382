package crawler

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/crawler/schedule"
	"github.com/doppel-search/doppel/dedup/cluster"
	"github.com/doppel-search/doppel/indexer"
)

// livingSite serves pages whose text the test changes or deletes while a
// crawl runs, with ETags and 304 answers, and logs every request.
type livingSite struct {
	mu    sync.Mutex
	pages map[string]string // path → main text; absent: 410 Gone
	log   []request
}

type request struct {
	path        string
	at          time.Time
	conditional bool
	status      int
}

func (l *livingSite) set(path, text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if text == "" {
		delete(l.pages, path)
	} else {
		l.pages[path] = text
	}
}

func (l *livingSite) requests(path string) []request {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []request
	for _, r := range l.log {
		if r.path == path {
			out = append(out, r)
		}
	}
	return out
}

func (l *livingSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	req := request{path: r.URL.Path, at: time.Now(), conditional: r.Header.Get("If-None-Match") != ""}
	defer func() { l.log = append(l.log, req) }()
	if r.URL.Path == "/robots.txt" || r.URL.Path == "/sitemap.xml" {
		req.status = http.StatusNotFound
		http.NotFound(w, r)
		return
	}
	text, ok := l.pages[r.URL.Path]
	if !ok {
		req.status = http.StatusGone
		http.Error(w, "gone", http.StatusGone)
		return
	}
	var links strings.Builder
	if r.URL.Path == "/" {
		for _, p := range slices.Sorted(func(yield func(string) bool) {
			for p := range l.pages {
				if p != "/" && !yield(p) {
					return
				}
			}
		}) {
			fmt.Fprintf(&links, `<a href="%s">%s</a> `, p, p)
		}
	}
	body := fmt.Sprintf("<html><head><title>%s</title></head><body><main><p>%s</p><p>%s</p></main></body></html>", r.URL.Path, text, links.String())
	etag := fmt.Sprintf(`"%x"`, xxhash.Sum64String(body))
	w.Header().Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		req.status = http.StatusNotModified
		w.WriteHeader(http.StatusNotModified)
		return
	}
	req.status = http.StatusOK
	w.Header().Set("Content-Type", "text/html")
	fmt.Fprint(w, body)
}

// recrawlOptions revisit every page within a fraction of a second.
func recrawlOptions(seed string) Options {
	opts := testOptions(seed)
	opts.Revisit = RevisitOptions{MinInterval: 100 * time.Millisecond, MaxInterval: 300 * time.Millisecond,
		Prior: 200 * time.Millisecond, CopyFactor: 1, Sitemaps: -1}
	return opts
}

// watchUntil runs c.Watch until done reports true (checked every 20 ms)
// or 20 s pass.
func watchUntil(t *testing.T, c *Crawler, done func() bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- c.Watch(ctx) }()
	deadline := time.Now().Add(2 * time.Minute) // a bound against a hang: a busy machine may take seconds
	for !done() {
		if time.Now().After(deadline) {
			cancel()
			<-errc
			t.Fatalf("the recrawl did not get there in 2 minutes: %+v", c.Stats())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-errc; err != nil && err != context.Canceled {
		t.Fatal(err)
	}
}

// hits returns the searchable URLs matching text.
func hits(t *testing.T, c *Crawler, text string) []string {
	t.Helper()
	return searchURLs(t, c, indexer.TextQuery(text))
}

const (
	handbook = "The travel handbook explains how to book flights through the agency portal, which hotels are approved in each city, " +
		"how per diem allowances are computed for trips abroad, and how to file an expense claim with receipts within thirty days."
	payroll = "Payroll runs on the twenty-fifth of every month; corrections submitted after the tenth are paid in the following cycle, " +
		"and overtime must be approved by a manager in the time tracking tool before the cut-off date of the period."
	visitors = "Visitors sign in at reception with photo identification, receive a day pass for the lifts, and may use the guest " +
		"wireless network; parking for visitors is on the lower level of the garage, next to the bicycle racks."
	canteen = "The canteen on the second floor serves breakfast from seven to ten and lunch from half past eleven to two, " +
		"with a vegetarian dish every day, a salad bar, and soup made fresh each morning by the kitchen staff."
)

// TestRecrawl: a kept-alive crawl revisits its pages. An unchanged page
// costs a 304; a changed page is re-indexed with its new text and the
// old text no longer finds it; a deleted page leaves the index and its
// cluster gets a new master; a date line that changes is a trivial
// change that does not count as one in the page's history. A restart
// goes on from the recorded state with nothing lost or doubled.
func TestRecrawl(t *testing.T) {
	site := &livingSite{pages: map[string]string{
		"/":            "Welcome to the intranet.",
		"/travel":      handbook,
		"/old/travel":  handbook + " Archived copy.",
		"/payroll":     payroll,
		"/canteen":     canteen + " Menu of Monday 2 March 2026.",
		"/guide":       visitors,
		"/print/guide": visitors + " Printed copy.",
	}}
	s := newSite(t, site)
	dir := t.TempDir()
	c := crawl(t, dir, recrawlOptions(s.URL+"/"))
	if got := hits(t, c, "per diem allowances"); len(got) != 1 || got[0] != s.URL+"/old/travel" && got[0] != s.URL+"/travel" {
		t.Fatalf("before the changes, the handbook is found at %v; want one of its copies", got)
	}
	travelCluster := records(t, c)[s.URL+"/travel"].Cluster
	if records(t, c)[s.URL+"/old/travel"].Cluster != travelCluster {
		t.Fatal("the archived copy is not in the handbook's cluster")
	}

	site.set("/payroll", "Salaries are now paid on the last working day of the month, and the payroll office moved to building C next to the library.")
	site.set("/canteen", canteen+" Menu of Tuesday 3 March 2026.")
	site.set("/travel", "")                                                                                                                                            // 410 from now on
	site.set("/guide", "The guide was rewritten: visitors now register at the front desk, wear a badge at all times and are escorted to meeting rooms by their host.") // the master changes away from its copy
	watchUntil(t, c, func() bool {
		st := c.Stats()
		return st.Changed >= 2 && st.Trivial >= 1 && st.Gone >= 1 && st.NotModified >= 2
	})

	st := c.Stats()
	if st.Revisits == 0 || st.NotModified == 0 {
		t.Errorf("stats %+v: want revisits answered 304", st)
	}
	for _, r := range site.requests("/old/travel")[1:] {
		if !r.conditional {
			t.Errorf("a revisit of /old/travel at %v was not a conditional GET", r.at)
		}
	}
	if got := hits(t, c, "overtime"); len(got) != 0 {
		t.Errorf("the old payroll text still finds %v", got)
	}
	if got := hits(t, c, "library"); !slices.Equal(got, []string{s.URL + "/payroll"}) {
		t.Errorf("the new payroll text finds %v, want /payroll", got)
	}
	if got := hits(t, c, "per diem allowances"); !slices.Equal(got, []string{s.URL + "/old/travel"}) {
		t.Errorf("after /travel was deleted, the handbook is found at %v; want its copy /old/travel", got)
	}
	recs := records(t, c)
	if r := recs[s.URL+"/travel"]; r.Status != pages.Gone {
		t.Errorf("/travel recorded as %q, want gone", r.Status)
	}
	cl, ok := c.Detector().Cluster(cluster.ID(recs[s.URL+"/old/travel"].Cluster))
	if !ok || cl.Master.ID != s.URL+"/old/travel" || len(cl.Members) != 1 {
		t.Errorf("the handbook's cluster after the deletion: %+v, want /old/travel alone and master", cl)
	}
	if _, ok := c.Detector().Fingerprint(s.URL + "/travel"); ok {
		t.Error("the deleted page is still in the detector")
	}
	for _, o := range recs[s.URL+"/canteen"].Schedule.History {
		if o.Changed {
			t.Errorf("the canteen page's history has a change, but only its date line changed: %+v", recs[s.URL+"/canteen"].Schedule.History)
		}
	}
	if !slices.ContainsFunc(recs[s.URL+"/payroll"].Schedule.History, func(o schedule.Observation) bool { return o.Changed }) {
		t.Errorf("the payroll page's history has no change: %+v", recs[s.URL+"/payroll"].Schedule.History)
	}
	// The guide left its cluster; its copy, elected master in its place,
	// keeps its own schedule: the change is in the guide's history only.
	guide, printed := recs[s.URL+"/guide"], recs[s.URL+"/print/guide"]
	if guide.Cluster == printed.Cluster {
		t.Errorf("the rewritten guide is still in its old copy's cluster %s", guide.Cluster)
	}
	if !slices.ContainsFunc(guide.Schedule.History, func(o schedule.Observation) bool { return o.Changed }) {
		t.Errorf("the rewritten guide's history has no change: %+v", guide.Schedule.History)
	}
	if slices.ContainsFunc(printed.Schedule.History, func(o schedule.Observation) bool { return o.Changed }) {
		t.Errorf("the unchanged printed guide's history has a change: %+v", printed.Schedule.History)
	}
	if got := hits(t, c, "Tuesday"); !slices.Equal(got, []string{s.URL + "/canteen"}) {
		t.Errorf("the canteen's new date finds %v: a trivial change is still indexed", got)
	}

	// The export lists each URL once; the deleted page as gone.
	seen := map[string]string{}
	err := c.View().Entries(func(e Entry) error {
		if prev, dup := seen[e.URL]; dup {
			t.Errorf("export lists %s twice (%s, %s)", e.URL, prev, e.Status)
		}
		seen[e.URL] = e.Status
		return nil
	})
	if err != nil || seen[s.URL+"/travel"] != "gone" || seen[s.URL+"/payroll"] != "fetched" {
		t.Errorf("export: %v, %v; want /travel gone and /payroll fetched", seen, err)
	}

	if sum, err := c.View().Summary(); err != nil || sum.Gone != 1 {
		t.Errorf("summary %+v, %v: want 1 page gone", sum, err)
	}

	// A restart replays the recorded state: the same answers, and the
	// deleted page stays out.
	before := outcomeOf(t, c)
	c.Close()
	c2, err := Open(dir, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if d := before.diff(outcomeOf(t, c2)); d != "" {
		t.Errorf("after a restart:\n%s", d)
	}
	if got := hits(t, c2, "per diem allowances"); !slices.Equal(got, []string{s.URL + "/old/travel"}) {
		t.Errorf("after a restart, the handbook is found at %v", got)
	}
}
