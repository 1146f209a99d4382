package eval

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/dedup/features"
	"github.com/doppel-search/doppel/internal/testrig/long"
)

// bruteForce lists every pair of docs at or above minSim by comparing all
// pairs with package features, in the order ComputeTruth promises.
func bruteForce(docs []Doc, minSim float64) []LabeledPair {
	shingles := make([][]uint64, len(docs))
	words := make([][]uint64, len(docs))
	for i, d := range docs {
		tokens := features.Tokens(d.Text)
		shingles[i] = features.Set(features.Shingles(tokens, 5))
		if w := features.CosineWords(tokens); len(w) >= features.MinCosineWords {
			words[i] = w
		}
	}
	var out []LabeledPair
	for a := range docs {
		for b := a + 1; b < len(docs); b++ {
			j := features.Resemblance(shingles[a], shingles[b])
			c := features.Cosine(words[a], words[b])
			if j >= minSim || c >= minSim {
				out = append(out, LabeledPair{docs[a].ID, docs[b].ID, j, c})
			}
		}
	}
	return out
}

// vocabulary mixes words that are and are not cosine words: short ones,
// ones with two digits, and non-ASCII ones whose byte length is 4 or more
// but rune length below 4.
var vocabulary = strings.Fields(`the of a to in is it and rust crate borrow
	owner trait lifetime vector string slice struct enum match closure
	iterator module macro unsafe thread channel mutex x86 utf8 2018 ab12
	naïve héé 日本語 日本語テキスト straße Ölgemälde`)

// randomCorpus returns n documents made of edited copies of a few random
// base texts, so that similarities cover the whole range: identical texts,
// light and heavy edits, short texts (fewer than 5 tokens or cosine words)
// and empty ones.
func randomCorpus(rng *rand.Rand, n int) []Doc {
	var bases [][]string
	for range 1 + n/8 {
		words := make([]string, rng.IntN(120))
		for k := range words {
			words[k] = vocabulary[rng.IntN(len(vocabulary))]
		}
		bases = append(bases, words)
	}
	docs := make([]Doc, n)
	for i := range docs {
		base := bases[rng.IntN(len(bases))]
		rate := []float64{0, 0.02, 0.05, 0.1, 0.3}[rng.IntN(5)]
		var words []string
		for _, w := range base {
			if rng.Float64() >= rate {
				words = append(words, w)
				continue
			}
			switch rng.IntN(3) {
			case 0: // delete
			case 1:
				words = append(words, vocabulary[rng.IntN(len(vocabulary))])
			case 2:
				words = append(words, w, vocabulary[rng.IntN(len(vocabulary))])
			}
		}
		if rng.IntN(10) == 0 {
			words = words[:min(len(words), rng.IntN(6))]
		}
		sep := []string{" ", "\n", ", ", "::"}[rng.IntN(4)]
		docs[i] = Doc{ID: fmt.Sprintf("d%03d", rng.IntN(1000)*1000+i), Text: strings.Join(words, sep)}
	}
	return docs
}

// TestComputeTruthOracle checks ComputeTruth against the all-pairs brute
// force on random corpora at many thresholds: same pairs, same order, the
// same float64 values. 12 corpora, 30 with DOPPEL_LONG=1.
func TestComputeTruthOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range long.N(12, 30) {
		docs := randomCorpus(rng, 10+rng.IntN(150))
		for _, minSim := range []float64{1, 0.95, 0.9, 0.8, 0.64, 0.5, 0.3, 0.1, 0.01, 0.25 + rng.Float64()*0.75} {
			want := bruteForce(docs, minSim)
			got, err := ComputeTruth(docs, minSim, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Pairs(), want) {
				t.Fatalf("trial %d, %d docs, minSim %v: got %d pairs, want %d\n got  %v\n want %v",
					trial, len(docs), minSim, got.Len(), len(want), head(got.Pairs()), head(want))
			}
		}
	}
}

// head returns the first pairs of ps, for error messages.
func head(ps []LabeledPair) []LabeledPair { return ps[:min(len(ps), 5)] }

// TestComputeTruthDefinitions checks the corpus rules on hand-made
// documents: texts under 5 tokens use their token set, texts with under 5
// cosine words have cosine 0, empty texts match nothing.
func TestComputeTruthDefinitions(t *testing.T) {
	long := "ownership borrowing lifetimes traits generics closures iterators"
	docs := []Doc{
		{"empty1", ""},
		{"empty2", "  ... "},
		{"short1", "Hello, World"},       // 2 tokens: set {hello, world}
		{"short2", "world hello"},        // same token set
		{"few1", "a b c d e f g h rust"}, // 1 cosine word
		{"few2", "a b c d e f g h rust"},
		{"long1", long},
		{"long2", long + " " + long}, // same cosine words, other shingles
	}
	got, err := ComputeTruth(docs, 0.5, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []LabeledPair{
		{"short1", "short2", 1, 0},
		{"few1", "few2", 1, 0},
		{"long1", "long2", 3.0 / 7, 1},
	}
	if !slices.Equal(got.Pairs(), want) {
		t.Errorf("got %v, want %v", got.Pairs(), want)
	}
}

func TestComputeTruthErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		docs   []Doc
		minSim float64
		want   error
	}{
		{"zero threshold", nil, 0, ErrThreshold},
		{"negative threshold", nil, -0.5, ErrThreshold},
		{"threshold above 1", nil, 1.01, ErrThreshold},
		{"NaN threshold", nil, math.NaN(), ErrThreshold},
		{"empty id", []Doc{{"a", "x"}, {"", "y"}}, 0.8, ErrEmptyID},
		{"duplicate id", []Doc{{"a", "x"}, {"b", "y"}, {"a", "z"}}, 0.8, ErrDuplicateID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ComputeTruth(tc.docs, tc.minSim, nil); !errors.Is(err, tc.want) {
				t.Errorf("got %v, want %v", err, tc.want)
			}
		})
	}
	if got, err := ComputeTruth(nil, 0.8, nil); err != nil || got.Len() != 0 {
		t.Errorf("no documents: got %v pairs, %v", got, err)
	}
}

// TestComputeTruthProgress checks that progress counts every document once,
// in order, with the right total.
func TestComputeTruthProgress(t *testing.T) {
	docs := randomCorpus(rand.New(rand.NewPCG(3, 4)), 100)
	var calls []int
	if _, err := ComputeTruth(docs, 0.8, func(done, total int) {
		if total != len(docs) {
			t.Errorf("total %d, want %d", total, len(docs))
		}
		calls = append(calls, done)
	}); err != nil {
		t.Fatal(err)
	}
	for k, done := range calls {
		if done != k+1 {
			t.Fatalf("call %d reported done = %d", k, done)
		}
	}
	if len(calls) != len(docs) {
		t.Errorf("%d calls, want %d", len(calls), len(docs))
	}
}
