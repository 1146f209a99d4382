package crawler

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler/frontier"
	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/crawler/schedule"
	"github.com/doppel-search/doppel/page"
)

// revisitNow makes the fetched page url due now, as its schedule would.
func revisitNow(t *testing.T, c *Crawler, url string) {
	t.Helper()
	var b frontier.Batch
	b.Schedule(url, time.Now(), PriorityRevisit, revisitPayload(0))
	if _, err := c.front.Commit(&b); err != nil {
		t.Fatal(err)
	}
}

// run runs c once more, until nothing is due.
func run(t *testing.T, c *Crawler) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.Run(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestListingLeftChecked: a page that a revisited listing stops linking
// to is fetched at once, long before its own revisit, and found deleted;
// a page that stays listed is not fetched again. A change of a listing's
// links counts as a change in its history even when its text barely
// changed. The first change of a listing's links is what teaches the
// crawler that it is one (Record.Links): only from then on are the pages
// that leave it checked.
func TestListingLeftChecked(t *testing.T) {
	site := &livingSite{pages: map[string]string{
		"/":         "Welcome to the intranet: every page of the site is listed here.",
		"/travel":   handbook,
		"/payroll":  payroll,
		"/visitors": visitors,
		"/canteen":  canteen,
	}}
	s := newSite(t, site)
	opts := testOptions(s.URL + "/")
	opts.Revisit = RevisitOptions{MinInterval: time.Hour, MaxInterval: time.Hour, Prior: time.Hour, CopyFactor: 1, Sitemaps: -1}
	c := crawl(t, t.TempDir(), opts)
	home := s.URL + "/"
	if r := records(t, c)[home]; r.LinkHash == 0 || r.Links != nil {
		t.Fatalf("the listing's first record has link hash %x and links %v; want a hash and no links yet", r.LinkHash, r.Links)
	}

	// First change: the canteen page is deleted and leaves the listing.
	// The crawler learns the listing is one; the canteen is not checked.
	site.set("/canteen", "")
	revisitNow(t, c, home)
	run(t, c)
	rec := records(t, c)[home]
	want := []string{s.URL + "/payroll", s.URL + "/travel", s.URL + "/visitors"}
	if !slices.Equal(rec.Links, want) {
		t.Fatalf("after its links changed, the listing keeps %v; want %v", rec.Links, want)
	}
	if n := len(site.requests("/canteen")); n != 1 {
		t.Errorf("/canteen fetched %d times after the listing's first change; want 1", n)
	}

	// Second change: the visitors page leaves the listing and is checked
	// at once; the pages still listed are not fetched again.
	site.set("/visitors", "")
	revisitNow(t, c, home)
	run(t, c)
	reqs := site.requests("/visitors")
	if len(reqs) != 2 || reqs[1].status != http.StatusGone {
		t.Fatalf("/visitors requests %+v; want a second one answered 410", reqs)
	}
	recs := records(t, c)
	if r := recs[s.URL+"/visitors"]; r.Status != pages.Gone {
		t.Errorf("/visitors recorded %q, want gone", r.Status)
	}
	for _, p := range []string{"/travel", "/payroll"} {
		if n := len(site.requests(p)); n != 1 {
			t.Errorf("%s, still listed, fetched %d times; want 1", p, n)
		}
	}
	if st := c.Stats(); st.LinksLeft != 1 {
		t.Errorf("stats %+v: want 1 page checked for leaving a listing", st)
	}
	if got := hits(t, c, "reception"); len(got) != 0 {
		t.Errorf("the deleted visitors page is still found: %v", got)
	}
	changes := 0
	for _, o := range recs[home].Schedule.History {
		if o.Changed {
			changes++
		}
	}
	if changes != 2 {
		t.Errorf("the listing's history %+v has %d changes; want 2 (its links changed twice)", recs[home].Schedule.History, changes)
	}
}

// TestListingLinkChangeIsAChange: when only a listing's links change —
// the same anchor texts, other targets — the page's text is the same but
// its history records a change.
func TestListingLinkChangeIsAChange(t *testing.T) {
	var mu sync.Mutex
	target := "/a"
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		switch r.URL.Path {
		case "/":
			fmt.Fprintf(w, `<html><body><main><p>The newest report of the week is linked below.</p><p><a href="%s">Weekly report</a></p></main></body></html>`, target)
		case "/a":
			fmt.Fprint(w, `<html><body><main><p>`+handbook+`</p></main></body></html>`)
		case "/b":
			fmt.Fprint(w, `<html><body><main><p>`+payroll+`</p></main></body></html>`)
		default:
			http.NotFound(w, r)
		}
	}))
	opts := testOptions(s.URL + "/")
	opts.Revisit = RevisitOptions{MinInterval: time.Hour, MaxInterval: time.Hour, Prior: time.Hour, CopyFactor: 1, Sitemaps: -1}
	c := crawl(t, t.TempDir(), opts)
	revisitNow(t, c, s.URL+"/")
	run(t, c)
	if h := records(t, c)[s.URL+"/"].Schedule.History; len(h) != 1 || h[0].Changed {
		t.Fatalf("history after an unchanged revisit: %+v; want one observation, unchanged", h)
	}
	mu.Lock()
	target = "/b"
	mu.Unlock()
	revisitNow(t, c, s.URL+"/")
	run(t, c)
	recs := records(t, c)
	if h := recs[s.URL+"/"].Schedule.History; !slices.ContainsFunc(h, func(o schedule.Observation) bool { return o.Changed }) {
		t.Errorf("history after the link changed: %+v; want a change", h)
	}
	if r := recs[s.URL+"/b"]; r.Status != pages.Fetched {
		t.Errorf("the newly linked /b is %q, want fetched", r.Status)
	}
	if st := c.Stats(); st.Unchanged != 2 || st.Changed+st.Trivial != 0 {
		t.Errorf("stats %+v: want both revisits to find the same text", st)
	}
}

// TestListingPagesFirst: the further pages of a paginated listing are
// fetched before the pages they list, once the first of them has shown
// that they lead to many new URLs — so the crawl knows the site's extent
// early, and a page deleted before its turn is found deleted, not missed.
func TestListingPagesFirst(t *testing.T) {
	const perPage, lists = 20, 8
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/" || r.URL.Path == "/list":
			k, _ := strconv.Atoi(r.URL.Query().Get("page"))
			var b strings.Builder
			fmt.Fprintf(&b, "<html><body><main><h1>Documents, part %d</h1><ul>", k)
			for i := k * perPage; i < (k+1)*perPage; i++ {
				fmt.Fprintf(&b, `<li><a href="/doc/%d">Document %d</a></li>`, i, i)
			}
			b.WriteString("</ul>")
			if k+1 < lists {
				fmt.Fprintf(&b, `<a href="/list?page=%d">next</a>`, k+1)
			}
			b.WriteString("</main></body></html>")
			fmt.Fprint(w, b.String())
		case strings.HasPrefix(r.URL.Path, "/doc/"):
			n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/doc/"))
			words := strings.Fields(handbook + " " + payroll + " " + visitors + " " + canteen)
			var text []string
			for i := range 40 {
				text = append(text, words[(n*7+i*i*13)%len(words)]+strconv.Itoa(n*100+i))
			}
			fmt.Fprintf(w, "<html><body><main><p>%s</p></main></body></html>", strings.Join(text, " "))
		default:
			http.NotFound(w, r)
		}
	}))
	var order []string
	var mu sync.Mutex
	wrapped := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		order = append(order, r.URL.RequestURI())
		mu.Unlock()
		s.Config.Handler.ServeHTTP(w, r)
	}))
	opts := testOptions(wrapped.URL + "/")
	opts.Parallelism = 1
	c := crawl(t, t.TempDir(), opts)
	if st := c.Stats(); st.Fetched != lists+lists*perPage {
		t.Fatalf("fetched %d pages, want %d: %+v %v", st.Fetched, lists+lists*perPage, st, order)
	}
	last := slices.Index(order, fmt.Sprintf("/list?page=%d", lists-1))
	docs := 0
	for _, u := range order[:last] {
		if strings.HasPrefix(u, "/doc/") {
			docs++
		}
	}
	// The second listing page comes after the first page's documents
	// (nothing is known of its kind before); the others right after it.
	if docs > perPage+2 {
		t.Errorf("%d documents were fetched before the last listing page; want at most %d: %v", docs, perPage+2, order[:last+1])
	}
}

// TestListingInterval: a listing is due after the mean time between its
// changes — not more than the average interval, nor than the listings'
// share of the budget allows, not less than the minimum — however fast
// it changes.
func TestListingInterval(t *testing.T) {
	rc := newRecrawl(RevisitOptions{Budget: 1, MinInterval: time.Minute, MaxInterval: 24 * time.Hour, Prior: 24 * time.Hour})
	for i := range 3600 { // 3,600 pages at 1 fetch/s: the average interval is an hour
		rc.states[strconv.Itoa(i)] = schedule.State{}
		if i < 300 { // 300 listings at a fiftieth of the budget: 250 minutes
			setKind(rc, strconv.Itoa(i), true, false)
		}
	}
	every := func(interval time.Duration, changed bool, n int) []schedule.Observation {
		h := make([]schedule.Observation, n)
		for i := range h {
			h[i] = schedule.Observation{Interval: interval, Changed: changed}
		}
		return h
	}
	alternate := func(interval time.Duration, n int) []schedule.Observation {
		h := make([]schedule.Observation, n)
		for i := range h {
			h[i] = schedule.Observation{Interval: interval, Changed: i%2 == 0}
		}
		return h
	}
	tests := []struct {
		name    string
		history []schedule.Observation
		lo, hi  time.Duration
	}{
		{"no history: the average", nil, time.Hour, time.Hour},
		{"changes seldom: the average", every(5*time.Hour, false, 10), time.Hour, time.Hour},
		{"a change in every other 5-minute interval: every 7 minutes or so", alternate(5*time.Minute, 20), 5 * time.Minute, 10 * time.Minute},
		{"changes at every look, every 30 s: the minimum", every(30*time.Second, true, 60), time.Minute, time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := rc.listing("http://h/l", schedule.State{History: tt.history})
			if got < tt.lo || got > tt.hi {
				t.Errorf("interval %v, want within [%v, %v]", got, tt.lo, tt.hi)
			}
		})
	}
	for _, tt := range []struct {
		listings int
		want     time.Duration
	}{{30, 25 * time.Minute}, {1, time.Minute}, {300, time.Hour}} {
		t.Run(fmt.Sprintf("%d listings, changes seldom", tt.listings), func(t *testing.T) {
			for i := range 300 {
				setKind(rc, strconv.Itoa(i), i < tt.listings, false)
			}
			if got := rc.listing("http://h/l", schedule.State{History: every(5*time.Hour, false, 10)}); got != tt.want {
				t.Errorf("interval %v, want %v (the listings' share of the budget, within the bounds)", got, tt.want)
			}
		})
	}
}

// setKind counts url in rc as a listing, a page that may be one
// (Record.LinksOnly), or neither.
func setKind(rc *recrawl, url string, listing, candidate bool) {
	rec := pages.Record{Page: page.Page{URL: url}}
	if listing || candidate {
		rec.Links, rec.LinksOnly = []string{url + "/a"}, candidate
	}
	rc.setListing(&rec)
}

// TestListingFirstChangeChecked: a page with ListingLinks main-content
// links or more keeps them from its first fetch (Record.LinksOnly), so
// the first change of its links is a diff too: the page that left it is
// fetched at once and found deleted. It is a listing (revisited as one)
// only from that change on.
func TestListingFirstChangeChecked(t *testing.T) {
	words := strings.Fields("budget travel canteen payroll visitors parking library archive minutes policy holiday training")
	site := &livingSite{pages: map[string]string{"/": "The archive: every report of the office is listed here."}}
	for i := range pages.ListingLinks + 5 {
		site.pages["/r/"+strconv.Itoa(i)] = fmt.Sprintf("Report %d on the %s and the %s, filed in week %d by desk %d.",
			i, words[i%len(words)], words[(i*7+3)%len(words)], i*13%52, i*31%97)
	}
	s := newSite(t, site)
	opts := testOptions(s.URL + "/")
	opts.Revisit = RevisitOptions{MinInterval: time.Hour, MaxInterval: time.Hour, Prior: time.Hour, CopyFactor: 1, Sitemaps: -1}
	c := crawl(t, t.TempDir(), opts)
	home := s.URL + "/"
	if r := records(t, c)[home]; len(r.Links) != pages.ListingLinks+5 || !r.LinksOnly || r.Listing() {
		t.Fatalf("the first record keeps %d links (links only %v, listing %v); want %d, kept before any change, not yet a listing",
			len(r.Links), r.LinksOnly, r.Listing(), pages.ListingLinks+5)
	}

	site.set("/r/7", "")
	revisitNow(t, c, home)
	run(t, c)
	reqs := site.requests("/r/7")
	if len(reqs) != 2 || reqs[1].status != http.StatusGone {
		t.Fatalf("/r/7 requests %+v; want a second one answered 410 after the listing's first change", reqs)
	}
	recs := records(t, c)
	if r := recs[s.URL+"/r/7"]; r.Status != pages.Gone {
		t.Errorf("/r/7 recorded %q, want gone", r.Status)
	}
	if r := recs[home]; len(r.Links) != pages.ListingLinks+4 || r.LinksOnly || !r.Listing() {
		t.Errorf("after the change the record keeps %d links (links only %v, listing %v); want %d and a listing",
			len(r.Links), r.LinksOnly, r.Listing(), pages.ListingLinks+4)
	}
	if n := len(site.requests("/r/8")); n != 1 {
		t.Errorf("/r/8, still listed, fetched %d times; want 1", n)
	}
}

// TestCandidateFirstRevisit: a page with ListingLinks links or more, kept
// from its first fetch (Record.LinksOnly), is due again within the
// candidates' share of the budget from that first fetch on, though the
// schedule, which has seen it change no more than a slow page, would put
// it off for many times as long. Until it is, a deletion among its pages
// is seen only at their own revisits: on the kit's living site its 21
// listings were first looked at again 9 to 36 minutes after discovery.
// The same page without its links (not a candidate) keeps the schedule's
// interval.
func TestCandidateFirstRevisit(t *testing.T) {
	const budget, n, listings = 5.0, 2000, 21
	rc := newRecrawl(RevisitOptions{Budget: budget, MinInterval: time.Minute, MaxInterval: 24 * time.Hour, Prior: 24 * time.Hour})
	c := &committer{opts: &Options{Revisit: RevisitOptions{CopyFactor: 1, MaxInterval: 24 * time.Hour}}, revisitPlan: revisitPlan{recrawl: rc}}
	start := time.Unix(1_000_000, 0)
	for i := range n { // discovery at the budget; each page last changed 1 to 97 minutes before its fetch
		u := "http://h/p/" + strconv.Itoa(i)
		at := start.Add(time.Duration(float64(i) / budget * float64(time.Second)))
		rec := pages.Record{Page: page.Page{URL: u, LastModified: at.Add(-time.Duration(i%97+1) * time.Minute)}}
		c.nextVisit(&rec, false, true, at)
	}
	for k := range listings - 1 {
		setKind(rc, "http://h/list?k="+strconv.Itoa(k), false, true)
	}
	now := start.Add(n / budget * time.Second)
	links := []string{"http://h/p/1", "http://h/p/2"}
	plain := pages.Record{Page: page.Page{URL: "http://h/list?k=20"}}
	slow := c.nextVisit(&plain, false, true, now).Sub(now)
	cand := pages.Record{Page: page.Page{URL: "http://h/list?k=20"}, Links: links, LinksOnly: true}
	got := c.nextVisit(&cand, false, true, now).Sub(now)
	bound := time.Duration(listings / (listingShare * budget) * float64(time.Second)) // 210 s
	if got > bound {
		t.Errorf("a page that may be a listing is due after %v; want at most %v (%d of them at a fiftieth of %g fetches/s)", got, bound, listings, budget)
	}
	if slow < 4*bound {
		t.Errorf("the same page without its links is due after %v; the test needs the schedule to put it off beyond %v", slow, 4*bound)
	}
	if _, ok := rc.candidates[cand.URL]; !ok || len(rc.listings) != 0 {
		t.Errorf("candidates %d (the page among them: %v), listings %d; want the page a candidate and no listing", len(rc.candidates), ok, len(rc.listings))
	}
	if !revisitsFirst(&cand) || revisitsFirst(&plain) {
		t.Error("want the candidate's revisit before the other revisits due, and the plain page's not")
	}
}

// TestCandidateShare: the pages that may be listings together take at
// most a fiftieth of the budget, whatever their number and apart from
// the listings': a site with thousands of tables of contents does not
// spend its budget on them, nor do they slow the listings' revisits.
func TestCandidateShare(t *testing.T) {
	rc := newRecrawl(RevisitOptions{Budget: 1, MinInterval: time.Minute, MaxInterval: 24 * time.Hour, Prior: 24 * time.Hour})
	for i := range 3600 { // the average interval is an hour
		rc.states[strconv.Itoa(i)] = schedule.State{}
	}
	for _, tt := range []struct {
		candidates int
		want       time.Duration
	}{{30, 25 * time.Minute}, {720, 10 * time.Hour}, {1428, 19*time.Hour + 50*time.Minute}, {3570, 24 * time.Hour}} {
		for i := range 3600 {
			setKind(rc, strconv.Itoa(i), i < 30, i >= 30 && i < 30+tt.candidates)
		}
		if got := rc.candidate(); got != tt.want {
			t.Errorf("%d candidates: interval %v, want %v (a fiftieth of the budget, not held to the average hour)", tt.candidates, got, tt.want)
		}
		if got := rc.listingBound(); got != 25*time.Minute {
			t.Errorf("%d candidates: the 30 listings' interval %v, want 25m0s (their own share)", tt.candidates, got)
		}
	}
}

// TestListingsKeepTheirShare: listings that change at every look — as
// every listing after one deleted does when a site lists its pages a
// hundred a listing in order — together take no more than their share
// of the budget, and each its part by the square root of its rate: at
// their own rates they would each be revisited every minute.
func TestListingsKeepTheirShare(t *testing.T) {
	const budget, n = 5.0, 20
	rc := newRecrawl(RevisitOptions{Budget: budget, MinInterval: time.Minute, MaxInterval: 24 * time.Hour, Prior: 24 * time.Hour})
	for i := range 2000 {
		rc.states[strconv.Itoa(i)] = schedule.State{}
	}
	changing := func(every time.Duration) []schedule.Observation {
		h := make([]schedule.Observation, 10)
		for i := range h {
			h[i] = schedule.Observation{Interval: every, Changed: true}
		}
		return h
	}
	every := func(k int) time.Duration { return time.Duration(40+10*k) * time.Second } // 40 s to 3m50s
	for k := range n {
		setKind(rc, "http://h/list?k="+strconv.Itoa(k), true, false)
	}
	got := make([]time.Duration, n)
	for range 2 { // the second round sees every listing's rate
		for k := range n {
			got[k] = rc.listing("http://h/list?k="+strconv.Itoa(k), schedule.State{History: changing(every(k))})
		}
	}
	var rate float64
	for k, d := range got {
		rate += 1 / d.Seconds()
		if k > 0 && d < got[k-1] {
			t.Errorf("listing %d (changes every %v) due after %v, sooner than listing %d (every %v) after %v", k, every(k), d, k-1, every(k-1), got[k-1])
		}
	}
	if share := listingShare * budget; rate > share*1.001 {
		t.Errorf("the listings take %.3f fetches/s; want at most their share, %.3f (intervals %v)", rate, share, got)
	}
	if rate < listingShare*budget*0.99 {
		t.Errorf("the listings take %.3f fetches/s; want their share, %.3f: they all change", rate, listingShare*budget)
	}
	rc.forgetListing("http://h/list?k=0")
	rc.setListing(&pages.Record{Page: page.Page{URL: "http://h/list?k=1"}})
	if len(rc.roots) != n-2 {
		t.Errorf("%d roots after two listings left; want %d", len(rc.roots), n-2)
	}
}
