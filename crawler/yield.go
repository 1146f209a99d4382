package crawler

import (
	"strings"
	"unicode"

	"github.com/doppel-search/doppel/crawler/admit"
	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/crawler/traps"
	"github.com/doppel-search/doppel/dedup"
)

// What each fetched page and each request yielded, counted and told to
// the trap statistics (admit.Observe, admit.ObserveYield), and the
// demotions of queued URLs that follow (the link plan's).

// countPage counts a fetched page (live or replayed) titled title and
// tells its template's trap statistics what it was. The first copy a
// template produces demotes its URLs still queued at normal priority. A
// near-duplicate with a name of its own (see sameName) counts as a
// near-duplicate, but for its template it is a page of its own: an API
// reference whose types share long member lists is neither a trap nor a
// family of copies.
func (c *committer) countPage(u, title string, res dedup.Result, v traps.Verdict) {
	c.fetched.Add(1)
	c.health.hosts.add(urlHost(u), 1, 0)
	c.sinceRecluster++
	if !res.Duplicate {
		c.unique.Add(1)
	} else {
		c.dups.Add(1)
	}
	if res.Duplicate && c.sameName(title, res.Master) {
		v = traps.Duplicate
		tmpl := c.admit.Template(u)
		for _, q := range c.queued[tmpl] {
			c.fbatch.Reprioritize(q, PriorityFamily)
		}
		delete(c.queued, tmpl)
	}
	c.admit.Observe(u, v, string(res.Cluster))
	switch v {
	case traps.Duplicate:
		c.observeYield(u, traps.Copy, "copies")
	case traps.Empty:
		c.observeYield(u, traps.Nothing, "empty")
	default:
		c.observeYield(u, traps.Useful, "")
	}
}

// observeYield tells u's family (urlnorm.Shape) what its request
// yielded (see traps.Yields); a family demoted now has its URLs still
// queued moved after every other.
func (c *committer) observeYield(u string, o traps.Outcome, why string) {
	if demoted, _ := c.admit.ObserveYield(u, o, why); demoted {
		fam := c.admit.Family(u)
		for _, q := range c.shaped[fam] {
			c.fbatch.Reprioritize(q, PriorityUseless)
		}
		delete(c.shaped, fam)
	}
}

// observeDecisions tells the families of the group's URLs skipped or
// failed after a request what the request yielded: useful if it queued a
// URL not known before (a listing's files, a redirect's or canonical
// URL's target), else nothing — with why, from its reason. A transient
// failure tells nothing.
func (c *committer) observeDecisions(group []*result, adds []addition) {
	added := make(map[string]bool, len(adds))
	for _, a := range adds {
		added[a.url] = true
	}
	for _, r := range group {
		if !r.popped || !r.requested || r.prev != nil || r.transient || r.status != pages.Skipped && r.status != pages.Failed {
			continue
		}
		o := traps.Nothing
		for _, l := range r.links {
			if added[l.URL] {
				o = traps.Useful
				break
			}
		}
		if o == traps.Nothing && notThere(r.reason) {
			o = traps.Missing
		}
		c.observeYield(r.url, o, uselessWhy(r.reason))
	}
}

// notThere reports whether a request failed for reason because its page
// is not there (HTTP 404 or 410): a broken link (traps.Missing).
func notThere(reason string) bool { return reason == "HTTP 404" || reason == "HTTP 410" }

// uselessWhy names, for a family's statistics, what a request that
// yielded nothing met, from the reason its URL was skipped or failed.
func uselessWhy(reason string) string {
	switch {
	case strings.Contains(reason, "noindex"):
		return "marked noindex"
	case strings.HasPrefix(reason, "canonical URL"):
		return "canonical URLs known"
	case reason == "directory listing":
		return "listings of nothing new"
	case strings.Contains(reason, "redirect"):
		return "redirects to known pages"
	case strings.HasPrefix(reason, "content type"):
		return traps.WhyType
	case reason == admit.ReasonSoft404:
		return "soft 404s"
	case notThere(reason):
		return "pages not found"
	case strings.HasPrefix(reason, "HTTP "):
		return "HTTP errors"
	}
	return "skipped"
}

// sameName reports whether a page titled title is named like master, the
// master of its cluster: their titles, letters only and lower-cased (so
// digits, dates and punctuation aside), are equal or one holds the
// other ("Annual leave" and "Annual leave (print)"; "Events 2031-04" and
// "Events 2031-05"; not "EscapeUnicode" and "EscapeDefault"). A master
// without a record, or an empty title, counts as the same name.
func (c *committer) sameName(title, master string) bool {
	m, ok, err := c.latest(master)
	if err != nil || !ok {
		return true
	}
	a, b := letters(title), letters(m.Title)
	return a == "" || b == "" || strings.Contains(a, b) || strings.Contains(b, a)
}

// letters returns the letters of s, lower-cased.
func letters(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, s)
}
