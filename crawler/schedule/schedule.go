// Package schedule decides when a crawler fetches a page again, from the
// page's change history, under a fetch budget.
//
// Every fetch of a page is an Observation: how long since the fetch
// before, and whether the page changed in between (a real change — a
// fetch that found the same content, or a trivial change such as a new
// date line, is not one; the crawler decides with the exact content hash
// and the SimHash it keeps per page). From a page's observations
// EstimateRate computes the maximum-likelihood rate of a Poisson change
// process (Cho & Garcia-Molina 2003: changes are detected only at fetches,
// at irregular intervals; a Last-Modified time narrows when a change
// happened). Given the rates of all pages and a budget of fetches per
// second, Allocate finds the revisit frequency of each page that maximizes
// the expected share of fresh pages (Cho & Garcia-Molina 2000, "Synchronizing
// a database to improve freshness"): a page that changes faster than the
// budget can follow gets no more visits than the slowest schedule allows,
// because visiting it cannot keep it fresh.
//
// A Policy turns a page's State into its next fetch time. Adaptive is
// Doppel's (the allocation above); Uniform (every page at the same
// interval) and Nutch (Apache Nutch's AdaptiveFetchSchedule: the interval
// grows by 40 % after a fetch without change and shrinks by 20 % after a
// change) are the baselines it is measured against.
package schedule

import (
	"math"
	"slices"
	"time"
)

// An Observation is one fetch of a page (or several in a row that saw no
// change): Interval since the fetch before, and whether a real change
// happened in it. When the server's Last-Modified time dated the change,
// Quiet is how long before the fetch it happened (the page then stayed
// unchanged for Quiet); 0 if unknown.
//
// The first fetch of a page whose server dated its last change (a
// Last-Modified time) is an Observation too, with First set: the page
// has not changed for Interval before the fetch, and, if Changed, it
// changed then (the date is the page's own change, not the date of a
// whole site's deployment or of the page's creation: see
// Adaptive.Observe). So a page has a rate from its first fetch on,
// before Doppel has seen it change.
type Observation struct { // the durations first: 24 bytes
	Interval time.Duration `json:"Interval"`
	Quiet    time.Duration `json:"Quiet,omitempty"`
	Changed  bool          `json:"Changed,omitempty"`
	First    bool          `json:"first,omitempty"`
}

// MaxHistory is how many observations a State keeps (the most recent).
// Consecutive fetches without change are kept as one observation (only
// their sum matters to the estimate), so this is about MaxHistory/2
// changes.
const MaxHistory = 64

// State is what the schedule keeps of a page. The zero value is a page
// never fetched. It is a value; the crawler stores it with the page.
type State struct {
	LastFetch time.Time     `json:"last_fetch,omitzero"`
	History   []Observation `json:"history,omitempty"`
	// Interval is the Nutch policy's current interval (0: not set).
	Interval time.Duration `json:"interval,omitempty"`
	// Rate is the Adaptive policy's estimate of the page's change rate
	// (per second) as of its last fetch: what the allocation counts it
	// as until the next.
	Rate float64 `json:"rate,omitempty"`
	// Shape and Static are the rest of the posterior Rate is the mean
	// of (see estimate): what Thompson sampling draws from.
	Shape  float32 `json:"shape,omitempty"`
	Static float32 `json:"static,omitempty"`
	// ChangeFreq is what the site says of the page's changes — a
	// sitemap's <changefreq> as an interval (hourly: 1 h) — or 0. The
	// Adaptive policy takes it as a weak prior (see Prior.ChangeFreq):
	// a sitemap's changefreq is often wrong, so it counts as half a
	// change, and the page's own fetches soon outweigh it.
	ChangeFreq time.Duration `json:"changefreq,omitempty"`
}

// minAge is the youngest Last-Modified age a first fetch takes as a
// date: a server that dates every answer now (a generated page) says
// nothing of when the page changed.
const minAge = 2 * time.Second

// Observe adds a fetch at time at that found the page changed (or not) and,
// if known, the time the page was last modified. At the first fetch, a
// modification time at least minAge before it is kept as a First
// observation (taken as the page's own change).
func (s *State) Observe(at time.Time, changed bool, modified time.Time) {
	if s.LastFetch.IsZero() && !modified.IsZero() && at.Sub(modified) >= minAge {
		s.History = append(s.History, Observation{Interval: at.Sub(modified), Changed: true, First: true})
	}
	if !s.LastFetch.IsZero() && at.After(s.LastFetch) {
		o := Observation{Interval: at.Sub(s.LastFetch), Changed: changed}
		if changed && !modified.IsZero() && modified.After(s.LastFetch) && !modified.After(at) {
			o.Quiet = at.Sub(modified)
		}
		if n := len(s.History); !changed && n > 0 && !s.History[n-1].Changed {
			s.History[n-1].Interval += o.Interval
		} else {
			s.History = append(s.History, o)
		}
		if n := len(s.History); n > MaxHistory {
			s.History = slices.Delete(s.History, 0, n-MaxHistory)
		}
	}
	s.LastFetch = at
}

// Prior is a belief about a page's rate before it has been observed
// much. Mean is a weak default: as if the page had been seen unchanged
// for Mean and changed once in an interval of Mean. With it, a page seen
// twice unchanged is not taken for one that never changes, nor a page
// seen changed once for one that changes continuously.
//
// Changes and Exposure, when Changes > 0, are a Gamma(Changes, Exposure)
// prior instead — as if Changes changes had been counted in Exposure —
// learned from the page's group (see Pool): its mean is the group's mean
// rate, its weight how alike the group's pages are. Static is then the
// share of the group's pages taken never to change: a page never seen
// changing is static with probability s/(s + (1−s)·(β/(β+T))^α) after
// T seen unchanged (α = Changes, β = Exposure), and its rate is the
// Gamma posterior's mean times the probability that it is not.
//
// ChangeFreq, if set, is the page's own hint (State.ChangeFreq): a Gamma
// prior of its rate, 1/ChangeFreq, weighing as much as hintExposure of
// observation (at most half its interval), added to either prior. A page
// whose sitemap says "hourly" starts faster than its group (half a change
// in half an hour), one that says "yearly" slower (as if seen unchanged
// two hours more), and a wrong hint washes out as the page's own fetches
// accumulate: a hint weighing as much as half its interval would, for
// "yearly", outweigh months of fetches.
type Prior struct {
	Mean       time.Duration
	Changes    float64
	Exposure   time.Duration
	Static     float64
	ChangeFreq time.Duration
}

// hintExposure is the most a changefreq hint (Prior.ChangeFreq) weighs:
// as much as observing the page this long. On simulated living sites
// (TestChangeFreqPrior) 2 hours gains a point of freshness in 20 minutes
// where the hints are right and loses none by the second hour where they
// lie; 8 hours gains 1.4 points and still loses one after two hours.
const hintExposure = 2 * time.Hour

// hint returns the pseudo-changes and exposure (seconds) of the prior's
// changefreq hint; zero without one.
func (p Prior) hint() (changes, exposure float64) {
	if p.ChangeFreq <= 0 {
		return 0, 0
	}
	t := min(hintExposure.Seconds(), p.ChangeFreq.Seconds()/2)
	return t / p.ChangeFreq.Seconds(), t
}

// stats returns what history counts for a group's statistics: its
// changes and the time they were counted in. A change the server dated
// counts the time since it (with it, the likelihood of the history is a
// Poisson count's: λⁿe^{−λt}); an undated one the whole interval.
func stats(history []Observation) (changes float64, exposure time.Duration) {
	for _, o := range history {
		switch {
		case o.Changed && !o.First && o.Quiet > 0 && o.Quiet < o.Interval:
			changes++
			exposure += o.Quiet
		case o.Changed:
			changes++
			exposure += o.Interval
		default:
			exposure += o.Interval
		}
	}
	return changes, exposure
}

// EstimateRate returns the change rate (changes per second) of a Poisson
// process observed as history, with prior's pseudo-observations added:
// the maximum-likelihood rate with the Mean prior, the posterior mean
// with a Gamma prior when every change is dated. A fetch interval I that
// saw no change has likelihood e^{−λI}; one that saw a change,
// 1 − e^{−λI} (Cho & Garcia-Molina 2003, irregular access); one whose
// last change the server dated Quiet before the fetch (Last-Modified),
// λe^{−λ·Quiet} — a change then, none since — which is sharper, and
// holds for any spacing of the fetches (Li, Cline & Loguinov 2017). A
// First observation is the age the server gave at the first fetch:
// e^{−λI}, times λ if the date is the page's own change. A page never
// seen changing may be static (Prior.Static). A history without change
// and a zero prior gives 0. Cost: O(len(history)·60)
// (bisection on the rate).
func EstimateRate(history []Observation, prior Prior) float64 {
	rate, _, _ := estimate(history, prior)
	return rate
}

// estimate returns EstimateRate's rate and the posterior it is the mean
// of, as Thompson sampling draws from it: a page static with probability
// static, else of a rate Gamma-distributed with the given shape (the
// changes counted, the prior's included) and mean rate/(1 − static).
// With undated changes the posterior is not a Gamma; the one of the same
// mean and the same count of changes stands for it.
func estimate(history []Observation, prior Prior) (rate, shape, static float64) {
	var buf [MaxHistory + 1]float64 // the intervals changed: no allocation per estimate
	changed, dated, quiet := tally(buf[:0], history, prior)
	if len(changed) == 0 && dated == 0 {
		return 0, 0, 0
	}
	shape = dated + float64(len(changed))
	if quiet == 0 {
		quiet = 1e-3 // every interval changed: the rate is high, not infinite
	}
	if len(changed) == 0 { // the root in closed form
		rate, static = closedForm(dated, quiet, prior)
		return rate, shape, static
	}
	return likeliestRate(changed, dated, quiet), shape, 0
}

// tally sums a history and its prior: the intervals in which a change
// was seen, undated (seconds, appended to changed); the changes dated by
// Last-Modified (and the Gamma prior's); and the total seconds known
// without change.
func tally(changed []float64, history []Observation, prior Prior) (_ []float64, dated, quiet float64) {
	for _, o := range history {
		switch {
		case o.First:
			quiet += o.Interval.Seconds()
			if o.Changed {
				dated++
			}
		case o.Changed && o.Quiet > 0 && o.Quiet < o.Interval:
			dated++
			quiet += o.Quiet.Seconds()
		case o.Changed:
			changed = append(changed, o.Interval.Seconds())
		default:
			quiet += o.Interval.Seconds()
		}
	}
	if prior.Changes > 0 {
		dated += prior.Changes
		quiet += prior.Exposure.Seconds()
	} else if m := prior.Mean.Seconds(); m > 0 {
		changed = append(changed, m)
		quiet += m
	}
	hn, ht := prior.hint()
	return changed, dated + hn, quiet + ht
}

// closedForm is estimate's rate when every change is dated, dated/quiet
// (at most 1e3), and the posterior probability that the page is static
// when it was never seen changing and the prior allows for static pages
// (the rate is then scaled by the probability that it is not).
func closedForm(dated, quiet float64, prior Prior) (rate, static float64) {
	rate = min(dated/quiet, 1e3)
	hn, ht := prior.hint()
	if dated == prior.Changes+hn && prior.Changes > 0 && prior.Static > 0 { // never seen changing
		a, b := prior.Changes+hn, prior.Exposure.Seconds()+ht
		odds := (1 - prior.Static) * math.Pow(b/quiet, a)
		static = prior.Static / (prior.Static + odds)
		rate *= 1 - static
	}
	return rate, static
}

// likeliestRate is the rate at which the log-likelihood of undated
// changes in the intervals changed, dated changes and quiet seconds
// peaks: the root of its slope, decreasing in λ,
// Σ_undated I·e^{−λI}/(1−e^{−λI}) + dated/λ − quiet,
// found by bisection on a log scale within [1e-12, 1e3].
func likeliestRate(changed []float64, dated, quiet float64) float64 {
	slope := func(lambda float64) float64 {
		s := dated/lambda - quiet
		for _, iv := range changed {
			x := lambda * iv
			if x > 50 {
				continue // e^{-x}/(1-e^{-x}) vanishes
			}
			s += iv / math.Expm1(x)
		}
		return s
	}
	lo, hi := 1e-12, 1e3
	for range 60 {
		mid := math.Sqrt(lo * hi)
		if slope(mid) > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Sqrt(lo * hi)
}

// Freshness is the expected time-averaged share of fresh copies of a page
// whose changes are Poisson with rate lambda (per second), fetched at
// frequency f (per second): (f/λ)(1 − e^{−λ/f}). It is 1 for a page that
// never changes and 0 for a page never fetched.
func Freshness(lambda, f float64) float64 {
	switch {
	case lambda <= 0:
		return 1
	case f <= 0:
		return 0
	}
	r := lambda / f
	return -math.Expm1(-r) / r
}

// Allocate returns the fetch frequency (per second) of each page with the
// given change rates that maximizes the summed Freshness under a total of
// budget fetches per second, every frequency within [minFreq, maxFreq]
// (0 for maxFreq: no bound). It solves the Lagrange condition
// ∂Freshness/∂f = μ for every page — 1 − (1+r)e^{−r} = μλ with r = λ/f —
// with μ found by bisection so that the frequencies add up to the budget
// (Cho & Garcia-Molina 2000). Pages with μλ ≥ 1 change too fast to keep
// fresh and get minFreq. If even minFreq for every page exceeds the
// budget, every page gets minFreq. Cost: O(len(rates)·100).
func Allocate(rates []float64, budget, minFreq, maxFreq float64) []float64 {
	if maxFreq <= 0 {
		maxFreq = math.Inf(1)
	}
	mu := multiplier(rates, budget, minFreq, maxFreq)
	out := make([]float64, len(rates))
	for i, l := range rates {
		out[i] = min(max(optimal(l, mu), minFreq), maxFreq)
	}
	return out
}

// optimal returns the frequency f maximizing Freshness(λ, f) − μf: the
// root of 1 − (1+r)e^{−r} = μλ, r = λ/f; 0 when μλ ≥ 1 (a page that changes
// too fast for the budget) or λ = 0 (a page that never changes).
func optimal(lambda, mu float64) float64 {
	if lambda <= 0 || math.IsInf(mu, 1) {
		return 0
	}
	target := mu * lambda
	if target >= 1 {
		return 0
	}
	r := solveG(target)
	if r == 0 || r > 1e6 {
		return 0
	}
	return lambda / r
}

// solveG returns the r > 0 at which g(r) = 1 − (1+r)e^{−r} (rising from 0
// to 1) equals t in (0, 1): safeguarded Newton steps (g′(r) = r·e^{−r})
// inside a bracket that halves when a step would leave it, to a relative
// 1e-12 — a few steps where bisection took 80.
func solveG(t float64) float64 {
	lo, hi := 0.0, 1.0
	for 1-(1+hi)*math.Exp(-hi) < t {
		lo, hi = hi, hi*2
		if hi > 1e6 {
			return hi
		}
	}
	r := min(max(math.Sqrt(2*t), lo), hi) // g(r) ≈ r²/2 near 0
	for range 100 {
		e := math.Exp(-r)
		d := 1 - (1+r)*e - t
		if d < 0 {
			lo = r
		} else {
			hi = r
		}
		next := r - d/(r*e)
		if !(next > lo && next < hi) {
			next = (lo + hi) / 2
		}
		if math.Abs(next-r) <= 1e-12*r {
			return next
		}
		r = next
	}
	return r
}
