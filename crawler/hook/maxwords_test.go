package hook

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/crawler/clean"
)

// TestCapWords: a page's blocks, text and tagged text keep their first
// MaxWords words; a page within the bound is left as it is.
func TestCapWords(t *testing.T) {
	for _, tc := range []struct {
		blocks []string
		tagged string
		limit  int
		want   []string
		tag    string
		cut    bool
	}{
		{[]string{"one two", "three"}, "one", 3, []string{"one two", "three"}, "one", false},
		{[]string{"one two", "three four five"}, "", 3, []string{"one two", "three"}, "", true},
		{[]string{"one two", "three"}, "", 2, []string{"one two"}, "", true},
		{[]string{"one, two!"}, "one two three", 1, []string{"one"}, "one", true},
		{[]string{"東京都の会議"}, "", 2, []string{"東京都"}, "", true}, // bigrams: 東京 京都
	} {
		p := &clean.Page{Blocks: slices.Clone(tc.blocks), Text: strings.Join(tc.blocks, "\n\n"), Tagged: tc.tagged}
		cut := capWords(p, tc.limit)
		if cut != tc.cut || !slices.Equal(p.Blocks, tc.want) || p.Text != strings.Join(tc.want, "\n\n") || p.Tagged != tc.tag {
			t.Errorf("%q at %d words: %q %q tagged %q, cut %v; want %q tagged %q, cut %v", tc.blocks, tc.limit, p.Blocks, p.Text, p.Tagged, cut, tc.want, tc.tag, tc.cut)
		}
	}
}

// TestParseMaxWords: Parse cuts a page past Options.MaxWords and says
// so (Truncated).
func TestParseMaxWords(t *testing.T) {
	h, err := New(Options{MaxWords: 1000})
	if err != nil {
		t.Fatal(err)
	}
	header := http.Header{"Content-Type": {"text/html"}}
	for _, n := range []int{999, 5000} {
		p, err := h.Parse("http://intra/p", header, []byte("<html><body><main><p>"+strings.Repeat("word ", n)+"</p></main></body></html>"))
		if err != nil {
			t.Fatal(err)
		}
		if got := len(strings.Fields(p.Text)); got != min(n, 1000) || p.Truncated != (n > 1000) {
			t.Errorf("%d words: kept %d, truncated %v", n, got, p.Truncated)
		}
	}
}

// TestShortWords: a word longer than MaxWordBytes is cut to its first
// MaxWordBytes bytes at a character, in every text field, and the page
// marked truncated; words within the bound are left alone.
func TestShortWords(t *testing.T) {
	long := strings.Repeat("é", 1<<20) // 2 MiB, one word
	for _, tc := range []struct {
		in, want string
		cut      bool
	}{
		{"plain words, " + strings.Repeat("x", MaxWordBytes) + " end", "plain words, " + strings.Repeat("x", MaxWordBytes) + " end", false},
		{"a " + strings.Repeat("x", MaxWordBytes+1) + " b", "a " + strings.Repeat("x", MaxWordBytes) + " b", true},
		{long + " and " + long, strings.Repeat("é", MaxWordBytes/2) + " and " + strings.Repeat("é", MaxWordBytes/2), true},
	} {
		got, cut := shortWordsOf(tc.in, MaxWordBytes)
		if got != tc.want || cut != tc.cut {
			t.Errorf("%.20q…: got %.40q… (%d bytes, cut %v), want %d bytes, cut %v", tc.in, got, len(got), cut, len(tc.want), tc.cut)
		}
	}
	h, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := h.Parse("http://intra.example/a", http.Header{"Content-Type": {"text/html"}},
		[]byte("<html><head><title>T "+long+"</title></head><body><main><h1>H "+long+"</h1><p>Text "+long+"</p></main></body></html>"))
	if err != nil {
		t.Fatal(err)
	}
	if !p.Truncated || len(p.Text) > 600 || len(p.Title) > 300 || len(p.Headings[0]) > 300 || !strings.HasPrefix(p.Text, "H é") {
		t.Errorf("truncated %v, text of %d bytes %.20q, title of %d, heading of %d", p.Truncated, len(p.Text), p.Text, len(p.Title), len(p.Headings[0]))
	}
}
