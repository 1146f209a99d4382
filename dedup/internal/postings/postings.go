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
// Most keys never get a second entry (a band key of a page without
// copies): a list of one is kept in a compact table of entries (about 20
// bytes a key with a uint64 key), a longer one in a map of slices (32
// bytes and the list's array).
type Map[K comparable, E Item] struct {
	lim    Limits
	single table[K, E] // keys whose list holds one entry
	lists  map[K][]E   // keys whose list holds two or more; a present key with a nil list is a stop key
	stats  Stats
}

// New returns an empty Map with the given limits.
func New[K comparable, E Item](lim Limits) *Map[K, E] {
	return &Map[K, E]{lim: lim, lists: map[K][]E{}}
}

// Limits returns the limits m was made with.
func (m *Map[K, E]) Limits() Limits { return m.lim }

// Get returns the list of k in order of Add: nil for a key never added and
// for a stop key. The caller must not modify it. Cost: O(1) (a list of
// one is a new slice).
func (m *Map[K, E]) Get(k K) []E {
	if e, ok := m.single.get(k); ok {
		return []E{e}
	}
	return m.lists[k]
}

// Known reports whether k was ever added, including as a stop key.
// Cost: O(1).
func (m *Map[K, E]) Known(k K) bool {
	if _, ok := m.single.get(k); ok {
		return true
	}
	_, ok := m.lists[k]
	return ok
}

// Add appends the entry (id, group) to the list of k, within the limits,
// and reports what it did. Cost: O(len(list)) to count the group's
// entries when Limits.PerGroup is set, else O(1) amortized.
func (m *Map[K, E]) Add(k K, id, group uint32) Outcome {
	e := E(Entry{ID: id, Group: group})
	one, isSingle := m.single.get(k)
	list, ok := m.lists[k]
	switch {
	case ok && list == nil:
		m.stats.Ignored++
		return Ignored
	case isSingle:
		list, ok = []E{one}, true
	case !ok:
		m.stats.Keys++
		m.stats.Entries++
		m.single.add(k, e)
		return Added
	}
	if m.lim.PerGroup > 0 && len(list) >= m.lim.PerGroup {
		n := 0
		for _, x := range list {
			if Entry(x).Group == group {
				n++
			}
		}
		if n >= m.lim.PerGroup {
			m.stats.Capped++
			return Capped
		}
	}
	if m.lim.MaxLen > 0 && len(list) >= m.lim.MaxLen {
		m.single.remove(k)
		m.lists[k] = nil
		m.stats.Keys--
		m.stats.Entries -= len(list)
		m.stats.Stops++
		return Stopped
	}
	m.single.remove(k)
	m.lists[k] = append(list, e)
	m.stats.Entries++
	return Added
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
	i := -1
	for j, e := range list {
		if Entry(e).ID == id {
			i = j
			break
		}
	}
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
	switch len(list) {
	case 1:
		m.single.remove(k)
		m.stats.Keys--
	case 2:
		delete(m.lists, k)
		m.single.add(k, list[1-i])
	default:
		m.lists[k] = slices.Delete(list, i, i+1)
	}
	return true, refill
}

// Stats returns the counters of m. Cost: O(1).
func (m *Map[K, E]) Stats() Stats { return m.stats }

// Each calls fn with every key and its list, in no particular order: a
// stop key with a nil list. fn must not modify the list or m. For
// snapshots ([Map.Restore]).
func (m *Map[K, E]) Each(fn func(k K, list []E)) {
	m.single.each(func(k K, e E) { fn(k, []E{e}) })
	for k, list := range m.lists {
		fn(k, list)
	}
}

// Restore sets the list of k as Each gave it (nil: a stop key), without
// limits or counters; SetStats restores those. For snapshots.
func (m *Map[K, E]) Restore(k K, list []E) {
	m.single.remove(k)
	delete(m.lists, k)
	if len(list) == 1 {
		m.single.add(k, list[0])
		return
	}
	m.lists[k] = slices.Clip(list)
}

// SetStats sets the counters Stats returns. For snapshots.
func (m *Map[K, E]) SetStats(s Stats) { m.stats = s }
