package dedup

import (
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"

	"github.com/cespare/xxhash/v2"

	"github.com/doppel-search/doppel/dedup/cluster"
)

// clusterTable holds the Detector's clusters by cluster number (the
// numbers of Detector.assigned, which keeps each cluster's master and
// each document's cluster): the 64 bits of each cluster's id and the
// members of each cluster of two or more. A cluster of one is its master
// alone and costs 12 bytes; the members' attributes are in their records.
// It gives what a cluster.Set gave (ids from [cluster.IDFor], members in
// order of joining, clusters in order of creation) at about a tenth of
// the memory. Used under the Detector's lock.
type clusterTable struct {
	d     *Detector
	hash  []uint64            // by cluster number: its id is "c" and these 64 bits in 16 hex digits
	size  []uint32            // by cluster number: its members; 0 once it is gone
	multi map[uint32][]uint32 // members of the clusters of two or more: slots in order of joining
	live  map[uint64]uint32   // the number of each cluster not gone, by id
	docs  int                 // documents in clusters
}

// newClusterTable returns an empty table for the documents of d.
func newClusterTable(d *Detector) *clusterTable {
	return &clusterTable{d: d, multi: map[uint32][]uint32{}, live: map[uint64]uint32{}}
}

// idOf returns the cluster id of the 64 bits h: "c" and 16 hex digits,
// as cluster.IDFor makes them.
func idOf(h uint64) cluster.ID {
	var b [17]byte
	b[0] = 'c'
	var raw [8]byte
	for i := range raw {
		raw[i] = byte(h >> (56 - 8*i))
	}
	hex.Encode(b[1:], raw[:])
	return cluster.ID(b[:])
}

// hashOf returns the 64 bits of a cluster id made by idOf, and false for
// any other string.
func hashOf(id cluster.ID) (uint64, bool) {
	if len(id) != 17 || id[0] != 'c' {
		return 0, false
	}
	h, err := strconv.ParseUint(string(id[1:]), 16, 64)
	return h, err == nil && idOf(h) == id
}

// found records cluster number n, just founded by document docID, and
// returns its id: cluster.IDFor(docID), or, while that names a cluster
// not gone, the id derived from it and docID as cluster.Set does.
func (t *clusterTable) found(n uint32, docID string) cluster.ID {
	if int(n) != len(t.hash) {
		panic(fmt.Sprintf("dedup: cluster number %d founded after %d", n, len(t.hash)))
	}
	h := xxhash.Sum64String(docID)
	for {
		if _, taken := t.live[h]; !taken {
			break
		}
		h = xxhash.Sum64String(string(idOf(h)) + "/" + docID)
	}
	t.hash = append(t.hash, h)
	t.size = append(t.size, 1)
	t.live[h] = n
	t.docs++
	return idOf(h)
}

// join adds document slot to cluster n, last in order of joining.
func (t *clusterTable) join(n, slot uint32) {
	if t.size[n] == 1 {
		t.multi[n] = []uint32{t.d.assigned.Master(n), slot}
	} else {
		t.multi[n] = append(t.multi[n], slot)
	}
	t.size[n]++
	t.docs++
}

// leave takes document slot out of cluster n. A cluster left with one
// member must have it as master (the caller elects it when the master
// left); one left with none is gone.
func (t *clusterTable) leave(n, slot uint32) {
	t.size[n]--
	t.docs--
	switch t.size[n] {
	case 0:
		delete(t.live, t.hash[n])
	case 1:
		delete(t.multi, n)
	default:
		list := t.multi[n]
		for i, m := range list {
			if m == slot {
				t.multi[n] = append(list[:i], list[i+1:]...)
				break
			}
		}
	}
}

// members returns the slots of cluster n's members in order of joining:
// none for a cluster gone. The caller must not modify them.
func (t *clusterTable) members(n uint32) []uint32 {
	switch t.size[n] {
	case 0:
		return nil
	case 1:
		return []uint32{t.d.assigned.Master(n)}
	}
	return t.multi[n]
}

// id returns the id of cluster number n.
func (t *clusterTable) id(n uint32) cluster.ID { return idOf(t.hash[n]) }

// number returns the number of the cluster id, and false if it is gone
// or was never made.
func (t *clusterTable) number(id cluster.ID) (uint32, bool) {
	h, ok := hashOf(id)
	if !ok {
		return 0, false
	}
	n, ok := t.live[h]
	return n, ok
}

// Len returns the number of clusters not gone.
func (t *clusterTable) Len() int { return len(t.live) }

// Docs returns the number of documents in clusters.
func (t *clusterTable) Docs() int { return t.docs }

// Of returns the cluster of the stored document docID and whether it is
// stored.
func (t *clusterTable) Of(docID string) (cluster.ID, bool) {
	slot, ok := t.d.byID[docID]
	if !ok {
		return "", false
	}
	return t.id(t.d.assigned.Of(slot)), true
}

// Get returns the cluster id, its master and members with their
// attributes, or nil if there is none. Cost: O(members).
func (t *clusterTable) Get(id cluster.ID) *cluster.Cluster {
	n, ok := t.number(id)
	if !ok {
		return nil
	}
	return t.cluster(n)
}

// cluster returns cluster n as a cluster.Cluster.
func (t *clusterTable) cluster(n uint32) *cluster.Cluster {
	ms := t.members(n)
	c := &cluster.Cluster{ID: t.id(n), Master: t.d.docs[t.d.assigned.Master(n)].member.full(), Members: make([]cluster.Member, len(ms))}
	for i, m := range ms {
		c.Members[i] = t.d.docs[m].member.full()
	}
	return c
}

// All returns the clusters not gone in order of creation. Cost:
// O(documents).
func (t *clusterTable) All() []*cluster.Cluster {
	out := make([]*cluster.Cluster, 0, len(t.live))
	for n, size := range t.size {
		if size > 0 {
			out = append(out, t.cluster(uint32(n)))
		}
	}
	return out
}

// restore sets the clusters a snapshot holds (hash, size and multi as in
// a clusterTable), checking them against the cluster assignment
// (t.d.assigned, restored before): the numbers agree, a cluster of one
// is its master, a cluster of more lists that many members, master
// included, each assigned to it.
func (t *clusterTable) restore(hash []uint64, size []uint32, multi map[uint32][]uint32) error {
	a := t.d.assigned
	if len(hash) != len(size) || a.Len() != len(hash) {
		return fmt.Errorf("%d cluster ids, %d sizes, %d cluster numbers", len(hash), len(size), a.Len())
	}
	if multi == nil {
		multi = map[uint32][]uint32{}
	}
	t.hash, t.size, t.multi, t.live, t.docs = hash, size, multi, map[uint64]uint32{}, 0
	for n, k := range size {
		if k == 0 {
			continue
		}
		if _, dup := t.live[hash[n]]; dup {
			return fmt.Errorf("cluster %s twice", idOf(hash[n]))
		}
		t.live[hash[n]] = uint32(n)
		t.docs += int(k)
		ms := t.members(uint32(n))
		if len(ms) != int(k) || !slices.Contains(ms, a.Master(uint32(n))) {
			return fmt.Errorf("cluster %s: %d members listed, %d counted, master %d", idOf(hash[n]), len(ms), k, a.Master(uint32(n)))
		}
		for _, m := range ms {
			if int(m) >= len(t.d.docs) || t.d.docs[m] == nil || a.Of(m) != uint32(n) {
				return fmt.Errorf("cluster %s: member %d is not stored in it", idOf(hash[n]), m)
			}
		}
	}
	for n, ms := range multi {
		if int(n) >= len(size) || int(size[n]) != len(ms) || len(ms) < 2 {
			return fmt.Errorf("cluster number %d: %d members listed", n, len(ms))
		}
	}
	return nil
}
