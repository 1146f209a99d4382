package hook

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/crawler/pages"

	"github.com/doppel-search/doppel/internal/testrig/storetest"
)

// TestOpenDamagedPages damages the state directory of a nightly job file
// by file: deleted, emptied, cut to half, and every page of pages.db (its
// page size read from its meta page) and every 4 KiB block of hook.snap
// garbled whole and past its first 16 bytes. Open never panics and never
// leaves pages.db locked; it either refuses with an error wrapping
// ErrState that names the directory, or (damage in bytes no store reads,
// or a snapshot that is gone: its pages are put through the detector
// again) opens a state holding every page it held before.
func TestOpenDamagedPages(t *testing.T) {
	s, _ := nightlySite(t)
	good := filepath.Join(t.TempDir(), "state")
	h, err := Open(good, Options{})
	if err != nil {
		t.Fatal(err)
	}
	col := nightlyCollector()
	h.Attach(t.Context(), col)
	if err := col.Visit(s.srv.URL + "/"); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	want := statePages(t, good)
	if len(want) < 5 {
		t.Fatalf("the state holds %d pages; want at least 5", len(want))
	}
	for _, file := range []string{stateRecords, stateSnapshot} {
		data, err := os.ReadFile(filepath.Join(good, file))
		if err != nil {
			t.Fatal(err)
		}
		for _, dmg := range stateDamages(data) {
			t.Run(file+"/"+dmg.name, func(t *testing.T) {
				dir := filepath.Join(t.TempDir(), "state")
				if err := os.CopyFS(dir, os.DirFS(good)); err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(dir, file)
				if dmg.do == nil {
					err = os.Remove(path)
				} else {
					err = os.WriteFile(path, dmg.do(data), 0o644)
				}
				if err != nil {
					t.Fatal(err)
				}
				var h *Hook
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Fatalf("Open panicked: %v", r)
						}
					}()
					h, err = Open(dir, Options{})
				}()
				if err != nil {
					storetest.Unlocked(t, filepath.Join(dir, stateRecords))
					if !errors.Is(err, ErrState) || !strings.Contains(err.Error(), dir) {
						t.Errorf("Open: %v; want an error wrapping ErrState naming %s", err, dir)
					}
					return
				}
				if err := h.Close(); err != nil {
					t.Fatal(err)
				}
				storetest.Unlocked(t, filepath.Join(dir, stateRecords))
				if got := statePages(t, dir); !slices.Equal(got, want) {
					t.Errorf("Open of a damaged %s succeeded with %d pages; want the %d of before, or an error", file, len(got), len(want))
				}
			})
		}
	}
}

// stateDamage is one damage of a state file; nil do deletes it.
type stateDamage struct {
	name string
	do   func([]byte) []byte
}

// stateDamages lists what TestOpenDamagedPages does to a file of data.
func stateDamages(data []byte) []stateDamage {
	ds := []stateDamage{{"deleted", nil}, {"empty", func([]byte) []byte { return []byte{} }},
		{"half", func(b []byte) []byte { return b[:len(b)/2] }}}
	ps := 4096
	if len(data) > 32 && binary.LittleEndian.Uint32(data[16:]) == 0xED0CDAED {
		ps = int(binary.LittleEndian.Uint32(data[24:]))
	}
	for n := 0; n*ps < len(data); n++ {
		for _, from := range []int{0, 16} {
			ds = append(ds, stateDamage{fmt.Sprintf("page-%d-from-%d", n, from), func(b []byte) []byte {
				b = slices.Clone(b)
				for i := n*ps + from; i < min((n+1)*ps, len(b)); i++ {
					b[i] ^= 0x5A ^ byte(i*7)
				}
				return b
			}})
		}
	}
	return ds
}

// statePages lists the URLs the state directory dir holds, sorted.
func statePages(t *testing.T, dir string) []string {
	t.Helper()
	h, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var urls []string
	if err := h.state.store.Each(func(r pages.Record) error { urls = append(urls, r.URL); return nil }); err != nil {
		t.Fatal(err)
	}
	slices.Sort(urls)
	return urls
}
