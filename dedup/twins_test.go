package dedup

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/dedup/cluster"
)

// prose returns n words of made-up prose, the same for the same seed.
func prose(seed uint64, n int) []string {
	r := rand.New(rand.NewPCG(seed, 7))
	words := make([]string, n)
	for i := range words {
		words[i] = fmt.Sprintf("w%c%c%c", 'a'+r.IntN(26), 'a'+r.IntN(26), 'a'+r.IntN(26))
	}
	return words
}

// withEvery inserts extra after every k words of words.
func withEvery(words []string, k int, extra func(i int) string) string {
	var b strings.Builder
	for i, w := range words {
		if i > 0 && i%k == 0 {
			b.WriteString(extra(i/k) + " ")
		}
		b.WriteString(w + " ")
	}
	return b.String()
}

// TestTwinsByContainment: a document that holds a page's text plus what
// its format adds (a printed link target every 150 words, an index),
// while the page holds a navigation line every 200 words — resemblance
// near 0.83 — is the page's twin when one of the two is an extracted
// document, whichever arrives first, with the page (Preference) as
// master; two pages that differ so are not twins, nor a chapter and the
// book that holds it, nor a page and a document that adds a section to
// it (a part: see twinScore), nor a document and another that shares
// half its text.
func TestTwinsByContainment(t *testing.T) {
	text := prose(1, 3000)
	page := withEvery(text, 200, func(i int) string { return fmt.Sprintf("Next: section %d, Previous: section %d, Up: Top", i+1, i-1) })
	doc := withEvery(text, 150, func(i int) string { return fmt.Sprintf("(https://cran.r-project.org/package=pkg%d)", i) }) +
		" Index " + strings.Join(prose(2, 100), " , page ")
	book := strings.Join(prose(3, 3000), " ") + " " + strings.Join(text, " ") + " " + strings.Join(prose(4, 3000), " ")
	half := strings.Join(text[:1500], " ") + " " + strings.Join(prose(5, 1500), " ")
	// The page's text and a section of a tenth of its length after it, as
	// one document (heldout-site.sh's vacuum-logs.pdf): the page is whole
	// in it, and it holds 0.88 of it.
	appended := strings.Join(text, " ") + " " + strings.Join(prose(6, 420), " ")
	opts := Options{EditAllowance: 3, Containment: 0.85, Master: cluster.ShortestURL}
	htmlDoc := Document{ID: "manual.html", URL: "file:///m/manual.html", Text: page, Preference: 1}
	pdfDoc := Document{ID: "manual.pdf", URL: "file:///m/manual.pdf", Text: doc, Extracted: true}
	for _, c := range []struct {
		name   string
		first  Document
		second Document
		twins  bool
	}{
		{"page, then its PDF", htmlDoc, pdfDoc, true},
		{"PDF, then its page", pdfDoc, htmlDoc, true},
		{"two pages", htmlDoc, Document{ID: "other.html", URL: "file:///m/other.html", Text: doc, Preference: 1}, false},
		{"chapter page, then the book's PDF", htmlDoc, Document{ID: "book.pdf", Text: book, Extracted: true}, false},
		{"book's PDF, then a chapter's PDF", Document{ID: "book.pdf", Text: book, Extracted: true}, pdfDoc, false},
		{"a PDF sharing half the text", htmlDoc, Document{ID: "half.pdf", Text: half, Extracted: true}, false},
		{"page, then a PDF that appends a section", Document{ID: "plain.html", Text: strings.Join(text, " "), Preference: 1}, Document{ID: "more.pdf", Text: appended, Extracted: true}, false},
		{"a PDF that appends a section, then the page", Document{ID: "more.pdf", Text: appended, Extracted: true}, Document{ID: "plain.html", Text: strings.Join(text, " "), Preference: 1}, false},
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
			if res.Duplicate != c.twins {
				t.Fatalf("joined %v, want %v (pairs %v)", res.Duplicate, c.twins, res.Pairs)
			}
			if !c.twins {
				return
			}
			if res.Master != htmlDoc.ID || res.Edited {
				t.Errorf("master %s, edited %v; want %s, not edited", res.Master, res.Edited, htmlDoc.ID)
			}
			if len(res.Pairs) != 1 || res.Pairs[0].Score < 0.9 {
				t.Errorf("pairs %v, want one scored by its containment (≥ 0.9)", res.Pairs)
			}
		})
	}
}

func TestTwinScore(t *testing.T) {
	for _, c := range []struct {
		inter, na, nb int
		score         float64
		ok            bool
	}{
		{90, 100, 100, 0.9, true},       // each holds 0.9 of the other
		{95, 100, 110, 0.95, true},      // 0.95 and 0.864
		{95, 100, 120, 0.95, false},     // 0.95 and 0.79: the larger holds a fifth more
		{100, 100, 1400, 1, false},      // a chapter of a book of 14
		{88, 100, 100, 0.88, false},     // neither holds 0.9 of the other
		{0, 0, 10, 0, false},            // an empty set
		{1000, 1000, 1176, 1.0, false},  // wholly contained, the larger holds 0.85: a part
		{1000, 1000, 1177, 1.0, false},  // contained, below 0.85
		{930, 1000, 1050, 0.93, true},   // furniture both ways: 0.93 and 0.886
		{990, 1000, 1150, 0.99, false},  // 0.99 and 0.861: a section appended in one place
		{960, 1000, 1100, 0.96, true},   // 0.96 and 0.873: 0.127 ≤ 4 × 0.04
		{975, 1000, 1100, 0.975, false}, // 0.975 and 0.886: 0.114 > 4 × 0.025
		{990, 1000, 1090, 0.99, true},   // 0.99 and 0.908: above the threshold, a twin
	} {
		s, ok := twinScore(c.inter, c.na, c.nb, 0.9, 0.85)
		if ok != c.ok || ok && s != c.score {
			t.Errorf("twinScore(%d, %d, %d) = %.3f %v, want %.3f %v", c.inter, c.na, c.nb, s, ok, c.score, c.ok)
		}
	}
}

// TestExtractedKept: a document's Extracted mark outlives a snapshot and
// a shared detector's record encoding, so its twin arriving later is
// still judged by containment.
func TestExtractedKept(t *testing.T) {
	text := prose(1, 3000)
	page := withEvery(text, 200, func(i int) string { return fmt.Sprintf("Next: section %d, Previous: section %d, Up: Top", i+1, i-1) })
	doc := withEvery(text, 150, func(i int) string { return fmt.Sprintf("(https://cran.r-project.org/package=pkg%d)", i) })
	opts := Options{EditAllowance: 3, Containment: 0.85, Master: cluster.ShortestURL}
	d, err := New(nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Add(Document{ID: "manual.pdf", Text: doc, Extracted: true}); err != nil {
		t.Fatal(err)
	}
	var snap bytes.Buffer
	if err := d.WriteSnapshot(&snap); err != nil {
		t.Fatal(err)
	}
	restored, err := ReadSnapshot(&snap, opts)
	if err != nil {
		t.Fatal(err)
	}
	res, err := restored.Add(Document{ID: "manual.html", Text: page, Preference: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Duplicate || res.Master != "manual.html" {
		t.Errorf("after a snapshot: joined %v, master %s; want joined, manual.html", res.Duplicate, res.Master)
	}
	rec, err := decodeRecord(encodeRecord(snapRecord{Extracted: true}))
	if err != nil || !rec.Extracted {
		t.Errorf("shared record: extracted %v (%v), want true", rec.Extracted, err)
	}
}
