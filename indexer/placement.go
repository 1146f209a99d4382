package indexer

// A Placement is where a document stands among near-duplicates: what a
// detector decided for it (package dedup's Result carries the same facts;
// package hook converts). The indexer decides nothing about copies: it
// applies placements.
type Placement struct {
	ID      string // the document; empty in Add means the Doc's
	Cluster string // its cluster; required
	Master  string // the cluster's master (the document itself, if it is)
	// Duplicate says the cluster holds other documents: a master that
	// is a Duplicate took the cluster over or is a new version of its
	// master, and the other members are reviewed against it.
	Duplicate bool
	// Edited says the document joined through the detector's edit
	// allowance: close to its master, not a copy at the threshold; it is
	// indexed under Skip.
	Edited  bool
	Simhash uint64 // the document's SimHash, when its Doc has none
}

// A Change is what removing a document, or giving it a new version, did
// to its cluster (package dedup's Change carries the same facts).
type Change struct {
	ID      string // the document removed or replaced
	Cluster string // the cluster it was in; "" if the detector did not hold it
	Master  string // that cluster's master afterwards ("" if it is gone)
	// Elected says Master was elected because the document, its
	// master, left.
	Elected bool
	// Moved lists the members inserted again elsewhere because the
	// master elected is not a copy of theirs, with where they went.
	Moved []Placement
	// Left says the new version left the cluster (Update).
	Left bool
	// Placement is where the new version went (Update).
	Placement Placement
}
