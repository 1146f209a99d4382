package cluster

import (
	"fmt"
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
)

var policyNames = []string{"first", "shortest-url", "recent", "quality"}

// String returns the policy's flag name: first, shortest-url, recent or
// quality.
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

// Better reports whether a should replace b as master under p. Members are
// compared on the attribute the policy names; equal attributes never
// replace the current master. ShortestURL breaks ties between URLs of
// equal length by byte order, so its master does not depend on arrival
// order.
func (p Policy) Better(a, b Member) bool {
	switch p {
	case ShortestURL:
		return len(a.URL) < len(b.URL) || len(a.URL) == len(b.URL) && a.URL < b.URL
	case MostRecent:
		return a.Time.After(b.Time)
	case HighestQuality:
		return a.Quality > b.Quality
	}
	return false
}

// A Member describes a document to the master policy.
type Member struct {
	ID      string    // document id, unique
	URL     string    // for ShortestURL
	Time    time.Time // for MostRecent
	Quality float64   // for HighestQuality
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
type Set struct {
	policy   Policy
	clusters map[ID]*Cluster
	of       map[string]ID
	order    []ID // clusters in order of creation
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
	s.clusters[id] = &Cluster{ID: id, Master: m, Members: []Member{m}}
	s.of[m.ID] = id
	s.order = append(s.order, id)
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

// All returns the clusters in order of creation.
func (s *Set) All() []*Cluster {
	out := make([]*Cluster, len(s.order))
	for i, id := range s.order {
		out[i] = s.clusters[id]
	}
	return out
}
