package ranking

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/doppel-search/doppel/indexer"
)

// Search returns one page of collapsed results: by number (Request.Page)
// or after a cursor (Request.After). The set of clusters it pages through
// depends on the query, the user and the filters alone — not on the page,
// its size, the order or the cursor — and so do Total and the facets.
// It costs a few searches whatever the page size: one for the ranked
// hits of the query as typed (their window doubling until the page's
// clusters are found) counting the clusters for the total, which also
// says whether the query is relaxed (relaxesAfter; then one more for the
// relaxed query's hits, and, rarely, one counting), one for the page's
// fields and snippets, and one for the page's cluster members.
func (s *Searcher) Search(ctx context.Context, r Request) (*Result, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	r.Page, r.Size = max(r.Page, 1), min(cmp.Or(max(r.Size, 0), 10), 100)
	pg, err := newPager(r)
	if err != nil {
		return nil, err
	}
	r.Page = pg.page
	cq, err := s.compile(ctx, r.Query, r.Syntax, r.Groups)
	if err != nil {
		return nil, err
	}
	defer cq.stats.close()
	out := &Result{Page: r.Page, Size: r.Size, Truncated: cq.truncated}
	order, best, err := s.collapse(ctx, cq, r, pg, out)
	if err != nil {
		return nil, err
	}
	if !out.Exact {
		out.AtLeast = min(out.AtLeast, out.Total)
	} else {
		out.AtLeast = out.Total
	}
	if r.Omitted {
		out.Hits, err = s.omitted(ctx, order, best, cq, r, pg, out)
		return out, err
	}
	lo, _ := pg.start(order, best)
	lo = min(lo, len(order))
	hi := min(lo+r.Size, len(order))
	page := order[lo:hi]
	if len(page) == 0 {
		return out, nil
	}
	if out.More = out.More || hi < len(order); out.More {
		last := page[len(page)-1]
		out.Cursor = cursorAt(r.Page, hi, page, best[last], r.ByDate).encode()
	}
	out.Hits, err = s.hits(ctx, page, best, cq, r)
	return out, err
}

// rep is what collapsing keeps of a cluster: a cluster ranks as its best
// hit does, and is represented by its master unless a member matches
// distinctly better (Options.Promote).
type rep struct {
	id     string  // the best hit
	score  float64 // its score: the cluster's
	date   string  // by date: its date sort key
	master string  // the master, if it is among the hits
	mscore float64 // its score
	// members are the first hits of the cluster other than the master
	// (at most maxVerbatim), in rank order: those that may stand for it
	// by holding a pasted line (representatives).
	members []string
	// values are the facet values of the cluster's hits (when read):
	// by facet, in Facets' order, each value once.
	values [5][]string
}

// representative returns the id that stands for the cluster.
func (b *rep) representative(promote float64) string {
	if b.master != "" && b.score <= b.mscore*promote {
		return b.master
	}
	return b.id
}

// relaxes reports whether cq is run relaxed for a user of groups: it has
// a relaxed form and fewer than Options.RelaxBelow clusters the user may see hold
// every word; and how many documents hold them, when it is. The choice
// reads the query and the user only — no filter, page, size or order —
// so that every page, size, order and facet value of a query reads the
// same set of documents. Cost: counting the clusters of the strict
// query's matches until Options.RelaxBelow are found.
func (s *Searcher) relaxes(ctx context.Context, cq compiled, groups []string) (bool, int, error) {
	if cq.relaxed == nil {
		return false, 0, nil
	}
	n, docs, err := s.clustersUpTo(ctx, s.filtered(cq.text, Request{Groups: groups}), s.opts.RelaxBelow)
	return n < s.opts.RelaxBelow, docs, err
}

// relaxesAfter is relaxes decided, where it can be, from the strict
// search a result page runs anyway: clusters distinct clusters among its
// hits, and every whether those hits are all of its matches. The strict
// search reads the documents of r's host and dates (the other filters
// are applied to its hits afterwards): when its hits hold Options.RelaxBelow
// clusters the query is not relaxed, and when they are every match of
// a search without host or date filter — the set relaxes counts — it is.
// Otherwise it counts as relaxes does. The answer is relaxes', whatever
// the filters, page, size and order.
func (s *Searcher) relaxesAfter(ctx context.Context, cq compiled, r Request, clusters int, every bool) (bool, error) {
	switch {
	case cq.relaxed == nil || clusters >= s.opts.RelaxBelow:
		return false, nil
	case every && r.Host == "" && r.Since.IsZero() && r.Until.IsZero():
		return true, nil
	}
	relax, _, err := s.relaxes(ctx, cq, r.Groups)
	return relax, err
}

// distinctClusters returns how many clusters hits (with the sort keys of
// candidates) hold, counting a document outside clusters alone.
func distinctClusters(hits []*search.DocumentMatch, byDate bool) int {
	k := 2
	if byDate {
		k = 3
	}
	seen := map[string]struct{}{}
	for _, h := range hits {
		c := h.Sort[k]
		if c == "" {
			c = "doc:" + h.ID
		}
		seen[c] = struct{}{}
	}
	return len(seen)
}

// collapse runs cq for r — relaxed when fewer than Options.RelaxBelow clusters
// hold every word (relaxes) — and returns the clusters of its hits in
// rank order, as many as the page and one more need (their window
// doubling until they are found), with what each keeps; it sets out's
// Total, AtLeast and Exact, and the facets if asked.
func (s *Searcher) collapse(ctx context.Context, cq compiled, r Request, pg pager, out *Result) ([]string, map[string]*rep, error) {
	if r.faceted() || r.Omitted {
		return s.collapseAll(ctx, cq, r, pg, out)
	}
	if !r.ByDate {
		order, best, err := s.collapseTop(ctx, cq, r, pg, out)
		if !errors.Is(err, errNoCollector) {
			return order, best, err
		}
	}
	relax, strictDocs, err := s.relaxes(ctx, cq, r.Groups)
	if err != nil {
		return nil, nil, err
	}
	strictDocs = min(strictDocs, s.opts.MaxCandidates)
	q := s.filtered(cq.text, r)
	window := max(3*pg.need(), 30)
	var strict []*search.DocumentMatch // every match of cq.text, when relaxed
	if relax {
		res, err := s.candidates(ctx, q, max(window, strictDocs), false, r.ByDate, false)
		if err != nil {
			return nil, nil, err
		}
		strict = res.Hits
		relaxed, err := s.relaxed(cq)
		if err != nil {
			return nil, nil, err
		}
		q = s.filtered(relaxed, r)
	}
	for first := true; ; window *= 2 {
		res, err := s.candidates(ctx, q, window, first, r.ByDate, false)
		if err != nil {
			return nil, nil, err
		}
		if first {
			first = false
			out.Total, out.Exact = total(res)
			out.AtLeast = countedClusters(res)
		}
		hits := res.Hits
		if relax && !r.ByDate {
			hits = strictFirst(strict, hits)
		}
		order, best := group(hits, r.ByDate, false, time.Time{})
		if pg.enough(order, best) || pg.done(window) || len(res.Hits) < window || uint64(window) >= res.Total {
			return order, best, nil
		}
	}
}

// countedClusters returns the clusters the cluster facet of res counted.
func countedClusters(res *bleve.SearchResult) int {
	if f := res.Facets["clusters"]; f != nil && f.Terms != nil {
		return f.Terms.Len()
	}
	return 0
}

// collapseTop is collapse by relevance with the collector of top: the
// best hits by score (their window doubling until the page's clusters are
// found), their cluster keys read for those only. Total is the number of
// distinct clusters, counted as the matches come, exact up to
// Options.MaxCandidates matching documents; beyond, the number of
// matching documents, an upper bound (AtLeast: the clusters of the first
// MaxCandidates). On a large index the search is bounded
// (Options.MaxScan): first the tier, if it fills the page, then the query
// stopped after MaxScan matches; either way Total is an upper bound, not
// exact.
func (s *Searcher) collapseTop(ctx context.Context, cq compiled, r Request, pg pager, out *Result) ([]string, map[string]*rep, error) {
	window := max(3*pg.need(), 30)
	if rk, est, ok, err := s.tierHits(ctx, cq, r, window, false); err != nil {
		return nil, nil, err
	} else if ok {
		if order, best := group(rk.hits, false, false, time.Time{}); pg.fills(order, best) {
			// The tier fills the page; the query's other matches follow.
			out.Total, out.Exact, out.AtLeast, out.More = max(est, len(order)), false, len(order), true
			return order, best, nil
		}
	}
	q, rk, strict, relax, err := s.topStrictOrRelaxed(ctx, cq, r, window)
	if err != nil {
		return nil, nil, err
	}
	for first := true; ; {
		hits := rk.hits
		if relax {
			hits = strictFirst(strict.hits, rk.hits)
		}
		order, best := group(hits, false, false, time.Time{})
		if first {
			first = false
			s.topTotal(cq, rk, strict, relax, out)
		}
		if pg.enough(order, best) || pg.done(window) || len(rk.hits) < window || uint64(window) >= rk.total {
			return order, best, nil
		}
		window *= 2
		if rk, err = s.top(ctx, q, window, false, 0); err != nil {
			return nil, nil, err
		}
	}
}

// topStrictOrRelaxed returns the query collapseTop pages through and its
// first window: the strict query's, its clusters counted — the page when
// it is not relaxed, and what says whether it is (relaxesAfter) — or the
// relaxed query's, with strict every match of the strict query.
func (s *Searcher) topStrictOrRelaxed(ctx context.Context, cq compiled, r Request, window int) (q query.Query, rk, strict ranked, relax bool, err error) {
	q = s.filtered(cq.text, r)
	if rk, err = s.top(ctx, q, window, false, s.opts.MaxCandidates); err != nil {
		return nil, ranked{}, ranked{}, false, err
	}
	if relax, err = s.relaxesAfter(ctx, cq, r, rk.counted, rk.clusters >= 0); err != nil || !relax {
		return q, rk, ranked{}, relax, err
	}
	strict = rk
	if uint64(len(rk.hits)) < rk.total {
		if strict, err = s.top(ctx, q, min(int(rk.total), s.opts.MaxCandidates), false, s.opts.MaxCandidates); err != nil {
			return nil, ranked{}, ranked{}, false, err
		}
	}
	relaxed, err := s.relaxed(cq)
	if err != nil {
		return nil, ranked{}, ranked{}, false, err
	}
	q = s.filtered(relaxed, r)
	if rk, err = s.top(ctx, q, window, false, s.opts.MaxCandidates); err != nil {
		return nil, ranked{}, ranked{}, false, err
	}
	return q, rk, strict, true, nil
}

// topTotal sets out's Total, Exact and AtLeast from the first window of
// collapseTop (rk, and strict when relaxed): the distinct clusters when
// every match was counted, else an upper bound.
func (s *Searcher) topTotal(cq compiled, rk, strict ranked, relax bool, out *Result) {
	out.AtLeast = rk.counted
	switch {
	case rk.capped:
		out.Total, out.Exact = int(rk.total), false
		if est, ok := s.estimate(cq); ok {
			out.Total = max(out.Total, int(est))
		}
	case rk.clusters >= 0 && (!relax || strict.clusters >= 0): // every match counted
		for c := range strict.set {
			rk.set[c] = struct{}{}
		}
		out.Total, out.Exact = len(rk.set), true
	default:
		out.Total, out.Exact = int(rk.total)+int(strict.total), false
	}
}

// tierHits returns the best window hits (withValues: with their facet
// values) of a Plain query's first tier (compiled.tier) and the estimate
// of the documents the whole query matches, when each of its required
// words is in more documents than Options.MaxScan; ok is false otherwise,
// and the caller searches the whole query.
func (s *Searcher) tierHits(ctx context.Context, cq compiled, r Request, window int, withValues bool) (rk ranked, est int, ok bool, err error) {
	if cq.tier == nil || s.opts.MaxScan < 0 {
		return ranked{}, 0, false, nil
	}
	n, known := s.estimate(cq)
	if !known || n <= uint64(s.opts.MaxScan) {
		return ranked{}, 0, false, nil
	}
	rk, err = s.top(ctx, s.filtered(cq.tier, r), window, withValues, 0)
	if errors.Is(err, errNoCollector) {
		return ranked{}, 0, false, nil
	}
	return rk, int(n), err == nil, err
}

// estimate returns an upper bound of the documents cq's text matches —
// the fewest documents the user may see holding one of its required
// words, any of the word's terms — and false when it cannot say (no
// required word, or the counts could not be read). Cost: one count per
// term (termStats).
func (s *Searcher) estimate(cq compiled) (uint64, bool) {
	if len(cq.required) == 0 || cq.stats == nil {
		return 0, false
	}
	fewest := uint64(0)
	for i, w := range cq.required {
		held := uint64(0)
		for _, t := range w {
			held += cq.stats.count(t)
		}
		if i == 0 || held < fewest {
			fewest = held
		}
	}
	if cq.stats.err != nil {
		return 0, false
	}
	return fewest, true
}

// collapseAll is collapse reading every candidate (at most
// Options.MaxCandidates) with its facet values: the documents the
// section, type and language filters keep are grouped into clusters,
// every one of them, and their facets counted. Total is then the number
// of clusters, exact when every candidate was read; else an upper bound
// (the clusters read and one for each document past them), AtLeast the
// clusters read, and the facets count those. On a large index the
// candidates are those of the first tier if it fills the page, else the
// best of the first Options.MaxScan matches (see collapseTop): not exact.
// The strict query's candidates say whether it is relaxed
// (relaxesAfter), and are the result when it is not.
func (s *Searcher) collapseAll(ctx context.Context, cq compiled, r Request, pg pager, out *Result) ([]string, map[string]*rep, error) {
	f, k, now := r.filter(), 4, time.Now()
	if r.ByDate {
		k = 5
	}
	window := s.opts.MaxCandidates
	collapse := func(hits []*search.DocumentMatch) ([]string, map[string]*rep) {
		kept := slices.DeleteFunc(slices.Clone(hits), func(h *search.DocumentMatch) bool { return !f.keep(valuesOf(h, k, now)) })
		return group(kept, r.ByDate, true, now)
	}
	var order []string
	var best map[string]*rep
	tiered := false
	if !r.ByDate {
		rk, est, ok, err := s.tierHits(ctx, cq, r, window, true)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			order, best = collapse(rk.hits)
			tiered = pg.fills(order, best) && !r.Omitted
			out.Total, out.AtLeast, out.Exact, out.More = max(est, len(order)), len(order), false, tiered
		}
	}
	if !tiered {
		hits, total, capped, err := s.strictOrRelaxed(ctx, cq, r, window)
		if err != nil {
			return nil, nil, err
		}
		order, best = collapse(hits)
		out.Exact = total <= uint64(window) && !capped
		out.Total, out.AtLeast = len(order), len(order)
		if !out.Exact {
			// Each document not read may be a cluster of its own.
			out.Total += int(total) - min(len(hits), int(total))
			if capped {
				if est, ok := s.estimate(cq); ok && int(est) > int(total) {
					out.Total += int(est) - int(total)
				}
			}
		}
	}
	if r.Facets && !r.Omitted {
		out.Facets = count(order, best)
	}
	return order, best, nil
}

// strictOrRelaxed returns the candidates of the strict query (filtered
// for r), or, when those say it is relaxed (relaxesAfter), of the relaxed
// query with the strict hits first: as allCandidates, the best window
// hits, how many documents matched and whether the search stopped at
// Options.MaxScan.
func (s *Searcher) strictOrRelaxed(ctx context.Context, cq compiled, r Request, window int) ([]*search.DocumentMatch, uint64, bool, error) {
	hits, total, capped, err := s.allCandidates(ctx, s.filtered(cq.text, r), window, r.ByDate)
	if err != nil {
		return nil, 0, false, err
	}
	every := uint64(len(hits)) >= total && !capped
	relax, err := s.relaxesAfter(ctx, cq, r, distinctClusters(hits, r.ByDate), every)
	if err != nil || !relax {
		return hits, total, capped, err
	}
	strict := hits
	relaxed, err := s.relaxed(cq)
	if err != nil {
		return nil, 0, false, err
	}
	if hits, total, capped, err = s.allCandidates(ctx, s.filtered(relaxed, r), window, r.ByDate); err != nil {
		return nil, 0, false, err
	}
	if !r.ByDate {
		hits = strictFirst(strict, hits)
	}
	return hits, total, capped, nil
}

// allCandidates returns the best window hits of q with their facet
// values as sort keys, how many documents matched, and whether the search
// stopped at Options.MaxScan: by score with the collector of top, or by
// date (or from an index that does not take the collector) with bleve's
// sort.
func (s *Searcher) allCandidates(ctx context.Context, q query.Query, window int, byDate bool) ([]*search.DocumentMatch, uint64, bool, error) {
	if !byDate {
		rk, err := s.top(ctx, q, window, true, 0)
		if !errors.Is(err, errNoCollector) {
			return rk.hits, rk.total, rk.capped, err
		}
	}
	res, err := s.candidates(ctx, q, window, false, byDate, true)
	if err != nil {
		return nil, 0, false, err
	}
	return res.Hits, res.Total, false, nil
}

// total reads the number of distinct clusters from the cluster facet of
// res: exact, or an upper bound past the facet's size.
func total(res *bleve.SearchResult) (n int, exact bool) {
	f := res.Facets["clusters"]
	if f == nil || f.Terms == nil {
		return 0, false
	}
	n, exact = f.Terms.Len(), f.Other == 0 && f.Missing == 0
	if !exact {
		n += f.Other + f.Missing // at most this many
	}
	return n, exact
}

// group walks hits in rank order: the clusters in the order of their
// first hits, and what each keeps. The cluster and master flag are
// sort keys 2 and 3 (byDate: 3 and 4, after the date), the facet
// values, if withValues, the keys after them.
func group(hits []*search.DocumentMatch, byDate, withValues bool, now time.Time) ([]string, map[string]*rep) {
	var order []string
	best := map[string]*rep{}
	k := 2
	if byDate {
		k = 3
	}
	for _, h := range hits {
		c, master := h.Sort[k], h.Sort[k+1] == "T"
		if c == "" {
			c = "doc:" + h.ID
		}
		cur, seen := best[c]
		if !seen {
			order = append(order, c)
			cur = &rep{id: h.ID, score: h.Score}
			if byDate {
				cur.date = h.Sort[0]
			}
			best[c] = cur
		}
		if withValues {
			for i, v := range valuesOf(h, k+2, now).v {
				if v != "" && !slices.Contains(cur.values[i], v) {
					cur.values[i] = append(cur.values[i], v)
				}
			}
		}
		if master && cur.master == "" {
			cur.master, cur.mscore = h.ID, h.Score
		} else if !master && len(cur.members) < maxVerbatim {
			cur.members = append(cur.members, h.ID)
		}
	}
	return order, best
}

// omitted builds a page of Request.Omitted: the clusters of order in rank
// order, each listed as its hit followed by the other members the user
// may see that the filters keep (Omitted, with the master's id), cut to
// the page. It sets out's Total to the entries of every page, its facets
// to the entries of each value (of the clusters filtering by the value
// keeps: those with a hit of it), and the cursor after the page.
func (s *Searcher) omitted(ctx context.Context, order []string, best map[string]*rep, cq compiled, r Request, pg pager, out *Result) ([]Hit, error) {
	members, err := s.ix.MembersOfContext(ctx, order)
	if err != nil {
		return nil, s.searchError(ctx, err, false)
	}
	members = seenAll(members, r.Groups)
	l := listEntries(order, best, members, r)
	out.Total, out.AtLeast = l.n, l.n
	if l.counts != nil {
		out.Facets = facetValues(l.counts)
	}
	lo := l.start(order, best, r, pg)
	hi := min(lo+r.Size, l.n)
	touched, at, first := l.touched(order, lo, hi)
	if len(touched) == 0 {
		return nil, nil
	}
	hs, err := s.hits(ctx, touched, best, cq, r)
	if err != nil {
		return nil, err
	}
	list, pos := l.expand(hs, at)
	a, b := min(lo-first, len(list)), min(hi-first, len(list))
	list, pos = list[a:b], pos[a:b]
	if hi < l.n && len(list) > 0 {
		last := pos[len(pos)-1]
		c := cursorAt(r.Page, hi, order[last[0]:last[0]+1], best[order[last[0]]], r.ByDate)
		c.Entry, c.Omitted = last[1], true
		out.More, out.Cursor = true, c.encode()
	}
	return list, nil
}

// entryList is what a page of Request.Omitted lists, cluster by cluster:
// the members each lists, how many entries in all, and the entries of
// each facet value.
type entryList struct {
	entries [][]indexer.Member // by cluster (index in order): the members listed
	n       int                // entries in all
	counts  []map[string]int   // by facet, entries by value; nil without facets
}

// listEntries lists, for each cluster of order, the members the user may
// see that the filters keep, and counts the entries of each facet value.
func listEntries(order []string, best map[string]*rep, members map[string][]indexer.Member, r Request) *entryList {
	f, now := r.filter(), time.Now()
	l := &entryList{entries: make([][]indexer.Member, len(order))}
	if r.Facets {
		l.counts = make([]map[string]int, len(Facets))
		for i := range l.counts {
			l.counts[i] = map[string]int{}
		}
	}
	for i, c := range order {
		var vals []values
		for _, m := range members[c] {
			if v := memberValues(&m, now); indexer.Visible(m.Groups, r.Groups) && f.keep(v) {
				l.entries[i] = append(l.entries[i], m)
				vals = append(vals, v)
			}
		}
		l.n += l.size(i)
		for fi := range l.counts {
			for _, x := range best[c].values[fi] {
				l.counts[fi][x] += entriesOf(vals, fi, x)
			}
		}
	}
	return l
}

// entriesOf returns how many of a cluster's listed members (vals) have
// value x of facet fi; 1 when it lists none but its hit.
func entriesOf(vals []values, fi int, x string) int {
	if len(vals) == 0 {
		return 1 // the hit alone
	}
	k := 0
	for _, v := range vals {
		if v.v[fi] == x {
			k++
		}
	}
	return k
}

// size returns the entries cluster i lists: its members, or its hit alone.
func (l *entryList) size(i int) int { return max(len(l.entries[i]), 1) }

// start returns the first entry of the page: after the cursor's entry if
// one is given (its cluster, else the first cluster older than it, else
// its rank), else the page's first.
func (l *entryList) start(order []string, best map[string]*rep, r Request, pg pager) int {
	if pg.after == nil {
		return (r.Page - 1) * r.Size
	}
	e := 0
	for i, c := range order {
		if c == pg.after.Cluster {
			return e + min(pg.after.Entry+1, l.size(i))
		}
		e += l.size(i)
	}
	e = 0
	for i := range order {
		if pg.after.older(best[order[i]]) {
			return e
		}
		e += l.size(i)
	}
	if !r.ByDate || missing(pg.after.Date) {
		return pg.after.Rank
	}
	return l.n
}

// touched returns the clusters with entries in [lo, hi), their indexes in
// order, and the entries before the first of them.
func (l *entryList) touched(order []string, lo, hi int) (touched []string, at []int, first int) {
	for i, e := 0, 0; i < len(order) && e < hi; i++ {
		if e+l.size(i) > lo {
			if len(touched) == 0 {
				first = e
			}
			touched, at = append(touched, order[i]), append(at, i)
		}
		e += l.size(i)
	}
	return touched, at, first
}

// expand lists each hit (of the cluster at its index in at) followed by
// its cluster's other listed members, and each entry's cluster (index in
// order) and place in it.
func (l *entryList) expand(hs []Hit, at []int) (list []Hit, pos [][2]int) {
	for t, h := range hs {
		i := at[t]
		list, pos = append(list, h), append(pos, [2]int{i, 0})
		j := 0
		for _, m := range l.entries[i] {
			if m.ID != h.ID {
				j++
				list = append(list, Hit{ID: m.ID, URL: m.URL, Title: m.Title, Host: hostOf(m.URL), Cluster: h.Cluster, Master: m.Master,
					Lang: m.Lang, Type: m.Type, LastModified: m.LastModified, Omitted: true, MasterID: h.MasterID})
				pos = append(pos, [2]int{i, j})
			}
		}
	}
	return list, pos
}
