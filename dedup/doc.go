// Package dedup assigns documents to near-duplicate clusters.
//
// A [Detector] signs each document with the published near-duplicate
// algorithms — I-Match (Chowdhury et al. 2002) and its randomized
// multi-lexicon form (Kołcz et al. 2004), shingling with MinHash and super
// shingles (Broder et al. 1997; Fetterly et al. 2003), and 64-bit SimHash
// (Charikar 2002) looked up in permuted Hamming tables (Manku et al. 2007) —
// finds earlier documents that may be near-duplicates, and puts the document
// in the cluster whose master it resembles, or in a new cluster of its own.
//
// Each published algorithm is available alone ([SimHash], [IMatch],
// [IMatchMulti], [MinHash], [DSCSS]) for comparison. The default, [Hybrid],
// is Doppel's own combination: candidates from the SimHash index, the
// multi-lexicon I-Match signatures and MinHash LSH bands together (high
// recall), each verified by the exact similarity before it is accepted (high
// precision). The similarity is the resemblance of word 5-shingles, or the
// cosine of word sets for scattered edits ([Options.Similarity]).
//
// Detection costs linear time even when thousands of documents share a
// signature — exact copies of one page, pages of one template that differ
// only by numbers: candidates are verified cluster by cluster, the master
// first, and the candidate lists are bounded ([Options.MaxFanout]), without
// changing the results below the bounds.
//
// Documents can leave and change ([Detector.Remove], [Detector.Replace]),
// as pages of a recrawl are deleted or edited: a document leaves every
// candidate list and its cluster; a cluster whose master leaves elects the
// member the master policy prefers among those every other member is a
// copy of, or splits; a new version of a document keeps its cluster when
// it is still a near-duplicate of the master. [Fingerprint] tells an
// unchanged page from a changed one before any of that.
//
// Collection statistics (document frequencies, package stats) are frozen
// while signing, so a document always gets the same signature;
// [Detector.Refresh] switches to new statistics and re-signs every stored
// document.
//
// The leaves under dedup/ are independent and usable alone: features
// (tokens, shingles), stats (document frequencies), imatch, minhash,
// simhash, hamming (the Hamming-distance index) and cluster (clusters and
// master policies).
package dedup
