package crawler

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/doppel-search/doppel/crawler/admit"
	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/page"
)

// The committer's link planning: a group's links decided (queued,
// refused, or known already), their depth shortened, their priority set
// from what queued links taught of templates and families (linkPlan).

// An addition is a link queued by the frontier batch, for noteQueued.
type addition struct {
	url      string
	priority int
}

// A firstFetch is a page fetched for the first time in a group, with the
// range of its links in the group's links.
type firstFetch struct {
	url        string
	start, end int
}

// listingYield is the mean number of new URLs per fetched page from
// which a numbered path template counts as a listing's.
const listingYield = 10

// linkPlan is what queueing links has taught of templates and families,
// which sets the priority of the links that follow (linkPriority). The
// committer's part; touched only by the committer goroutine.
type linkPlan struct {
	queued map[string][]string // template without copies yet → its URLs queued at normal priority
	shaped map[string][]string // family (urlnorm.Shape) not demoted → its URLs queued above PriorityUseless
	yields yields              // new URLs found per page of each numbered template
}

// yields counts, per numbered path template (one with "{n}": a family of
// pages such as /list?page=N), the pages fetched for the first time and
// the new URLs they led to; committer only.
type yields map[string]*[2]int

func (y yields) observe(template string, found int) {
	if !strings.Contains(template, "{n}") {
		return
	}
	v := y[template]
	if v == nil {
		v = new([2]int)
		y[template] = v
	}
	v[0]++
	v[1] += found
}

// listing reports whether the pages of template have led to listingYield
// new URLs each on average: the further pages of a listing.
func (y yields) listing(template string) bool {
	v := y[template]
	return v != nil && v[1] >= listingYield*v[0]
}

// queueLinks decides the group's links, in order: a URL seen before
// (queued, fetched or recorded), or decided earlier in the group, is left
// alone; a refused one is recorded as skipped with the reason (in
// c.batch); a followed one is queued with its priority (in c.fbatch).
// Anchor texts are recorded for every link. The new URLs that each page
// fetched for the first time (firsts) led to are counted (yields) before
// priorities are given, so that a listing's page already lifts the next
// one it links to. It returns the additions, whose Commit results
// noteQueued reads.
func (c *committer) queueLinks(links []link, fromUnique []bool, firsts []firstFetch, now time.Time) ([]addition, error) {
	if len(links) == 0 {
		for _, f := range firsts {
			c.yields.observe(c.admit.Template(f.url), 0)
		}
		return nil, nil
	}
	fresh, queued, err := c.freshLinks(links)
	if err != nil {
		return nil, err
	}
	if err := c.shorten(links, queued); err != nil {
		return nil, err
	}
	for _, f := range firsts {
		n := 0
		for _, i := range fresh {
			if i >= f.start && i < f.end && links[i].Verdict == admit.Follow {
				n++
			}
		}
		c.yields.observe(c.admit.Template(f.url), n)
	}
	var adds []addition
	for _, i := range fresh {
		l := links[i]
		switch l.Verdict {
		case admit.Refuse:
			c.batch.Put(pages.Record{Page: page.Page{URL: l.URL}, Status: pages.Skipped, Reason: l.Reason, FetchedAt: now})
			c.skipped.Add(1)
		case admit.Follow:
			priority := c.linkPriority(l, fromUnique[i])
			payload, err := json.Marshal(l.task)
			if err != nil {
				return nil, err
			}
			c.fbatch.Add(l.URL, priority, payload)
			adds = append(adds, addition{l.URL, priority})
		}
	}
	return adds, nil
}

// freshLinks records the anchor texts of links and returns the indexes
// of those to decide (fresh): not seen before (queued, fetched or
// recorded) nor earlier in links; a link to the same URL later in links
// gives the first its depth if shorter. It also returns the indexes of
// the followed links to URLs queued before and not yet fetched (queued),
// whose depth a shorter path lowers (shorten). A followed link whose
// template became a trap since its worker asked is refused.
func (c *committer) freshLinks(links []link) (fresh, queued []int, err error) {
	urls := make([]string, len(links))
	for i, l := range links {
		urls[i] = l.URL
	}
	seen, err := c.front.SeenAll(urls)
	if err != nil {
		return nil, nil, err
	}
	known, err := c.pages.Known(urls)
	if err != nil {
		return nil, nil, err
	}
	if c.writer != nil {
		for i, w := range c.writer.unwrittenOf(urls) {
			known[i] = known[i] || w
		}
	}
	decided := map[string]int{} // URL → index of its fresh link
	for i := range links {
		l := &links[i]
		if l.text != "" {
			c.batch.AddAnchors(l.URL, l.text)
			c.hook.Anchors().Observe(l.text, l.URL)
		}
		if j, ok := decided[l.URL]; ok {
			links[j].task.Depth = min(links[j].task.Depth, l.task.Depth)
			continue
		}
		if known[i] {
			continue
		}
		if seen[i] {
			if l.Verdict == admit.Follow {
				queued = append(queued, i)
			}
			continue
		}
		decided[l.URL] = i
		if l.Verdict == admit.Follow {
			if reason, trapped := c.admit.Trapped(l.URL); trapped {
				l.Verdict, l.Reason = admit.Refuse, reason
			}
		}
		fresh = append(fresh, i)
	}
	return fresh, queued, nil
}

// shorten lowers the depth of the URLs that links[i], for i in queued,
// lead to — queued before, not yet fetched — to the links' depth when it
// is shorter than the path they were queued by (Batch.Replace of their
// payload, in c.fbatch): a page's depth is the length of the shortest
// path to it found before it is fetched, whatever order the pages on
// the way were fetched in. A revisit, and a payload that is not a task,
// are left alone.
func (c *committer) shorten(links []link, queued []int) error {
	if len(queued) == 0 {
		return nil
	}
	depth := map[string]int{}
	var urls []string
	for _, i := range queued {
		l := links[i]
		if d, ok := depth[l.URL]; ok {
			depth[l.URL] = min(d, l.task.Depth)
			continue
		}
		depth[l.URL] = l.task.Depth
		urls = append(urls, l.URL)
	}
	payloads, err := c.front.Payloads(urls)
	if err != nil {
		return err
	}
	for i, u := range urls {
		var t task
		if payloads[i] == nil || json.Unmarshal(payloads[i], &t) != nil || t.Revisit || t.Depth <= depth[u] {
			continue
		}
		t.Depth = depth[u]
		p, err := json.Marshal(t)
		if err != nil {
			return err
		}
		c.fbatch.Replace(u, payloads[i], p)
	}
	return nil
}

// linkPriority is the priority a followed link is queued with: its own
// if fixed, else by the page it was found on (unique content, a listing's
// further page, or a near-duplicate); never above PriorityFamily when its
// template has produced near-duplicates.
func (c *committer) linkPriority(l link, fromUnique bool) int {
	priority := l.priority
	if !l.fixed {
		priority = PriorityDuplicate
		switch {
		case fromUnique && c.yields.listing(c.admit.Template(l.URL)):
			priority = PriorityListing
		case fromUnique:
			priority = PriorityUnique
		}
	}
	if c.admit.HasDuplicates(l.URL) {
		priority = min(priority, PriorityFamily)
	}
	if c.admit.Demoted(l.URL) {
		priority = min(priority, PriorityUseless)
	}
	return priority
}

// noteQueued remembers URLs queued at normal priority per template, to
// demote them if their template produces a copy.
func (c *committer) noteQueued(adds []addition) {
	for _, a := range adds {
		if a.priority > PriorityUseless {
			fam := c.admit.Family(a.url)
			c.shaped[fam] = append(c.shaped[fam], a.url)
		}
		if a.priority > PriorityFamily {
			tmpl := c.admit.Template(a.url)
			c.queued[tmpl] = append(c.queued[tmpl], a.url)
		}
	}
}
