package crawler

import (
	"context"
	"testing"
	"time"
)

// TestChanged: a change notification sent while a kept-alive crawl runs
// makes a page it names fetched again at once (conditionally, as a
// revisit), though its schedule would wait an hour, and a page not yet
// known fetched as a new one; a page it does not name is left to its
// schedule; URLs the crawl may not fetch each get a reason.
func TestChanged(t *testing.T) {
	site := &livingSite{pages: map[string]string{
		"/": "Welcome to the intranet.", "/payroll": payroll, "/canteen": canteen, "/private/x": visitors,
	}}
	s := newSite(t, site)
	opts := testOptions(s.URL + "/")
	opts.Exclude = []string{`/private/`}
	opts.RefreshInterval = 50 * time.Millisecond // the first fetches committed (their revisits scheduled) at once
	opts.Revisit = RevisitOptions{MinInterval: time.Hour, MaxInterval: 2 * time.Hour, Sitemaps: -1}
	c, err := Open(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- c.Watch(ctx) }()
	defer func() {
		cancel()
		if err := <-errc; err != nil && err != context.Canceled {
			t.Error(err)
		}
	}()
	waitFor := func(what string, done func() bool) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); !done(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within 20 s (stats %+v)", what, c.Stats())
			}
		}
	}
	waitFor("the first crawl", func() bool { st := c.Stats(); return st.Fetched >= 3 && st.Scheduled >= 3 })

	site.set("/payroll", "Salaries are now paid on the last working day of the month.")
	site.set("/new", canteen+" A page the CMS just published.")
	got, err := c.Changed([]string{s.URL + "/payroll", s.URL + "/new", "http://elsewhere.example/payroll", s.URL + "/private/x", "http://[::1"})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{true, true, false, false, false} {
		if got[i].Queued != want || want != (got[i].Reason == "") {
			t.Errorf("%s: queued %v, reason %q; want queued %v, and a reason when not", got[i].URL, got[i].Queued, got[i].Reason, want)
		}
	}
	waitFor("the notified pages fetched", func() bool {
		return len(site.requests("/payroll")) >= 2 && len(site.requests("/new")) >= 1
	})
	if r := site.requests("/payroll"); !r[1].conditional || r[1].status != 200 {
		t.Errorf("the notified revisit of /payroll: conditional %v, status %d; want a conditional GET answered with the new page", r[1].conditional, r[1].status)
	}
	if n := len(site.requests("/canteen")); n != 1 {
		t.Errorf("/canteen, not notified, was requested %d times; want once (its revisit is an hour away)", n)
	}
	if n := len(site.requests("/private/x")); n != 0 {
		t.Errorf("the excluded page was requested %d times", n)
	}
	if _, err := c.Changed(make([]string, MaxChanged+1)); err != ErrTooManyChanged {
		t.Errorf("%d URLs: %v, want ErrTooManyChanged", MaxChanged+1, err)
	}
}
