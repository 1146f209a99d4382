package imatch

import (
	"cmp"
	"crypto/sha1"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/doppel-search/doppel/dedup/features"
	"github.com/doppel-search/doppel/dedup/stats"
)

// tiny is a hand-built collection of 10 documents over the terms a1, b1,
// ..., a10, b10, where the terms aD and bD occur in exactly D documents
// (documents 0..D-1), so their normalized idf is 1 − log10(D):
//
//	D     1    2     3     4     5     6     7     8     9     10
//	nidf  1   .699  .523  .398  .301  .222  .155  .097  .046   0
func tiny() [][]string {
	docs := make([][]string, 10)
	for d := 1; d <= 10; d++ {
		for i := range d {
			docs[i] = append(docs[i], fmt.Sprintf("a%d", d), fmt.Sprintf("b%d", d))
		}
	}
	return docs
}

func tableOf(docs [][]string) *stats.Table {
	var b stats.Builder
	for _, d := range docs {
		b.Add(d)
	}
	return b.Table()
}

// bruteNIDF computes every term's normalized idf from the raw documents,
// independently of package stats.
func bruteNIDF(docs [][]string) map[string]float64 {
	df := map[string]int{}
	for _, d := range docs {
		seen := map[string]bool{}
		for _, t := range d {
			if !seen[t] {
				seen[t] = true
				df[t]++
			}
		}
	}
	n := float64(len(docs))
	out := map[string]float64{}
	for t, f := range df {
		out[t] = math.Log(n/float64(f)) / math.Log(n)
	}
	return out
}

// lexiconHashes returns the term hashes of lexicon i of s.
func lexiconHashes(s *Signer, i int) map[uint64]bool {
	out := map[uint64]bool{}
	in := func(slot int) bool { return i == 0 || s.extra[i-1][slot/64]&(1<<(slot%64)) != 0 }
	for slot, h := range s.main.keys {
		if h != 0 && in(slot) {
			out[h] = true
		}
	}
	if s.main.hasZero && in(len(s.main.keys)) {
		out[0] = true
	}
	return out
}

// oracleDigest is the signature definition written out directly.
func oracleDigest(terms []string) Signature {
	terms = slices.Clone(terms)
	slices.Sort(terms)
	terms = slices.Compact(terms)
	var sb strings.Builder
	for _, t := range terms {
		sb.WriteString(t)
		sb.WriteByte(0)
	}
	return sha1.Sum([]byte(sb.String()))
}

// oracleSign signs doc for lexicon set lex (by term) the slow, obvious way:
// below holds the secondary terms' nidf (nil entries are not secondary).
func oracleSign(doc []string, inLex func(string) bool, nidf func(string) float64, isBelow func(string) bool, minTerms int) (Signature, bool) {
	uniq := slices.Compact(slices.Sorted(slices.Values(doc)))
	var sel, below []string
	for _, t := range uniq {
		if inLex(t) {
			sel = append(sel, t)
		} else if isBelow(t) {
			below = append(below, t)
		}
	}
	slices.SortStableFunc(below, func(a, b string) int { return cmp.Compare(nidf(a), nidf(b)) })
	for len(sel) < minTerms && len(below) > 0 {
		sel, below = append(sel, below[0]), below[1:]
	}
	if len(sel) < minTerms {
		return Signature{}, false
	}
	return oracleDigest(sel), true
}

func TestOptions(t *testing.T) {
	tests := []struct {
		opts    Options
		ok      bool
		lo, hi  float64
		minTerm int
		seed    uint64
	}{
		{Options{}, true, 0.2, 0.8, 5, 1},
		{Options{MinNIDF: 0.3}, true, 0.3, 0.8, 5, 1},
		{Options{MaxNIDF: 0.5}, true, 0, 0.5, 5, 1},
		{Options{MinNIDF: 0.1, MaxNIDF: 1, MinTerms: 1, Seed: 7}, true, 0.1, 1, 1, 7},
		{Options{Mode: IDFL10, ExtraLexicons: 10}, true, 0.2, 0.8, 5, 1},
		{Options{Mode: DocL90}, true, 0.2, 0.8, 5, 1},
		{Options{MinNIDF: 0.9}, false, 0, 0, 0, 0}, // above the default max
		{Options{MinNIDF: 0.6, MaxNIDF: 0.5}, false, 0, 0, 0, 0},
		{Options{MinNIDF: -0.1}, false, 0, 0, 0, 0},
		{Options{MaxNIDF: 1.5}, false, 0, 0, 0, 0},
		{Options{MaxNIDF: math.NaN()}, false, 0, 0, 0, 0},
		{Options{MinTerms: -1}, false, 0, 0, 0, 0},
		{Options{ExtraLexicons: -1}, false, 0, 0, 0, 0},
		{Options{Mode: DocL90, ExtraLexicons: 1}, false, 0, 0, 0, 0},
		{Options{Mode: 3}, false, 0, 0, 0, 0},
	}
	for _, tt := range tests {
		err := tt.opts.Validate()
		if (err == nil) != tt.ok {
			t.Errorf("%+v.Validate() = %v, want ok=%v", tt.opts, err, tt.ok)
			continue
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "imatch: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
			continue
		}
		d := *tt.opts.EnsureDefaults()
		if d.MinNIDF != tt.lo || d.MaxNIDF != tt.hi || d.MinTerms != tt.minTerm || d.Seed != tt.seed {
			t.Errorf("%+v with defaults = %+v", tt.opts, d)
		}
	}
	for m, want := range map[Mode]string{Range: "range", IDFL10: "idf-l-10", DocL90: "doc-l-90", 7: "Mode(7)"} {
		if m.String() != want {
			t.Errorf("Mode(%d).String() = %q, want %q", int(m), m.String(), want)
		}
	}
}

func TestNewSignerErrors(t *testing.T) {
	if _, err := NewSigner(nil, Options{}); !errors.Is(err, ErrNoStats) {
		t.Errorf("nil table: err = %v, want ErrNoStats", err)
	}
	if _, err := NewSigner(tableOf([][]string{{"a"}}), Options{}); !errors.Is(err, ErrNoStats) {
		t.Errorf("one-document table: err = %v, want ErrNoStats", err)
	}
	if _, err := NewSigner(tableOf(tiny()), Options{MinTerms: -1}); err == nil {
		t.Error("invalid options: want error")
	}
}

func TestLexiconSelection(t *testing.T) {
	docs := tiny()
	tab := tableOf(docs)
	nidf := bruteNIDF(docs)
	tests := []struct {
		opts Options
		in   func(nidf float64) bool
	}{
		{Options{}, func(x float64) bool { return x >= 0.2 && x <= 0.8 }},
		{Options{MaxNIDF: 0.5}, func(x float64) bool { return x <= 0.5 }},
		{Options{MinNIDF: 0.1, MaxNIDF: 1}, func(x float64) bool { return x >= 0.1 }},
		{Options{MinNIDF: 0.3, MaxNIDF: 0.3}, func(x float64) bool { return false }}, // nothing has nidf exactly 0.3
		{Options{Mode: IDFL10, MinNIDF: 0.5}, func(x float64) bool { return x >= 0.1 }},
		{Options{Mode: DocL90}, func(x float64) bool { return false }},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%v-%v", tt.opts.Mode, tt.opts.MinNIDF, tt.opts.MaxNIDF), func(t *testing.T) {
			s, err := NewSigner(tab, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			want := map[uint64]bool{}
			for term, x := range nidf {
				if tt.in(x) {
					want[features.HashTerm(term)] = true
				}
			}
			got := lexiconHashes(s, 0)
			if len(got) != len(want) || s.LexiconSize(0) != len(want) || s.Lexicons() != 1 {
				t.Fatalf("lexicon has %d terms (LexiconSize %d), want %d", len(got), s.LexiconSize(0), len(want))
			}
			for h := range want {
				if !got[h] {
					t.Errorf("term hash %x missing from the lexicon", h)
				}
			}
		})
	}
}

func TestSignInvariance(t *testing.T) {
	// MinTerms 1: no top-up, which would depend on terms outside the
	// lexicons (see TestTopUp).
	s, err := NewSigner(tableOf(tiny()), Options{ExtraLexicons: 3, MinTerms: 1})
	if err != nil {
		t.Fatal(err)
	}
	base := tiny()[0] // all 20 terms, 10 of them (a2..b6) in the lexicon
	want, err := s.Sign(base)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 4 {
		t.Fatalf("Sign returned %d signatures, want 4", len(want))
	}
	lex := []string{"a2", "b2", "a3", "b3", "a4", "b4", "a5", "b5", "a6", "b6"}
	if want[0] != oracleDigest(lex) {
		t.Errorf("main signature %v, want the digest of %v", want[0], lex)
	}
	shuffled := slices.Clone(base)
	rand.New(rand.NewPCG(1, 1)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	tests := []struct {
		name string
		doc  []string
		same bool
	}{
		{"shuffled", shuffled, true},
		{"duplicated", append(slices.Clone(base), base...), true},
		{"lexicon terms only", lex, true},
		{"too common term dropped", slices.DeleteFunc(slices.Clone(base), func(t string) bool { return t == "a10" }), true},
		{"too rare term dropped", slices.DeleteFunc(slices.Clone(base), func(t string) bool { return t == "a1" }), true},
		{"unseen term added", append(slices.Clone(base), "zzz"), true},
		{"lexicon term dropped", slices.DeleteFunc(slices.Clone(base), func(t string) bool { return t == "a4" }), false},
		{"lexicon term replaced by unseen", replace(base, "b6", "b6x"), false},
		{"term outside lexicon replaced", replace(base, "b8", "b8x"), true},
		{"lexicon terms minus one", lex[1:], false},
	}
	for _, tt := range tests {
		got, err := s.Sign(tt.doc)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if (got[0] == want[0]) != tt.same {
			t.Errorf("%s: main signature equal = %v, want %v", tt.name, got[0] == want[0], tt.same)
		}
		if tt.same && !slices.Equal(got, want) {
			t.Errorf("%s: extra signatures changed although no lexicon term did", tt.name)
		}
	}
}

func replace(doc []string, old, new string) []string {
	out := slices.Clone(doc)
	for i, t := range out {
		if t == old {
			out[i] = new
		}
	}
	return out
}

func TestTopUp(t *testing.T) {
	tab := tableOf(tiny())
	// Lexicon terms a2, b2; secondary (below 0.2) a7 .155, a8 .097, a9 .046,
	// a10 and b10 0; a1 (too rare) and zzz (unseen) never count.
	doc := []string{"a1", "a2", "b2", "a7", "a8", "a9", "a10", "b10", "zzz", "a2"}
	tests := []struct {
		mode     Mode
		minTerms int
		want     []string // nil: unsignable
	}{
		{Range, 1, []string{"a2", "b2"}},
		{Range, 2, []string{"a2", "b2"}},
		{Range, 3, []string{"a2", "b2", "a10"}},
		{Range, 4, []string{"a2", "b2", "a10", "b10"}},
		{Range, 5, []string{"a2", "b2", "a10", "b10", "a9"}},
		{Range, 6, []string{"a2", "b2", "a10", "b10", "a9", "a8"}},
		{Range, 7, []string{"a2", "b2", "a10", "b10", "a9", "a8", "a7"}},
		{Range, 8, nil},
		// IDF-L-10: lexicon terms a1, a2, b2, a7 (zzz is unseen, so not in
		// the lexicon); secondary terms are those below 0.1.
		{IDFL10, 4, []string{"a1", "a2", "b2", "a7"}},
		{IDFL10, 5, []string{"a1", "a2", "b2", "a7", "a10"}},
		{IDFL10, 8, []string{"a1", "a2", "b2", "a7", "a10", "b10", "a9", "a8"}},
		{IDFL10, 9, nil},
	}
	for _, tt := range tests {
		s, err := NewSigner(tab, Options{Mode: tt.mode, MinTerms: tt.minTerms})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Sign(doc)
		if tt.want == nil {
			if !errors.Is(err, ErrUnsignable) || got != nil {
				t.Errorf("%s MinTerms=%d: Sign = %v, %v; want nil, ErrUnsignable", tt.mode, tt.minTerms, got, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s MinTerms=%d: %v", tt.mode, tt.minTerms, err)
			continue
		}
		if got[0] != oracleDigest(tt.want) {
			t.Errorf("%s MinTerms=%d: signature is not the digest of %v", tt.mode, tt.minTerms, tt.want)
		}
	}
}

func TestUnsignable(t *testing.T) {
	tab := tableOf(tiny())
	tests := []struct {
		opts Options
		doc  []string
		msg  string
	}{
		{Options{}, nil, "0 lexicon and 0 secondary terms, need 5"},
		{Options{}, []string{"a1", "zzz", "a3", "a3", "a9"}, "1 lexicon and 1 secondary terms, need 5"},
		{Options{MinTerms: 3, ExtraLexicons: 2}, []string{"a2", "b2"}, "2 lexicon and 0 secondary terms, need 3"},
		{Options{Mode: DocL90}, []string{"a1", "a2", "a2", "q"}, "3 unique terms, need 5"},
	}
	for _, tt := range tests {
		s, err := NewSigner(tab, tt.opts)
		if err != nil {
			t.Fatal(err)
		}
		sigs, err := s.Sign(tt.doc)
		if !errors.Is(err, ErrUnsignable) || sigs != nil {
			t.Errorf("%v: Sign = %v, %v; want nil, ErrUnsignable", tt.doc, sigs, err)
			continue
		}
		if !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%v: error %q does not say %q", tt.doc, err, tt.msg)
		}
	}
}

func TestDocL90(t *testing.T) {
	tab := tableOf(tiny())
	tests := []struct {
		minTerms int
		doc      []string
		want     []string
	}{
		// 20 unique terms: the 2 lowest-idf (a10, b10) are dropped.
		{0, tiny()[0], slices.DeleteFunc(slices.Clone(tiny()[0]), func(t string) bool { return strings.HasSuffix(t, "10") })},
		// 9 unique terms: none dropped.
		{0, []string{"a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9"}, []string{"a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9"}},
		// 10 unique terms with an unseen one (idf log N): a10 is dropped.
		{0, []string{"zzz", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a10", "a10"}, []string{"zzz", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8"}},
		// Ties at the cut are broken bytewise: a10 goes before b10.
		{0, []string{"a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a10", "b10"}, []string{"a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "b10"}},
		// 20 terms keep 18; MinTerms 19 takes back the most common one.
		{19, tiny()[0], slices.DeleteFunc(slices.Clone(tiny()[0]), func(t string) bool { return t == "b10" })},
	}
	for i, tt := range tests {
		s, err := NewSigner(tab, Options{Mode: DocL90, MinTerms: tt.minTerms})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Sign(tt.doc)
		if err != nil {
			t.Errorf("case %d: %v", i, err)
			continue
		}
		if len(got) != 1 || got[0] != oracleDigest(tt.want) {
			t.Errorf("case %d: signature is not the digest of %v", i, tt.want)
		}
	}
}

// TestSignOracle compares Sign with oracleSign on random documents, for
// every mode, several MinTerms and every lexicon coordinate.
func TestSignOracle(t *testing.T) {
	docs := tiny()
	tab := tableOf(docs)
	nidf := bruteNIDF(docs)
	nidfOf := func(t string) float64 {
		if x, ok := nidf[t]; ok {
			return x
		}
		return 1
	}
	vocab := append(slices.Clone(docs[0]), "zzz", "yyy")
	rng := rand.New(rand.NewPCG(3, 4))
	for _, opts := range []Options{
		{ExtraLexicons: 4},
		{MinTerms: 2, ExtraLexicons: 4, Seed: 9},
		{MinTerms: 8, ExtraLexicons: 2},
		{MaxNIDF: 0.5, MinTerms: 3},
		{Mode: IDFL10, ExtraLexicons: 3},
		{Mode: DocL90},
		{Mode: DocL90, MinTerms: 19},
	} {
		s, err := NewSigner(tab, opts)
		if err != nil {
			t.Fatal(err)
		}
		o := s.Options()
		lo, hi := o.MinNIDF, o.MaxNIDF
		if o.Mode == IDFL10 {
			lo, hi = 0.1, 1
		}
		lexicons := make([]map[uint64]bool, s.Lexicons())
		for i := range lexicons {
			lexicons[i] = lexiconHashes(s, i)
		}
		for range 300 {
			doc := make([]string, rng.IntN(40))
			for j := range doc {
				doc[j] = vocab[rng.IntN(len(vocab))]
			}
			got, err := s.Sign(doc)
			var want []Signature
			if o.Mode == DocL90 {
				want = oracleDocL90(doc, nidfOf, o.MinTerms)
			} else {
				for i := range lexicons {
					// In Range mode the main lexicon is brute force; the extra
					// ones are taken from the signer (see TestBootstrap).
					inLex := func(t string) bool { _, ok := nidf[t]; return ok && nidfOf(t) >= lo && nidfOf(t) <= hi }
					if i > 0 {
						inLex = func(t string) bool { return lexicons[i][features.HashTerm(t)] }
					}
					sig, ok := oracleSign(doc, inLex, nidfOf, func(t string) bool { return nidfOf(t) < lo }, o.MinTerms)
					if i == 0 && !ok {
						break
					}
					want = append(want, sig)
				}
			}
			if len(want) == 0 {
				if !errors.Is(err, ErrUnsignable) {
					t.Fatalf("%+v %v: err = %v, want ErrUnsignable", o, doc, err)
				}
				continue
			}
			if err != nil || !slices.Equal(got, want) {
				t.Fatalf("%+v %v: Sign = %v, %v; oracle %v", o, doc, got, err, want)
			}
		}
	}
}

func oracleDocL90(doc []string, nidf func(string) float64, minTerms int) []Signature {
	uniq := slices.Compact(slices.Sorted(slices.Values(doc)))
	if len(uniq) < minTerms {
		return nil
	}
	// Highest idf first; among equal idf the bytewise larger first.
	slices.SortStableFunc(uniq, func(a, b string) int {
		return cmp.Or(cmp.Compare(nidf(b), nidf(a)), strings.Compare(b, a))
	})
	keep := len(uniq) - len(uniq)/10
	sel := uniq[:keep]
	for i := len(uniq) - 1; len(sel) < minTerms; i-- {
		sel = append(sel, uniq[i])
	}
	return []Signature{oracleDigest(sel)}
}

// synthetic returns a table of 100 documents over 10,000 terms t00000..
// whose document frequencies 3..39 all lie in the default range, plus 50
// terms that do not (df 1 and 50).
func synthetic() *stats.Table {
	docs := make([][]string, 100)
	for i := range 10000 {
		df := 3 + i%37
		for j := range df {
			d := (i + j) % 100
			docs[d] = append(docs[d], fmt.Sprintf("t%05d", i))
		}
	}
	for i := range 50 {
		docs[i] = append(docs[i], fmt.Sprintf("rare%d", i))
		for j := range 50 {
			docs[j] = append(docs[j], fmt.Sprintf("common%d", i))
		}
	}
	return tableOf(docs)
}

func TestBootstrap(t *testing.T) {
	tab := synthetic()
	const k = 6
	s, err := NewSigner(tab, Options{ExtraLexicons: k})
	if err != nil {
		t.Fatal(err)
	}
	L := s.LexiconSize(0)
	if L != 10000 || s.Lexicons() != k+1 {
		t.Fatalf("main lexicon %d terms, %d lexicons; want 10000, %d", L, s.Lexicons(), k+1)
	}
	main := lexiconHashes(s, 0)
	const want, tol = 1 - 1/math.E, 0.02 // the sd of the fraction is ≈ 0.003
	lex := make([]map[uint64]bool, k+1)
	for i := 1; i <= k; i++ {
		lex[i] = lexiconHashes(s, i)
		if len(lex[i]) != s.LexiconSize(i) {
			t.Errorf("lexicon %d: %d terms, LexiconSize %d", i, len(lex[i]), s.LexiconSize(i))
		}
		if f := float64(len(lex[i])) / float64(L); math.Abs(f-want) > tol {
			t.Errorf("lexicon %d holds %.3f of the main lexicon, want %.3f±%.2f", i, f, want, tol)
		}
		for h := range lex[i] {
			if !main[h] {
				t.Fatalf("lexicon %d holds a term outside the main lexicon", i)
			}
		}

	}
	// Independent samples share about (1-1/e) of each other's terms.
	for i := 2; i <= k; i++ {
		shared := 0
		for h := range lex[i] {
			if lex[1][h] {
				shared++
			}
		}
		if f := float64(shared) / float64(len(lex[i])); math.Abs(f-want) > 0.03 {
			t.Errorf("lexicons 1 and %d share %.3f, want about %.3f", i, f, want)
		}
	}

	again, _ := NewSigner(tab, Options{ExtraLexicons: k})
	other, _ := NewSigner(tab, Options{ExtraLexicons: k, Seed: 2})
	fewer, _ := NewSigner(tab, Options{ExtraLexicons: 2})
	for i := 1; i <= k; i++ {
		if !slices.Equal(s.extra[i-1], again.extra[i-1]) {
			t.Errorf("lexicon %d differs between two signers with the same seed", i)
		}
		if slices.Equal(s.extra[i-1], other.extra[i-1]) {
			t.Errorf("lexicon %d is the same for seeds 1 and 2", i)
		}
		if i <= 2 && !slices.Equal(s.extra[i-1], fewer.extra[i-1]) {
			t.Errorf("lexicon %d depends on the number of extra lexicons", i)
		}
	}
	var doc []string
	for i := 0; i < 10000; i += 97 {
		doc = append(doc, fmt.Sprintf("t%05d", i))
	}
	a, _ := s.Sign(doc)
	b, _ := other.Sign(doc)
	c, _ := fewer.Sign(doc)
	if a[0] != b[0] || a[0] != c[0] {
		t.Error("the main signature depends on the seed or on K")
	}
	if Match(a[1:], b[1:]) {
		t.Error("extra signatures agree across seeds")
	}
}

func TestMatch(t *testing.T) {
	x, y, z := Signature{1}, Signature{2}, Signature{}
	tests := []struct {
		a, b []Signature
		want bool
	}{
		{[]Signature{x}, []Signature{x}, true},
		{[]Signature{x}, []Signature{y}, false},
		{[]Signature{x, y}, []Signature{y, x}, false}, // coordinates differ
		{[]Signature{x, y}, []Signature{y, y}, true},
		{[]Signature{z}, []Signature{z}, false}, // zero never matches
		{[]Signature{x, z}, []Signature{y, z}, false},
		{[]Signature{x, y}, []Signature{x}, true},
		{nil, []Signature{x}, false},
		{nil, nil, false},
	}
	for _, tt := range tests {
		if got := Match(tt.a, tt.b); got != tt.want {
			t.Errorf("Match(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if got := Match(tt.b, tt.a); got != tt.want {
			t.Errorf("Match is not symmetric for %v, %v", tt.a, tt.b)
		}
	}
	if !z.IsZero() || x.IsZero() {
		t.Error("IsZero wrong")
	}
	if got := oracleDigest(nil).String(); got != "da39a3ee5e6b4b0d3255bfef95601890afd80709" {
		t.Errorf("String of SHA-1(\"\") = %s", got)
	}
}

func TestZeroExtraCoordinate(t *testing.T) {
	// Find a document of 2 main-lexicon terms that extra lexicon 1 misses
	// entirely; with MinTerms 2 and no secondary terms, coordinate 1 must be
	// zero while coordinate 0 is signed.
	tab := synthetic()
	s, err := NewSigner(tab, Options{ExtraLexicons: 1, MinTerms: 2})
	if err != nil {
		t.Fatal(err)
	}
	lex1 := lexiconHashes(s, 1)
	var doc []string
	for i := 0; len(doc) < 2; i++ {
		if term := fmt.Sprintf("t%05d", i); !lex1[features.HashTerm(term)] {
			doc = append(doc, term)
		}
	}
	sigs, err := s.Sign(doc)
	if err != nil {
		t.Fatal(err)
	}
	if sigs[0].IsZero() || !sigs[1].IsZero() {
		t.Errorf("signatures %v: want main signed, extra zero", sigs)
	}
	if Match(sigs[1:], sigs[1:]) {
		t.Error("a zero coordinate matched itself")
	}
}

func TestConcurrentSign(t *testing.T) {
	s, err := NewSigner(synthetic(), Options{ExtraLexicons: 3})
	if err != nil {
		t.Fatal(err)
	}
	docs := make([][]string, 200)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range docs {
		for range 50 + rng.IntN(200) {
			docs[i] = append(docs[i], fmt.Sprintf("t%05d", rng.IntN(10000)))
		}
	}
	want := make([][]Signature, len(docs))
	for i, d := range docs {
		want[i], _ = s.Sign(d)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range docs {
				i = (i + 50*g) % len(docs)
				if got, _ := s.Sign(docs[i]); !slices.Equal(got, want[i]) {
					t.Errorf("goroutine %d: document %d signed differently", g, i)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestHashSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{0, 1, 7, 1000} {
		want := map[uint64]bool{}
		var hashes []uint64
		for len(hashes) < n {
			h := rng.Uint64()
			switch len(hashes) % 4 {
			case 1:
				h &= 0xff // many low-bit collisions
			case 2:
				h <<= 40 // low bits all zero
			}
			if len(hashes) == 3 {
				h = 0
			}
			if !want[h] {
				want[h] = true
				hashes = append(hashes, h)
			}
		}
		set, slots := newHashSet(hashes)
		used := map[int32]bool{}
		for i, h := range hashes {
			if got := set.find(h); got != slots[i] || got < 0 || int(got) >= set.slots() || used[got] {
				t.Fatalf("n=%d: find(%x) = %d, slot %d", n, h, got, slots[i])
			}
			used[slots[i]] = true
		}
		for range 1000 {
			if h := rng.Uint64() & 0xffff; !want[h] && set.find(h) != -1 {
				t.Fatalf("n=%d: find(%x) found a non-member", n, h)
			}
		}
		if want[0] != (set.find(0) >= 0) {
			t.Errorf("n=%d: member 0 mishandled", n)
		}
	}
}
