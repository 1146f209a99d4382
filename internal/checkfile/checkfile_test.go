package checkfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestRoundTripAndDamage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	payload := "hello, near-duplicates"
	if err := Write(path, "TESTMAG1", func(w io.Writer) error {
		_, err := io.WriteString(w, payload)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path, "TESTMAG1")
	if err != nil || string(got) != payload {
		t.Fatalf("Read = %q, %v; want %q", got, err, payload)
	}
	if _, err := Read(path, "OTHERMAG"); !errors.Is(err, ErrCorrupt) {
		t.Errorf("wrong magic: err = %v, want ErrCorrupt", err)
	}
	data, _ := os.ReadFile(path)
	for cut := 0; cut < len(data); cut++ {
		if _, err := Verify(data[:cut], "TESTMAG1"); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("truncated to %d bytes: err = %v, want ErrCorrupt", cut, err)
		}
	}
	for i := range data {
		flipped := append([]byte(nil), data...)
		flipped[i] ^= 0x10
		if _, err := Verify(flipped, "TESTMAG1"); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("bit flip at %d: err = %v, want ErrCorrupt", i, err)
		}
	}
	if _, err := Read(filepath.Join(t.TempDir(), "missing"), "TESTMAG1"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: err = %v, want fs.ErrNotExist", err)
	}
}

func TestWriteFailureKeepsOldFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	write := func(s string, fail bool) error {
		return Write(path, "TESTMAG1", func(w io.Writer) error {
			io.WriteString(w, s)
			if fail {
				return errors.New("disk on fire")
			}
			return nil
		})
	}
	if err := write("old", false); err != nil {
		t.Fatal(err)
	}
	if err := write("new", true); err == nil {
		t.Fatal("failing encoder: want error")
	}
	if got, err := Read(path, "TESTMAG1"); err != nil || string(got) != "old" {
		t.Fatalf("after failed write: %q, %v; want old file intact", got, err)
	}
}
