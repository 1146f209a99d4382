package schedule

import (
	"container/heap"
	"iter"
	"math"
	mrand "math/rand"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"
)

// livingSite draws the kit's living site (ndd living -pages n -seed
// seed -horizon horizon s) the way its generator does: math/rand's
// source seeded with seed, and for each page in turn a birth time (the
// pages beyond n, 5 % more, are born late), a deletion (5 %), whether it
// never changes (30 %), a mean between changes log-uniform from 1 minute
// to 4 hours, and its Poisson change times. So page i of the simulation
// is page i of the living site, with the same rate and change times. The
// pages born late are drawn and dropped, and deletions are drawn and
// ignored (a deleted page goes on changing here). It returns every
// page's change times within horizon seconds and its true rate.
func livingSite(seed uint64, n int, horizon float64) (changes [][]float64, rates []float64) {
	r := mrand.New(mrand.NewSource(int64(seed)))
	for i := range n + n/20 {
		born := 0.0
		if i >= n {
			born = r.Float64() * horizon
		}
		if r.Float64() < 0.05 {
			r.Float64() // the deletion time
		}
		var ch []float64
		rate := 0.0
		if r.Float64() >= 0.3 {
			lo, hi := math.Log(60), math.Log(4*3600)
			mean := math.Exp(lo + r.Float64()*(hi-lo))
			rate = 1 / mean
			for t := born + r.ExpFloat64()*mean; t < horizon; t += r.ExpFloat64() * mean {
				ch = append(ch, t)
			}
		}
		if i < n {
			changes, rates = append(changes, ch), append(rates, rate)
		}
	}
	return changes, rates
}

// oracle is the schedule that knows every page's true rate: Cho &
// Garcia-Molina's optimum under the same budget and bounds, the
// reference a blind policy is measured against.
type oracle struct {
	opts  Options
	rates map[string]float64
	mu    float64
}

func newOracle(opts Options, rates map[string]float64) *oracle {
	o := &oracle{opts: *opts.EnsureDefaults(), rates: rates}
	var all []float64
	for _, l := range rates {
		all = append(all, l)
	}
	o.mu = multiplier(all, o.opts.Budget, 1/o.opts.MaxInterval.Seconds(), 1/o.opts.MinInterval.Seconds())
	return o
}

func (o *oracle) Name() string { return "optimum" }
func (o *oracle) Observe(url string, s *State, at time.Time, changed bool, modified time.Time) {
	s.Observe(at, changed, modified)
	s.Rate = o.rates[url]
}
func (o *oracle) Forget(string, State)           {}
func (o *oracle) Plan(iter.Seq2[string, *State]) {}
func (o *oracle) Next(s *State) time.Duration {
	f := optimal(s.Rate, o.mu)
	if f <= 0 {
		return o.opts.MaxInterval
	}
	return o.opts.clamp(time.Duration(float64(time.Second) / f))
}

// simulateLiving crawls the site (changes) with pol at budget fetches per
// second for horizon seconds, the way the crawler does: pages never
// fetched first (discovery), then the most overdue page whose revisit is
// due, nothing when none is. A page's Last-Modified is its last change,
// or the site's start (a date every unchanged page shares). It returns
// the time-averaged share of fresh pages over [from, horizon) seconds.
func simulateLiving(pol Policy, changes [][]float64, budget, horizon, from float64) float64 {
	f, _, _ := simulateLivingPages(pol, changes, budget, horizon, from)
	return f
}

// simulateLivingPages is simulateLiving, with each page's seconds fresh
// in [from, horizon) and fetches in all.
func simulateLivingPages(pol Policy, changes [][]float64, budget, horizon, from float64) (float64, []float64, []int) {
	return simulateHinted(pol, changes, nil, budget, horizon, from)
}

// simulateHinted is simulateLivingPages on a site whose sitemap gives
// each page a changefreq (hints[i]; nil: none), known from discovery on.
func simulateHinted(pol Policy, changes [][]float64, hints []time.Duration, budget, horizon, from float64) (float64, []float64, []int) {
	n := len(changes)
	pageFresh, fetches := make([]float64, n), make([]int, n)
	states := make([]State, n)
	for i := range hints {
		states[i].ChangeFreq = hints[i]
	}
	q := &dueQueue{}
	for i := range n { // discovery: in order, before any revisit
		*q = append(*q, due{math.Inf(-1), i})
	}
	fresh := make([]float64, n) // until when the copy is current (−Inf: no copy)
	for i := range fresh {
		fresh[i] = math.Inf(-1)
	}
	start := time.Unix(1_000_000, 0)
	at := func(sec float64) time.Time { return start.Add(time.Duration(sec * float64(time.Second))) }
	url := func(i int) string { return "http://h/p/" + strconv.Itoa(i) }
	sum, count := 0.0, 0.0
	nextScore := from
	for now := 0.0; now < horizon; now += 1 / budget {
		for ; nextScore <= now && nextScore < horizon; nextScore += scoreStep {
			for i := range fresh {
				if nextScore < fresh[i] {
					sum++
					pageFresh[i]++
				}
			}
			count += float64(n)
		}
		if len(*q) == 0 || (*q)[0].due > now {
			continue
		}
		best := (*q)[0].page
		k := sortSearch(changes[best], now) // changes up to now
		prev := states[best].LastFetch
		changed := !prev.IsZero() && k > 0 && at(changes[best][k-1]).After(prev)
		mod := start
		if k > 0 {
			mod = at(changes[best][k-1])
		}
		pol.Observe(url(best), &states[best], at(now), changed, mod)
		fetches[best]++
		(*q)[0].due = now + pol.Next(&states[best]).Seconds()
		heap.Fix(q, 0)
		fresh[best] = math.Inf(1)
		if k < len(changes[best]) {
			fresh[best] = changes[best][k]
		}
	}
	return sum / count, pageFresh, fetches
}

// scoreStep is how often (seconds) simulateLiving counts the fresh pages.
const scoreStep = 5

// due is a page's next fetch in simulateLiving's queue.
type due struct {
	due  float64
	page int
}

// dueQueue orders pages by due time, then by index (discovery order).
type dueQueue []due

func (q dueQueue) Len() int { return len(q) }
func (q dueQueue) Less(i, j int) bool {
	return q[i].due < q[j].due || q[i].due == q[j].due && q[i].page < q[j].page
}
func (q dueQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *dueQueue) Push(x any)   { *q = append(*q, x.(due)) }
func (q *dueQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

// livingOptions are the options of scripts/freshness-bench.sh's crawls.
func livingOptions(budget float64) Options {
	return Options{Budget: budget, MinInterval: time.Minute, MaxInterval: 24 * time.Hour}
}

// TestExploration compares, on simulated living sites (2,000 pages, 5
// fetches/s; minutes 10–20 of 20, seeds 1–3; minutes 60–120 of 120, seed 1), the
// freshness of uniform revisits, the adaptive policy by its rates'
// posterior means, the same with Thompson sampling, and the optimum that
// knows every rate. Orderings asserted are those with a margin on these
// seeds: the optimum above adaptive, adaptive above uniform, and over two
// hours adaptive above Thompson sampling (exploration does not pay here:
// in 20 minutes a page is fetched about three times, and what a visit
// teaches of a slow page's rate is not used before the run ends).
func TestExploration(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 4 policies on 6 sites; skipped with -short")
	}
	const n, budget = 2000, 5.0
	for _, run := range []struct {
		horizon, from float64
		seeds         uint64
	}{{1200, 600, 3}, {7200, 3600, 1}} {
		for seed := uint64(1); seed <= run.seeds; seed++ {
			changes, rates := livingSite(seed, n, run.horizon)
			byURL := map[string]float64{}
			for i, l := range rates {
				byURL["http://h/p/"+strconv.Itoa(i)] = l
			}
			opts := livingOptions(budget)
			thompson := opts
			thompson.Explore, thompson.Seed = ExploreThompson, seed
			got := map[string]float64{}
			for name, pol := range map[string]Policy{
				"uniform":  NewUniform(opts),
				"adaptive": NewAdaptive(opts),
				"thompson": NewAdaptive(thompson),
				"optimum":  newOracle(opts, byURL),
			} {
				got[name] = simulateLiving(pol, changes, budget, run.horizon, run.from)
			}
			closed := func(f float64) float64 { return (f - got["uniform"]) / (got["optimum"] - got["uniform"]) }
			t.Logf("%4.0f s, seed %d: uniform %.3f, adaptive %.3f (%.0f %% of the distance to the optimum), thompson %.3f (%.0f %%), optimum %.3f",
				run.horizon, seed, got["uniform"], got["adaptive"], 100*closed(got["adaptive"]), got["thompson"], 100*closed(got["thompson"]), got["optimum"])
			if !(got["optimum"] > got["adaptive"]+0.005 && got["adaptive"] > got["uniform"]+0.01) {
				t.Errorf("%.0f s, seed %d: want optimum > adaptive > uniform with margin, got %.3f, %.3f, %.3f", run.horizon, seed, got["optimum"], got["adaptive"], got["uniform"])
			}
			if got["optimum"] <= got["thompson"] {
				t.Errorf("%.0f s, seed %d: thompson %.3f at or above the optimum %.3f", run.horizon, seed, got["thompson"], got["optimum"])
			}
			if run.horizon > 3600 && got["thompson"] >= got["adaptive"]-0.02 {
				t.Errorf("%.0f s, seed %d: thompson %.3f not below adaptive %.3f", run.horizon, seed, got["thompson"], got["adaptive"])
			}
		}
	}
}

// TestGammaDraws: the sampler's draws have the Gamma distribution's mean
// (shape) and variance (shape), for shapes below and above 1.
func TestGammaDraws(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, shape := range []float64{0.2, 1, 3.5, 40} {
		const n = 200_000
		sum, sq := 0.0, 0.0
		for range n {
			x := gamma(r, shape)
			sum += x
			sq += x * x
		}
		mean := sum / n
		variance := sq/n - mean*mean
		if math.Abs(mean/shape-1) > 0.02 || math.Abs(variance/shape-1) > 0.05 {
			t.Errorf("shape %v: mean %.4f, variance %.4f; want both %v", shape, mean, variance, shape)
		}
	}
}

// TestThompsonDrawsAroundMean: with Thompson sampling, a page's interval
// varies from revisit to revisit around the one its posterior mean gives;
// a page with a sharp posterior (many changes counted) varies less.
func TestThompsonDrawsAroundMean(t *testing.T) {
	opts := Options{Budget: 1, MinInterval: time.Second, MaxInterval: 1000 * time.Hour, Explore: ExploreThompson}
	a := NewAdaptive(opts)
	start := time.Unix(1_000_000, 0)
	for i := range 50 { // something to allocate against
		a.Observe("http://h/p/"+strconv.Itoa(i), &State{}, start, false, start.Add(-time.Duration(i+1)*time.Minute))
	}
	spread := func(shape float32) float64 {
		s := State{LastFetch: start, Rate: 1.0 / 600, Shape: shape}
		lo, hi := math.Inf(1), 0.0
		for range 200 {
			d := a.Next(&s).Seconds()
			lo, hi = min(lo, d), max(hi, d)
		}
		return hi / lo
	}
	vague, sharp := spread(1), spread(200)
	if !(vague > 2*sharp && sharp > 1) {
		t.Errorf("interval spread (max ÷ min over 200 draws): shape 1 %.2f, shape 200 %.2f; want the vague posterior's far wider", vague, sharp)
	}
}

// bayes is the Adaptive policy with each page's rate replaced by its
// exact posterior mean under the living site's true prior (30 % of pages
// static, the others' mean intervals log-uniform from 1 minute to 4
// hours; the rates on a grid of 200): the best estimate any estimator can
// make from what the fetches saw — what a perfect empirical-Bayes prior
// would reach.
type bayes struct {
	*Adaptive
	grid []float64
}

func newBayes(opts Options) *bayes {
	b := &bayes{Adaptive: NewAdaptive(opts)}
	for i := range 200 {
		b.grid = append(b.grid, math.Exp(math.Log(1.0/14400)+(float64(i)+0.5)/200*math.Log(240)))
	}
	return b
}

func (b *bayes) Observe(url string, s *State, at time.Time, changed bool, modified time.Time) {
	b.Adaptive.Observe(url, s, at, changed, modified)
	undated, dated, quiet := tally(nil, s.History, Prior{})
	logLik := make([]float64, len(b.grid))
	peak := math.Inf(-1)
	for i, l := range b.grid {
		x := dated*math.Log(l) - l*quiet
		for _, iv := range undated {
			x += math.Log(-math.Expm1(-l * iv))
		}
		logLik[i], peak = x, max(peak, x)
	}
	var num, den, static float64
	if dated == 0 && len(undated) == 0 { // a static page's likelihood is 1
		static = 0.3 / (0.7 / float64(len(b.grid))) * math.Exp(-peak)
	}
	for i, l := range b.grid {
		w := math.Exp(logLik[i] - peak)
		num, den = num+w*l, den+w
	}
	b.hist.add(s.Rate, -1)
	s.Rate, s.Shape = num/(den+static), 0
	b.hist.add(s.Rate, 1)
}

// knowsStatic is the Adaptive policy told which pages never change (the
// others' rates estimated as usual).
type knowsStatic struct {
	*Adaptive
	static map[string]bool
}

func (k *knowsStatic) Observe(url string, s *State, at time.Time, changed bool, modified time.Time) {
	k.Adaptive.Observe(url, s, at, changed, modified)
	if k.static[url] {
		k.hist.add(s.Rate, -1)
		s.Rate, s.Shape = 1e-12, 0
		k.hist.add(s.Rate, 1)
	}
}

// TestInformationLimit says where the adaptive policy's distance to the
// optimum lies, on the simulated living site (minutes 10–20 of 20, seeds
// 1–3). The exact posterior under the site's true prior (bayes) does no
// better than the adaptive policy's pooled Gamma prior: no estimator
// of the rates from these fetches would. Told only which pages never
// change, the same policy closes most of the distance: what is missing
// is telling a page that never changes from one that changes every few
// hours, which two or three fetches in 20 minutes cannot.
func TestInformationLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 5 policies on 3 sites; skipped with -short")
	}
	const n, budget = 2000, 5.0
	for seed := uint64(1); seed <= 3; seed++ {
		changes, rates := livingSite(seed, n, 1200)
		byURL, static := map[string]float64{}, map[string]bool{}
		for i, l := range rates {
			u := "http://h/p/" + strconv.Itoa(i)
			byURL[u], static[u] = l, l == 0
		}
		opts := livingOptions(budget)
		got := map[string]float64{}
		for name, pol := range map[string]Policy{
			"uniform":      NewUniform(opts),
			"adaptive":     NewAdaptive(opts),
			"bayes":        newBayes(opts),
			"knows-static": &knowsStatic{NewAdaptive(opts), static},
			"optimum":      newOracle(opts, byURL),
		} {
			got[name] = simulateLiving(pol, changes, budget, 1200, 600)
		}
		closed := func(name string) float64 {
			return 100 * (got[name] - got["uniform"]) / (got["optimum"] - got["uniform"])
		}
		t.Logf("seed %d: uniform %.3f, adaptive %.3f (%.0f %%), bayes %.3f (%.0f %%), knows-static %.3f (%.0f %%), optimum %.3f",
			seed, got["uniform"], got["adaptive"], closed("adaptive"), got["bayes"], closed("bayes"),
			got["knows-static"], closed("knows-static"), got["optimum"])
		if got["bayes"] > got["adaptive"]+0.005 {
			t.Errorf("seed %d: the true prior's posterior keeps %.3f fresh, above adaptive's %.3f: the estimates lose", seed, got["bayes"], got["adaptive"])
		}
		if got["knows-static"] < got["adaptive"]+0.015 {
			t.Errorf("seed %d: knowing the static pages keeps %.3f fresh, not well above adaptive's %.3f", seed, got["knows-static"], got["adaptive"])
		}
	}
}
