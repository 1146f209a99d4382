// Package signatures is the seam between the near-duplicate [Detector] of
// package dedup and the stores it keeps: the candidate lists (a [Store])
// and the assignment of documents to clusters (a [Clusters]). Package
// dedup keeps both in memory ([NewMemory], [MemoryClusters]); a store on
// disk or on a cluster of servers implements the same interfaces and runs
// the same conformance suite, package sigtest.
//
// # Candidate lists
//
// Every document the Detector stores is signed: a SimHash fingerprint,
// I-Match signatures (one per lexicon), MinHash LSH band hashes, the hash
// of its whole sketch, super shingles. A [Store] maps each signature, a
// [Key] of one [Kind], to the documents that have it, and the documents
// that share a key with a new one are its candidates, verified before it
// joins a cluster. A list holds [Entry] values: a document's number (its
// place in arrival order) and its group, the number of the cluster it is
// in, so that the Detector groups candidates by cluster without asking
// where each one is, and so that a list can be bounded per cluster:
//
//   - A list keeps at most Limits.PerGroup entries of one group, the
//     first ones added: copies of one page are one cluster, and after the
//     first few more of them tell a later document nothing it needs to
//     find that cluster. Add reports the later ones [Capped].
//   - A list that would hold more than Limits.MaxLen entries (so of many
//     groups) is dropped and its key becomes a stop key ([Stopped]),
//     ignored from then on ([Ignored]), like a stop word in a text index.
//
// With zero Limits every entry is kept. The bounds make the cost of
// finding and verifying a document's candidates a constant, however many
// documents are stored and however many copies of one page they hold.
//
// Documents leave with [Store.Remove]. A list that held PerGroup entries
// of the leaving document's group may have refused later ones; Remove
// says so (refill), and the caller, who knows its documents, adds the
// earliest refused one back, so that the list is the one adding only the
// remaining documents would have made. Stop keys stay stop keys.
//
// # Cluster assignment
//
// The Detector numbers clusters in order of creation and keeps, for each
// document number, the number of its cluster, and, for each cluster
// number, its master's document number: a [Clusters] ([MemoryClusters]
// in memory). A store shared by several workers (the scale-out, with the
// lists on a server) must keep them under this contract, which is what
// the Detector relies on today:
//
//   - Found(doc) gives doc a new cluster number, one greater than the
//     last one given, with doc as its master. Join(doc, n) puts doc in
//     cluster n. Of(doc) is the cluster number doc was last given,
//     Master(n) the master of n, SetMaster(n, doc) makes a member of n its
//     master.
//   - Serial equivalence: the assignments are those some one-at-a-time
//     order of the inserts would give. A document's candidates are read,
//     and its cluster found or joined, as one step: two workers inserting
//     copies of one page never found two clusters for them — the second
//     one sees the first one's cluster among its candidates, or retries.
//     A worker that finds its candidates' groups changed (a cluster
//     founded, or a master elected, since it read them) starts the step
//     again. (In one process the Detector's lock makes every step one.)
//   - A master is elected once: when a master leaves, one worker elects
//     its successor (SetMaster), and a second election of the same
//     cluster for the same departure does nothing.
//   - The group of an entry in a [Store] is the cluster number Of its
//     document when it was added; a document that changes cluster leaves
//     every list first (Remove) and is added again with its new group.
//
// The suite of package sigtest checks what one writer sees; serial
// equivalence across workers is for the shared implementations to show.
//
// [Detector]: https://pkg.go.dev/github.com/doppel-search/doppel/dedup#Detector
package signatures
