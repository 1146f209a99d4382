// Package traps bounds crawler traps: URL spaces that never end (infinite
// calendars, ever-deepening paths, session ids that make every URL new,
// link farms) and pages that pretend to exist ("soft 404s": status 200 with
// a not-found page).
//
// A big site is not a trap: a URL template with thousands of distinct
// pages (every class of an API reference under /api/{n}/…) must be crawled
// in full. What tells a trap is what its pages turn out to be: copies of
// each other, empty pages or soft 404s. So there are three parts:
//
//   - a [Guard] admits or refuses each newly discovered URL by cheap rules
//     that need no fetch: a maximum number of path segments, a limit on
//     one segment repeating, a maximum URL length, and (off by default) a
//     hard budget of URLs per path template;
//   - [Families] counts, per path template, the pages fetched and how many
//     of them were copies, empty or soft 404s, and declares the template a
//     trap once such pages are both numerous and the majority; from then
//     on none of its URLs is fetched, queued ones included;
//   - [Yields] counts, per URL family (a coarser key: urlnorm.Shape),
//     the requests that yielded nothing — a page marked noindex, a copy,
//     a listing or redirect that leads nowhere new, an error — and
//     demotes, then stops, a family whose requests nearly all did;
//   - a [SoftNotFound] learns, per host, what the host answers for a page
//     that cannot exist, and recognises pages that resemble that answer.
package traps

import (
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/cespare/xxhash/v2"

	"github.com/doppel-search/doppel/dedup/features"
)

// Options configures a Guard and Families. The zero value gives the
// defaults.
type Options struct {
	// MaxPerTemplate, when positive, is how many URLs one path template
	// may admit (see Guard): a hard bound for sites that must never grow
	// past it. Default 0: no bound, since a big site has thousands of
	// distinct pages per template and traps are recognised by their
	// pages (MaxDuplicatesPerTemplate).
	MaxPerTemplate int `json:"max_per_template"`
	// MaxDuplicatesPerTemplate is how many repeats (copies of a page the
	// template has already produced), empty pages and soft 404s one path
	// template may produce, while they are at least half of its fetched
	// pages, before it is a trap and none of its URLs is fetched any more:
	// the months of an empty calendar, the pages of an endless archive, a
	// session id loop. Default 20.
	MaxDuplicatesPerTemplate int `json:"max_duplicates_per_template"`
	// MaxSegments is the most path segments a URL may have. Default 12.
	MaxSegments int `json:"max_segments"`
	// MaxRepeats is how often one path segment may occur in a URL's path
	// (/a/b/a/b/a/b repeats a and b three times). Default 3.
	MaxRepeats int `json:"max_repeats"`
	// MaxURLLength is the longest URL admitted, in bytes. Default 1024.
	MaxURLLength int `json:"max_url_length"`
	// DemoteUselessAfter is how many useless requests (see Yields) a URL
	// family may make, while they are at least 95 % of its requests,
	// before its URLs are fetched after every other. Default 5.
	DemoteUselessAfter int `json:"demote_useless_after"`
	// MaxUselessPerFamily is how many useless requests a URL family may
	// make, while they are at least 95 % of its requests, before none of
	// its URLs is fetched any more. Default 20.
	MaxUselessPerFamily int `json:"max_useless_per_family"`
}

// EnsureDefaults sets every zero field to its default (each field's doc
// says which) and returns o.
func (o *Options) EnsureDefaults() *Options {
	if o.MaxDuplicatesPerTemplate == 0 {
		o.MaxDuplicatesPerTemplate = 20
	}
	if o.MaxSegments == 0 {
		o.MaxSegments = 12
	}
	if o.MaxRepeats == 0 {
		o.MaxRepeats = 3
	}
	if o.MaxURLLength == 0 {
		o.MaxURLLength = 1024
	}
	if o.DemoteUselessAfter == 0 {
		o.DemoteUselessAfter = 5
	}
	if o.MaxUselessPerFamily == 0 {
		o.MaxUselessPerFamily = 20
	}
	return o
}

// Validate reports the first invalid field, if any: none may be negative.
func (o Options) Validate() error {
	for _, f := range []struct {
		name string
		v    int
	}{{"MaxPerTemplate", o.MaxPerTemplate}, {"MaxDuplicatesPerTemplate", o.MaxDuplicatesPerTemplate},
		{"MaxSegments", o.MaxSegments}, {"MaxRepeats", o.MaxRepeats}, {"MaxURLLength", o.MaxURLLength},
		{"DemoteUselessAfter", o.DemoteUselessAfter}, {"MaxUselessPerFamily", o.MaxUselessPerFamily}} {
		if f.v < 0 {
			return fmt.Errorf("traps: %s must not be negative, not %d", f.name, f.v)
		}
	}
	return nil
}

// A Guard decides which discovered URLs a crawl follows. It is safe for
// concurrent use.
type Guard struct {
	opts     Options
	template func(string) string
	mu       sync.Mutex
	counts   map[string]int
}

// NewGuard returns a Guard. template maps a URL to its path template, the
// key of the per-template budget (the crawler passes urlnorm.Template).
func NewGuard(opts Options, template func(string) string) *Guard {
	return &Guard{opts: *opts.EnsureDefaults(), template: template, counts: map[string]int{}}
}

// Admit reports whether the crawl may follow rawURL, and if not, why. With
// MaxPerTemplate set, an admitted URL counts against its template's
// budget, so call Admit once per distinct URL (the frontier deduplicates
// URLs first). Admit is Check, then Count of rawURL's template. Cost:
// O(len(rawURL)).
func (g *Guard) Admit(rawURL string) (ok bool, reason string) {
	if ok, reason = g.Check(rawURL); !ok || g.opts.MaxPerTemplate <= 0 {
		return ok, reason
	}
	return g.Count(g.template(rawURL))
}

// Check is the part of Admit that depends on rawURL alone, not on the
// URLs admitted before: its length, its path's segments and their
// repeats. Its answer for a URL never changes, so a caller may keep it.
func (g *Guard) Check(rawURL string) (ok bool, reason string) {
	if len(rawURL) > g.opts.MaxURLLength {
		return false, fmt.Sprintf("trap: URL longer than %d bytes", g.opts.MaxURLLength)
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return false, "invalid URL: " + err.Error()
	}
	segments := strings.FieldsFunc(u.Path, func(r rune) bool { return r == '/' })
	if len(segments) > g.opts.MaxSegments {
		return false, fmt.Sprintf("trap: more than %d path segments", g.opts.MaxSegments)
	}
	seen := map[string]int{}
	for _, s := range segments {
		if seen[s]++; seen[s] > g.opts.MaxRepeats {
			return false, fmt.Sprintf("trap: path segment %q repeated more than %d times", s, g.opts.MaxRepeats)
		}
	}
	return true, ""
}

// Count is the part of Admit that counts: with MaxPerTemplate set, it
// counts a URL of the path template against the template's budget, or
// refuses it once the budget is spent; without, it admits it.
func (g *Guard) Count(template string) (ok bool, reason string) {
	if g.opts.MaxPerTemplate <= 0 {
		return true, ""
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.counts[template] >= g.opts.MaxPerTemplate {
		return false, fmt.Sprintf("trap: more than %d URLs like %s", g.opts.MaxPerTemplate, template)
	}
	g.counts[template]++
	return true, ""
}

// Families tracks, per path template, what the fetched pages of the
// template were, and declares traps (see Options.MaxDuplicatesPerTemplate).
// It is safe for concurrent use.
type Families struct {
	limit int
	mu    sync.Mutex
	m     map[string]*family
}

type family struct {
	fetched, bad, duplicates int
	trapped                  bool
	clusters                 map[uint64]bool // hashes of the clusters its pages are in
}

// NewFamilies returns empty statistics with the budget of opts.
func NewFamilies(opts Options) *Families {
	return &Families{limit: opts.EnsureDefaults().MaxDuplicatesPerTemplate, m: map[string]*family{}}
}

// A Verdict is what a fetched page turned out to be, for its template.
type Verdict int

// The verdicts. Empty and NotFound count against the template; a
// Duplicate when it repeats a page of the template.
const (
	Unique    Verdict = iota // a page with content of its own
	Duplicate                // a copy of a page fetched before
	Empty                    // no text at all
	NotFound                 // a soft 404
)

// Observe counts one fetched page of template, in the near-duplicate
// cluster cluster ("" if it has none), and reports whether this page made
// the template a trap. A Duplicate counts against the template only if
// an earlier page of the template is in the same cluster. Cost: O(1);
// memory 8 bytes per cluster per template.
func (f *Families) Observe(template string, v Verdict, cluster string) (trappedNow bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fam := f.m[template]
	if fam == nil {
		fam = &family{clusters: map[uint64]bool{}}
		f.m[template] = fam
	}
	fam.fetched++
	repeat := false
	if cluster != "" {
		h := xxhash.Sum64String(cluster)
		repeat = fam.clusters[h]
		fam.clusters[h] = true
	}
	switch v {
	case Duplicate:
		fam.duplicates++
		if repeat {
			fam.bad++
		}
	case Empty, NotFound:
		fam.bad++
	}
	if !fam.trapped && fam.bad >= f.limit && 2*fam.bad >= fam.fetched {
		fam.trapped = true
		return true
	}
	return false
}

// Trapped reports whether template is a trap, and if so why.
func (f *Families) Trapped(template string) (reason string, trapped bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fam := f.m[template]
	if fam == nil || !fam.trapped {
		return "", false
	}
	return fmt.Sprintf("trap: %d of the %d pages like %s repeated each other, were empty or not found", fam.bad, fam.fetched, template), true
}

// HasDuplicates reports whether template has produced a copy.
func (f *Families) HasDuplicates(template string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	fam := f.m[template]
	return fam != nil && fam.duplicates > 0
}

// A SoftNotFound recognises soft-404 pages. It is safe for concurrent use.
type SoftNotFound struct {
	mu        sync.RWMutex
	threshold float64
	probes    map[string][]uint64 // host → shingle set of its not-found answer
}

// NewSoftNotFound returns a recogniser that calls a page a soft 404 when
// its resemblance to the host's not-found answer is at least threshold
// (0 means 0.9).
func NewSoftNotFound(threshold float64) *SoftNotFound {
	if threshold == 0 {
		threshold = 0.9
	}
	return &SoftNotFound{threshold: threshold, probes: map[string][]uint64{}}
}

// Learn records text as what host answers, with status 200, for a URL that
// cannot exist (the crawler fetches a random path once per host). A host
// that answers such URLs with a real 404 needs no Learn.
func (s *SoftNotFound) Learn(host, text string) {
	set := features.Set(features.Shingles(features.Tokens(text), features.DefaultShingleWidth))
	s.mu.Lock()
	s.probes[host] = set
	s.mu.Unlock()
}

// Is reports whether text, served by host with status 200, is the host's
// not-found page. Cost: O(len(text)).
func (s *SoftNotFound) Is(host, text string) bool {
	s.mu.RLock()
	probe, ok := s.probes[host]
	s.mu.RUnlock()
	if !ok || len(probe) == 0 {
		return false
	}
	set := features.Set(features.Shingles(features.Tokens(text), features.DefaultShingleWidth))
	return features.Resemblance(set, probe) >= s.threshold
}
