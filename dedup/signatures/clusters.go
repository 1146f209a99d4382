package signatures

// NoCluster is the cluster number of a document that was given none.
const NoCluster = ^uint32(0)

// Clusters keeps the assignment of documents to clusters: the number of
// each document's cluster and the master of each cluster, documents and
// clusters both by number (a document's number is its place in the
// Detector's arrival order, a cluster's its place in the order of
// creation). The Detector keeps the clusters' ids and members beside it;
// the numbers are what its candidate lists carry ([Entry.Group]).
//
// Contract, which package sigtest checks:
//
//   - Found(doc) gives doc a new cluster, numbered Len() before the call
//     (0 first: numbers are dense and never reused), with doc its only
//     member and its master.
//   - Join(doc, n) puts doc in cluster n, a number given before. A
//     document is in one cluster: the one Found or Join put it in last.
//   - Of(doc) is the number of doc's cluster; NoCluster for a document
//     never given one. A document leaving the Detector keeps its number
//     (its slot is never reused).
//   - Master(n) is n's master: its founder until SetMaster(n, doc), with
//     doc a member of n, names another.
//   - Reset forgets every cluster and document: the numbers start at 0
//     again.
//
// The Detector is the single writer: it calls no method while another
// runs. An implementation shared by several workers must, beyond making
// each method atomic, keep the assignment serial-equivalent (see the
// package documentation): a worker founds a cluster for a document only
// if no cluster a copy of it joined or founded appeared since it read its
// candidates, and elects a master once.
type Clusters interface {
	// Found makes doc the founder and master of a new cluster and
	// returns its number.
	Found(doc uint32) uint32
	// Join puts doc in cluster n.
	Join(doc, n uint32)
	// Of returns the number of doc's cluster, NoCluster if it has none.
	Of(doc uint32) uint32
	// Master returns the master of cluster n.
	Master(n uint32) uint32
	// SetMaster makes doc, a member of cluster n, its master.
	SetMaster(n, doc uint32)
	// Len returns the number of clusters founded (since Reset).
	Len() int
	// Reset forgets every cluster.
	Reset()
}

// MemoryClusters is the embedded [Clusters]: two slices, by document
// and by cluster number. Cost: O(1) per call (amortized for Found and
// Join); memory 4 bytes per document slot and per cluster. The zero value
// is empty and ready to use. It is not safe for concurrent use.
type MemoryClusters struct {
	of      []uint32 // cluster number by document number
	masters []uint32 // master by cluster number
}

var _ Clusters = (*MemoryClusters)(nil)

// Found makes doc the founder and master of a new cluster.
func (c *MemoryClusters) Found(doc uint32) uint32 {
	n := uint32(len(c.masters))
	c.masters = append(c.masters, doc)
	c.set(doc, n)
	return n
}

// Join puts doc in cluster n; it panics if n was never given.
func (c *MemoryClusters) Join(doc, n uint32) {
	if int(n) >= len(c.masters) {
		panic("signatures: Join to a cluster never founded")
	}
	c.set(doc, n)
}

func (c *MemoryClusters) set(doc, n uint32) {
	if int(doc) >= len(c.of) {
		grow := int(doc) + 1 - len(c.of)
		for range grow {
			c.of = append(c.of, NoCluster)
		}
	}
	c.of[doc] = n
}

// Of returns the number of doc's cluster, NoCluster if it has none.
func (c *MemoryClusters) Of(doc uint32) uint32 {
	if int(doc) < len(c.of) {
		return c.of[doc]
	}
	return NoCluster
}

// Master returns the master of cluster n.
func (c *MemoryClusters) Master(n uint32) uint32 { return c.masters[n] }

// SetMaster makes doc the master of cluster n.
func (c *MemoryClusters) SetMaster(n, doc uint32) { c.masters[n] = doc }

// Len returns the number of clusters founded.
func (c *MemoryClusters) Len() int { return len(c.masters) }

// Reset forgets every cluster.
func (c *MemoryClusters) Reset() { c.of, c.masters = nil, nil }
