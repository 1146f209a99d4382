// Package multiterm bounds bleve's multi-term queries — wildcards
// ("*e*"), regular expressions ("/.*/"), prefixes and fuzzy terms
// ("a~2") — which a single short query can make expand to every term of
// the index: bleve then builds one term searcher per term, and "/.*/" on an
// index of 20,000 pages holds a gigabyte for seconds.
//
// [Bound] rewrites a query tree so that its multi-term queries expand to at
// most Options.MaxTerms index terms in all (a budget shared by the whole
// tree); past it, the search fails with an error wrapping
// [ErrTooManyTerms] before any posting list is read. A bounded query
// enumerates the term dictionary itself, checking the search's context
// every few terms, and remembers its terms, so that the later searches of
// one request (the page's fields and snippets) do not enumerate again.
//
// What is bounded: [query.WildcardQuery], [query.RegexpQuery],
// [query.PrefixQuery], [query.FuzzyQuery] and a [query.MatchQuery] with a
// fuzziness (what bleve's query string syntax writes "word~2"), wherever
// they sit under [query.BooleanQuery], [query.ConjunctionQuery] and
// [query.DisjunctionQuery]. Other queries are left as they are: term,
// match and phrase queries read one posting list per word, and numeric and
// date ranges a few dozen.
//
// Before any term is read, a regular expression (and a wildcard, as the
// expression it is read as) is refused with [ErrTooComplex] by its shape:
// longer than Options.MaxRegexBytes, a repetition over Options.MaxRepeat,
// or a program over Options.MaxRegexInsts instructions. Terms are then
// matched by Go's regexp (RE2), never by bleve's automaton, whose
// construction cannot be stopped and is exponential in the worst case
// ("/.{0,1000}y.{0,1000}/" spent over 30 s of CPU in it).
//
// With Options.Visible (a user's access filter), only terms that a
// visible document holds are expanded to and counted: the answer and the
// error are those the visible documents alone would give.
//
// Cost: enumerating is O(terms walked) in the dictionary from the
// pattern's literal prefix (fuzzy terms: the index's Levenshtein
// automaton), each term matched in O(MaxRegexInsts × its length), at most
// the field's dictionary (a regular expression that starts with ".*"
// walks all of it: 0.3 s for 100,000 terms), with the context checked
// every 64 terms read; with Visible, one conjunction per matching term.
// The search then reads at most MaxTerms posting lists.
package multiterm
