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
type Observation struct {
	Interval time.Duration
	Changed  bool
	Quiet    time.Duration
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
}

// Observe adds a fetch at time at that found the page changed (or not) and,
// if known, the time the page was last modified.
func (s *State) Observe(at time.Time, changed bool, modified time.Time) {
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

// Prior is a weak belief about a page's rate before it has been observed
// much: as if it had been seen unchanged for Mean and changed once in an
// interval of Mean. With it, a page seen twice unchanged is not taken for
// one that never changes, nor a page seen changed once for one that
// changes continuously.
type Prior struct {
	Mean time.Duration
}

// EstimateRate returns the maximum-likelihood change rate (changes per
// second) of a Poisson process observed as history, with prior's
// pseudo-observations added. A fetch interval I that saw no change has
// likelihood e^{−λI}; one that saw a change, 1 − e^{−λI} (Cho &
// Garcia-Molina 2003, irregular access); one whose last change the server
// dated Quiet before the fetch (Last-Modified), λe^{−λ·Quiet} — a change
// then, none since — which is sharper. A history without change and a
// zero prior gives 0. Cost: O(len(history)·60) (bisection on the rate).
func EstimateRate(history []Observation, prior Prior) float64 {
	var changed []float64 // intervals in which a change was seen, undated, seconds
	dated := 0            // changes dated by Last-Modified
	quiet := 0.0          // total seconds known without change
	for _, o := range history {
		switch {
		case o.Changed && o.Quiet > 0 && o.Quiet < o.Interval:
			dated++
			quiet += o.Quiet.Seconds()
		case o.Changed:
			changed = append(changed, o.Interval.Seconds())
		default:
			quiet += o.Interval.Seconds()
		}
	}
	if m := prior.Mean.Seconds(); m > 0 {
		changed = append(changed, m)
		quiet += m
	}
	if len(changed) == 0 && dated == 0 {
		return 0
	}
	if quiet == 0 {
		quiet = 1e-3 // every interval changed: the rate is high, not infinite
	}
	// The log-likelihood's slope, decreasing in λ:
	// Σ_undated I·e^{−λI}/(1−e^{−λI}) + dated/λ − quiet.
	slope := func(lambda float64) float64 {
		s := float64(dated)/lambda - quiet
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
	// g(r) = 1 − (1+r)e^{−r} rises from 0 to 1.
	g := func(r float64) float64 { return 1 - (1+r)*math.Exp(-r) }
	lo, hi := 0.0, 1.0
	for g(hi) < target {
		hi *= 2
		if hi > 1e6 {
			return 0
		}
	}
	for range 80 {
		mid := (lo + hi) / 2
		if g(mid) < target {
			lo = mid
		} else {
			hi = mid
		}
	}
	if hi == 0 {
		return 0
	}
	return lambda / hi
}
