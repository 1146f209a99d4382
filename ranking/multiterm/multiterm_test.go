package multiterm

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
)

// words are the documents' terms: 26 "xcc" words, 26 "ycc" words (none a
// stop word), and a few others.
func words() []string {
	var ws []string
	for c := 'a'; c <= 'z'; c++ {
		ws = append(ws, "x"+string(c)+string(c), "y"+string(c)+string(c))
	}
	return append(ws, "vpn", "vpns", "printer", "printers", "print")
}

// indexes returns the test corpus in both of bleve's index types: scorch
// (the one Doppel writes, with automaton dictionaries) and the in-memory
// upsidedown index (dictionaries walked).
func indexes(t testing.TB) map[string]bleve.Index {
	t.Helper()
	out := map[string]bleve.Index{}
	mem, err := bleve.NewMemOnly(bleve.NewIndexMapping())
	if err != nil {
		t.Fatal(err)
	}
	out["upsidedown"] = mem
	disk, err := bleve.New(filepath.Join(t.TempDir(), "ix"), bleve.NewIndexMapping())
	if err != nil {
		t.Fatal(err)
	}
	out["scorch"] = disk
	for _, ix := range out {
		b := ix.NewBatch()
		for i, w := range words() {
			b.Index(fmt.Sprintf("d%02d", i), map[string]string{"body": w + " common"})
		}
		if err := ix.Batch(b); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ix.Close() })
	}
	return out
}

// ids returns the ids of every hit of q.
func ids(ix bleve.Index, q query.Query) ([]string, error) {
	req := bleve.NewSearchRequestOptions(q, 1000, 0, false)
	res, err := ix.SearchInContext(context.Background(), req)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.ID)
	}
	slices.Sort(out)
	return out, nil
}

func parse(t testing.TB, qs string) query.Query {
	t.Helper()
	q, err := bleve.NewQueryStringQuery(qs).Parse()
	if err != nil {
		t.Fatalf("%q: %v", qs, err)
	}
	return q
}

// matching counts the corpus's terms a bleve query string of one
// multi-term query matches: the oracle.
func matching(qs string) int {
	n := 0
	for _, w := range append(words(), "common") {
		var ok bool
		switch {
		case strings.HasPrefix(qs, "/"):
			ok = regexp.MustCompile(`^(?:` + strings.Trim(qs, "/") + `)$`).MatchString(w)
		case strings.HasSuffix(qs, "~1"):
			d, exceeded := search.LevenshteinDistanceMax(strings.TrimSuffix(qs, "~1"), w, 1)
			ok = !exceeded && d <= 1
		default:
			ok = regexp.MustCompile(`^` + strings.ReplaceAll(regexp.QuoteMeta(qs), `\*`, `.*`) + `$`).MatchString(w)
		}
		if ok {
			n++
		}
	}
	return n
}

// TestBound runs each multi-term query bounded and unbounded on both index
// types: within the budget the hits are the same, over it the search
// fails with ErrTooManyTerms, naming the query.
func TestBound(t *testing.T) {
	for name, ix := range indexes(t) {
		t.Run(name, func(t *testing.T) {
			for _, tc := range []struct {
				q        string
				maxTerms int
			}{
				{"x*", 26}, {"x*", 25}, {"*", 100}, {"*", 50}, {"/.*/", 58}, {"/.*/", 57}, {"/y.[a-c]/", 3}, {"/y.[a-c]/", 2},
				{"print*", 3}, {"print*", 2}, {"vpn~1", 2}, {"vpn~1", 1}, {"xaa~1", 27}, {"zzz*", 1}, {"x?y", 1},
			} {
				want, err := ids(ix, parse(t, tc.q))
				if err != nil {
					t.Fatal(err)
				}
				q, n := Bound(parse(t, tc.q), Options{MaxTerms: tc.maxTerms})
				if n != 1 {
					t.Errorf("%q: %d queries bounded, want 1", tc.q, n)
				}
				got, err := ids(ix, q)
				terms := matching(tc.q)
				var e *Error
				switch {
				case terms > tc.maxTerms && (!errors.Is(err, ErrTooManyTerms) || !errors.As(err, &e) || !strings.Contains(e.Query, strings.Trim(tc.q, "/~1"))):
					t.Errorf("%q matches %d terms, at most %d: err %v, want ErrTooManyTerms naming it", tc.q, terms, tc.maxTerms, err)
				case terms <= tc.maxTerms && (err != nil || !slices.Equal(got, want)):
					t.Errorf("%q (%d terms, at most %d): %v, %v; unbounded %v", tc.q, terms, tc.maxTerms, got, err, want)
				}
			}
		})
	}
}

// TestBudgetIsShared: the multi-term queries of one tree share the budget,
// and the later searches of one bounded query do not spend it again.
func TestBudgetIsShared(t *testing.T) {
	ix := indexes(t)["scorch"]
	q, n := Bound(parse(t, "x* y*"), Options{MaxTerms: 51})
	if n != 2 {
		t.Fatalf("%d queries bounded, want 2", n)
	}
	if _, err := ids(ix, q); !errors.Is(err, ErrTooManyTerms) {
		t.Errorf("52 terms with a budget of 51: %v", err)
	}
	q, _ = Bound(parse(t, "x* y*"), Options{MaxTerms: 52})
	for i := range 3 {
		if got, err := ids(ix, q); err != nil || len(got) != 52 {
			t.Errorf("search %d: %d hits, %v", i, len(got), err)
		}
	}
	// Under boolean, conjunction and disjunction queries, and match
	// queries with a fuzziness.
	q, n = Bound(parse(t, `+x* -/y.*/ vpn~1 "vpn" common`), Options{})
	if n != 3 {
		t.Errorf("%d queries bounded, want 3", n)
	}
	if got, err := ids(ix, q); err != nil || len(got) != 26 {
		t.Errorf("compound query: %d hits, %v", len(got), err)
	}
}

func TestFuzzyLimits(t *testing.T) {
	ix := indexes(t)["upsidedown"]
	long := strings.Repeat("x", 65)
	q, _ := Bound(parse(t, long+"~1"), Options{})
	if _, err := ids(ix, q); !errors.Is(err, ErrTermTooLong) {
		t.Errorf("a 65-letter fuzzy term: %v, want ErrTermTooLong", err)
	}
	fq := query.NewFuzzyQuery("vpn")
	fq.SetFuzziness(3)
	q, _ = Bound(fq, Options{})
	if _, err := ids(ix, q); err == nil {
		t.Error("fuzziness 3: no error")
	}
	pq := query.NewPrefixQuery("print")
	pq.SetField("body")
	q, _ = Bound(pq, Options{MaxTerms: 2})
	if _, err := ids(ix, q); !errors.Is(err, ErrTooManyTerms) {
		t.Errorf("prefix over budget: %v", err)
	}
}

// TestContext: an expansion stops when the search's context ends.
func TestContext(t *testing.T) {
	ix := indexes(t)["scorch"]
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	q, _ := Bound(parse(t, "*"), Options{})
	_, err := ix.SearchInContext(ctx, bleve.NewSearchRequest(q))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("canceled context: %v", err)
	}
}

// FuzzBound: whatever the query string, a bounded query never panics, and
// it finds what the unbounded one finds unless it says it is too broad.
func FuzzBound(f *testing.F) {
	for _, s := range []string{"x*", "/.*/", "vpn~1", "+x* -y*", "/[/", "x~5", "print* OR vpn~2", "body:y?c", "*?*", `/x|xa/`, "^x~1", "xaa~2", "+common -x*"} {
		f.Add(s)
	}
	ix := indexes(f)["upsidedown"]
	f.Fuzz(func(t *testing.T, qs string) {
		if len(qs) > 200 {
			return
		}
		q, err := bleve.NewQueryStringQuery(qs).Parse()
		if err != nil {
			return
		}
		want, werr := ids(ix, q)
		q, err = bleve.NewQueryStringQuery(qs).Parse()
		if err != nil {
			t.Fatal(err)
		}
		bq, _ := Bound(q, Options{MaxTerms: 20})
		got, err := ids(ix, bq)
		switch {
		case err != nil && (errors.Is(err, ErrTooManyTerms) || errors.Is(err, ErrTermTooLong) || werr != nil):
		case err != nil:
			t.Fatalf("%q: bounded: %v; unbounded found %d", qs, err, len(want))
		case werr != nil:
			t.Fatalf("%q: unbounded: %v; bounded found %d", qs, werr, len(got))
		case !slices.Equal(got, want):
			t.Fatalf("%q: bounded %v, unbounded %v", qs, got, want)
		}
	})
}

// TestTooComplex: costly regular expressions and wildcards are refused
// by their shape with ErrTooComplex before any term is read, and cheap
// ones of the same families are answered (the refusal is asserted, not
// a latency: bleve's automaton spent over 30 s on the first of them).
func TestTooComplex(t *testing.T) {
	ix := indexes(t)["scorch"]
	for _, tc := range []struct {
		q       string
		refused bool
	}{
		{"/.{0,1000}y.{0,1000}/", true},
		{"/.{0,101}/", true},
		{"/.{0,100}y.{0,100}/", true},
		{"/((((a{0,9}){0,9}){0,9}){0,9})/", true},
		{"/" + strings.Repeat("a", 1001) + "/", true},
		// What bleve's automaton took 0.5–1.5 s for, to fail at 10,000
		// states, RE2 matches in time linear in each term.
		{"/.{0,30}y.{0,30}/", false},
		{"/(.{0,10}){0,10}x/", false},
		{"/[a-z]{0,20}x[a-z]{0,20}/", false},
		{"/.{0,16}y.{0,16}/", false},
		{"/(a|b)*a(a|b){12}/", false},
		{"/y.[a-c]/", false},
		{"/.*e.*/", false},
		{"*e*", false},
		{"?" + strings.Repeat("?", 200), false}, // 201 "." are 201 instructions and more: see below
		{"x?" + strings.Repeat("?", 400), true},
	} {
		q, _ := Bound(parse(t, tc.q), Options{MaxTerms: 1000})
		_, err := ids(ix, q)
		if got := errors.Is(err, ErrTooComplex); got != tc.refused {
			t.Errorf("%.40q: %v, refused %v, want %v", tc.q, err, got, tc.refused)
		}
		if !tc.refused && err != nil {
			t.Errorf("%.40q: %v", tc.q, err)
		}
	}
}

// TestVisible: with Options.Visible, terms no visible document holds are
// neither searched nor counted against MaxTerms, so a query and its
// errors are what they would be on the visible documents alone, with
// the terms tested one by one or read from Dictionaries (scorch only).
func TestVisible(t *testing.T) {
	for name, ix := range indexes(t) {
		for _, dicts := range []*Dictionaries{nil, NewDictionaries(0)} {
			t.Run(fmt.Sprintf("%s/dictionaries=%v", name, dicts != nil), func(t *testing.T) {
				// Visible: the documents of the "x" words (d00, d02, …).
				visible := func() query.Query {
					var qs []query.Query
					for c := 'a'; c <= 'z'; c++ {
						tq := query.NewTermQuery("x" + string(c) + string(c))
						tq.SetField("body")
						qs = append(qs, tq)
					}
					return query.NewDisjunctionQuery(qs)
				}
				for _, tc := range []struct {
					q        string
					maxTerms int
					want     int // hits
					tooBroad bool
				}{
					{"body:/y.*/", 1, 0, false},  // 26 terms, all hidden
					{"body:/.*/", 27, 26, false}, // 26 visible x words and "common"
					{"body:/.*/", 26, 0, true},
					{"body:y*", 1, 0, false},
					{"body:yaa~1", 1, 1, false}, // yaa (hidden) and xaa
					{"body:xaa~1", 1, 1, false}, // xaa and yaa (hidden)
				} {
					// Whether a visible document holds a term is searched, or
					// answered by Options.Holds (here from what the visible
					// documents hold: the x words and "common"), unless the
					// dictionary of visible terms lists only those.
					asked := 0
					holds := func(field, term string) (bool, error) {
						asked++
						return field == "body" && (len(term) == 3 && term[0] == 'x' || term == "common"), nil
					}
					for _, h := range []func(string, string) (bool, error){nil, holds} {
						q, _ := Bound(parse(t, tc.q), Options{MaxTerms: tc.maxTerms, Visible: visible(), VisibleKey: "x", Dictionaries: dicts, Holds: h})
						req := bleve.NewSearchRequestOptions(query.NewConjunctionQuery([]query.Query{q, visible()}), 1000, 0, false)
						res, err := ix.SearchInContext(context.Background(), req)
						switch {
						case tc.tooBroad != errors.Is(err, ErrTooManyTerms):
							t.Errorf("%q at most %d terms (Holds %v): err %v, want too broad %v", tc.q, tc.maxTerms, h != nil, err, tc.tooBroad)
						case err == nil && len(res.Hits) != tc.want:
							t.Errorf("%q (Holds %v): %d hits, want %d", tc.q, h != nil, len(res.Hits), tc.want)
						}
					}
					if asked == 0 && dicts == nil {
						t.Errorf("%q: Options.Holds was never asked", tc.q)
					}
				}
			})
		}
	}
}
