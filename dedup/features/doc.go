// Package features turns document text into the units every near-duplicate
// algorithm in Doppel works on: tokens, terms, word n-grams and word
// shingles.
//
// Tokens are maximal runs of Unicode letters or digits, lowercased;
// everything else separates tokens ("Vec<T>::new()" gives vec, t, new;
// "x86_64" gives x86, 64). This is the definition used by the ground truth
// of the shared evaluation corpus, so exact similarities computed here agree
// with it.
//
// An [Extractor] applies the configurable filters (stop words, Porter2
// stemming, number and date stripping) and produces word n-grams for any set
// of n. [Shingles] hashes every run of w consecutive tokens into a 64-bit
// value for resemblance and MinHash.
//
// Everything in this package is safe for concurrent use: an Extractor is
// immutable after [New].
package features
