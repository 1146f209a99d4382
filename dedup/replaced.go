package dedup

import (
	"slices"

	"github.com/doppel-search/doppel/dedup/features"
)

// Two versions of a document, one with a passage replaced by another
// text, and a document and its version in another format can share the
// same shares of their shingles: a tenth of a chapter replaced costs
// both sides about a tenth, and so does a format's furniture (a page's
// navigation, a PDF's running headers). Sets cannot tell them apart;
// where the unmatched shingles lie can. Furniture is scattered through
// the text, or stands at its beginning or end (a header, a table of
// contents, an index), while a replaced passage is one run of unmatched
// shingles inside it. So a pair that only containment joins (its
// resemblance below Options.Threshold: see twinScore) stays apart when
// an extracted document of the two, read in its order, holds such a run
// inside its text — between shingles the other holds — of at least
// replacedShare of its shingles and at least minReplaced of them.
//
// The order is kept for extracted documents only (Document.Extracted,
// under exact verification with Options.Containment: 8 bytes a word), in
// memory while the document is; a snapshot does not keep it, so a pair
// with a document read from one is decided by its sets alone.

// replacedShare and minReplaced bound a replaced passage: a twentieth of
// the document's shingles and 50 of them. The furniture of a format that
// falls inside a text — a PDF's running header and footer, a page number,
// a figure's caption — is a line or two, well under 50 words.
const (
	replacedShare = 0.05
	minReplaced   = 50
)

// minInside is the fewest shingles the other document holds that a
// replaced passage has on either side: it lies inside the text.
const minInside = 50

// keepsOrder reports whether extracted documents keep their shingles in
// order for replacedRun: exact verification of shingles with
// containment.
func (d *Detector) keepsOrder() bool {
	o := &d.opts
	return o.Containment > 0 && o.Method == Hybrid && o.Verify == Exact && o.Similarity != Cosine
}

// order returns the shingles of doc's tokens in text order if doc is an
// extracted document and extracted documents keep their order; nil
// otherwise.
func (d *Detector) order(doc Document, tokens []string) []uint64 {
	if !doc.Extracted || !d.keepsOrder() {
		return nil
	}
	return features.Shingles(tokens, d.opts.ShingleWidth)
}

// replacedRun reports whether a or b, an extracted document that keeps
// its order, holds a replaced passage against the other (see above).
func (d *Detector) replacedRun(a, b *record, src setSource) bool {
	sa, sb := src.set(a, 0), src.set(b, 1)
	return replacedIn(a, sa, sb) || replacedIn(b, sb, sa)
}

// replacedIn reports whether rec's ordered shingles hold a replaced
// passage: own is rec's set, other the other document's.
func replacedIn(rec *record, own, other []uint64) bool {
	if rec.more == nil || len(rec.more.seq) == 0 || len(own) == 0 {
		return false
	}
	need := max(minReplaced, int(replacedShare*float64(len(own))))
	return interiorRun(rec.more.seq, own, other, minInside) >= need
}

// interiorRun returns the length of the longest run of shingles of seq
// (in text order) that other lacks with at least inside shingles other
// holds before it and after it: runs at the beginning and end (a
// footer followed by a stray shared line is still at the end) do not
// count. A shingle own lacks (dropped as common: Options.MaxShingleDocs)
// neither ends nor extends a run.
func interiorRun(seq, own, other []uint64, inside int) int {
	held := make([]int8, len(seq)) // 1: other holds it, -1: lacks it, 0: skipped
	after := 0
	for i, s := range seq {
		if _, ok := slices.BinarySearch(own, s); !ok {
			continue
		}
		held[i] = -1
		if _, ok := slices.BinarySearch(other, s); ok {
			held[i] = 1
			after++
		}
	}
	best, run, before := 0, 0, 0
	for _, h := range held {
		switch h {
		case 1:
			after--
			if run > best && before >= inside && after+1 >= inside {
				best = run
			}
			run = 0
			before++
		case -1:
			run++
		}
	}
	return best
}
