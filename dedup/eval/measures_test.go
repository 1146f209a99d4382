package eval

import (
	"maps"
	"slices"
	"testing"
)

// pairs builds a PairSet from "a-b" style pairs given as id couples.
func pairs(ids ...string) PairSet {
	s := PairSet{}
	for i := 0; i+1 < len(ids); i += 2 {
		s.Add(ids[i], ids[i+1])
	}
	return s
}

func TestPairSet(t *testing.T) {
	if NewPair("b", "a") != (Pair{"a", "b"}) || NewPair("a", "b") != (Pair{"a", "b"}) {
		t.Error("NewPair does not normalize")
	}
	s := pairs("b", "a", "a", "b", "c", "a", "x", "x")
	if len(s) != 2 || !s.Has("a", "b") || !s.Has("b", "a") || !s.Has("a", "c") || s.Has("x", "x") || s.Has("b", "c") {
		t.Errorf("set = %v", s.Sorted())
	}
	if got, want := s.Sorted(), []Pair{{"a", "b"}, {"a", "c"}}; !slices.Equal(got, want) {
		t.Errorf("Sorted = %v, want %v", got, want)
	}
	var empty PairSet
	if empty.Has("a", "b") || len(empty.Sorted()) != 0 {
		t.Error("nil set is not empty")
	}
}

func TestScore(t *testing.T) {
	for _, tc := range []struct {
		name                string
		predicted, positive PairSet
		want                Scores
	}{
		{"both empty", nil, nil, Scores{Precision: 1, Recall: 1, F1: 1}},
		{"nothing predicted", nil, pairs("a", "b"), Scores{FN: 1, Precision: 1, Recall: 0, F1: 0}},
		{"no positives", pairs("a", "b"), nil, Scores{FP: 1, Precision: 0, Recall: 1, F1: 0}},
		{"all wrong", pairs("a", "b"), pairs("a", "c"), Scores{FP: 1, FN: 1}},
		{"perfect, order ignored", pairs("b", "a", "c", "d"), pairs("a", "b", "d", "c"), Scores{TP: 2, Precision: 1, Recall: 1, F1: 1}},
		// TP 2, FP 1, FN 3: P = 2/3, R = 2/5, F1 = 2·(2/3)(2/5)/(2/3+2/5) = 1/2.
		{"mixed", pairs("a", "b", "a", "c", "x", "y"), pairs("a", "b", "c", "a", "d", "e", "f", "g", "h", "i"),
			Scores{TP: 2, FP: 1, FN: 3, Precision: 2.0 / 3, Recall: 0.4, F1: 0.5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Score(tc.predicted, tc.positive)
			if got.TP != tc.want.TP || got.FP != tc.want.FP || got.FN != tc.want.FN ||
				!near(got.Precision, tc.want.Precision) || !near(got.Recall, tc.want.Recall) || !near(got.F1, tc.want.F1) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func near(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }

func TestClusterPairs(t *testing.T) {
	for _, tc := range []struct {
		name   string
		assign map[string]string
		want   []Pair
	}{
		{"empty", nil, []Pair{}},
		{"singletons", map[string]string{"a": "1", "b": "2"}, []Pair{}},
		{"one pair", map[string]string{"a": "1", "b": "1", "c": "2"}, []Pair{{"a", "b"}}},
		{"triangle and pair", map[string]string{"c": "x", "a": "x", "b": "x", "d": "y", "e": "y", "f": "z"},
			[]Pair{{"a", "b"}, {"a", "c"}, {"b", "c"}, {"d", "e"}}},
		{"cluster ids are documents' ids", map[string]string{"a": "b", "b": "c"}, []Pair{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ClusterPairs(tc.assign).Sorted(); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestMeasureProtocol(t *testing.T) {
	// Two base groups, g (4 documents) and h (2), and background documents
	// x, y, z alone in their groups (z is missing from groups). The truth
	// lists (g1, x) and (x, y).
	groups := map[string]string{"g1": "g", "g2": "g", "g3": "g", "g4": "g", "h1": "h", "h2": "h", "x": "x", "y": "y"}
	truth, err := NewTruth([]LabeledPair{{"g1", "x", 0.9, 0.9}, {"x", "y", 0.95, 0.95}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		assign map[string]string
		groups map[string]string
		truth  *Truth
		want   ProtocolResult
	}{{
		name:   "perfect",
		assign: map[string]string{"g1": "A", "g2": "A", "g3": "A", "g4": "A", "h1": "B", "h2": "B", "x": "C", "y": "D", "z": "E"},
		want: ProtocolResult{
			Groups:    []GroupResult{{"g", 4, 4, 1, 1}, {"h", 2, 2, 1, 1}},
			MeanFound: 1, MeanClusters: 1,
		},
	}, {
		// g split 2+1+1 (g4 unassigned, so alone); h split 1+1.
		// Cluster A = {g1, g2, x, h1}: cross-group pairs g1-x (listed),
		// g2-x, g1-h1, g2-h1, x-h1: 4 false positives, all with a base
		// document. Cluster C = {g3, y, z}: g3-y, g3-z (base), y-z (not):
		// 2 + 1.
		name:   "split and merged",
		assign: map[string]string{"g1": "A", "g2": "A", "x": "A", "h1": "A", "g3": "C", "y": "C", "z": "C", "h2": "D"},
		want: ProtocolResult{
			Groups:         []GroupResult{{"g", 4, 2, 3, 0.5}, {"h", 2, 1, 2, 0.5}},
			MeanFound:      0.5,
			MeanClusters:   2.5,
			FalsePositives: 6, AllFalsePositives: 7,
		},
	}, {
		name:   "background only merged, listed or not",
		assign: map[string]string{"x": "A", "y": "A", "z": "A"},
		want: ProtocolResult{
			// g and h documents are all unassigned: each alone.
			Groups:            []GroupResult{{"g", 4, 1, 4, 0.25}, {"h", 2, 1, 2, 0.5}},
			MeanFound:         0.375,
			MeanClusters:      3,
			AllFalsePositives: 2, // x-z, y-z; x-y is listed
		},
	}, {
		name:   "no truth",
		assign: map[string]string{"x": "A", "y": "A", "g1": "A"},
		truth:  &Truth{},
		want: ProtocolResult{
			Groups:         []GroupResult{{"g", 4, 1, 4, 0.25}, {"h", 2, 1, 2, 0.5}},
			MeanFound:      0.375,
			MeanClusters:   3,
			FalsePositives: 2, AllFalsePositives: 3,
		},
	}, {
		name:   "no groups",
		assign: map[string]string{"x": "A", "y": "A"},
		groups: map[string]string{},
		want:   ProtocolResult{AllFalsePositives: 0},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			g, tr := groups, truth
			if tc.groups != nil {
				g = tc.groups
			}
			if tc.truth != nil {
				tr = tc.truth
			}
			got := MeasureProtocol(tc.assign, g, tr)
			if !slices.Equal(got.Groups, tc.want.Groups) || !near(got.MeanFound, tc.want.MeanFound) ||
				!near(got.MeanClusters, tc.want.MeanClusters) || got.FalsePositives != tc.want.FalsePositives ||
				got.AllFalsePositives != tc.want.AllFalsePositives {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
	// A nil truth lists nothing, like an empty one.
	assign := map[string]string{"x": "A", "y": "A", "g1": "A"}
	if got := MeasureProtocol(assign, groups, nil); got.FalsePositives != 2 || got.AllFalsePositives != 3 {
		t.Errorf("nil truth: got %+v", got)
	}
	// The inputs are not modified.
	if len(groups) != 8 || !maps.Equal(groups, map[string]string{"g1": "g", "g2": "g", "g3": "g", "g4": "g", "h1": "h", "h2": "h", "x": "x", "y": "y"}) {
		t.Error("groups modified")
	}
}
