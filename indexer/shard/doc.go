// Package shard keeps a Doppel index in bleve shards: N bleve indexes in
// one directory (a manifest, shards.json, records N), each holding whole
// clusters — a cluster's documents, difference records and member
// records are on the shard [Route] gives its id — searched together
// through a bleve IndexAlias. An [Index] implements both sides of the
// index, [indexer.Writer] and [indexer.Searcher], so the crawler writes
// it and package ranking searches it as it does one [indexer.Index]: the
// same hits in the same order, the same "N similar pages", facets,
// suggestions and access filtering.
//
// Searches score as one index would. Bleve scores a term with the
// statistics of the index it searches (TF-IDF: its documents, and how
// many of them hold the term), so each shard's bleve index is of this
// package's type ([IndexType]), whose readers report the statistics of
// every shard; multi-term queries that package ranking bounds are
// expanded against the terms of every shard first ([Expandable]), so
// that every shard searches the same terms.
//
// A shard can also be served to other processes over HTTP ([NewServer]
// on a shard's process, [Dial] on the one that searches): the search is
// then two rounds — every shard's statistics for the query's terms, then
// the search with the sums — and the index is read-only there.
package shard
