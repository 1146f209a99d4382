package dedup

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/doppel-search/doppel/dedup/cluster"
	"github.com/doppel-search/doppel/dedup/hamming"
)

// Recluster makes the star clusters ([Detector.StarAssignments]) the
// Detector's own, so that clusters no longer depend on the order in which
// documents arrived and a chain A ≈ B ≈ C (A ≉ C), which online
// clustering splits when A comes first, is one cluster around B.
//
// It rebuilds the candidate lists and clusters by inserting every stored
// document again: the star masters first, most near-duplicates first
// (ties by the master policy, then id), then the other documents in
// arrival order, none taking a cluster over; each document joins the
// cluster whose master it resembles most, as on Insert, or its star
// master's (verified whether or not it is a candidate: see joinStar), so
// every member resembles its master. Then each cluster of more than one document gets
// the master the policy prefers among the members that every other
// (unedited) member is a copy of. Cluster ids are derived from the
// founding document's id (the star master), so a cluster that was already
// a star keeps its id.
//
// It returns the assignment of every stored document, in the new arrival
// order (masters first); Remove, Update and Insert go on from these
// clusters. Stats counters that only grow keep counting; Reclusters
// counts the calls. Cost: that of adding every stored document again
// (signatures are reused, not recomputed, but for the LSH band keys,
// computed from each set again). ctx is checked before
// anything changes: once begun, the rebuild runs to its end.
func (d *Detector) Recluster(ctx context.Context) ([]Assignment, error) {
	if d.remote != nil {
		return nil, ErrShared
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.epoch++ // what was verified ahead no longer holds (see preVerified)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	master, centers := cluster.StarOrder(len(d.docs), d.adj, d.starBetter)
	master = d.mergeStars(master)
	d.prefer = map[string]string{}
	for i, m := range master {
		if d.docs[i] != nil && m != i {
			d.prefer[d.docs[i].member.ID] = d.docs[m].member.ID
		}
	}
	isCenter := make([]bool, len(d.docs))
	order := make([]*record, 0, len(d.byID))
	for _, c := range centers {
		if d.docs[c] != nil && master[c] == c {
			isCenter[c] = true
			order = append(order, d.docs[c])
		}
	}
	for i, rec := range d.docs {
		if rec != nil && !isCenter[i] {
			order = append(order, rec)
		}
	}
	old := d.stats
	if err := d.clear(); err != nil {
		return nil, err
	}
	d.noTakeover = true
	for _, rec := range order {
		rec.edited = false
		d.insert(rec)
	}
	if d.sets != nil {
		d.sets.renumber(d.docs)
	}
	d.noTakeover, d.prefer = false, nil
	for g, size := range d.clusters.size {
		if size > 1 {
			d.reelect(uint32(g))
		}
	}
	now := d.stats
	d.stats = old
	d.stats.Documents, d.stats.Unsignable, d.stats.Pairs = now.Documents, now.Unsignable, now.Pairs
	d.stats.Capped, d.stats.StopKeys, d.stats.DenseKeys = max(old.Capped, now.Capped), max(old.StopKeys, now.StopKeys), max(old.DenseKeys, now.DenseKeys)
	d.stats.Reclusters++
	d.count()
	out := make([]Assignment, 0, len(d.docs))
	for i := range d.docs {
		out = append(out, d.assignment(uint32(i)))
	}
	return out, nil
}

// mergeStars joins star clusters (master: each slot's master, as
// cluster.Star gives it) that near-duplicate pairs link across, when
// every document of the two resembles one of their masters at least
// EditFloor: borderline pages — `Split` and `SplitN`, pairwise near 0.9 —
// that stars around different masters would split. Pairs are taken in
// the order of their documents' ids, and of the two masters the policy's
// choice is tried first, so the result does not depend on arrival order.
// Members that end below Threshold of their master join it as edited
// ones. Only with an edit allowance (EditFloor is its floor), and only
// while the two clusters hold at most MaxFanout documents together. Cost:
// one verification per document of the two clusters per merge tried.
func (d *Detector) mergeStars(master []int) []int {
	if d.opts.EditAllowance == 0 {
		return master
	}
	members := map[int][]int{}
	for i, m := range master {
		if d.docs[i] != nil && m >= 0 {
			members[m] = append(members[m], i)
		}
	}
	for _, p := range d.crossPairs(master) {
		x, y := master[p[0]], master[p[1]]
		both := append(slices.Clone(members[x]), members[y]...)
		if x == y || d.limits.PerGroup > 0 && len(both) > d.limits.PerGroup {
			continue
		}
		if d.prefers(y, x) {
			x, y = y, x
		}
		for _, keep := range []int{x, y} {
			if !d.resembles(both, keep) {
				continue
			}
			gone := x + y - keep
			for _, k := range members[gone] {
				master[k] = keep
			}
			members[keep] = both
			delete(members, gone)
			break
		}
	}
	return master
}

// crossPairs returns the near-duplicate pairs (slots) whose documents
// have different masters, ordered by the documents' ids.
func (d *Detector) crossPairs(master []int) [][2]int {
	var pairs [][2]int
	for i, adj := range d.adj {
		for _, j := range adj {
			if d.docs[i] != nil && d.docs[j] != nil && master[i] != master[j] && d.docs[i].member.ID < d.docs[j].member.ID {
				pairs = append(pairs, [2]int{i, int(j)})
			}
		}
	}
	id := func(i int) string { return d.docs[i].member.ID }
	slices.SortFunc(pairs, func(p, q [2]int) int {
		return cmp.Or(strings.Compare(id(p[0]), id(q[0])), strings.Compare(id(p[1]), id(q[1])))
	})
	return pairs
}

// starBetter is the tie-break of the star clustering (cluster.Star)
// between documents a and b (slots) with equally many near-duplicates:
// prefers, so that no tie goes to the earlier document. Under
// cluster.FirstSeen, which prefers no document to another, or between
// documents of one date (MostRecent) or quality (HighestQuality), arrival
// decided which became a star's master — and with it the clusters
// (docs/measurements.md, issue 41).
func (d *Detector) starBetter(a, b int) bool {
	return d.docs[a] != nil && d.docs[b] != nil && d.prefers(a, b)
}

// prefers reports whether the master policy prefers document a to b as
// master, ties going to the smaller id.
func (d *Detector) prefers(a, b int) bool {
	ma, mb := d.docs[a].member.full(), d.docs[b].member.full()
	return d.opts.Master.Better(ma, mb) || !d.opts.Master.Better(mb, ma) && ma.ID < mb.ID
}

// resembles reports whether every document of docs resembles document m
// at least EditFloor.
func (d *Detector) resembles(docs []int, m int) bool {
	for _, k := range docs {
		if s, _ := d.match(d.docs[k], d.docs[m]); k != m && s < d.opts.EditFloor {
			return false
		}
	}
	return true
}

// clear empties the Detector's documents, clusters and candidate lists,
// keeping its options, signers and statistics table.
func (d *Detector) clear() error {
	d.docs, d.byID, d.parts = nil, map[string]uint32{}, map[string]container{}
	d.setsKept = 0 // the sets kept in memory are counted again as they are inserted again
	d.clusters = newClusterTable(d)
	d.adj, d.stamp = nil, nil
	d.assigned.Reset()
	d.groupOf, d.groupGen, d.seenGen = nil, nil, nil
	d.lists.Reset(d.kinds()...)
	if d.hamming != nil {
		h, err := hamming.New(hamming.Options{MaxDistance: d.opts.HammingK})
		if err != nil {
			return fmt.Errorf("dedup: %w", err)
		}
		d.hamming = h
	}
	d.stats = Stats{}
	return nil
}

// reelect gives cluster number g the master the policy prefers among its members
// that every other member resembles (and is a copy of, unless it is
// edited), trying at most MaxFanout of them in the policy's order; the
// members' Edited flags follow the new master.
func (d *Detector) reelect(g uint32) {
	members, tries := d.byPolicy(d.memberSlots(g, ^uint32(0)))
	for _, x := range tries {
		if x == d.assigned.Master(g) {
			return
		}
		edited := map[uint32]bool{}
		leads := true
		for _, m := range members {
			if m == x {
				continue
			}
			s, _ := d.match(d.docs[m], d.docs[x])
			if s < d.opts.Threshold && (!d.docs[m].edited || s < d.opts.EditFloor) {
				leads = false
				break
			}
			edited[m] = s < d.opts.Threshold
		}
		if !leads {
			continue
		}
		d.assigned.SetMaster(g, x)
		d.docs[x].edited = false
		for m, e := range edited {
			d.docs[m].edited = e
		}
		return
	}
}
