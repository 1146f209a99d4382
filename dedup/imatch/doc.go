// Package imatch computes I-Match signatures (Chowdhury, Frieder, Grossman
// and McCabe, "Collection statistics for fast duplicate document
// detection", 2002) and their randomized multi-lexicon variant (Kołcz,
// Chowdhury and Alspector, "Improved robustness of signature-based
// near-replica detection via lexicon randomization", 2004).
//
// An I-Match signature is the SHA-1 digest of the set of a document's
// unique terms that belong to a lexicon: the terms are sorted bytewise and
// each is followed by a 0x00 byte. Two documents are I-Match duplicates
// when their signatures are equal, so duplicates are found with one hash
// lookup per document. Terms that are not in the lexicon do not affect the
// signature at all; adding, removing or changing one lexicon term changes
// it.
//
// The lexicon is chosen from collection statistics, a frozen
// [stats.Table], in one of three ways ([Mode]):
//
//   - [Range] (default): the terms of the table whose normalized idf lies
//     in [MinNIDF, MaxNIDF], by default [0.2, 0.8]: neither very common
//     nor very rare terms.
//   - [IDFL10]: the paper's IDF-L-10, the terms of the table with
//     normalized idf at least 0.1.
//   - [DocL90]: the paper's Doc-L-90, no collection lexicon: each document
//     keeps its 90% highest-idf unique terms.
//
// A term that is not in the table ("unseen") is never in a collection
// lexicon. Its normalized idf is 1 (see [stats.Table.NIDF]), so this agrees
// with the default range, which excludes the rarest terms as the paper
// does: a typo or a random insertion of a new word does not change a
// signature. In DocL90 mode unseen terms count with idf log N, the highest.
//
// When a document has fewer than MinTerms unique lexicon terms, its
// signature would be unstable (or empty), so it is topped up (Kołcz et al.
// 2004, §3) with terms from a secondary lexicon: the document's terms whose
// normalized idf is below the range (below MinNIDF in Range mode, below 0.1
// in IDFL10 mode, the terms cut from the document in DocL90 mode), taken by
// increasing idf, most common first, ties broken bytewise, until MinTerms
// terms are reached. A document that still has fewer than MinTerms terms
// cannot be signed: [Signer.Sign] returns an error wrapping
// [ErrUnsignable].
//
// With ExtraLexicons = K > 0, a [Signer] also makes K extra lexicons by
// bootstrap sampling of the main one (|L| draws with replacement, each term
// kept once: about 1−1/e ≈ 63% of the main lexicon, so any two lexicons
// share about two thirds of their terms) and signs every document once per
// lexicon. Two documents match ([Match]) when any coordinate agrees: a
// small edit that hits a main-lexicon term often leaves one of the extra
// signatures intact, which is what makes the multi-lexicon variant more
// robust. An extra lexicon that cannot sign a document gives the zero
// [Signature] for that coordinate, which never matches.
//
// Signatures depend only on the table, the effective [Options] and the
// document's set of terms, so they are the same across processes and can
// be stored. Signatures made by Signers with different tables or options
// must not be compared. A Signer is immutable after [NewSigner] and safe for
// concurrent use.
package imatch
