package eval

import (
	"cmp"
	"slices"
)

// Scores are pair-level detection results against a set of positive pairs.
type Scores struct {
	TP, FP, FN int     // predicted and positive; predicted only; positive only
	Precision  float64 // TP/(TP+FP); 1 when nothing was predicted
	Recall     float64 // TP/(TP+FN); 1 when there are no positives
	F1         float64 // harmonic mean of Precision and Recall; 0 when both are 0
}

// Score compares predicted pairs with positive pairs. The conventions for
// empty sets follow from "no claim is no error": predicting nothing has
// precision 1, and with no positives recall is 1, so an empty prediction on
// an empty truth scores 1 throughout. Cost: O(len(predicted) +
// len(positives)).
func Score(predicted, positives PairSet) Scores {
	var s Scores
	for p := range predicted {
		if _, ok := positives[p]; ok {
			s.TP++
		} else {
			s.FP++
		}
	}
	s.FN = len(positives) - s.TP
	s.Precision, s.Recall = 1, 1
	if s.TP+s.FP > 0 {
		s.Precision = float64(s.TP) / float64(s.TP+s.FP)
	}
	if s.TP+s.FN > 0 {
		s.Recall = float64(s.TP) / float64(s.TP+s.FN)
	}
	if s.Precision+s.Recall > 0 {
		s.F1 = 2 * s.Precision * s.Recall / (s.Precision + s.Recall)
	}
	return s
}

// ClusterPairs returns every pair of documents that assign (document id →
// cluster id) puts in the same cluster. Cost: O(Σ size²) over the clusters.
func ClusterPairs(assign map[string]string) PairSet {
	s := PairSet{}
	for _, members := range clusters(assign) {
		for i, a := range members {
			for _, b := range members[i+1:] {
				s.Add(a, b)
			}
		}
	}
	return s
}

// clusters returns the members of each cluster of assign.
func clusters(assign map[string]string) map[string][]string {
	c := map[string][]string{}
	for doc, cl := range assign {
		c[cl] = append(c[cl], doc)
	}
	return c
}

// A GroupResult is how one base group fared under the I-Match protocol.
type GroupResult struct {
	Group    string
	Size     int     // documents in the group
	Largest  int     // most of them in any one cluster
	Clusters int     // distinct clusters they are in
	Found    float64 // Largest / Size: the share found together
}

// A ProtocolResult is the outcome of the I-Match protocol (Chowdhury et
// al. 2002, Tables III–IV): how well documents known to come from one
// origin are put together, and how many unrelated documents are.
type ProtocolResult struct {
	Groups       []GroupResult // one per base group (2+ documents), sorted by group
	MeanFound    float64       // mean Found over Groups; 0 without base groups
	MeanClusters float64       // mean Clusters over Groups; 0 without base groups
	// FalsePositives counts pairs put in one cluster that come from
	// different groups, are not listed in the truth at all, and involve a
	// document of a base group: the protocol's number.
	FalsePositives int
	// AllFalsePositives counts such pairs in every cluster, whether or not
	// they involve a base group.
	AllFalsePositives int
}

// MeasureProtocol runs the I-Match protocol on a clustering. assign maps
// document ids to cluster ids; groups maps document ids to their known
// origin group; truth lists every pair similar enough to be no error (nil
// lists none). The
// documents are those in either map: one missing from assign is alone in a
// cluster of its own, one missing from groups is alone in a group named by
// its id (as background documents of the book-perturb corpus are).
//
// A base group is one with at least two documents. A false positive is a
// pair of documents in the same cluster, from different groups, that truth
// does not list under any definition or threshold.
//
// Cost: O(documents + Σ size²) over the clusters, each cluster pair looked
// up in truth.
func MeasureProtocol(assign, groups map[string]string, truth *Truth) ProtocolResult {
	groupOf := func(doc string) string {
		if g, ok := groups[doc]; ok {
			return g
		}
		return doc
	}
	members := map[string][]string{} // group → documents
	for doc, g := range groups {
		members[g] = append(members[g], doc)
	}
	for doc := range assign {
		if _, ok := groups[doc]; !ok {
			members[doc] = append(members[doc], doc)
		}
	}

	var r ProtocolResult
	for g, docs := range members {
		if len(docs) < 2 {
			continue
		}
		per := map[string]int{} // cluster → documents of g in it
		alone := 0              // documents without a cluster
		for _, d := range docs {
			if c, ok := assign[d]; ok {
				per[c]++
			} else {
				alone++
			}
		}
		largest := min(alone, 1)
		for _, n := range per {
			largest = max(largest, n)
		}
		gr := GroupResult{Group: g, Size: len(docs), Largest: largest, Clusters: len(per) + alone}
		gr.Found = float64(gr.Largest) / float64(gr.Size)
		r.Groups = append(r.Groups, gr)
		r.MeanFound += gr.Found
		r.MeanClusters += float64(gr.Clusters)
	}
	slices.SortFunc(r.Groups, func(a, b GroupResult) int { return cmp.Compare(a.Group, b.Group) })
	if n := len(r.Groups); n > 0 {
		r.MeanFound /= float64(n)
		r.MeanClusters /= float64(n)
	}

	for _, docs := range clusters(assign) {
		for i, a := range docs {
			ga := groupOf(a)
			for _, b := range docs[i+1:] {
				gb := groupOf(b)
				if ga == gb {
					continue
				}
				if truth != nil {
					if _, listed := truth.index[NewPair(a, b)]; listed {
						continue
					}
				}
				r.AllFalsePositives++
				if len(members[ga]) >= 2 || len(members[gb]) >= 2 {
					r.FalsePositives++
				}
			}
		}
	}
	return r
}
