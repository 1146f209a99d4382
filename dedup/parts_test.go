package dedup

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/dedup/cluster"
)

// TestContainedIn: a page and a document that appends a section to it
// stay apart (the part rule), and the page is recorded as contained in
// the document whichever arrives first (Result.ContainedIn on the part's
// arrival, Result.Parts on the whole's); twins, different documents and
// a text sharing half of another are no part of anything. The relation
// survives a snapshot and is forgotten when either document leaves.
func TestContainedIn(t *testing.T) {
	text := prose(1, 3000)
	plain := Document{ID: "plain.html", Text: strings.Join(text, " "), Preference: 1}
	appended := Document{ID: "more.pdf", Text: strings.Join(text, " ") + " " + strings.Join(prose(6, 420), " "), Extracted: true}
	twin := Document{ID: "twin.pdf", Text: strings.Join(text, " "), Extracted: true}
	other := Document{ID: "other.pdf", Text: strings.Join(prose(7, 3000), " "), Extracted: true}
	half := Document{ID: "half.pdf", Text: strings.Join(text[:1500], " ") + " " + strings.Join(prose(5, 1500), " "), Extracted: true}
	opts := Options{EditAllowance: 3, Containment: 0.85, Master: cluster.ShortestURL}
	for _, c := range []struct {
		name          string
		first, second Document
		part, whole   string // "": no part
	}{
		{"page, then a document that appends a section", plain, appended, "plain.html", "more.pdf"},
		{"the document, then the page", appended, plain, "plain.html", "more.pdf"},
		{"twins", plain, twin, "", ""},
		{"different documents", plain, other, "", ""},
		{"half shared", plain, half, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := New(nil, opts)
			if err != nil {
				t.Fatal(err)
			}
			r1, err := d.Add(c.first)
			if err != nil {
				t.Fatal(err)
			}
			r2, err := d.Add(c.second)
			if err != nil {
				t.Fatal(err)
			}
			if r1.ContainedIn != "" || r1.Parts != nil {
				t.Errorf("first: contained in %q, parts %q: nothing to compare with yet", r1.ContainedIn, r1.Parts)
			}
			in, share, ok := d.ContainedIn(c.part)
			if c.part == "" {
				for _, id := range []string{c.first.ID, c.second.ID} {
					if in, _, ok := d.ContainedIn(id); ok {
						t.Errorf("%s contained in %s", id, in)
					}
				}
				if r2.ContainedIn != "" || r2.Parts != nil {
					t.Errorf("second: contained in %q, parts %q", r2.ContainedIn, r2.Parts)
				}
				return
			}
			if !ok || in != c.whole || share < opts.Threshold {
				t.Fatalf("ContainedIn(%s) = %q, %.3f, %v; want %s", c.part, in, share, ok, c.whole)
			}
			if r2.Cluster == r1.Cluster {
				t.Errorf("the part joined the whole's cluster: a part is not a twin")
			}
			if c.second.ID == c.part && r2.ContainedIn != c.whole || c.second.ID == c.whole && !slices.Equal(r2.Parts, []string{c.part}) {
				t.Errorf("second's result: contained in %q, parts %q", r2.ContainedIn, r2.Parts)
			}
			var buf bytes.Buffer
			if err := d.WriteSnapshot(&buf); err != nil {
				t.Fatal(err)
			}
			restored, err := ReadSnapshot(&buf, opts)
			if err != nil {
				t.Fatal(err)
			}
			if in, _, ok := restored.ContainedIn(c.part); !ok || in != c.whole {
				t.Errorf("after a snapshot: ContainedIn(%s) = %q, %v", c.part, in, ok)
			}
			if _, err := restored.Remove(c.whole); err != nil {
				t.Fatal(err)
			}
			if in, _, ok := restored.ContainedIn(c.part); ok {
				t.Errorf("the whole removed, %s still contained in %q", c.part, in)
			}
		})
	}
}
