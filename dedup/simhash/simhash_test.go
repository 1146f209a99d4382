package simhash

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/doppel-search/doppel/dedup/features"
	"github.com/doppel-search/doppel/dedup/stats"
)

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b Simhash
		want int
	}{
		{0, 0, 0},
		{0, math.MaxUint64, 64},
		{1, 0, 1},
		{0b1011, 0b0110, 3},
		{1 << 63, 1, 2},
		{0xdeadbeef, 0xdeadbeef, 0},
	}
	for _, tt := range tests {
		if got := tt.a.Distance(tt.b); got != tt.want {
			t.Errorf("%v.Distance(%v) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := tt.b.Distance(tt.a); got != tt.want {
			t.Errorf("%v.Distance(%v) = %d, want %d (symmetry)", tt.b, tt.a, got, tt.want)
		}
	}
	// Metric properties on random triples.
	r := rand.New(rand.NewPCG(1, 1))
	for range 1000 {
		a, b, c := Simhash(r.Uint64()), Simhash(r.Uint64()), Simhash(r.Uint64())
		if a.Distance(a) != 0 || a.Distance(c) > a.Distance(b)+b.Distance(c) {
			t.Fatalf("metric property fails for %v %v %v", a, b, c)
		}
	}
}

func TestString(t *testing.T) {
	tests := []struct {
		s    Simhash
		want string
	}{
		{0, "0000000000000000"},
		{0xff, "00000000000000ff"},
		{0x0123456789abcdef, "0123456789abcdef"},
		{math.MaxUint64, "ffffffffffffffff"},
	}
	for _, tt := range tests {
		if got := tt.s.String(); got != tt.want {
			t.Errorf("String(%#x) = %q, want %q", uint64(tt.s), got, tt.want)
		}
	}
}

// referenceFromFeatures is Charikar's construction written plainly.
func referenceFromFeatures(fs []Feature) Simhash {
	var v [64]float64
	for _, f := range fs {
		if !(f.Weight > 0) || math.IsInf(f.Weight, 1) {
			continue
		}
		for j := range 64 {
			if f.Hash>>j&1 == 1 {
				v[j] += f.Weight
			} else {
				v[j] -= f.Weight
			}
		}
	}
	var s Simhash
	for j := range 64 {
		if v[j] > 0 {
			s |= 1 << j
		}
	}
	return s
}

func TestFromFeaturesOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	odd := []float64{0, -1, math.NaN(), math.Inf(1), math.Inf(-1), 1e-300, 1e300}
	for trial := range 2000 {
		fs := make([]Feature, r.IntN(40))
		for i := range fs {
			fs[i] = Feature{Hash: r.Uint64(), Weight: r.ExpFloat64()}
			switch r.IntN(10) {
			case 0:
				fs[i].Weight = odd[r.IntN(len(odd))]
			case 1:
				fs[i].Weight = float64(r.IntN(3)) // ties
			case 2:
				fs[i].Hash &= 0xff00ff00ff00ff00
			}
		}
		if got, want := FromFeatures(fs), referenceFromFeatures(fs); got != want {
			t.Fatalf("trial %d: FromFeatures = %v, reference %v for %v", trial, got, want, fs)
		}
	}
}

func TestFromFeaturesEdges(t *testing.T) {
	tests := []struct {
		name string
		fs   []Feature
		want Simhash
	}{
		{"empty", nil, 0},
		{"single feature is its hash", []Feature{{0xf0f0, 2}}, 0xf0f0},
		{"ignored weights", []Feature{{0xffff, 0}, {0xffff, -3}, {0xffff, math.NaN()}, {0xffff, math.Inf(1)}}, 0},
		{"tie gives 0 bit", []Feature{{0b01, 1}, {0b10, 1}}, 0},
		{"heavier wins", []Feature{{0b01, 1}, {0b10, 1.5}}, 0b10},
		{"same hash adds up", []Feature{{0b01, 1}, {0b01, 1}, {0b10, 1.5}}, 0b01},
	}
	for _, tt := range tests {
		if got := FromFeatures(tt.fs); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestOptions(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		opts Options
		ok   bool
	}{
		{Options{}, true},
		{Options{LowWeight: 0.1, HighWeight: 0.9, TagBoost: 1, MetaWeight: 2}, true},
		{Options{LowWeight: 1}, true},
		{Options{LowWeight: 0.5, HighWeight: 0.5}, true},
		{Options{LowWeight: -0.1}, false},
		{Options{LowWeight: 1.1}, false},
		{Options{LowWeight: nan}, false},
		{Options{HighWeight: -1}, false},
		{Options{HighWeight: 1.5}, false},
		{Options{HighWeight: nan}, false},
		{Options{LowWeight: 0.6, HighWeight: 0.5}, false},
		{Options{TagBoost: -1}, false},
		{Options{TagBoost: math.Inf(1)}, false},
		{Options{TagBoost: 2e6}, false},
		{Options{MetaWeight: -0.5}, false},
		{Options{MetaWeight: nan}, false},
	}
	for _, tt := range tests {
		_, err := NewSigner(nil, tt.opts)
		if tt.ok && err != nil {
			t.Errorf("%+v: unexpected error %v", tt.opts, err)
		}
		if !tt.ok && !errors.Is(err, ErrOptions) {
			t.Errorf("%+v: err = %v, want ErrOptions", tt.opts, err)
		}
	}
	s, _ := NewSigner(nil, Options{})
	want := Options{HighWeight: DefaultHighWeight, TagBoost: DefaultTagBoost, MetaWeight: DefaultMetaWeight}
	if s.Options() != want {
		t.Errorf("defaults = %+v, want %+v", s.Options(), want)
	}
}

// corpus is a synthetic collection: Zipf-distributed words w0…w1999.
type corpus struct {
	r    *rand.Rand
	zipf *rand.Zipf
}

func newCorpus(seed uint64) *corpus {
	r := rand.New(rand.NewPCG(seed, seed))
	return &corpus{r: r, zipf: rand.NewZipf(r, 1.1, 2, 1999)}
}

func (c *corpus) doc(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("w%d", c.zipf.Uint64())
	}
	return out
}

// edit replaces a fraction of the words of d with random words.
func (c *corpus) edit(d []string, frac float64) []string {
	out := slices.Clone(d)
	for i := range out {
		if c.r.Float64() < frac {
			out[i] = fmt.Sprintf("w%d", c.zipf.Uint64())
		}
	}
	return out
}

func (c *corpus) table(docs int) *stats.Table {
	var b stats.Builder
	for range docs {
		b.Add(c.doc(300))
	}
	return b.Table()
}

func mustSigner(t testing.TB, table *stats.Table, opts Options) *Signer {
	t.Helper()
	s, err := NewSigner(table, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// referenceFeatures computes the documented weights of Signer.Sign with
// maps, ignoring order.
func referenceFeatures(table *stats.Table, o Options, d Doc) map[uint64]float64 {
	o.EnsureDefaults()
	tf := map[uint64]float64{}
	for _, t := range d.Terms {
		tf[features.HashTerm(t)]++
	}
	for _, t := range d.Tagged {
		tf[features.HashTerm(t)] += o.TagBoost
	}
	maxW := 0.0
	for h := range tf {
		if table.Docs() >= 2 {
			tf[h] *= table.IDF(h)
		}
		maxW = max(maxW, tf[h])
	}
	out := map[uint64]float64{}
	keptMax := 0.0
	for h, w := range tf {
		if w > 0 && w >= o.LowWeight*maxW && w <= o.HighWeight*maxW {
			out[h] = w
			keptMax = max(keptMax, w)
		}
	}
	if keptMax == 0 {
		keptMax = 1
	}
	for _, m := range d.Meta {
		out[features.HashTerm(m)] = o.MetaWeight * keptMax
	}
	return out
}

func TestSignOracle(t *testing.T) {
	c := newCorpus(3)
	tables := map[string]*stats.Table{"nil": nil, "one doc": c.table(1), "200 docs": c.table(200)}
	optss := []Options{
		{},
		{LowWeight: 0.2},
		{HighWeight: 0.7},
		{LowWeight: 0.1, HighWeight: 0.5, TagBoost: 3, MetaWeight: 0.25},
		{TagBoost: 1},
	}
	for name, table := range tables {
		for _, opts := range optss {
			s := mustSigner(t, table, opts)
			for trial := range 30 {
				d := Doc{Terms: c.doc(c.r.IntN(200)), Tagged: c.doc(c.r.IntN(5))}
				d.Tagged = append(d.Tagged, "unseen-term")
				if trial%3 == 0 {
					d.Meta = []string{"author:jane", "type:pdf", "author:jane"}
				}
				fs := s.Features(d)
				got := map[uint64]float64{}
				for _, f := range fs {
					if _, dup := got[f.Hash]; dup {
						t.Fatalf("%s %+v: feature %#x listed twice", name, opts, f.Hash)
					}
					got[f.Hash] = f.Weight
				}
				if want := referenceFeatures(table, opts, d); !maps.Equal(got, want) {
					t.Fatalf("%s %+v: features %v, want %v", name, opts, got, want)
				}
				if sig, want := s.Sign(d), FromFeatures(fs); sig != want {
					t.Fatalf("%s %+v: Sign = %v, FromFeatures(Features) = %v", name, opts, sig, want)
				}
			}
		}
	}
}

func TestSignNilTableIsTF(t *testing.T) {
	d := Doc{Terms: []string{"a", "b", "a", "c", "a", "b"}}
	c := newCorpus(4)
	for _, table := range []*stats.Table{nil, new(stats.Builder).Table(), c.table(1)} {
		got := mustSigner(t, table, Options{}).Sign(d)
		want := FromFeatures([]Feature{
			{features.HashTerm("a"), 3}, {features.HashTerm("b"), 2}, {features.HashTerm("c"), 1},
		})
		if got != want {
			t.Errorf("table with %d docs: Sign = %v, want tf weights %v", table.Docs(), got, want)
		}
	}
}

func TestSignEmpty(t *testing.T) {
	s := mustSigner(t, newCorpus(5).table(50), Options{})
	if got := s.Sign(Doc{}); got != 0 {
		t.Errorf("Sign(empty) = %v, want 0", got)
	}
	if got := s.Features(Doc{}); got != nil {
		t.Errorf("Features(empty) = %v, want nil", got)
	}
	// Metadata alone still determines the signature.
	if got, want := s.Sign(Doc{Meta: []string{"author:jane"}}), Simhash(features.HashTerm("author:jane")); got != want {
		t.Errorf("Sign(meta only) = %v, want the meta hash %v", got, want)
	}
}

// TestSignDeterministic checks a golden value (so the signature cannot
// depend on map order, the run or the pool state) and concurrent use.
func TestSignDeterministic(t *testing.T) {
	c := newCorpus(6)
	table := c.table(100)
	d := Doc{Terms: c.doc(500), Tagged: c.doc(10), Meta: []string{"lang:en"}}
	s := mustSigner(t, table, Options{})
	want := s.Sign(d)
	if got := mustSigner(t, table, Options{}).Sign(d); got != want {
		t.Fatalf("two Signers disagree: %v vs %v", got, want)
	}
	const golden = "ca8c28ecc310fe03"
	if want.String() != golden {
		t.Errorf("Sign = %v, golden %s", want, golden)
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			cw := newCorpus(uint64(100 + w))
			for range 50 {
				s.Sign(Doc{Terms: cw.doc(cw.r.IntN(3000))}) // varied sizes churn the pool
				if got := s.Sign(d); got != want {
					t.Errorf("concurrent Sign = %v, want %v", got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestSmallEditsSmallDistance compares edited copies with unrelated
// documents drawn from the same vocabulary, and both with Charikar's
// expectation: bits differ with probability θ/π, θ the angle between the
// weighted feature vectors.
func TestSmallEditsSmallDistance(t *testing.T) {
	c := newCorpus(7)
	s := mustSigner(t, c.table(300), Options{})
	const trials = 200
	var edit, unrelated, wantEdit, wantUnrelated float64
	for range trials {
		d := Doc{Terms: c.doc(400)}
		e := Doc{Terms: c.edit(d.Terms, 0.03)}
		u := Doc{Terms: c.doc(400)}
		edit += float64(s.Sign(d).Distance(s.Sign(e)))
		unrelated += float64(s.Sign(d).Distance(s.Sign(u)))
		wantEdit += 64 * math.Acos(cosine(s.Features(d), s.Features(e))) / math.Pi
		wantUnrelated += 64 * math.Acos(cosine(s.Features(d), s.Features(u))) / math.Pi
	}
	edit, unrelated, wantEdit, wantUnrelated = edit/trials, unrelated/trials, wantEdit/trials, wantUnrelated/trials
	if edit > unrelated/4 {
		t.Errorf("mean distance: 3%% edits %.1f, unrelated %.1f; want edits ≪ unrelated", edit, unrelated)
	}
	if math.Abs(edit-wantEdit) > 0.15*wantEdit || math.Abs(unrelated-wantUnrelated) > 0.15*wantUnrelated {
		t.Errorf("mean distance: edits %.2f (angle predicts %.2f), unrelated %.2f (predicts %.2f)", edit, wantEdit, unrelated, wantUnrelated)
	}
}

// cosine returns the cosine of two weighted feature vectors.
func cosine(a, b []Feature) float64 {
	wa := map[uint64]float64{}
	var na, nb, dot float64
	for _, f := range a {
		wa[f.Hash] += f.Weight
		na += f.Weight * f.Weight
	}
	for _, f := range b {
		dot += wa[f.Hash] * f.Weight
		nb += f.Weight * f.Weight
	}
	return min(dot/math.Sqrt(na*nb), 1)
}

// dominated builds a document where one rare term outweighs all others.
func dominated(c *corpus) (Doc, Simhash) {
	d := Doc{Terms: c.doc(100)}
	for range 1000 {
		d.Terms = append(d.Terms, "zanzibar")
	}
	return d, Simhash(features.HashTerm("zanzibar"))
}

func TestHighWeightDropsDominantTerm(t *testing.T) {
	c := newCorpus(8)
	table := c.table(100)
	d, dom := dominated(c)
	if got := mustSigner(t, table, Options{}).Sign(d); got != dom {
		t.Fatalf("default options: Sign = %v, want the dominant term's hash %v", got, dom)
	}
	s := mustSigner(t, table, Options{HighWeight: 0.5})
	for _, f := range s.Features(d) {
		if f.Hash == uint64(dom) {
			t.Fatal("HighWeight 0.5 kept the dominant term")
		}
	}
	if dist := s.Sign(d).Distance(dom); dist < 16 {
		t.Errorf("HighWeight 0.5: distance to the dominant hash %d, want about 32", dist)
	}
	if got, want := s.Sign(d), mustSigner(t, table, Options{}).Sign(Doc{Terms: d.Terms[:100]}); got.Distance(want) > 8 {
		t.Errorf("with the dominant term dropped the signature is %d bits from the rest of the document", got.Distance(want))
	}
}

func TestLowWeightDropsLightTerms(t *testing.T) {
	c := newCorpus(9)
	table := c.table(100)
	d := Doc{Terms: c.doc(300)}
	all := mustSigner(t, table, Options{}).Features(d)
	maxW := 0.0
	for _, f := range all {
		maxW = max(maxW, f.Weight)
	}
	kept := mustSigner(t, table, Options{LowWeight: 0.3}).Features(d)
	var want []Feature
	for _, f := range all {
		if f.Weight >= 0.3*maxW {
			want = append(want, f)
		}
	}
	if !slices.Equal(kept, want) || len(kept) == len(all) || len(kept) == 0 {
		t.Errorf("LowWeight 0.3 kept %d of %d features, want the %d at or above %.2f", len(kept), len(all), len(want), 0.3*maxW)
	}
}

// TestTagBoost checks that tagging a term pulls the signature toward that
// term's hash, more so with a larger boost, and that TagBoost 1 makes
// tagged and body occurrences equivalent.
func TestTagBoost(t *testing.T) {
	c := newCorpus(10)
	table := c.table(100)
	x := "keyword"
	hx := Simhash(features.HashTerm(x))
	var sumBody, sumTag2, sumTag8 int
	for range 100 {
		body := c.doc(150)
		withBody := Doc{Terms: append(slices.Clone(body), x, x, x)}
		tagged := Doc{Terms: body, Tagged: []string{x, x, x}}
		sumBody += mustSigner(t, table, Options{}).Sign(withBody).Distance(hx)
		sumTag2 += mustSigner(t, table, Options{}).Sign(tagged).Distance(hx)
		sumTag8 += mustSigner(t, table, Options{TagBoost: 8}).Sign(tagged).Distance(hx)
		if a, b := mustSigner(t, table, Options{TagBoost: 1}).Sign(tagged), mustSigner(t, table, Options{}).Sign(withBody); a != b {
			t.Fatalf("TagBoost 1: tagged %v differs from body %v", a, b)
		}
	}
	if !(sumTag8 < sumTag2 && sumTag2 < sumBody) {
		t.Errorf("total distance to the tagged term: body %d, boost 2 %d, boost 8 %d; want decreasing", sumBody, sumTag2, sumTag8)
	}
}

// TestMeta checks metadata weights and that documents with the same
// metadata are nearer than documents whose metadata differ.
func TestMeta(t *testing.T) {
	c := newCorpus(11)
	table := c.table(100)
	s := mustSigner(t, table, Options{MetaWeight: 1})
	var same, diff int
	for range 100 {
		body := c.doc(100)
		edited := c.edit(body, 0.05)
		a := s.Sign(Doc{Terms: body, Meta: []string{"author:jane"}})
		same += a.Distance(s.Sign(Doc{Terms: edited, Meta: []string{"author:jane"}}))
		diff += a.Distance(s.Sign(Doc{Terms: edited, Meta: []string{"author:john"}}))
	}
	if same >= diff {
		t.Errorf("total distance with the same author %d, different author %d; want smaller", same, diff)
	}
	d := Doc{Terms: strings.Fields("a b b c"), Meta: []string{"author:jane", "author:jane"}}
	fs := mustSigner(t, nil, Options{}).Features(d)
	last := fs[len(fs)-1]
	if len(fs) != 4 || last != (Feature{features.HashTerm("author:jane"), 0.5 * 2}) {
		t.Errorf("features %v: want 3 terms then author:jane once with weight 0.5 × 2", fs)
	}
}

// TestIDFMatchesTable checks the Signer's idf against stats.Table.IDF for
// document frequencies inside and beyond its cache.
func TestIDFMatchesTable(t *testing.T) {
	dfs := []int{1, 2, 100, idfCacheSize - 1, idfCacheSize, idfCacheSize + 1, 5000}
	var b stats.Builder
	for i := range 5000 {
		var hs []uint64
		for _, df := range dfs {
			if i < df {
				hs = append(hs, features.HashTerm(fmt.Sprint("t", df)))
			}
		}
		b.AddHashes(hs)
	}
	table := b.Table()
	s := mustSigner(t, table, Options{})
	for _, df := range dfs {
		term := fmt.Sprint("t", df)
		fs := s.Features(Doc{Terms: []string{term, term, "unknown"}})
		want := 2 * table.IDF(features.HashTerm(term))
		if df == 5000 {
			if len(fs) != 1 || fs[0].Hash != features.HashTerm("unknown") {
				t.Errorf("term in every document (idf 0) was not dropped: %v", fs)
			}
			continue
		}
		if fs[0].Weight != want {
			t.Errorf("df %d: weight %v, want 2 × IDF = %v", df, fs[0].Weight, want)
		}
	}
}

func TestSignDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items under -race")
	}
	c := newCorpus(12)
	s := mustSigner(t, c.table(50), Options{})
	d := Doc{Terms: c.doc(1000), Tagged: c.doc(5), Meta: []string{"a:b"}}
	s.Sign(d) // grow the scratch space
	if n := testing.AllocsPerRun(100, func() { s.Sign(d) }); n != 0 {
		t.Errorf("Sign allocates %v times per call, want 0", n)
	}
}

// TestSignManyDistinctTerms covers documents with more distinct terms than
// the initial scratch table holds.
func TestSignManyDistinctTerms(t *testing.T) {
	table := newCorpus(13).table(20)
	s := mustSigner(t, table, Options{LowWeight: 0.1})
	for _, n := range []int{maxInitialSlots, 3 * maxInitialSlots} {
		d := Doc{Tagged: []string{"t0", "t1"}}
		for i := range n {
			d.Terms = append(d.Terms, fmt.Sprint("t", i%(n/2+7)))
		}
		fs := s.Features(d)
		got := map[uint64]float64{}
		for i, f := range fs {
			got[f.Hash] = f.Weight
			if want := features.HashTerm(fmt.Sprint("t", i)); f.Hash != want {
				t.Fatalf("n=%d: feature %d is not t%d: order of first occurrence lost", n, i, i)
			}
		}
		if want := referenceFeatures(table, s.Options(), d); !maps.Equal(got, want) {
			t.Fatalf("n=%d: %d features, reference %d", n, len(got), len(want))
		}
		if s.Sign(d) != FromFeatures(fs) {
			t.Fatalf("n=%d: Sign differs from FromFeatures(Features)", n)
		}
	}
}
