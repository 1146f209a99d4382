package dedup

import (
	"fmt"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/dedup/cluster"
	"github.com/doppel-search/doppel/dedup/features"
)

// TestReplacedPassage: a document whose text is a page's with a passage
// of 8 % replaced inside it shares 0.92 of the page's shingles each way,
// as a twin whose format adds furniture does; it stays apart from the
// page, whichever arrives first, while furniture scattered through the
// text or a passage added at its end joins. Each case is one that
// containment alone would join. Two pages
// (neither extracted) are decided by resemblance alone.
func TestReplacedPassage(t *testing.T) {
	text := prose(21, 2000)
	page := strings.Join(text, " ")
	replaced := strings.Join(text[:900], " ") + " " + strings.Join(prose(22, 160), " ") + " " + strings.Join(text[1060:], " ")
	scattered := withEvery(text, 100, func(i int) string {
		return fmt.Sprintf("Printed on 2026-11-28 page %d of 20 http://intranet.example/docs/manual.html", i)
	})
	// A passage added at the end, beside a page whose navigation line
	// every 400 words the document lacks (one-sided, an addition would be
	// a part).
	navPage := withEvery(text, 400, func(i int) string { return fmt.Sprintf("Next: section %d, Previous: section %d, Up: Top", i+1, i-1) })
	atEnd := page + " " + strings.Join(prose(23, 180), " ")
	opts := Options{EditAllowance: 3, Containment: 0.85, Master: cluster.ShortestURL}
	htmlDoc := Document{ID: "page.html", Text: page, Preference: 1}
	for _, c := range []struct {
		name          string
		first, second Document
		twins         bool
	}{
		{"page, then a DOCX with a passage replaced", htmlDoc, Document{ID: "v2.docx", Text: replaced, Extracted: true}, false},
		{"a DOCX with a passage replaced, then the page", Document{ID: "v2.docx", Text: replaced, Extracted: true}, htmlDoc, false},
		{"page, then a PDF with furniture scattered", htmlDoc, Document{ID: "page.pdf", Text: scattered, Extracted: true}, true},
		{"page, then a PDF with a passage added at its end", Document{ID: "page.html", Text: navPage, Preference: 1}, Document{ID: "page.pdf", Text: atEnd, Extracted: true}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := New(nil, opts)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := d.Add(c.first); err != nil {
				t.Fatal(err)
			}
			res, err := d.Add(c.second)
			if err != nil {
				t.Fatal(err)
			}
			pa, _ := d.Prepare(Document{ID: "x", Text: c.first.Text})
			pb, _ := d.Prepare(Document{ID: "y", Text: c.second.Text})
			if r, _ := d.match(pa.rec, pb.rec); r >= 0.9 {
				t.Fatalf("resemblance %.3f: the case needs one below the threshold", r)
			}
			inter := features.Intersection(pa.rec.set, pb.rec.set)
			if _, ok := twinScore(inter, len(pa.rec.set), len(pb.rec.set), 0.9, 0.85); !ok {
				t.Fatalf("containment alone keeps the pair apart (%d of %d and %d): the case needs sets that join", inter, len(pa.rec.set), len(pb.rec.set))
			}
			if res.Duplicate != c.twins {
				t.Fatalf("joined %v, want %v (pairs %v)", res.Duplicate, c.twins, res.Pairs)
			}
			if !c.twins {
				if in, _, ok := d.ContainedIn(c.second.ID); ok {
					t.Errorf("%s recorded as contained in %s: a version is not a part", c.second.ID, in)
				}
			}
		})
	}
}

// TestInteriorRun: the longest run of shingles the other set lacks with
// enough it holds before and after; runs at either end and shingles the
// document's own set lacks (common ones) do not count.
func TestInteriorRun(t *testing.T) {
	own := []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9}
	for _, c := range []struct {
		name       string
		seq, other []uint64
		inside     int
		want       int
	}{
		{"all matched", []uint64{1, 2, 3}, []uint64{1, 2, 3}, 1, 0},
		{"one run inside", []uint64{1, 4, 5, 6, 2}, []uint64{1, 2}, 1, 3},
		{"the longest of two", []uint64{1, 4, 2, 5, 6, 7, 3}, []uint64{1, 2, 3}, 1, 3},
		{"runs at the ends do not count", []uint64{4, 5, 1, 6, 2, 7, 8, 9}, []uint64{1, 2}, 1, 1},
		{"a common shingle neither ends nor extends", []uint64{1, 4, 100, 5, 2}, []uint64{1, 2, 100}, 1, 2},
		{"nothing matched", []uint64{4, 5, 6}, nil, 1, 0},
		{"too little text before it", []uint64{1, 4, 5, 2, 3}, []uint64{1, 2, 3}, 2, 0},
		{"enough on both sides", []uint64{1, 2, 4, 5, 3, 6}, []uint64{1, 2, 3, 6}, 2, 2},
	} {
		if got := interiorRun(c.seq, own, c.other, c.inside); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}
