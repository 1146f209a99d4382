package postings

import (
	"fmt"
	"slices"
)

// Limits bounds the lists of a [Map]. The zero value means no bounds.
type Limits struct {
	// PerGroup is the most entries of one group a list keeps; later
	// entries of that group are not stored. ≤ 0: no limit.
	PerGroup int
	// MaxLen is the most entries a list holds: the entry that would exceed
	// it turns the key into a stop key, and the list is dropped. ≤ 0: no
	// limit.
	MaxLen int
}

// An Entry is one document in a list: its id and its group.
type Entry struct {
	ID, Group uint32
}

// An Item is the entry type of a [Map]: Entry or a type defined from it
// (package signatures has its own Entry, so that its lists are a Map's
// without copying).
type Item interface {
	~struct{ ID, Group uint32 }
}

// An Outcome says what [Map.Add] did.
type Outcome int

// The outcomes of Add.
const (
	Added   Outcome = iota // the entry is in the list
	Capped                 // not stored: its group already has PerGroup entries
	Stopped                // not stored: the list was full; the key is now a stop key
	Ignored                // not stored: the key was already a stop key
)

var outcomeNames = [...]string{"added", "capped", "stopped", "ignored"}

// String returns "added", "capped", "stopped" or "ignored".
func (o Outcome) String() string {
	if o < 0 || int(o) >= len(outcomeNames) {
		return fmt.Sprintf("Outcome(%d)", int(o))
	}
	return outcomeNames[o]
}

// Stats counts what a [Map] holds and refused.
type Stats struct {
	Keys    int // keys with a list
	Entries int // entries stored
	Stops   int // stop keys
	Capped  int // entries refused because their group was full
	Ignored int // entries refused because their key was a stop key
	Removed int // entries taken out by Remove
}

// A Map maps keys to bounded lists of entries, kept in order of Add. The
// zero value is not usable; call [New]. A Map is not safe for concurrent
// use.
//
// Every key is in one compact table (about 20 bytes a key with a uint64
// key), found with one probe sequence: most keys never get a second entry
// (a band key of a page without copies), and the table holds that entry
// itself; a longer list is an array of its own, which the table names by
// its index among the lists (so a list costs 24 bytes and its array, and
// the Map holds no Go map for the collector to scan). The lists are kept
// in pages of listPage, so that their number grows without copying them
// all (and holding the old and the new copy at once).
type Map[K comparable, E Item] struct {
	lim   Limits
	keys  table[K, E] // every key: its one entry, or a reference (ref) to a list
	pages [][][]E     // lists of two or more entries, by index, listPage a page; nil: a free index
	nlist uint32      // indices given out so far
	free  []uint32    // indices of lists free for reuse
	stats Stats
}

// listPage is the number of lists a page of Map.pages holds.
const listPage = 1 << 12

// at returns where the list of index i is.
func (m *Map[K, E]) at(i uint32) *[]E { return &m.pages[i/listPage][i%listPage] }

// ref is the ID of a table value that is not an entry: its Group is the
// index of the key's list in Map.lists, or stop for a stop key. A Map
// refuses an entry with this ID.
const (
	ref  = ^uint32(0)
	stop = ^uint32(0)
)

// New returns an empty Map with the given limits.
func New[K comparable, E Item](lim Limits) *Map[K, E] {
	return &Map[K, E]{lim: lim}
}

// Limits returns the limits m was made with.
func (m *Map[K, E]) Limits() Limits { return m.lim }

// list returns the list a table value v stands for: nil for a stop key,
// a new slice of one for an entry.
func (m *Map[K, E]) list(v E) []E {
	switch e := Entry(v); {
	case e.ID != ref:
		return []E{v}
	case e.Group == stop:
		return nil
	default:
		return *m.at(e.Group)
	}
}

// Get returns the list of k in order of Add: nil for a key never added and
// for a stop key. The caller must not modify it. Cost: O(1) (a list of
// one is a new slice).
func (m *Map[K, E]) Get(k K) []E {
	if v, ok := m.keys.get(k); ok {
		return m.list(v)
	}
	return nil
}

// Touch reads where k is looked for first and returns a number that
// depends on what it read, for the caller to keep (so that the reads are
// made). A large Map is read at random, a cache miss or two a key, and a
// Get or an Add waits for each; Touch for each of a document's keys
// before their Gets or Adds sends the reads out together, one not waiting
// for the last, and the Gets or Adds then find them in the cache. It
// changes nothing: safe beside Gets. Cost: O(1).
func (m *Map[K, E]) Touch(k K) uint64 { return m.keys.touch(k) }

// Known reports whether k was ever added, including as a stop key.
// Cost: O(1).
func (m *Map[K, E]) Known(k K) bool {
	_, ok := m.keys.get(k)
	return ok
}

// Add appends the entry (id, group) to the list of k, within the limits,
// and reports what it did. The id ^uint32(0) is reserved: Add panics on
// it. Cost: O(len(list)) to count the group's entries when
// Limits.PerGroup is set, else O(1) amortized.
func (m *Map[K, E]) Add(k K, id, group uint32) Outcome {
	if id == ref {
		panic("postings: Add with the reserved id ^uint32(0)")
	}
	e := E(Entry{ID: id, Group: group})
	at, known := m.keys.upsert(k)
	if !known {
		*at = e
		m.stats.Keys++
		m.stats.Entries++
		return Added
	}
	v := Entry(*at)
	if v.ID == ref && v.Group == stop {
		m.stats.Ignored++
		return Ignored
	}
	n := 1
	if v.ID == ref {
		n = len(*m.at(v.Group))
	}
	if m.capped(*at, group, n) {
		m.stats.Capped++
		return Capped
	}
	if m.lim.MaxLen > 0 && n >= m.lim.MaxLen {
		if v.ID == ref {
			m.release(v.Group)
		}
		*at = E(Entry{ID: ref, Group: stop})
		m.stats.Keys--
		m.stats.Entries -= n
		m.stats.Stops++
		return Stopped
	}
	if v.ID == ref {
		l := m.at(v.Group)
		*l = append(*l, e)
	} else {
		*at = E(Entry{ID: ref, Group: m.hold([]E{*at, e})})
	}
	m.stats.Entries++
	return Added
}

// capped reports whether the list of table value v, n entries long,
// holds Limits.PerGroup entries of group already.
func (m *Map[K, E]) capped(v E, group uint32, n int) bool {
	if m.lim.PerGroup <= 0 || n < m.lim.PerGroup {
		return false
	}
	c := 0
	for _, x := range m.list(v) {
		if Entry(x).Group == group {
			c++
		}
	}
	return c >= m.lim.PerGroup
}

// hold keeps list among the lists and returns its index.
func (m *Map[K, E]) hold(list []E) uint32 {
	if n := len(m.free); n > 0 {
		i := m.free[n-1]
		m.free = m.free[:n-1]
		*m.at(i) = list
		return i
	}
	if m.nlist == stop {
		panic("postings: more than 2³²−1 lists")
	}
	if m.nlist%listPage == 0 {
		m.pages = append(m.pages, make([][]E, listPage))
	}
	m.nlist++
	*m.at(m.nlist - 1) = list
	return m.nlist - 1
}

// release frees the list at index i.
func (m *Map[K, E]) release(i uint32) {
	*m.at(i) = nil
	m.free = append(m.free, i)
}

// Remove takes the entry id out of the list of k and reports whether it
// was there, and whether the caller should refill the list: its group had
// Limits.PerGroup entries before, so later entries of that group may have
// been refused (Capped). Adding the earliest of those now (Add) gives the
// list a rebuild from the remaining entries would give it: the first
// PerGroup of each group. Only the caller knows them; when it has none,
// nothing is lost.
//
// A list left empty is dropped, so k is no longer Known. A stop key stays
// a stop key (its entries were dropped when it stopped; Remove reports
// false for it): a key once shared by more than MaxLen documents is
// ignored for good, even if removals would leave fewer. Cost:
// O(len(list)).
func (m *Map[K, E]) Remove(k K, id uint32) (removed, refill bool) {
	list := m.Get(k)
	i := slices.IndexFunc(list, func(e E) bool { return Entry(e).ID == id })
	if i < 0 {
		return false, false
	}
	if m.lim.PerGroup > 0 {
		n, g := 0, Entry(list[i]).Group
		for _, e := range list {
			if Entry(e).Group == g {
				n++
			}
		}
		refill = n >= m.lim.PerGroup
	}
	m.stats.Entries--
	m.stats.Removed++
	if len(list) == 1 {
		m.keys.remove(k)
		m.stats.Keys--
		return true, refill
	}
	at, _ := m.keys.upsert(k) // k is there: a lookup
	idx := Entry(*at).Group
	if len(list) == 2 {
		*at = list[1-i]
		m.release(idx)
	} else {
		*m.at(idx) = slices.Delete(list, i, i+1)
	}
	return true, refill
}

// Stats returns the counters of m. Cost: O(1).
func (m *Map[K, E]) Stats() Stats { return m.stats }

// Each calls fn with every key and its list, in no particular order: a
// stop key with a nil list. fn must not modify the list or m. For
// snapshots ([Map.Restore]).
func (m *Map[K, E]) Each(fn func(k K, list []E)) {
	m.keys.each(func(k K, v E) { fn(k, m.list(v)) })
}

// Restore sets the list of k as Each gave it (nil: a stop key), without
// limits or counters; SetStats restores those. For snapshots: an entry
// with the id Add refuses is an error, and changes nothing.
func (m *Map[K, E]) Restore(k K, list []E) error {
	if slices.ContainsFunc(list, func(e E) bool { return Entry(e).ID == ref }) {
		return fmt.Errorf("postings: an entry of key %v has the reserved id %d", k, ref)
	}
	at, known := m.keys.upsert(k)
	if v := Entry(*at); known && v.ID == ref && v.Group != stop {
		m.release(v.Group)
	}
	switch {
	case list == nil:
		*at = E(Entry{ID: ref, Group: stop})
	case len(list) == 1:
		*at = list[0]
	default:
		*at = E(Entry{ID: ref, Group: m.hold(slices.Clip(list))})
	}
	return nil
}

// SetStats sets the counters Stats returns. For snapshots.
func (m *Map[K, E]) SetStats(s Stats) { m.stats = s }
