package redissig

import (
	"fmt"
	"sync"

	"github.com/doppel-search/doppel/dedup/signatures"
)

// Clusters is the cluster assignment of a [Signatures] as a
// signatures.Clusters: each method one script on the assignment's
// master, atomic. It keeps the cluster of each document and the master of
// each cluster, as the commits of dedup.NewShared's Detectors do (which
// also keep the clusters' members and ids beside them); its Found gives a
// cluster no id bits. Its methods return no errors: the first one is kept
// for [Clusters.Err], and a method called after it returns a zero value
// (NoCluster for Of and Master).
//
// Cost: one round trip a call; 4 bytes a document, 12 a cluster.
type Clusters struct {
	s *Signatures

	mu  sync.Mutex
	err error
}

var _ signatures.Clusters = (*Clusters)(nil)

// Clusters returns the assignment of s as a signatures.Clusters.
func (s *Signatures) Clusters() *Clusters { return &Clusters{s: s} }

// Err returns the first error of a call, if any.
func (c *Clusters) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// call runs an operation of clusters.lua and returns its integer result;
// ok is false after an error.
func (c *Clusters) call(args ...any) (n int64, ok bool) {
	c.mu.Lock()
	failed := c.err != nil
	c.mu.Unlock()
	if failed {
		return 0, false
	}
	v, err := c.s.cluster(c.s.opts.Context, args...)
	if err == nil {
		var isInt bool
		if n, isInt = v.(int64); !isInt {
			err = fmt.Errorf("clusters.lua %v: answered %v", args[0], v)
		}
	}
	if err != nil {
		c.mu.Lock()
		if c.err == nil {
			c.err = fmt.Errorf("redissig: %w", err)
		}
		c.mu.Unlock()
		return 0, false
	}
	return n, true
}

// number converts a script's cluster or document number, -1 for none.
func number(n int64, ok bool) uint32 {
	if !ok || n < 0 {
		return signatures.NoCluster
	}
	return uint32(n)
}

// Found makes doc the founder and master of a new cluster.
func (c *Clusters) Found(doc uint32) uint32 { return number(c.call("found", doc)) }

// Join puts doc in cluster n.
func (c *Clusters) Join(doc, n uint32) { c.call("join", doc, n) }

// Of returns the number of doc's cluster, NoCluster if it has none.
func (c *Clusters) Of(doc uint32) uint32 { return number(c.call("of", doc)) }

// Master returns the master of cluster n (NoCluster for a number never
// given).
func (c *Clusters) Master(n uint32) uint32 { return number(c.call("master", n)) }

// SetMaster makes doc the master of cluster n.
func (c *Clusters) SetMaster(n, doc uint32) { c.call("setmaster", n, doc) }

// Len returns the number of clusters founded.
func (c *Clusters) Len() int {
	n, _ := c.call("len")
	return int(n)
}

// Reset forgets every cluster and document of the assignment, and the
// turns: no worker may be inserting.
func (c *Clusters) Reset() { c.call("reset") }
