// Package indexer writes deduplicated documents into a bleve index.
//
// An [Index] takes each document together with its [Placement] — the
// cluster and master a detector decided for it (package dedup decides,
// package hook converts; the indexer imports neither) — and applies a
// [Policy]: the cluster's master is
// always indexed; a near-duplicate is left out ([Skip], the default),
// indexed but marked non-master ([Hidden]), or indexed like any other
// document ([All]). When a document takes over as the master of its cluster
// (Result.NewMaster), the previous master stops being the searchable master:
// under Skip it is deleted from the index, under Hidden and All it is
// re-indexed with master=false. The invariant is that every cluster has
// exactly one document with master=true in the index.
//
// # Difference records
//
// Under Skip a near-duplicate is not indexed, but what it has that its
// master lacks is: its title if it differs, its own headings, anchor
// texts and body blocks ([Difference]), under its own id with diff=true
// and master=false. A page hidden behind a page of another name — two API
// types whose long shared member lists make them copies by resemblance —
// is thus still found by its own name and text, and package ranking lets
// it stand for its cluster when it matches a query distinctly better than
// its master. An exact copy keeps no record. [Index.Searchable],
// [Index.Indexed], [Index.EachID] and [Index.Document] do not count a
// difference record as a document.
//
// # Member records and crash semantics
//
// Every document added, indexed or not, gets a member record (its id, URL,
// title, whether it is indexed and whether it is the master), so result
// pages can say "N similar pages" and list them even under Skip. Member
// records are stored as documents of their own type ([MemberType], id
// "doppel.member/" + document id) in the same bleve index, with only the
// fields doppel_kind and member_cluster indexed. A document and its member
// record, and a demotion and the new master, are therefore written by the
// same bleve batch, and a scorch batch is atomic and durable when
// [Index.Flush] returns: after a crash the index holds exactly the batches
// flushed before it, searchable documents and member records consistent
// with each other. Whatever was added after the last successful Flush is
// lost as a whole; a caller that resumes work must either treat a page as
// done only after the Flush that wrote it, or be able to add again
// everything added after the last Flush (package crawler replays its page
// records past a flush watermark; adding a document again is an idempotent
// upsert). There is no second store to reconcile.
//
// (An index that holds a user's documents too keeps its member and
// difference records in a second index, written after it: see [Wrap].)
//
// Member records never match a query on the searchable fields (title,
// headings, body, anchors, url, host, cluster, master, last_modified,
// groups, simhash, lang), but they do match a match-all query: wrap
// queries with [Index.Searchable], which also hides non-masters (and
// difference records) under Skip and Hidden.
//
// # Removal and new versions
//
// [Index.Remove] and [Index.Update] follow what a detector's removal or
// new version decided (a [Change]): the document leaves or is re-indexed,
// a master elected in a removed or changed master's place becomes the
// searchable master and the policy is applied to the other members again
// against it, and members the detector moved are added where they went.
// Under Skip the documents this needs were left out of the index; they
// come from [Options.Source], and Remove and Update fail with
// [ErrUnavailable], changing nothing, when it has none.
//
// # Mapping
//
// [Mapping] returns the index mapping: title, headings, body and anchors
// (the anchor texts of links to the document) as text analyzed in the
// page's language ([AnalyzerFor]: Doppel's tokenizer, then that
// language's stop words and stemmer; English's for English and unknown
// languages) — a bleve document type per language, DocType + "/" + the
// language's analyzer ("doppel/de") — stored, with term vectors for
// phrases and highlighting and without doc values (nothing sorts by
// text), all going into the default _all field; url, host,
// cluster, groups (an array) and simhash (16 lower-case hex digits) as
// keywords, the first three with lang and type as doc values too (a
// result page's sort keys and facets); names, the keys of the
// title ([TitleKeys]), as keywords; words, the title's and headings'
// words, and spell, every word of the page, each word a term as it is
// ([WordsAnalyzerName]); none of these stored nor in _all; master as a
// boolean;
// last_modified as a datetime (absent when unknown). Bleve has no
// index-time field boosts, so the title is boosted at query time:
// [TextQuery] builds title^[TitleBoost] OR headings^2 OR anchors^1.5 OR
// body, and query strings may write title:word^3 themselves. A plain
// bleve query on _all (a match query without a field) is analyzed by the
// index's default analyzer, [AnalyzerName], in every run: it finds
// English pages and pages of unknown language by their words' stems, and
// pages of other languages where their stems agree; [TextQuery] analyzes
// its words in every language.
//
// # Interfaces
//
// Packages ranking and web read the index through [Searcher], package
// crawler writes it through [Writer]; [*Index] implements both, over one
// bleve index (two for a user's own index: see [Wrap]). Their doc comments state the contract a second
// implementation (shards of bleve behind an IndexAlias, an index over
// HTTP) must keep — what a search sees, what must be atomic, what may be
// batched, what replay relies on — and package indexer/indextest checks
// it: indextest.Run runs one suite against any implementation, as this
// package's tests do against a directory and an in-memory bleve index,
// and package indexer/shard's against its shards (local, and served
// over HTTP).
//
// # Library use
//
// Doppel's own index: [Open] a directory (or [Wrap] a bleve index created
// with [Mapping]), then, per document, let a detector place it and add it
// with its placement, as Example_library does:
//
//	res, err := detector.Add(dedup.Document{ID: id, URL: url, Text: body})
//	err = ix.Add(ctx, indexer.Doc{ID: id, URL: url, Title: title, Body: body}, hook.Placement(res))
//	err = ix.Flush(ctx)
//
// A user's own bleve index, with documents and a mapping of the user's:
// [AddTo] adds Doppel's document types to the mapping, leaving its default
// type, default analyzer and _all as they are, and [Wrap] takes the index
// with Options.Records, a second index (made with [RecordsMapping]) for
// the member and difference records. The user's index then holds their
// documents and Doppel's whole documents, and nothing else: their queries,
// match-all listings, facets and DocCount give what they gave before for
// their documents (TestUserSearchUnchanged checks it), with Doppel's
// documents besides where they match (their text is in _all, analyzed by
// Doppel's analyzers). Wrap a query with [Index.Searchable] to see only
// Doppel's documents, or leave them out with a must-not clause on
// [FieldMaster]. Field names are shared by every type of a bleve index, so
// the user's documents must not have fields of Doppel's names (AddTo lists
// them), and Add, Update and Remove refuse the id of one of the user's
// documents ([ErrUserDocument]). Close flushes and leaves both indexes
// open: they are the user's. See ExampleAddTo.
package indexer
