package admit

import (
	"net/url"
	"sync"

	"github.com/doppel-search/doppel/crawler/urlnorm"
)

// maxKeys bounds the links whose keys an Admission keeps: when full, it
// forgets them all at once and starts again (about 400 bytes each).
const maxKeys = 1 << 15

// linkKeys are what Link decides from a link's URL alone, with the
// Admission's options (which do not change): its normalized form, its
// scope, the exclusion patterns, its view, the guard's check of its
// shape, and the keys of its template and families. What depends on the
// crawl so far (robots.txt, the guard's budget, traps, families stopped)
// is decided at each Link from these. A site's links repeat from page to
// page (every rustdoc page of a module links its module's items): each
// link URL is parsed and normalized once, not seven times at each page.
type linkKeys struct {
	url      string   // normalized ("" with an ignore reason)
	parsed   *url.URL // url parsed; shared, read only
	verdict  Verdict  // Follow if no static rule before robots.txt decides
	reason   string
	trap     string // the guard's refusal of the URL's shape (traps.Guard.Check), after robots.txt's
	template string // urlnorm.Template(url)
	typed    string // urlnorm.TypeShape(url)
	shape    string // urlnorm.Shape(url)
}

// keyCache holds the keys of recent links (at most max, maxKeys if 0).
type keyCache struct {
	mu  sync.Mutex
	m   map[string]*linkKeys
	max int
}

func (c *keyCache) get(raw string) *linkKeys {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[raw]
}

func (c *keyCache) put(raw string, k *linkKeys) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.max == 0 {
		c.max = maxKeys
	}
	if c.m == nil || len(c.m) >= c.max {
		c.m = make(map[string]*linkKeys, 1024)
	}
	c.m[raw] = k
}

// keys returns the keys of the link raw, derived once and kept.
func (a *Admission) keys(raw string) *linkKeys {
	if k := a.links.get(raw); k != nil {
		return k
	}
	k := a.deriveKeys(raw)
	a.links.put(raw, k)
	return k
}

// deriveKeys decides what the link raw's URL alone decides (see linkKeys).
func (a *Admission) deriveKeys(raw string) *linkKeys {
	u, err := a.Normalize(raw)
	if err != nil {
		return &linkKeys{verdict: Ignore, reason: err.Error()}
	}
	k := &linkKeys{url: u, verdict: Follow}
	pu, err := url.Parse(u)
	if err != nil {
		k.verdict, k.reason = Ignore, "out of scope"
		return k
	}
	k.parsed = pu
	if in, refusal := a.scope(pu); !in && refusal != "" {
		k.verdict, k.reason = Refuse, refusal
		return k
	} else if !in {
		k.verdict, k.reason = Ignore, "out of scope"
		return k
	}
	for _, re := range a.opts.Exclude {
		if re.MatchString(u) {
			k.verdict, k.reason = Refuse, ReasonExcluded+" "+re.String()
			return k
		}
	}
	if view, ok := urlnorm.View(u); ok && !a.opts.FetchViews {
		k.verdict, k.reason = Refuse, ReasonView+" "+view
		return k
	}
	if ok, reason := a.guard.Check(u); !ok {
		k.trap = reason
	}
	k.template, k.typed, k.shape = urlnorm.Template(u), urlnorm.TypeShape(u), urlnorm.Shape(u)
	return k
}
