package bombtest

import (
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
