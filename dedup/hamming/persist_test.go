package hamming

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// sampleIndex returns an index with merged entries, pending inserts and
// tombstones, and a Linear holding the same live entries.
func sampleIndex(t testing.TB, o Options, n int, seed uint64) (*Index, *Linear) {
	t.Helper()
	x := mustNew(t, o)
	f := x.Options().Bits
	var lin Linear
	r := newRand(seed)
	batch := make([]Entry, n)
	for i := range batch {
		batch[i] = Entry{ID: uint64(i), Fingerprint: randomFP(r, f)}
	}
	for _, s := range []store{x, &lin} {
		if err := s.InsertBatch(batch[:n/2]); err != nil {
			t.Fatal(err)
		}
		for _, e := range batch[n/2:] {
			if err := s.Insert(e.ID, e.Fingerprint); err != nil {
				t.Fatal(err)
			}
		}
		for _, e := range batch[:n/10] {
			s.Delete(e.ID, e.Fingerprint)
		}
	}
	return x, &lin
}

// sameAnswers checks that a and b answer the same queries.
func sameAnswers(t *testing.T, a, b Searcher, f, K int, stored []uint64, seed uint64) {
	t.Helper()
	r := newRand(seed)
	for i := range 300 {
		q := randomFP(r, f)
		if i%2 == 0 && len(stored) > 0 {
			q = flip(r, stored[r.IntN(len(stored))], r.IntN(K+2), f)
		}
		for k := range K + 1 {
			if got, want := a.Query(q, k), b.Query(q, k); !slices.Equal(got, want) {
				t.Fatalf("Query(%#x, %d) = %v, want %v", q, k, got, want)
			}
		}
	}
}

func TestRoundTrip(t *testing.T) {
	for i, o := range testLayouts {
		t.Run(layoutName(t, o), func(t *testing.T) {
			x, lin := sampleIndex(t, o, 3000, uint64(i))
			var buf bytes.Buffer
			n, err := x.WriteTo(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if n != int64(buf.Len()) {
				t.Errorf("WriteTo returned %d, wrote %d bytes", n, buf.Len())
			}
			y, err := Read(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if buf.Len() != 0 {
				t.Errorf("Read left %d bytes unread", buf.Len())
			}
			if !reflect.DeepEqual(y.Options(), x.Options()) {
				t.Errorf("Options after round trip = %+v, want %+v", y.Options(), x.Options())
			}
			if y.Len() != x.Len() || y.Len() != lin.Len() {
				t.Fatalf("Len after round trip = %d, want %d", y.Len(), x.Len())
			}
			o := x.Options()
			sameAnswers(t, y, lin, o.Bits, o.MaxDistance, lin.fps, uint64(i))

			path := filepath.Join(t.TempDir(), "index")
			if err := y.Save(path); err != nil {
				t.Fatal(err)
			}
			z, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			sameAnswers(t, z, lin, o.Bits, o.MaxDistance, lin.fps, uint64(i))
		})
	}
}

func TestRoundTripEmpty(t *testing.T) {
	var buf bytes.Buffer
	if _, err := mustNew(t, Options{Bits: 20, MaxDistance: 2}).WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	y, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if y.Len() != 0 || y.Options().Bits != 20 || y.Options().MaxDistance != 2 {
		t.Errorf("empty round trip: Len %d, options %+v", y.Len(), y.Options())
	}
}

// encodedSample is the encoding of a small index: a header and 12 entries.
func encodedSample(t testing.TB) []byte {
	x, _ := sampleIndex(t, Options{Blocks: 5}, 13, 5)
	var buf bytes.Buffer
	if _, err := x.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestReadTruncated cuts the encoding at every length, reading from memory
// and from a file.
func TestReadTruncated(t *testing.T) {
	data := encodedSample(t)
	path := filepath.Join(t.TempDir(), "index")
	for n := range len(data) {
		if _, err := Read(bytes.NewReader(data[:n])); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("Read of %d/%d bytes: err = %v, want ErrCorrupt", n, len(data), err)
		}
		if err := os.WriteFile(path, data[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(path); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("Load of %d/%d bytes: err = %v, want ErrCorrupt", n, len(data), err)
		}
	}
}

// TestReadBitFlip flips every bit of the encoding in turn.
func TestReadBitFlip(t *testing.T) {
	data := encodedSample(t)
	for i := range 8 * len(data) {
		bad := slices.Clone(data)
		bad[i/8] ^= 1 << (i % 8)
		if _, err := Read(bytes.NewReader(bad)); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("bit %d flipped: err = %v, want ErrCorrupt", i, err)
		}
	}
}

func TestLoadTrailingData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index")
	if err := os.WriteFile(path, append(encodedSample(t), 0), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Load with a trailing byte: err = %v, want ErrCorrupt", err)
	}
}

func TestLoadMissing(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope"))
	if !errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrCorrupt) {
		t.Errorf("Load of a missing file: err = %v, want ErrNotExist", err)
	}
}

// errIO is an I/O failure that is not corruption.
var errIO = errors.New("disk on fire")

type failingReader struct{ r io.Reader }

func (f failingReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		return n, errIO
	}
	return n, err
}

type failingWriter struct{ left int }

func (f *failingWriter) Write(p []byte) (int, error) {
	if len(p) > f.left {
		n := f.left
		f.left = 0
		return n, errIO
	}
	f.left -= len(p)
	return len(p), nil
}

func TestIOErrors(t *testing.T) {
	data := encodedSample(t)
	_, err := Read(failingReader{bytes.NewReader(data[:40])})
	if !errors.Is(err, errIO) || errors.Is(err, ErrCorrupt) {
		t.Errorf("Read from a failing reader: err = %v, want errIO and not ErrCorrupt", err)
	}
	x, _ := sampleIndex(t, Options{}, 100, 1)
	n, err := x.WriteTo(&failingWriter{left: 50})
	if !errors.Is(err, errIO) || n != 50 {
		t.Errorf("WriteTo a failing writer = %d, %v; want 50, errIO", n, err)
	}
}

// TestSaveReplaces saves over an existing file and checks the result and
// that no temporary file is left behind, then checks a failing Save leaves
// the directory as it was.
func TestSaveReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "index")
	a, _ := sampleIndex(t, Options{}, 100, 1)
	b, _ := sampleIndex(t, Options{}, 200, 2)
	if err := a.Save(path); err != nil {
		t.Fatal(err)
	}
	if err := b.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Len() != b.Len() {
		t.Errorf("Load after second Save: Len %d, want %d", got.Len(), b.Len())
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "index" {
		t.Errorf("directory holds %v, want only index", entries)
	}

	// Renaming over a non-empty directory fails: the temporary file must
	// be removed and the directory left alone.
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub", "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := a.Save(filepath.Join(dir, "sub")); err == nil {
		t.Fatal("Save over a non-empty directory succeeded")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("after failed Save the directory holds %v, want index and sub", entries)
	}
	if err := a.Save(filepath.Join(dir, "missing", "index")); err == nil {
		t.Error("Save into a missing directory succeeded")
	}
}

// FuzzRead checks that no input makes Read panic or return anything but a
// valid index or ErrCorrupt, and that a valid index re-encodes to the same
// bytes.
func FuzzRead(f *testing.F) {
	data := encodedSample(f)
	f.Add(data)
	f.Add(data[:20])
	f.Add([]byte(magic))
	f.Fuzz(func(t *testing.T, in []byte) {
		r := bytes.NewReader(in)
		x, err := Read(r)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Read: err = %v, want ErrCorrupt", err)
			}
			return
		}
		var out bytes.Buffer
		if _, err := x.WriteTo(&out); err != nil {
			t.Fatal(err)
		}
		if read := in[:len(in)-r.Len()]; !bytes.Equal(out.Bytes(), read) {
			t.Fatalf("re-encoded index differs:\n got %x\nwant %x", out.Bytes(), read)
		}
	})
}
