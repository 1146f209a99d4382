// Package userquery reads the queries people type — or paste: page titles
// such as "std::env::Args" or "PostgreSQL: Documentation: 15: CREATE
// TABLE" — into bleve queries. Parsing never fails: whatever is not syntax
// is text, and text without a searchable word is ignored.
//
// The syntax:
//
//	word           every word must be in the document (any text field);
//	               see Relaxed for when few hold them all
//	"a phrase"     the words, in this order (required)
//	+word          required (also +"a phrase")
//	-word          excluded (also -"a phrase", -field:value); a query of
//	               exclusions only matches every other document
//	field:value    required: only for the fields of Options.Fields and their
//	field:"a b"    aliases, written in lower case, the value right after
//	               the colon
//
// Everything else is text, split into words by the field's analyzer
// exactly as documents were: unknown fields and colons ("a:b:c",
// "std::env::Args", "http://x/y", "Title:x"), a field with nothing after
// it ("title:"), brackets, braces, "^", "~2" (the word "2"), "*", "\",
// "AND", "OR" and "NOT" (English stop words, for the English analyzer),
// a lone "+" or "-". A sign applies to the word, phrase or field right
// after it: "-x" excludes x, while "--x", "a-b" and "C++" are text. An
// unterminated quote is dropped, as if not typed. A query with no
// searchable word left (blank, punctuation only, stop words only) matches
// every document, less any exclusions. A query longer than
// Options.MaxBytes is cut after its last whole word within the limit
// ([Parsed.Truncated] says so), and invalid UTF-8 is replaced by U+FFFD:
// no input is refused.
//
// Field kinds: Text fields match words and phrases; Exact fields the whole
// value; Prefix fields (URLs) every value starting with it; Domain fields
// (hosts) the value and its subdomains, so that "site:example.com" finds
// "docs.example.com".
//
// Ranking. Plain words are scored in every Text field with a positive
// Boost: in each field, the sum of the words' tf-idf scores times the
// share of the query's distinct words the field holds (bleve's
// coordination factor, so a field holding all the words beats one holding
// some), weighted by the field's boost; plus the words as a phrase, in the
// order typed, in each field (weighted by Options.PhraseBoost). A pasted
// title thus ranks its page — every word, in order, in a short, boosted
// title field — first. Requiring every word keeps the candidates few,
// which is what keeps a search fast; [Parser.Relaxed] gives the query to
// run when too few documents hold them all (package ranking: fewer than a
// page): the same scoring, any word.
//
// Languages. In an index whose pages were each analyzed in their own
// language, [Parser.With] analyzes a query's text by each language's
// analyzer too ([Languages]): each word then matches by any of the terms
// they make of it ("Häuser": häuser for English, haus for German), a word
// one of them drops as a stop word is not required, and a phrase takes
// any of a word's terms at its position (the analyzers share one
// tokenizer, so positions agree).
package userquery
