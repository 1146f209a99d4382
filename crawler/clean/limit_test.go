package clean

import (
	"bytes"
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
)

// TestParseDecodedLimit: a page in a charset whose bytes take more bytes
// in UTF-8 is decoded to at most MaxBytes, cut at a whole character and
// marked Cut; one that fits is not cut.
func TestParseDecodedLimit(t *testing.T) {
	const limit = 4096
	for _, tc := range []struct {
		name  string
		words int // of "\xe9t\xe9 " (été in windows-1252: 4 bytes, 6 in UTF-8)
		cut   bool
	}{{"fits", 500, false}, {"fits raw, not decoded", 900, true}, {"decoded 10 times the limit", 6800, true}} {
		page := append([]byte("<html><body><p>"), bytes.Repeat([]byte("\xe9t\xe9 "), tc.words)...)
		if len(page) > limit {
			page = page[:limit] // the caller (package hook) cuts the raw body
		}
		p, err := Parse(bytes.NewReader(page), nil, Options{MaxBytes: limit})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if p.Cut != tc.cut || !utf8.ValidString(p.Text) || len(p.Text) > limit || !strings.HasPrefix(p.Text, "été été") {
			t.Errorf("%s: cut %v (want %v), %d bytes of text, valid %v, starts %.20q", tc.name, p.Cut, tc.cut, len(p.Text), utf8.ValidString(p.Text), p.Text)
		}
	}
}

// TestAnchorKeyWordByWord: the key hashed word by word is the hash of
// the lowercased words joined by one space, as before.
func TestAnchorKeyWordByWord(t *testing.T) {
	for _, s := range []string{"", "  ", "Read more", "  READ\tmore\n ", "Éte  ÉTÉ", "a\u00a0b", "\xff\xc3a b", "ǅ İ ẞ"} {
		want := strings.ToLower(strings.Join(strings.Fields(s), " "))
		got, ok := anchorKey(s)
		if got != xxhash.Sum64String(want) || ok != (want != "") {
			t.Errorf("%q: key %x, %v; want the key of %q, %v", s, got, ok, want, want != "")
		}
	}
}

// TestMaxLinks: a bound on links keeps the first ones exactly as an
// unbounded parse reads them (URL, text, nofollow, main content), and
// counts the others by their href: every one that may resolve, none of
// a fragment, javascript: or mailto:.
func TestMaxLinks(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><body><nav><a href="/home">Home</a> <a href="#top">top</a></nav><main><p>The records of the archive, one by one.</p>`)
	for i := range 40 {
		fmt.Fprintf(&b, `<a href="/r/%d" rel="%s">record <b>%d</b></a> <a href="javascript:void(%d)">x</a> `, i, map[bool]string{true: "nofollow"}[i%7 == 0], i, i)
	}
	b.WriteString(`<a href="mailto:a@b">mail</a> <a href="HTTPS://other.example/x"><img alt="Other"></a></main></body></html>`)
	base, _ := url.Parse("http://intra.example/list")
	all, err := Parse(strings.NewReader(b.String()), base, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Links) != 42 || all.LinkCount != 42 {
		t.Fatalf("unbounded: %d links, count %d; want 42", len(all.Links), all.LinkCount)
	}
	for _, max := range []int{1, 10, 41, 42, 100} {
		p, err := Parse(strings.NewReader(b.String()), base, Options{MaxLinks: max})
		if err != nil {
			t.Fatal(err)
		}
		want := all.Links[:min(max, len(all.Links))]
		if !reflect.DeepEqual(p.Links, want) {
			t.Errorf("max %d: links\n%v\nwant the first of the unbounded ones\n%v", max, p.Links, want)
		}
		if p.LinkCount != 42 {
			t.Errorf("max %d: count %d, want 42", max, p.LinkCount)
		}
		if p.Text != all.Text {
			t.Errorf("max %d: the text changed", max)
		}
	}
}
