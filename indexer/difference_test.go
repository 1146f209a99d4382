package indexer

import (
	"slices"
	"testing"
)

func TestDifference(t *testing.T) {
	master := &Doc{ID: "m", Title: "EscapeDefault", Headings: []string{"Struct EscapeDefault", "Trait Implementations"},
		Anchors: []string{"EscapeDefault", "Next"}, Body: "Yields the default escape.\n\nimpl Clone\n\nimpl Debug", Template: []string{"Stable since 1.0"}}
	for _, tc := range []struct {
		name string
		doc  Doc
		want *Doc // nil: no record
	}{
		{"exact copy", Doc{Title: "EscapeDefault", Headings: master.Headings, Anchors: []string{"Next"}, Body: master.Body}, nil},
		{"case and spacing", Doc{Title: " escapedefault ", Body: "Yields the  default\nescape.\n\nimpl   Clone"}, nil},
		{"a name of its own", Doc{Title: "EscapeUnicode", Headings: []string{"Struct EscapeUnicode", "Trait Implementations"},
			Anchors: []string{"EscapeUnicode", "Next"}, Body: "Yields the unicode escape.\n\nimpl Clone\n\nimpl Debug"},
			&Doc{Title: "EscapeUnicode", Headings: []string{"Struct EscapeUnicode"}, Anchors: []string{"EscapeUnicode"},
				Body: "Yields the unicode escape."}},
		{"a block of its own", Doc{Title: "EscapeDefault", Body: "impl Clone\n\nimpl Hash\n\nimpl Hash\n\n\n\nimpl Debug"},
			&Doc{Body: "impl Hash"}},
		{"template text of its own", Doc{Title: "EscapeDefault", Body: master.Body, Template: []string{"Available on x86-64 only.", "Stable since 1.0"}},
			&Doc{Body: "Available on x86-64 only."}},
		{"template text as the master's body", Doc{Title: "EscapeDefault", Body: "impl Clone", Template: []string{"impl Debug"}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.doc
			d.ID, d.URL, d.Cluster, d.Groups = "d", "http://x/d", "c", []string{"hr"}
			got := Difference(&d, master)
			if tc.want == nil {
				if got != nil {
					t.Fatalf("got %+v, want none", got)
				}
				return
			}
			if got == nil {
				t.Fatal("got none")
			}
			if got.ID != "d" || got.URL != d.URL || got.Cluster != "c" || !slices.Equal(got.Groups, d.Groups) || !got.Diff || got.Master || got.Template != nil {
				t.Errorf("identity %+v", got)
			}
			if got.Title != tc.want.Title || got.Body != tc.want.Body || !slices.Equal(got.Headings, tc.want.Headings) ||
				!slices.Equal(got.Anchors, tc.want.Anchors) {
				t.Errorf("got title %q headings %q anchors %q body %q, want %q %q %q %q", got.Title, got.Headings, got.Anchors, got.Body,
					tc.want.Title, tc.want.Headings, tc.want.Anchors, tc.want.Body)
			}
		})
	}
}

func FuzzDifference(f *testing.F) {
	f.Add("a\n\nb", "b\n\nc", "t", "u")
	f.Fuzz(func(t *testing.T, body, mbody, title, mtitle string) {
		d := &Doc{ID: "d", Title: title, Body: body}
		m := &Doc{ID: "m", Title: mtitle, Body: mbody}
		r := Difference(d, m)
		if r == nil {
			return
		}
		// Every block of the record is a block of d and none of m's.
		for _, b := range Blocks(r.Body) {
			if !slices.ContainsFunc(Blocks(d.Body), func(x string) bool { return norm(x) == norm(b) }) ||
				slices.ContainsFunc(Blocks(m.Body), func(x string) bool { return norm(x) == norm(b) }) {
				t.Fatalf("block %q of %q against %q", b, body, mbody)
			}
		}
		if Difference(d, d) != nil {
			t.Fatalf("a document differs from itself: %q", body)
		}
	})
}
