package schedule

import (
	"iter"
	"math"
	"math/rand/v2"
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
	// Explore is how the Adaptive policy explores: ExploreNone (the
	// default) schedules every page by its rate's posterior mean;
	// ExploreThompson by a rate drawn from the posterior at each revisit.
	Explore Explore
	// Seed seeds the draws of Thompson sampling (0: 1), so that a run
	// can be repeated.
	Seed uint64
}

// Explore names how the Adaptive policy explores (Options.Explore).
type Explore string

// The exploration strategies.
const (
	ExploreNone     Explore = ""
	ExploreThompson Explore = "thompson"
)

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
	// Observe adds a fetch of the page url at time at (changed: a real
	// change since the fetch before; modified: the server's last
	// modification time, zero if unknown) to its state s, and updates
	// what the policy keeps of all pages. The crawler calls it once per
	// fetch, then Next.
	Observe(url string, s *State, at time.Time, changed bool, modified time.Time)
	// Forget removes a page (gone, or no longer revisited) with its last
	// state.
	Forget(url string, s State)
	// Next returns the interval from a page's last fetch (s.LastFetch,
	// just observed) to its next one, within [MinInterval, MaxInterval].
	// It may update s.
	Next(s *State) time.Duration
	// Plan is given every page's state at once — after a restart — to
	// rebuild what the policy keeps of all pages; Observe and Forget keep
	// it up to date after that. It does not change the states.
	Plan(pages iter.Seq2[string, *State])
	// Name is the policy's name: "adaptive", "uniform" or "nutch".
	Name() string
}

// Adaptive is Doppel's policy: each page's change rate estimated from its
// history (EstimateRate) — from its first fetch on, when the server dates
// its last change — with its group's rate as prior (Pool), and the budget
// divided among pages to maximize expected freshness (Allocate). The
// allocation is incremental: pages are counted by rate in a histogram of
// fixed size, and the multiplier that spends the budget is found again
// over it every replanEvents observations (or as many as there are pages,
// if fewer) or when the pages grew by a tenth, so an observation costs the same with a thousand pages or a
// million.
type Adaptive struct {
	opts  Options
	pools map[string]*Pool
	hist  histogram
	mu    float64 // the Lagrange multiplier
	since int     // observations since mu
	at    float64 // pages counted at mu
	rng   *rand.Rand
	key   []byte // pool's buffer for a group's key
}

// replanEvents is how many observations at most the multiplier is kept.
const replanEvents = 256

// NewAdaptive returns the Adaptive policy.
func NewAdaptive(opts Options) *Adaptive {
	seed := opts.Seed
	if seed == 0 {
		seed = 1
	}
	return &Adaptive{opts: *opts.EnsureDefaults(), pools: map[string]*Pool{}, rng: rand.New(rand.NewPCG(seed, 40))}
}

// Name returns "adaptive".
func (a *Adaptive) Name() string { return "adaptive" }

// pool returns the group of url's Pool.
func (a *Adaptive) pool(url string) *Pool {
	a.key = appendGroup(a.key[:0], url)
	p := a.pools[string(a.key)] // looked up without a copy of the key
	if p == nil {
		p = &Pool{}
		a.pools[string(a.key)] = p
	}
	return p
}

// prior is the prior of a page of pool p: the pool's fit, or the default.
func (a *Adaptive) prior(p *Pool) Prior {
	if pr, ok := p.Prior(); ok {
		return pr
	}
	return Prior{Mean: a.opts.Prior}
}

// Observe adds the fetch to s, the page to its group's statistics and its
// new rate to the allocation (State.Rate). The Last-Modified date of a
// first fetch that another page of the group gave too is taken for the
// site's, not a change of the page: the page is known unchanged since.
func (a *Adaptive) Observe(url string, s *State, at time.Time, changed bool, modified time.Time) {
	p := a.pool(url)
	known := !s.LastFetch.IsZero()
	oldN, oldT := stats(s.History)
	s.Observe(at, changed, modified)
	if n := len(s.History); !known && n > 0 && s.History[n-1].First && p.SharedDate(modified) {
		s.History[n-1].Changed = false
	}
	newN, newT := stats(s.History)
	p.Add(oldN, oldT, newN, newT)
	if known {
		a.hist.add(s.Rate, -1)
	}
	a.rate(s, p)
	a.hist.add(s.Rate, 1)
	a.since++
	if float64(a.since) >= min(replanEvents, a.hist.total) || a.hist.total > a.at*1.1 || a.hist.total < a.at*0.9 {
		a.replan()
	}
}

// rate sets the page's rate (State.Rate) under the prior of its pool p.
// It is positive: both priors give every page some chance to change.
func (a *Adaptive) rate(s *State, p *Pool) {
	prior := a.prior(p)
	prior.ChangeFreq = s.ChangeFreq
	rate, shape, static := estimate(s.History, prior)
	s.Rate, s.Shape, s.Static = rate, float32(shape), float32(static)
}

// Forget takes the page out of its group and of the allocation.
func (a *Adaptive) Forget(url string, s State) {
	if s.LastFetch.IsZero() {
		return
	}
	n, t := stats(s.History)
	a.pool(url).Add(n, t, 0, 0)
	a.hist.add(s.Rate, -1)
}

func (a *Adaptive) replan() {
	a.mu = a.hist.multiplier(a.opts.Budget, 1/a.opts.MaxInterval.Seconds(), 1/a.opts.MinInterval.Seconds(), a.mu)
	a.since, a.at = 0, a.hist.total
}

// Next returns the optimal interval for the page's estimated rate under
// the current multiplier (with ExploreThompson, for a rate drawn from its
// posterior); before any page is counted, the prior mean.
func (a *Adaptive) Next(s *State) time.Duration {
	if a.hist.total == 0 {
		return a.opts.clamp(a.opts.Prior)
	}
	rate := s.Rate
	if rate == 0 { // recorded before rates were kept
		rate = EstimateRate(s.History, Prior{Mean: a.opts.Prior})
	}
	if a.opts.Explore == ExploreThompson && s.Shape > 0 {
		rate = a.draw(s)
	}
	f := optimal(rate, a.mu)
	if f <= 0 {
		return a.opts.MaxInterval
	}
	return a.opts.clamp(time.Duration(float64(time.Second) / f))
}

// Plan rebuilds the groups and the allocation from every page's state:
// O(pages · history). A state without a rate (recorded before rates were
// kept) gets one.
func (a *Adaptive) Plan(pages iter.Seq2[string, *State]) {
	a.pools, a.hist = map[string]*Pool{}, histogram{}
	for u, s := range pages {
		n, t := stats(s.History)
		a.pool(u).Add(0, 0, n, t)
	}
	for u, s := range pages {
		if s.Rate == 0 {
			a.rate(s, a.pool(u))
		}
		a.hist.add(s.Rate, 1)
	}
	if a.hist.total > 0 {
		a.replan()
	}
}

// draw returns a rate drawn from the page's posterior: a Gamma of the
// posterior's shape (State.Shape) and mean (State.Rate). The chance that
// the page is static (State.Static) is left in the mean, not drawn: a
// draw of 0 would put the page off for MaxInterval, starving it (on the
// simulated living site of TestExploration that kept 0.72 of pages fresh
// against 0.82 by the mean).
func (a *Adaptive) draw(s *State) float64 {
	shape := float64(s.Shape)
	return gamma(a.rng, shape) * s.Rate / shape
}

// gamma draws from the Gamma distribution of the given shape and scale
// 1 (Marsaglia & Tsang 2000; a shape below 1 boosted by U^(1/shape)).
func gamma(r *rand.Rand, shape float64) float64 {
	if shape < 1 {
		return gamma(r, shape+1) * math.Pow(r.Float64(), 1/shape)
	}
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := r.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := r.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}

type rateGroup struct{ rate, pages float64 }

// multiplier is the μ of Allocate for the given rates, budget and bounds:
// the smallest at which the clamped optimal frequencies add up to at most
// the budget (+Inf if minFreq everywhere already reaches it). Pages with
// the same rate are counted once.
func multiplier(rates []float64, budget, minFreq, maxFreq float64) float64 {
	sorted := slices.Sorted(slices.Values(rates))
	var groups []rateGroup
	for i, l := range sorted {
		if i > 0 && l == sorted[i-1] {
			groups[len(groups)-1].pages++
		} else {
			groups = append(groups, rateGroup{l, 1})
		}
	}
	return multiplierOf(groups, budget, minFreq, maxFreq, 0)
}

// multiplierOf is multiplier over pages counted by rate. With guess > 0
// (the last multiplier) the search starts from a bracket around it. It
// takes safeguarded Newton steps on ln μ — the spend and its slope come
// from one pass over the groups — and bisects where a step would leave
// the bracket: 6–9 passes from a recent guess (the bracket's checks
// included) where bisection took 43.
func multiplierOf(groups []rateGroup, budget, minFreq, maxFreq, guess float64) float64 {
	if spent, _ := spend(groups, math.Inf(1), minFreq, maxFreq); spent >= budget {
		return math.Inf(1)
	}
	lo, hi := 1e-15, 1e6
	if guess > 0 && !math.IsInf(guess, 1) {
		lo, hi = guess/2, guess*2
		for lo > 1e-15 {
			if s, _ := spend(groups, lo, minFreq, maxFreq); s > budget {
				break
			}
			lo /= 4
		}
		for hi < 1e6 {
			if s, _ := spend(groups, hi, minFreq, maxFreq); s <= budget {
				break
			}
			hi *= 4
		}
	}
	mu := math.Sqrt(lo * hi)
	for range 200 {
		s, slope := spend(groups, mu, minFreq, maxFreq)
		if s > budget {
			lo = mu
		} else {
			hi = mu
			if s >= budget*(1-1e-10) {
				return mu
			}
		}
		next := math.Sqrt(lo * hi)
		if next <= lo || next >= hi { // adjacent floats: a page's jump to 0 lies between
			break
		}
		if slope < 0 {
			if x := mu * math.Exp((budget-s)/slope); x > lo && x < hi {
				next = x
			}
		}
		mu = next
	}
	return hi
}

// spend returns the fetches per second the groups take at multiplier mu,
// each page's optimal frequency clamped to [minFreq, maxFreq], and its
// derivative in ln μ (the clamped pages' is 0): for a page at f = λ/r,
// where 1 − (1+r)e^{−r} = μλ, df/d ln μ = −μλ·f/(r²e^{−r}).
func spend(groups []rateGroup, mu, minFreq, maxFreq float64) (sum, slope float64) {
	for _, g := range groups {
		f := optimal(g.rate, mu)
		switch {
		case f <= minFreq: // also a page too fast for the budget, or static
			f = minFreq
		case f > maxFreq:
			f = maxFreq
		default:
			r := g.rate / f
			slope -= g.pages * mu * g.rate * f / (r * r * math.Exp(-r))
		}
		sum += g.pages * f
	}
	return sum, slope
}

// Uniform revisits every page at the same interval: the number of pages
// over the budget (as of the last Plan; before it, the prior).
type Uniform struct {
	opts     Options
	pages    int
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

// Observe adds the fetch to s; a page's first fetch counts it.
func (u *Uniform) Observe(_ string, s *State, at time.Time, changed bool, modified time.Time) {
	if s.LastFetch.IsZero() {
		u.count(1)
	}
	s.Observe(at, changed, modified)
}

// Forget stops counting the page.
func (u *Uniform) Forget(_ string, s State) {
	if !s.LastFetch.IsZero() {
		u.count(-1)
	}
}

// count adds n pages and sets the interval to pages ÷ budget.
func (u *Uniform) count(n int) {
	u.pages = max(u.pages+n, 0)
	if u.pages > 0 {
		u.interval = u.opts.clamp(time.Duration(float64(u.pages) / u.opts.Budget * float64(time.Second)))
	}
}

// Plan counts the pages again.
func (u *Uniform) Plan(pages iter.Seq2[string, *State]) {
	u.pages = 0
	for range pages {
		u.pages++
	}
	u.count(0)
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
