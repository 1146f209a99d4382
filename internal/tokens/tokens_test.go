package tokens

import (
	"slices"
	"strings"
	"testing"
	"unicode"
)

// TestTokens: the definition's tables (the shared corpus README's
// examples among them), by script.
func TestTokens(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     []string
	}{
		{"latin", "Hello, World!", []string{"hello", "world"}},
		{"code", "Vec<T>::new() x86_64", []string{"vec", "t", "new", "x86", "64"}},
		{"accents", "Ünïcode ÄÖ straße 42", []string{"ünïcode", "äö", "straße", "42"}},
		{"empty", "  ", nil},
		{"mixed (README)", "東京都の会議room2", []string{"東京", "京都", "都の", "の会", "会議", "room2"}},
		{"chinese", "会议在十点开始。", []string{"会议", "议在", "在十", "十点", "点开", "开始"}},
		{"lone character", "会 議", []string{"会", "議"}},
		{"hangul", "서울 회의실 A동", []string{"서울", "회의", "의실", "a", "동"}},
		{"kana with ー", "コーヒーを飲む", []string{"コー", "ーヒ", "ヒー", "ーを", "を飲", "飲む"}},
		{"々", "時々", []string{"時々"}},
		{"kana punctuation separates", "東京・大阪", []string{"東京", "大阪"}},
		{"date", "2026年3月2日", []string{"2026", "年", "3", "月", "2", "日"}},
		{"cjk then latin then cjk", "第3版Doppel検索", []string{"第", "3", "版", "doppel", "検索"}},
		{"greek and cyrillic", "Αθήνα Москва", []string{"αθήνα", "москва"}},
		{"invalid utf-8", "ab\xffcd", []string{"ab", "cd"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Append(nil, c.in); !slices.Equal(got, c.want) {
				t.Errorf("Append(%q) = %q, want %q", c.in, got, c.want)
			}
			if got := oracle(c.in); !slices.Equal(got, c.want) {
				t.Errorf("the oracle gives %q for %q, the table %q: fix the table", got, c.in, c.want)
			}
		})
	}
}

// oracle is the definition written as plainly as possible, rune by rune
// (the corpus's reference implementation does the same): the fast Scan
// must agree with it on any input.
func oracle(text string) []string {
	var out []string
	var run []rune
	cjk := false
	flush := func() {
		switch {
		case len(run) == 0:
		case !cjk:
			out = append(out, strings.ToLower(string(run)))
		case len(run) == 1:
			out = append(out, string(run))
		default:
			for k := 0; k+1 < len(run); k++ {
				out = append(out, string(run[k:k+2]))
			}
		}
		run = run[:0]
	}
	for _, r := range text {
		alnum := unicode.IsLetter(r) || unicode.IsDigit(r)
		isCJK := alnum && IsCJK(r)
		if len(run) > 0 && (!alnum || isCJK != cjk) {
			flush()
		}
		if alnum {
			if len(run) == 0 {
				cjk = isCJK
			}
			run = append(run, r)
		}
	}
	flush()
	return out
}

// TestScanRanges: every token is the lowercased text of its range, and
// ranges are in order.
func TestScanRanges(t *testing.T) {
	text := "Straße 東京都の会議 room2 서울"
	last := -1
	var got []string
	Scan(text, func(start, end int, lower bool) {
		if start < last || end <= start {
			t.Errorf("range [%d,%d) after start %d", start, end, last)
		}
		last = start
		tok := text[start:end]
		if !lower {
			tok = strings.ToLower(tok)
		} else if tok != strings.ToLower(tok) {
			t.Errorf("%q reported lowercase", tok)
		}
		got = append(got, tok)
	})
	if want := oracle(text); !slices.Equal(got, want) {
		t.Errorf("Scan gives %q, want %q", got, want)
	}
}

func FuzzTokens(f *testing.F) {
	for _, s := range []string{"東京都の会議room2", "Vec<T>::new()", "コーヒー・紅茶", "a\xffb", "서울 A동", "ǅemal"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Append(nil, s), oracle(s); !slices.Equal(got, want) {
			t.Fatalf("Append(%q) = %q, the definition says %q", s, got, want)
		}
	})
}

func BenchmarkAppend(b *testing.B) {
	text := strings.Repeat("The committee meets at ten o'clock in room 2.04; 会議は十時に始まります。 ", 200)
	b.SetBytes(int64(len(text)))
	var buf []string
	for b.Loop() {
		buf = Append(buf[:0], text)
	}
}

// TestIsCJKEveryRune: IsCJK's shortcut below U+1100 changes nothing.
func TestIsCJKEveryRune(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		want := unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
			(r >= 0x3040 && r <= 0x30FF) || r == 0x3005
		if IsCJK(r) != want {
			t.Fatalf("IsCJK(%U) = %v, want %v", r, !want, want)
		}
	}
}
