// Package cluster keeps near-duplicate clusters: every document is in
// exactly one cluster, and every cluster has one master document, chosen by
// a configurable [Policy].
//
// The package does not decide similarity; the detector tells it which
// cluster a new document joins (by comparing it with the cluster's master,
// never by chaining through members, Seshasai 2009 §2.6.2). Cluster ids are
// derived from the id of the document that founded the cluster, so they are
// stable when documents arrive one at a time, when a new master takes over,
// when the founder leaves ([Set.Remove]: the cluster keeps its id, and a
// hook elects the new master when the master leaves), and when the same
// input is run again.
package cluster
