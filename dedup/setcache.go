package dedup

// setCache keeps the verification sets a setFile read last, so that a
// set read again soon — the master of a cluster many documents are
// candidates of, as pages of one template are — costs no read: the sets
// lie one after another in a ring of setCacheWords values, the oldest
// overwritten first, and a map finds them by slot. Its memory is fixed
// (setCacheWords·8 bytes and the map of the sets in it), whatever the
// number of documents. Used under the Detector's write lock.
type setCache struct {
	ring  []uint64
	at    int               // where the next set goes in ring
	lap   int               // times the ring was wrapped
	where map[uint32]cached // by slot: its set in ring
	queue []cached          // the sets in ring from queue[head] on, oldest first
	head  int
	seq   uint64
}

// A cached set: slot's set at ring[start:start+n], put there in lap
// lap; seq tells it from a later set of the same slot.
type cached struct {
	slot     uint32
	start, n int
	lap      int
	seq      uint64
}

// setCacheWords is the size of the ring: 4 MiB, about 1,300 sets of
// documentation pages of 2.4 KB of text.
const setCacheWords = 512 << 10

// set returns e's set in the ring.
func (c *setCache) set(e cached) []uint64 { return c.ring[e.start : e.start+e.n : e.start+e.n] }

// get returns the set of slot if the ring holds it.
func (c *setCache) get(slot uint32) (cached, bool) {
	e, ok := c.where[slot]
	return e, ok
}

// reserve makes room for a set of n values, ring space no set uses
// except keep (a set the caller still reads, left untouched: false if
// the room would overlap it), and returns the entry for it, which add
// keeps once the set is read in. False too for a set too large to keep
// (over a quarter of the ring) or an empty one.
func (c *setCache) reserve(slot uint32, n int, keep *cached) (cached, bool) {
	if c.ring == nil {
		c.ring, c.where = make([]uint64, setCacheWords), map[uint32]cached{}
	}
	if n == 0 || n > len(c.ring)/4 {
		return cached{}, false
	}
	at, lap := c.at, c.lap
	if at+n > len(c.ring) {
		at, lap = 0, lap+1
	}
	if keep != nil && keep.n > 0 && at < keep.start+keep.n && keep.start < at+n {
		return cached{}, false
	}
	if lap > c.lap { // wrap: the sets past at are the oldest and go first
		for c.head < len(c.queue) && c.queue[c.head].lap < c.lap {
			c.evict()
		}
		c.lap = lap
	}
	for c.head < len(c.queue) && c.queue[c.head].lap < c.lap && c.queue[c.head].start < at+n {
		c.evict()
	}
	c.seq++
	return cached{slot: slot, start: at, n: n, lap: c.lap, seq: c.seq}, true
}

// add keeps e, reserved and its set read in.
func (c *setCache) add(e cached) {
	c.at = e.start + e.n
	c.where[e.slot] = e
	c.queue = append(c.queue, e)
}

// evict drops the oldest set.
func (c *setCache) evict() {
	e := c.queue[c.head]
	if w, ok := c.where[e.slot]; ok && w.seq == e.seq {
		delete(c.where, e.slot)
	}
	if c.head++; c.head > 1024 && 2*c.head > len(c.queue) {
		c.queue = append(c.queue[:0], c.queue[c.head:]...)
		c.head = 0
	}
}

// drop forgets the set of slot (given a new one).
func (c *setCache) drop(slot uint32) {
	delete(c.where, slot)
}

// reset forgets every set (the slots were renumbered).
func (c *setCache) reset() {
	c.where, c.queue, c.head, c.at = map[uint32]cached{}, c.queue[:0], 0, 0
	c.lap++
}
