package detect

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/detect/api"

	"github.com/doppel-search/doppel/internal/testrig/storetest"
)

// A damage of one file of a service's data directory: do returns its new
// bytes (nil do deletes it).
type damage struct {
	name string
	do   func([]byte) []byte
}

// damagesOf returns the damages TestDamagedStore does to a file of data:
// deleted, emptied, cut to half, cut by its last byte, and each page (a
// bbolt file's, its size read from its meta page; 4 KiB blocks of any
// other file) garbled whole and past its 16-byte header.
func damagesOf(data []byte) []damage {
	ds := []damage{
		{"deleted", nil},
		{"empty", func([]byte) []byte { return []byte{} }},
		{"half", func(b []byte) []byte { return b[:len(b)/2] }},
		{"last-byte-cut", func(b []byte) []byte { return b[:len(b)-1] }},
	}
	ps := 4096
	if len(data) > 32 && binary.LittleEndian.Uint32(data[16:]) == 0xED0CDAED {
		ps = int(binary.LittleEndian.Uint32(data[24:]))
	}
	for n := 0; n*ps < len(data); n++ {
		for _, part := range []struct {
			name string
			from int
		}{{"whole", 0}, {"elements", 16}} {
			ds = append(ds, damage{fmt.Sprintf("page-%d-%s", n, part.name), func(b []byte) []byte {
				b = slices.Clone(b)
				for i := n*ps + part.from; i < min((n+1)*ps, len(b)); i++ {
					b[i] ^= 0x5A ^ byte(i*7)
				}
				return b
			}})
		}
	}
	return ds
}

// TestDamagedStore damages every file of a service's data directory
// (detect.db, the detector's snapshot and its sets) in every way
// damagesOf lists, then opens it: Open never panics and never leaves the
// store locked; a damaged detect.db (and one deleted while the snapshot
// remains) is refused with an error wrapping ErrDamaged that names the
// file and says what to do, never replaced by an empty store; a damaged
// snapshot is rebuilt from the stored documents, which are all still
// found, in the clusters they were in.
func TestDamagedStore(t *testing.T) {
	base := t.TempDir()
	s := open(t, base)
	var docs []api.Document
	for i := range 60 {
		tx := text(uint64(i%20), 120)
		if i >= 20 {
			tx = edit(tx, i)
		}
		docs = append(docs, api.Document{ID: fmt.Sprintf("doc-%02d", i), Text: tx})
	}
	put(t, s, docs...)
	want := map[string]api.Answer{}
	for _, d := range docs {
		a, err := s.Get(d.ID)
		if err != nil {
			t.Fatal(err)
		}
		want[d.ID] = a
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		file := e.Name()
		data, err := os.ReadFile(filepath.Join(base, file))
		if err != nil {
			t.Fatal(err)
		}
		for _, dmg := range damagesOf(data) {
			t.Run(file+"/"+dmg.name, func(t *testing.T) {
				dir := t.TempDir()
				for _, e := range entries {
					b, err := os.ReadFile(filepath.Join(base, e.Name()))
					if err == nil {
						err = os.WriteFile(filepath.Join(dir, e.Name()), b, 0o600)
					}
					if err != nil {
						t.Fatal(err)
					}
				}
				path := filepath.Join(dir, file)
				if dmg.do == nil {
					err = os.Remove(path)
				} else {
					err = os.WriteFile(path, dmg.do(data), 0o600)
				}
				if err != nil {
					t.Fatal(err)
				}
				openDamaged(t, dir, file, want)
			})
		}
	}
}

// openDamaged opens the service in dir, whose file is damaged, and
// checks what TestDamagedStore says.
func openDamaged(t *testing.T, dir, file string, want map[string]api.Answer) {
	t.Helper()
	var s *Service
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("Open panicked: %v", r)
			}
		}()
		s, err = Open(dir, Options{})
	}()
	if err != nil {
		storetest.Unlocked(t, filepath.Join(dir, dbFile))
		msg := err.Error()
		if !errors.Is(err, ErrDamaged) || !strings.Contains(msg, dbFile) || !strings.Contains(msg, "move it aside") || strings.Contains(msg, "\n") {
			t.Fatalf("Open: %v; want one line wrapping ErrDamaged that names %s and says to move it aside", err, dbFile)
		}
		if file != dbFile {
			t.Errorf("Open refused the store for a damaged %s (%v); want the detector rebuilt", file, err)
		}
		return
	}
	defer func() {
		s.Close()
		storetest.Unlocked(t, filepath.Join(dir, dbFile))
	}()
	if file == dbFile {
		// Damage in bytes bbolt does not read (a free page): the store
		// must still hold every document as it was.
		if s.Stats().Documents != len(want) {
			t.Fatalf("Open of a damaged %s holds %d documents; want %d or a damage error", file, s.Stats().Documents, len(want))
		}
	}
	for id, w := range want {
		a, err := s.Get(id)
		if err != nil {
			t.Fatalf("after a damaged %s, Get(%s): %v", file, id, err)
		}
		if a.Members != w.Members || (a.Master == a.ID) != (w.Master == w.ID) {
			t.Errorf("after a damaged %s, %s: %+v; want %+v", file, id, a, w)
		}
	}
}
