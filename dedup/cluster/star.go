package cluster

import "slices"

// Star clusters a batch by the star algorithm (Aslam, Pelekhov & Rus 2004):
// repeatedly the unassigned document with the most near-duplicates becomes
// a master (a star center) and takes every unassigned near-duplicate as a
// member. Every member is thus a near-duplicate of its master itself, never
// only through a chain, and masters are never near-duplicates of each
// other.
//
// n is the number of documents, numbered 0..n-1 in arrival order; adj[i]
// lists the near-duplicates of i (symmetric, no self loops). better breaks
// ties between documents with equally many near-duplicates (it may be nil);
// remaining ties go to the earlier document. Star returns the master of
// every document (a master is its own). Cost: O(n log n + edges).
func Star(n int, adj [][]int32, better func(a, b int) bool) []int {
	master, _ := star(n, adj, better)
	return master
}

// StarOrder is [Star] that also returns the masters in the order it
// chooses them (most near-duplicates first). Inserting them in this
// order, then the other documents, into an online clustering in which a
// document joins the master it resembles most rebuilds star clusters.
// Cost: that of Star.
func StarOrder(n int, adj [][]int32, better func(a, b int) bool) (master, centers []int) {
	return star(n, adj, better)
}

func star(n int, adj [][]int32, better func(a, b int) bool) (master, centers []int) {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if da, db := len(adj[a]), len(adj[b]); da != db {
			return db - da
		}
		if better != nil {
			if better(a, b) {
				return -1
			}
			if better(b, a) {
				return 1
			}
		}
		return a - b
	})
	master = make([]int, n)
	for i := range master {
		master[i] = -1
	}
	for _, c := range order {
		if master[c] >= 0 {
			continue
		}
		master[c] = c
		centers = append(centers, c)
		for _, m := range adj[c] {
			if master[m] < 0 {
				master[m] = c
			}
		}
	}
	return master, centers
}
