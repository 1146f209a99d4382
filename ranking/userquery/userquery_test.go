package userquery

import (
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
)

// fields are those of a documentation intranet, weighted like Doppel's.
var fields = []Field{
	{Name: "title", Boost: 3},
	{Name: "headings", Boost: 2},
	{Name: "body", Boost: 1},
	{Name: "url", Kind: Prefix},
	{Name: "host", Kind: Domain, Aliases: []string{"site"}},
	{Name: "id", Kind: Exact},
}

func testMapping() *mapping.IndexMappingImpl {
	text := func() *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = en.AnalyzerName
		f.IncludeTermVectors = true
		return f
	}
	kw := func() *mapping.FieldMapping {
		f := bleve.NewKeywordFieldMapping()
		f.Analyzer = keyword.Name
		return f
	}
	dm := bleve.NewDocumentStaticMapping()
	for _, n := range []string{"title", "headings", "body"} {
		dm.AddFieldMappingsAt(n, text())
	}
	for _, n := range []string{"url", "host", "id"} {
		dm.AddFieldMappingsAt(n, kw())
	}
	im := bleve.NewIndexMapping()
	im.DefaultAnalyzer = en.AnalyzerName
	im.DefaultMapping = dm
	return im
}

func testParser() *Parser {
	return New(Options{Fields: fields, Mapping: testMapping()})
}

func TestParse(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// Plain text, however it is punctuated.
		{"vpn client", "vpn client"},
		{"std::env::Args", "std::env::Args"},
		{"PostgreSQL: Documentation: 15: CREATE TABLE", "PostgreSQL: Documentation: 15: CREATE TABLE"},
		{"a:b:c", "a:b:c"},
		{"http://x/y", "http://x/y"},
		{"title:", "title:"},
		{"title: vpn", "title: vpn"},
		{"title::vpn", "title::vpn"},
		{"Title:vpn", "Title:vpn"},       // field names are lower case
		{"author:smith", "author:smith"}, // unknown field
		{"(a OR", "(a OR"},
		{"a AND b NOT c", "a AND b NOT c"},
		{"[x] {} ^ ~2 * \\ ( ) :: : +", "[x] ~2"},
		{"vpn^2 vpn~ vpn* te?t", "vpn^2 vpn~ vpn* te?t"},
		{"--verbose a-b C++ -- ++ +- -+", "--verbose a-b C++"},
		{"git-help(1)", "git-help(1)"},
		// Phrases.
		{`"a b" c`, `+"a b" c`},
		{`x"a b"y`, `x +"a b" y`},
		{`"unterminated words`, "unterminated words"},
		{`"a b" "c d`, `+"a b" c d`},
		{`"" x " "`, "x"},
		// Required and excluded.
		{"+a -b", "+a -b"},
		{`-"a b" +"c d"`, `-"a b" +"c d"`},
		{`-"a`, "-a"},
		{"+ a - b", "a b"},
		// Fields.
		{"title:vpn", "+title:vpn"},
		{"+title:vpn -body:draft", "+title:vpn -body:draft"},
		{`title:"vpn client"`, `+title:"vpn client"`},
		{`title:"vpn`, "+title:vpn"},
		{"title:std::env::Args", "+title:std::env::Args"},
		{"site:example.com", "+host:example.com"},
		{"url:http://x/y?a=b", "+url:http://x/y?a=b"},
		{"title:title:vpn", "+title:title:vpn"},
		{"title:-vpn", "+title:-vpn"},
		{"title:*", ""},
		// Blank, broken UTF-8, other scripts.
		{"", ""},
		{" \t\n ", ""},
		{"caf\xe9 au lait", "caf\uFFFD au lait"},
		{"\xff\xfe", ""},
		{"東京 タワー", "東京 タワー"},
	} {
		if got := testParser().Parse(tc.in).String(); got != tc.want {
			t.Errorf("Parse(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseClauses(t *testing.T) {
	got := testParser().Parse(`-site:Example.com +"a b" c title:d`).Clauses
	want := []Clause{
		{Occur: MustNot, Field: "host", Text: "Example.com"},
		{Occur: Must, Text: "a b", Phrase: true},
		{Occur: Should, Text: "c"},
		{Occur: Must, Field: "title", Text: "d"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestCut(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
		cut  bool
	}{
		{"abc def", 100, "abc def", false},
		{"abc def", 7, "abc def", false},
		{"abc def", 6, "abc", true},
		{"abc def", 4, "abc", true},
		{"abc def", 3, "abc", true},
		{"abc  def", 4, "abc", true},
		{"abcdef", 3, "abc", true}, // one long word: cut inside it
		{"éé", 3, "é", true},       // never inside a character
		{"é", 1, "", true},
		{"a b", 0, "", true},
		{"a b", -1, "", true},
	} {
		got, cut := Cut(tc.in, tc.n)
		if got != tc.want || cut != tc.cut {
			t.Errorf("Cut(%q, %d) = %q, %v; want %q, %v", tc.in, tc.n, got, cut, tc.want, tc.cut)
		}
	}
	p := New(Options{MaxBytes: 10})
	if q := p.Parse("vpn client installation"); q.String() != "vpn client" || !q.Truncated {
		t.Errorf("Parse of a long query = %q (truncated %v)", q.String(), q.Truncated)
	}
}

// docs is a small intranet: pages of the Rust and PostgreSQL manuals,
// which people search by pasting their titles, and a VPN manual on two
// hosts.
var docs = map[string]map[string]any{
	"std-env-args": {"title": "Args in std::env - Rust", "headings": []string{"Struct Args"},
		"body": "An iterator over the arguments of a process, yielding a String value for each argument.",
		"url":  "https://doc.rust-lang.org/std/env/struct.Args.html", "host": "doc.rust-lang.org"},
	"std-env": {"title": "std::env - Rust", "headings": []string{"Module env", "Structs"},
		"body": "Inspection and manipulation of the process's environment. Args: an iterator over the arguments of a process.",
		"url":  "https://doc.rust-lang.org/std/env/index.html", "host": "doc.rust-lang.org"},
	"pg-create-table": {"title": "PostgreSQL: Documentation: 15: CREATE TABLE", "headings": []string{"CREATE TABLE"},
		"body": "CREATE TABLE — define a new table. CREATE TABLE will create a new, initially empty table in the current database.",
		"url":  "https://www.postgresql.org/docs/15/sql-createtable.html", "host": "www.postgresql.org"},
	"pg-create-table-as": {"title": "PostgreSQL: Documentation: 15: CREATE TABLE AS", "headings": []string{"CREATE TABLE AS"},
		"body": "CREATE TABLE AS — define a new table from the results of a query.",
		"url":  "https://www.postgresql.org/docs/15/sql-createtableas.html", "host": "www.postgresql.org"},
	"pg-create-tablespace": {"title": "PostgreSQL: Documentation: 15: CREATE TABLESPACE", "headings": []string{"CREATE TABLESPACE"},
		"body": "CREATE TABLESPACE — define a new tablespace. A tablespace allows superusers to define where table files live.",
		"url":  "https://www.postgresql.org/docs/15/sql-createtablespace.html", "host": "www.postgresql.org"},
	"vpn": {"title": "Connecting to the VPN", "body": "Install the VPN client from the software portal.",
		"url": "http://intra.example/manual/vpn", "host": "intra.example"},
	"vpn-print": {"title": "Connecting to the VPN (print)", "body": "Install the VPN client from the software portal. Printed copy.",
		"url": "http://docs.intra.example/print/vpn", "host": "docs.intra.example"},
	"canteen": {"title": "Canteen menu", "body": "Lunch is served from noon. The menu changes every week.",
		"url": "http://intra.example/canteen", "host": "intra.example"},
}

func testIndex(t testing.TB) bleve.Index {
	t.Helper()
	ix, err := bleve.NewMemOnly(testMapping())
	if err != nil {
		t.Fatal(err)
	}
	b := ix.NewBatch()
	for id, d := range docs {
		d["id"] = id
		if err := b.Index(id, d); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.Batch(b); err != nil {
		t.Fatal(err)
	}
	return ix
}

// search returns the ids of the documents q matches, best first (ties by
// id), after checking q is valid.
func search(t testing.TB, ix bleve.Index, q query.Query) []string {
	t.Helper()
	if v, ok := q.(query.ValidatableQuery); ok {
		if err := v.Validate(); err != nil {
			t.Fatalf("invalid query: %v", err)
		}
	}
	ids, _ := scored(t, ix, q)
	return ids
}

func TestSearch(t *testing.T) {
	ix := testIndex(t)
	p := testParser()
	all := []string{"canteen", "pg-create-table", "pg-create-table-as", "pg-create-tablespace", "std-env", "std-env-args", "vpn", "vpn-print"}
	for _, tc := range []struct {
		q     string
		first []string // the best, in order
		set   []string // if not nil, every match, in any order
	}{
		// Pasted titles find their page first.
		{"Args in std::env - Rust", []string{"std-env-args", "std-env"}, nil},
		{"std::env - Rust", []string{"std-env"}, nil},
		{"std::env::Args", []string{"std-env-args"}, nil},
		{"PostgreSQL: Documentation: 15: CREATE TABLE", []string{"pg-create-table"}, nil},
		{"PostgreSQL: Documentation: 15: CREATE TABLESPACE", []string{"pg-create-tablespace"}, nil},
		{"Connecting to the VPN", []string{"vpn", "vpn-print"}, nil},
		{"Connecting to the VPN (print)", []string{"vpn-print"}, nil},
		// Every word is required…
		{"create table", nil, []string{"pg-create-table", "pg-create-table-as", "pg-create-tablespace"}},
		{"vpn lunch", nil, []string{}}, // …Relaxed finds either (TestRelaxed)
		// Phrases, required and excluded words.
		{`"define a new table"`, nil, []string{"pg-create-table", "pg-create-table-as"}},
		{`"new table define"`, nil, []string{}},
		{"postgresql -tablespace", nil, []string{"pg-create-table", "pg-create-table-as"}},
		{`postgresql -"new tablespace"`, nil, []string{"pg-create-table", "pg-create-table-as"}},
		{"+iterator arguments", []string{"std-env-args"}, []string{"std-env", "std-env-args"}},
		{"-postgresql -rust", nil, []string{"canteen", "vpn", "vpn-print"}},
		{"-zebra", nil, all},
		// Fields.
		{"title:args", nil, []string{"std-env-args"}},
		{"title:iterator", nil, []string{}},
		{"title:vpn print", nil, []string{"vpn-print"}},
		{"-title:vpn -title:postgresql", nil, []string{"canteen", "std-env", "std-env-args"}},
		{`title:"create table"`, nil, []string{"pg-create-table", "pg-create-table-as"}},
		{`headings:"module env"`, nil, []string{"std-env"}},
		{"site:intra.example", nil, []string{"canteen", "vpn", "vpn-print"}},
		{"host:Docs.Intra.Example", nil, []string{"vpn-print"}},
		{"site:example", nil, []string{"canteen", "vpn", "vpn-print"}},
		{"site:ntra.example", nil, []string{}},
		{"site:intra.example vpn", []string{"vpn", "vpn-print"}, nil},
		{"-site:intra.example -site:rust-lang.org", nil, []string{"pg-create-table", "pg-create-table-as", "pg-create-tablespace"}},
		{"url:http://intra.example/", nil, []string{"canteen", "vpn"}},
		{"url:https://www.postgresql.org/docs/15/sql-createtable", nil, []string{"pg-create-table", "pg-create-table-as", "pg-create-tablespace"}},
		{"id:vpn", nil, []string{"vpn"}},
		// Nothing searchable: everything.
		{"", nil, all},
		{"+ - * ^ [] {} \\", nil, all},
		{"~2", nil, []string{}}, // the word "2"
		{"the of and", nil, all},
		{`"the"`, nil, all},
		{"-the", nil, all},
	} {
		got := search(t, ix, p.Query(tc.q))
		if tc.set != nil && !sameSet(got, tc.set) {
			t.Errorf("%q matched %v, want %v", tc.q, got, tc.set)
		}
		if len(got) < len(tc.first) || !slices.Equal(got[:len(tc.first)], tc.first) {
			t.Errorf("%q ranked %v, want %v first", tc.q, got, tc.first)
		}
	}
}

func TestRelaxed(t *testing.T) {
	ix := testIndex(t)
	p := testParser()
	for _, tc := range []struct {
		q    string
		want []string // nil: no relaxed query
	}{
		{"vpn", nil},
		{"vpn vpn", nil},
		{"the vpn", nil},
		{"+vpn lunch", nil},
		{"vpn lunch", []string{"canteen", "vpn", "vpn-print"}},
		{"vpn lunch print", []string{"vpn-print"}}, // two of the three words (MinShould)
		{"vpn lunch -print", []string{"canteen", "vpn"}},
		{"site:intra.example vpn lunch", []string{"canteen", "vpn", "vpn-print"}},
		{"url:http://intra.example/ vpn lunch", []string{"canteen", "vpn"}},
	} {
		q := p.Parse(tc.q)
		rq := p.Relaxed(q, nil)
		if (rq == nil) != (tc.want == nil) {
			t.Errorf("Relaxed(%q) = %v, want nil %v", tc.q, rq, tc.want == nil)
			continue
		}
		if rq == nil {
			continue
		}
		if got := search(t, ix, rq); !sameSet(got, tc.want) {
			t.Errorf("Relaxed(%q) matched %v, want %v", tc.q, got, tc.want)
		}
	}
	// Documents holding more of the words rank first.
	got := search(t, ix, p.Relaxed(p.Parse("vpn lunch"), nil))
	if len(got) != 3 {
		t.Errorf("Relaxed ranked %v, want three", got)
	}
	// Common terms only score: the words a document needs are counted
	// among the others.
	common := func(terms []string) bool { return slices.Contains(terms, "lunch") }
	if got := search(t, ix, p.Relaxed(p.Parse("vpn lunch print"), common)); !sameSet(got, []string{"vpn", "vpn-print"}) {
		t.Errorf("Relaxed with lunch common matched %v, want the pages with vpn or print", got)
	}
	all := func([]string) bool { return true }
	if got := search(t, ix, p.Relaxed(p.Parse("vpn lunch print"), all)); !sameSet(got, []string{"vpn-print"}) {
		t.Errorf("Relaxed with every term common matched %v, want two of the three words as without", got)
	}
	for n, want := range map[int]int{2: 1, 3: 2, 4: 3, 5: 4, 6: 4, 7: 5, 9: 6, 12: 8} {
		if got := MinShould(n); got != want {
			t.Errorf("MinShould(%d) = %d, want %d", n, got, want)
		}
	}
}

func TestSnippet(t *testing.T) {
	p := testParser()
	for _, tc := range []struct{ q, want string }{
		{`vpn +client -draft title:print "install the" body:portal headings:x url:y`, "vpn client instal portal"}, // stemmed; title and url clauses are not in the body
		{"-vpn", ""},
		{"the", ""},
	} {
		sq := p.Snippet(p.Parse(tc.q), "body")
		var got []string
		switch sq := sq.(type) {
		case *query.DisjunctionQuery:
			for _, d := range sq.Disjuncts {
				got = append(got, d.(*query.TermQuery).Term)
			}
		case *query.TermQuery:
			got = []string{sq.Term}
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("Snippet(%q) terms %q, want %q", tc.q, got, tc.want)
		}
	}
	if p.Snippet(p.Parse("vpn"), "nope") != nil {
		t.Error("Snippet of an unknown field is not nil")
	}
}

func TestDefaultOptions(t *testing.T) {
	// Without fields, words match bleve's default field and nothing can be
	// named.
	ix, err := bleve.NewMemOnly(bleve.NewIndexMapping())
	if err != nil {
		t.Fatal(err)
	}
	for id, text := range map[string]string{"a": "Title: a red apple", "b": "a green pear"} {
		if err := ix.Index(id, map[string]string{"text": text}); err != nil {
			t.Fatal(err)
		}
	}
	p := New(Options{})
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"apple", []string{"a"}},
		{"title:apple", []string{}}, // "title:apple" is one word
		{"-apple", []string{"b"}},
		{"Title: apple", []string{"a"}},
	} {
		if got := search(t, ix, p.Query(tc.q)); !sameSet(got, tc.want) {
			t.Errorf("%q matched %v, want %v", tc.q, got, tc.want)
		}
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// FuzzParse: any string parses, its clauses write back to themselves, and
// its queries are valid and can be searched.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"std::env::Args", "PostgreSQL: Documentation: 15", `"unterminated`, "(a OR", "+", "-",
		"title:", "a:b:c", "[x]", "{}", "^", "~2", "*", `\`, `-site:x.y +"a b" title:"c d`, "url:http://x/y",
		"caf\xe9", "--x +-y", `x"y z"w`} {
		f.Add(s)
	}
	ix := testIndex(f)
	p := testParser()
	long := New(Options{Fields: fields, Mapping: testMapping(), MaxBytes: 1 << 20})
	f.Fuzz(func(t *testing.T, s string) {
		q := p.Parse(s)
		if q.Truncated != (len(strings.ToValidUTF8(s, "\uFFFD")) > 512) {
			t.Errorf("Parse(%q): truncated %v", s, q.Truncated)
		}
		full := long.Parse(s)
		if again := long.Parse(full.String()); !slices.Equal(again.Clauses, full.Clauses) {
			t.Errorf("Parse(%q) = %q, which parses to %q", s, full.String(), again.String())
		}
		search(t, ix, p.Build(q))
		if rq := p.Relaxed(q, nil); rq != nil {
			search(t, ix, rq)
		}
		if sq := p.Snippet(q, "body"); sq != nil {
			search(t, ix, sq)
		}
	})
}
