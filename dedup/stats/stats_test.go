package stats

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/doppel-search/doppel/dedup/features"
)

func build(docs ...string) *Table {
	var b Builder
	for _, d := range docs {
		b.Add(features.Tokens(d))
	}
	return b.Table()
}

func TestTable(t *testing.T) {
	tab := build("a b b c", "a c", "a d", "a")
	h := features.HashTerm
	tests := []struct {
		term string
		df   int
		nidf float64
	}{
		{"a", 4, 0},
		{"b", 1, 1}, // counted once although it occurs twice
		{"c", 2, math.Log(2) / math.Log(4)},
		{"unseen", 0, 1},
	}
	for _, tt := range tests {
		if got := tab.DF(h(tt.term)); got != tt.df {
			t.Errorf("DF(%s) = %d, want %d", tt.term, got, tt.df)
		}
		if got := tab.NIDF(h(tt.term)); math.Abs(got-tt.nidf) > 1e-12 {
			t.Errorf("NIDF(%s) = %v, want %v", tt.term, got, tt.nidf)
		}
	}
	if tab.Docs() != 4 || tab.Terms() != 4 {
		t.Errorf("Docs, Terms = %d, %d; want 4, 4", tab.Docs(), tab.Terms())
	}
	n := 0
	for range tab.All() {
		n++
	}
	if n != 4 {
		t.Errorf("All yielded %d terms, want 4", n)
	}
	var empty *Table
	if empty.NIDF(h("a")) != 0 || empty.DF(h("a")) != 0 {
		t.Error("nil table must know no terms")
	}
}

func TestTableIsFrozen(t *testing.T) {
	var b Builder
	b.Add([]string{"x"})
	tab := b.Table()
	b.Add([]string{"x"})
	if tab.DF(features.HashTerm("x")) != 1 || tab.Docs() != 1 {
		t.Error("Table changed after a later Builder.Add")
	}
}

func TestSaveLoad(t *testing.T) {
	tab := build("alpha beta", "beta gamma", "gamma delta epsilon")
	path := filepath.Join(t.TempDir(), "df.stats")
	if err := tab.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Docs() != tab.Docs() || got.Terms() != tab.Terms() {
		t.Fatalf("loaded %d docs/%d terms, want %d/%d", got.Docs(), got.Terms(), tab.Docs(), tab.Terms())
	}
	for h, df := range tab.All() {
		if got.DF(h) != df {
			t.Errorf("DF(%x) = %d after load, want %d", h, got.DF(h), df)
		}
	}
	data, _ := os.ReadFile(path)
	for _, cut := range []int{0, 5, len(data) / 2, len(data) - 1} {
		os.WriteFile(path, data[:cut], 0o644)
		if _, err := Load(path); !errors.Is(err, ErrCorrupt) {
			t.Errorf("truncated to %d: err = %v, want ErrCorrupt", cut, err)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte{})
	f.Add(make([]byte, 16))
	f.Fuzz(func(t *testing.T, p []byte) {
		tab, err := decode(p)
		if err == nil && tab.Terms() > len(p)/12 {
			t.Fatalf("decoded %d terms from %d bytes", tab.Terms(), len(p))
		}
	})
}

// TestMerge checks that builders filled with parts of a collection and
// merged count what one builder given all of it counts.
func TestMerge(t *testing.T) {
	docs := [][]string{{"a", "b", "a"}, {"b", "c"}, {"c"}, {"d", "a"}}
	var all, left, right, empty Builder
	for i, d := range docs {
		all.Add(d)
		if i%2 == 0 {
			left.Add(d)
		} else {
			right.Add(d)
		}
	}
	var merged Builder
	for _, b := range []*Builder{&left, &empty, &right} {
		merged.Merge(b)
	}
	want, got := all.Table(), merged.Table()
	if got.Docs() != want.Docs() || got.Terms() != want.Terms() {
		t.Fatalf("merged %d docs, %d terms; want %d, %d", got.Docs(), got.Terms(), want.Docs(), want.Terms())
	}
	for h, df := range want.All() {
		if got.DF(h) != df {
			t.Errorf("term %x: df %d, want %d", h, got.DF(h), df)
		}
	}
}
