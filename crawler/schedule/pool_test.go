package schedule

import (
	"fmt"
	"math"
	"math/rand/v2"
	"net/url"
	"slices"
	"testing"
	"time"
)

func TestGroup(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"https://h/news/2024/a.html", "h/news/*"},
		{"https://h/news/2025/b.html", "h/news/*"},
		{"https://h/docs/java/api/x.html", "h/docs/java"},
		{"https://h/p/17", "h/p"},
		{"https://h/list?k=3", "h"},
		{"https://h/", "h"},
		{"https://other/p/17", "other/p"},
		{"https://h//x/y", "h/*/x"},
		{"https://h/a/b/c/d", "h/a/b"},
		{"https://Host:8080/A-b/c.html#top", "Host:8080/A-b"},
		{"https://user@h/news/1/x", "h/news/*"},
		{"https://h/caf%C3%A9/1/x", "h/caf%C3%A9/*"},
		{"https://h/a b/c/x", "h/a%20b/c"},
		{"http://[::1]:80/s/t/u", "[::1]:80/s/t"},
		{"not a url\x7f://", ""},
	} {
		if got := Group(tc.url); got != tc.want {
			t.Errorf("Group(%q) = %q, want %q", tc.url, got, tc.want)
		}
		// Read in place or by url.Parse, the same group.
		if u, err := url.Parse(tc.url); err == nil {
			if host, path, ok := splitPlain(tc.url); ok && (host != u.Host || path != u.EscapedPath()) {
				t.Errorf("splitPlain(%q) = %q, %q; url.Parse gives %q, %q", tc.url, host, path, u.Host, u.EscapedPath())
			}
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = appendGroup(make([]byte, 0, 64)[:0], "https://h/news/2024/a.html") }); n > 1 {
		t.Errorf("appendGroup of a plain URL allocates %v times, want at most the buffer", n)
	}
}

// TestFirstFetchDates: a first fetch's Last-Modified dates the page's
// last change, unless other pages of its group gave the same date.
func TestFirstFetchDates(t *testing.T) {
	a := NewAdaptive(Options{Budget: 1})
	at := time.Unix(1_000_000, 0)
	deploy := at.Add(-time.Hour)
	var own, shared1, shared2, recent State
	a.Observe("http://h/p/1", &own, at, false, at.Add(-10*time.Minute))
	a.Observe("http://h/p/2", &shared1, at, false, deploy)
	a.Observe("http://h/p/3", &shared2, at, false, deploy)
	a.Observe("http://h/p/4", &recent, at, false, at.Add(-time.Second))
	for _, tc := range []struct {
		name    string
		s       State
		changed bool
		age     time.Duration
	}{
		{"its own date", own, true, 10 * time.Minute},
		{"the first to give the deployment's date", shared1, true, time.Hour},
		{"the second to give it", shared2, false, time.Hour},
	} {
		if len(tc.s.History) != 1 || !tc.s.History[0].First || tc.s.History[0].Changed != tc.changed || tc.s.History[0].Interval != tc.age {
			t.Errorf("%s: history %+v, want one First observation of %v, changed %v", tc.name, tc.s.History, tc.age, tc.changed)
		}
	}
	if len(recent.History) != 0 {
		t.Errorf("a date a second before the fetch (a generated page's) was kept: %+v", recent.History)
	}
}

// TestLastModifiedFirstFetchHelps: pages with known Poisson rates fetched
// three times: the estimate with the dates the server gives, from the
// first fetch on, is closer to the true rate than without them.
func TestLastModifiedFirstFetchHelps(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	var withErr, withoutErr []float64
	dated := 0
	for range 400 {
		mean := math.Exp(math.Log(300) + r.Float64()*math.Log(48)) // 5 min to 4 h
		changes := poisson(r, 1/mean, 4*3600)
		fetches := []float64{3600, 3600 + 1200, 3600 + 2400} // the site is an hour old at the first
		with := observe(changes, fetches, true)
		without := observe(changes, fetches, false)
		if len(with.History) > 0 && with.History[0].First {
			dated++
		}
		prior := Prior{Mean: time.Hour}
		withErr = append(withErr, math.Abs(math.Log(EstimateRate(with.History, prior)*mean)))
		withoutErr = append(withoutErr, math.Abs(math.Log(EstimateRate(without.History, prior)*mean)))
	}
	if dated < 390 {
		t.Errorf("%d of 400 first fetches dated, want all but those within a few seconds of a change", dated)
	}
	slices.Sort(withErr)
	slices.Sort(withoutErr)
	w, wo := withErr[len(withErr)/2], withoutErr[len(withoutErr)/2]
	t.Logf("median |log(estimate/true)|: %.2f with Last-Modified, %.2f without", w, wo)
	if w >= wo {
		t.Errorf("Last-Modified did not help: median log error %.2f with, %.2f without", w, wo)
	}
}

// TestPooledPrior: two groups of pages, one changing every few minutes,
// one every few hours. Once their members have been observed, each
// group's prior has about its members' rate, and a page new to the fast
// group is due much sooner than one new to the slow group.
func TestPooledPrior(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	a := NewAdaptive(Options{Budget: 1.0 / 10, MinInterval: time.Second, MaxInterval: 24 * time.Hour, Prior: time.Hour})
	start := time.Unix(1_000_000, 0)
	at := func(sec float64) time.Time { return start.Add(time.Duration(sec * float64(time.Second))) }
	groups := []struct {
		prefix string
		mean   float64 // seconds between changes
	}{{"http://h/fast/", 300}, {"http://h/slow/", 4 * 3600}}
	const horizon = 3 * 3600.0
	for _, g := range groups {
		for i := range 50 {
			mean := g.mean * (0.5 + r.Float64())
			changes := poisson(r, 1/mean, horizon)
			var s State
			for f := r.Float64() * 600; f < horizon; f += 600 {
				k := sortSearch(changes, f)
				changed := !s.LastFetch.IsZero() && k > 0 && at(changes[k-1]).After(s.LastFetch)
				a.Observe(fmt.Sprintf("%s%d", g.prefix, i), &s, at(f), changed, time.Time{})
			}
		}
	}
	for _, g := range groups {
		pr, ok := a.pool(g.prefix + "new").Prior()
		if !ok {
			t.Fatalf("%s: no prior after 50 pages", g.prefix)
		}
		mean := pr.Exposure.Seconds() / pr.Changes
		t.Logf("%s: prior mean interval %.0f s (true about %.0f), shape %.2f, static %.2f", g.prefix, mean, g.mean, pr.Changes, pr.Static)
		if mean < g.mean/3 || mean > g.mean*3 {
			t.Errorf("%s: the prior's mean interval %.0f s, want within 3× of %.0f s", g.prefix, mean, g.mean)
		}
	}
	var fast, slow State
	a.Observe("http://h/fast/new", &fast, at(horizon), false, time.Time{})
	a.Observe("http://h/slow/new", &slow, at(horizon), false, time.Time{})
	if f, s := a.Next(&fast), a.Next(&slow); f*4 > s {
		t.Errorf("a new page of the fast group is due in %v, of the slow group in %v: want the fast one at least 4× sooner", f, s)
	}
}

// TestPoolForget: a member that leaves takes its statistics with it.
func TestPoolForget(t *testing.T) {
	var p Pool
	p.Add(0, 0, 3, time.Hour)
	p.Add(0, 0, 1, 2*time.Hour)
	p.Add(3, time.Hour, 0, 0)
	var q Pool
	q.Add(0, 0, 1, 2*time.Hour)
	if p.pages != q.pages || math.Abs(p.n-q.n) > 1e-9 || math.Abs(p.t-q.t) > 1e-6 || math.Abs(p.tt-q.tt) > 1e-3 || p.unchanged != q.unchanged {
		t.Errorf("after a member left: %+v, want %+v", p, q)
	}
}

// TestPlanRatesOldStates: a state recorded before rates were kept (no
// Rate) gets one when the policy is rebuilt from the states, so it is
// not taken for a page that never changes.
func TestPlanRatesOldStates(t *testing.T) {
	a := NewAdaptive(Options{Budget: 1.0 / 60, MinInterval: time.Second, MaxInterval: 24 * time.Hour, Prior: time.Hour})
	old := &State{LastFetch: time.Unix(1_000_000, 0), History: []Observation{
		{Interval: 10 * time.Minute, Changed: true}, {Interval: 10 * time.Minute}, {Interval: 10 * time.Minute, Changed: true}}}
	a.Plan(func(yield func(string, *State) bool) { yield("http://h/p/1", old) })
	if old.Rate <= 0 {
		t.Fatalf("rate after Plan: %v, want one estimated from the history", old.Rate)
	}
	if got := a.Next(old); got >= 24*time.Hour {
		t.Errorf("a page that changed twice in 30 minutes is due in %v, the maximum", got)
	}
}

// TestChangeFreqPrior: a sitemap's changefreq is a weak prior. On
// simulated living sites (2,000 pages, 5 fetches/s, seeds 1–3) whose
// sitemaps say "hourly" for the pages that change and "yearly" for those
// that do not (right: the vocabulary's nearest word to every changing
// page's mean of 1 minute to 4 hours is "hourly"), the schedule keeps
// more pages fresh in minutes 10–20 than without hints. Where they lie —
// "yearly" for the pages that change, "hourly" for the others — it keeps
// fewer at first, and over two hours the page's own fetches outweigh
// the hint: minutes 60–120 as fresh as without hints, within half a
// point.
func TestChangeFreqPrior(t *testing.T) {
	const (
		pages  = 2000
		budget = 5.0
		hourly = time.Hour
		yearly = 365 * 24 * time.Hour
	)
	hintsFor := func(rates []float64, lie bool) []time.Duration {
		h := make([]time.Duration, len(rates))
		for i, l := range rates {
			if (l > 0) != lie {
				h[i] = hourly
			} else {
				h[i] = yearly
			}
		}
		return h
	}
	run := func(changes [][]float64, hints []time.Duration, horizon, from float64) (float64, *Adaptive) {
		a := NewAdaptive(livingOptions(budget))
		f, _, _ := simulateHinted(a, changes, hints, budget, horizon, from)
		return f, a
	}
	for _, seed := range []uint64{1, 2, 3} {
		changes, rates := livingSite(seed, pages, 1200)
		none, _ := run(changes, nil, 1200, 600)
		right, _ := run(changes, hintsFor(rates, false), 1200, 600)
		lie, _ := run(changes, hintsFor(rates, true), 1200, 600)
		t.Logf("seed %d, minutes 10–20 of 20: no hints %.3f, right %.3f, lying %.3f", seed, none, right, lie)
		if right < none+0.005 {
			t.Errorf("seed %d: right changefreq hints keep %.3f fresh, no better than none (%.3f)", seed, right, none)
		}
		if lie >= none {
			t.Errorf("seed %d: lying hints keep %.3f fresh, not below none (%.3f): the test's lie does not bite", seed, lie, none)
		}
	}
	changes, rates := livingSite(1, pages, 7200)
	none, _ := run(changes, nil, 7200, 3600)
	lie, _ := run(changes, hintsFor(rates, true), 7200, 3600)
	t.Logf("seed 1, minutes 60–120 of 120: no hints %.3f, lying %.3f", none, lie)
	if lie < none-0.005 {
		t.Errorf("lying hints keep %.3f fresh over the second hour, against %.3f without: the prior does not wash out", lie, none)
	}
}
