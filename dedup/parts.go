package dedup

import (
	"slices"

	"github.com/doppel-search/doppel/dedup/features"
)

// A partial copy — a chapter and the book that holds it, a page and a
// document that appends a section to it — is not a near-duplicate: the
// part rule (twinScore) keeps the two in clusters of their own, each
// found by its own words. What the verification saw is kept instead: a
// document whose shingles are mostly (Options.Threshold) inside a larger
// one's is "contained in" it ([Detector.ContainedIn], Result.ContainedIn
// and Result.Parts), so that a user shown the chapter can be pointed to
// the book. Only pairs verified are seen (a candidate that failed the
// match: a document and the master of a cluster it is a candidate of, or
// a member with pairs), and only under exact verification of shingles
// with Options.Containment set (the crawl's options, Web): a chapter of
// a book much larger than itself is seldom a candidate (their
// resemblance is about the share of the book it is), a page and its
// document with an appended section is.

// part is a containment found by verify: document doc's shingles are
// mostly inside document in's, share of them.
type part struct {
	doc, in uint32
	share   float64
}

// A container is the larger document a part is contained in, by id, and
// the share of the part's shingles it holds.
type container struct {
	ID    string
	Share float64
}

// notePart records in partBuf whether rec (document idx) or other
// (document o), a candidate pair the match rejected, is contained in the
// other: the smaller one's containment is at least Threshold. Cost: one
// more intersection of their sets, for rejected candidates only.
func (d *Detector) notePart(idx uint32, rec *record, o uint32, other *record) {
	opts := &d.opts
	if opts.Containment == 0 || opts.Method != Hybrid || opts.Verify != Exact || opts.Similarity == Cosine || other == nil {
		return
	}
	a, b := d.setOf(rec, 0), d.setOf(other, 1)
	if len(a) == 0 || len(b) == 0 || len(a) == len(b) {
		return
	}
	p := part{doc: idx, in: o}
	small := len(a)
	if len(b) < len(a) {
		p.doc, p.in, small = o, idx, len(b)
	}
	if replacedIn(rec, a, b) || replacedIn(other, b, a) {
		return // two versions, not a part of a whole (see replacedRun)
	}
	if p.share = float64(features.Intersection(a, b)) / float64(small); p.share >= opts.Threshold {
		d.partBuf = append(d.partBuf, p)
	}
}

// keepParts records the parts the last verify of document id found
// (partBuf): for each part, its container with the largest share. It
// returns the container of id, if it is a part, and the parts of id.
func (d *Detector) keepParts(id string) (in string, parts []string) {
	if d.remote != nil {
		return "", nil
	}
	for _, p := range d.partBuf {
		if d.docs[p.doc] == nil || d.docs[p.in] == nil {
			continue
		}
		part, whole := d.docs[p.doc].member.ID, d.docs[p.in].member.ID
		if c, ok := d.parts[part]; ok && c.Share >= p.share && c.ID != whole {
			continue
		}
		d.parts[part] = container{ID: whole, Share: p.share}
	}
	d.partBuf = d.partBuf[:0]
	for part, c := range d.parts {
		if c.ID == id {
			parts = append(parts, part)
		}
	}
	slices.Sort(parts)
	return d.parts[id].ID, parts
}

// dropParts forgets every containment document id is in, as part or as
// container: it is removed, or has a new version.
func (d *Detector) dropParts(id string) {
	delete(d.parts, id)
	for part, c := range d.parts {
		if c.ID == id {
			delete(d.parts, part)
		}
	}
}

// ContainedIn returns the id of the larger document the document id is a
// part of — most of its shingles (at least Options.Threshold of them)
// are in that one's, which holds much more: the part rule kept them
// apart (see twinScore) — and the share of its shingles found there. ok
// is false if id is no known part of another. The relation is kept in
// snapshots, and forgotten when either document is removed or replaced.
func (d *Detector) ContainedIn(id string) (in string, share float64, ok bool) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	c, ok := d.parts[id]
	return c.ID, c.Share, ok
}
