// Package stats holds the collection statistics that I-Match lexicons and
// SimHash weights are computed from: a document-frequency table.
//
// A [Builder] counts, in one pass over a corpus, how many documents contain
// each term. [Builder.Table] freezes the counts into an immutable [Table]:
// while documents are being signed the table never changes, so the same
// document always gets the same signature. To refresh statistics, build a
// new Table and re-sign stored documents with it (the dedup detector's
// Refresh does that). Tables are saved to and loaded from files that carry a
// checksum, so a truncated file is refused rather than half-read.
//
// Terms are identified by their 64-bit hash ([features.HashTerm]).
package stats
