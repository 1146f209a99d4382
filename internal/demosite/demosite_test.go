package demosite

import "testing"

func TestPagesAreDeterministicAndUnique(t *testing.T) {
	a, b := Pages(), Pages()
	if len(a) != len(b) || len(a) < 30 {
		t.Fatalf("len(Pages) = %d then %d, want equal and >= 30", len(a), len(b))
	}
	paths := map[string]bool{}
	families := map[string]int{}
	for i, p := range a {
		if p != b[i] {
			t.Fatalf("page %d differs between calls", i)
		}
		if paths[p.Path] || p.Text == "" || p.Title == "" {
			t.Fatalf("page %q: duplicate path or empty text/title", p.Path)
		}
		paths[p.Path] = true
		if p.Family != "" {
			families[p.Family]++
		}
	}
	if len(families) != len(sections)+1 {
		t.Errorf("%d families, want %d (manual sections and the notices)", len(families), len(sections)+1)
	}
}
