package traps

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// digitTemplate stands in for urlnorm.Template: digits become {n}.
var digits = regexp.MustCompile(`[0-9]+`)

func digitTemplate(u string) string { return digits.ReplaceAllString(u, "{n}") }

func TestGuardRules(t *testing.T) {
	g := NewGuard(Options{MaxPerTemplate: 3, MaxSegments: 4, MaxRepeats: 2, MaxURLLength: 60}, digitTemplate)
	tests := []struct {
		url    string
		ok     bool
		reason string
	}{
		{"http://x/calendar/2026/01", true, ""},
		{"http://x/calendar/2026/02", true, ""},
		{"http://x/calendar/2026/03", true, ""},
		{"http://x/calendar/2026/04", false, "more than 3 URLs like http://x/calendar/{n}/{n}"},
		{"http://x/manual/vpn.html", true, ""},
		{"http://x/a/b/c/d/e", false, "more than 4 path segments"},
		{"http://x/a/a/a", false, `segment "a" repeated more than 2 times`},
		{"http://x/a/b/a/b", true, ""},
		{"http://x/" + strings.Repeat("x", 60), false, "longer than 60 bytes"},
		{"http://x/%zz", false, "invalid URL"},
	}
	for _, tt := range tests {
		ok, reason := g.Admit(tt.url)
		if ok != tt.ok || !strings.Contains(reason, tt.reason) {
			t.Errorf("Admit(%s) = %v, %q; want %v, containing %q", tt.url, ok, reason, tt.ok, tt.reason)
		}
	}
}

// TestInfiniteCalendarBounded walks an infinite calendar the way a crawler
// does (each month links to the next, every month the same empty page) and
// checks that Families stops it, while the Guard alone (no hard budget by
// default) would not; ever-deeper paths the Guard stops by itself.
func TestInfiniteCalendarBounded(t *testing.T) {
	g := NewGuard(Options{}, digitTemplate)
	f := NewFamilies(Options{})
	fetched := 0
	for y, m := 2026, 1; fetched < 10000; m++ {
		if m > 12 {
			y, m = y+1, 1
		}
		u := fmt.Sprintf("http://x/calendar/%d/%02d", y, m)
		if ok, _ := g.Admit(u); !ok {
			t.Fatalf("the guard refused %s", u)
		}
		if _, trapped := f.Trapped(digitTemplate(u)); trapped {
			break
		}
		fetched++
		v := Duplicate
		if fetched == 1 {
			v = Unique // the first empty month is the master of the others
		}
		f.Observe(digitTemplate(u), v, "c-first-month")
	}
	if fetched != 21 {
		t.Errorf("fetched %d calendar pages, want 21 (one master and the default budget of 20 copies)", fetched)
	}
	deep := "http://x/deep"
	depth := 0
	for ; depth < 1000; depth++ {
		deep += "/1"
		if ok, _ := g.Admit(deep); !ok {
			break
		}
	}
	if depth > 12 {
		t.Errorf("followed ever-deeper paths to depth %d", depth)
	}
}

// TestBigTemplateIsNotATrap: a template with thousands of distinct pages
// and a few hundred copies of each other among them (a real API reference)
// is crawled in full, and so is a printer-friendly section whose every page
// copies a page elsewhere; a template whose pages mostly repeat each other,
// are empty or not found is a trap after the budget.
func TestBigTemplateIsNotATrap(t *testing.T) {
	f := NewFamilies(Options{})
	for i := range 10000 {
		v, c := Unique, fmt.Sprint("c", i)
		if i%20 == 1 {
			v, c = Duplicate, fmt.Sprint("c", i-1) // a copy of the page before
		}
		if f.Observe("x/api/{n}", v, c) {
			t.Fatalf("page %d made a template of mostly distinct pages a trap", i)
		}
		if f.Observe("x/print/api/{n}", Duplicate, fmt.Sprint("c", i)) {
			t.Fatalf("printer-friendly copy %d made its section a trap", i)
		}
	}
	if _, trapped := f.Trapped("x/api/{n}"); trapped || !f.HasDuplicates("x/api/{n}") {
		t.Error("the big template is a trap, or its copies were not counted")
	}
	verdicts := []Verdict{Unique, Empty, NotFound, Duplicate}
	var when int
	for i := range 100 {
		if f.Observe("x/list?p={n}", verdicts[i%4], "c-list") {
			when = i + 1
			break
		}
	}
	reason, trapped := f.Trapped("x/list?p={n}")
	if !trapped || when != 27 || !strings.Contains(reason, "20 of the 27 pages like x/list?p={n}") {
		t.Errorf("a template of mostly bad pages: trapped %v after %d pages (%q); want after 27 (20 bad)", trapped, when, reason)
	}
	if f.HasDuplicates("x/none") {
		t.Error("an unknown template has duplicates")
	}
}

func TestOptionsValidate(t *testing.T) {
	if err := (Options{}).Validate(); err != nil {
		t.Error(err)
	}
	if err := (Options{MaxSegments: -1}).Validate(); err == nil || !strings.Contains(err.Error(), "MaxSegments") {
		t.Errorf("negative MaxSegments: %v", err)
	}
}

func TestSoftNotFound(t *testing.T) {
	s := NewSoftNotFound(0)
	notFound := "Acme intranet. Page not found. Sorry, the page you requested could not be found. Contact the service desk."
	if s.Is("x", notFound) {
		t.Error("before Learn nothing is a soft 404")
	}
	s.Learn("x", notFound)
	if !s.Is("x", notFound) {
		t.Error("the not-found page itself is not recognised")
	}
	if s.Is("x", "Connecting to the VPN. Install the client from the software portal, then sign in with your network account.") {
		t.Error("a real page was called a soft 404")
	}
	if s.Is("y", notFound) {
		t.Error("another host's pages were judged by x's probe")
	}
}

func ExampleGuard() {
	g := NewGuard(Options{MaxPerTemplate: 2}, digitTemplate)
	for _, u := range []string{"http://intranet/cal/2026/01", "http://intranet/cal/2026/02", "http://intranet/cal/2026/03"} {
		if ok, reason := g.Admit(u); !ok {
			fmt.Println("refused:", reason)
			continue
		}
		fmt.Println("admitted:", u)
	}
	// Output:
	// admitted: http://intranet/cal/2026/01
	// admitted: http://intranet/cal/2026/02
	// refused: trap: more than 2 URLs like http://intranet/cal/{n}/{n}
}

// TestYields: a family whose requests yield nothing is demoted after
// DemoteUselessAfter of them and stopped after MaxUselessPerFamily; one
// that keeps pages now and then is neither; the reason counts why.
func TestYields(t *testing.T) {
	y := NewYields(Options{DemoteUselessAfter: 3, MaxUselessPerFamily: 6})
	var demotedAt, stoppedAt int
	for i := 1; i <= 10; i++ {
		why := "marked noindex"
		if i%2 == 0 {
			why = "errors"
		}
		d, s := y.Observe("w/*.php?action=*&title=*", Nothing, why)
		if d {
			demotedAt = i
		}
		if s {
			stoppedAt = i
		}
	}
	if demotedAt != 3 || stoppedAt != 6 {
		t.Errorf("demoted at %d, stopped at %d; want 3 and 6", demotedAt, stoppedAt)
	}
	reason, stopped := y.Stopped("w/*.php?action=*&title=*")
	if !stopped || !strings.Contains(reason, "10 of the 10 requests") || !strings.Contains(reason, "5 errors, 5 marked noindex") {
		t.Errorf("Stopped = %q, %v", reason, stopped)
	}
	// Articles with a listing of nothing new now and then: 1 in 10 useful.
	for i := range 100 {
		o := Nothing
		if i%10 == 0 {
			o = Useful
		}
		y.Observe("w/index.php/*", o, "errors")
	}
	if y.Demoted("w/index.php/*") {
		t.Error("a family that keeps a page in ten was demoted")
	}
	if _, stopped := y.Stopped("w/index.php/*"); stopped {
		t.Error("a family that keeps a page in ten was stopped")
	}
	// Useful first, then useless: demoted once 95 % of all are useless.
	for range 2 {
		y.Observe("h/a/*", Useful, "")
	}
	for i := 1; i <= 40; i++ {
		if d, _ := y.Observe("h/a/*", Nothing, "errors"); d && i != 40 {
			t.Errorf("demoted after %d useless of %d requests", i, i+2)
		}
	}
	if !y.Demoted("h/a/*") {
		t.Error("40 useless requests of 42 did not demote the family")
	}
	// Copies demote a family, and never stop it.
	for i := 1; i <= 50; i++ {
		if d, s := y.Observe("h/print/*", Copy, "copies"); d != (i == 3) || s {
			t.Errorf("copy %d: demoted now %v, stopped now %v", i, d, s)
		}
	}
	if got := y.Families(); got["w/*.php?action=*&title=*"] != "stopped" || got["h/a/*"] != "stopped" || got["h/print/*"] != "demoted" || len(got) != 3 {
		t.Errorf("Families() = %v", got)
	}
}

// TestYieldsBrokenLinks: links to pages not there (Missing) demote a
// family, as other useless requests do, but never stop it, whatever
// their number and whatever arrives after them; Nothing of the same
// count stops it. The fourth held-out site's Rust chapters link to the
// whole book, which the site does not hold: 91 broken links of
// /rust/*.html stopped the family, and two real chapters were lost.
func TestYieldsBrokenLinks(t *testing.T) {
	tests := []struct {
		name                 string
		useless              Outcome
		wantDemoted, stopped bool
	}{
		{"broken links", Missing, true, false},
		{"noindex views", Nothing, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			y := NewYields(Options{})
			fam := "127.0.0.1/rust/*.html"
			for range 4 {
				y.Observe(fam, Useful, "")
			}
			for range 91 {
				y.Observe(fam, tt.useless, "why")
			}
			_, stopped := y.Stopped(fam)
			if y.Demoted(fam) != tt.wantDemoted || stopped != tt.stopped {
				t.Errorf("after 4 pages and 91 useless: demoted %v, stopped %v; want %v, %v",
					y.Demoted(fam), stopped, tt.wantDemoted, tt.stopped)
			}
			if d, _ := y.Observe(fam, Useful, ""); d {
				t.Error("a page kept demoted the family")
			}
		})
	}
}
