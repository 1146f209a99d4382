// Package traps bounds crawler traps: URL spaces that never end (infinite
// calendars, ever-deepening paths, session ids that make every URL new)
// and pages that pretend to exist ("soft 404s": status 200 with a
// not-found page).
//
// A [Guard] admits or refuses each newly discovered URL by cheap rules
// that need no fetch: a budget of URLs per path template (a calendar's
// months all share /calendar/{n}/{n}), a maximum number of path segments,
// a limit on one segment repeating, and a maximum URL length. A
// [SoftNotFound] learns, per host, what the host answers for a page that
// cannot exist, and recognises pages that resemble that answer.
package traps

import (
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/doppel-search/doppel/dedup/features"
)

// Options configures a Guard. The zero value gives the defaults.
type Options struct {
	// MaxPerTemplate is how many URLs one path template may admit
	// (see Guard): a hard bound for URL spaces whose pages all differ.
	// Default 5000.
	MaxPerTemplate int
	// MaxDuplicatesPerTemplate is how many near-duplicate pages one path
	// template may produce before no more of its URLs are followed: the
	// months of an empty calendar, the pages of an endless archive. The
	// Guard cannot see content; the crawler, which can, enforces it.
	// Default 20.
	MaxDuplicatesPerTemplate int
	// MaxSegments is the most path segments a URL may have. Default 12.
	MaxSegments int
	// MaxRepeats is how often one path segment may occur in a URL's path
	// (/a/b/a/b/a/b repeats a and b three times). Default 3.
	MaxRepeats int
	// MaxURLLength is the longest URL admitted, in bytes. Default 1024.
	MaxURLLength int
}

// WithDefaults returns o with every zero field set to its default.
func (o Options) WithDefaults() Options {
	if o.MaxPerTemplate == 0 {
		o.MaxPerTemplate = 5000
	}
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
	return o
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
	return &Guard{opts: opts.WithDefaults(), template: template, counts: map[string]int{}}
}

// Admit reports whether the crawl may follow rawURL, and if not, why. An
// admitted URL counts against its template's budget, so call Admit once
// per distinct URL (the frontier deduplicates URLs first). Cost: O(len(rawURL)).
func (g *Guard) Admit(rawURL string) (ok bool, reason string) {
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
	t := g.template(rawURL)
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.counts[t] >= g.opts.MaxPerTemplate {
		return false, fmt.Sprintf("trap: more than %d URLs like %s", g.opts.MaxPerTemplate, t)
	}
	g.counts[t]++
	return true, ""
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
