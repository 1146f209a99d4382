package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	mfonda "github.com/mfonda/simhash"
)

func tokensOf(text string) []string {
	var t tokenizer
	t.reset(text)
	var out []string
	for i := 0; i < t.n(); i++ {
		out = append(out, string(t.token(i)))
	}
	return out
}

// TestTokens checks the tokenizer against the examples of the corpus
// definition (../shared/corpus/README.md) and a few edges.
func TestTokens(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{"Vec<T>::new()", []string{"vec", "t", "new"}},
		{"x86_64", []string{"x86", "64"}},
		{"東京都の会議room2", []string{"東京", "京都", "都の", "の会", "会議", "room2"}},
		{"the の end", []string{"the", "の", "end"}},
		{"ab東c", []string{"ab", "東", "c"}},
		{"ÄBC Straße ΣΊΣΥΦΟΣ", []string{"äbc", "straße", "σίσυφοσ"}},
		{"  ", nil},
		{"bad\xffbyte", []string{"bad", "byte"}},
	} {
		if got := tokensOf(c.text); !reflect.DeepEqual(got, c.want) {
			t.Errorf("tokens(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func shinglesOf(text string, w int) []string {
	var t tokenizer
	t.reset(text)
	var out []string
	t.eachShingle(w, func(b []byte) { out = append(out, string(b)) })
	return out
}

// TestEachShingle checks the shingles: w tokens joined by a space, or the
// tokens of a text with fewer than w.
func TestEachShingle(t *testing.T) {
	if got, want := shinglesOf("a b c d e F", 5), []string{"a b c d e", "b c d e f"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := shinglesOf("one, two; three", 5), []string{"one", "two", "three"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := shinglesOf("", 5); got != nil {
		t.Errorf("empty text: got %q", got)
	}
}

// corpus returns n random documents of 400 words, then an exact copy of
// document 1 and a copy of document 0 with one word changed (resemblance
// 391/401 ≈ 0.975), and an empty document.
func corpus(n int) []doc {
	rng := rand.New(rand.NewPCG(1, 2))
	words := func() []string {
		w := make([]string, 400)
		for i := range w {
			w[i] = fmt.Sprintf("w%d", rng.IntN(5000))
		}
		return w
	}
	var docs []doc
	var first []string
	for i := 0; i < n; i++ {
		w := words()
		if i == 0 {
			first = w
		}
		docs = append(docs, doc{fmt.Sprintf("d%d", i), strings.Join(w, " ")})
	}
	docs = append(docs, doc{"copy1", docs[1].Text})
	edited := append([]string(nil), first...)
	edited[200] = "changed"
	docs = append(docs, doc{"edit0", strings.Join(edited, " ")}, doc{"empty", "..."})
	return docs
}

func pairSet(ps []pair) map[[2]int]bool {
	m := map[[2]int]bool{}
	for _, p := range ps {
		if p.A >= p.B {
			panic(fmt.Sprintf("pair %v not in order", p))
		}
		m[[2]int{p.A, p.B}] = true
	}
	return m
}

// TestMinhashLSH checks that both MinHash variants find the copy and the
// edited copy, and nothing else.
func TestMinhashLSH(t *testing.T) {
	docs := corpus(200)
	want := map[[2]int]bool{{1, 200}: true, {0, 201}: true}
	for _, h := range []string{"dgryski", "ekzhu"} {
		rep := &report{Phases: map[string]float64{}}
		o := minhashOptions{Perm: 128, Width: 5, Threshold: 0.9, Hash: h, Workers: 2}
		out := &pairList{max: 1000}
		if err := runMinhashLSH(docs, o, out, rep); err != nil {
			t.Fatal(err)
		}
		ps := out.kept
		if got := pairSet(ps); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: pairs %v, want %v", h, got, want)
		}
		if rep.Unsigned != 1 {
			t.Errorf("%s: %d unsigned documents, want 1", h, rep.Unsigned)
		}
	}
}

// TestSimhashBKTree checks the BK-tree pipeline against a linear scan of
// the same fingerprints: every pair within k, each once.
func TestSimhashBKTree(t *testing.T) {
	docs := corpus(300)
	// Near copies at growing distance, so that some pairs fall within k
	// and some do not.
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 40; i++ {
		w := strings.Fields(docs[i].Text)
		for e := 0; e < i; e++ {
			w[rng.IntN(len(w))] = fmt.Sprintf("x%d", rng.IntN(1000))
		}
		docs = append(docs, doc{fmt.Sprintf("near%d", i), strings.Join(w, " ")})
	}
	for _, features := range []string{"words", "shingles"} {
		for _, k := range []int{0, 3, 6} {
			rep := &report{Phases: map[string]float64{}}
			out := &pairList{max: 1 << 20}
			pfps, err := runSimhashBKTree(docs, simhashOptions{K: k, Features: features, Width: 5, Workers: 2}, out, rep)
			if err != nil {
				t.Fatal(err)
			}
			ps := out.kept
			got := pairSet(ps)
			if len(got) != len(ps) {
				t.Errorf("%s k=%d: %d pairs, %d distinct", features, k, len(ps), len(got))
			}
			fps := make([]uint64, len(docs))
			var tok tokenizer
			for i, d := range docs {
				if features == "words" {
					fps[i] = mfonda.Simhash(mfonda.NewWordFeatureSet([]byte(d.Text)))
				} else {
					tok.reset(d.Text)
					fps[i] = mfonda.SimhashBytes(mfonda.Shingle(5, tok.tokens()))
				}
			}
			want := map[[2]int]bool{}
			for i := range docs {
				for j := i + 1; j < len(docs); j++ {
					if docs[i].ID != "empty" && docs[j].ID != "empty" && bits.OnesCount64(fps[i]^fps[j]) <= k {
						want[[2]int{i, j}] = true
					}
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s k=%d: %d pairs, linear scan %d", features, k, len(got), len(want))
			}
			if !got[[2]int{1, 300}] {
				t.Errorf("%s k=%d: the exact copy is not found", features, k)
			}
			// Scored without the pairs, against a truth of every pair
			// of a document and its near copies, as from the pairs.
			var truth [][2]int
			tp := 0
			for i := 0; i < 40; i++ {
				p := [2]int{i, 303 + i}
				truth = append(truth, p)
				if got[p] {
					tp++
				}
			}
			s := scoreSimhash(truth, pfps, k, len(ps))
			if s.TP != tp || s.TruthPairs != 40 || s.Predicted != len(ps) {
				t.Errorf("%s k=%d: scored %+v, want %d true positives of %d pairs", features, k, s, tp, len(ps))
			}
		}
	}
}

// TestPairList checks that a pair list keeps at most max pairs and
// counts them all.
func TestPairList(t *testing.T) {
	l := &pairList{max: 2}
	for i := 0; i < 2; i++ {
		l.add(pair{i, i + 1, 1})
	}
	if l.over() || l.total != 2 {
		t.Errorf("2 pairs: over %v total %d", l.over(), l.total)
	}
	l.add(pair{5, 6, 1})
	if !l.over() || l.total != 3 || len(l.kept) != 2 {
		t.Errorf("3 pairs: over %v total %d kept %d", l.over(), l.total, len(l.kept))
	}
}

// TestRun runs the command on a small corpus file: every pipeline prints
// its report and writes its pairs.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "c.jsonl")
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, d := range corpus(50) {
		enc.Encode(d)
	}
	if err := os.WriteFile(in, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"minhash-lsh", "simhash-bktree", "floor"} {
		out := filepath.Join(dir, p+".pairs.jsonl")
		var stdout, stderr bytes.Buffer
		if err := run([]string{p, "-in", in, "-pairs", out}, &stdout, &stderr); err != nil {
			t.Fatalf("%s: %v (%s)", p, err, stderr.String())
		}
		var rep report
		if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
			t.Fatalf("%s: %v: %s", p, err, stdout.String())
		}
		if rep.Docs != 53 || rep.MBPerS <= 0 {
			t.Errorf("%s: report %+v", p, rep)
		}
		if p == "floor" {
			if rep.Workers != 1 {
				t.Errorf("floor on %d goroutines, want 1", rep.Workers)
			}
			continue
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), `{"a":"d1","b":"copy1","score":1}`) {
			t.Errorf("%s: pairs file lacks the exact copy:\n%s", p, data)
		}
	}
	// Beyond -max-pairs: no pair file, and -truth still scores every
	// pair found (here the exact copy and the edited copy, both within
	// k of their originals; a third truth pair names an unknown id).
	oracle := filepath.Join(dir, "oracle.jsonl")
	lines := `{"a":"d1","b":"copy1","jaccard":1,"cosine":1}
{"a":"d0","b":"edit0","jaccard":0.975,"cosine":0.99}
{"a":"d2","b":"d3","jaccard":0.5,"cosine":0.95}
{"a":"d2","b":"nowhere","jaccard":1,"cosine":1}
`
	if err := os.WriteFile(oracle, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "over.pairs.jsonl")
	var stdout bytes.Buffer
	if err := run([]string{"simhash-bktree", "-in", in, "-pairs", out, "-max-pairs", "0", "-truth", oracle}, &stdout, new(bytes.Buffer)); err != nil {
		t.Fatal(err)
	}
	var rep report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.OverLimit || rep.Truth == nil || rep.Truth.TruthPairs != 2 || rep.Truth.TP != 2 || rep.Truth.Predicted != rep.Pairs {
		t.Errorf("over the limit: report %s", stdout.String())
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("over the limit: pair file written (%v)", err)
	}
	if err := run([]string{"nope", "-in", in}, new(bytes.Buffer), new(bytes.Buffer)); err == nil {
		t.Error("unknown pipeline: no error")
	}
}
