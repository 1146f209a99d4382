package indexer

import (
	"slices"
	"strings"
	"testing"
)

func TestTitleKeys(t *testing.T) {
	for _, tc := range []struct {
		title string
		want  []string
	}{
		{"", nil},
		{" - ", nil},
		{"Holiday policy", []string{"holiday policy"}},
		{"_mm512_slli_epi16 in core::arch::x86_64 - Rust",
			[]string{"mm512 slli epi16 in core arch x86 64 rust", "mm512 slli epi16 in core arch x86 64", "mm512 slli epi16"}},
		{"core::iter - Rust", []string{"core iter rust", "core iter"}},
		{"unsafe - The Rust Programming Language", []string{"unsafe the rust programming language", "unsafe"}},
		{"PostgreSQL: Documentation: 15: CREATE TABLE", []string{"postgresql documentation 15 create table", "create table"}},
		{"EscapeUnicode in std::char - Rust", []string{"escapeunicode in std char rust", "escapeunicode in std char", "escapeunicode"}},
		{"Parental leave in Denmark", []string{"parental leave in denmark"}}, // a first word that is no identifier
		{"mod_rewrite - Apache HTTP Server Version 2.4", []string{"mod rewrite apache http server version 2 4", "mod rewrite"}},
		{"Apache | Docs | Intro", []string{"apache docs intro", "apache docs"}},
		{"Filecmp — File and Directory Comparisons - Intranet Wiki",
			[]string{"filecmp file and directory comparisons intranet wiki", "filecmp file and directory comparisons", "filecmp"}},
		{"Copy of Filecmp — File and Directory Comparisons - Intranet Wiki",
			[]string{"copy of filecmp file and directory comparisons intranet wiki", "copy of filecmp file and directory comparisons", "copy of filecmp"}},
		{"Filecmp — File and Directory Comparisons", []string{"filecmp file and directory comparisons", "filecmp"}},
		{"会議室の予約", []string{"会議 議室 室の の予 予約"}},
	} {
		if got := TitleKeys(tc.title); !slices.Equal(got, tc.want) {
			t.Errorf("TitleKeys(%q) = %q, want %q", tc.title, got, tc.want)
		}
	}
}

func TestNameKey(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"", ""},
		{"  --  ", ""},
		{"_mm512_slli_epi16", "mm512 slli epi16"},
		{"Core::Iter", "core iter"},
		{"core  iter\t-\tRust", "core iter rust"},
	} {
		if got := NameKey(tc.text); got != tc.want {
			t.Errorf("NameKey(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
	long := ""
	for range 100 {
		long += "word "
	}
	if k := NameKey("a " + strings.Repeat("x", 300) + " tail"); k != "a" {
		t.Errorf("NameKey of a word too long for the key between two: %q, want the words before it", k)
	}
	if k := NameKey(long); len(k) > maxNameKey || k[len(k)-1] == ' ' || len(k) < maxNameKey-5 {
		t.Errorf("NameKey of a long text: %d bytes %q…, want its first whole words within %d", len(k), k[:20], maxNameKey)
	}
}

func FuzzTitleKeys(f *testing.F) {
	for _, s := range []string{"core::iter - Rust", "a: b: c", "_x_ y", "会議 - x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, title string) {
		for _, k := range TitleKeys(title) {
			if k == "" || len(k) > maxNameKey || NameKey(k) != k {
				t.Errorf("TitleKeys(%q) holds %q: not a name key", title, k)
			}
		}
	})
}
