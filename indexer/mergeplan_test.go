package indexer

import (
	"testing"

	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
)

// planSegment is a segment as scorch's merge planner sees it.
type planSegment struct {
	id         uint64
	full, live int64
}

//lint:ignore ST1003 scorch's mergeplan.Segment names it so
func (s planSegment) Id() uint64      { return s.id }
func (s planSegment) FullSize() int64 { return s.full }
func (s planSegment) LiveSize() int64 { return s.live }
func (s planSegment) HasVector() bool { return false }
func (s planSegment) FileSize() int64 { return s.full * 1000 }

// TestMergeAll: whatever the segments' sizes, the compaction's plan
// merges every segment, ten at a time, where scorch's single-segment
// plan leaves some (a crawl's large first segment and its deleted
// records, beside small later ones: what a busy machine's flushes made
// of the demo crawl) alone.
func TestMergeAll(t *testing.T) {
	segs := func(sizes ...[2]int64) []mergeplan.Segment {
		var out []mergeplan.Segment
		for i, s := range sizes {
			out = append(out, planSegment{id: uint64(i + 1), full: s[0], live: s[1]})
		}
		return out
	}
	var twelve [][2]int64
	for i := range 12 {
		twelve = append(twelve, [2]int64{int64(100 + i), int64(100 + i)})
	}
	for _, tc := range []struct {
		name  string
		segs  []mergeplan.Segment
		tasks []int // segments per task
	}{
		{"large first, small rest", segs([2]int64{480, 476}, [2]int64{30, 15}, [2]int64{8, 6}), []int{3}},
		{"two, one with deletions", segs([2]int64{497, 493}, [2]int64{4, 4}), []int{2}},
		{"even", segs([2]int64{100, 50}, [2]int64{100, 60}, [2]int64{100, 70}), []int{3}},
		{"twelve", segs(twelve...), []int{10, 2}},
	} {
		plan, err := mergeplan.Plan(tc.segs, &mergeAll)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var got []int
		for _, task := range plan.Tasks {
			got = append(got, len(task.Segments))
		}
		if len(got) != len(tc.tasks) || (len(got) > 0 && got[0] != tc.tasks[0]) || (len(got) > 1 && got[1] != tc.tasks[1]) {
			t.Errorf("%s: tasks of %v segments, want %v", tc.name, got, tc.tasks)
		}
	}
	// The case that made this plan: scorch's own scoring favours a
	// segment alone when most of its records are deleted (its "merge"
	// would reclaim the most), so it is left out, deleted records and all.
	single := mergeplan.SingleSegmentMergePlanOptions
	mostlyDeleted := segs([2]int64{480, 476}, [2]int64{30, 30}, [2]int64{40, 4})
	for _, tc := range []struct {
		name string
		mo   *mergeplan.MergePlanOptions
		want int
	}{{"scorch's single-segment plan", &single, 2}, {"mergeAll", &mergeAll, 3}} {
		plan, err := mergeplan.Plan(mostlyDeleted, tc.mo)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, task := range plan.Tasks {
			n += len(task.Segments)
		}
		if n != tc.want {
			t.Errorf("%s merges %d of 3 segments (one mostly deleted), want %d", tc.name, n, tc.want)
		}
	}
}
