// Package ranking answers queries over a Doppel index with result pages in
// which each near-duplicate cluster appears once, and with access control:
// a user never sees — as a result, a representative, a member, a count or
// a snippet — a document outside their access groups.
//
// A query (in the forgiving syntax of package userquery, which reads any
// text, or with Request.Syntax Bleve in bleve's query string syntax; plus
// host and date filters) is run over every indexed document the user may
// see, masters and the non-master copies the index keeps (policy Hidden
// and All; under Skip, the copies some users may see without the master,
// and the difference records of the others: what each has that its master
// lacks, see indexer.Difference). A Plain query of several words first
// asks for documents holding all of them, and if there are none, for
// documents holding any, ranked by how many they hold and where (title
// first). Hits are walked in score order (ties by document id, so the
// order is stable) and collapsed: a cluster ranks where its best-scoring
// visible member does, and is represented by its master unless that
// member matches distinctly better (more than Options.Promote times the
// master's score, or the master does not match or may not be seen) — so
// a page hidden behind a page of another name is found by its own name,
// and a copy does not stand for its cluster for a word of its own
// template. Page p of size n is the clusters
// (p−1)·n … p·n−1 of that sequence, so a page never repeats a cluster of
// an earlier page, and holds n clusters whenever that many match. Total is
// the number of distinct clusters among all matching documents the user
// may see, counted by a facet over the cluster field: exact up to
// Options.MaxCandidates clusters; beyond that an upper bound, with
// Result.Exact false.
//
// "N similar pages" counts the other members of the cluster the user may
// see, including near-duplicates that were not indexed (their member
// records carry their access groups).
//
// Cost is bounded: every Search and Members call runs under a deadline
// (Options.Timeout; past it, ErrTimeout), which every bleve search it makes
// honours, and the wildcards, regular expressions, prefixes and fuzzy terms
// of a query may expand to at most Options.MaxTerms index terms in all
// (package multiterm; past it, ErrTooBroad, before any posting list is
// read).
package ranking

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/internal/lang"
	"github.com/doppel-search/doppel/ranking/multiterm"
	"github.com/doppel-search/doppel/ranking/userquery"
)

// Errors for errors.Is.
var (
	// ErrQuery means a query in the Bleve syntax does not parse, or is
	// not valid UTF-8; the message says where. A Plain query never gives
	// it.
	ErrQuery = errors.New("invalid query")
	// ErrQueryTooLong means a query in the Bleve syntax exceeds
	// Options.MaxQueryBytes (a Plain query is cut instead).
	ErrQueryTooLong = errors.New("query too long")
	// ErrNotFound means no document or cluster the user may see has the
	// id.
	ErrNotFound = errors.New("not found")
	// ErrTooBroad means the wildcards, regular expressions, prefixes
	// ("url:http://intra/") or fuzzy terms of a query match more index
	// terms than Options.MaxTerms, or a fuzzy term is too long; the
	// message says which.
	ErrTooBroad = errors.New("query too broad")
	// ErrTimeout means a search ran past Options.Timeout (or its
	// context's deadline) and was stopped.
	ErrTimeout = errors.New("search took too long")
)

// Options configures a Searcher. Zero values mean the defaults.
type Options struct {
	// MaxCandidates is how many distinct clusters a query counts exactly.
	// Default 2000.
	MaxCandidates int
	// MaxQueryBytes is the longest query read: a Plain query is cut at
	// the last word boundary within it (Result.Truncated), a Bleve query
	// refused (ErrQueryTooLong). Default 512.
	MaxQueryBytes int
	// Timeout is the longest a Search or Members call runs (all its
	// searches together); past it, it stops and returns ErrTimeout.
	// Default 2s; negative: only the caller's context limits it.
	Timeout time.Duration
	// MaxTerms is how many index terms the wildcards, regular
	// expressions, prefixes and fuzzy terms of one query may expand to, in
	// all; a query matching more gives ErrTooBroad. Each term costs a
	// posting list read and merged for every search of the query: "/.*/"
	// on a 20,000-page intranet expands to 100,000 terms, takes 8 s and
	// 1 GB. Default 1024.
	MaxTerms int
	// Promote is how much better than its master a member with a title of
	// its own must match a query to stand for its cluster on a result
	// page: a member whose score is more than Promote times its master's
	// (or whose master does not match), or that is among the cluster's
	// first hits and holds the query's words as typed where the master
	// does not (a pasted line: see representatives), represents the cluster;
	// otherwise, and always when the member has the master's title (a
	// document and its HTML page, a print copy), the master does. Default
	// 1.25; it must be at least 1.
	Promote float64
	// PhraseBoost weighs a document holding a Plain query's words as a
	// phrase, in the order typed, against one holding them apart
	// (userquery.Options.PhraseBoost): a pasted line or title finds the
	// page that has it as written, and a member holding the line its
	// master has only in other words stands for its cluster. Default 2.
	PhraseBoost float64
	// MaxScan bounds the work of one search on a large index: a search
	// stops after scoring this many matching documents and answers from
	// the best of them. A Plain query whose required words are each in
	// more documents than that is first run on the first tier — the
	// documents holding every word in their title, headings or anchor
	// texts, the fields that name a page, ranked by those fields — and
	// answered from it when it fills the page. Either way the result is marked inexact (Exact
	// false; Total the fewest documents holding one of the words, an
	// upper bound, or the documents scanned). Default 10,000; negative:
	// no bound.
	MaxScan int
	// RelaxBelow: a Plain query of several words is relaxed — its
	// results are the documents holding most of the words, those holding
	// all first — when fewer than this many clusters the user may see
	// hold every word. The choice reads the query and the user alone (no
	// filter, page, size or order), so that every page, size, order and
	// facet value of a query reads the same set. Default 10.
	RelaxBelow int
	// MaxWords is how many of a Plain query's distinct words are
	// searched: a longer one (a pasted title or paragraph) is reduced to
	// its MaxWords rarest words in the index, the others neither required
	// nor scored (userquery.Parser.Reduce). Default 12; negative: every
	// word.
	MaxWords int
}

// Syntax says how Request.Query is read.
type Syntax int8

// The syntaxes.
const (
	// Plain is package userquery's syntax: words, "phrases", +required,
	// -excluded, field:value for title, headings, body, anchors, url and
	// host (alias site); anything else is text. It never fails to parse
	// (a url: prefix matching more than Options.MaxTerms URLs gives
	// ErrTooBroad).
	Plain Syntax = iota
	// Bleve is bleve's query string syntax (boolean operators, wildcards,
	// regular expressions, fuzzy terms, ranges, boosts over every field);
	// a query that does not parse gives ErrQuery.
	Bleve
)

// ParseSyntax parses "plain" (or "") and "bleve".
func ParseSyntax(s string) (Syntax, error) {
	switch s {
	case "", "plain":
		return Plain, nil
	case "bleve":
		return Bleve, nil
	}
	return 0, fmt.Errorf("ranking: unknown syntax %q (want plain or bleve)", s)
}

// String returns "plain" or "bleve".
func (s Syntax) String() string {
	if s == Bleve {
		return "bleve"
	}
	return "plain"
}

// Request is a query.
type Request struct {
	Query  string    // in Syntax; empty (or blank) matches every document
	Syntax Syntax    // default Plain
	Host   string    // only documents of this host, if set
	Since  time.Time // only documents last modified at or after, if set
	Until  time.Time // only documents last modified before, if set
	Page   int       // from 1; default 1
	Size   int       // results per page, 1–100; default 10
	Groups []string  // the user's access groups
	// Languages are the languages the user reads, best first (primary
	// subtags, as from an Accept-Language header; see internal/lang):
	// a cluster represented by its master is shown by the member in the
	// first of them that a member the user may see is in, if the master
	// is not (a language copy stands in for the page only when no page
	// of the user's language does), and of members in one language by
	// the master's place in the user's language section of the site, if
	// any (an untranslated page of /manual/da/ for a reader of Danish).
	// Empty: masters as they are.
	Languages []string
	// Members is how many other members of each hit's cluster — those the
	// user may see, the master first — come with the hit (Hit.Members),
	// as Elasticsearch's collapse with inner_hits; at most MaxMembers.
	// Default 0: none, only their number (Hit.Similar).
	Members int
	// Omitted lists the near-duplicates collapsing hides too (Google's
	// filter=0): after each cluster's hit, every other member of it the
	// user may see and the filters keep, marked Omitted, with the
	// cluster's master (MasterID). Pages, Total and the facets count
	// entries.
	Omitted bool
	// Section, Type and Lang keep only documents of that site section
	// ("/java/"), format ("html", "pdf", …) or language; Host (above)
	// matches a host with or without its port. Like Facets, they read
	// every candidate (at most Options.MaxCandidates).
	Section, Type, Lang string
	// Modified keeps only documents of one date range of FacetModified
	// ("week", "month", "year", "older", "undated"); From and To only
	// those last modified at or after From and before To, and undated
	// ones unless Dated (unlike Since and Until, which drop them).
	Modified string
	From, To time.Time
	Dated    bool
	// Facets asks for the result's facets (Result.Facets): for each of
	// host, section, type, language and date range, how many clusters of
	// the whole result (after access filtering, filters and collapsing)
	// have a matching document of each value — exactly the clusters that
	// filtering by the value gives, since filters keep documents before
	// collapsing (under Omitted: the entries listed). A cluster whose
	// documents differ in a facet counts under each of their values.
	Facets bool
	// ByDate orders the clusters by the newest last-modified date of
	// their matching documents the user may see, newest first, undated
	// last (relevance among equals). Default false: by relevance.
	ByDate bool
	// After, if set, is a Result.Cursor of the same search (same query,
	// user, filters and order; any size): the page is the one after the
	// cursor's, starting after its last cluster, and Page is ignored.
	// Unlike a page number it stays in place while the index changes, as
	// Elasticsearch's search_after: clusters added or removed before it
	// do not shift the next page. A token that is no cursor, or one of
	// another order or listing (Omitted), gives ErrCursor.
	After string
}

// MaxMembers bounds Request.Members.
const MaxMembers = 20

// A Span is a piece of a snippet; Match marks query terms. Spans are plain
// text: escape them when writing HTML.
type Span struct {
	Text  string `json:"text"`
	Match bool   `json:"match,omitempty"`
}

// A Hit represents one cluster on a result page.
type Hit struct {
	ID           string    `json:"id"`
	URL          string    `json:"url"`
	Title        string    `json:"title"`
	Host         string    `json:"host"`
	Snippet      []Span    `json:"-"`
	Score        float64   `json:"score"`
	Cluster      string    `json:"cluster"`
	Master       bool      `json:"master"`
	Lang         string    `json:"lang,omitempty"`
	Type         string    `json:"type,omitempty"` // a document's format ("pdf", "docx", …); "" for an HTML page
	Similar      int       `json:"similar"`        // other members of the cluster the user may see
	LastModified time.Time `json:"last_modified,omitzero"`
	// Members are other members of the cluster the user may see (at most
	// Request.Members of them, the master first).
	Members []Member `json:"members,omitempty"`
	// Omitted marks a near-duplicate listed under Request.Omitted: a
	// member collapsing would have hidden behind its cluster's hit.
	Omitted bool `json:"omitted,omitempty"`
	// MasterID is the id of the cluster's master, if the user may see
	// it.
	MasterID string `json:"master_id,omitempty"`
}

// A Member is a member of a hit's cluster shown with it.
type Member struct {
	ID           string    `json:"id"`
	URL          string    `json:"url"`
	Title        string    `json:"title"`
	Master       bool      `json:"master"`
	Lang         string    `json:"lang,omitempty"`
	Type         string    `json:"type,omitempty"`
	LastModified time.Time `json:"last_modified,omitzero"`
	Snippet      string    `json:"snippet,omitempty"` // for a member in the index: the lead of its text as the query marks it
}

// SnippetText returns the snippet as plain text.
func (h Hit) SnippetText() string {
	var b strings.Builder
	for _, s := range h.Snippet {
		b.WriteString(s.Text)
	}
	return b.String()
}

// Result is one page of results.
type Result struct {
	// Total is the number of results over every page: distinct clusters
	// matching (under Request.Omitted, the entries listed). Exact says
	// whether every match was counted; if not, Total is an upper bound
	// and AtLeast the clusters counted, a lower bound ("about").
	Total     int
	Exact     bool
	AtLeast   int
	Truncated bool  // the Plain query was cut to Options.MaxQueryBytes
	Page      int   // as requested, defaults applied (after a cursor: the cursor's page and one)
	Size      int   // as requested, defaults applied
	Hits      []Hit // at most Size, in rank order
	// More says a next page has results; Cursor is then the token of
	// Request.After that asks for it.
	More   bool
	Cursor string
	// Facets are the result's facets, if asked for: facet name →
	// values, most clusters first (at most 20 each).
	Facets map[string][]FacetValue
}

// A Searcher answers queries over an index. It is safe for concurrent use.
type Searcher struct {
	ix    indexer.Searcher
	opts  Options
	plain *userquery.Parser
	langs *languages
	dicts *multiterm.Dictionaries // the terms each set of groups may see, for multi-term queries
	vocab *vocabularies           // the words of titles each set of groups may see, with counts, for completions

	totalsMu sync.Mutex
	totals   map[string]visibleTotal // records each set of groups may see (termStats)
}

// plainFields are the fields a Plain query searches and may name, with
// the weights of indexer.TextQuery.
func plainFields() []userquery.Field {
	return []userquery.Field{
		{Name: indexer.FieldTitle, Boost: indexer.TitleBoost},
		{Name: indexer.FieldHeadings, Boost: 2},
		{Name: indexer.FieldAnchors, Boost: 1.5},
		{Name: indexer.FieldBody, Boost: 1},
		{Name: indexer.FieldURL, Kind: userquery.Prefix},
		{Name: indexer.FieldHost, Kind: userquery.Domain, Aliases: []string{"site"}},
	}
}

// EnsureDefaults sets every zero field to its default (each field's doc
// says which) and returns o.
func (o *Options) EnsureDefaults() *Options {
	if o.MaxCandidates <= 0 {
		o.MaxCandidates = 2000
	}
	if o.MaxQueryBytes <= 0 {
		o.MaxQueryBytes = 512
	}
	if o.Timeout == 0 {
		o.Timeout = 2 * time.Second
	}
	if o.MaxTerms <= 0 {
		o.MaxTerms = 1024
	}
	if o.Promote < 1 {
		o.Promote = 1.25
	}
	if o.PhraseBoost <= 0 {
		o.PhraseBoost = 2
	}
	if o.MaxScan == 0 {
		o.MaxScan = 10000
	}
	if o.RelaxBelow <= 0 {
		o.RelaxBelow = 10
	}
	if o.MaxWords == 0 {
		o.MaxWords = 12
	}
	return o
}

// New returns a Searcher over ix: an [*indexer.Index], or any other
// implementation of the index's read side (see indexer.Searcher for what
// it must do).
func New(ix indexer.Searcher, opts Options) *Searcher {
	opts.EnsureDefaults()
	langs := &languages{ix: ix}
	plain := userquery.New(userquery.Options{Fields: plainFields(), Mapping: ix.Mapping(), MaxBytes: opts.MaxQueryBytes,
		PhraseBoost: opts.PhraseBoost, AllField: indexer.FieldAll, NameField: indexer.FieldNames, NameKey: indexer.NameKey})
	return &Searcher{ix: ix, opts: opts, plain: plain, langs: langs, dicts: multiterm.NewDictionaries(0),
		vocab: newVocabularies(64 << 20)}
}

// Index returns the searched index if it is an [*indexer.Index], else
// nil; [Searcher.Store] returns it whatever it is.
func (s *Searcher) Index() *indexer.Index {
	ix, _ := s.ix.(*indexer.Index)
	return ix
}

// Store returns the searched index, as New was given it.
func (s *Searcher) Store() indexer.Searcher { return s.ix }

// Options returns the options in effect, defaults applied.
func (s *Searcher) Options() Options { return s.opts }

// deadline returns ctx limited by Options.Timeout.
func (s *Searcher) deadline(ctx context.Context) (context.Context, context.CancelFunc) {
	if s.opts.Timeout < 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, s.opts.Timeout)
}

// searchError classifies an error of a bleve search run under ctx: past
// the deadline ErrTimeout, a multi-term query over the budget ErrTooBroad,
// and otherwise, for a query that parsed, ErrQuery (what only searching
// checks, such as a regular expression) if query, or the error.
func (s *Searcher) searchError(ctx context.Context, err error, query bool) error {
	var mt *multiterm.Error
	switch {
	case errors.As(err, &mt):
		// The message names the query as written and nothing the index
		// holds: no count of terms (a count left of the budget told which
		// words and URLs exist in pages the user may not see).
		switch {
		case errors.Is(mt, multiterm.ErrTermTooLong):
			return fmt.Errorf("%w: the %s is longer than %d characters", ErrTooBroad, mt.Query, mt.Limit)
		case errors.Is(mt, multiterm.ErrTooComplex):
			return fmt.Errorf("%w: the %s is too complex; make it simpler", ErrTooBroad, mt.Query)
		}
		return fmt.Errorf("%w: the %s matches too many words; make it more specific", ErrTooBroad, mt.Query)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("%w (over %v): %w", ErrTimeout, s.opts.Timeout, ctx.Err())
	case ctx.Err() != nil:
		return fmt.Errorf("ranking: %w", ctx.Err())
	case query:
		return fmt.Errorf("%w: %v", ErrQuery, err)
	}
	return fmt.Errorf("ranking: %w", err)
}

// compiled is a query made ready to search.
type compiled struct {
	text query.Query // what to search
	// relaxed, if not nil, returns what to search when text matches
	// fewer documents than a page, given the terms that are common in the
	// index (see userquery.Parser.Relaxed; nil: none).
	relaxed func(common func([]string) bool) query.Query
	snippet query.Query // the terms to mark in body snippets (nil: none)
	// phrase matches the documents holding a Plain query's words as
	// typed (userquery.Parser.Phrase; nil: none), which a member holding
	// a pasted line is promoted by (representatives).
	phrase    query.Query
	truncated bool // the Plain query was cut to MaxQueryBytes
	// tier is the query on the first tier: the documents holding every
	// required word in their title, headings or anchor texts, scored on
	// those fields (nil: no plain word; see userquery.Parser.Within);
	// required are those words' terms (userquery.Parser.Required).
	tier     query.Query
	required [][]string
	// stats are the term counts of the documents the user may see.
	stats *termStats
}

// compile reads the query q in syntax syn for a user of groups; blank
// matches everything. Every decision it takes from the index's terms
// (which languages analyze a word, which words a long query keeps, which
// terms a wildcard expands to) reads the documents the user may see
// only. The caller closes the compiled query's stats when its searches
// are done.
func (s *Searcher) compile(ctx context.Context, q string, syn Syntax, groups []string) (compiled, error) {
	st := s.termStats(ctx, groups)
	if syn == Plain {
		parsed := s.plain.Parse(q)
		var words []string
		for _, c := range parsed.Clauses {
			words = append(words, c.Text)
		}
		p := s.reduce(s.plain.With(s.langs.forQuery(strings.Join(words, " "), st.share)), parsed, st)
		c := compiled{text: st.scored(s.bound(p.Build(parsed), groups, st)), snippet: p.Snippet(parsed, indexer.FieldBody), truncated: parsed.Truncated,
			required: p.Required(parsed), phrase: p.Phrase(parsed), stats: st}
		if t := p.Within(parsed, indexer.FieldTitle, indexer.FieldHeadings, indexer.FieldAnchors); t != nil {
			c.tier = st.scored(s.bound(t, groups, st))
		}
		if p.Relaxed(parsed, nil) != nil {
			c.relaxed = func(common func([]string) bool) query.Query {
				return st.scored(s.bound(p.Relaxed(parsed, common), groups, st))
			}
		}
		return c, nil
	}
	text, err := s.bleveQuery(q)
	if err != nil {
		st.close()
		return compiled{}, err
	}
	text = s.bound(s.langs.inLanguages(text, st.share), groups, st)
	return compiled{text: st.scored(text), snippet: text, stats: st}, nil
}

// reduce returns p reduced to Options.MaxWords of q's plain words (see
// userquery.Parser.Reduce), ranked by the documents the user may see that
// hold them, or p if q has no more.
func (s *Searcher) reduce(p *userquery.Parser, q userquery.Parsed, st *termStats) *userquery.Parser {
	if s.opts.MaxWords <= 0 {
		return p
	}
	return p.Reduce(q, s.opts.MaxWords, st.share)
}

// bound limits the expansion of q's multi-term queries to
// Options.MaxTerms terms that documents a user of groups may see hold
// (multiterm.Options.Visible): a term only hidden pages hold is neither
// searched nor counted, so that neither the answer nor "too broad" says
// it exists. The terms are those of the dictionary of visible terms kept
// for the user's groups (multiterm.Dictionaries), so that what the
// expansion costs does not grow with the terms only hidden pages hold;
// where there is none (a sharded index), with the user's statistics read
// from posting lists (st, may be nil), whether a visible document holds
// a term is their count of it, not a search per term.
func (s *Searcher) bound(q query.Query, groups []string, st *termStats) query.Query {
	key := strings.Join(slices.Compact(slices.Sorted(slices.Values(groups))), "\x00")
	o := multiterm.Options{MaxTerms: s.opts.MaxTerms, Visible: indexer.VisibleTo(groups), VisibleKey: key, Dictionaries: s.dicts}
	if st != nil && st.vs != nil {
		vs := st.vs
		o.Holds = func(field, term string) (bool, error) {
			n, err := vs.Count(field, term)
			return n > 0, err
		}
	}
	q, _ = multiterm.Bound(q, o)
	return q
}

// bleveQuery parses q in bleve's query string syntax.
func (s *Searcher) bleveQuery(q string) (query.Query, error) {
	if len(q) > s.opts.MaxQueryBytes {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrQueryTooLong, len(q), s.opts.MaxQueryBytes)
	}
	if !utf8.ValidString(q) {
		return nil, fmt.Errorf("%w: not valid UTF-8", ErrQuery)
	}
	if strings.TrimSpace(q) == "" {
		return bleve.NewMatchAllQuery(), nil
	}
	parsed, err := bleve.NewQueryStringQuery(q).Parse()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrQuery, err)
	}
	if v, ok := parsed.(query.ValidatableQuery); ok {
		if err := v.Validate(); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrQuery, err)
		}
	}
	return parsed, nil
}

// commonShare is the share of documents above which a word is common: it
// only scores in a relaxed query (Lucene's cutoff frequency; 1 %, as
// Elasticsearch's common terms query had by default). A word's share is
// its terms' (one per language analyzing it differently) added up. A
// word in no document is left out of the count too: it says nothing
// about which document is wanted.
const commonShare = 0.01

// strictFirst returns the hits of a query's strict search (every one of
// them: fewer than a page) followed by the other hits of its relaxed
// search, each list in its own order. A document holding every word of a
// query thus ranks above those holding only some, whatever the scores
// (a short page holding most words can outscore a long one holding all),
// and a relaxed search stopped at Options.MaxScan before it reached the
// documents holding every word cannot lose them: a correct word added to
// a query never takes the page holding them all off the page.
func strictFirst(strict, relaxed []*search.DocumentMatch) []*search.DocumentMatch {
	out := slices.Clone(strict)
	in := make(map[string]bool, len(strict))
	for _, h := range strict {
		in[h.ID] = true
	}
	for _, h := range relaxed {
		if !in[h.ID] {
			out = append(out, h)
		}
	}
	return out
}

// relaxed builds cq's relaxed query with the terms common in the
// documents the user may see.
func (s *Searcher) relaxed(cq compiled) (query.Query, error) {
	return cq.relaxed(func(terms []string) bool {
		sh := 0.0
		for _, t := range terms {
			sh += cq.stats.share(t)
		}
		return sh == 0 || sh > commonShare
	}), cq.stats.err
}

// filtered restricts q to documents (not member records) the user may see,
// and to the request's host and dates.
func (s *Searcher) filtered(q query.Query, r Request) query.Query {
	bq := bleve.NewBooleanQuery()
	bq.AddMust(q)
	bq.AddMust(userquery.Filter(indexer.VisibleTo(r.Groups)))
	bq.AddMustNot(userquery.Filter(memberRecords()))
	if r.Host != "" {
		// A host given without its port matches it on any port.
		h := query.Query(bleve.NewRegexpQuery(regexp.QuoteMeta(strings.ToLower(r.Host)) + `(:[0-9]+)?`))
		if strings.Contains(r.Host, ":") {
			h = bleve.NewTermQuery(r.Host)
		}
		h.(query.FieldableQuery).SetField(indexer.FieldHost)
		h.(query.BoostableQuery).SetBoost(0)
		bq.AddMust(userquery.Filter(h))
	}
	if !r.Since.IsZero() || !r.Until.IsZero() {
		dr := bleve.NewDateRangeQuery(r.Since, r.Until)
		dr.SetField(indexer.FieldLastModified)
		dr.SetBoost(0)
		bq.AddMust(userquery.Filter(dr))
	}
	return bq
}

func memberRecords() query.Query {
	k := bleve.NewTermQuery(indexer.MemberType)
	k.SetField("doppel_kind")
	return k
}

// hits builds the page's hits from its clusters: each cluster's
// representative with its fields and snippet, shown in the reader's
// language when its master is in another, with the number of other
// members the user may see.
func (s *Searcher) hits(ctx context.Context, page []string, best map[string]*rep, cq compiled, r Request) ([]Hit, error) {
	ids, err := s.representatives(ctx, page, best, cq)
	if err != nil {
		return nil, err
	}
	fields, err := s.fields(ctx, ids, cq.snippet)
	if err != nil {
		return nil, err
	}
	members, err := s.ix.MembersOfContext(ctx, page)
	if err != nil {
		return nil, s.searchError(ctx, err, false)
	}
	members = seenAll(members, r.Groups)
	out := make([]Hit, 0, len(page))
	for i, c := range page {
		h := fields[ids[i]]
		h.ID, h.Score = ids[i], best[c].score
		for _, m := range members[h.Cluster] {
			if m.ID == h.ID {
				h.Master = m.Master // as the user sees it (seenBy)
			}
		}
		if m := sameNamedMaster(members[h.Cluster], h, best[c]); m != nil {
			// A member promoted over a master of the same title (a
			// document and its HTML page, a print copy) matched better
			// only by its length: the master stands for the cluster.
			h.ID, h.URL, h.Title, h.Master, h.Lang, h.Type, h.LastModified = m.ID, m.URL, m.Title, true, m.Lang, m.Type, m.LastModified
			h.Host = hostOf(m.URL)
		}
		if h.Master {
			if m := inLanguage(members[h.Cluster], h.Lang, r); m != nil {
				h.ID, h.URL, h.Title, h.Master, h.Lang, h.Type, h.LastModified = m.ID, m.URL, m.Title, false, m.Lang, m.Type, m.LastModified
				h.Host = hostOf(m.URL)
			}
		}
		for _, m := range members[h.Cluster] {
			if m.Master && indexer.Visible(m.Groups, r.Groups) {
				h.MasterID = m.ID
			}
			if m.ID != h.ID && indexer.Visible(m.Groups, r.Groups) {
				h.Similar++
				if len(h.Members) < min(r.Members, MaxMembers) {
					h.Members = append(h.Members, memberOf(m))
				}
			}
		}
		out = append(out, h)
	}
	if r.Members > 0 {
		err = s.memberSnippets(ctx, out, cq)
	}
	return out, err
}

// memberOf returns the member record m as shown with a hit.
func memberOf(m indexer.Member) Member {
	return Member{ID: m.ID, URL: m.URL, Title: m.Title, Master: m.Master, Lang: m.Lang, Type: m.Type, LastModified: m.LastModified}
}

// memberSnippets gives the members shown with hits that are in the index
// their snippets, with one search.
func (s *Searcher) memberSnippets(ctx context.Context, hits []Hit, cq compiled) error {
	var ids []string
	for _, h := range hits {
		for _, m := range h.Members {
			ids = append(ids, m.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	q := query.Query(bleve.NewDocIDQuery(ids))
	if cq.snippet != nil {
		q = query.NewBooleanQuery([]query.Query{q}, []query.Query{cq.snippet}, nil)
	}
	req := bleve.NewSearchRequestOptions(q, len(ids), 0, false)
	req.Fields = []string{indexer.FieldBody}
	req.Highlight = bleve.NewHighlightWithStyle(highlighterName)
	req.Highlight.AddField(indexer.FieldBody)
	res, err := s.ix.Search(ctx, req)
	if err != nil {
		return s.searchError(ctx, err, false)
	}
	snippets := map[string]string{}
	for _, dm := range res.Hits {
		if frags := dm.Fragments[indexer.FieldBody]; len(frags) > 0 {
			snippets[dm.ID] = spansText(trimCut(spans(frags[0])))
		} else if body, ok := dm.Fields[indexer.FieldBody].(string); ok {
			snippets[dm.ID] = lead(body, 200)
		}
	}
	for i := range hits {
		for j := range hits[i].Members {
			hits[i].Members[j].Snippet = snippets[hits[i].Members[j].ID]
		}
	}
	return nil
}

// hostOf returns the host of rawURL, "" if it has none.
func hostOf(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	return u.Host
}

// spansText returns the text of spans.
func spansText(ss []Span) string {
	var b strings.Builder
	for _, s := range ss {
		b.WriteString(s.Text)
	}
	return b.String()
}

// sameNamedMaster returns the master of a cluster whose promoted member h
// has the master's title (as the cluster's member records have both: a
// member left out of the index has no title of its own in its difference
// record), if the master is among the hits (so the user may see it); nil
// otherwise.
func sameNamedMaster(members []indexer.Member, h Hit, b *rep) *indexer.Member {
	if h.Master || b.master == "" {
		return nil
	}
	var master, member *indexer.Member
	for i := range members {
		switch m := &members[i]; m.ID {
		case b.master:
			master = m
		case h.ID:
			member = m
		}
	}
	if master == nil || member == nil || master.Title != member.Title {
		return nil
	}
	return master
}

// candidates returns the window best hits of q by score and id, with the
// cluster and master flag as sort keys 2 and 3, and if facet, the cluster
// facet.
func (s *Searcher) candidates(ctx context.Context, q query.Query, window int, facet, byDate, withValues bool) (*bleve.SearchResult, error) {
	req := bleve.NewSearchRequestOptions(q, window, 0, false)
	// The cluster and master flag come as sort keys, from doc values:
	// loading stored documents for every candidate would cost more than
	// the search. They never reorder hits: _id is unique.
	order := search.SortOrder{&search.SortScore{Desc: true}, &search.SortDocID{},
		&search.SortField{Field: indexer.FieldCluster}, &search.SortField{Field: indexer.FieldMaster}}
	if byDate {
		order = append(search.SortOrder{&search.SortField{Field: indexer.FieldLastModified, Desc: true,
			Type: search.SortFieldAsDate, Missing: search.SortFieldMissingLast}}, order...)
	}
	if withValues {
		order = append(order, facetKeys()...)
	}
	req.SortByCustom(order)
	if facet {
		req.AddFacet("clusters", bleve.NewFacetRequest(indexer.FieldCluster, s.opts.MaxCandidates))
	}
	res, err := s.ix.Search(ctx, req)
	if err != nil {
		return nil, s.searchError(ctx, err, true)
	}
	return res, nil
}

// fields loads the stored fields and snippets of the documents ids, with
// one search; snippet (may be nil) gives the terms to mark.
func (s *Searcher) fields(ctx context.Context, ids []string, snippet query.Query) (map[string]Hit, error) {
	q := query.Query(bleve.NewDocIDQuery(ids))
	if snippet != nil {
		q = query.NewBooleanQuery([]query.Query{q}, []query.Query{snippet}, nil)
	}
	req := bleve.NewSearchRequestOptions(q, len(ids), 0, false)
	req.Fields = []string{indexer.FieldURL, indexer.FieldTitle, indexer.FieldHost, indexer.FieldCluster,
		indexer.FieldMaster, indexer.FieldLastModified, indexer.FieldBody, indexer.FieldLang, indexer.FieldType}
	req.Highlight = bleve.NewHighlightWithStyle(highlighterName)
	req.Highlight.AddField(indexer.FieldBody)
	res, err := s.ix.Search(ctx, req)
	if err != nil {
		return nil, s.searchError(ctx, err, false)
	}
	out := map[string]Hit{}
	for _, dm := range res.Hits {
		f := dm.Fields
		var h Hit
		h.URL, _ = f[indexer.FieldURL].(string)
		h.Title, _ = f[indexer.FieldTitle].(string)
		h.Host, _ = f[indexer.FieldHost].(string)
		h.Cluster, _ = f[indexer.FieldCluster].(string)
		h.Master, _ = f[indexer.FieldMaster].(bool)
		h.Lang, _ = f[indexer.FieldLang].(string)
		h.Type, _ = f[indexer.FieldType].(string)
		if lm, ok := f[indexer.FieldLastModified].(string); ok {
			h.LastModified, _ = time.Parse(time.RFC3339, lm)
		}
		if frags := dm.Fragments[indexer.FieldBody]; len(frags) > 0 {
			h.Snippet = trimCut(spans(frags[0]))
		} else {
			body, _ := f[indexer.FieldBody].(string)
			h.Snippet = []Span{{Text: lead(body, 200)}}
		}
		out[dm.ID] = h
	}
	for _, id := range ids {
		if _, ok := out[id]; !ok {
			return nil, fmt.Errorf("ranking: document %q vanished between searches", id)
		}
	}
	return out, nil
}

// inLanguage returns the member of a cluster (its members ms) that shows
// it to the user of r in place of a master in the language masterLang:
// the visible member in the first of r.Languages that some visible member
// is in; among those in that language (or, if none is in one of them,
// among the master's equals), the member whose URL is the master's place
// in the section of the first of r.Languages (lang.Parallel:
// "/manual/da/x.html" for "/manual/en/x.html", a page not translated
// yet, in the section's navigation); nil if the master stays. Among
// equals the indexed members come first, then the shortest URL. Cost:
// O(len(ms)·len(r.Languages)).
func inLanguage(ms []indexer.Member, masterLang string, r Request) *indexer.Member {
	rank := func(l string) int {
		if i := slices.Index(r.Languages, l); i >= 0 && l != "" {
			return i
		}
		return len(r.Languages)
	}
	master := ""
	for _, m := range ms {
		if m.Master {
			master = m.URL
		}
	}
	// key ranks a member in the language l at url: by its language, then
	// by the language section its URL names as the master's place there.
	key := func(l, url string) int {
		k := rank(l) * (len(r.Languages) + 1)
		if s := lang.FromURL(url); master != "" && lang.Parallel(url, master) {
			return k + rank(s)
		}
		return k + len(r.Languages)
	}
	var best *indexer.Member
	bestRank := key(masterLang, master)
	f, now := r.filter(), time.Now()
	for i := range ms {
		m := &ms[i]
		if !indexer.Visible(m.Groups, r.Groups) || !f.keep(memberValues(m, now)) {
			continue // a filter by a value gives results of that value
		}
		switch k := key(m.Lang, m.URL); {
		case k < bestRank:
			best, bestRank = m, k
		case k == bestRank && best != nil && (m.Indexed && !best.Indexed ||
			m.Indexed == best.Indexed && (len(m.URL) < len(best.URL) || len(m.URL) == len(best.URL) && m.URL < best.URL)):
			best = m
		}
	}
	return best
}

// lead returns the first n runes of s, cut at a word boundary, with "…"
// if cut.
func lead(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	cut := []rune(s)[:n]
	if i := strings.LastIndexByte(string(cut), ' '); i > n/2 {
		return string(cut)[:i] + " …"
	}
	return string(cut) + "…"
}

// Order sorts a cluster's members.
type Order int

// The orders.
const (
	ByRelevance Order = iota // the master first, then indexed members by score for the query, then the rest by URL
	ByDate                   // most recently modified first
	ByLength                 // longest first
)

// ParseOrder parses "relevance", "date" or "length".
func ParseOrder(s string) (Order, error) {
	switch s {
	case "", "relevance":
		return ByRelevance, nil
	case "date":
		return ByDate, nil
	case "length":
		return ByLength, nil
	}
	return 0, fmt.Errorf("unknown order %q (want relevance, date or length)", s)
}

// Members returns the members of a cluster the user may see, in order.
// With ByRelevance, queryString (may be empty; read in the Plain syntax)
// scores the indexed members; if that search fails (a query too broad),
// the members come unscored.
// It returns ErrNotFound if the user may see none, and ErrTimeout past
// Options.Timeout.
func (s *Searcher) Members(ctx context.Context, cluster string, groups []string, order Order, queryString string) ([]indexer.Member, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	byCluster, err := s.ix.MembersOfContext(ctx, []string{cluster})
	if err != nil {
		return nil, s.searchError(ctx, err, false)
	}
	all := seenBy(byCluster[cluster], groups)
	var ms []indexer.Member
	for _, m := range all {
		if indexer.Visible(m.Groups, groups) {
			ms = append(ms, m)
		}
	}
	if len(ms) == 0 {
		return nil, fmt.Errorf("%w: cluster %q", ErrNotFound, cluster)
	}
	switch order {
	case ByDate:
		slices.SortStableFunc(ms, func(a, b indexer.Member) int { return b.LastModified.Compare(a.LastModified) })
	case ByLength:
		slices.SortStableFunc(ms, func(a, b indexer.Member) int { return b.Length - a.Length })
	default:
		score := map[string]float64{}
		cq, err := s.compile(ctx, queryString, Plain, groups)
		if err == nil {
			defer cq.stats.close()
		}
		if err == nil && strings.TrimSpace(queryString) != "" {
			var ids []string
			for _, m := range ms {
				ids = append(ids, m.ID)
			}
			text := cq.text
			if cq.relaxed != nil {
				text = cq.relaxed(nil) // members holding only some of the words score too
			}
			req := bleve.NewSearchRequestOptions(query.NewConjunctionQuery([]query.Query{bleve.NewDocIDQuery(ids), text}), len(ids), 0, false)
			if res, err := s.ix.Search(ctx, req); err == nil {
				for _, h := range res.Hits {
					score[h.ID] = h.Score
				}
			}
		}
		if err := ctx.Err(); err != nil {
			return nil, s.searchError(ctx, err, false)
		}
		slices.SortStableFunc(ms, func(a, b indexer.Member) int {
			switch {
			case a.Master != b.Master:
				if a.Master {
					return -1
				}
				return 1
			case score[a.ID] != score[b.ID]:
				if score[a.ID] > score[b.ID] {
					return -1
				}
				return 1
			}
			return strings.Compare(a.URL, b.URL)
		})
	}
	return ms, nil
}

// Document returns an indexed document the user may see, or ErrNotFound.
func (s *Searcher) Document(id string, groups []string) (*indexer.Doc, error) {
	d, err := s.ix.Document(id)
	if err != nil {
		return nil, err
	}
	if d == nil || !indexer.Visible(d.Groups, groups) {
		return nil, fmt.Errorf("%w: document %q", ErrNotFound, id)
	}
	if !d.Master {
		byCluster, err := s.ix.MembersOfContext(context.Background(), []string{d.Cluster})
		if err != nil {
			return nil, err
		}
		seen := *d
		for _, m := range seenBy(byCluster[d.Cluster], groups) {
			if m.ID == d.ID {
				seen.Master = m.Master
			}
		}
		d = &seen
	}
	return d, nil
}

// seenBy returns the members of a cluster as a user of groups sees
// them: as they are if the user may see the master; else with the member
// they may see of the smallest URL marked the master in its place, and
// the master not, so that no flag tells of a master they may not see (a
// cluster of the same visible pages without it looks the same). ms is
// not changed.
func seenBy(ms []indexer.Member, groups []string) []indexer.Member {
	stand := -1
	for i, m := range ms {
		switch {
		case !indexer.Visible(m.Groups, groups):
		case m.Master:
			return ms
		case stand < 0 || m.URL < ms[stand].URL:
			stand = i
		}
	}
	out := slices.Clone(ms)
	for i := range out {
		out[i].Master = i == stand
	}
	return out
}

// seenAll is seenBy of every cluster of byCluster.
func seenAll(byCluster map[string][]indexer.Member, groups []string) map[string][]indexer.Member {
	out := make(map[string][]indexer.Member, len(byCluster))
	for c, ms := range byCluster {
		out[c] = seenBy(ms, groups)
	}
	return out
}
