package crawler

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/doppel-search/doppel/crawler/polite"
	"github.com/doppel-search/doppel/crawler/schedule"
	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/page"

	"github.com/doppel-search/doppel/crawler/admit"
	"github.com/doppel-search/doppel/crawler/frontier"
	"github.com/doppel-search/doppel/crawler/hook"
	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/crawler/traps"
	"github.com/doppel-search/doppel/dedup"
)

// The committer is the one goroutine that writes: it takes the fetch
// goroutines' results in arrival order and, a group at a time, assigns
// clusters (hook.Insert, Update, Remove), records pages (into batch,
// committed by the record writer), adds them to the index batch, decides
// and queues their links and marks their URLs done (fbatch, one frontier
// transaction), and flushes the index when due. Touched by Open, then
// only by the committer goroutine of Run (and by Run after it has ended).
//
// It composes parts with one job each, each a type with its own fields:
//   - indexFlush, the group commit's index flush and its watermark
//     (flush.go);
//   - linkPlan, what the queued links taught of templates and families;
//   - reclusterState, when the detector is re-clustered (recluster.go);
//   - snapshots, the restore after a restart (replay.go) and the
//     detector's snapshot (snapshot.go);
//   - revisitPlan, revisit planning and retries (revisit.go).
//
// What depends on whose crawl it is — one machine's, or a worker's of a
// crawl shared among workers — is its role (role.go, sharedworker.go)
// and its detector's keeper (keeper.go), both chosen once by Open; the
// Follower of a shared crawl applies the workers' page log through it
// (followapply.go).
type committer struct {
	opts   *Options
	front  frontier.Queue
	pages  pages.Records
	index  indexer.Writer
	hook   *hook.Hook
	admit  *admit.Admission
	pacer  *polite.Pacer  // paused by a Retry-After
	role   commitRole     // one machine's or a shared crawl worker's
	keeper detectorKeeper // the crawl's own detector's, or the shared one's
	*counters
	*fatal

	batch   pages.Batch    // records of the group being built; the hook's Recorder appends here
	fbatch  frontier.Batch // frontier changes of the group being built
	writer  *recordWriter  // commits the groups' records in the background; nil outside Run
	lastRev uint64         // revision of the last committed record

	linkPlan
	indexFlush
	reclusterState
	snapshots
	revisitPlan

	recording recording // the fetch the hook is recording
	seeds     *seedWatch
	reasons   []string // "URL: reason" of the first URLs this run skipped or failed (maxReasons)
}

// maxReasons is how many failures a crawl that fetched nothing names.
const maxReasons = 3

// commitLoop receives the fetch goroutines' results until the channel is closed and
// commits them in groups: whatever has arrived while the previous group
// was committed, up to maxGroup. While no result comes it commits every
// RefreshInterval what is waiting (URLs to mark done, revisits to
// schedule, the index to flush), so that a crawl kept alive (Watch) does
// not hold them. After a storage error it only drains the channel.
func (c *committer) commitLoop(results <-chan *result, d *dispatcher) {
	ctx := context.Background()
	tick := time.NewTicker(c.opts.RefreshInterval)
	defer tick.Stop()
	for {
		select {
		case r, ok := <-results:
			if !ok {
				return
			}
			c.commitGroup(ctx, gather(results, r), d)
		case <-tick.C:
			c.commitWaiting(ctx)
			d.poke()
		case <-d.idle:
			// The worker waits for others, which wait for its URLs to be
			// marked done.
			if c.writer.hasDone() {
				c.commitWaiting(ctx)
			}
		}
	}
}

// gather returns first and the results that have arrived since, up to
// maxGroup, without waiting for more.
func gather(results <-chan *result, first *result) []*result {
	group := []*result{first}
	for len(group) < maxGroup {
		select {
		case r, ok := <-results:
			if !ok {
				return group
			}
			group = append(group, r)
		default:
			return group
		}
	}
	return group
}

// commitWaiting commits what is waiting without a new result (URLs to
// mark done, revisits to schedule, the index to flush), unless a storage
// error stopped the crawl.
func (c *committer) commitWaiting(ctx context.Context) {
	if c.fatalErr() == nil {
		if err := c.commit(ctx, nil, func() {}); err != nil {
			c.setFatal(err)
		}
	}
}

// commitGroup commits a group of results — or, after a storage error,
// only releases its fetch goroutines — then re-clusters and writes the
// detector's snapshot when due.
func (c *committer) commitGroup(ctx context.Context, group []*result, d *dispatcher) {
	release := groupReleaser(group, d)
	if c.fatalErr() == nil {
		if err := c.commit(ctx, group, release); err != nil {
			c.setFatal(err)
		}
	}
	release()
	c.sinceSnapshot += len(group)
	if c.fatalErr() == nil {
		if err := c.keeper.afterGroup(ctx); err != nil {
			c.setFatal(err)
		}
	}
}

// groupReleaser returns the function that releases a group's fetch
// goroutines once (its links are queued): it settles the group with the
// dispatcher and tells each result's goroutine.
func groupReleaser(group []*result, d *dispatcher) func() {
	released := false
	return func() {
		if !released {
			released = true
			fresh := 0
			for _, r := range group {
				if r.popped && !r.task.Revisit {
					fresh++
				}
			}
			d.settle(len(group), fresh)
			for _, r := range group {
				close(r.queued)
			}
		}
	}
}

// commit processes a group of results in order — pages inserted (cluster
// assigned, recorded into c.batch, added to the index), revisits and
// decisions recorded, retries queued, links decided — and makes it
// durable in this order: links queued in one frontier transaction (which
// also marks done the URLs of earlier groups whose records are committed,
// and schedules their revisits), fetch goroutines released, records handed to the
// record writer (one page-store transaction, in the background), index
// write started when due (after the records it holds are committed). A
// crash between any two steps loses nothing: a page whose record is not
// stored is fetched again (its links are queued, or will be again), and a
// recorded URL not yet marked done is marked done, unfetched, when the
// next run pops it (a revisit is fetched again).
func (c *committer) commit(ctx context.Context, group []*result, release func()) error {
	written, err := c.writer.takeDone()
	if err != nil {
		return err
	}
	c.fbatch, c.batch = frontier.Batch{}, pages.Batch{}
	for _, d := range written {
		markDone(&c.fbatch, d)
	}
	if c.watermark > c.stored {
		c.batch.SetIndexedThrough(c.watermark)
		c.stored = c.watermark
	}
	now := time.Now().UTC()
	var links []link
	var fromUnique []bool
	var firsts []firstFetch
	var marks []doneMark
	for _, r := range group {
		mark, unique, settled, err := c.take(ctx, r, now)
		if err != nil {
			return err
		}
		if settled {
			continue
		}
		for _, l := range r.links {
			links = append(links, l)
			fromUnique = append(fromUnique, unique)
		}
		if r.prev == nil && r.status == pages.Fetched {
			firsts = append(firsts, firstFetch{r.url, len(links) - len(r.links), len(links)})
		}
		if r.popped {
			marks = append(marks, mark)
		}
	}
	added, err := c.queueLinks(links, fromUnique, firsts, now)
	if err != nil {
		return err
	}
	c.noteQueued(added)
	c.observeDecisions(group, added)
	if err := c.role.handOn(ctx); err != nil {
		return err
	}
	if _, err := c.front.Commit(&c.fbatch); err != nil {
		return err
	}
	release() // the group's links are queued: its fetch goroutines may pop again
	c.writer.write(c.batch, marks)
	c.recrawl.plan()
	return c.flushIndex(false)
}

// take processes one result of a group: a sitemap's findings scheduled,
// a URL recorded before a crash marked done, a transient failure queued
// again (settled: nothing more to do), a revisit, a new page inserted, or
// a decision recorded. It returns the URL's done mark and whether its
// links count as found on unique content.
func (c *committer) take(ctx context.Context, r *result, now time.Time) (mark doneMark, unique, settled bool, err error) {
	mark = doneMark{url: r.url, outcome: string(r.status), depth: r.task.Depth}
	c.health.noteFailure(r)
	if r.popped && r.requested && !r.task.Revisit {
		c.requests.Add(1)
	}
	switch {
	case !r.popped: // a sitemap's findings
		c.role.takeFound(r, now)
	case r.known != "": // its record is committed: done now
		mark.outcome = string(r.known)
		if st, ok := c.recrawl.states[r.url]; ok && r.known == pages.Fetched {
			mark.revisit = st.LastFetch.Add(c.recrawl.policy.Next(&st))
		}
		markDone(&c.fbatch, mark)
		return mark, false, true, nil
	case c.seedResult(r):
		c.recordDecision(r, now)
	case c.retry(r, now):
		return mark, false, true, nil
	case r.prev != nil:
		mark, unique, err = c.role.takeRevisit(ctx, r, now)
	case r.status == pages.Fetched:
		mark, unique, err = c.role.takeFetched(ctx, r, mark, now)
	default:
		c.recordDecision(r, now)
		if r.verdict == traps.NotFound {
			c.admit.Observe(r.url, traps.NotFound, "")
		}
	}
	return mark, unique, false, err
}

// recordDecision records a URL not fetched (skipped or failed) and
// counts it.
func (c *committer) recordDecision(r *result, now time.Time) {
	c.batch.Put(pages.Record{Page: page.Page{URL: r.url}, Status: r.status, Reason: r.reason, FetchedAt: now, Transient: r.transient, Requested: r.requested})
	c.countDecision(r.status)
	c.noteReason(r)
}

// insertFetched inserts a page fetched for the first time (insert), with
// its fetch's details for its record (c.recording).
func (c *committer) insertFetched(ctx context.Context, r *result, now time.Time) (dedup.Result, error) {
	c.recording = recording{url: r.url, etag: r.etag, modified: r.modified, hash: r.hash, linkHash: r.linkHash, fetched: now, reason: r.reason}
	return c.insert(ctx, r)
}

// insert assigns a fetched page its cluster, records it into c.batch and
// indexes it (hook.Insert), and counts it.
func (c *committer) insert(ctx context.Context, r *result) (dedup.Result, error) {
	anchors, err := c.anchorsOf(r.url)
	if err != nil {
		return dedup.Result{}, err
	}
	r.prep.SetAnchors(anchors)
	p, err := c.hook.Insert(ctx, r.prep)
	if err != nil {
		return dedup.Result{}, err
	}
	c.countPage(p.URL, p.Title, p.Result, r.verdict)
	c.sinceFlush++
	return p.Result, nil
}

// anchorsOf returns the anchor texts of links to url known now: committed
// ones, those of groups the record writer has not committed yet, and
// those of pages earlier in this group.
func (c *committer) anchorsOf(url string) ([]string, error) {
	// The writer's first: a group it commits meanwhile is then in the
	// store when the store is read.
	var pending []string
	if c.writer != nil {
		pending = c.writer.unwrittenAnchors(url)
	}
	anchors, err := c.pages.Anchors(url)
	if err != nil {
		return nil, err
	}
	for _, a := range append(pending, c.batch.PendingAnchors(url)...) {
		if a != "" && len(anchors) < pages.MaxAnchors && !slices.Contains(anchors, a) {
			anchors = append(anchors, a)
		}
	}
	return anchors, nil
}

// recording is what the committer knows of the page the hook is about to
// record beyond the page itself: the fetch, for the page fetched; nothing
// (zero) for pages a change moved, whose record keeps its fetch.
type recording struct {
	url            string // the page fetched
	etag, modified string
	hash           uint64
	linkHash       uint64
	links          []string // Record.Links
	sched          schedule.State
	fetched        time.Time
	reason         string // a bound the page hit (Record.Reason)
}

// record is the hook's Recorder: it puts the page's record in the group
// being built. The page fetched gets the fetch's details (c.recording);
// another page (one a change gave a new cluster or master) keeps those of
// its record. A page that left its cluster and entered the detector anew
// is moved to the end of the record order, where a restart replays it.
func (c *committer) record(p hook.Page) error {
	rec, err := c.recordOf(p)
	if err != nil {
		return err
	}
	if p.Arrived {
		c.batch.Move(rec)
	} else {
		c.batch.Put(rec)
	}
	if p.Result.Master == p.URL {
		c.batch.SetMaster(string(p.Result.Cluster), p.URL)
	}
	return c.recordParts(p)
}

// recordParts records, for every earlier page the detector found to be
// a part of page p (dedup.Result.Parts), that it is contained in p.
func (c *committer) recordParts(p hook.Page) error {
	for _, part := range p.Result.Parts {
		old, ok, err := c.latest(part)
		if err != nil {
			return err
		}
		if ok && old.Status == pages.Fetched && old.ContainedIn != p.URL {
			old.ContainedIn = p.URL
			c.batch.Put(old)
		}
	}
	return nil
}

// recordOf returns the record of a processed page: the page, with the
// fetch's details (c.recording) if it is the page fetched, else those of
// its record.
func (c *committer) recordOf(p hook.Page) (pages.Record, error) {
	rec := hook.Record(p)
	if rc := c.recording; rc.url == p.URL {
		rec.FetchedAt, rec.ETag, rec.Modified, rec.Hash, rec.Schedule = rc.fetched, rc.etag, rc.modified, rc.hash, rc.sched
		rec.LinkHash, rec.Links, rec.Reason = rc.linkHash, rc.links, rc.reason
		return rec, nil
	}
	old, ok, err := c.latest(p.URL)
	if err != nil {
		return rec, err
	}
	if ok {
		rec.FetchedAt, rec.ETag, rec.Modified, rec.Hash, rec.Schedule = old.FetchedAt, old.ETag, old.Modified, old.Hash, old.Schedule
		rec.LinkHash, rec.Links, rec.Reason = old.LinkHash, old.Links, old.Reason
	}
	return rec, nil
}

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
		c.observeYield(r.url, o, uselessWhy(r.reason))
	}
}

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

func (c *committer) countDecision(s pages.Status) {
	if s == pages.Failed {
		c.errs.Add(1)
	} else {
		c.skipped.Add(1)
	}
}

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

// noteReason keeps the reason of a skipped or failed URL among the first
// few of the run.
func (c *committer) noteReason(r *result) {
	if len(c.reasons) < maxReasons && r.reason != "" && r.redirectTo == "" {
		c.reasons = append(c.reasons, r.url+": "+r.reason)
	}
}

// queueSeeds queues the seeds (or records why not) — again, a seed that
// failed before — and the URLs an earlier run recorded as transient
// failures, in one commit. A crawl that has fetched nothing yet watches
// its seeds (seedWatch).
func (c *committer) queueSeeds() error {
	c.batch, c.fbatch = pages.Batch{}, frontier.Batch{}
	c.seeds, c.reasons = nil, nil
	if c.fetched.Load() == 0 {
		c.seeds = &seedWatch{waiting: map[string]bool{}}
	}
	var links []link
	for _, s := range c.opts.Seeds {
		u, err := c.admit.Seed(s)
		if err != nil {
			return err
		}
		d := c.admit.Link(u)
		rec, known, err := c.pages.Get(d.URL)
		if err != nil {
			return err
		}
		switch {
		case known && rec.Status == pages.Failed: // the entry point people gave: tried again each run
			c.fbatch.Requeue(d.URL, PrioritySeed, revisitPayload(0))
		case known:
		default:
			links = append(links, link{Decision: d, priority: PrioritySeed, fixed: true})
		}
		if c.seeds == nil {
			continue
		}
		if d.Verdict == admit.Refuse {
			if err := c.seeds.fail(d.URL, d.Reason); err != nil {
				return err
			}
			continue
		}
		c.seeds.watch(d.URL)
	}
	for _, u := range c.transient { // failed for a while in an earlier run: try again
		c.fbatch.Requeue(u, PriorityRetry, revisitPayload(0))
	}
	c.transient = nil
	adds, err := c.queueLinks(links, make([]bool, len(links)), nil, time.Now().UTC())
	if err != nil {
		return err
	}
	if _, err := c.front.Commit(&c.fbatch); err != nil {
		return err
	}
	c.noteQueued(adds)
	if err := c.role.handOn(context.Background()); err != nil {
		return err
	}
	_, err = c.pages.Commit(&c.batch)
	return err
}

// finish waits for the records in writing, re-clusters if asked to and
// pages were inserted since the last re-clustering, flushes the index,
// stores the watermark and marks done the URLs recorded last.
func (c *committer) finish(recluster bool) error {
	var fb frontier.Batch
	if c.writer != nil {
		c.writer.close()
		rev, err := c.writer.wait()
		if err != nil {
			return err
		}
		c.lastRev = rev
		done, _ := c.writer.takeDone()
		for _, d := range done {
			markDone(&fb, d)
		}
		c.writer = nil
	}
	if recluster && c.sinceRecluster > 0 {
		if err := c.keeper.recluster(context.Background(), nil); err != nil {
			return err
		}
	}
	if err := c.flushIndexNow(); err != nil {
		return err
	}
	if fb.Len() > 0 {
		if _, err := c.front.Commit(&fb); err != nil {
			return err
		}
	}
	return c.keeper.snapshot()
}

// waitRecords waits until the records handed to the record writer (if
// one runs) are committed, and moves lastRev past them.
func (c *committer) waitRecords() error {
	if c.writer == nil {
		return nil
	}
	rev, err := c.writer.wait()
	if err != nil {
		return err
	}
	c.lastRev = max(c.lastRev, rev)
	return nil
}
