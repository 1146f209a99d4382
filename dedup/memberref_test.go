package dedup

import (
	"testing"
	"time"
	"unsafe"

	"github.com/doppel-search/doppel/dedup/cluster"
)

// TestMemberRef checks that a record's memberRef gives back the member it
// was made of, keeping the whole member only when it has more than an id,
// and that a record is the 128 bytes the memory figures count on.
func TestMemberRef(t *testing.T) {
	for _, m := range []cluster.Member{
		{ID: "a"},
		{ID: ""},
		{ID: "b", URL: "http://h/b"},
		{ID: "c", Time: time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)},
		{ID: "d", Quality: 0.5},
		{ID: "e", Preference: -1},
	} {
		ref := refOf(m)
		if got := ref.full(); got != m {
			t.Errorf("refOf(%+v).full() = %+v", m, got)
		}
		if alone := m == (cluster.Member{ID: m.ID}); alone != (ref.more == nil) {
			t.Errorf("%+v: the whole member kept: %v", m, ref.more != nil)
		}
	}
	if n := unsafe.Sizeof(record{}); n > 128 {
		t.Errorf("a record takes %d bytes, more than 128", n)
	}
}
