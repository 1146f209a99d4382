package features

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/doppel-search/doppel/internal/tokens"
)

func TestTokens(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"  ,;  ", nil},
		{"Vec<T>::new()", []string{"vec", "t", "new"}},
		{"x86_64", []string{"x86", "64"}},
		{"Hello, World!", []string{"hello", "world"}},
		{"Ünïcödé ÉTÉ straße", []string{"ünïcödé", "été", "straße"}},
		{"日本語のテキスト", []string{"日本", "本語", "語の", "のテ", "テキ", "キス", "スト"}},
		{"a\xffb", []string{"a", "b"}}, // invalid UTF-8 separates
		{"٣٤٥ digits", []string{"٣٤٥", "digits"}},
		{"end", []string{"end"}},
	}
	for _, tt := range tests {
		if got := Tokens(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Tokens(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// tokensOracle is the definition written the slow, obvious way.
func tokensOracle(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		if r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			cur = append(cur, r)
		} else {
			flush()
		}
	}
	flush()
	return out
}

func FuzzTokens(f *testing.F) {
	for _, s := range []string{"Vec<T>::new()", "x86_64", "Ünï\xffcödé", "", "A-B c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, want := Tokens(s), tokensOracle(s)
		if !slices.Equal(got, want) {
			t.Fatalf("Tokens(%q) = %q, oracle %q", s, got, want)
		}
	})
}

func TestExtractor(t *testing.T) {
	text := "The printers were printing on Monday 12 March 2024, v2 ready"
	// Number tokens go with StripNumbers; identifiers with digits (v2) stay.
	tests := []struct {
		name string
		opts Options
		want []string
	}{
		{"default", Options{}, []string{"the", "printers", "were", "printing", "on", "monday", "12", "march", "2024", "v2", "ready"}},
		{"stop", Options{StopWords: true}, []string{"printers", "printing", "monday", "12", "march", "2024", "v2", "ready"}},
		{"numbers", Options{StripNumbers: true}, []string{"the", "printers", "were", "printing", "on", "monday", "march", "v2", "ready"}},
		{"dates", Options{StripDates: true}, []string{"the", "printers", "were", "printing", "on", "v2", "ready"}},
		{"numbers and dates", Options{StripNumbers: true, StripDates: true}, []string{"the", "printers", "were", "printing", "on", "v2", "ready"}},
		{"stem", Options{Stem: true, StopWords: true, StripNumbers: true, StripDates: true}, []string{"printer", "print", "v2", "readi"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := New(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := e.Terms(text); !slices.Equal(got, tt.want) {
				t.Errorf("Terms = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFeaturesNGrams(t *testing.T) {
	terms := []string{"a", "b", "c", "d"}
	tests := []struct {
		ngrams []int
		want   []string
	}{
		{nil, []string{"a", "b", "c", "d"}},
		{[]int{3}, []string{"a b c", "b c d"}},
		{[]int{1, 3}, []string{"a", "b", "c", "d", "a b c", "b c d"}},
		{[]int{3, 5}, []string{"a b c", "b c d"}},
		{[]int{5}, []string{"a", "b", "c", "d"}}, // too short: falls back to terms
	}
	for _, tt := range tests {
		e, err := New(Options{NGrams: tt.ngrams})
		if err != nil {
			t.Fatal(err)
		}
		if got := e.Features(terms); !slices.Equal(got, tt.want) {
			t.Errorf("NGrams %v: Features = %q, want %q", tt.ngrams, got, tt.want)
		}
	}
	if _, err := New(Options{NGrams: []int{0}}); err == nil {
		t.Error("New with n-gram size 0: want error")
	}
}

func TestShinglesAndResemblance(t *testing.T) {
	a := Tokens("a rose is a rose is a rose")
	sh := Shingles(a, 4)
	if len(sh) != 5 {
		t.Fatalf("len(Shingles) = %d, want 5", len(sh))
	}
	// Broder's example: {(a,rose,is,a), (rose,is,a,rose), (is,a,rose,is)}.
	if set := Set(sh); len(set) != 3 {
		t.Errorf("distinct 4-shingles = %d, want 3", len(set))
	}
	short := Shingles([]string{"only", "two"}, 5)
	if !slices.Equal(short, []uint64{HashTerm("only"), HashTerm("two")}) {
		t.Errorf("short document shingles = %v, want its token hashes", short)
	}
	if Shingles(nil, 5) == nil || len(Shingles(nil, 5)) != 0 {
		t.Errorf("Shingles(nil) should be empty, non-nil")
	}
	if x, y := Shingles([]string{"a", "b", "c", "d", "e"}, 5), Shingles([]string{"b", "a", "c", "d", "e"}, 5); x[0] == y[0] {
		t.Errorf("shingle hash ignores token order")
	}
	if x, y := Shingles([]string{"ab", "c"}, 2), Shingles([]string{"a", "bc"}, 2); x[0] == y[0] {
		t.Errorf("shingle hash ignores token boundaries")
	}
	x := Set([]uint64{1, 2, 3, 4})
	y := Set([]uint64{3, 4, 5, 6, 4})
	if got := Resemblance(x, y); got != 2.0/6 {
		t.Errorf("Resemblance = %v, want 1/3", got)
	}
	if got := Cosine(x, y); math.Abs(got-2/math.Sqrt(16)) > 1e-12 {
		t.Errorf("Cosine = %v, want %v", got, 2/math.Sqrt(16))
	}
	if Resemblance(nil, nil) != 0 || Cosine(nil, x) != 0 {
		t.Error("empty sets must have similarity 0")
	}
}

func TestCosineWords(t *testing.T) {
	got := CosineWords(Tokens("the quick brown fox x8664 abc1 a1b2 jumps jumps über"))
	want := Set([]uint64{HashTerm("quick"), HashTerm("brown"), HashTerm("abc1"), HashTerm("jumps"), HashTerm("über")})
	if !slices.Equal(got, want) {
		t.Errorf("CosineWords = %v, want %v", got, want)
	}
}

func BenchmarkTokens(b *testing.B) {
	text := strings.Repeat("Doppel finds near-duplicate pages: printer-friendly copies, mirrors, x86_64 builds. ", 200)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	var buf []string
	for b.Loop() {
		buf = AppendTokens(buf[:0], text)
	}
}

func TestStripDates(t *testing.T) {
	e, err := New(Options{StripDates: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ text, want string }{
		{"Cafeteria notice for the week starting Monday 2 March 2026.", "cafeteria notice for the week starting"},
		{"Payroll cut-off for March 2026: by Wednesday 18 March 2026 at noon", "payroll cut off for by at noon"},
		{"Released on March 2nd, 2026 and on 2026-03-02 and on 02/03/2026 and 3/2/2026", "released on and on and on and"},
		{"Function core::arch::x86_64::_mm_floor_ps 1.27.0 source", "function core arch x86 64 mm floor ps 1 27 0 source"},
		{"Page 3 of 12, build 2026, 40 12 12", "page 3 of 12 build 2026 40 12 12"},
		{"Build 2026 12 12", "build"}, // reads as a date
		{"No events are planned for 2026-03 or 04/2027.", "no events are planned for or"},
		{"It may be 5 or 10 pm", "it may be 5 or 10 pm"},
		{"pub fn i16x8_add_sat(a: v128) on sat 2 and every Monday in March", "pub fn i16x8 add sat a v128 on sat 2 and every monday in march"},
		{"Due on Friday, 3 April 2026 (or Fri 4 Apr)", "due on or"},
		{"会議は2026年3月2日に開きます", "会議 議は 日に に開 開き きま ます"},
		{"3月2日（月）の予定", "の予 予定"},
		{"2026년 3월 2일 회의", "회의"},
		{"第3版 3年 5日間", "第 3 版 3 年 5 日間"}, // one unit alone is not a date
		{"2026年13月", "2026 年 13 月"},      // no month 13
	} {
		if got := strings.Join(e.Terms(tc.text), " "); got != tc.want {
			t.Errorf("Terms(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// BenchmarkStripDates times FilterTokens with StripDates on text of a
// page with a dated line among undated ones, next to the same filter
// dropping numbers instead (the reference: a filter of one pass).
func BenchmarkStripDates(b *testing.B) {
	text := strings.Repeat("Doppel finds near-duplicate pages: printer-friendly copies, mirrors, x86_64 builds of version 1.27. ", 40) +
		"Last updated on Monday 2 March 2026 at 10:15."
	tokens := Tokens(text)
	for _, c := range []struct {
		name string
		opts Options
	}{{"strip", Options{StripDates: true}}, {"reference", Options{StripNumbers: true}}} {
		b.Run(c.name, func(b *testing.B) {
			e, err := New(c.opts)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(text)))
			var out []string
			for b.Loop() {
				out = e.FilterTokens(append(out[:0], tokens...))
			}
		})
	}
}

// TestAppendTokensLowercases checks that AppendTokens gives the tokens of
// tokens.Append (each non-lowercase one lowercased on its own by
// strings.ToLower): ASCII capitals, non-ASCII letters that lowercase to
// another length, CJK bigrams, digits, invalid UTF-8, into a buffer that
// already holds tokens.
func TestAppendTokensLowercases(t *testing.T) {
	for _, text := range []string{
		"",
		"plain lower words only",
		"The Quick BROWN fox, HashMap<K, V>::Entry and impl Iterator for Vec",
		"İstanbul ΣΊΣΥΦΟΣ Straße ǅemal ÀÉÎ mixed ASCII Then ÜBER",
		"東京タワーは Tokyo Tower 서울 Seoul 々",
		"x509 CVE-2026-1234 0xFF \xff\xfeBAD\xc3 bytes",
		strings.Repeat("CamelCaseToken ", 300),
	} {
		want := tokens.Append([]string{"kept"}, text)
		got := AppendTokens([]string{"kept"}, text)
		if !slices.Equal(got, want) {
			t.Errorf("%.40q: got %q, want %q", text, got, want)
		}
	}
}
