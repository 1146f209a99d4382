package userquery

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/standard"
	"github.com/blevesearch/bleve/v2/mapping"
)

// Occur says how a clause takes part in matching.
type Occur int8

// The occurrences.
const (
	// Should clauses add to the score; when a query has no Must clause, a
	// document must match at least one of them.
	Should Occur = iota
	// Must clauses must match.
	Must
	// MustNot clauses must not match.
	MustNot
)

// A Kind says how a field's values are matched.
type Kind int8

// The kinds.
const (
	// Text fields are analyzed: words and phrases.
	Text Kind = iota
	// Exact fields match the whole value as one term.
	Exact
	// Prefix fields match the values that start with the given one (URLs:
	// "url:http://intra/hr/" is every page under /hr/). A short prefix
	// expands to many terms.
	Prefix
	// Domain fields match the value and its subdomains (hosts:
	// "example.com" matches "docs.example.com"); the value is lowercased.
	Domain
)

// A Field is an index field a query may name ("title:vpn") or that plain
// words are searched in.
type Field struct {
	// Name is the field's name in the index, and what a query writes
	// before the colon.
	Name string
	// Aliases are other names a query may write for the field
	// (e.g. "site" for "host").
	Aliases []string
	// Kind says how values are matched; the zero value is Text.
	Kind Kind
	// Boost weighs matches of plain words in the field (a Text field
	// only). Zero: plain words are not searched in the field; it is
	// searched only when named.
	Boost float64
}

// Options configures a Parser. The zero value means the defaults.
type Options struct {
	// Fields are the fields a query may name and plain words are searched
	// in. Default: none may be named, and words are searched in the
	// mapping's default search field (bleve's "_all").
	Fields []Field
	// Mapping gives the analyzer of each field (the standard analyzer if
	// it names one it lacks). Default: bleve.NewIndexMapping() (the
	// standard analyzer everywhere).
	Mapping mapping.IndexMapping
	// PhraseBoost weighs, relative to the field's boost, a document
	// holding the query's plain words as a phrase, in the order typed.
	// Default 1.
	PhraseBoost float64
	// MaxBytes is the longest query read; longer ones are cut at a word
	// boundary (see Cut). Default 512.
	MaxBytes int
	// AllField names a composite field that holds exactly the terms of
	// every text field plain words are searched in (bleve's "_all", when
	// those fields and no other text field are included in it). The
	// filter that a document holds each word in some text field then
	// reads one posting list per term, not one per term and field: the
	// same documents, at a fraction of the cost on a large index. It
	// scores nothing either way. Default "": one per field.
	AllField string
	// NameField, if set, is a keyword field holding each document's
	// names — its title whole and the parts of it that name the page on
	// their own (indexer.TitleKeys) — as NameKey writes them. A query
	// whose plain words, as typed or pasted, are one of a document's
	// names then scores NameBoost more in that document: a pasted
	// title or an exact identifier is the strongest evidence of the page
	// wanted, and a term lookup costs one posting list.
	NameField string
	// NameKey is the key of a query's plain words in NameField ("" for
	// none); required with NameField.
	NameKey func(text string) string
	// NameBoost weighs a name match. Default 10.
	NameBoost float64
}

// A Parser reads user queries. It is safe for concurrent use.
type Parser struct {
	opts   Options
	fields map[string]*Field            // by name and alias
	text   []Field                      // fields plain words are searched in
	an     map[string]analysis.Analyzer // the mapping's analyzer of each text field
	named  *sync.Map                    // analyzer name → analysis.Analyzer (nil if the mapping lacks it)
	lang   Languages
	keep   map[string]bool // the terms of the plain words searched (nil: every word; see Reduce)
}

// Languages says how the text fields of a multilingual index are
// analyzed for one query: each page's text was indexed by its language's
// analyzer, so a query's words are analyzed by each of the index's, and a
// word matches by any of the terms they make of it.
type Languages struct {
	// Analyzers name the analyzers of the text fields besides the
	// mapping's (names the mapping lacks are skipped).
	Analyzers []string
	// Holds, if set, reports whether some document of the index holds
	// term: a term the further analyzers make and the index does not
	// hold is left out (it could match nothing, and costs a search).
	Holds func(term string) bool
}

// EnsureDefaults sets every zero field to its default (each field's doc
// says which) and returns o.
func (o *Options) EnsureDefaults() *Options {
	if o.Mapping == nil {
		o.Mapping = bleve.NewIndexMapping()
	}
	if o.PhraseBoost <= 0 {
		o.PhraseBoost = 1
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = 512
	}
	if o.NameBoost <= 0 {
		o.NameBoost = 10
	}
	return o
}

// New returns a Parser with opts.
func New(opts Options) *Parser {
	opts.EnsureDefaults()
	opts.Fields = slices.Clone(opts.Fields)
	p := &Parser{opts: opts, fields: map[string]*Field{}, an: map[string]analysis.Analyzer{}, named: &sync.Map{}}
	for i := range opts.Fields {
		f := &opts.Fields[i]
		for _, n := range append([]string{f.Name}, f.Aliases...) {
			if n != "" {
				p.fields[n] = f
			}
		}
		if f.Kind == Text && f.Boost > 0 {
			p.text = append(p.text, *f)
		}
	}
	if len(p.text) == 0 {
		p.text = []Field{{Name: opts.Mapping.DefaultSearchField(), Boost: 1}}
	}
	for _, f := range slices.Concat(p.text, opts.Fields) {
		if f.Kind == Text {
			a := opts.Mapping.AnalyzerNamed(opts.Mapping.AnalyzerNameForPath(f.Name))
			if a == nil { // a mapping naming an analyzer it lacks
				a = opts.Mapping.AnalyzerNamed(standard.Name)
			}
			p.an[f.Name] = a
		}
	}
	return p
}

// With returns a parser like p that analyzes text in the languages l
// (for one query: the index's languages whose analysis of it makes words
// the index holds). A word of the text is then required when every
// analyzer keeps it — a stop word of one language is optional — and
// matches by any of its terms; without With, the mapping's analyzer of
// each field alone. The copy shares p's state and costs one Parser
// struct.
func (p *Parser) With(l Languages) *Parser {
	c := *p
	c.lang = l
	return &c
}

// A Clause is one part of a query: a word, a phrase or a field's value.
type Clause struct {
	Occur  Occur
	Field  string // the field's Name (aliases resolved); "" for plain text
	Text   string // as typed, without sign, field name or quotes
	Phrase bool   // quoted
}

// String writes c in the syntax, with its occurrence explicit: Parse
// reads it back to the same clause.
func (c Clause) String() string {
	var b strings.Builder
	switch c.Occur {
	case Must:
		b.WriteByte('+')
	case MustNot:
		b.WriteByte('-')
	}
	if c.Field != "" {
		b.WriteString(c.Field + ":")
	}
	if c.Phrase {
		b.WriteString(`"` + c.Text + `"`)
	} else {
		b.WriteString(c.Text)
	}
	return b.String()
}

// Parsed is a parsed query.
type Parsed struct {
	Clauses []Clause
	// Truncated reports that the query was longer than Options.MaxBytes
	// and was cut.
	Truncated bool
}

// String writes the clauses separated by spaces.
func (q Parsed) String() string {
	s := make([]string, len(q.Clauses))
	for i, c := range q.Clauses {
		s[i] = c.String()
	}
	return strings.Join(s, " ")
}

// Cut returns s if it has at most n bytes, and otherwise its longest
// prefix of at most n bytes that ends before a space (or, for a first word
// longer than n, at a character boundary), with trailing spaces removed;
// cut reports whether s was shortened.
func Cut(s string, n int) (_ string, cut bool) {
	if len(s) <= n {
		return s, false
	}
	i := max(n, 0)
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	if r, _ := utf8.DecodeRuneInString(s[i:]); !unicode.IsSpace(r) {
		if j := strings.LastIndexFunc(s[:i], unicode.IsSpace); j >= 0 {
			i = j
		}
	}
	return strings.TrimRightFunc(s[:i], unicode.IsSpace), true
}

// Parse reads a query; it never fails. Invalid UTF-8 is replaced by
// U+FFFD, a query longer than Options.MaxBytes is cut (see Cut), and
// clauses without a letter or digit are dropped. Quoted phrases and field
// clauses are Must unless negated. It costs O(len(s)).
func (p *Parser) Parse(s string) Parsed {
	var out Parsed
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	s, out.Truncated = Cut(s, p.opts.MaxBytes)
	i := 0
	for {
		i = skipSpace(s, i)
		if i >= len(s) {
			return out
		}
		c, next, ok := p.clauseAt(s, i)
		if !ok {
			// An unterminated quote is dropped, as if not typed.
			s = s[:next] + s[next+1:]
			continue
		}
		if strings.IndexFunc(c.Text, isWordRune) >= 0 {
			out.Clauses = append(out.Clauses, c)
		}
		i = next
	}
}

// clauseAt reads the clause that starts at s[i], not a space, and returns
// it with the index just past it. If the clause's quote at s[next] is
// unterminated, ok is false and the clause must be read again without
// that quote.
func (p *Parser) clauseAt(s string, i int) (c Clause, next int, ok bool) {
	c.Occur, i = occurAt(s, i)
	if name, n := p.fieldAt(s[i:]); n > 0 {
		c.Field = name
		i += n
	}
	if c.Field != "" && c.Occur == Should {
		c.Occur = Must
	}
	if s[i] == '"' {
		j := strings.IndexByte(s[i+1:], '"')
		if j < 0 {
			return c, i, false
		}
		c.Text, c.Phrase = s[i+1:i+1+j], true
		if c.Occur == Should {
			c.Occur = Must
		}
		return c, i + j + 2, true
	}
	j := wordEnd(s, i)
	c.Text = s[i:j]
	return c, j, true
}

// occurAt reads the optional "+" or "-" before the clause at s[i] and
// returns the clause's Occur and the index past the sign. A sign counts
// only if followed by something other than a sign or a space.
func occurAt(s string, i int) (Occur, int) {
	if (s[i] != '+' && s[i] != '-') || i+1 >= len(s) || s[i+1] == '+' || s[i+1] == '-' || spaceAt(s, i+1) {
		return Should, i
	}
	if s[i] == '-' {
		return MustNot, i + 1
	}
	return Must, i + 1
}

// wordEnd returns the index of the first quote or space at or after i in
// s, or len(s).
func wordEnd(s string, i int) int {
	for i < len(s) && s[i] != '"' && !spaceAt(s, i) {
		_, n := utf8.DecodeRuneInString(s[i:])
		i += n
	}
	return i
}

// fieldAt returns the field named at the start of s ("name:" followed by
// a value) and the length of "name:"; n is 0 if there is none.
func (p *Parser) fieldAt(s string) (name string, n int) {
	k := 0
	for k < len(s) && s[k] != ':' && s[k] != '"' && s[k] < utf8.RuneSelf && !spaceAt(s, k) {
		k++
	}
	if k == 0 || k+1 >= len(s) || s[k] != ':' || s[k+1] == ':' || spaceAt(s, k+1) {
		return "", 0
	}
	f := p.fields[s[:k]]
	if f == nil {
		return "", 0
	}
	return f.Name, k + 1
}

// isWordRune reports whether r is a letter or a digit.
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// spaceAt reports whether the rune at s[i] is a space.
func spaceAt(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsSpace(r)
}

// skipSpace returns the index of the first non-space rune at or after i
// in s, or len(s).
func skipSpace(s string, i int) int {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += n
	}
	return i
}
