package signatures

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/doppel-search/doppel/dedup/internal/postings"
)

// ErrCorrupt is wrapped by the errors of UnmarshalBinary for bytes that
// are not a MarshalBinary encoding.
var ErrCorrupt = errors.New("signatures: corrupt encoding")

// MarshalBinary encodes m's lists, limits and counters, for a snapshot of
// the Detector that uses it (package dedup): per kind, its counters, then
// each key with its list (a stop key with none). Cost: O(keys + entries).
func (m *Memory) MarshalBinary() ([]byte, error) {
	var b []byte
	put := func(v uint64) { b = binary.AppendUvarint(b, v) }
	put(uint64(m.lim.PerGroup))
	put(uint64(m.lim.MaxLen))
	put(uint64(len(m.kinds)))
	for _, p := range m.kinds {
		if p == nil {
			put(0)
			continue
		}
		put(1)
		st := p.Stats()
		for _, v := range []int{st.Keys, st.Entries, st.Stops, st.Capped, st.Ignored, st.Removed} {
			put(uint64(v))
		}
		n := 0
		p.Each(func(uint64, []Entry) { n++ })
		put(uint64(n))
		p.Each(func(k uint64, list []Entry) {
			b = binary.LittleEndian.AppendUint64(b, k)
			if list == nil {
				put(0) // a stop key
				return
			}
			put(uint64(len(list)))
			for _, e := range list {
				put(uint64(e.ID))
				put(uint64(e.Group))
			}
		})
	}
	return b, nil
}

// UnmarshalBinary replaces m's content with what MarshalBinary encoded.
func (m *Memory) UnmarshalBinary(data []byte) error {
	d := decoder{b: data}
	m.lim = Limits{PerGroup: int(d.uvarint()), MaxLen: int(d.uvarint())}
	m.kinds = make([]*postings.Map[uint64, Entry], d.count(1))
	for i := range m.kinds {
		if d.uvarint() == 0 {
			continue
		}
		p := postings.New[uint64, Entry](m.lim)
		var st Stats
		for _, v := range []*int{&st.Keys, &st.Entries, &st.Stops, &st.Capped, &st.Ignored, &st.Removed} {
			*v = int(d.uvarint())
		}
		p.SetStats(st)
		for range d.count(9) {
			k := d.uint64()
			var list []Entry
			if n := d.count(2); n > 0 {
				list = make([]Entry, n)
				for j := range list {
					list[j] = Entry{ID: uint32(d.uvarint()), Group: uint32(d.uvarint())}
				}
			}
			if err := p.Restore(k, list); err != nil {
				return fmt.Errorf("signatures: %w", err)
			}
		}
		m.kinds[i] = p
	}
	return d.done()
}

// MarshalBinary encodes c's cluster numbers and masters, for a snapshot.
func (c *MemoryClusters) MarshalBinary() ([]byte, error) {
	b := binary.AppendUvarint(nil, uint64(len(c.of)))
	for _, v := range c.of {
		b = binary.AppendUvarint(b, uint64(v))
	}
	b = binary.AppendUvarint(b, uint64(len(c.masters)))
	for _, v := range c.masters {
		b = binary.AppendUvarint(b, uint64(v))
	}
	return b, nil
}

// UnmarshalBinary replaces c's content with what MarshalBinary encoded.
func (c *MemoryClusters) UnmarshalBinary(data []byte) error {
	d := decoder{b: data}
	c.of = make([]uint32, d.count(1))
	for i := range c.of {
		c.of[i] = uint32(d.uvarint())
	}
	c.masters = make([]uint32, d.count(1))
	for i := range c.masters {
		c.masters[i] = uint32(d.uvarint())
	}
	return d.done()
}

// decoder reads what the encoders append, remembering the first error.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("truncated")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) uint64() uint64 {
	if len(d.b) < 8 {
		d.fail("truncated")
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

// count reads a count of items of at least min bytes each, bounded by
// the bytes left, so that a corrupt count cannot make a huge allocation.
func (d *decoder) count(min int) int {
	n := d.uvarint()
	if n > uint64(len(d.b)/min) {
		d.fail("count out of range")
		return 0
	}
	return int(n)
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", ErrCorrupt, what)
	}
	d.b = nil
}

func (d *decoder) done() error {
	if d.err == nil && len(d.b) > 0 {
		d.fail("trailing bytes")
	}
	return d.err
}
