// Package hamming finds stored 64-bit fingerprints (SimHash signatures)
// within a small Hamming distance of a query, using the permuted block
// tables of Manku, Jain and Das Sarma, "Detecting near-duplicates for web
// crawling" (WWW 2007), §3.
//
// # Method
//
// The f fingerprint bits are split into m blocks. Two fingerprints at
// distance d ≤ K differ in at most d blocks, so they agree exactly on at
// least m−K blocks. For each of the C(m, K) choices of m−K blocks, [Index]
// keeps a table of the fingerprints permuted so that the chosen blocks form
// the top bits of a key, sorted by key. A query permutes itself the same
// way, finds the keys sharing its prefix blocks through a directory on the
// top key bits and checks the distance of each candidate with one XOR and
// popcount. A permutation moves whole blocks, so it preserves Hamming
// distance. A match found in several tables is reported only by the first
// of them in a fixed order, so results need no deduplication set.
//
// # Contract
//
//   - Exact: [Index.Query] returns every stored entry within distance k of
//     the query (k up to the configured [Options.MaxDistance]), none farther,
//     each once, sorted by (distance, ID, fingerprint).
//   - Entries are (ID, fingerprint) pairs. One fingerprint may be stored
//     under several IDs and one ID under several fingerprints; storing the
//     same pair twice is an error wrapping [ErrExists].
//   - [Index] is safe for concurrent use: queries run in parallel, writes are
//     exclusive (one sync.RWMutex).
//   - Persistence: [Index.WriteTo], [Read], [Index.Save] and [Load] use a
//     versioned binary format with a CRC-32C checksum; a damaged file gives
//     an error wrapping [ErrCorrupt], never a partial index. Save replaces
//     the file atomically.
//
// [Linear] is a brute-force scan with the same [Searcher] methods: the
// oracle for tests and the baseline for benchmarks.
//
// The package stores bare uint64 fingerprints and imports nothing from the
// rest of Doppel.
package hamming
