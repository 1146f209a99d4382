package dedup

import (
	"bytes"
	"encoding/gob"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestSnapshot checks that a Detector read from a snapshot holds what the
// original held and goes on exactly as it does: the same results for
// the same adds, removals and new versions, the same clusters, counters
// and re-clustering; with the verification sets in memory and in a file.
func TestSnapshot(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	docs := synthCorpus(r, "s", 40, 4, 150, 0.01)
	first, later := docs[:len(docs)/2], docs[len(docs)/2:]
	for _, where := range []string{"memory", "file", "temporary-file"} {
		inFile := where == "file"
		t.Run("sets-in-"+where, func(t *testing.T) {
			dir := t.TempDir()
			opts := Options{EditAllowance: 3, MaxFanout: 4, SetsMemory: -1}
			switch where {
			case "file":
				opts.SetsFile = filepath.Join(dir, "sets")
			case "temporary-file": // past the bound after a few documents: the snapshot reads the sets back
				opts.SetsMemory = 4096
			}
			orig, err := New(tableOf(t, opts, docs), opts)
			if err != nil {
				t.Fatal(err)
			}
			defer orig.Close()
			for i, doc := range first {
				if _, err := orig.Add(doc); err != nil {
					t.Fatal(err)
				}
				if i%9 == 4 {
					if _, err := orig.Remove(first[i-3].ID); err != nil {
						t.Fatal(err)
					}
				}
			}
			var snap bytes.Buffer
			if err := orig.WriteSnapshot(&snap); err != nil {
				t.Fatal(err)
			}
			ropts := opts
			if inFile { // the original goes on writing its file: read a copy
				ropts.SetsFile = filepath.Join(dir, "sets-copy")
				copyFile(t, opts.SetsFile, ropts.SetsFile)
				appendJunk(t, ropts.SetsFile) // written after the snapshot: dropped
			}
			restored, err := ReadSnapshot(bytes.NewReader(snap.Bytes()), ropts)
			if err != nil {
				t.Fatal(err)
			}
			defer restored.Close()
			same := func(what string) {
				t.Helper()
				if !reflect.DeepEqual(restored.Assignments(), orig.Assignments()) || restored.Stats() != orig.Stats() ||
					!reflect.DeepEqual(restored.Clusters(), orig.Clusters()) {
					t.Fatalf("%s: restored detector differs (stats %+v, want %+v)", what, restored.Stats(), orig.Stats())
				}
			}
			same("read")
			if moved := orig.tempSets; moved != (where == "temporary-file") {
				t.Fatalf("sets moved to a temporary file: %v", moved)
			}
			for i, doc := range later {
				a, errA := orig.Add(doc)
				b, errB := restored.Add(doc)
				if !reflect.DeepEqual(a, b) || (errA == nil) != (errB == nil) {
					t.Fatalf("add %s: %+v, restored %+v", doc.ID, a, b)
				}
				if i%7 == 3 {
					edited := later[i-2]
					edited.Text += " with one more sentence at the end of it"
					a, _ := orig.Replace(edited)
					b, _ := restored.Replace(edited)
					if !reflect.DeepEqual(a, b) {
						t.Fatalf("replace %s: %+v, restored %+v", edited.ID, a, b)
					}
				}
			}
			same("after adds and new versions")
			if _, err := orig.Recluster(t.Context()); err != nil {
				t.Fatal(err)
			}
			if _, err := restored.Recluster(t.Context()); err != nil {
				t.Fatal(err)
			}
			same("after re-clustering")
			if where == "temporary-file" && !restored.tempSets {
				t.Error("the restored detector keeps its sets in memory past the bound")
			}
		})
	}
}

// TestSnapshotRefused checks the errors: sets in an unlinked file cannot
// be snapshotted; other options, a missing sets file and damaged bytes
// are refused with the documented errors.
func TestSnapshotRefused(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 10))
	docs := synthCorpus(r, "s", 10, 3, 100, 0.01)
	unlinked, _ := New(nil, Options{SetsDir: t.TempDir()})
	defer unlinked.Close()
	if err := unlinked.WriteSnapshot(io.Discard); err == nil {
		t.Error("a snapshot of sets in an unlinked file was written")
	}
	opts := Options{SetsFile: filepath.Join(t.TempDir(), "sets")}
	d, _ := New(nil, opts)
	defer d.Close()
	for _, doc := range docs {
		d.Add(doc)
	}
	var snap bytes.Buffer
	if err := d.WriteSnapshot(&snap); err != nil {
		t.Fatal(err)
	}
	other := opts
	other.Threshold = 0.8
	if _, err := ReadSnapshot(bytes.NewReader(snap.Bytes()), other); !errors.Is(err, ErrSnapshotMismatch) {
		t.Errorf("other threshold: %v", err)
	}
	if _, err := ReadSnapshot(bytes.NewReader(snap.Bytes()), Options{}); !errors.Is(err, ErrSnapshotMismatch) {
		t.Errorf("sets in a file, none named: %v", err)
	}
	short := opts
	short.SetsFile = filepath.Join(t.TempDir(), "empty")
	if _, err := ReadSnapshot(bytes.NewReader(snap.Bytes()), short); err == nil {
		t.Error("a sets file shorter than the snapshot says was accepted")
	}
	for _, n := range []int{0, 10, snap.Len() / 2, snap.Len() - 1} {
		if _, err := ReadSnapshot(bytes.NewReader(snap.Bytes()[:n]), opts); !errors.Is(err, ErrSnapshotCorrupt) {
			t.Errorf("truncated to %d bytes: %v", n, err)
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendJunk(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(bytes.Repeat([]byte{0xee}, 4096)); err != nil {
		t.Fatal(err)
	}
}

// TestSnapshotSetsChecked: the sets file a snapshot covers is checked
// against the CRC-32C the snapshot records, by ReadSnapshot and by
// CheckSetsFile: a byte garbled anywhere in what it covers, or the file
// cut short or missing, is refused with an error wrapping
// ErrSnapshotCorrupt that names the file; bytes after what it covers
// (written after the snapshot) are not its concern. A snapshot written
// before the check (no checksum) is read with its file unchecked, and
// the next snapshot of the detector read from it is checked.
func TestSnapshotSetsChecked(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 11))
	docs := synthCorpus(r, "s", 12, 3, 120, 0.01)
	dir := t.TempDir()
	opts := Options{SetsFile: filepath.Join(dir, "sets")}
	d, err := New(nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range docs {
		if _, err := d.Add(doc); err != nil {
			t.Fatal(err)
		}
	}
	var snap bytes.Buffer
	if err := d.WriteSnapshot(&snap); err != nil {
		t.Fatal(err)
	}
	d.Close()
	orig, err := os.ReadFile(opts.SetsFile)
	if err != nil || len(orig) < 1000 {
		t.Fatalf("the sets file holds %d bytes (%v); want the sets of %d documents", len(orig), err, len(docs))
	}
	flip := func(at int) func([]byte) []byte {
		return func(b []byte) []byte { b[at] ^= 0x10; return b }
	}
	for _, tc := range []struct {
		name   string
		damage func([]byte) []byte // nil: the file deleted
		ok     bool
	}{
		{"intact", func(b []byte) []byte { return b }, true},
		{"bytes after the snapshot", func(b []byte) []byte { return append(b, 1, 2, 3) }, true},
		{"first byte garbled", flip(0), false},
		{"a middle byte garbled", flip(len(orig) / 2), false},
		{"last byte garbled", flip(len(orig) - 1), false},
		{"cut by a byte", func(b []byte) []byte { return b[:len(b)-1] }, false},
		{"emptied", func([]byte) []byte { return nil }, false},
		{"deleted", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sets")
			if tc.damage != nil {
				if err := os.WriteFile(path, tc.damage(bytes.Clone(orig)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			checkErr := CheckSetsFile(bytes.NewReader(snap.Bytes()), path)
			o := opts
			o.SetsFile = path
			restored, readErr := ReadSnapshot(bytes.NewReader(snap.Bytes()), o)
			if readErr == nil {
				restored.Close()
			}
			for what, err := range map[string]error{"CheckSetsFile": checkErr, "ReadSnapshot": readErr} {
				switch {
				case tc.ok && err != nil:
					t.Errorf("%s: %v; want nil", what, err)
				case !tc.ok && (!errors.Is(err, ErrSnapshotCorrupt) || !strings.Contains(err.Error(), path)):
					t.Errorf("%s: %v; want an error wrapping ErrSnapshotCorrupt naming %s", what, err, path)
				}
			}
		})
	}

	t.Run("written before the check", func(t *testing.T) {
		var s snapshot
		if err := gob.NewDecoder(bytes.NewReader(snap.Bytes())).Decode(&s); err != nil {
			t.Fatal(err)
		}
		s.SetsSum, s.SetsSummed = 0, false
		var old bytes.Buffer
		if err := gob.NewEncoder(&old).Encode(&s); err != nil {
			t.Fatal(err)
		}
		garbled := filepath.Join(t.TempDir(), "sets")
		if err := os.WriteFile(garbled, flip(len(orig)/2)(bytes.Clone(orig)), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := CheckSetsFile(bytes.NewReader(old.Bytes()), garbled); err != nil {
			t.Errorf("CheckSetsFile of an old snapshot: %v; want nil (nothing to check against)", err)
		}
		o := opts
		o.SetsFile = filepath.Join(t.TempDir(), "sets")
		copyFile(t, opts.SetsFile, o.SetsFile)
		restored, err := ReadSnapshot(bytes.NewReader(old.Bytes()), o)
		if err != nil {
			t.Fatalf("an old snapshot: %v; want it read", err)
		}
		for _, doc := range synthCorpus(r, "t", 4, 2, 120, 0.01) {
			if _, err := restored.Add(doc); err != nil {
				t.Fatal(err)
			}
		}
		var next bytes.Buffer
		if err := restored.WriteSnapshot(&next); err != nil {
			t.Fatal(err)
		}
		restored.Close()
		if err := CheckSetsFile(bytes.NewReader(next.Bytes()), o.SetsFile); err != nil {
			t.Errorf("the next snapshot of a detector read from an old one: %v; want its file to check", err)
		}
		again, err := ReadSnapshot(bytes.NewReader(next.Bytes()), o)
		if err != nil {
			t.Fatalf("reading the next snapshot: %v", err)
		}
		again.Close()
	})
}
