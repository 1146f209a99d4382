package cluster_test

import (
	"fmt"

	"github.com/doppel-search/doppel/dedup/cluster"
)

func ExampleSet() {
	s := cluster.NewSet(cluster.ShortestURL)
	id := s.Found(cluster.Member{ID: "print", URL: "http://intranet/manual/ch1?print=1"})
	became := s.Join(id, cluster.Member{ID: "page", URL: "http://intranet/manual/ch1"})
	fmt.Println(became, s.Get(id).Master.ID, len(s.Get(id).Members), id == cluster.IDFor("print"))
	// Output: true page 2 true
}

func ExampleSet_Remove() {
	s := cluster.NewSet(cluster.ShortestURL)
	id := s.Found(cluster.Member{ID: "page", URL: "http://intranet/a"})
	s.Join(id, cluster.Member{ID: "print", URL: "http://intranet/a?print=1"})
	s.Join(id, cluster.Member{ID: "old", URL: "http://intranet/old/a"})
	// The master leaves: the policy elects the shortest URL left.
	s.Remove("page", nil)
	fmt.Println(s.Get(id).Master.ID, len(s.Get(id).Members))
	// A hook may elect another member (package dedup elects only a member
	// the others are copies of).
	s.Remove("print", func(c *cluster.Cluster) int { return 0 })
	fmt.Println(s.Get(id).Master.ID, id == cluster.IDFor("page"))
	// Output:
	// old 2
	// old true
}
