package cluster

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cespare/xxhash/v2"
)

// A Policy chooses the master of a cluster.
type Policy int

// Master policies. Ties always go to the document seen first.
const (
	FirstSeen      Policy = iota // the first document of the cluster stays master (default)
	ShortestURL                  // the member with the shortest URL (then first seen)
	MostRecent                   // the member with the latest Time
	HighestQuality               // the member with the highest Quality score
	// Newest: the member with the latest Time, an undated one (zero
	// Time) counting as older than any dated one; between equal times,
	// ShortestURL. For series — monthly notices that are copies but for
	// their date — whose newest issue should stand for them; where the
	// members' times are equal or unknown, as between true copies, it is
	// ShortestURL.
	Newest
)

var policyNames = []string{"first", "shortest-url", "recent", "quality", "newest"}

// String returns the policy's flag name: first, shortest-url, recent,
// quality or newest.
func (p Policy) String() string {
	if p < 0 || int(p) >= len(policyNames) {
		return fmt.Sprintf("Policy(%d)", int(p))
	}
	return policyNames[p]
}

// ParsePolicy parses a flag name as returned by [Policy.String].
func ParsePolicy(s string) (Policy, error) {
	for i, n := range policyNames {
		if s == n {
			return Policy(i), nil
		}
	}
	return 0, fmt.Errorf("cluster: unknown master policy %q (want one of %s)", s, strings.Join(policyNames, ", "))
}

// Better reports whether a should replace b as master under p. A member
// with a higher Preference is better whatever the policy; between equal
// preferences, members are compared on the attribute the policy names;
// equal attributes never replace the current master. ShortestURL breaks
// ties between URLs of equal length by byte order, so its master does not
// depend on arrival order.
func (p Policy) Better(a, b Member) bool {
	if a.Preference != b.Preference {
		return a.Preference > b.Preference
	}
	switch p {
	case ShortestURL:
		return len(a.URL) < len(b.URL) || len(a.URL) == len(b.URL) && a.URL < b.URL
	case MostRecent:
		return a.Time.After(b.Time)
	case Newest:
		if !a.Time.Equal(b.Time) {
			return a.Time.After(b.Time)
		}
		return ShortestURL.Better(a, b)
	case HighestQuality:
		return a.Quality > b.Quality
	}
	return false
}

// Best returns the position in ms of the member p prefers as master: the
// first member no later one is Better than, so ties go to the earliest.
// It returns -1 for no members. Cost: O(len(ms)).
func (p Policy) Best(ms []Member) int {
	if len(ms) == 0 {
		return -1
	}
	best := 0
	for i := 1; i < len(ms); i++ {
		if p.Better(ms[i], ms[best]) {
			best = i
		}
	}
	return best
}

// A Member describes a document to the master policy.
type Member struct {
	ID      string    // document id, unique
	URL     string    // for ShortestURL and Newest
	Time    time.Time // for MostRecent and Newest
	Quality float64   // for HighestQuality
	// Preference ranks members before any policy: the higher is the
	// better master (default 0).
	Preference int
}

// An ID names a cluster: "c" followed by 16 hex digits of a hash of the
// founding document's id.
type ID string

// IDFor returns the id of the cluster founded by the document docID.
func IDFor(docID string) ID {
	return ID(fmt.Sprintf("c%016x", xxhash.Sum64String(docID)))
}

// A Cluster is a master and its members, in order of arrival.
type Cluster struct {
	ID      ID
	Master  Member
	Members []Member // all members, master included, in arrival order
}

// A Set holds clusters. The zero value is not usable; call [NewSet]. A Set
// is not safe for concurrent use.
//
// Documents join with [Set.Found] and [Set.Join] and leave with
// [Set.Remove]; a cluster keeps its id when its founder or master leaves,
// and is deleted when its last member does. A cluster id freed that way
// may be given again to a cluster founded later by the same document.
type Set struct {
	policy   Policy
	clusters map[ID]*Cluster
	of       map[string]ID
	order    []*Cluster // clusters in order of creation, deleted ones too until compacted
	deleted  int        // deleted clusters in order
}

// NewSet returns an empty Set using policy p to choose masters.
func NewSet(p Policy) *Set {
	return &Set{policy: p, clusters: map[ID]*Cluster{}, of: map[string]ID{}}
}

// Found makes m the founder and master of a new cluster and returns its id.
// It panics if m.ID is already in the set (the detector checks first).
func (s *Set) Found(m Member) ID {
	s.mustBeNew(m.ID)
	id := IDFor(m.ID)
	for s.clusters[id] != nil { // a hash collision: derive another id deterministically
		id = IDFor(string(id) + "/" + m.ID)
	}
	c := &Cluster{ID: id, Master: m, Members: []Member{m}}
	s.clusters[id] = c
	s.of[m.ID] = id
	s.order = append(s.order, c)
	return id
}

// Join adds m to the existing cluster id and reports whether m became its
// master under the set's policy.
func (s *Set) Join(id ID, m Member) (newMaster bool) {
	s.JoinAsMember(id, m)
	if c := s.clusters[id]; s.policy.Better(m, c.Master) {
		c.Master = m
		return true
	}
	return false
}

// JoinAsMember adds m to the existing cluster id without changing its
// master, whatever the policy (the caller has a reason to keep it).
func (s *Set) JoinAsMember(id ID, m Member) {
	s.mustBeNew(m.ID)
	c := s.clusters[id]
	if c == nil {
		panic(fmt.Sprintf("cluster: join of unknown cluster %s", id))
	}
	c.Members = append(c.Members, m)
	s.of[m.ID] = id
}

func (s *Set) mustBeNew(docID string) {
	if _, dup := s.of[docID]; dup {
		panic(fmt.Sprintf("cluster: document %q added twice", docID))
	}
}

// Remove takes document docID out of its cluster and returns the
// cluster's id, and false if docID is not in the set. A cluster left
// without members is deleted. When docID was the master of a cluster that
// keeps members, elect chooses the new master: it is called with the
// cluster, docID already out of Members, and returns the new master's
// position in Members (out of range panics). A nil elect applies the
// set's policy ([Policy.Best]: ties to the earliest member). The caller
// may have more to check than the policy — package dedup only elects a
// member the others are copies of. Cost: O(members) plus elect.
func (s *Set) Remove(docID string, elect func(c *Cluster) int) (ID, bool) {
	id, ok := s.of[docID]
	if !ok {
		return "", false
	}
	delete(s.of, docID)
	c := s.clusters[id]
	i := slices.IndexFunc(c.Members, func(m Member) bool { return m.ID == docID })
	c.Members = slices.Delete(c.Members, i, i+1)
	switch {
	case len(c.Members) == 0:
		delete(s.clusters, id)
		c.Members = nil
		s.deleted++
		if s.deleted > len(s.order)/2 {
			s.order = slices.DeleteFunc(s.order, func(c *Cluster) bool { return s.clusters[c.ID] != c })
			s.deleted = 0
		}
	case c.Master.ID == docID:
		if elect == nil {
			elect = func(c *Cluster) int { return s.policy.Best(c.Members) }
		}
		c.Master = c.Members[elect(c)]
	}
	return id, true
}

// Update replaces the attributes (URL, Time, Quality) of the member
// m.ID, keeping its cluster, its place and its role: a master stays
// master, a member does not take over, whatever the policy says of the
// new attributes (use [Set.Promote]). It reports false if m.ID is not in
// the set. Cost: O(members of its cluster).
func (s *Set) Update(m Member) bool {
	id, ok := s.of[m.ID]
	if !ok {
		return false
	}
	c := s.clusters[id]
	c.Members[slices.IndexFunc(c.Members, func(x Member) bool { return x.ID == m.ID })] = m
	if c.Master.ID == m.ID {
		c.Master = m
	}
	return true
}

// Promote makes document docID the master of its cluster and reports
// false if it is not in the set. Cost: O(members of its cluster).
func (s *Set) Promote(docID string) bool {
	id, ok := s.of[docID]
	if !ok {
		return false
	}
	c := s.clusters[id]
	c.Master = c.Members[slices.IndexFunc(c.Members, func(m Member) bool { return m.ID == docID })]
	return true
}

// Of returns the cluster of document docID and whether it is known.
func (s *Set) Of(docID string) (ID, bool) {
	id, ok := s.of[docID]
	return id, ok
}

// Get returns the cluster id, or nil if there is none. The returned value
// must not be modified.
func (s *Set) Get(id ID) *Cluster { return s.clusters[id] }

// Len returns the number of clusters.
func (s *Set) Len() int { return len(s.clusters) }

// Docs returns the number of documents in all clusters.
func (s *Set) Docs() int { return len(s.of) }

// All returns the clusters in order of creation. Cost: O(clusters).
func (s *Set) All() []*Cluster {
	out := make([]*Cluster, 0, len(s.clusters))
	for _, c := range s.order {
		if s.clusters[c.ID] == c {
			out = append(out, c)
		}
	}
	return out
}

// Restore adds c as it is — its id, master and members — after the
// clusters already in the set, as a snapshot of a Set (All) gave it. It
// panics if c has no members, if its master is not one of them, or if a
// member or the id is already in the set.
func (s *Set) Restore(c Cluster) {
	if !slices.ContainsFunc(c.Members, func(m Member) bool { return m.ID == c.Master.ID }) {
		panic(fmt.Sprintf("cluster: restored cluster %s: master %q is not a member", c.ID, c.Master.ID))
	}
	if s.clusters[c.ID] != nil {
		panic(fmt.Sprintf("cluster: restored cluster %s is already in the set", c.ID))
	}
	for _, m := range c.Members {
		s.mustBeNew(m.ID)
		s.of[m.ID] = c.ID
	}
	c.Members = slices.Clone(c.Members)
	s.clusters[c.ID] = &c
	s.order = append(s.order, &c)
}
