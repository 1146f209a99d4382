package schedule

import "math"

// The rate histogram: rates from 10⁻¹⁰ to 10² per second in buckets of
// 1/perDecade of a decade (7 % wide), and one bucket for rate 0.
const (
	perDecade  = 32
	lowestRate = -10 // log10
	buckets    = 12 * perDecade
)

// histogram counts pages by change rate, so that the multiplier that
// spends the budget is found over a fixed number of buckets however many
// pages there are: an incremental allocation, O(1) per page observed.
type histogram struct {
	count [buckets + 1]float64 // the last: rate 0
	total float64
}

func bucket(rate float64) int {
	if rate <= 0 {
		return buckets
	}
	return min(max(int((math.Log10(rate)-lowestRate)*perDecade), 0), buckets-1)
}

// rateOf is a bucket's rate: its geometric middle.
func rateOf(b int) float64 {
	if b == buckets {
		return 0
	}
	return math.Pow(10, (float64(b)+0.5)/perDecade+lowestRate)
}

func (h *histogram) add(rate, n float64) {
	b := bucket(rate)
	h.count[b] = max(h.count[b]+n, 0)
	h.total = max(h.total+n, 0)
}

// multiplier is the μ that spends budget over the pages counted, found
// near guess (the last one) if positive.
func (h *histogram) multiplier(budget, minFreq, maxFreq, guess float64) float64 {
	var groups []rateGroup
	for b, n := range h.count {
		if n > 0 {
			groups = append(groups, rateGroup{rateOf(b), n})
		}
	}
	return multiplierOf(groups, budget, minFreq, maxFreq, guess)
}
