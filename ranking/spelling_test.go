package ranking

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/internal/demosite"
	"github.com/doppel-search/doppel/internal/tokens"
)

// demoSearcher returns a Searcher over the demo intranet's pages, all
// public, in a scorch index on disk as doppel serves it (Suggest reads
// its dictionary), and the distinct lowercase words of their titles and
// of their titles and text.
func demoSearcher(t testing.TB) (s *Searcher, titleWords []string, vocabulary map[string]bool) {
	t.Helper()
	bi, err := bleve.New(filepath.Join(t.TempDir(), "ix"), indexer.Mapping())
	if err != nil {
		t.Fatal(err)
	}
	ix, err := indexer.Wrap(bi, indexer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close(); bi.Close() })
	ctx := context.Background()
	vocabulary = map[string]bool{}
	seen := map[string]bool{}
	for i, p := range demosite.Pages() {
		d := indexer.Doc{ID: p.Path, URL: "http://127.0.0.1" + p.Path, Title: p.Title, Body: p.Text}
		if err := ix.Add(ctx, d, indexer.Placement{ID: d.ID, Cluster: d.ID, Master: d.ID}); err != nil {
			t.Fatalf("page %d: %v", i, err)
		}
		for _, w := range tokens.Append(nil, p.Title+" "+p.Text) {
			vocabulary[strings.ToLower(w)] = true
		}
		for _, w := range tokens.Append(nil, p.Title) {
			w = strings.ToLower(w)
			if !seen[w] && strings.IndexFunc(w, func(r rune) bool { return r < 'a' || r > 'z' }) < 0 {
				seen[w] = true
				titleWords = append(titleWords, w)
			}
		}
	}
	if err := ix.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	slices.Sort(titleWords)
	return New(ix, Options{}), titleWords, vocabulary
}

// misspell returns w with one random slip: a letter left out, a letter
// added (a keyboard neighbour of the one before), a letter replaced by a
// keyboard neighbour, or two letters swapped.
func misspell(w string, rng *rand.Rand) string {
	r := []rune(w)
	i := rng.IntN(len(r))
	near := func(c rune) rune {
		var ns []rune
		for _, line := range qwerty {
			for _, k := range line {
				if neighbours(c, k) && k >= 'a' {
					ns = append(ns, k)
				}
			}
		}
		if len(ns) == 0 {
			return c
		}
		return ns[rng.IntN(len(ns))]
	}
	switch rng.IntN(4) {
	case 0: // deletion
		return string(slices.Delete(r, i, i+1))
	case 1: // insertion
		return string(slices.Insert(r, i+1, near(r[i])))
	case 2: // substitution by a keyboard neighbour
		r[i] = near(r[i])
		return string(r)
	}
	if i == len(r)-1 {
		i--
	}
	r[i], r[i+1] = r[i+1], r[i] // transposition
	return string(r)
}

// TestSpellingOnDemo measures Suggest on misspellings generated
// deterministically from the demo's title words (of four letters or
// more at one edit, six or more at two; a slip that makes another word
// of the demo is skipped) and on correctly spelled words of its titles
// and text, and
// checks the cases people reported.
func TestSpellingOnDemo(t *testing.T) {
	s, words, vocabulary := demoSearcher(t)
	ctx := context.Background()
	for _, tc := range []struct{ q, want string }{
		{"pritner", "printer"},
		{"printr", "printer"},
		{"holliday", "holidays"},
		{"vpm", "vpn"},
		{"laptp", "laptop"},
		{"site:127.0.0.1", ""},
		{"site:127.0.0.1 pritner", "site:127.0.0.1 printer"},
		{`"pritner" laptp`, `"pritner" laptop`},
	} {
		if got, err := s.Suggest(ctx, tc.q, nil); err != nil || got != tc.want {
			t.Errorf("Suggest(%q) = %q, %v; want %q", tc.q, got, err, tc.want)
		}
	}

	rng := rand.New(rand.NewPCG(39, 2))
	for _, tc := range []struct {
		edits, minLen int
		floor         float64
	}{
		{1, 4, 0.97}, // measured 0.985
		{2, 6, 0.93}, // measured 0.953
	} {
		tried, fixed := 0, 0
		var missed []string
		for _, w := range words {
			if len(w) < tc.minLen {
				continue
			}
			typo := w
			for range tc.edits {
				typo = misspell(typo, rng)
			}
			if vocabulary[typo] {
				continue
			}
			tried++
			got, err := s.Suggest(ctx, typo, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got == w {
				fixed++
			} else if len(missed) < 10 {
				missed = append(missed, typo+"→"+got+" (not "+w+")")
			}
		}
		share := float64(fixed) / float64(tried)
		t.Logf("%d edit(s): %d of %d corrected (%.3f); missed e.g. %v", tc.edits, fixed, tried, share, missed)
		if tried < 50 || share < tc.floor {
			t.Errorf("%d edit(s): %d of %d corrected (%.3f), want at least %.2f", tc.edits, fixed, tried, share, tc.floor)
		}
	}

	// Correctly spelled: every title word, and every fourth other word
	// of the text (letters only, three or more).
	correct := slices.Clone(words)
	var text []string
	for w := range vocabulary {
		if len(w) >= 3 && !slices.Contains(words, w) && strings.IndexFunc(w, func(r rune) bool { return r < 'a' || r > 'z' }) < 0 {
			text = append(text, w)
		}
	}
	slices.Sort(text)
	for i := 0; i < len(text); i += 4 {
		correct = append(correct, text[i])
	}
	quiet := 0
	var loud []string
	for _, w := range correct {
		got, err := s.Suggest(ctx, w, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got == "" {
			quiet++
		} else {
			loud = append(loud, w+"→"+got)
		}
	}
	share := float64(quiet) / float64(len(correct))
	t.Logf("correct words: %d of %d get no suggestion (%.3f); %v", quiet, len(correct), share, loud)
	if share < 0.99 {
		t.Errorf("correct words: %d of %d get no suggestion (%.3f), want at least 0.99", quiet, len(correct), share)
	}
}

// BenchmarkCompleteDemo times completions of what people type on the
// demo — the first two to five letters of a title word, alone and after
// the title's word before it — beside the search for the whole word, as
// a reference; it reports each one's median and 99th percentile.
func BenchmarkCompleteDemo(b *testing.B) {
	s, words, _ := demoSearcher(b)
	var typed []string
	for i, w := range words {
		for n := 2; n <= min(5, len(w)); n++ {
			typed = append(typed, w[:n])
			if i > 0 {
				typed = append(typed, words[i-1]+" "+w[:n])
			}
		}
	}
	rand.New(rand.NewPCG(39, 3)).Shuffle(len(typed), func(i, j int) { typed[i], typed[j] = typed[j], typed[i] })
	ctx := context.Background()
	run := func(b *testing.B, do func(q string) error) {
		var lat []time.Duration
		i := 0
		for b.Loop() {
			start := time.Now()
			if err := do(typed[i%len(typed)]); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(start))
			i++
		}
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50_ms")
		b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Microseconds())/1000, "p99_ms")
	}
	b.Run("complete", func(b *testing.B) {
		run(b, func(q string) error { _, err := s.Complete(ctx, q, nil); return err })
	})
	b.Run("search-reference", func(b *testing.B) {
		run(b, func(q string) error { _, err := s.Search(ctx, Request{Query: q}); return err })
	})
}
