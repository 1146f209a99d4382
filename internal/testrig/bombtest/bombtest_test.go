package bombtest

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"io"
	"testing"
)

// TestStreamsExpand checks that each stream expands to exactly what it
// says, checksums included (small sizes, so the test is quick), and that
// a gibibyte compresses about 1000:1.
func TestStreamsExpand(t *testing.T) {
	for _, n := range []int64{1 << 20, 3 << 20, 9 << 20} {
		s := Deflate([]byte("<p>"), 'a', n, []byte("</p>"))
		want := append(append([]byte("<p>"), bytes.Repeat([]byte("a"), int(s.N))...), "</p>"...)
		check := func(name string, r io.Reader, err error) {
			t.Helper()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got, err := io.ReadAll(r)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("n=%d %s: %d bytes (%v), want %d", n, name, len(got), err, len(want))
			}
		}
		check("deflate", flate.NewReader(bytes.NewReader(s.Deflate)), nil)
		zr, err := zlib.NewReader(bytes.NewReader(s.Zlib()))
		check("zlib", zr, err)
		gr, err := gzip.NewReader(bytes.NewReader(s.Gzip()))
		check("gzip", gr, err)
	}
	if s := Deflate(nil, 0, 1<<30, nil); len(s.Deflate) > 1<<21 || s.Size() != 1<<30 {
		t.Errorf("a GiB of zeros: %d bytes compressed, %d expanded", len(s.Deflate), s.Size())
	}
}

// TestRepeatAndOverlap checks that a repeated unit expands to what the
// stream says, and that every name of an overlapping archive reads the
// one stream.
func TestRepeatAndOverlap(t *testing.T) {
	for _, unit := range []string{"<a>", ` a=""`, "<"} {
		s := Repeat([]byte("<p>"), []byte(unit), 3<<20, []byte("</p>"))
		got, err := io.ReadAll(flate.NewReader(bytes.NewReader(s.Deflate)))
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(got)) != s.Size() || !bytes.HasPrefix(got[3:], bytes.Repeat([]byte(unit), 1000)) || !bytes.HasSuffix(got, []byte(unit+"</p>")) {
			t.Errorf("%q: %d bytes, want %d of the unit repeated", unit, len(got), s.Size())
		}
	}
	s := Deflate(nil, 'x', 2<<20, nil)
	zr, err := zip.NewReader(bytes.NewReader(Overlapping(s, "a", "bb", "ccc")), int64(len(Overlapping(s, "a", "bb", "ccc"))))
	if err != nil {
		t.Fatal(err)
	}
	if len(zr.File) != 3 {
		t.Fatalf("%d members, want 3", len(zr.File))
	}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		n, err := io.Copy(io.Discard, rc)
		if err != nil || n != s.Size() {
			t.Errorf("%s: %d bytes, %v; want %d", f.Name, n, err, s.Size())
		}
	}
}
