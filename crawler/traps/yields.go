package traps

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

// Yields learns, per URL family (the crawler passes urlnorm.Shape: every
// article of a wiki one family, its edit links another), what fetching
// the family's URLs yields (an Outcome): a page kept or a URL not known
// before (Useful), a copy of a page of the same name (Copy), or nothing —
// a page marked noindex, a listing or redirect that leads nowhere new,
// another type, an error (Nothing). A family whose requests are nearly
// all copies or nothing (at least 95 %) is demoted once
// DemoteUselessAfter of them were (the crawl fetches its URLs after
// every other); once MaxUselessPerFamily of them yielded nothing, it is
// stopped (none of its URLs is fetched any more). Copies alone never
// stop a family: a copy fetched is a copy known, shown with its
// original ("1 similar"). Nor do links to pages not there (Missing): a
// family of real pages that also links to many pages the site does not
// hold (a book's chapters linking to the whole book) must not lose its
// real pages to those broken links. It is safe for concurrent use.
type Yields struct {
	demote, stop int
	mu           sync.Mutex
	m            map[string]*yield
}

type yield struct {
	useful, useless  int // useless: copies and nothing
	nothing          int
	demoted, stopped bool
	why              map[string]int // useless requests by what they yielded
}

// WhyType is the why of a request that yielded a body of another type
// than pages (a gzip archive, an image): what a file's extension
// foretells, so the only useless outcome a file type's family learns.
const WhyType = "of another type"

// An Outcome is what one request of a family yielded.
type Outcome int

// The outcomes.
const (
	Useful  Outcome = iota // a page kept, or a URL not known before
	Copy                   // a copy of a page of the same name
	Nothing                // noindex, a listing or redirect to nothing new, another type, an error
	// Missing is a page the server says is not there (HTTP 404, 410):
	// useless, so it demotes its family, but it never stops it. A
	// broken link yields no URL, so its family's requests are bounded by
	// the links of the pages that exist, and the family's real pages,
	// found beside its broken links, must still be fetched.
	Missing
)

// NewYields returns empty statistics with the bounds of opts.
func NewYields(opts Options) *Yields {
	opts.EnsureDefaults()
	return &Yields{demote: opts.DemoteUselessAfter, stop: opts.MaxUselessPerFamily, m: map[string]*yield{}}
}

// mostlyUseless reports whether at least 95 % of the family's requests
// were useless.
func (y *yield) mostlyUseless() bool { return 20*y.useful <= y.useless }

// Observe counts one request of a URL of family and what it yielded,
// with why if not Useful (a short phrase: "marked noindex", "copies").
// It reports whether this request demoted the family and whether it
// stopped it. Cost: O(1).
func (y *Yields) Observe(family string, o Outcome, why string) (demotedNow, stoppedNow bool) {
	y.mu.Lock()
	defer y.mu.Unlock()
	f := y.m[family]
	if f == nil {
		f = &yield{why: map[string]int{}}
		y.m[family] = f
	}
	if o == Useful {
		f.useful++
		return false, false
	}
	f.useless++
	if o == Nothing { // not Missing: see Missing
		f.nothing++
	}
	if len(f.why) < 8 || f.why[why] > 0 {
		f.why[why]++
	}
	if !f.mostlyUseless() {
		return false, false
	}
	if !f.demoted && f.useless >= y.demote {
		f.demoted, demotedNow = true, true
	}
	if !f.stopped && f.nothing >= y.stop {
		f.stopped, stoppedNow = true, true
	}
	return demotedNow, stoppedNow
}

// Demoted reports whether family's URLs are fetched after every other.
func (y *Yields) Demoted(family string) bool {
	y.mu.Lock()
	defer y.mu.Unlock()
	f := y.m[family]
	return f != nil && f.demoted
}

// Stopped reports whether family's URLs are no longer fetched, and if so
// why.
func (y *Yields) Stopped(family string) (reason string, stopped bool) {
	y.mu.Lock()
	defer y.mu.Unlock()
	f := y.m[family]
	if f == nil || !f.stopped {
		return "", false
	}
	whys := slices.SortedFunc(maps.Keys(f.why), func(a, b string) int { // most first, then by name
		if d := f.why[b] - f.why[a]; d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(whys))
	for i, w := range whys {
		parts[i] = fmt.Sprintf("%d %s", f.why[w], w)
	}
	return fmt.Sprintf("trap: %d of the %d requests of URLs like %s yielded nothing (%s)",
		f.useless, f.useful+f.useless, family, strings.Join(parts, ", ")), true
}

// Families returns the families demoted or stopped so far, by family:
// "demoted" or "stopped".
func (y *Yields) Families() map[string]string {
	y.mu.Lock()
	defer y.mu.Unlock()
	out := map[string]string{}
	for k, f := range y.m {
		switch {
		case f.stopped:
			out[k] = "stopped"
		case f.demoted:
			out[k] = "demoted"
		}
	}
	return out
}
