// Package postings holds bounded posting lists for near-duplicate
// candidate generation: for each key (an I-Match signature, an LSH band
// hash, a super shingle, a SimHash fingerprint) the documents that have
// it, each tagged with its group (the cluster it joined).
//
// A detector looks up every earlier document that shares a key with a new
// one. When thousands of documents share a key — exact copies of one page,
// pages of one template that differ only by numbers — a lookup, and the
// verifications it triggers, grow with the number of earlier documents, and
// a collection costs quadratic time. A [Map] bounds the lists two ways:
//
//   - A list keeps at most Limits.PerGroup documents of one group, the
//     first to arrive. Copies of one page are one cluster: after the first
//     few, more of them tell a later document nothing it needs to find that
//     cluster.
//   - A list that would hold more than Limits.MaxLen documents (so of many
//     different groups) is dropped and its key becomes a stop key, ignored
//     from then on, like a stop word in a text index: a key shared by that
//     many unrelated documents says little about any of them. The other
//     keys of a document still find its real near-duplicates.
//
// With zero Limits a Map keeps every document (the unbounded lists).
//
// Documents leave with [Map.Remove]. A list that held PerGroup documents
// of the leaving document's group may have refused later ones; Remove says
// so, and the caller, who knows its documents, adds the earliest refused
// one back, so that the list is the one a rebuild from the remaining
// documents would give. Stop keys stay stop keys.
//
// A Map is not safe for concurrent use. It imports nothing from the rest of
// Doppel.
package postings
