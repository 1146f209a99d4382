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
