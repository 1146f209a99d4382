package detect

import (
	"slices"

	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/dedup/cluster"
	"github.com/doppel-search/doppel/detect/api"
)

// A mirror is what the service knows of each stored document's place —
// its cluster, and each cluster's master and size — kept in step with
// the detector from what its Insert, Update and Remove report, to answer
// a document's place without reading its whole cluster, and to tell
// which documents a change moved or re-pointed.
type mirror struct {
	docs     map[string]*docState
	clusters map[cluster.ID]*clusterState
}

type docState struct {
	cluster cluster.ID
	sum     uint64 // docSum of the fields it was last given
	edited  bool
}

type clusterState struct {
	master string
	size   int
}

func newMirror() *mirror {
	return &mirror{docs: map[string]*docState{}, clusters: map[cluster.ID]*clusterState{}}
}

// load fills the empty mirror with d's assignments.
func (m *mirror) load(d *dedup.Detector) {
	for a := range d.AllAssignments() {
		m.docs[a.ID] = &docState{cluster: a.Cluster, edited: a.Edited}
		cs := m.clusters[a.Cluster]
		if cs == nil {
			cs = &clusterState{master: a.Master}
			m.clusters[a.Cluster] = cs
		}
		cs.size++
	}
}

// answer describes the stored document id.
func (m *mirror) answer(id string, status api.Status) api.Answer {
	st := m.docs[id]
	a := api.Answer{ID: id, Status: status, Cluster: string(st.cluster)}
	if cs := m.clusters[st.cluster]; cs != nil {
		a.Master, a.Members, a.Canonical = cs.master, cs.size, cs.master == id
	}
	a.Edited = st.edited && !a.Canonical
	return a
}

// inserted records the insertion res (of a document with fields sum)
// and answers it.
func (m *mirror) inserted(d *dedup.Detector, res dedup.Result, sum uint64) api.Answer {
	m.docs[res.ID] = &docState{cluster: res.Cluster, sum: sum, edited: res.Edited}
	cs := m.clusters[res.Cluster]
	if cs == nil {
		cs = &clusterState{master: res.Master}
		m.clusters[res.Cluster] = cs
	}
	cs.size++
	var changes []api.Change
	if prev := cs.master; prev != res.Master {
		cs.master = res.Master
		changes = m.repoint(d, res.Cluster, prev, map[string]bool{res.ID: true}, nil)
	}
	a := m.answer(res.ID, api.Added)
	a.Changes = changes
	return a
}

// updated records the new version (fields sum) that Update changed as ch
// says, and answers it.
func (m *mirror) updated(d *dedup.Detector, ch dedup.Change, sum uint64) api.Answer {
	changes := m.follow(d, ch, ch.Result.Cluster, ch.Result.Edited)
	m.docs[ch.ID].sum = sum
	a := m.answer(ch.ID, api.Updated)
	a.Changes = changes
	return a
}

// removed records the removal ch and answers it.
func (m *mirror) removed(d *dedup.Detector, ch dedup.Change) api.Answer {
	return api.Answer{ID: ch.ID, Status: api.Removed, Changes: m.follow(d, ch, "", false)}
}

// follow brings the mirror in step with ch, which put its document in
// cluster to ("" once removed), and returns what changed for the other
// documents: the moved members first, then the members of every cluster
// whose master changed.
func (m *mirror) follow(d *dedup.Detector, ch dedup.Change, to cluster.ID, edited bool) []api.Change {
	touched := []cluster.ID{}
	touch := func(c cluster.ID) {
		if c != "" && !slices.Contains(touched, c) {
			touched = append(touched, c)
		}
	}
	touch(ch.Cluster)
	touch(to)
	for _, r := range ch.Moved {
		touch(r.Cluster)
	}
	before := map[cluster.ID]string{}
	for _, c := range touched {
		if cs := m.clusters[c]; cs != nil {
			before[c] = cs.master
		}
	}
	// Move the documents.
	skip := map[string]bool{ch.ID: true}
	var moved []string
	m.move(ch.ID, to, edited)
	for _, r := range ch.Moved {
		if st := m.docs[r.ID]; st != nil && st.cluster != r.Cluster {
			skip[r.ID] = true
			moved = append(moved, r.ID)
		}
		m.move(r.ID, r.Cluster, r.Edited)
	}
	// The clusters' masters and sizes, from the detector.
	var changes []api.Change
	for _, c := range touched {
		info, ok := d.Cluster(c)
		if !ok {
			delete(m.clusters, c)
			continue
		}
		cs := m.clusters[c]
		if cs == nil {
			cs = &clusterState{}
			m.clusters[c] = cs
		}
		cs.master, cs.size = info.Master.ID, len(info.Members)
		if info.Master.ID != before[c] {
			changes = append(changes, m.repoint(d, c, before[c], skip, info.Members)...)
		}
	}
	for _, id := range moved {
		st := m.docs[id]
		master := m.clusters[st.cluster].master
		changes = append(changes, api.Change{ID: id, Kind: api.Moved, Cluster: string(st.cluster), Master: master, Canonical: master == id})
	}
	return changes
}

// move puts document id in cluster to (removes it for ""), counting the
// clusters' sizes (follow sets them from the detector after).
func (m *mirror) move(id string, to cluster.ID, edited bool) {
	st := m.docs[id]
	if st != nil {
		if cs := m.clusters[st.cluster]; cs != nil {
			cs.size--
		}
	}
	if to == "" {
		delete(m.docs, id)
		return
	}
	if st == nil {
		st = &docState{}
		m.docs[id] = st
	}
	st.cluster, st.edited = to, edited
	if cs := m.clusters[to]; cs != nil {
		cs.size++
	}
}

// repoint returns the changes of the members of cluster c (members, or
// read from d when nil), but those in skip, once its master changed from
// prev to the mirror's.
func (m *mirror) repoint(d *dedup.Detector, c cluster.ID, prev string, skip map[string]bool, members []cluster.Member) []api.Change {
	if members == nil {
		info, _ := d.Cluster(c)
		members = info.Members
	}
	master := m.clusters[c].master
	var out []api.Change
	for _, mm := range members {
		if skip[mm.ID] {
			continue
		}
		kind := api.Repointed
		switch mm.ID {
		case prev:
			kind = api.Demoted
		case master:
			kind = api.Promoted
		}
		out = append(out, api.Change{ID: mm.ID, Kind: kind, Cluster: string(c), Master: master, Canonical: mm.ID == master})
	}
	return out
}
