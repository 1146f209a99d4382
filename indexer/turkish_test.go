package indexer

import (
	"context"
	"slices"
	"testing"
)

// turkishTerms returns the terms the Turkish analyzer makes of word.
func turkishTerms(t *testing.T, word string) []string {
	t.Helper()
	a := Mapping().AnalyzerNamed(AnalyzerFor("tr"))
	if a == nil {
		t.Fatal("no Turkish analyzer")
	}
	var out []string
	for _, tok := range a.Analyze([]byte(word)) {
		out = append(out, string(tok.Term))
	}
	return out
}

// TestTurkishFormsMeet: a bare Turkish noun and its plural or case form
// share a term (Snowball alone makes "si" of "site" and "site" of
// "siteler"), a form of a stop word is dropped as the stop word is, and
// unrelated words share none.
func TestTurkishFormsMeet(t *testing.T) {
	for _, c := range []struct {
		a, b string
		meet bool
	}{
		{"site", "siteler", true},
		{"sürüm", "sürümler", true},
		{"sunucu", "sunucular", true},
		{"harita", "haritalar", true},
		{"program", "programlar", true},
		{"belge", "belgeleri", true},
		{"modül", "modülü", true},
		{"diğer", "diğeri", true}, // a stop word: both dropped
		{"olan", "olanlar", true}, // a stop word: both dropped
		{"site", "sis", false},
		{"sunucu", "sunum", false},
		{"kitap", "kira", false},
		{"program", "proje", false},
		{"sürüm", "sunucu", false},
		{"belge", "belirti", false},
	} {
		ta, tb := turkishTerms(t, c.a), turkishTerms(t, c.b)
		dropped := len(ta) == 0 && len(tb) == 0
		shared := slices.ContainsFunc(ta, func(x string) bool { return slices.Contains(tb, x) })
		if got := dropped || shared; got != c.meet {
			t.Errorf("%s %v, %s %v: meet %v, want %v", c.a, ta, c.b, tb, got, c.meet)
		}
	}
}

// TestTurkishFormsAtOnePosition: the word and its stem stand at the
// word's position, so that a phrase of Turkish words still matches.
func TestTurkishFormsAtOnePosition(t *testing.T) {
	a := Mapping().AnalyzerNamed(AnalyzerFor("tr"))
	got := map[string]int{}
	for _, tok := range a.Analyze([]byte("Site Haritası ve sürümler")) {
		got[string(tok.Term)] = tok.Position
	}
	want := map[string]int{"si": 1, "site": 1, "haritas": 2, "haritası": 2, "sürüm": 4, "sürümler": 4}
	for term, pos := range want {
		if got[term] != pos {
			t.Errorf("%q at %d, want %d (all: %v)", term, got[term], pos, got)
		}
	}
	if _, ok := got["ve"]; ok {
		t.Errorf("stop word ve kept: %v", got)
	}
}

// TestTurkishPagesFoundByOtherForms: a Turkish page whose title has the
// bare noun is found by its plural and the other way round, and by a
// phrase with the other form.
func TestTurkishPagesFoundByOtherForms(t *testing.T) {
	ix := memIndex(t, Mapping(), Options{Policy: All})
	ctx := context.Background()
	docs := []Doc{
		{ID: "sitemap", Lang: "tr", Title: "Site Haritası", Body: "Bu sayfa bütün belgeleri gösterir."},
		{ID: "servers", Lang: "tr", Title: "Sunucular", Body: "Yapılandırma."},
		{ID: "other", Lang: "tr", Title: "Kitap", Body: "Kira sözleşmesi."},
	}
	for _, d := range docs {
		d.URL = "http://x/" + d.ID
		if err := ix.Add(ctx, d, Placement{ID: d.ID, Cluster: d.ID, Master: d.ID}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		q    string
		want []string
	}{
		{"siteler", []string{"sitemap"}},
		{"site", []string{"sitemap"}},
		{"sunucu", []string{"servers"}},
		{"sunucular", []string{"servers"}},
		{"kitaplar", []string{"other"}},
	} {
		if got := hitIDs(t, ix, ix.Searchable(TextQuery(c.q))); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.q, got, c.want)
		}
	}
}
