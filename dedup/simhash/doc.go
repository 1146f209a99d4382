// Package simhash computes 64-bit SimHash signatures of documents
// (Charikar 2002, as used for web crawling by Manku, Jain and Das Sarma
// 2007) with the enterprise weighting options of Seshasai (2009).
//
// A [Simhash] is the sign vector of a sum of random ±1 vectors, one per
// feature, scaled by the feature's weight: bit j is 1 when the total weight
// of the features whose hash has bit j set exceeds the total weight of
// those whose hash has it clear. Documents whose weighted feature vectors
// are close in angle get signatures close in Hamming distance
// ([Simhash.Distance]); near-duplicates are typically signatures within 3
// bits of each other (Manku et al.).
//
// [FromFeatures] is the bare construction over weighted feature hashes. A
// [Signer] turns a [Doc] (body terms, tagged terms, metadata) into the
// features and weights of Seshasai: tf·idf from a frozen
// [github.com/doppel-search/doppel/dedup/stats.Table], optional low and
// high weight cut-offs relative to the heaviest term, a boost for terms in
// titles, headings and bold text, and metadata features weighted relative
// to the heaviest term. The table never changes while documents are signed,
// so the same document always gets the same signature.
//
// Term hashes are [github.com/doppel-search/doppel/dedup/features.HashTerm],
// the same hashes the stats table is keyed by.
//
// A Signer is immutable and safe for concurrent use; a Simhash is a value.
package simhash
