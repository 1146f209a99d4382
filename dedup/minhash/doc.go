// Package minhash estimates the resemblance (Jaccard coefficient) of two
// feature sets with min-wise independent hashing, after Broder, Glassman,
// Manasse and Zweig, "Syntactic clustering of the Web" (1997), and finds
// candidate near-duplicates without comparing every pair.
//
// A [Hasher] with k hash functions turns a set of 64-bit feature hashes,
// typically the word shingles of a document
// ([github.com/doppel-search/doppel/dedup/features.Shingles]), into a
// [Sketch]: for each hash function, the smallest hash value over the set.
// For two sets A and B, each coordinate agrees with probability
// J = |A∩B| / |A∪B|, so [Sketch.Jaccard], the fraction of agreeing
// coordinates, estimates J with standard error sqrt(J(1−J)/k).
//
// Two ways of finding candidate pairs from sketches are provided:
//
//   - [SuperShingles] (Fetterly, Manasse, Najork and Wiener 2003; Henzinger
//     2006): a sketch is cut into n groups of consecutive min-values and
//     each group is hashed into one "super shingle". In the DSC-SS
//     configuration ([DSCSSSize], [DSCSSSuperShingles], [DSCSSMinShared]),
//     84 min-values give 6 super shingles of 14, and two documents are
//     near-duplicates when they share at least 2 of them.
//   - Locality-sensitive hashing by banding ([Bands], [LSH]): b bands of r
//     rows; two documents become candidates when any band agrees, which
//     happens with probability 1−(1−J^r)^b.
//
// [DropCommon] implements Broder's filter for "too common" shingles, which
// come from boilerplate rather than content, against a document-frequency
// table from package stats.
//
// Sketches are only comparable when they were made by Hashers with the same
// Options; super shingles and bands only when they were also made with the
// same n, or the same b and r.
//
// A Hasher is immutable and safe for concurrent use. An [LSH] is safe for
// concurrent use (it holds a read-write lock).
package minhash
