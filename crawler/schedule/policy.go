package schedule

import (
	"iter"
	"math"
	"slices"
	"time"
)

// Options bound and size every Policy. The zero value of each field means
// the default documented on it.
type Options struct {
	// Budget is the fetches per second the revisits may use in all.
	// Default 1.
	Budget float64
	// MinInterval and MaxInterval bound every page's interval. Defaults
	// 1 hour and 30 days.
	MinInterval, MaxInterval time.Duration
	// Prior is the change interval a page is assumed to have before its
	// history says otherwise (see Prior). Default 1 day.
	Prior time.Duration
}

// EnsureDefaults sets every zero field to its default (each field's doc
// says which) and returns o.
func (o *Options) EnsureDefaults() *Options {
	if o.Budget <= 0 {
		o.Budget = 1
	}
	if o.MinInterval <= 0 {
		o.MinInterval = time.Hour
	}
	if o.MaxInterval <= 0 {
		o.MaxInterval = 30 * 24 * time.Hour
	}
	if o.MaxInterval < o.MinInterval {
		o.MaxInterval = o.MinInterval
	}
	if o.Prior <= 0 {
		o.Prior = 24 * time.Hour
	}
	return o
}

func (o Options) clamp(d time.Duration) time.Duration {
	return min(max(d, o.MinInterval), o.MaxInterval)
}

// A Policy decides how long after a fetch a page is fetched again.
// Policies are not safe for concurrent use.
type Policy interface {
	// Next returns the interval from a page's last fetch (s.LastFetch,
	// just observed with State.Observe) to its next one, within
	// [MinInterval, MaxInterval]. It may update s.
	Next(s *State) time.Duration
	// Plan is given every page's state now and then — after a restart,
	// and as the crawl grows — so that a policy that divides the budget
	// among pages can do so. It does not change the states.
	Plan(pages iter.Seq[*State])
	// Name is the policy's name: "adaptive", "uniform" or "nutch".
	Name() string
}

// Adaptive is Doppel's policy: each page's change rate estimated from its
// history (EstimateRate), the budget divided among pages to maximize
// expected freshness (Allocate). Until Plan has run, a page is due after
// the prior mean.
type Adaptive struct {
	opts    Options
	mu      float64 // the Lagrange multiplier of the last Plan
	planned bool
}

// NewAdaptive returns the Adaptive policy.
func NewAdaptive(opts Options) *Adaptive { return &Adaptive{opts: *opts.EnsureDefaults()} }

// Name returns "adaptive".
func (a *Adaptive) Name() string { return "adaptive" }

// Next returns the optimal interval for the page's estimated rate under
// the multiplier of the last Plan.
func (a *Adaptive) Next(s *State) time.Duration {
	if !a.planned {
		return a.opts.clamp(a.opts.Prior)
	}
	f := optimal(EstimateRate(s.History, Prior{a.opts.Prior}), a.mu)
	if f <= 0 {
		return a.opts.MaxInterval
	}
	return a.opts.clamp(time.Duration(float64(time.Second) / f))
}

// Plan estimates every page's rate and finds the multiplier that spends
// the budget. Cost: O(pages · history · 60).
func (a *Adaptive) Plan(pages iter.Seq[*State]) {
	var rates []float64
	for s := range pages {
		rates = append(rates, EstimateRate(s.History, Prior{a.opts.Prior}))
	}
	if len(rates) == 0 {
		return
	}
	a.mu = multiplier(rates, a.opts.Budget, 1/a.opts.MaxInterval.Seconds(), 1/a.opts.MinInterval.Seconds())
	a.planned = true
}

// multiplier is the μ of Allocate for the given rates, budget and bounds:
// the smallest at which the clamped optimal frequencies add up to at most
// the budget (+Inf if minFreq everywhere already reaches it). Pages with
// the same rate are counted once — all pages not yet revisited share
// one, so a crawl in discovery plans in O(pages·log pages).
func multiplier(rates []float64, budget, minFreq, maxFreq float64) float64 {
	sorted := slices.Sorted(slices.Values(rates))
	type group struct{ rate, pages float64 }
	var groups []group
	for i, l := range sorted {
		if i > 0 && l == sorted[i-1] {
			groups[len(groups)-1].pages++
		} else {
			groups = append(groups, group{l, 1})
		}
	}
	total := func(mu float64) float64 {
		sum := 0.0
		for _, g := range groups {
			sum += g.pages * min(max(optimal(g.rate, mu), minFreq), maxFreq)
		}
		return sum
	}
	if total(math.Inf(1)) >= budget {
		return math.Inf(1)
	}
	lo, hi := 1e-15, 1e6
	for range 100 {
		mid := math.Sqrt(lo * hi)
		if total(mid) > budget {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// Uniform revisits every page at the same interval: the number of pages
// over the budget (as of the last Plan; before it, the prior).
type Uniform struct {
	opts     Options
	interval time.Duration
}

// NewUniform returns the Uniform policy.
func NewUniform(opts Options) *Uniform {
	o := *opts.EnsureDefaults()
	return &Uniform{opts: o, interval: o.clamp(o.Prior)}
}

// Name returns "uniform".
func (u *Uniform) Name() string { return "uniform" }

// Next returns the common interval.
func (u *Uniform) Next(*State) time.Duration { return u.interval }

// Plan sets the interval to pages ÷ budget.
func (u *Uniform) Plan(pages iter.Seq[*State]) {
	n := 0
	for range pages {
		n++
	}
	if n > 0 {
		u.interval = u.opts.clamp(time.Duration(float64(n) / u.opts.Budget * float64(time.Second)))
	}
}

// Nutch is Apache Nutch's AdaptiveFetchSchedule: a page starts at the
// interval the Uniform policy would give it; after a fetch that found a
// change the interval shrinks by DecRate (0.2), after one that did not it
// grows by IncRate (0.4), within the bounds. Nutch tells a change by an
// MD5 signature of the content; the crawler gives it the same verdict
// through the page's history.
type Nutch struct {
	Uniform
	IncRate, DecRate float64
}

// NewNutch returns the Nutch policy with Nutch's default rates.
func NewNutch(opts Options) *Nutch {
	return &Nutch{Uniform: *NewUniform(opts), IncRate: 0.4, DecRate: 0.2}
}

// Name returns "nutch".
func (n *Nutch) Name() string { return "nutch" }

// Next adjusts the page's interval by its last observation and returns it.
func (n *Nutch) Next(s *State) time.Duration {
	if s.Interval == 0 {
		s.Interval = n.interval
	} else if len(s.History) > 0 {
		f := 1 + n.IncRate
		if s.History[len(s.History)-1].Changed {
			f = 1 - n.DecRate
		}
		s.Interval = n.opts.clamp(time.Duration(float64(s.Interval) * f))
	}
	return s.Interval
}

// Compile-time checks.
var (
	_ Policy = (*Adaptive)(nil)
	_ Policy = (*Uniform)(nil)
	_ Policy = (*Nutch)(nil)
)

// New returns the policy named name ("adaptive", "uniform" or "nutch"),
// or nil.
func New(name string, opts Options) Policy {
	switch name {
	case "adaptive", "":
		return NewAdaptive(opts)
	case "uniform":
		return NewUniform(opts)
	case "nutch":
		return NewNutch(opts)
	}
	return nil
}
