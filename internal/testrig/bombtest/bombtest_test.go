package bombtest

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"io"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
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

// TestBrotliAndZstd checks that the brotli and zstd forms of a stream
// expand to exactly what it says (small sizes, so the test is quick),
// in one zstd frame or several, after skippable frames, and that a
// gibibyte is small in both.
func TestBrotliAndZstd(t *testing.T) {
	dec, err := zstd.NewReader(nil, zstd.WithDecoderMaxWindow(1<<31))
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	for _, n := range []int64{1 << 20, 5 << 20, 20 << 20} {
		s := HTML(n)
		want := append(append(bytes.Clone(s.Prefix), bytes.Repeat(s.Fill, int(s.N))...), s.Suffix...)
		for _, tc := range []struct {
			name string
			data []byte
		}{
			{"brotli", s.Brotli()},
			{"zstd", s.Zstd(ZstdOptions{})},
			{"zstd 3 frames", s.Zstd(ZstdOptions{Frames: 3})},
			{"zstd single segment", s.Zstd(ZstdOptions{SingleSegment: true})},
			{"zstd window 2^30", s.Zstd(ZstdOptions{WindowLog: 30})},
			{"zstd after skippable frames", append(ZstdSkippable(5, 1000), s.Zstd(ZstdOptions{})...)},
		} {
			var got []byte
			var err error
			if tc.name == "brotli" {
				got, err = io.ReadAll(brotli.NewReader(bytes.NewReader(tc.data)))
			} else {
				got, err = dec.DecodeAll(tc.data, nil)
			}
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("n=%d %s: %d bytes (%v), want %d", n, tc.name, len(got), err, len(want))
			}
		}
	}
	s := HTML(1 << 30)
	if b, z := s.Brotli(), s.Zstd(ZstdOptions{}); len(b) > 1<<20 || len(z) > 1<<20 {
		t.Errorf("a GiB of spaces: %d bytes as brotli, %d as zstd, want at most 1 MiB", len(b), len(z))
	}
}
