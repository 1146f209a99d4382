package sigtest

import (
	"testing"

	"github.com/doppel-search/doppel/dedup/signatures"
)

// A ClustersOpener returns an empty Clusters, cleaned up with t.
type ClustersOpener func(t *testing.T) signatures.Clusters

// RunClusters runs every test of the Clusters suite against the Clusters
// open returns, each subtest on one of its own.
func RunClusters(t *testing.T, open ClustersOpener) {
	for _, tc := range []struct {
		name string
		test func(*testing.T, signatures.Clusters)
	}{
		{"FoundNumbersInOrder", testFound},
		{"Join", testJoin},
		{"SetMaster", testSetMaster},
		{"NoCluster", testNoCluster},
		{"Reset", testClustersReset},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.test(t, open(t)) })
	}
}

// wantCluster fails unless doc is in cluster n.
func wantCluster(t *testing.T, c signatures.Clusters, doc, n uint32) {
	t.Helper()
	if got := c.Of(doc); got != n {
		t.Fatalf("Of(%d) = %d, want %d", doc, got, n)
	}
}

// wantMaster fails unless doc is the master of cluster n.
func wantMaster(t *testing.T, c signatures.Clusters, n, doc uint32) {
	t.Helper()
	if got := c.Master(n); got != doc {
		t.Fatalf("Master(%d) = %d, want %d", n, got, doc)
	}
}

func testFound(t *testing.T, c signatures.Clusters) {
	if c.Len() != 0 {
		t.Fatalf("an empty Clusters has Len %d", c.Len())
	}
	for i, doc := range []uint32{0, 3, 1, 7} {
		if n := c.Found(doc); n != uint32(i) {
			t.Fatalf("Found(%d) = %d, want %d (numbers in order of creation)", doc, n, i)
		}
		if c.Len() != i+1 {
			t.Fatalf("Len %d after %d Found", c.Len(), i+1)
		}
	}
	for i, doc := range []uint32{0, 3, 1, 7} {
		wantCluster(t, c, doc, uint32(i))
		wantMaster(t, c, uint32(i), doc)
	}
}

func testJoin(t *testing.T, c signatures.Clusters) {
	a, b := c.Found(0), c.Found(1)
	c.Join(2, a)
	c.Join(3, b)
	c.Join(4, a)
	wantCluster(t, c, 2, a)
	wantCluster(t, c, 3, b)
	wantCluster(t, c, 4, a)
	wantMaster(t, c, a, 0) // joining does not change the master
	wantMaster(t, c, b, 1)
	c.Join(4, b) // a document is in the cluster it was put in last
	wantCluster(t, c, 4, b)
	n := c.Found(2) // founding moves it too
	wantCluster(t, c, 2, n)
	wantMaster(t, c, n, 2)
	if c.Len() != 3 {
		t.Errorf("Len %d after 3 Found and 4 Join", c.Len())
	}
}

func testSetMaster(t *testing.T, c signatures.Clusters) {
	a, b := c.Found(0), c.Found(1)
	c.Join(2, a)
	c.Join(3, b)
	c.SetMaster(a, 2)
	wantMaster(t, c, a, 2)
	wantMaster(t, c, b, 1)
	wantCluster(t, c, 0, a) // the old master stays a member
	wantCluster(t, c, 2, a)
	c.SetMaster(a, 0)
	wantMaster(t, c, a, 0)
}

func testNoCluster(t *testing.T, c signatures.Clusters) {
	wantCluster(t, c, 0, signatures.NoCluster)
	c.Found(5)
	wantCluster(t, c, 4, signatures.NoCluster) // documents before it
	wantCluster(t, c, 6, signatures.NoCluster) // and after it
	wantCluster(t, c, 1<<20, signatures.NoCluster)
}

func testClustersReset(t *testing.T, c signatures.Clusters) {
	c.Found(0)
	c.Join(1, 0)
	c.Found(2)
	c.Reset()
	if c.Len() != 0 {
		t.Fatalf("Len %d after Reset", c.Len())
	}
	wantCluster(t, c, 0, signatures.NoCluster)
	wantCluster(t, c, 1, signatures.NoCluster)
	if n := c.Found(1); n != 0 {
		t.Fatalf("Found after Reset = %d, want 0", n)
	}
	wantMaster(t, c, 0, 1)
}
