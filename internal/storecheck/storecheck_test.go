package storecheck

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// boltFile writes a bbolt file of a few hundred pages (nested buckets,
// values that overflow a page) and returns its bytes.
func boltFile(t *testing.T) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "db")
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		b, _ := tx.CreateBucket([]byte("a"))
		nb, _ := b.CreateBucket([]byte("nested"))
		for i := range 2000 {
			b.Put(fmt.Appendf(nil, "key%05d", i), fmt.Appendf(nil, "value %d", i))
			if i%100 == 0 {
				nb.Put(fmt.Appendf(nil, "big%d", i), make([]byte, 9000))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestOpenBoltDamaged cuts and garbles a bbolt file at many offsets:
// OpenBolt never panics or faults, and either reports the file damaged
// or opens it (a damage in bytes nothing reads, such as a free page).
func TestOpenBoltDamaged(t *testing.T) {
	data := boltFile(t)
	if db, err := OpenBolt(writeTemp(t, data), 0o600, nil); err != nil {
		t.Fatalf("sound file: %v", err)
	} else {
		db.Close()
	}
	type damage struct {
		name string
		data []byte
	}
	var cases []damage
	for _, n := range []int{0, 1, 4096, len(data) / 3, len(data) / 2, len(data) - 4096, len(data) - 1} {
		cases = append(cases, damage{fmt.Sprintf("cut to %d", n), data[:n]})
	}
	for at := 0; at < len(data); at += len(data) / 23 {
		g := append([]byte(nil), data...)
		for i := at; i < min(at+64, len(g)); i++ {
			g[i] ^= 0x5A + byte(i)
		}
		cases = append(cases, damage{fmt.Sprintf("garbled at %d", at), g})
	}
	// The free-list page, which bbolt reads when it opens a file for
	// writing: its header garbled, and its count past the page.
	le := binary.LittleEndian
	ps := le.Uint32(data[pageHeader+8:])
	meta := pageHeader // the meta page of the latest transaction
	if le.Uint64(data[int(ps)+pageHeader+48:]) > le.Uint64(data[pageHeader+48:]) {
		meta += int(ps)
	}
	free := le.Uint64(data[meta+32:])
	for _, at := range []int{8, 10} { // the flags, the count
		g := append([]byte(nil), data...)
		off := int(free)*int(ps) + at
		g[off] ^= 0xFF
		g[off+1] ^= 0xFF
		cases = append(cases, damage{fmt.Sprintf("free-list page header at +%d", at), g})
	}
	damaged := 0
	for _, tc := range cases {
		for _, ro := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/readonly=%v", tc.name, ro), func(t *testing.T) {
				path := writeTemp(t, tc.data)
				db, err := OpenBolt(path, 0o600, &bolt.Options{ReadOnly: ro})
				if err == nil {
					db.Close()
					return
				}
				var d *Error
				if !errors.Is(err, ErrDamaged) || !errors.As(err, &d) || d.Path != path {
					t.Fatalf("err = %v; want an *Error naming %s", err, path)
				}
				damaged++
				// The file is left as it was, and closed: it opens again
				// (and fails again) without waiting for a lock.
				if _, err := OpenBolt(path, 0o600, &bolt.Options{ReadOnly: ro, Timeout: 1}); !errors.Is(err, ErrDamaged) {
					t.Errorf("second open: %v; want the same damage, not a lock", err)
				}
			})
		}
	}
	if damaged < len(cases) {
		t.Logf("%d of %d damages found (the others hit bytes nothing reads)", damaged, 2*len(cases))
	}
}

func writeTemp(t *testing.T, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "db")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSegment(t *testing.T) {
	if err := Segment(filepath.Join(t.TempDir(), "missing.zap")); !errors.Is(err, ErrDamaged) {
		t.Errorf("missing segment: %v; want ErrDamaged", err)
	}
	short := writeTemp(t, []byte("short"))
	if err := Segment(short); !errors.Is(err, ErrDamaged) {
		t.Errorf("short segment: %v; want ErrDamaged", err)
	}
}
