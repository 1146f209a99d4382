// Package eval measures near-duplicate detection against exact ground
// truth.
//
// Ground truth is a [Truth]: labelled document pairs, each with its exact
// resemblance (Jaccard coefficient of word 5-shingle sets) and cosine (of
// the sets of "cosine words"), following the definitions of the shared
// evaluation corpus and of package features. A Truth is read from a corpus
// pair file with [LoadPairs] (and written back with [Truth.WriteTo]) or
// computed exactly with [ComputeTruth], which lists every pair at or above
// a threshold by prefix filtering (Chaudhuri et al. 2006; Bayardo et al.
// 2007) with the positional filter of PPJoin (Xiao et al. 2008) — nothing
// is sampled or estimated. On the shared corpus it reproduces the pair
// files bit for bit.
//
// Which labelled pairs count as near-duplicates is a [Definition]
// (resemblance, cosine, or either) and a threshold: [Truth.Positives]. The
// measures compare what a method predicted with those positives:
//
//   - [Score]: pair-level precision, recall and F1 ([ClusterPairs] turns a
//     clustering into the pairs it implies); the recall measure of Kołcz
//     et al. is Score against Positives(Cosine, 0.9);
//   - [MeasureProtocol]: the I-Match protocol of Chowdhury et al. (2002,
//     Tables III–IV) on documents with known origin groups: how much of each
//     group ends up in one cluster, over how many clusters it is split, and
//     how many pairs from different groups were put together although the
//     truth does not list them.
//
// [Table] renders results as a GitHub-Markdown table.
//
// Pairs are unordered: a [Pair] always holds the smaller id first. Document
// reading is not part of this package; callers pass ids and texts.
//
// A Truth is immutable and safe for concurrent use; a PairSet is a plain
// map; ComputeTruth uses GOMAXPROCS goroutines.
package eval
